/*
 * akamai.c - the akamai provider's glue on the HTTP backend skeleton: the
 * signed request, open, close, the methods and the flags. Everything of
 * Akamai's own is in the other files of this folder (akamai.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/secret.h"
#include "providers/akamai/akamai.h"
#include "applier/net/ratelimit.h"

/* One request signed with EdgeGrid (a fresh timestamp and nonce each); the body, when any, is JSON. */
static int call(dnsb_hb *b, const char *method, const char *url, const char *body, double give_up,
		dnsb_http_response *out, dnsb_error *err)
{
	dnsb_akamai *a = (dnsb_akamai *)b;
	char ts[32], nonce[40], *sig = NULL, *auth = NULL;
	const char *headers[] = { NULL, "Accept: application/json", body ? "Content-Type: application/json" : NULL, NULL };
	int rc;

	memset(out, 0, sizeof(*out));
	dnsb_akamai_timestamp(ts, sizeof(ts));
	if (dnsb_akamai_nonce(nonce, sizeof(nonce)) != 0)
		return dnsb_error_set(err, DNSB_ERROR, "EdgeGrid: no random nonce (OpenSSL RAND_bytes failed)");
	rc = dnsb_akamai_sign(&sig, &a->cfg.creds, method, url, a->cfg.creds.host, body, body ? strlen(body) : 0, ts,
			      nonce, err);
	if (rc != 0)
		return rc;
	if (asprintf(&auth, "Authorization: %s", sig) < 0)
		auth = NULL;
	dnsb_secret_free(sig);
	if (auth == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	headers[0] = auth;
	rc = dnsb_hb_send(b, method, url, headers, body, NULL, give_up, out, err);
	dnsb_secret_free(auth);
	return rc;
}

static void akamai_close(dnsb_hb *b)
{
	dnsb_akamai *a = (dnsb_akamai *)b;

	if (a->leftovers)
		dnsb_log(DNSB_LOG_INFO, "akamai: %lu leftover change lists deleted", a->leftovers);
	dnsb_akamai_config_clear(&a->cfg);
	for (size_t i = 0; a->lists && i < b->zone_count; i++)
		pthread_mutex_destroy(&a->lists[i]);
	free(a->lists);
}

static int akamai_open_state(dnsb_hb *b, const dnsb_config *cfg, dnsb_provider_limits *limits, dnsb_error *err)
{
	dnsb_akamai *a = (dnsb_akamai *)b;
	int rc;

	if ((rc = dnsb_akamai_config_parse(&a->cfg, cfg, err)) != 0 ||
	    (rc = dnsb_hb_client(b, DNSB_AKAMAI_TIMEOUT, a->cfg.ca_file, err)) != 0 || (rc = dnsb_akamai_zones(a, err)) != 0)
		return rc;
	if ((a->lists = calloc(b->zone_count, sizeof(*a->lists))) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	for (size_t i = 0; i < b->zone_count; i++)
		pthread_mutex_init(&a->lists[i], NULL);
	limits->max_changes = a->cfg.batch_size;
	limits->names_culprit = 1;
	dnsb_log(DNSB_LOG_DEBUG, "akamai: %s, %zu zones, credentials from %s, %zu changes per change list",
		 a->cfg.endpoint, b->zone_count, a->cfg.source, a->cfg.batch_size);
	return 0;
}

static const dnsb_hb_methods akamai_methods = {
	DNSB_HB_OPS("akamai"), "Edge DNS zone", sizeof(dnsb_akamai), NULL,
	akamai_open_state, call, dnsb_akamai_reply_error, dnsb_akamai_submit, dnsb_akamai_read, akamai_close,
	0, 0, /* no account-wide rate documented for Edge DNS: the 429's headers pace it */
};

static int akamai_open(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_open(out, &akamai_methods, cfg, err);
}

const dnsb_backend dnsb_backend_akamai = DNSB_BACKEND_INIT(
	"akamai",
	"Akamai Edge DNS (config-dns v2: one change list per batch, submitted atomically; EdgeGrid from an .edgerc "
	"or $AKAMAI_*)",
	dnsb_akamai_flags, dnsb_budget_flags, akamai_open, &akamai_methods.ops);
