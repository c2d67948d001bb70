/*
 * dnsbatch/common.h - error codes and the per-call error detail.
 *
 * Every function that can fail returns an int: 0 (DNSB_OK) on success, a
 * negative DNSB_E* code otherwise. Codes are only ever added, at the end,
 * never renumbered. The human-readable detail of a failure (file and JSON
 * path, provider status and message, DNS rcode) is written into a
 * caller-owned dnsb_error, never into global state: the sidecar applies
 * plans on several threads at once.
 */
#ifndef DNSBATCH_COMMON_H
#define DNSBATCH_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Return codes. 0 is success; every failure is negative. */
enum {
	DNSB_OK = 0,
	DNSB_ERROR = -1,       /**< internal error (a bug, or an unexpected system failure) */
	DNSB_ENOMEM = -2,      /**< out of memory */
	DNSB_EINVAL = -3,      /**< bad argument or bad configuration value */
	DNSB_EPARSE = -4,      /**< input is not JSON, or not a plan */
	DNSB_EIO = -5,         /**< reading or writing a file failed */
	DNSB_ECONFLICT = -6,   /**< reserved: no function returns it today (a conflict is a provider's
				    answer, dnsb_class CONFLICT, and a change's outcome, never an error) */
	DNSB_ENOTFOUND = -7,   /**< no such zone, file or record */
	DNSB_ETRANSIENT = -8,  /**< temporary failure (5xx, timeout, SERVFAIL): retry later */
	DNSB_ERATELIMIT = -9,  /**< the provider asked us to slow down (429) */
	DNSB_EFATAL = -10,     /**< authentication or authority failure: retrying will not help */
	DNSB_ETOOLARGE = -11,  /**< the batch exceeds a provider limit */
	DNSB_EDEADLINE = -12,  /**< the deadline passed before the work was done; no public function
				    returns it today (a change not reached ends failed/deadline) */
	DNSB_EUSAGE = -13      /**< reserved for command-line usage errors; no library function returns it */
};

/** Size of dnsb_error.message, including the terminating NUL. */
#define DNSB_ERROR_MESSAGE_MAX 512

/**
 * Detail of the last failure of one call. Caller-owned, usually on the
 * stack; functions that take one fill it only when they fail.
 * The message never contains a secret (TSIG secret, API key, token).
 */
typedef struct dnsb_error {
	int code;                              /**< the DNSB_E* code returned */
	char message[DNSB_ERROR_MESSAGE_MAX];  /**< NUL-terminated, one line */
} dnsb_error;

/**
 * Describe a return code.
 *
 * @param code a DNSB_E* code or DNSB_OK
 * @return a static string, never NULL ("unknown error" for other values)
 */
const char *dnsb_strerror(int code);

/**
 * Fill an error: set err->code and format err->message (printf style,
 * truncated to fit). A NULL err is ignored.
 *
 * @return code, so that callers can write `return dnsb_error_set(...)`.
 */
int dnsb_error_set(dnsb_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif
#endif
