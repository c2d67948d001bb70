/*
 * dnsbatch/log.h - diagnostics to stderr, as text or JSON lines.
 *
 * Process-wide settings (set once at start-up, before threads); each line is
 * written with one write(2) so lines from several threads never interleave.
 * Never pass a secret to these functions. The levels and the line itself
 * (dnsb_log_level, dnsb_log) are declared in dnsbatch/sys/log.h, the part a
 * provider backend sees; this header adds the program's settings and the
 * line with structured fields.
 */
#ifndef DNSBATCH_LOG_H
#define DNSBATCH_LOG_H

#include "sys/log.h"

#ifdef __cplusplus
extern "C" {
#endif

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
/**
 * Say that a line without its newline (a terminal's progress line, redrawn in place) is on stderr (`drawn` 1) or is
 * gone (0). While one is, the next log line first erases it ("\r\033[K"), so that no log line is glued to it; the
 * line's owner draws it again.
 */
void dnsb_log_line_drawn(int drawn);

struct json_object;
/**
 * Write one line as dnsb_log does, with structured fields: in the JSON format each member of
 * `fields` (a json-c object, borrowed; NULL = none) is a key of the line
 * beside time, level and msg; the text format writes the message alone.
 */
void dnsb_log_fields(dnsb_log_level level, struct json_object *fields, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif
#endif
