/*
 * rfc2136.c - the rfc2136 provider: each batch is one DNS UPDATE (RFC 2136)
 * with prerequisites, TSIG-signed; read by queries, list by AXFR.
 */
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/clock.h"
#include "providers/registry.h"
#include "internal.h"

typedef struct rfc2136_state {
	dnsb_rfc2136_config cfg;
	dnsb_rfc2136_net net;
	int net_ready;
	dnsb_rfc2136_known known;  /* the zones' snapshots (culprit.c) */
} rfc2136_state;

/*
 * A failure that is not the server's answer. `bad` is the change ldns could
 * not build, or -1 when building went well and sending failed.
 */
static int submit_local_failure(dnsb_result *out, int rc, size_t n, long bad, const dnsb_error *e, dnsb_error *err)
{
	switch (rc) {
	case DNSB_EINVAL:
		if (bad < 0) {
			/* Signing or encoding failed: no batch can be sent with these settings. */
			dnsb_result_set(out, DNSB_CLASS_FATAL, 0, "", "%s", e->message);
			return 0;
		}
		/* ldns refused a record: that change is invalid, nothing was sent. */
		dnsb_result_set(out, DNSB_CLASS_INVALID, 0, "", "%s", e->message);
		dnsb_result_add_culprit(out, (size_t)bad);
		return 0;
	case DNSB_ETOOLARGE:
		/* A single change cannot be split further: it can never be sent. */
		dnsb_result_set(out, n > 1 ? DNSB_CLASS_TOO_LARGE : DNSB_CLASS_INVALID, 0, "", "%s", e->message);
		return 0;
	case DNSB_ETRANSIENT:
		dnsb_result_set(out, DNSB_CLASS_TRANSIENT, 0, "", "%s", e->message);
		return 0;
	default:
		return dnsb_error_set(err, rc, "%s", e->message[0] ? e->message : dnsb_strerror(rc));
	}
}

static int rfc2136_submit(void *opaque, const char *zone, dnsb_change *const *changes, size_t n, double timeout,
			  dnsb_result *out, dnsb_error *err)
{
	rfc2136_state *st = opaque;
	dnsb_error e = { 0, "" };
	ldns_pkt *query = NULL, *reply = NULL;
	size_t bad = 0, size = 0;
	int rc, tsig_ok, rcode, tsig_error;

	dnsb_result_init(out);
	if (dnsb_rfc2136_precheck(&st->known, &st->net, zone, changes, n, timeout, out))
		return 0;
	if ((rc = dnsb_rfc2136_update_build(&query, zone, changes, n, &bad, &e)) != 0) {
		dnsb_log(DNSB_LOG_DEBUG, "rfc2136: UPDATE %s, %zu changes: %s", zone, n, e.message);
		return submit_local_failure(out, rc, n, bad == (size_t)-1 ? -1 : (long)bad, &e, err);
	}
	rc = dnsb_rfc2136_exchange(&st->net, query, timeout, &reply, &tsig_ok, &size, &e);
	ldns_pkt_free(query);
	if (rc != 0) {
		dnsb_log(DNSB_LOG_DEBUG, "rfc2136: UPDATE %s, %zu changes: %s", zone, n, e.message);
		rc = submit_local_failure(out, rc, n, -1, &e, err);
		dnsb_rfc2136_known_after(&st->known, zone, changes, n, rc == 0 ? out->cls : DNSB_CLASS_TRANSIENT);
		return rc;
	}
	rcode = ldns_pkt_get_rcode(reply);
	tsig_error = dnsb_rfc2136_tsig_error(reply);
	ldns_pkt_free(reply);
	if (!tsig_ok && tsig_error == 0 && rcode == LDNS_RCODE_NOERROR) {
		/* Success that is not signed by the key proves nothing; verifying will tell. */
		dnsb_result_set(out, DNSB_CLASS_TRANSIENT, rcode, "", "%s answered NOERROR without a valid TSIG signature",
				st->net.server);
	} else {
		dnsb_rfc2136_classify(out, rcode, tsig_error, zone, changes, n, st->net.server);
		if (out->cls == DNSB_CLASS_CONFLICT && n > 1)
			dnsb_rfc2136_name_culprits(&st->known, &st->net, zone, changes, n, out);
	}
	dnsb_rfc2136_known_after(&st->known, zone, changes, n, out->cls);
	dnsb_log(DNSB_LOG_DEBUG, "rfc2136: UPDATE %s, %zu changes, %zu bytes: %s", zone, n, size,
		 dnsb_rfc2136_rcode_name(tsig_error ? tsig_error : rcode));
	return 0;
}

