/*
 * registry.c - the built-in backends, by name: the one list of them. A
 * backend is its folder (or file) defining `const dnsb_backend
 * dnsb_backend_NAME` and one line of DNSB_BACKEND_TABLE; the Makefile finds
 * its sources by itself, and --help, `dnsbatch help --json` and the command
 * line's flags come from its descriptor.
 */
#include <stdio.h>
#include <string.h>

#include "providers/registry.h"
#include "applier/net/ratelimit.h"

/* One line per backend, in the order --help and `help --json` list them. */
#define DNSB_BACKEND_TABLE(X) \
	X(zonefile)   /* providers/zonefile/zonefile.c */ \
	X(memory)     /* providers/memory/memory.c */ \
	X(rfc2136)    /* providers/rfc2136/ */ \
	X(google)     /* providers/google/ */ \
	X(aws)        /* providers/aws/ */ \
	X(pdns)       /* providers/pdns/ */ \
	X(azure)      /* providers/azure/ */ \
	X(cloudflare) /* providers/cloudflare/ */ \
	X(akamai)     /* providers/akamai/ */ \
	X(digitalocean) /* providers/digitalocean/ */

#define DNSB_BACKEND_DECLARE(name) extern const dnsb_backend dnsb_backend_##name;
#define DNSB_BACKEND_ENTRY(name) &dnsb_backend_##name,

DNSB_BACKEND_TABLE(DNSB_BACKEND_DECLARE)

static const dnsb_backend *const backends[] = { DNSB_BACKEND_TABLE(DNSB_BACKEND_ENTRY) NULL };

const dnsb_backend *const *dnsb_backends(void)
{
	return backends;
}

const dnsb_flag *dnsb_backend_shared_flags(void)
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
	int rc;

	*out = NULL;
	if (b == NULL) {
		/* The list from the table itself: it cannot go stale when a backend is added. */
		for (size_t i = 0; backends[i]; i++)
			snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s", i ? ", " : "",
				 backends[i]->name);
		return dnsb_error_set(err, DNSB_ENOTFOUND, "unknown provider '%s' (known: %s)", name, known);
	}
	if (b->version != DNSB_BACKEND_VERSION || b->ops == NULL || b->ops->version != DNSB_PROVIDER_OPS_VERSION)
		return dnsb_error_set(err, DNSB_EINVAL, "provider %s: descriptor version %u, ops version %u; this build "
				      "reads %u and %u", name, b->version, b->ops ? b->ops->version : 0,
				      DNSB_BACKEND_VERSION, DNSB_PROVIDER_OPS_VERSION);
	if ((rc = b->open(out, cfg, err)) == 0 && dnsb_provider_state(*out, b->ops) == NULL) {
		dnsb_provider_free(*out); /* a bug of the backend: its descriptor names other ops */
		*out = NULL;
		return dnsb_error_set(err, DNSB_EINVAL, "provider %s: opened on ops its descriptor does not name", name);
	}
	return rc;
}
