/*
 * reply.c - the server's messages from their wire bytes: the reply to one
 * query, and the messages of a zone transfer. No sockets here: net.c reads
 * the bytes, these functions judge them (and the fuzzers feed them).
 */
#include <stdlib.h>

#include "internal.h"

int dnsb_rfc2136_tsig_error(const ldns_pkt *reply)
{
	ldns_rr *tsig = ldns_pkt_tsig(reply);

	/* TSIG RDATA: algorithm, time, fudge, MAC, original ID, error, other (RFC 8945 §4.2). */
	if (tsig == NULL || ldns_rr_rd_count(tsig) < 6 || ldns_rr_rdf(tsig, 5) == NULL)
		return 0;
	return (int)ldns_rdf2native_int16(ldns_rr_rdf(tsig, 5));
}

/* Step *pos over a domain name; 0 when it runs past the end. */
static int skip_name(const uint8_t *wire, size_t size, size_t *pos)
{
	while (*pos < size) {
		uint8_t len = wire[*pos];

		if ((len & 0xc0) == 0xc0) {
			*pos += 2;
			return *pos <= size;
		}
		*pos += 1 + (size_t)len;
		if (len == 0)
			return 1;
	}
	return 0;
}

/*
 * Whether the message's only TSIG record, if any, is its last record, as
 * RFC 8945 §5.2 requires. ldns_wire2pkt (1.8.3) keeps the last TSIG record
 * of the additional section it reaches and leaks the others: every reply of
 * a hostile server could leak up to a message's worth. A message cut short
 * is left to ldns_wire2pkt to refuse.
 */
static int tsig_last(const uint8_t *wire, size_t size)
{
	size_t pos = LDNS_HEADER_SIZE, rrs, first_ar;

	if (size < LDNS_HEADER_SIZE)
		return 1;
	rrs = (size_t)LDNS_ANCOUNT(wire) + LDNS_NSCOUNT(wire) + LDNS_ARCOUNT(wire);
	first_ar = rrs - LDNS_ARCOUNT(wire);
	for (size_t i = 0; i < LDNS_QDCOUNT(wire); i++, pos += 4)
		if (!skip_name(wire, size, &pos))
			return 1;
	for (size_t i = 0; i < rrs; i++) {
		uint16_t type;

		if (!skip_name(wire, size, &pos) || size - pos < 10)
			return 1;
		type = ldns_read_uint16(wire + pos);
		pos += 10 + (size_t)ldns_read_uint16(wire + pos + 8);
		if (i >= first_ar && i != rrs - 1 && type == LDNS_RR_TYPE_TSIG)
			return 0;
	}
	return 1;
}

/* ldns_wire2pkt, refusing what it would leak on: NULL, or why the message is malformed. */
static const char *wire2pkt(ldns_pkt **out, const uint8_t *wire, size_t size)
{
	ldns_status st;

	*out = NULL;
	if (!tsig_last(wire, size))
		return "a TSIG record that is not the last record";
	if ((st = ldns_wire2pkt(out, wire, size)) != LDNS_STATUS_OK) {
		*out = NULL;
		return ldns_get_errorstr_by_id(st);
	}
	return NULL;
}

/* The MAC of a signed query, which the reply's signature covers; NULL when unsigned. */
static const ldns_rdf *query_mac(const ldns_pkt *query)
{
	return ldns_pkt_tsig(query) ? ldns_rr_rdf(ldns_pkt_tsig(query), 3) : NULL;
}

/*
 * ldns_pkt_tsig_verify, leaving the message whole. ldns 1.8.3 takes the TSIG
 * record out of the packet and sets the ID to the record's original ID while
 * it computes the MAC, and puts neither back when it cannot compute one (an
 * algorithm it does not know): the record would leak with the packet, and
 * the reply would lose its TSIG error.
 */
static int tsig_verify(ldns_pkt *pkt, const uint8_t *wire, size_t size, const dnsb_rfc2136_net *net,
		       const ldns_rdf *mac)
{
	ldns_rr *tsig = ldns_pkt_tsig(pkt);
	uint16_t id = ldns_pkt_id(pkt);
	int ok;

	if (mac == NULL)
		return 0;
	ok = ldns_pkt_tsig_verify(pkt, wire, size, net->keyname, net->secret, mac);
	if (ldns_pkt_tsig(pkt) == NULL)
		ldns_pkt_set_tsig(pkt, tsig);
	ldns_pkt_set_id(pkt, id);
	return ok;
}

