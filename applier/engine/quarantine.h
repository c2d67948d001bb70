/*
 * quarantine.h - internal: the engine's side of dnsb_quarantine.
 * Keys identify a change group by its content (kinds, owners, types, TTLs,
 * RDATA), so the same conflicting group in the next plan finds its entry.
 */
#ifndef DNSB_QUARANTINE_INT_H
#define DNSB_QUARANTINE_INT_H

#include "dnsbatch/engine.h"

/*
 * Start an apply. @return its token: applies on disjoint zones may run at once,
 * each forgetting at its end only the unseen entries of its own zones.
 */
unsigned long dnsb_quarantine_begin(dnsb_quarantine *q);
/* Mark seen by this apply; @return 1 when the group is still held at `now`, else 0. */
int dnsb_quarantine_check(dnsb_quarantine *q, const char *key, unsigned long token, double now);
/* A group of `zone` conflicted: hold it (initial, then doubling up to max). @return 0 or DNSB_ENOMEM */
int dnsb_quarantine_hold(dnsb_quarantine *q, const char *key, const char *zone, unsigned long token, double now);
/* A group applied or is in effect: forget it. */
void dnsb_quarantine_release(dnsb_quarantine *q, const char *key);
/* End an apply: forget the entries of `zones` that it did not see (their groups left the plan). */
void dnsb_quarantine_end(dnsb_quarantine *q, unsigned long token, const char *const *zones, size_t nzones);

#endif
