/*
 * probe.c - the first conflicting change of a refused batch, found by
 * binary search with prerequisite-only UPDATEs (RFC 2136 replies do not say
 * which prerequisite failed): what names a culprit when no snapshot of the
 * zone can (culprit.c).
 */
#include "dnsbatch/sys/log.h"
#include "internal.h"

static int is_prereq_failure(int rcode)
{
	return rcode == LDNS_RCODE_YXDOMAIN || rcode == LDNS_RCODE_YXRRSET || rcode == LDNS_RCODE_NXRRSET ||
	       rcode == LDNS_RCODE_NXDOMAIN;
}

/*
 * Check the prerequisites of changes[first, first + count) without changing
 * anything. @return the rcode, or -1 when no trustworthy answer came.
 */
static int probe(dnsb_rfc2136_net *net, const char *zone, dnsb_change *const *changes, size_t n, size_t first,
		 size_t count)
{
	ldns_pkt *query = NULL, *reply = NULL;
	dnsb_error e = { 0, "" };
	int tsig_ok = 0, rcode = -1;

	if (dnsb_rfc2136_probe_build(&query, zone, changes, n, first, count, &e) == 0 &&
	    dnsb_rfc2136_exchange(net, query, 0, &reply, &tsig_ok, NULL, &e) == 0 && tsig_ok)
		rcode = ldns_pkt_get_rcode(reply);
	ldns_pkt_free(query);
	ldns_pkt_free(reply);
	return rcode;
}

/*
 * Bisecting with real UPDATEs commits every half that passes (a journal
 * write and a serial bump each). Prerequisite-only UPDATEs change nothing
 * and cost the server little: binary-search them for the first conflicting
 * change and name it in the result (a culprit), so the engine retries the
 * batch without it at once. A wrong culprit (the zone changed meanwhile)
 * costs the engine one request.
 */
void dnsb_rfc2136_find_culprit(dnsb_rfc2136_net *net, const char *zone, dnsb_change *const *changes, size_t n,
			       dnsb_result *out)
{
	size_t lo = 0, hi = n, probes = 0;
	int rcode = -1, r;

	/* Invariant: [lo, hi) holds a failing prerequisite; [0, lo) holds none. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		r = probe(net, zone, changes, n, lo, mid - lo);
		probes++;
		if (is_prereq_failure(r)) {
			hi = mid;
			rcode = hi - lo == 1 ? r : -1;
		} else if (r == LDNS_RCODE_NOERROR) {
			lo = mid;
		} else {
			return;
		}
	}
	if (rcode < 0) {
		rcode = probe(net, zone, changes, n, lo, 1);
		probes++;
	}
	dnsb_log(DNSB_LOG_DEBUG, "rfc2136: UPDATE %s, %zu changes: %zu probes: change %zu: %s", zone, n, probes, lo,
		 dnsb_rfc2136_rcode_name(rcode));
	if (!is_prereq_failure(rcode))
		return;
	dnsb_rfc2136_classify(out, rcode, 0, zone, &changes[lo], 1, net->server);
	dnsb_result_add_culprit(out, lo);
}
