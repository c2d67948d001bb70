/*
 * flag.c - typed flag tables (dnsbatch/sys/flag.h): one value parsed by its
 * kind into the settings struct, a table parsed from the configuration, and
 * the --help lines of a table.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnsbatch/sys/flag.h"
#include "dnsbatch/sys/provider.h"
#include "applier/core/secret.h"

const char *dnsb_flag_kind_name(dnsb_flag_kind kind)
{
	static const char *const names[] = { "string", "uint", "double", "bool", "seconds", "file", "secret-file",
					     "custom" };

	return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

const dnsb_flag *dnsb_flags_find(const dnsb_flag *table, const char *name)
{
	for (const dnsb_flag *f = table; f && f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

/* The largest value an unsigned field of `size` bytes holds. */
static unsigned long field_max(size_t size)
{
	return size >= sizeof(unsigned long) ? ~0UL : (1UL << (8 * size)) - 1;
}

static void store_uint(void *at, size_t size, unsigned long v)
{
	switch (size) {
	case 1: *(uint8_t *)at = (uint8_t)v; break;
	case 2: *(uint16_t *)at = (uint16_t)v; break;
	case 4: *(uint32_t *)at = (uint32_t)v; break;
	default: *(uint64_t *)at = (uint64_t)v; break;
	}
}

/* The range error every numeric kind gives. */
static int out_of_range(const dnsb_flag *f, const char *what, const char *value, dnsb_error *err)
{
	if (f->opts & DNSB_FLAG_ABOVE_MIN)
		return dnsb_error_set(err, DNSB_EINVAL, "--%s: expected %s above %.15g up to %.15g, got '%s'", f->name, what,
				      f->min, f->max, value);
	return dnsb_error_set(err, DNSB_EINVAL, "--%s: expected %s from %.15g to %.15g, got '%s'", f->name, what, f->min,
			      f->max, value);
}

static int take_uint(const dnsb_flag *f, void *at, const char *value, dnsb_error *err)
{
	unsigned long max = f->max > 0 ? (unsigned long)f->max : field_max(f->size), n;
	int rc;

	if ((rc = dnsb_parse_uint(&n, f->name, value, (unsigned long)f->min, max, err)) == 0)
		store_uint(at, f->size, n);
	return rc;
}

static int take_number(const dnsb_flag *f, double *at, const char *value, dnsb_error *err)
{
	double max = f->max > 0 ? f->max : 1e9, d;
	char *end;
	int rc;

	if (f->kind == DNSB_FLAG_SECONDS) {
		if ((rc = dnsb_parse_seconds(&d, f->name, value, err)) != 0)
			return rc;
	} else {
		errno = 0;
		d = strtod(value, &end);
		if (*value == '\0' || *end != '\0' || errno != 0 || !isfinite(d))
			return dnsb_error_set(err, DNSB_EINVAL, "--%s: expected a number, got '%s'", f->name, value);
	}
	if (d < f->min || d > max || ((f->opts & DNSB_FLAG_ABOVE_MIN) && d <= f->min)) {
		dnsb_flag g = *f;
		g.max = max;
		return out_of_range(&g, f->kind == DNSB_FLAG_SECONDS ? "seconds" : "a number", value, err);
	}
	*at = d;
	return 0;
}

