/*
 * snapshot.c - what a zone held when it was last transferred, kept in step
 * with this provider's own committed UPDATEs, and the prerequisites of a
 * batch checked against it: which changes the server would refuse. A hint
 * only: the provider reads those RRsets before it acts on one (culprit.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/array.h"
#include "internal.h"

/* One RRset, with its key ("TYPE owner"). */
typedef struct snap_set {
	char *key;
	dnsb_rrset set;
} snap_set;

/* The types held at one owner name: "the name is in use" (RFC 2136 §2.4.4). */
typedef struct snap_name {
	char *owner;
	uint16_t *types;
	size_t count, cap;
} snap_name;

/* A key for lookups: "TYPE owner" (an owner is at most 255 octets in presentation, escapes aside). */
#define KEY_MAX 1100

static const char *lookup_key(char *buf, const char *owner, uint16_t type)
{
	int len = snprintf(buf, KEY_MAX, "%u %s", (unsigned)type, owner);

	return len > 0 && len < KEY_MAX ? buf : NULL;
}

static char *set_key(const char *owner, uint16_t type)
{
	char *key;

	return asprintf(&key, "%u %s", (unsigned)type, owner) < 0 ? NULL : key;
}

static void set_free(snap_set *s)
{
	if (s == NULL)
		return;
	free(s->key);
	dnsb_rrset_clear(&s->set);
	free(s);
}

static void name_free(snap_name *nm)
{
	if (nm == NULL)
		return;
	free(nm->types);
	free(nm->owner);
	free(nm);
}

static void name_drop_type(dnsb_rfc2136_snapshot *snap, const char *owner, uint16_t type)
{
	snap_name *nm = dnsb_hmap_get(&snap->names, owner);

	for (size_t i = 0; nm != NULL && i < nm->count; i++) {
		if (nm->types[i] != type)
			continue;
		nm->types[i] = nm->types[--nm->count];
		if (nm->count == 0)
			name_free(dnsb_hmap_remove(&snap->names, owner));
		return;
	}
}

static int name_add_type(dnsb_rfc2136_snapshot *snap, const char *owner, uint16_t type)
{
	snap_name *nm = dnsb_hmap_get(&snap->names, owner);

	if (nm == NULL) {
		if ((nm = calloc(1, sizeof(*nm))) == NULL || (nm->owner = strdup(owner)) == NULL ||
		    dnsb_hmap_put(&snap->names, nm->owner, nm) != 0) {
			if (nm)
				free(nm->owner);
			free(nm);
			return DNSB_ENOMEM;
		}
	}
	if (DNSB_ARRAY_RESERVE(nm->types, nm->cap, nm->count + 1, 4) < 0)
		return DNSB_ENOMEM;
	nm->types[nm->count++] = type;
	return 0;
}

void dnsb_rfc2136_snapshot_remove(dnsb_rfc2136_snapshot *snap, const char *owner, uint16_t type)
{
	char buf[KEY_MAX];
	const char *key = lookup_key(buf, owner, type);
	snap_set *s = key ? dnsb_hmap_remove(&snap->sets, key) : NULL;

	if (s == NULL)
		return;
	set_free(s);
	snap->count--;
	name_drop_type(snap, owner, type);
}

int dnsb_rfc2136_snapshot_put(dnsb_rfc2136_snapshot *snap, dnsb_rrset *set)
{
	snap_set *s = calloc(1, sizeof(*s));

	if (s == NULL || (s->key = set_key(set->owner, set->type)) == NULL) {
		free(s);
		return DNSB_ENOMEM;
	}
	dnsb_rfc2136_snapshot_remove(snap, set->owner, set->type);
	s->set = *set;
	memset(set, 0, sizeof(*set));
	if (dnsb_hmap_put(&snap->sets, s->key, s) != 0) {
		set_free(s);
		return DNSB_ENOMEM;
	}
	snap->count++;
	if (name_add_type(snap, s->set.owner, s->set.type) != 0) {
		dnsb_rfc2136_snapshot_remove(snap, s->set.owner, s->set.type);
		return DNSB_ENOMEM;
	}
	return 0;
}

const dnsb_rrset *dnsb_rfc2136_snapshot_get(const dnsb_rfc2136_snapshot *snap, const char *owner, uint16_t type)
{
	char buf[KEY_MAX];
	const char *key = lookup_key(buf, owner, type);
	snap_set *s = key ? dnsb_hmap_get(&snap->sets, key) : NULL;

	return s ? &s->set : NULL;
}

size_t dnsb_rfc2136_snapshot_types(const dnsb_rfc2136_snapshot *snap, const char *owner, const uint16_t **types)
{
	const snap_name *nm = dnsb_hmap_get(&snap->names, owner);

	*types = nm ? nm->types : NULL;
	return nm ? nm->count : 0;
}

void dnsb_rfc2136_snapshot_clear(dnsb_rfc2136_snapshot *snap)
{
	size_t iter = 0;
	const char *key;
	void *value;

	while (dnsb_hmap_next(&snap->sets, &iter, &key, &value))
		set_free(value);
	iter = 0;
	while (dnsb_hmap_next(&snap->names, &iter, &key, &value))
		name_free(value);
	dnsb_hmap_clear(&snap->sets);
	dnsb_hmap_clear(&snap->names);
	snap->count = 0;
}

