/*
 * providers/common/precheck.h - the pre-check of the backends whose service writes
 * unconditionally (PowerDNS: REPLACE overwrites, DELETE of nothing succeeds;
 * Cloudflare: records by id, no condition on a write). The batch is replayed
 * over the RRsets a read just found, in order, and every change whose
 * condition fails is named at once: create needs the RRset absent, update
 * and delete need the old RRset as held (RDATA and TTL). So are the rules
 * every DNS service enforces, which the replay checks on the same read (the
 * services would name the first breach of a write only), on the batch's
 * final state (it is written whole): no CNAME beside other data at one name
 * (RFC 1034 §3.6.2; RRSIG, NSEC and NSEC3 aside: the CNAME the batch writes
 * is named, else the data written beside a CNAME that stays), no CNAME at
 * the zone apex, and the apex keeps its NS RRset. The apex is the
 * name the read shows holding the SOA: a service that lists none
 * (Cloudflare, which flattens a CNAME at the apex and serves its own NS) has
 * no apex rule to break. Not installed.
 *
 * Between the read and the write another client can still change the zone:
 * such backends declare `unconditional` (dnsb_provider_limits); a read-back
 * after the write finds what it left (dnsb_precheck_races).
 */
#ifndef DNSBATCH_PROVIDERS_PRECHECK_H
#define DNSBATCH_PROVIDERS_PRECHECK_H

#include "dnsbatch/sys/provider.h"

/** One RRset the batch touches: what the zone holds now and what it must hold after. */
typedef struct dnsb_precheck_entry {
	const char *owner;         /**< borrowed from a change */
	uint16_t type;
	const dnsb_rrset *held;    /**< the RRset held now (borrowed from the read), or NULL */
	const dnsb_rrset *final;   /**< the RRset wanted after the batch (borrowed), or NULL: absent */
	const dnsb_rrset *disabled; /**< PowerDNS: the disabled records held there (borrowed), or NULL: the
				        PATCH carries them, so that writing the RRset removes none of them */
} dnsb_precheck_entry;

/** The RRsets the write must change, in the order the batch first touches them. */
typedef struct dnsb_precheck {
	dnsb_precheck_entry *entries;  /**< owned */
	size_t count;
} dnsb_precheck;

/** Why the pre-check names a change (docs/design.md §7's causes). */
typedef enum dnsb_precheck_mismatch {
	DNSB_PRECHECK_MATCH = 0,
	DNSB_PRECHECK_EXISTS,   /**< a create (or an update's new RRset of another type) whose RRset is held */
	DNSB_PRECHECK_MISSING,  /**< an update or delete whose old RRset is not held */
	DNSB_PRECHECK_DIFFERS,  /**< an update or delete whose old RRset is held with other RDATA or TTL */
	DNSB_PRECHECK_CNAME,    /**< a change that leaves a CNAME and other data at one name */
	DNSB_PRECHECK_APEX_CNAME, /**< a CNAME written at the apex (the name holding the SOA) */
	DNSB_PRECHECK_APEX_NS   /**< a change that leaves the apex without its NS RRset */
} dnsb_precheck_mismatch;

/**
 * Replay the batch, in order, over the RRsets held now: every change whose
 * condition fails, or that breaks one of the rules above, is named in `res`
 * as a culprit (class CONFLICT, code
 * "precheck", the message naming the first and the count) and leaves the
 * replayed state as it was; the others move it on. `patch` receives the
 * RRsets whose final state differs from what is held, each with the
 * disabled records held there. A create where only disabled records are
 * held finds the RRset held (dnsb_pdns_zone_parse): its note names them.
 * @param held      the zone's current RRsets (at least every RRset at each owner name the batch touches)
 * @param disabled  PowerDNS: the disabled records held (dnsb_pdns_zone_parse), or NULL (cloudflare)
 * @return 0 (res is OK when nothing mismatched); DNSB_ENOMEM
 */
int dnsb_precheck_run(dnsb_precheck *patch, dnsb_result *res, dnsb_change *const *changes, size_t n,
		      const dnsb_rrset_list *held, const dnsb_rrset_list *disabled);

/**
 * After an accepted PATCH, what a read-back shows of its RRsets: an RRset
 * holding neither what the PATCH wrote nor what the pre-check read (the old
 * side and the new side of the batch) was written by another client in the
 * window; a `race` warning names each.
 * @param after  the enabled records read back (at least the patch's RRsets)
 * @param zone   for the messages
 * @return how many RRsets
 */
unsigned dnsb_precheck_races(const dnsb_precheck *patch, const dnsb_rrset_list *after, const char *zone);

/**
 * The keys a batch's pre-check reads: every RRset (DNSB_RRKEY_ANY) at each owner name the batch touches, old
 * and new side (a CNAME beside other data is a conflict, whatever the type written).
 * @param out  receives 2 * n keys at most (malloc'd, the caller's: free); the names borrowed from changes
 * @return the count, >= 0; DNSB_ENOMEM
 */
int dnsb_precheck_keys(dnsb_rrkey **out, dnsb_change *const *changes, size_t n);

/** Free what a patch owns and zero it. NULL is a no-op. */
void dnsb_precheck_clear(dnsb_precheck *patch);

#endif
