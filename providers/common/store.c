/* store.c - one zone's RRsets in memory, with atomic Cloud DNS-like batches. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "applier/core/array.h"
#include "applier/core/hmap.h"
#include "store.h"

/* The RRsets at one owner name; the owner string is the map's key. */
typedef struct owner_node {
	char *owner;
	dnsb_rrset *sets;
	size_t count;
} owner_node;

/* What a batch changed, to put back when it fails or cannot be persisted. */
typedef struct undo_entry {
	char *owner;
	uint16_t type;
	int had;          /* was an RRset there before? */
	dnsb_rrset prev;  /* it, when had */
} undo_entry;

struct dnsb_store {
	char *apex;
	dnsb_hmap owners;
	size_t rrsets;
	undo_entry *undo;
	size_t undo_count, undo_cap;
};

int dnsb_store_new(dnsb_store **out, const char *apex)
{
	dnsb_store *s = calloc(1, sizeof(*s));

	if (s == NULL || (s->apex = strdup(apex)) == NULL) {
		free(s);
		return DNSB_ENOMEM;
	}
	*out = s;
	return 0;
}

static void undo_forget(dnsb_store *s)
{
	for (size_t i = 0; i < s->undo_count; i++) {
		free(s->undo[i].owner);
		dnsb_rrset_clear(&s->undo[i].prev);
	}
	s->undo_count = 0;
}

static void clear_owners(dnsb_store *s)
{
	size_t it = 0;
	const char *key;
	void *value;

	while (dnsb_hmap_next(&s->owners, &it, &key, &value)) {
		owner_node *node = value;
		for (size_t i = 0; i < node->count; i++)
			dnsb_rrset_clear(&node->sets[i]);
		free(node->sets);
		free(node->owner);
		free(node);
	}
	dnsb_hmap_clear(&s->owners);
	s->rrsets = 0;
}

void dnsb_store_free(dnsb_store *s)
{
	if (s == NULL)
		return;
	clear_owners(s);
	undo_forget(s);
	free(s->undo);
	free(s->apex);
	free(s);
}

const char *dnsb_store_apex(const dnsb_store *s)
{
	return s->apex;
}

size_t dnsb_store_count(const dnsb_store *s)
{
	return s->rrsets;
}

static dnsb_rrset *find_set(const owner_node *node, uint16_t type)
{
	for (size_t i = 0; node && i < node->count; i++)
		if (node->sets[i].type == type)
			return &node->sets[i];
	return NULL;
}

const dnsb_rrset *dnsb_store_get(const dnsb_store *s, const char *owner, uint16_t type)
{
	return find_set(dnsb_hmap_get(&s->owners, owner), type);
}

/* Put an RRset, taking ownership of *rrset (zeroed on success). No undo. */
static int raw_put(dnsb_store *s, dnsb_rrset *rrset)
{
	owner_node *node = dnsb_hmap_get(&s->owners, rrset->owner);
	dnsb_rrset *cur, *grown;

	if (node == NULL) {
		if ((node = calloc(1, sizeof(*node))) == NULL || (node->owner = strdup(rrset->owner)) == NULL) {
			free(node);
			return DNSB_ENOMEM;
		}
		if (dnsb_hmap_put(&s->owners, node->owner, node) < 0) {
			free(node->owner);
			free(node);
			return DNSB_ENOMEM;
		}
	}
	if ((cur = find_set(node, rrset->type)) != NULL) {
		dnsb_rrset_clear(cur);
		*cur = *rrset;
	} else {
		if ((grown = realloc(node->sets, (node->count + 1) * sizeof(*grown))) == NULL)
			return DNSB_ENOMEM;
		node->sets = grown;
		node->sets[node->count++] = *rrset;
		s->rrsets++;
	}
	memset(rrset, 0, sizeof(*rrset));
	return 0;
}

