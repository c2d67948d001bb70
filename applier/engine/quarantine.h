/*
 * quarantine.h - internal: the engine's side of dnsb_quarantine.
 * Keys identify a change group by its content (kinds, owners, types, TTLs,
 * RDATA), so the same conflicting group in the next plan finds its entry.
 */
#ifndef DNSB_QUARANTINE_INT_H
#define DNSB_QUARANTINE_INT_H

#include "applier/obs/drop_record.h"
#include "dnsbatch/engine.h"

/*
 * Start an apply. @return its token: applies on disjoint zones may run at once,
 * each forgetting at its end only the unseen entries of its own zones.
 */
unsigned long dnsb_quarantine_begin(dnsb_quarantine *q);
/* Mark seen by this apply; @return 1 when the group is still held at `now`, else 0. */
int dnsb_quarantine_check(dnsb_quarantine *q, const char *key, unsigned long token, double now);
/*
 * A group of `zone` conflicted: hold it (initial, then doubling up to max).
 * @param held_for  receives the hold now set, in seconds; may be NULL
 * @return 0 when its quarantine starts (it was not held), 1 when it was held
 *         before (its hold ran out, it was tried and conflicted again), DNSB_ENOMEM
 */
int dnsb_quarantine_hold(dnsb_quarantine *q, const char *key, const char *zone, unsigned long token, double now,
			 double *held_for);
/* A group applied or is in effect: forget it. @return 1 when it was held (its quarantine ends), else 0 */
int dnsb_quarantine_release(dnsb_quarantine *q, const char *key);
/*
 * A drop decided without the provider (invalid, no_zone) in `zone` ("" for
 * none): is it news, to be logged? It is the first time, whenever its backoff
 * (initial, doubling up to max) has run out, and within the apply `token`
 * that noted it, so that an apply logs every change it drops. A noted entry
 * holds nothing back, is not counted by dnsb_quarantine_count, and is
 * forgotten by dnsb_quarantine_end like the others. Past QUARANTINE_NOTES_MAX
 * noted entries every drop is news: memory stays bounded.
 * @return 1 news, 0 logged by an earlier apply and its backoff runs, DNSB_ENOMEM
 */
int dnsb_quarantine_note(dnsb_quarantine *q, const char *key, const char *zone, unsigned long token, double now);
/* Most noted drops remembered at once. */
#define QUARANTINE_NOTES_MAX 10000
/*
 * Say what a held group is (changes, cause, owner, the provider's message:
 * GET /quarantine shows it), after dnsb_quarantine_hold; counts an attempt,
 * stamped with `wall` (Unix seconds). Takes `desc` (dnsb_held_record_new,
 * may be NULL; freed when the entry is not held).
 */
void dnsb_quarantine_describe(dnsb_quarantine *q, const char *key, dnsb_held_record *desc, double wall);
/* One held group as dnsb_quarantine_each shows it; every pointer borrowed for the call. */
typedef struct dnsb_quarantine_view {
	const char *zone;
	const dnsb_held_record *desc;  /* what the group is (dnsb_quarantine_describe), or NULL */
	double first, last;            /* wall clock seconds it was first and last held */
	unsigned attempts;             /* times it was held: tried and refused */
	double left;                   /* seconds until its hold ends, on the clock of `now` (> 0) */
	double backoff;                /* the current hold, seconds */
} dnsb_quarantine_view;
/*
 * Call fn for each group held at `now`, newest first (by last held), under the
 * quarantine's lock: fn must not call q. Stops at fn's first nonzero return.
 * @return that return, 0, or DNSB_ENOMEM
 */
int dnsb_quarantine_each(dnsb_quarantine *q, double now, int (*fn)(const dnsb_quarantine_view *v, void *payload),
			 void *payload);
/* End an apply: forget the entries of `zones` that it did not see (their groups left the plan). */
void dnsb_quarantine_end(dnsb_quarantine *q, unsigned long token, const char *const *zones, size_t nzones);

#endif
