/*
 * dnsbatch/sys/log.h - the one logging call a provider backend makes.
 *
 * A backend reports what it did (a retried request, a credential refreshed)
 * with dnsb_log; where the line goes (stderr), in which format (text or JSON
 * lines) and from which level up is the program's choice, made with the
 * settings in dnsbatch/log.h, which a backend never needs. Like every header
 * in sys/, this one is for backend writers.
 */
#ifndef DNSBATCH_SYS_LOG_H
#define DNSBATCH_SYS_LOG_H

#ifdef __cplusplus
extern "C" {
#endif

/** How much a line matters; lines below the level the program set are not written. */
typedef enum dnsb_log_level {
	DNSB_LOG_DEBUG = 0,
	DNSB_LOG_INFO = 1,
	DNSB_LOG_WARN = 2,
	DNSB_LOG_ERROR = 3
} dnsb_log_level;

/**
 * Write one line (printf style, truncated to 4 KiB) to stderr with one
 * write(2), so that lines from several threads never interleave; errno is
 * kept. Never pass a secret (a key, a token, a TSIG secret).
 */
void dnsb_log(dnsb_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif
#endif