static void raw_del(dnsb_store *s, const char *owner, uint16_t type)
{
	owner_node *node = dnsb_hmap_get(&s->owners, owner);
	dnsb_rrset *cur = find_set(node, type);

	if (cur == NULL)
		return;
	dnsb_rrset_clear(cur);
	*cur = node->sets[--node->count];
	s->rrsets--;
	if (node->count == 0) {
		dnsb_hmap_remove(&s->owners, owner);
		free(node->sets);
		free(node->owner);
		free(node);
	}
}

static int log_undo(dnsb_store *s, const char *owner, uint16_t type)
{
	const dnsb_rrset *cur = dnsb_store_get(s, owner, type);
	undo_entry *e;

	if (DNSB_ARRAY_RESERVE(s->undo, s->undo_cap, s->undo_count + 1, 32) < 0)
		return DNSB_ENOMEM;
	e = &s->undo[s->undo_count];
	memset(e, 0, sizeof(*e));
	if ((e->owner = strdup(owner)) == NULL)
		return DNSB_ENOMEM;
	e->type = type;
	e->had = cur != NULL;
	if (cur && dnsb_rrset_copy(&e->prev, cur) < 0) {
		free(e->owner);
		return DNSB_ENOMEM;
	}
	s->undo_count++;
	return 0;
}

void dnsb_store_undo(dnsb_store *s)
{
	for (size_t i = s->undo_count; i > 0; i--) {
		undo_entry *e = &s->undo[i - 1];
		raw_del(s, e->owner, e->type);
		/* Putting back what we removed cannot need more memory than it had: ignore ENOMEM. */
		if (e->had)
			(void)raw_put(s, &e->prev);
	}
	undo_forget(s);
}

int dnsb_store_put(dnsb_store *s, const dnsb_rrset *rrset)
{
	dnsb_rrset copy;
	int rc;

	if ((rc = dnsb_rrset_copy(&copy, rrset)) < 0)
		return rc;
	if ((rc = raw_put(s, &copy)) < 0)
		dnsb_rrset_clear(&copy);
	return rc;
}

static int set_logged(dnsb_store *s, const dnsb_rrset *rrset)
{
	int rc = log_undo(s, rrset->owner, rrset->type);

	return rc < 0 ? rc : dnsb_store_put(s, rrset);
}

static int del_logged(dnsb_store *s, const char *owner, uint16_t type)
{
	int rc = log_undo(s, owner, type);

	if (rc == 0)
		raw_del(s, owner, type);
	return rc;
}

/* "www.example.com. (A)", as Cloud DNS names an RRset in its messages. */
#define RRSET_FMT "'%s (%s)'"
#define RRSET_ARGS(r) (r)->owner, dnsb_type_name((r)->type)

static int check_delete(dnsb_store *s, const dnsb_rrset *old, size_t i, dnsb_result *res)
{
	const dnsb_rrset *cur = dnsb_store_get(s, old->owner, old->type);

	if (cur == NULL) {
		dnsb_result_set(res, DNSB_CLASS_CONFLICT, 404, "notFound",
				"The 'entity.change.deletions[%zu]' resource named " RRSET_FMT " does not exist.", i,
				RRSET_ARGS(old));
		return 1;
	}
	if (!dnsb_rrset_matches_old(cur, old)) {
		dnsb_result_set(res, DNSB_CLASS_CONFLICT, 412, "conditionNotMet",
				"Precondition not met for 'entity.change.deletions[%zu]': " RRSET_FMT
				" holds other data or TTL", i, RRSET_ARGS(old));
		return 1;
	}
	return 0;
}

