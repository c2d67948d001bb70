/*
 * dnsbatch/log.h - diagnostics to stderr, as text or JSON lines.
 *
 * Process-wide settings (set once at start-up, before threads); each line is
 * written with one write(2) so lines from several threads never interleave.
 * Never pass a secret to these functions.
 */
#ifndef DNSBATCH_LOG_H
#define DNSBATCH_LOG_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dnsb_log_level {
	DNSB_LOG_DEBUG = 0,
	DNSB_LOG_INFO = 1,
	DNSB_LOG_WARN = 2,
	DNSB_LOG_ERROR = 3
} dnsb_log_level;

typedef enum dnsb_log_format {
	DNSB_LOG_TEXT = 0,  /**< "2026-11-20T23:59:59Z warn message" */
	DNSB_LOG_JSON = 1   /**< {"time":"...","level":"warn","msg":"..."} */
} dnsb_log_format;

/** Set the output format (default text). */
void dnsb_log_set_format(dnsb_log_format format);
/** Lines below this level are not written (default info). */
void dnsb_log_set_level(dnsb_log_level level);
/**
 * Parse "text"/"json".
 * @return 0, or -3 (DNSB_EINVAL) for another word
 */
int dnsb_log_parse_format(dnsb_log_format *out, const char *word);

/** Write one line (printf style, truncated to 4 KiB). */
void dnsb_log(dnsb_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct json_object;
/**
 * The same, with structured fields: in the JSON format each member of
 * `fields` (a json-c object, borrowed; NULL = none) is a key of the line
 * beside time, level and msg; the text format writes the message alone.
 */
void dnsb_log_fields(dnsb_log_level level, struct json_object *fields, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif
#endif
