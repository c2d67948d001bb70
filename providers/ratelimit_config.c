/*
 * ratelimit_config.c - a rate budget from the provider configuration's
 * generic keys (the --rate-budget* flags of `apply` and `serve`).
 */
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/provider.h"
#include "providers/ratelimit.h"

#define DNSB_REDIS_PASSWORD_ENV "DNSBATCH_REDIS_PASSWORD"

const dnsb_provider_flag dnsb_budget_flags[] = {
	{ "rate-budget", 1, "redis://[USER@]HOST:PORT[/DB]: share the account's rate budget with every instance "
			    "of the same key (password: " DNSB_REDIS_PASSWORD_ENV " or --rate-budget-password-file)" },
	{ "rate-budget-key", 1, "the account the budget belongs to (default: the provider's name; aws:ACCOUNT)" },
	{ "rate-budget-rate", 1, "requests per second for the whole account (default: the provider's documented limit)" },
	{ "rate-budget-burst", 1, "requests that may leave at once after a quiet spell" },
	{ "rate-budget-instances", 1, "with Redis away, each instance takes rate/N (default 4)" },
	{ "rate-budget-password-file", 1, "file holding the Redis password" },
	{ NULL, 0, NULL }
};

/* "N" or "N/s", > 0. */
static int parse_rate(double *out, const char *v, dnsb_error *err)
{
	char *end;
	double r = strtod(v, &end);

	if (end != v && strcmp(end, "/s") == 0)
		end += 2;
	if (end == v || *end || !(r > 0) || r > 1e6)
		return dnsb_error_set(err, DNSB_EINVAL, "--rate-budget-rate '%s': expected requests per second, "
				      "such as 5 or 5/s", v);
	*out = r;
	return 0;
}

static int parse_numbers(dnsb_budget_options *o, const dnsb_config *cfg, dnsb_error *err)
{
	const char *v;
	unsigned long n;
	int rc;

	if ((v = dnsb_config_get(cfg, "rate-budget-rate")) != NULL && (rc = parse_rate(&o->rate, v, err)) < 0)
		return rc;
	if ((rc = dnsb_config_uint(&n, cfg, "rate-budget-burst", (unsigned long)(o->burst < 1 ? 1 : o->burst), 1,
				   1000000, err)) < 0)
		return rc;
	o->burst = (double)n;
	if ((rc = dnsb_config_uint(&n, cfg, "rate-budget-instances", o->instances, 1, 10000, err)) < 0)
		return rc;
	o->instances = (unsigned)n;
	return 0;
}

int dnsb_budget_from_config(dnsb_budget **out, const dnsb_config *cfg, const dnsb_budget_options *dflt,
			    dnsb_error *err)
{
	dnsb_budget_options o = *dflt;
	const char *v, *file;
	char *password = NULL;
	int rc;

	*out = NULL;
	if ((o.url = dnsb_config_get(cfg, "rate-budget")) == NULL)
		return 0;
	if ((v = dnsb_config_get(cfg, "rate-budget-key")) != NULL) {
		if (*v == '\0' || strpbrk(v, "{}") || strlen(v) > 200)
			return dnsb_error_set(err, DNSB_EINVAL, "--rate-budget-key: 1 to 200 characters without braces");
		o.key = v;
	}
	if ((rc = parse_numbers(&o, cfg, err)) < 0)
		return rc;
	if ((file = dnsb_config_get(cfg, "rate-budget-password-file")) != NULL) {
		if ((rc = dnsb_secret_read_file(&password, file, "--rate-budget-password-file", err)) < 0)
			return rc;
		o.password = password;
	} else if ((v = getenv(DNSB_REDIS_PASSWORD_ENV)) != NULL && *v) {
		o.password = v;
	}
	rc = dnsb_budget_new(out, &o, err);
	dnsb_secret_free(password);
	return rc;
}
