/*
 * ratelimit_config.c - a rate budget from the provider configuration's
 * generic keys (the --rate-budget* flags of `apply` and `serve`), read by
 * their typed table.
 */
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/flag.h"
#include "dnsbatch/sys/provider.h"
#include "applier/net/ratelimit.h"

#define DNSB_REDIS_PASSWORD_ENV "DNSBATCH_REDIS_PASSWORD"

/* What the flags give, before dnsb_budget_options takes it. */
typedef struct budget_settings {
	char *url, *key, *password;
	double rate;
	unsigned long burst, instances;
} budget_settings;

/* "N" or "N/s", > 0. */
static int take_rate(void *settings, const char *v, dnsb_error *err)
{
	budget_settings *s = settings;
	char *end;
	double r = strtod(v, &end);

	if (end != v && strcmp(end, "/s") == 0)
		end += 2;
	if (end == v || *end || !(r > 0) || r > 1e6)
		return dnsb_error_set(err, DNSB_EINVAL, "--rate-budget-rate '%s': expected requests per second, "
				      "such as 5 or 5/s", v);
	s->rate = r;
	return 0;
}

static int take_key(void *settings, const char *v, dnsb_error *err)
{
	budget_settings *s = settings;

	if (*v == '\0' || strpbrk(v, "{}") || strlen(v) > 200)
		return dnsb_error_set(err, DNSB_EINVAL, "--rate-budget-key: 1 to 200 characters without braces");
	free(s->key);
	return (s->key = strdup(v)) ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

#define AT(field) DNSB_FLAG_AT(budget_settings, field)

const dnsb_flag dnsb_budget_flags[] = {
	{ "rate-budget", DNSB_FLAG_STRING, "URL",
	  "redis://[USER@]HOST:PORT[/DB]: share the account's rate budget with every instance of the same key "
	  "(password: " DNSB_REDIS_PASSWORD_ENV " or --rate-budget-password-file)",
	  NULL, 0, 0, AT(url), 0, NULL, NULL, NULL },
	{ "rate-budget-key", DNSB_FLAG_CUSTOM, "KEY",
	  "the account the budget belongs to (default: the provider's name; aws:ACCOUNT)", NULL, 0, 0, 0, 0, 0, NULL,
	  NULL, take_key },
	{ "rate-budget-rate", DNSB_FLAG_CUSTOM, "RATE",
	  "requests per second for the whole account (default: the provider's documented limit)", NULL, 0, 0, 0, 0, 0,
	  NULL, NULL, take_rate },
	{ "rate-budget-burst", DNSB_FLAG_UINT, "N", "requests that may leave at once after a quiet spell", NULL, 1,
	  1000000, AT(burst), 0, NULL, NULL, NULL },
	{ "rate-budget-instances", DNSB_FLAG_UINT, "N", "with Redis away, each instance takes rate/N (default 4)", NULL,
	  1, 10000, AT(instances), 0, NULL, NULL, NULL },
	{ "rate-budget-password-file", DNSB_FLAG_SECRET_FILE, "FILE", "file holding the Redis password", NULL, 0, 0,
	  AT(password), DNSB_FLAG_SECRET, DNSB_REDIS_PASSWORD_ENV, NULL, NULL },
	DNSB_FLAG_END
};

static void settings_clear(budget_settings *s)
{
	free(s->url);
	free(s->key);
	dnsb_secret_free(s->password);
}

int dnsb_budget_from_config(dnsb_budget **out, const dnsb_config *cfg, const dnsb_budget_options *dflt,
			    dnsb_error *err)
{
	dnsb_budget_options o = *dflt;
	budget_settings s = { NULL, NULL, NULL, dflt->rate, (unsigned long)(dflt->burst < 1 ? 1 : dflt->burst),
			      dflt->instances };
	int rc;

	*out = NULL;
	if (dnsb_config_get(cfg, "rate-budget") == NULL)
		return 0;
	if ((rc = dnsb_flags_parse(dnsb_budget_flags, &s, cfg, err)) == 0) {
		o.url = s.url ? s.url : "";
		o.key = s.key ? s.key : o.key;
		o.password = s.password;
		o.rate = s.rate;
		o.burst = (double)s.burst;
		o.instances = (unsigned)s.instances;
		rc = dnsb_budget_new(out, &o, err);
	}
	settings_clear(&s);
	return rc;
}
