/*
 * dnsbatch/memory.h - the in-process provider, for tests and benchmarks.
 *
 * It holds its zones in memory with the same semantics as the zone-file
 * provider (Cloud DNS-like: a create fails when the RRset exists, an update
 * or delete must match the current RRset exactly, a CNAME cannot share its
 * owner name with other data; each submission is atomic) and counts every
 * request. A fault script makes chosen submissions fail, deterministically.
 *
 * Command-line keys: memory-zone APEX (repeatable), memory-zonefile
 * APEX=PATH (repeatable: load the zone's state from a zone file, read only),
 * memory-faults SCRIPT, memory-hints (a refusal names every failing change,
 * as Route53's InvalidChangeBatch does).
 *
 * Fault script: rules separated by ',' or ';', each WHEN:ACTION[=VALUE].
 *   WHEN    N      the Nth submission (1-based)
 *           N-M    submissions N to M
 *           *      every submission
 *           pX     each submission with probability X (0..1), from the seed
 *   ACTION  latency=SEC      wait SEC seconds (real time) before answering
 *           transient        answer 503 before committing anything
 *           commit-transient commit the batch, then answer 502 (a lost success reply)
 *           rate-limit=SEC   answer 429 with Retry-After SEC (SEC may be omitted)
 *           fatal            answer 403 (authentication failure)
 *           conflict         answer 409 without looking at the data
 *           wrong-hint       when the submission is refused for its data, the reply
 *                            names a change that is not a culprit (with memory-hints)
 *           read-transient   WHEN counts reads and lists, not submissions: that read
 *                            or list fails with DNSB_ETRANSIENT (503)
 *           write=RECORD     another client writes just before the submission reaches
 *                            the zone: RECORD, "OWNER TTL [IN] TYPE RDATA" as in a zone
 *                            file (an absolute OWNER in one of the zones; no ',' or ';'),
 *                            replaces the RRset of its owner and type; the submission is
 *                            then handled as the other rules say
 *   plus    seed=N           seed for the pX rules (default 1)
 *   e.g.    "2:commit-transient,p0.05:transient,seed=7,*:latency=0.001"
 *           "1:commit-transient,2:write=www.example.com. 300 A 198.51.100.1"
 * The first matching failure rule wins; latency rules add up; every matching
 * write rule is made, in script order.
 */
#ifndef DNSBATCH_MEMORY_H
#define DNSBATCH_MEMORY_H

#include "provider.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Create a memory provider holding the given zones, empty.
 * @param zones        apexes (copied; made absolute and lower-case)
 * @param zone_count   how many
 * @param faults       a fault script (copied), or NULL for none
 * @return 0; DNSB_EINVAL for a bad apex or fault script (the message names
 *         the rule and its position, or the owner of a write= rule that no
 *         zone holds); DNSB_ENOMEM
 */
int dnsb_memory_new(dnsb_provider **out, const char *const *zones, size_t zone_count,
		    const char *faults, dnsb_error *err);

/**
 * Load RRsets from an RFC 1035 zone file into one of its zones (ldns parses
 * it; records outside the zone are an error).
 * @return 0, DNSB_EIO (unreadable), DNSB_EPARSE (ldns's message and the
 *         line), DNSB_ENOTFOUND (no such zone in the provider), DNSB_ENOMEM
 */
int dnsb_memory_load(dnsb_provider *p, const char *zone, const char *path, dnsb_error *err);

/**
 * Put one RRset into a zone as is (copied), replacing any with the same
 * owner and type: for tests that arrange a conflict.
 * @return 0, DNSB_ENOTFOUND (no zone holds the owner), DNSB_ENOMEM
 */
int dnsb_memory_put(dnsb_provider *p, const dnsb_rrset *rrset);

/**
 * For tests of deferred commits: the engine's holds and flushes of a zone
 * (the provider's flush op, dnsbatch/sys/provider.h) are handed to `flush`
 * (its state argument NULL), whose answer is the flush's. The memory
 * provider itself commits each batch as it is answered. NULL: none.
 */
void dnsb_memory_set_flush(dnsb_provider *p, int (*flush)(void *state, const char *zone, int hold, double timeout,
							   dnsb_error *err));

/** Let replies name the failing change (dnsb_result.hint). */
void dnsb_memory_set_hints(dnsb_provider *p, int on);

/** Number of RRsets held in all zones. */
size_t dnsb_memory_rrset_count(dnsb_provider *p);

#ifdef __cplusplus
}
#endif
#endif
