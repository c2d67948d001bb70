/* config.c - ordered key/value settings for provider backends. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/config.h"

struct dnsb_config {
	char **keys;
	char **values;
	size_t count;
	size_t capacity;
};

int dnsb_config_new(dnsb_config **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : DNSB_ENOMEM;
}

void dnsb_config_free(dnsb_config *cfg)
{
	if (cfg == NULL)
		return;
	for (size_t i = 0; i < cfg->count; i++) {
		free(cfg->keys[i]);
		free(cfg->values[i]);
	}
	free(cfg->keys);
	free(cfg->values);
	free(cfg);
}

int dnsb_config_add(dnsb_config *cfg, const char *key, const char *value)
{
	char *k, *v;

	if (cfg->count == cfg->capacity) {
		size_t cap = cfg->capacity ? cfg->capacity * 2 : 8;
		char **nk = realloc(cfg->keys, cap * sizeof(*nk));
		if (nk == NULL)
			return DNSB_ENOMEM;
		cfg->keys = nk;
		char **nv = realloc(cfg->values, cap * sizeof(*nv));
		if (nv == NULL)
			return DNSB_ENOMEM;
		cfg->values = nv;
		cfg->capacity = cap;
	}
	k = strdup(key);
	v = strdup(value ? value : "");
	if (k == NULL || v == NULL) {
		free(k);
		free(v);
		return DNSB_ENOMEM;
	}
	cfg->keys[cfg->count] = k;
	cfg->values[cfg->count] = v;
	cfg->count++;
	return 0;
}

const char *dnsb_config_get(const dnsb_config *cfg, const char *key)
{
	if (cfg == NULL)
		return NULL;
	for (size_t i = cfg->count; i > 0; i--)
		if (strcmp(cfg->keys[i - 1], key) == 0)
			return cfg->values[i - 1];
	return NULL;
}

const char *dnsb_config_next(const dnsb_config *cfg, const char *key, size_t *iter)
{
	if (cfg == NULL)
		return NULL;
	for (; *iter < cfg->count; (*iter)++)
		if (strcmp(cfg->keys[*iter], key) == 0)
			return cfg->values[(*iter)++];
	return NULL;
}

int dnsb_parse_uint(unsigned long *out, const char *name, const char *value, unsigned long min, unsigned long max,
		    dnsb_error *err)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(value, &end, 10);
	if (*value == '\0' || *value == '-' || *end != '\0' || errno != 0 || n < min || n > max)
		return dnsb_error_set(err, DNSB_EINVAL, "--%s: expected a whole number from %lu to %lu, got '%s'",
				      name, min, max, value);
	*out = n;
	return 0;
}

int dnsb_parse_seconds(double *out, const char *name, const char *value, dnsb_error *err)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(value, &end);
	/* Accept a Go-style trailing "s" ("30s"), as external-dns flags are durations. */
	if (end != value && *end == 's' && end[1] == '\0')
		end++;
	if (*value == '\0' || *end != '\0' || errno != 0 || !(d >= 0) || d > 1e9)
		return dnsb_error_set(err, DNSB_EINVAL, "--%s: expected seconds (a number >= 0), got '%s'", name, value);
	*out = d;
	return 0;
}

int dnsb_config_uint(unsigned long *out, const dnsb_config *cfg, const char *key,
		     unsigned long dflt, unsigned long min, unsigned long max, dnsb_error *err)
{
	const char *v = dnsb_config_get(cfg, key);

	if (v == NULL) {
		*out = dflt;
		return 0;
	}
	return dnsb_parse_uint(out, key, v, min, max, err);
}

int dnsb_config_seconds(double *out, const dnsb_config *cfg, const char *key, double dflt, dnsb_error *err)
{
	const char *v = dnsb_config_get(cfg, key);

	if (v == NULL) {
		*out = dflt;
		return 0;
	}
	return dnsb_parse_seconds(out, key, v, err);
}

int dnsb_config_flag(const dnsb_config *cfg, const char *key)
{
	const char *v = dnsb_config_get(cfg, key);

	if (v == NULL)
		return 0;
	return *v == '\0' || strcmp(v, "1") == 0 || strcmp(v, "true") == 0 || strcmp(v, "yes") == 0;
}

size_t dnsb_config_count(const dnsb_config *cfg)
{
	return cfg ? cfg->count : 0;
}

const char *dnsb_config_key(const dnsb_config *cfg, size_t i)
{
	return i < cfg->count ? cfg->keys[i] : NULL;
}

const char *dnsb_config_value(const dnsb_config *cfg, size_t i)
{
	return i < cfg->count ? cfg->values[i] : NULL;
}