static int check_create(dnsb_store *s, const dnsb_rrset *rrset, dnsb_result *res)
{
	owner_node *node = dnsb_hmap_get(&s->owners, rrset->owner);

	if (find_set(node, rrset->type)) {
		dnsb_result_set(res, DNSB_CLASS_CONFLICT, 409, "alreadyExists",
				"The resource 'entity.rrset' named " RRSET_FMT " already exists", RRSET_ARGS(rrset));
		return 1;
	}
	if (node && node->count > 0 && (rrset->type == LDNS_RR_TYPE_CNAME || find_set(node, LDNS_RR_TYPE_CNAME))) {
		dnsb_result_set(res, DNSB_CLASS_CONFLICT, 400, "cnameResourceRecordSetConflict",
				"The resource " RRSET_FMT " cannot share its name with a %s record set",
				RRSET_ARGS(rrset), rrset->type == LDNS_RR_TYPE_CNAME ? dnsb_type_name(node->sets[0].type) : "CNAME");
		return 1;
	}
	return 0;
}

static int check_in_zone(dnsb_store *s, const dnsb_change *c, dnsb_result *res)
{
	const dnsb_rrset *sets[2] = { c->kind != DNSB_CHANGE_CREATE ? &c->old : NULL,
				      c->kind != DNSB_CHANGE_DELETE ? &c->new_set : NULL };

	for (int k = 0; k < 2; k++) {
		const dnsb_rrset *r = sets[k];
		if (r == NULL)
			continue;
		if (!dnsb_name_in_zone(r->owner, s->apex)) {
			dnsb_result_set(res, DNSB_CLASS_INVALID, 400, "invalid", RRSET_FMT " is not in zone %s",
					RRSET_ARGS(r), s->apex);
			return 1;
		}
		if (r->type == LDNS_RR_TYPE_SOA) {
			dnsb_result_set(res, DNSB_CLASS_INVALID, 400, "invalid",
					RRSET_FMT ": the SOA record is managed by the provider", RRSET_ARGS(r));
			return 1;
		}
	}
	return 0;
}

static int bump_serial(dnsb_store *s)
{
	const dnsb_rrset *soa = dnsb_store_get(s, s->apex, LDNS_RR_TYPE_SOA);
	ldns_rr_list *rrs;
	dnsb_rrset_list bumped = { 0 };
	int rc;

	if (soa == NULL || soa->rdata_count != 1)
		return 0;
	if ((rrs = ldns_rr_list_new()) == NULL)
		return DNSB_ENOMEM;
	rc = dnsb_rrset_to_ldns(rrs, soa, NULL);
	if (rc == 0) {
		/* RFC 1982 serial + 1. ldns_rr_soa_increment leaks the old field's data, so swap it here. */
		ldns_rr *rr = ldns_rr_list_rr(rrs, 0);
		ldns_rdf *next = ldns_native2rdf_int32(LDNS_RDF_TYPE_INT32, ldns_rdf2native_int32(ldns_rr_rdf(rr, 2)) + 1);
		if (next == NULL)
			rc = DNSB_ENOMEM;
		else
			ldns_rdf_deep_free(ldns_rr_set_rdf(rr, next, 2));
	}
	if (rc == 0)
		rc = dnsb_rrset_list_add_ldns_rr(&bumped, ldns_rr_list_rr(rrs, 0), NULL);
	if (rc == 0)
		rc = set_logged(s, &bumped.items[0]);
	dnsb_rrset_list_clear(&bumped);
	ldns_rr_list_deep_free(rrs);
	return rc == DNSB_ENOMEM ? rc : 0;
}

int dnsb_store_apply(dnsb_store *s, dnsb_change *const *changes, size_t n, int bump_soa, dnsb_result *res)
{
	int rc = 0;

	undo_forget(s);
	dnsb_result_init(res);
	for (size_t i = 0; i < n; i++) {
		const dnsb_change *c = changes[i];
		int failed = check_in_zone(s, c, res);

		if (!failed && c->kind != DNSB_CHANGE_CREATE) {
			failed = check_delete(s, &c->old, i, res);
			if (!failed && (rc = del_logged(s, c->old.owner, c->old.type)) < 0)
				break;
		}
		if (!failed && c->kind != DNSB_CHANGE_DELETE) {
			failed = check_create(s, &c->new_set, res);
			if (!failed && (rc = set_logged(s, &c->new_set)) < 0)
				break;
		}
		if (failed) {
			dnsb_result_add_culprit_note(res, i, res->message);
			dnsb_store_undo(s);
			return 0;
		}
	}
	if (rc == 0 && bump_soa)
		rc = bump_serial(s);
	if (rc < 0) {
		dnsb_store_undo(s);
		return rc;
	}
	return 0;
}

