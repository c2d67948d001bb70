/*
 * fuzz_rfc2136_reply.c - libFuzzer: any bytes as the server's reply (DNS
 * wire format, no TCP length prefix) to an UPDATE of three changes to
 * example.com., through dnsb_rfc2136_reply_parse, the TSIG error check and
 * dnsb_rfc2136_classify. Each input is judged twice: unsigned, then as the
 * reply to a TSIG-signed UPDATE (it cannot carry the right MAC, which
 * depends on the time of signing, but its TSIG record is parsed and checked).
 * The UPDATE's ID is fixed, 0xdb01, so that replies can match it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "providers/rfc2136/internal.h"
#include "fuzz_common.h"

#define REPLY_ID 0xdb01
#define ZONE "example.com."

static char owner_www[] = "www.example.com.", owner_old[] = "old.example.com.", owner_c[] = "c.example.com.";
static char rdata_new[] = "192.0.2.1", rdata_old[] = "192.0.2.9", rdata_txt[] = "\"gone\"",
	    rdata_target[] = "www.example.com.";
static char *new_a[] = { rdata_new }, *old_a[] = { rdata_old }, *old_txt[] = { rdata_txt },
	    *new_cname[] = { rdata_target };

/* An update, a deletion and a creation: each has prerequisites a reply may refuse. */
static dnsb_change update_www = {
	.kind = DNSB_CHANGE_UPDATE,
	.old = { owner_www, LDNS_RR_TYPE_A, 300, old_a, 1 },
	.new_set = { owner_www, LDNS_RR_TYPE_A, 300, new_a, 1 },
};
static dnsb_change delete_old = {
	.kind = DNSB_CHANGE_DELETE,
	.old = { owner_old, LDNS_RR_TYPE_TXT, 60, old_txt, 1 },
};
static dnsb_change create_c = {
	.kind = DNSB_CHANGE_CREATE,
	.new_set = { owner_c, LDNS_RR_TYPE_CNAME, 300, new_cname, 1 },
};
static dnsb_change *const changes[] = { &update_www, &delete_old, &create_c };
#define CHANGE_COUNT (sizeof(changes) / sizeof(changes[0]))

/* Parse, check and classify one reply as dnsb's submit does. */
static void judge(const uint8_t *data, size_t size, const ldns_pkt *query, const dnsb_rfc2136_net *net)
{
	ldns_pkt *reply = NULL;
	dnsb_error err = { 0, "" };
	dnsb_result res;
	int tsig_ok = 0, rcode, tsig_error;

	if (dnsb_rfc2136_reply_parse(&reply, &tsig_ok, data, size, query, net, &err) != 0)
		return;
	rcode = ldns_pkt_get_rcode(reply);
	tsig_error = dnsb_rfc2136_tsig_error(reply);
	dnsb_rfc2136_classify(&res, rcode, tsig_error, ZONE, changes, CHANGE_COUNT, net->server);
	/* A single change is named in the message: the culprit path. */
	for (size_t i = 0; i < CHANGE_COUNT; i++)
		dnsb_rfc2136_classify(&res, rcode, tsig_error, ZONE, &changes[i], 1, net->server);
	ldns_pkt_free(reply);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static dnsb_rfc2136_net net;
	ldns_pkt *query = NULL;

	if (dnsb_rfc2136_update_build(&query, ZONE, changes, CHANGE_COUNT, NULL, NULL) != 0)
		return 0;
	ldns_pkt_set_id(query, REPLY_ID);
	fuzz_dns_both(data, size, query, &net, judge);
	return 0;
}
