/* registry.c - the built-in backends, by name. A backend is added here, in registry.h and in its own file. */
#include <stdio.h>
#include <string.h>

#include "providers/registry.h"
#include "providers/ratelimit.h"

static const dnsb_backend *const backends[] = {
	&dnsb_backend_zonefile,
	&dnsb_backend_memory,
	&dnsb_backend_rfc2136,
	&dnsb_backend_google,
	&dnsb_backend_aws,
	&dnsb_backend_pdns,
	&dnsb_backend_azure,
	&dnsb_backend_cloudflare,
	&dnsb_backend_akamai,
	NULL
};

const dnsb_backend *const *dnsb_backends(void)
{
	return backends;
}

const dnsb_provider_flag *dnsb_backend_shared_flags(void)
{
	return dnsb_budget_flags;
}

const dnsb_backend *dnsb_backend_find(const char *name)
{
	for (size_t i = 0; backends[i]; i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}

int dnsb_provider_open(dnsb_provider **out, const char *name, const dnsb_config *cfg, dnsb_error *err)
{
	const dnsb_backend *b = dnsb_backend_find(name);
	char known[256] = "";

	*out = NULL;
	if (b == NULL) {
		/* The list from the table itself: it cannot go stale when a backend is added. */
		for (size_t i = 0; backends[i]; i++)
			snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s", i ? ", " : "",
				 backends[i]->name);
		return dnsb_error_set(err, DNSB_ENOTFOUND, "unknown provider '%s' (known: %s)", name, known);
	}
	return b->open(out, cfg, err);
}