static int take_file(const dnsb_flag *f, char **at, const char *path, dnsb_error *err)
{
	if (access(path, R_OK) != 0)
		return dnsb_error_set(err, errno == ENOENT ? DNSB_ENOTFOUND : DNSB_EIO, "--%s %s: %s", f->name, path,
				      strerror(errno));
	free(*at);
	return (*at = strdup(path)) ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

static int take_secret_file(const dnsb_flag *f, char **at, const char *path, dnsb_error *err)
{
	char what[128], *text;
	int rc;

	snprintf(what, sizeof(what), "--%s", f->name);
	if ((rc = dnsb_secret_read_file(&text, path, what, err)) != 0)
		return rc;
	dnsb_secret_free(*at);
	*at = text;
	return 0;
}

int dnsb_flag_take(const dnsb_flag *f, void *settings, const char *value, dnsb_error *err)
{
	void *at = (char *)settings + f->offset;

	switch (f->kind) {
	case DNSB_FLAG_STRING:
		if (*value == '\0')
			return 0;
		free(*(char **)at);
		return (*(char **)at = strdup(value)) ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	case DNSB_FLAG_UINT: return take_uint(f, at, value, err);
	case DNSB_FLAG_DOUBLE:
	case DNSB_FLAG_SECONDS: return take_number(f, at, value, err);
	case DNSB_FLAG_BOOL:
		*(int *)at = *value == '\0' || strcmp(value, "1") == 0 || strcmp(value, "true") == 0 ||
			     strcmp(value, "yes") == 0;
		return 0;
	case DNSB_FLAG_FILE: return take_file(f, at, value, err);
	case DNSB_FLAG_SECRET_FILE: return take_secret_file(f, at, value, err);
	case DNSB_FLAG_CUSTOM: return f->take(settings, value, err);
	}
	return dnsb_error_set(err, DNSB_EINVAL, "--%s: flag of an unknown kind (a bug)", f->name);
}

/* A SECRET_FILE flag absent: the secret from its variable, when set. */
static int take_env_secret(const dnsb_flag *f, char **at, dnsb_error *err)
{
	const char *v = f->env ? getenv(f->env) : NULL;

	if (v == NULL || *v == '\0')
		return 0;
	if ((*at = strdup(v)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	dnsb_secret_register(v); /* redacted from all that is printed */
	return 0;
}

/* A flag not given: its default, its variable, or the error of a required flag. */
static int take_absent(const dnsb_flag *f, void *settings, dnsb_error *err)
{
	if (f->required)
		return dnsb_error_set(err, DNSB_EINVAL, "--%s is required (%s)", f->name, f->required);
	if (f->kind == DNSB_FLAG_SECRET_FILE)
		return take_env_secret(f, (char **)((char *)settings + f->offset), err);
	return f->dflt ? dnsb_flag_take(f, settings, f->dflt, err) : 0;
}

int dnsb_flags_parse(const dnsb_flag *table, void *settings, const dnsb_config *cfg, dnsb_error *err)
{
	for (const dnsb_flag *f = table; f && f->name; f++) {
		const char *v;
		size_t iter = 0;
		int rc = 0, any = 0;

		if (f->opts & DNSB_FLAG_MANUAL)
			continue;
		if (f->opts & DNSB_FLAG_REPEAT) {
			while (rc == 0 && (v = dnsb_config_next(cfg, f->name, &iter)) != NULL) {
				any = 1;
				rc = dnsb_flag_take(f, settings, v, err);
			}
		} else if ((v = dnsb_config_get(cfg, f->name)) != NULL &&
			   (*v != '\0' || (f->kind != DNSB_FLAG_STRING && f->required == NULL))) {
			any = 1;
			rc = dnsb_flag_take(f, settings, v, err);
		}
		if (rc == 0 && !any)
			rc = take_absent(f, settings, err);
		if (rc != 0)
			return rc;
	}
	return 0;
}

void dnsb_flags_help(FILE *out, const dnsb_flag *table, int width)
{
	for (const dnsb_flag *f = table; f && f->name; f++) {
		char left[96];
		int n = snprintf(left, sizeof(left), "--%s%s%s", f->name, f->arg ? " " : "", f->arg ? f->arg : "");

		fprintf(out, "  %-*s%s", width, left, n >= width ? " " : "");
		for (const char *h = f->help; *h; h++) /* a continuation line goes under the first */
			if (*h == '\n')
				fprintf(out, "\n  %-*s", width, "");
			else
				fputc(*h, out);
		if (f->dflt && !(f->opts & DNSB_FLAG_SECRET) && strstr(f->help, "default") == NULL)
			fprintf(out, " (default %s)", f->dflt);
		fputc('\n', out);
	}
}