int dnsb_store_list(const dnsb_store *s, dnsb_rrset_list *out)
{
	size_t it = 0;
	const char *key;
	void *value;

	while (dnsb_hmap_next(&s->owners, &it, &key, &value)) {
		owner_node *node = value;
		for (size_t i = 0; i < node->count; i++) {
			dnsb_rrset copy;
			if (dnsb_rrset_copy(&copy, &node->sets[i]) < 0 || dnsb_rrset_list_push(out, &copy) < 0)
				return DNSB_ENOMEM;
		}
	}
	return 0;
}

/* Append a copy of cur unless out has it. @return 0 or DNSB_ENOMEM */
static int read_into(dnsb_rrset_list *out, const dnsb_rrset *cur)
{
	dnsb_rrset copy;

	if (cur == NULL || dnsb_rrset_list_find(out, cur->owner, cur->type))
		return 0;
	if (dnsb_rrset_copy(&copy, cur) < 0 || dnsb_rrset_list_push(out, &copy) < 0)
		return DNSB_ENOMEM;
	return 0;
}

int dnsb_store_read(const dnsb_store *s, const dnsb_rrkey *keys, size_t n, dnsb_rrset_list *out)
{
	for (size_t i = 0; i < n; i++) {
		const owner_node *node;
		int rc = 0;

		if (keys[i].type != DNSB_RRKEY_ANY) {
			rc = read_into(out, dnsb_store_get(s, keys[i].owner, keys[i].type));
		} else if ((node = dnsb_hmap_get(&s->owners, keys[i].owner)) != NULL) {
			for (size_t k = 0; rc == 0 && k < node->count; k++)
				rc = read_into(out, &node->sets[k]);
		}
		if (rc != 0)
			return rc;
	}
	return 0;
}


/*
 * Check that a record read from a zone file is inside the zone and merge it
 * in (first TTL of an RRset wins, RFC 2181 §5.2). The record is converted
 * once; its canonical owner serves both the check and the merge.
 */
static int load_rr(dnsb_store *s, const char *path, int line, const ldns_rr *rr, dnsb_error *err)
{
	dnsb_rrset_list one = { 0 };
	dnsb_rrset *r, *cur;
	int rc;

	if ((rc = dnsb_rrset_list_add_ldns_rr(&one, rr, err)) < 0)
		return rc;
	r = &one.items[0];
	if (!dnsb_name_in_zone(r->owner, s->apex))
		rc = dnsb_error_set(err, DNSB_EPARSE, "%s:%d: record %s is outside the zone %s", path, line, r->owner,
				    s->apex);
	else if ((cur = find_set(dnsb_hmap_get(&s->owners, r->owner), r->type)) != NULL)
		rc = dnsb_rrset_add_rdata(cur, r->rdata[0]);
	else
		rc = raw_put(s, r);
	dnsb_rrset_list_clear(&one);
	return rc;
}

/*
 * ldns allocates ~200 KB of scratch for every record it parses
 * (ldns_rr_new_frm_str) and frees it at once. With glibc that scratch is
 * the top of the heap, so each record gave it back (brk) and took it again:
 * three system calls and the page faults for every record. glibc keeps a
 * free top smaller than twice the largest mmap'd block freed so far (the
 * dynamic mmap threshold, mallopt(3)): one 1 MiB block taken and freed
 * before the first record keeps the scratch in the heap, reused record after
 * record. Elsewhere it costs one allocation.
 */
static void keep_parse_scratch(void)
{
	volatile char *block = malloc(1 << 20);

	if (block != NULL)
		block[0] = 0;
	free((void *)block);
}