int dnsb_rfc2136_reply_parse(ldns_pkt **reply, int *tsig_ok, const uint8_t *wire, size_t size,
			     const ldns_pkt *query, const dnsb_rfc2136_net *net, dnsb_error *err)
{
	const char *malformed;

	*tsig_ok = 0;
	if ((malformed = wire2pkt(reply, wire, size)) != NULL)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "malformed reply from %s: %s", net->server, malformed);
	if (ldns_pkt_id(*reply) != ldns_pkt_id(query)) {
		ldns_pkt_free(*reply);
		*reply = NULL;
		return dnsb_error_set(err, DNSB_ETRANSIENT, "reply from %s has the wrong ID", net->server);
	}
	*tsig_ok = net->keyname == NULL || tsig_verify(*reply, wire, size, net, query_mac(query));
	return 0;
}

/* Classify a failed AXFR rcode for the read/list return codes. */
static int axfr_rcode_error(const dnsb_rfc2136_axfr_state *ax, const ldns_pkt *pkt, dnsb_error *err)
{
	int rcode = ldns_pkt_get_rcode(pkt), tsig = dnsb_rfc2136_tsig_error(pkt);
	const char *zone = ax->zone, *server = ax->net->server;

	if (rcode == LDNS_RCODE_SERVFAIL)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "AXFR of %s from %s: SERVFAIL", zone, server);
	if (tsig != 0)
		return dnsb_error_set(err, DNSB_EFATAL, "AXFR of %s from %s: %s (TSIG error %s)", zone, server,
				      dnsb_rfc2136_rcode_name(rcode), dnsb_rfc2136_rcode_name(tsig));
	return dnsb_error_set(err, DNSB_EFATAL, "AXFR of %s from %s: %s%s", zone, server,
			      dnsb_rfc2136_rcode_name(rcode),
			      rcode == LDNS_RCODE_REFUSED || rcode == LDNS_RCODE_NOTAUTH ?
				      " (transfers not allowed for this key or address, or zone not served)" : "");
}

/* The header and, for the first message, the signature of one AXFR message. */
static int axfr_check(const dnsb_rfc2136_axfr_state *ax, ldns_pkt *pkt, const uint8_t *wire, size_t size,
		      dnsb_error *err)
{
	const dnsb_rfc2136_net *net = ax->net;

	if (ldns_pkt_id(pkt) != ldns_pkt_id(ax->query))
		return dnsb_error_set(err, DNSB_ETRANSIENT, "AXFR of %s: reply with the wrong ID", ax->zone);
	if (ldns_pkt_get_rcode(pkt) != LDNS_RCODE_NOERROR)
		return axfr_rcode_error(ax, pkt, err);
	/*
	 * The first message answers the signed request and must verify; later
	 * ones are checked by the TCP stream only (ldns has no multi-message
	 * TSIG state).
	 */
	if (ax->first && net->keyname != NULL && !tsig_verify(pkt, wire, size, net, query_mac(ax->query)))
		return dnsb_error_set(err, DNSB_EFATAL, "AXFR of %s from %s: the reply's TSIG signature does not verify",
				      ax->zone, net->server);
	return 0;
}

/* Copy the answer RRs up to and including the closing SOA. */
static int axfr_collect(dnsb_rfc2136_axfr_state *ax, const ldns_pkt *pkt)
{
	for (size_t i = 0; i < ldns_pkt_ancount(pkt) && ax->soa < 2; i++) {
		ldns_rr *rr = ldns_rr_list_rr(ldns_pkt_answer(pkt), i);
		ldns_rr *copy;

		if (ldns_rr_get_type(rr) == LDNS_RR_TYPE_SOA)
			ax->soa++;
		if ((copy = ldns_rr_clone(rr)) == NULL || !ldns_rr_list_push_rr(ax->rrs, copy)) {
			ldns_rr_free(copy);
			return DNSB_ENOMEM;
		}
	}
	return 0;
}

int dnsb_rfc2136_axfr_feed(dnsb_rfc2136_axfr_state *ax, const uint8_t *wire, size_t size, dnsb_error *err)
{
	ldns_pkt *pkt = NULL;
	int rc;

	if (wire2pkt(&pkt, wire, size) != NULL)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "AXFR of %s from %s: malformed message", ax->zone,
				      ax->net->server);
	rc = axfr_check(ax, pkt, wire, size, err);
	if (rc == 0)
		rc = axfr_collect(ax, pkt);
	if (rc == 0 && ax->first && ax->soa == 0)
		rc = dnsb_error_set(err, DNSB_ETRANSIENT, "AXFR of %s from %s: does not start with the SOA", ax->zone,
				    ax->net->server);
	ldns_pkt_free(pkt);
	if (rc == 0)
		ax->first = 0;
	return rc;
}
