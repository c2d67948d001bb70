/*
 * fuzz_rate_budget.c - libFuzzer: any bytes as the --rate-budget flags: the
 * first line the URL, the next ones --rate-budget-rate, -burst, -instances
 * and -key (an empty line leaves a flag out), read by
 * dnsb_budget_from_config (which does not connect) and the URL alone by
 * dnsb_redis_target_parse. With the first byte's low bit set, the URL is
 * given a password ("redis://dnsbatch:PASSWORD@" before the rest); with the
 * next bit, $DNSBATCH_REDIS_PASSWORD is set. A target read must name a host,
 * a port in 1-65535 and a database in 0-100000; no error message may hold
 * either password (unless the input itself spells it elsewhere).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/config.h"
#include "applier/net/ratelimit.h"
#include "applier/net/ratelimit_redis.h"
#include "fuzz_common.h"

#define URL_PASSWORD "Pw-0x5eCr3t-url"
#define ENV_PASSWORD "Pw-0x5eCr3t-env"

static void no_secret(const char *message, const char *input)
{
	if (strstr(input, "Pw-0x5eCr3t") == NULL && strstr(message, "Pw-0x5eCr3t") != NULL) {
		fprintf(stderr, "a password in the message: %s\n", message);
		abort();
	}
}

static void target(const char *url, const char *input)
{
	dnsb_redis_target t;
	dnsb_error err;

	if (dnsb_redis_target_parse(&t, url, &err) != 0) {
		no_secret(err.message, input);
		return;
	}
	if (t.host == NULL || t.port < 1 || t.port > 65535 || t.db < 0 || t.db > 100000)
		abort();
	dnsb_redis_target_clear(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *keys[] = { "rate-budget", "rate-budget-rate", "rate-budget-burst", "rate-budget-instances",
				      "rate-budget-key" };
	dnsb_budget_options dflt = DNSB_BUDGET_OPTIONS_INIT;
	char *text, *input, *line, *url = NULL;
	dnsb_config *cfg = NULL;
	dnsb_budget *b = NULL;
	dnsb_error err;
	size_t k = 0;

	if (size == 0 || (text = strndup((const char *)data + 1, size - 1)) == NULL)
		return 0;
	if ((input = strdup(text)) == NULL || dnsb_config_new(&cfg) != 0) {
		free(input);
		free(text);
		return 0;
	}
	dflt.key = "cloudflare:token";
	for (char *rest = text; (line = strsep(&rest, "\n")) != NULL && k < 5; k++) {
		if (k == 0 && asprintf(&url, "%s%s", data[0] & 1 ? "redis://dnsbatch:" URL_PASSWORD "@" : "", line) < 0)
			url = NULL;
		if ((k == 0 ? url && *url : *line) && dnsb_config_add(cfg, keys[k], k == 0 ? url : line) != 0)
			abort();
	}
	if (data[0] & 2)
		setenv("DNSBATCH_REDIS_PASSWORD", ENV_PASSWORD, 1);
	if (dnsb_budget_from_config(&b, cfg, &dflt, &err) != 0)
		no_secret(err.message, input);
	dnsb_budget_free(b);
	unsetenv("DNSBATCH_REDIS_PASSWORD");
	if (url)
		target(url, input);
	free(url);
	dnsb_config_free(cfg);
	free(input);
	free(text);
	return 0;
}
