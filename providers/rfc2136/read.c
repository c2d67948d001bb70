/*
 * read.c - reading RRsets back: one query per (owner, type), all over one
 * connection, pipelined (pipeline.c), each reply checked (rcode, TSIG).
 */
#include <stdlib.h>

#include "internal.h"

/* The query for the RRset (owner, type). @return 0 with *out the caller's; DNSB_EINVAL; DNSB_ENOMEM */
static int read_query(const dnsb_rrkey *key, ldns_pkt **out, dnsb_error *err)
{
	ldns_rdf *owner = ldns_dname_new_frm_str(key->owner);

	if (owner == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "'%s' is not a domain name", key->owner);
	/* Takes owner. Flags 0: no recursion, the server answers from its zone. */
	if ((*out = ldns_pkt_query_new(owner, (ldns_rr_type)key->type, LDNS_RR_CLASS_IN, 0)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	return 0;
}

/* The RRset (owner, type) as the reply gives it, appended to out if it exists. */
static int read_reply(const dnsb_rfc2136_net *net, const dnsb_rrkey *key, const ldns_pkt *reply, int tsig_ok,
		      dnsb_rrset_list *out, dnsb_error *err)
{
	int rcode = ldns_pkt_get_rcode(reply), tsig_error = dnsb_rfc2136_tsig_error(reply), rc;
	size_t before = out->count;

	if (tsig_error != 0)
		return dnsb_error_set(err, DNSB_EFATAL, "reading %s %s from %s: %s (TSIG error %s)", key->owner,
				      dnsb_type_name(key->type), net->server, dnsb_rfc2136_rcode_name(rcode),
				      dnsb_rfc2136_rcode_name(tsig_error));
	if (rcode == LDNS_RCODE_SERVFAIL)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "reading %s %s from %s: SERVFAIL", key->owner,
				      dnsb_type_name(key->type), net->server);
	if (rcode != LDNS_RCODE_NOERROR && rcode != LDNS_RCODE_NXDOMAIN)
		return dnsb_error_set(err, DNSB_EFATAL, "reading %s %s from %s: %s", key->owner,
				      dnsb_type_name(key->type), net->server, dnsb_rfc2136_rcode_name(rcode));
	if (!tsig_ok)
		return dnsb_error_set(err, DNSB_ETRANSIENT,
				      "reading %s %s from %s: the reply's TSIG signature does not verify", key->owner,
				      dnsb_type_name(key->type), net->server);
	rc = dnsb_rfc2136_rrsets_from_rrs(out, ldns_pkt_answer(reply), key->owner, key->type);
	/* NS at a delegation point comes back as a referral, in the authority section. */
	if (rc == 0 && out->count == before && key->type == LDNS_RR_TYPE_NS)
		rc = dnsb_rfc2136_rrsets_from_rrs(out, ldns_pkt_authority(reply), key->owner, key->type);
	return rc;
}

int dnsb_rfc2136_read(dnsb_rfc2136_net *net, const dnsb_rrkey *keys, size_t n, double timeout, dnsb_rrset_list *out,
		      dnsb_error *err)
{
	ldns_pkt **queries = calloc(n ? n : 1, sizeof(ldns_pkt *)), **replies = calloc(n ? n : 1, sizeof(ldns_pkt *));
	int *tsig_ok = calloc(n ? n : 1, sizeof(int)), rc = 0;

	if (queries == NULL || replies == NULL || tsig_ok == NULL)
		rc = DNSB_ENOMEM;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = read_query(&keys[i], &queries[i], err);
	if (rc == 0)
		rc = dnsb_rfc2136_exchange_all(net, queries, n, timeout, replies, tsig_ok, err);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = read_reply(net, &keys[i], replies[i], tsig_ok[i], out, err);
	for (size_t i = 0; i < n && queries && replies; i++) {
		ldns_pkt_free(queries[i]);
		ldns_pkt_free(replies[i]);
	}
	free(queries);
	free(replies);
	free(tsig_ok);
	if (rc == DNSB_ENOMEM) /* the allocations here and the lists built from replies fill no error */
		dnsb_error_set(err, rc, "out of memory reading %zu RRsets", n);
	return rc;
}