/* Every RRset asked for (read.c). */
static int rfc2136_read(void *opaque, const char *zone, const dnsb_rrkey *keys, size_t n, double timeout,
			dnsb_rrset_list *out, dnsb_error *err)
{
	rfc2136_state *st = opaque;

	(void)zone;
	return dnsb_rfc2136_read(&st->net, keys, n, timeout, out, err);
}

static int rfc2136_list(void *opaque, const char *zone, double timeout, dnsb_rrset_list *out, dnsb_error *err)
{
	rfc2136_state *st = opaque;
	ldns_rr_list *rrs = ldns_rr_list_new();
	int rc;

	(void)timeout; /* the transfer is bounded by --rfc2136-timeout per read */
	if (rrs == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	rc = dnsb_rfc2136_axfr(&st->net, zone, rrs, 0, err);
	if (rc == 0)
		rc = dnsb_rfc2136_rrsets_from_rrs(out, rrs, NULL, 0);
	ldns_rr_list_deep_free(rrs);
	if (rc == DNSB_ENOMEM)
		return dnsb_error_set(err, rc, "out of memory listing %s", zone);
	return rc;
}

static void rfc2136_close(void *opaque)
{
	rfc2136_state *st = opaque;

	if (st == NULL)
		return;
	if (st->net_ready)
		dnsb_rfc2136_net_close(&st->net);
	dnsb_rfc2136_known_free(&st->known);
	dnsb_rfc2136_config_clear(&st->cfg);
	free(st);
}

static const dnsb_provider_ops rfc2136_ops =
	DNSB_PROVIDER_OPS_INIT("rfc2136", rfc2136_submit, rfc2136_read, rfc2136_list, rfc2136_close);

static int rfc2136_open(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err)
{
	rfc2136_state *st = calloc(1, sizeof(*st));
	dnsb_provider_limits limits = { 0 };
	dnsb_provider *p;
	int rc;

	*out = NULL;
	if (st == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = dnsb_rfc2136_config_parse(&st->cfg, cfg, err)) != 0 ||
	    (rc = dnsb_rfc2136_net_init(&st->net, &st->cfg, err)) != 0) {
		rfc2136_close(st);
		return rc;
	}
	st->net_ready = 1;
	if (dnsb_rfc2136_known_init(&st->known, &st->cfg) != 0) {
		rfc2136_close(st);
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	if ((rc = dnsb_provider_alloc(&p, &rfc2136_ops, st)) != 0)
		return dnsb_error_set(err, rc, "out of memory");
	for (size_t i = 0; i < st->cfg.zone_count; i++) {
		if ((rc = dnsb_provider_add_zone(p, st->cfg.zones[i], err)) != 0) {
			dnsb_provider_free(p);
			return rc;
		}
	}
	/* The 64 KiB message limit is checked on the encoded message (TOO_LARGE).
	 * Replies never say which prerequisite failed, but a snapshot or probes do (culprit.c). */
	limits.max_changes = st->cfg.batch_size;
	limits.names_culprit = 1;
	dnsb_provider_set_limits(p, &limits);
	*out = p;
	return 0;
}

const dnsb_backend dnsb_backend_rfc2136 = DNSB_BACKEND_INIT(
	"rfc2136",
	"DNS UPDATE (RFC 2136) with TSIG and prerequisites, to BIND, Knot and other primaries",
	dnsb_rfc2136_flags, NULL, rfc2136_open, &rfc2136_ops);
