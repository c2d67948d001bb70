/*
 * dnsbatch/config.h - provider configuration as ordered key/value pairs.
 *
 * The command line's provider flags (`--zonefile example.com=zone.db`,
 * `--rfc2136-host 127.0.0.1`) are collected as pairs whose key is the flag
 * name without the leading dashes ("zonefile", "rfc2136-host"); each backend
 * reads the keys it knows. A key may repeat (`--rfc2136-zone`).
 * Secrets are never passed here: backends read them from files or the
 * environment, so they never sit in argv.
 */
#ifndef DNSBATCH_CONFIG_H
#define DNSBATCH_CONFIG_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Ordered key/value pairs. Opaque. */
typedef struct dnsb_config dnsb_config;

/** Create an empty config. @return 0 or DNSB_ENOMEM */
int dnsb_config_new(dnsb_config **out);

/** Free it. NULL is a no-op. */
void dnsb_config_free(dnsb_config *cfg);

/** Append a pair; both strings are copied. @return 0 or DNSB_ENOMEM */
int dnsb_config_add(dnsb_config *cfg, const char *key, const char *value);

/**
 * The value of the last pair with this key.
 * @return a string borrowed from cfg, or NULL when the key is absent
 */
const char *dnsb_config_get(const dnsb_config *cfg, const char *key);

/**
 * Iterate over every value of a key, in order. Start with *iter = 0.
 * @return the next value (borrowed), or NULL when there is none left
 */
const char *dnsb_config_next(const dnsb_config *cfg, const char *key, size_t *iter);

/**
 * Parse a whole number in decimal digits (no sign) within [min, max]: the one
 * number parser of the configuration and the command line.
 * @param name   the flag, for the message ("batch-size", without dashes; borrowed)
 * @param value  the text (borrowed)
 * @return 0; DNSB_EINVAL naming the flag, the range and the value
 */
int dnsb_parse_uint(unsigned long *out, const char *name, const char *value, unsigned long min, unsigned long max,
		    dnsb_error *err);

/**
 * Parse a duration in seconds: a number >= 0 and <= 1e9, optionally with a
 * Go-style "s" suffix ("30s"), as external-dns's duration flags are written.
 * @return 0; DNSB_EINVAL naming the flag and the value
 */
int dnsb_parse_seconds(double *out, const char *name, const char *value, dnsb_error *err);

/**
 * A non-negative integer value, or `dflt` when the key is absent.
 * @return 0; DNSB_EINVAL when the value is not a whole number in
 *         [min, max] (the message names the flag and the value)
 */
int dnsb_config_uint(unsigned long *out, const dnsb_config *cfg, const char *key,
		     unsigned long dflt, unsigned long min, unsigned long max, dnsb_error *err);

/**
 * A duration in seconds (a decimal such as "2.5"), or `dflt` when absent.
 * @return 0; DNSB_EINVAL when not a number >= 0 (the message names the flag)
 */
int dnsb_config_seconds(double *out, const dnsb_config *cfg, const char *key, double dflt, dnsb_error *err);

/** Is a boolean flag set (present with value "", "1", "true" or "yes")? @return 1 or 0 */
int dnsb_config_flag(const dnsb_config *cfg, const char *key);

/** Number of pairs, and the i-th pair (borrowed). */
size_t dnsb_config_count(const dnsb_config *cfg);
const char *dnsb_config_key(const dnsb_config *cfg, size_t i);
const char *dnsb_config_value(const dnsb_config *cfg, size_t i);

#ifdef __cplusplus
}
#endif
#endif