int dnsb_rfc2136_snapshot_load(dnsb_rfc2136_snapshot *snap, dnsb_rrset_list *zone)
{
	int rc = 0;

	dnsb_rfc2136_snapshot_clear(snap);
	for (size_t i = 0; rc == 0 && i < zone->count; i++)
		rc = dnsb_rfc2136_snapshot_put(snap, &zone->items[i]);
	dnsb_rrset_list_clear(zone);
	if (rc != 0)
		dnsb_rfc2136_snapshot_clear(snap);
	return rc;
}

/* What an UPDATE of these changes did: every removal, then every addition (msg.c's order). */
int dnsb_rfc2136_snapshot_commit(dnsb_rfc2136_snapshot *snap, dnsb_change *const *changes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (changes[i]->kind != DNSB_CHANGE_CREATE)
			dnsb_rfc2136_snapshot_remove(snap, changes[i]->old.owner, changes[i]->old.type);
	for (size_t i = 0; i < n; i++) {
		dnsb_rrset copy;
		if (changes[i]->kind == DNSB_CHANGE_DELETE)
			continue;
		if (dnsb_rrset_copy(&copy, &changes[i]->new_set) != 0)
			return DNSB_ENOMEM;
		if (dnsb_rfc2136_snapshot_put(snap, &copy) != 0) {
			dnsb_rrset_clear(&copy);
			return DNSB_ENOMEM;
		}
	}
	return 0;
}

/* Does the snapshot fail one prerequisite? @return the server's rcode for it, or 0 */
static int prereq_fails(const dnsb_rfc2136_snapshot *snap, dnsb_rfc2136_prereq_kind kind, const char *owner,
			uint16_t type, const dnsb_rrset *exact)
{
	const uint16_t *types;
	const dnsb_rrset *held;

	switch (kind) {
	case DNSB_RFC2136_NO_RRSET:
		return dnsb_rfc2136_snapshot_get(snap, owner, type) != NULL ? LDNS_RCODE_YXRRSET : 0;
	case DNSB_RFC2136_NO_NAME:
		return dnsb_rfc2136_snapshot_types(snap, owner, &types) > 0 ? LDNS_RCODE_YXDOMAIN : 0;
	case DNSB_RFC2136_EXACTLY:
		held = dnsb_rfc2136_snapshot_get(snap, owner, type);
		/* The server compares RDATA only (RFC 2136 §3.2.5: the TTL of a prerequisite is 0). */
		return held == NULL || !dnsb_rrset_same_data(held, exact) ? LDNS_RCODE_NXRRSET : 0;
	}
	return 0;
}

/* Checking one change's prerequisites: the first one the snapshot fails. */
typedef struct check {
	const dnsb_rfc2136_snapshot *snap;
	dnsb_rfc2136_failed *failed;
} check;

static int check_one(dnsb_rfc2136_prereq_kind kind, const char *owner, uint16_t type, const dnsb_rrset *exact,
		     void *payload)
{
	check *ck = payload;
	int rcode = prereq_fails(ck->snap, kind, owner, type, exact);

	if (rcode != 0) {
		ck->failed->kind = kind;
		ck->failed->owner = owner;
		ck->failed->type = type;
		ck->failed->exact = exact;
		ck->failed->rcode = rcode;
	}
	return rcode;
}

int dnsb_rfc2136_snapshot_check(const dnsb_rfc2136_snapshot *snap, dnsb_change *const *changes, size_t n, size_t i,
				dnsb_rfc2136_failed *failed)
{
	dnsb_rfc2136_failed unused;
	check ck = { snap, failed ? failed : &unused };

	memset(ck.failed, 0, sizeof(*ck.failed));
	/* An unsendable change is refused by the build, not here. */
	if (dnsb_rfc2136_prereqs(changes, n, changes[i], check_one, &ck) == DNSB_EINVAL)
		return 0;
	return ck.failed->rcode;
}

int dnsb_rfc2136_snapshot_still(const dnsb_rfc2136_snapshot *snap, const dnsb_rfc2136_failed *failed)
{
	return prereq_fails(snap, failed->kind, failed->owner, failed->type, failed->exact);
}

static int add_key(dnsb_rrkey **keys, size_t *count, size_t *cap, const char *owner, uint16_t type)
{
	if (DNSB_ARRAY_RESERVE(*keys, *cap, *count + 1, 16) < 0)
		return DNSB_ENOMEM;
	(*keys)[*count].owner = owner;
	(*keys)[(*count)++].type = type;
	return 0;
}

int dnsb_rfc2136_snapshot_keys(const dnsb_rfc2136_snapshot *snap, const dnsb_rfc2136_failed *failed,
			       dnsb_rrkey **keys, size_t *count, size_t *cap)
{
	const uint16_t *types;
	size_t n;
	int rc = 0;

	if (failed->kind != DNSB_RFC2136_NO_NAME)
		return add_key(keys, count, cap, failed->owner, failed->type);
	/* "The name is unused": every RRset the snapshot holds there. */
	n = dnsb_rfc2136_snapshot_types(snap, failed->owner, &types);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = add_key(keys, count, cap, failed->owner, types[i]);
	return rc;
}
