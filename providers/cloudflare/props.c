/*
 * props.c - Cloudflare's provider properties of an RRset (external-dns's
 * cloudflare-proxied and cloudflare-record-comment) in one canonical form,
 * shared by what is asked (the engine, the sidecar's AdjustEndpoints) and
 * what is read back: a property is written out only where it differs from
 * its default (--cloudflare-proxied, --cloudflare-record-comment), so that a
 * plan that does not name it and a record that holds the default compare
 * equal, and external-dns's next plan finds nothing to change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/cloudflare/cloudflare.h"

int dnsb_cf_proxiable(uint16_t type)
{
	return type == LDNS_RR_TYPE_A || type == LDNS_RR_TYPE_AAAA || type == LDNS_RR_TYPE_CNAME;
}

int dnsb_cf_writable(uint16_t type)
{
	switch (type) {
	case LDNS_RR_TYPE_A:
	case LDNS_RR_TYPE_AAAA:
	case LDNS_RR_TYPE_CNAME:
	case LDNS_RR_TYPE_TXT:
	case LDNS_RR_TYPE_NS:
	case LDNS_RR_TYPE_MX:
	case LDNS_RR_TYPE_PTR:
	case LDNS_RR_TYPE_SRV:
	case LDNS_RR_TYPE_CAA:
		return 1;
	default:
		return 0;
	}
}

uint32_t dnsb_cf_ttl(uint32_t ttl, int proxied)
{
	return ttl != DNSB_TTL_UNSET && (proxied || ttl < DNSB_CF_TTL_MIN) ? DNSB_CF_TTL_AUTO : ttl;
}

/* Go's strconv.ParseBool, as external-dns reads the property: 1 true, 0 false, -1 neither. */
static int parse_bool(const char *v, size_t len)
{
	static const char *const yes[] = { "1", "t", "T", "TRUE", "true", "True" }, *const no[] = { "0", "f", "F", "FALSE",
												   "false", "False" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strlen(yes[i]) == len && strncmp(v, yes[i], len) == 0)
			return 1;
		if (strlen(no[i]) == len && strncmp(v, no[i], len) == 0)
			return 0;
	}
	return -1;
}

int dnsb_cf_effective(const dnsb_cf_config *cfg, const dnsb_rrset *r, const char **comment, size_t *comment_len)
{
	size_t len;
	const char *v = dnsb_routing_get(r->routing, DNSB_PROPERTY_CF_PROXIED, &len);
	int proxied = v ? parse_bool(v, len) : -1;

	*comment = dnsb_routing_get(r->routing, DNSB_PROPERTY_CF_COMMENT, comment_len);
	if (*comment == NULL && cfg->comment) {
		*comment = cfg->comment;
		*comment_len = strlen(cfg->comment);
	}
	if (proxied < 0) /* absent, or not a boolean: the default, as external-dns does (it logs the latter) */
		proxied = cfg->proxied;
	return proxied && dnsb_cf_proxiable(r->type);
}

int dnsb_cf_routing(char **out, const dnsb_cf_config *cfg, uint16_t type, int proxied, const char *comment,
		    size_t comment_len)
{
	const char *dflt = cfg->comment ? cfg->comment : "";
	int p = dnsb_cf_proxiable(type) && proxied != cfg->proxied, c = comment && comment_len > 0 &&
								       (strlen(dflt) != comment_len ||
									strncmp(comment, dflt, comment_len) != 0);

	*out = NULL;
	if (c && memchr(comment, '\n', comment_len))
		c = 0; /* a line cannot hold it (the plan refuses one) */
	if ((p || c) && asprintf(out, "%s%s%s%s%.*s%s", p ? DNSB_PROPERTY_CF_PROXIED "=" : "",
				 p ? (proxied ? "true" : "false") : "", p ? "\n" : "", c ? DNSB_PROPERTY_CF_COMMENT "=" : "",
				 c ? (int)comment_len : 0, c ? comment : "", c ? "\n" : "") < 0) {
		*out = NULL;
		return DNSB_ENOMEM;
	}
	return 0;
}

/* The dnsb_provider_limits.properties of the provider: ctx is its dnsb_cf_config. */
int dnsb_cf_props(const void *ctx, dnsb_rrset *r)
{
	const dnsb_cf_config *cfg = ctx;
	const char *comment;
	size_t len;
	char *routing;
	int proxied, rc;

	if (!dnsb_cf_writable(r->type))
		return DNSB_EINVAL;
	proxied = dnsb_cf_effective(cfg, r, &comment, &len);
	if ((rc = dnsb_cf_routing(&routing, cfg, r->type, proxied, comment, len)) != 0)
		return rc;
	free(r->routing);
	r->routing = routing;
	/* The TTL Cloudflare will list: automatic (1) when proxied or below its minimum. */
	r->ttl = dnsb_cf_ttl(r->ttl, proxied);
	return 0;
}
