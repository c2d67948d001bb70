/*
 * store.h - internal: the RRsets of one zone held in memory, with the
 * change semantics shared by the memory and zone-file providers (Cloud
 * DNS-like, so that tests here mean what they mean there):
 *   create  fails if the RRset exists (409 alreadyExists), if it is a CNAME
 *           and the owner name holds other data, or if the owner name holds
 *           a CNAME (400 cnameResourceRecordSetConflict);
 *   update  the current RRset must equal `old` exactly, RDATA set and TTL
 *           (404 notFound / 412 conditionNotMet), then as delete + create;
 *   delete  the same exact match, then remove;
 *   SOA     managed by the store, never changed by a plan (400 invalid).
 * A batch applies whole or not at all.
 */
#ifndef DNSB_STORE_H
#define DNSB_STORE_H

#include <stdio.h>

#include "dnsbatch/sys/provider.h"

typedef struct dnsb_store dnsb_store;

/* An empty store for the zone `apex` (absolute, lower-case; copied). @return 0 or DNSB_ENOMEM */
int dnsb_store_new(dnsb_store **out, const char *apex);
void dnsb_store_free(dnsb_store *s);

/*
 * Replace the contents with a zone file's records, parsed by ldns. Records
 * outside the zone are an error.
 * @return 0, DNSB_EIO, DNSB_EPARSE (the message names path:line and ldns's reason), DNSB_ENOMEM
 */
int dnsb_store_load(dnsb_store *s, const char *path, dnsb_error *err);

/* Write the zone in RFC 1035 format (SOA first, canonical order). @return 0, DNSB_EIO, DNSB_ENOMEM */
int dnsb_store_write(dnsb_store *s, FILE *f, dnsb_error *err);

/* Put an RRset (copied), replacing the one of the same owner and type. @return 0 or DNSB_ENOMEM */
int dnsb_store_put(dnsb_store *s, const dnsb_rrset *rrset);

/* The RRset at owner/type, borrowed, or NULL. */
const dnsb_rrset *dnsb_store_get(const dnsb_store *s, const char *owner, uint16_t type);

/*
 * Apply a batch atomically. `res` gets the class and, on failure, the index
 * of the first failing change as its one culprit. With bump_soa, the apex SOA serial
 * is incremented once when the batch applies.
 * @return 0 with res filled; DNSB_ENOMEM (nothing applied)
 */
int dnsb_store_apply(dnsb_store *s, dnsb_change *const *changes, size_t n, int bump_soa, dnsb_result *res);

/*
 * Undo the last successful dnsb_store_apply (used when persisting it
 * failed). Only the most recent batch can be undone.
 */
void dnsb_store_undo(dnsb_store *s);

/* Copy every RRset into `out`. @return 0 or DNSB_ENOMEM */
int dnsb_store_list(const dnsb_store *s, dnsb_rrset_list *out);

/* Copy the RRsets with the given keys that exist into `out`. @return 0 or DNSB_ENOMEM */
int dnsb_store_read(const dnsb_store *s, const dnsb_rrkey *keys, size_t n, dnsb_rrset_list *out);

/* Number of RRsets held. */
size_t dnsb_store_count(const dnsb_store *s);

/* The zone apex, borrowed. */
const char *dnsb_store_apex(const dnsb_store *s);

#endif
