/*
 * dnsbatch/sys/flag.h - typed flag tables: a backend (and the program's
 * engine settings) declares each of its flags once, with its kind, default,
 * range, the field of the settings struct it goes to, its help line and
 * whether its value is a secret. One table drives the parse
 * (dnsb_flags_parse), the --help text (dnsb_flags_help) and
 * `dnsbatch help --json`; no backend writes a ladder of dnsb_config_get calls
 * beside it.
 */
#ifndef DNSBATCH_SYS_FLAG_H
#define DNSBATCH_SYS_FLAG_H

#include <stddef.h>
#include <stdio.h>

#include "../config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a flag's value is, and how dnsb_flags_parse stores it at the flag's offset. */
typedef enum dnsb_flag_kind {
	DNSB_FLAG_STRING = 0,  /**< text: `char *` (malloc'd copy; the settings' clear frees it); "" counts as absent */
	DNSB_FLAG_UINT,        /**< a whole number in [min, max]: an unsigned field of `size` bytes (1, 2, 4 or 8) */
	DNSB_FLAG_DOUBLE,      /**< a number in [min, max]: `double` */
	DNSB_FLAG_BOOL,        /**< a switch (no value): `int`, 1 when given */
	DNSB_FLAG_SECONDS,     /**< a duration in seconds ("2.5", "30s") in [min, max]: `double` */
	DNSB_FLAG_FILE,        /**< a path, checked readable now and read later: `char *` (malloc'd copy) */
	DNSB_FLAG_SECRET_FILE, /**< a file holding a secret, read now by dnsb_secret_read_file (trailing white space
				    removed; registered for redaction): `char *` (the caller's; dnsb_secret_free). When
				    the flag is absent, the variable `env` (when set and not empty) gives the secret
				    itself. */
	DNSB_FLAG_CUSTOM       /**< `take` is called with each value in order (repeatable flags: --pdns-zone) */
} dnsb_flag_kind;

/** dnsb_flag.opts: the flag may be given several times (every value goes to `take`). */
#define DNSB_FLAG_REPEAT 0x1u
/** dnsb_flag.opts: the value, or the content it names, is a secret (never printed, never a default shown). */
#define DNSB_FLAG_SECRET 0x2u
/** dnsb_flag.opts: for SECONDS and DOUBLE, `min` itself is refused (a value must be more than min). */
#define DNSB_FLAG_ABOVE_MIN 0x4u
/** dnsb_flag.opts: declared for --help and the command line only; the backend reads the value itself. */
#define DNSB_FLAG_MANUAL 0x8u

/**
 * One flag. Tables end with an entry whose name is NULL (DNSB_FLAG_END).
 * Settings fields are named with DNSB_FLAG_AT(type, field).
 */
typedef struct dnsb_flag {
	const char *name;      /**< without dashes: "pdns-server" */
	dnsb_flag_kind kind;
	const char *arg;       /**< the value's name in --help ("URL", "N", "FILE"); NULL for BOOL */
	const char *help;      /**< one line */
	const char *dflt;      /**< the default, as text parsed like a value given (NULL: none; the field stays 0/NULL) */
	double min, max;       /**< UINT, DOUBLE, SECONDS: the accepted range (max 0: no upper bound but the kind's) */
	size_t offset, size;   /**< where the value goes in the settings struct (not used by CUSTOM and MANUAL) */
	unsigned opts;         /**< DNSB_FLAG_REPEAT | DNSB_FLAG_SECRET | DNSB_FLAG_ABOVE_MIN | DNSB_FLAG_MANUAL */
	const char *env;       /**< SECRET_FILE: the variable holding the secret when the flag is absent, or NULL */
	/** When not NULL the flag is required; the error reads "--NAME is required (REQUIRED)" */
	const char *required;
	/**
	 * CUSTOM: take one value (borrowed) into `settings`.
	 * @return 0; DNSB_EINVAL naming the flag and the value; DNSB_ENOMEM
	 */
	int (*take)(void *settings, const char *value, dnsb_error *err);
} dnsb_flag;

/** The offset and size of `field` in the settings struct `type`, for dnsb_flag.offset and .size. */
#define DNSB_FLAG_AT(type, field) offsetof(type, field), sizeof(((type *)0)->field)

/** A number macro as the text of a default: DNSB_FLAG_TEXT(DNSB_PDNS_BATCH_DEFAULT) is "1000". */
#define DNSB_FLAG_TEXT(x) DNSB_FLAG_TEXT_(x)
#define DNSB_FLAG_TEXT_(x) #x

/** The end of a flag table. */
#define DNSB_FLAG_END { NULL, DNSB_FLAG_STRING, NULL, NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL }

/** The kind's name in messages and in `dnsbatch help --json` ("string", "uint", "seconds", "secret-file"). */
const char *dnsb_flag_kind_name(dnsb_flag_kind kind);

/**
 * Find a flag by name (without dashes).
 * @return borrowed from table, or NULL
 */
const dnsb_flag *dnsb_flags_find(const dnsb_flag *table, const char *name);

/**
 * Parse one value of flag `f` into `settings` (a CUSTOM flag's take is
 * called). The range errors of every kind read alike:
 * "--NAME: expected KIND from MIN to MAX, got 'VALUE'" (a secret's value is
 * never quoted).
 * @return 0; DNSB_EINVAL naming the flag; DNSB_ENOTFOUND, DNSB_EIO (FILE,
 *         SECRET_FILE: naming the flag and the path); DNSB_ENOMEM
 */
int dnsb_flag_take(const dnsb_flag *f, void *settings, const char *value, dnsb_error *err);

/**
 * Fill `settings` from `cfg` by the table, in the table's order: each flag
 * given is parsed (every value of a REPEAT flag, the last of another; an
 * empty value of a STRING or required flag counts as absent), an
 * absent one takes its default (or, for SECRET_FILE, its `env`); a required
 * one absent is DNSB_EINVAL. MANUAL flags are skipped. On an error what was
 * already stored stays (the caller's clear frees it).
 * @return 0, or dnsb_flag_take's codes
 */
int dnsb_flags_parse(const dnsb_flag *table, void *settings, const dnsb_config *cfg, dnsb_error *err);

/**
 * Print a table for --help: "  --NAME ARG   help (default D)" per flag,
 * the help column at `width` characters.
 */
void dnsb_flags_help(FILE *f, const dnsb_flag *table, int width);

#ifdef __cplusplus
}
#endif
#endif
