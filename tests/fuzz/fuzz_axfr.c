/*
 * fuzz_axfr.c - libFuzzer: any bytes as the TCP stream of a zone transfer of
 * example.com. (DNS messages, each after its 2-byte big-endian length), fed
 * message by message to dnsb_rfc2136_axfr_feed until the closing SOA, an
 * error or the end of the bytes; then whatever RRs it collected are turned
 * into RRsets by dnsb_rfc2136_rrsets_from_rrs, all of them and one owner's.
 * Each input is read twice: unsigned, then as the answer to a TSIG-signed
 * query (whose first message then fails to verify, after parsing its TSIG).
 * The query's ID is fixed, 0xdb02, so that messages can match it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "providers/rfc2136/internal.h"
#include "fuzz_common.h"

#define AXFR_ID 0xdb02
#define ZONE "example.com."

/* Feed each whole framed message until the transfer completes or fails. */
static void transfer(const uint8_t *data, size_t size, dnsb_rfc2136_axfr_state *ax)
{
	dnsb_error err = { 0, "" };
	size_t pos = 0;

	while (ax->soa < 2 && size - pos >= 2) {
		size_t len = (size_t)data[pos] << 8 | data[pos + 1];

		pos += 2;
		/* A short last message: the socket path times out waiting for the rest. */
		if (len > size - pos || dnsb_rfc2136_axfr_feed(ax, data + pos, len, &err) != 0)
			return;
		pos += len;
	}
}

static void run(const uint8_t *data, size_t size, const ldns_pkt *query, const dnsb_rfc2136_net *net)
{
	ldns_rr_list *rrs = ldns_rr_list_new();
	dnsb_rfc2136_axfr_state ax = DNSB_RFC2136_AXFR_STATE_INIT(net, ZONE, query, rrs);
	dnsb_rrset_list all = { 0 }, www = { 0 };

	if (rrs == NULL)
		return;
	transfer(data, size, &ax);
	dnsb_rfc2136_rrsets_from_rrs(&all, rrs, NULL, 0);
	dnsb_rfc2136_rrsets_from_rrs(&www, rrs, "www." ZONE, LDNS_RR_TYPE_A);
	dnsb_rrset_list_clear(&all);
	dnsb_rrset_list_clear(&www);
	ldns_rr_list_deep_free(rrs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static dnsb_rfc2136_net net;
	ldns_rdf *apex = ldns_dname_new_frm_str(ZONE);
	ldns_pkt *query;

	/* As dnsb_rfc2136_axfr asks: takes apex; flags 0, no recursion. */
	if (apex == NULL || (query = ldns_pkt_query_new(apex, LDNS_RR_TYPE_AXFR, LDNS_RR_CLASS_IN, 0)) == NULL)
		return 0;
	ldns_pkt_set_id(query, AXFR_ID);
	fuzz_dns_both(data, size, query, &net, run);
	return 0;
}