/*
 * Read record by record with ldns_rr_new_frm_fp_l, which handles $ORIGIN,
 * $TTL, relative names and parentheses; ldns_zone_new_frm_fp_l would do the
 * same loop but leaks the records read so far when a later line is bad.
 */
int dnsb_store_load(dnsb_store *s, const char *path, dnsb_error *err)
{
	FILE *f = fopen(path, "r");
	ldns_rdf *origin, *prev;
	uint32_t ttl = 3600;
	int line = 0, rc = 0;

	if (f == NULL)
		return dnsb_error_set(err, DNSB_EIO, "%s: %s", path, strerror(errno));
	origin = ldns_dname_new_frm_str(s->apex);
	prev = origin ? ldns_rdf_clone(origin) : NULL;
	if (origin == NULL || prev == NULL) {
		ldns_rdf_deep_free(origin);
		fclose(f);
		return DNSB_ENOMEM;
	}
	clear_owners(s);
	undo_forget(s);
	keep_parse_scratch();
	while (rc == 0 && !feof(f)) {
		ldns_rr *rr = NULL;
		ldns_status st = ldns_rr_new_frm_fp_l(&rr, f, &ttl, &origin, &prev, &line);

		switch (st) {
		case LDNS_STATUS_OK:
			rc = load_rr(s, path, line, rr, err);
			break;
		case LDNS_STATUS_SYNTAX_EMPTY:
		case LDNS_STATUS_SYNTAX_TTL:
		case LDNS_STATUS_SYNTAX_ORIGIN:
			break;
		case LDNS_STATUS_SYNTAX_INCLUDE:
			rc = dnsb_error_set(err, DNSB_EPARSE, "%s:%d: $INCLUDE is not supported", path, line);
			break;
		default:
			rc = dnsb_error_set(err, DNSB_EPARSE, "%s:%d: %s", path, line, ldns_get_errorstr_by_id(st));
			break;
		}
		ldns_rr_free(rr);
	}
	ldns_rdf_deep_free(origin);
	ldns_rdf_deep_free(prev);
	fclose(f);
	if (rc == 0 && dnsb_store_get(s, s->apex, LDNS_RR_TYPE_SOA) == NULL)
		rc = dnsb_error_set(err, DNSB_EPARSE, "%s: no SOA record at the zone apex %s", path, s->apex);
	if (rc < 0)
		clear_owners(s);
	return rc;
}

int dnsb_store_write(dnsb_store *s, FILE *f, dnsb_error *err)
{
	ldns_zone *zone = ldns_zone_new();
	ldns_rr_list *soa = ldns_rr_list_new();
	size_t it = 0;
	const char *key;
	void *value;
	int rc = 0;

	if (zone == NULL || soa == NULL) {
		ldns_zone_deep_free(zone);
		ldns_rr_list_free(soa);
		return DNSB_ENOMEM;
	}
	while (rc == 0 && dnsb_hmap_next(&s->owners, &it, &key, &value)) {
		owner_node *node = value;
		for (size_t i = 0; rc == 0 && i < node->count; i++) {
			int is_soa = node->sets[i].type == LDNS_RR_TYPE_SOA && strcmp(node->owner, s->apex) == 0;
			rc = dnsb_rrset_to_ldns(is_soa ? soa : ldns_zone_rrs(zone), &node->sets[i], err);
		}
	}
	if (rc == 0 && ldns_rr_list_rr_count(soa) > 0)
		ldns_zone_set_soa(zone, ldns_rr_list_pop_rr(soa));
	ldns_rr_list_deep_free(soa);
	if (rc == 0) {
		ldns_zone_sort(zone);
		ldns_zone_print(f, zone);
		if (ferror(f))
			rc = dnsb_error_set(err, DNSB_EIO, "writing zone %s: %s", s->apex, strerror(errno));
	}
	ldns_zone_deep_free(zone);
	return rc;
}
