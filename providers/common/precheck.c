/*
 * precheck.c - the pre-check of the unconditional backends (pdns,
 * cloudflare): the batch replayed over the RRsets the zone holds, in order,
 * every change whose condition fails named at once (one read finds them
 * all; the services would report only the first error of a write), and
 * every change that would break a rule every DNS service enforces; and the
 * race check of a read-back after the write.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "providers/common/precheck.h"

/*
 * What one owner name holds in the replayed state, for the rules every
 * service enforces: the RRsets of data beside a CNAME (RFC 1034 §3.6.2; the
 * DNSSEC records RFC 4035 §2.5 allows there aside), and at the apex (the
 * name the read shows holding the SOA) its NS.
 */
typedef struct name_state {
	unsigned cname;  /* CNAME RRsets (0 or 1) */
	unsigned data;   /* RRsets of any other type but RRSIG, NSEC, NSEC3 */
	unsigned ns;     /* NS RRsets */
	int apex;        /* the read shows the SOA here */
	int ns_held;     /* the read shows an NS RRset here */
	int cname_written; /* a change of the batch writes a CNAME here */
} name_state;

/* The owner names of a batch, each with its state: names' items mirror states by position. */
typedef struct names {
	dnsb_rrset_list keys;  /* (owner, type 0) */
	name_state *states;
	size_t cap;
} names;

static void names_clear(names *n)
{
	dnsb_rrset_list_clear(&n->keys);
	free(n->states);
	memset(n, 0, sizeof(*n));
}

/* The state of `owner`, or NULL when it is not a name of the batch. */
static name_state *name_of(names *n, const char *owner)
{
	const dnsb_rrset *known = dnsb_rrset_list_find(&n->keys, owner, 0);

	return known ? &n->states[known - n->keys.items] : NULL;
}

/* Add `owner` (once). @return 0 or DNSB_ENOMEM */
static int name_add(names *n, const char *owner)
{
	dnsb_rrset key = { 0 };

	if (name_of(n, owner) != NULL)
		return 0;
	if (n->keys.count == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 16;
		name_state *grown = realloc(n->states, cap * sizeof(*grown));
		if (grown == NULL)
			return DNSB_ENOMEM;
		n->states = grown;
		n->cap = cap;
	}
	if ((key.owner = strdup(owner)) == NULL || dnsb_rrset_list_push(&n->keys, &key) != 0) {
		free(key.owner);
		return DNSB_ENOMEM;
	}
	memset(&n->states[n->keys.count - 1], 0, sizeof(name_state));
	return 0;
}

/* Count an RRset of `type` in or out (delta +1 / -1) of its name's state. */
static void name_count(name_state *st, uint16_t type, int delta)
{
	if (st == NULL || type == LDNS_RR_TYPE_RRSIG || type == LDNS_RR_TYPE_NSEC || type == LDNS_RR_TYPE_NSEC3)
		return;
	if (type == LDNS_RR_TYPE_CNAME)
		st->cname += (unsigned)delta;
	else
		st->data += (unsigned)delta;
	if (type == LDNS_RR_TYPE_NS)
		st->ns += (unsigned)delta;
}

/* The names the batch touches, with what the read shows at each. @return 0 or DNSB_ENOMEM */
static int names_read(names *n, dnsb_change *const *changes, size_t count, const dnsb_rrset_list *held)
{
	for (size_t i = 0; i < count; i++) {
		const dnsb_change *c = changes[i];
		if ((c->kind != DNSB_CHANGE_CREATE && name_add(n, c->old.owner) != 0) ||
		    (c->kind != DNSB_CHANGE_DELETE && name_add(n, c->new_set.owner) != 0))
			return DNSB_ENOMEM;
	}
	for (size_t i = 0; held && i < held->count; i++) {
		name_state *st = name_of(n, held->items[i].owner);
		name_count(st, held->items[i].type, +1);
		if (st && held->items[i].type == LDNS_RR_TYPE_SOA)
			st->apex = 1;
		if (st && held->items[i].type == LDNS_RR_TYPE_NS)
			st->ns_held = 1;
	}
	return 0;
}

void dnsb_precheck_clear(dnsb_precheck *patch)
{
	if (patch == NULL)
		return;
	free(patch->entries);
	memset(patch, 0, sizeof(*patch));
}

/*
 * The index of the entry of (owner, type), added with what is held when new;
 * SIZE_MAX when out of memory. `keys` mirrors the entries as empty RRsets: the
 * list's owner index makes each lookup O(1) in a batch of thousands.
 */
static size_t entry(dnsb_precheck *p, size_t *cap, dnsb_rrset_list *keys, const char *owner, uint16_t type,
		    const dnsb_rrset_list *held, const dnsb_rrset_list *disabled)
{
	const dnsb_rrset *known = dnsb_rrset_list_find(keys, owner, type);
	dnsb_rrset key = { 0 };
	dnsb_precheck_entry *e;

	if (known != NULL)
		return (size_t)(known - keys->items);
	if (p->count == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 16;
		dnsb_precheck_entry *grown = realloc(p->entries, grown_cap * sizeof(*grown));
		if (grown == NULL)
			return SIZE_MAX;
		p->entries = grown;
		*cap = grown_cap;
	}
	key.type = type;
	if ((key.owner = strdup(owner)) == NULL || dnsb_rrset_list_push(keys, &key) != 0) {
		free(key.owner);
		return SIZE_MAX;
	}
	e = &p->entries[p->count];
	e->owner = owner;
	e->type = type;
	e->held = held ? dnsb_rrset_list_find(held, owner, type) : NULL;
	e->final = e->held;
	e->disabled = disabled ? dnsb_rrset_list_find(disabled, owner, type) : NULL;
	return p->count++;
}

/* Does the replayed state satisfy an old RRset? */
static dnsb_precheck_mismatch old_state(const dnsb_precheck_entry *e, const dnsb_rrset *old)
{
	if (e->final == NULL)
		return DNSB_PRECHECK_MISSING;
	return dnsb_rrset_matches_old(e->final, old) ? DNSB_PRECHECK_MATCH : DNSB_PRECHECK_DIFFERS;
}

/*
 * Does a change the replay let through break a rule every service enforces,
 * judged on the batch's final state (a batch is written whole: a CNAME
 * deleted anywhere in it no longer stands beside an A it creates)? A CNAME
 * written where other data stays, or at the apex; other data written where
 * a CNAME the batch does not write stays (a CNAME the batch writes is named
 * itself); the apex's NS RRset removed.
 */
static dnsb_precheck_mismatch rules(names *nm, const dnsb_change *c)
{
	const name_state *src = c->kind != DNSB_CHANGE_CREATE ? name_of(nm, c->old.owner) : NULL,
			 *dst = c->kind != DNSB_CHANGE_DELETE ? name_of(nm, c->new_set.owner) : NULL;

	if (src && c->old.type == LDNS_RR_TYPE_NS && src->apex && src->ns_held && src->ns == 0)
		return DNSB_PRECHECK_APEX_NS;
	if (dst == NULL || c->new_set.type == LDNS_RR_TYPE_RRSIG || c->new_set.type == LDNS_RR_TYPE_NSEC ||
	    c->new_set.type == LDNS_RR_TYPE_NSEC3)
		return DNSB_PRECHECK_MATCH;
	if (c->new_set.type == LDNS_RR_TYPE_CNAME)
		return dst->apex ? DNSB_PRECHECK_APEX_CNAME : dst->data > 0 ? DNSB_PRECHECK_CNAME : DNSB_PRECHECK_MATCH;
	return dst->cname > 0 && !dst->cname_written ? DNSB_PRECHECK_CNAME : DNSB_PRECHECK_MATCH;
}

/* Check one change against the replayed state and, when it holds, move the state on. */
static int replay(dnsb_precheck *p, size_t *cap, dnsb_rrset_list *keys, names *nm, const dnsb_change *c,
		  const dnsb_rrset_list *held, const dnsb_rrset_list *disabled, dnsb_precheck_mismatch *why)
{
	size_t from = SIZE_MAX - 1, to = SIZE_MAX - 1;

	*why = DNSB_PRECHECK_MATCH;
	if (c->kind != DNSB_CHANGE_CREATE && (from = entry(p, cap, keys, c->old.owner, c->old.type, held, disabled)) == SIZE_MAX)
		return DNSB_ENOMEM;
	if (c->kind != DNSB_CHANGE_DELETE && (to = entry(p, cap, keys, c->new_set.owner, c->new_set.type, held, disabled)) == SIZE_MAX)
		return DNSB_ENOMEM;
	if (c->kind != DNSB_CHANGE_CREATE)
		*why = old_state(&p->entries[from], &c->old);
	/* A create, or an update to another RRset, must not overwrite one that is held. */
	if (*why == DNSB_PRECHECK_MATCH && c->kind != DNSB_CHANGE_DELETE && to != from && p->entries[to].final != NULL)
		*why = DNSB_PRECHECK_EXISTS;
	if (*why != DNSB_PRECHECK_MATCH)
		return 0;
	if (c->kind != DNSB_CHANGE_CREATE) {
		name_count(name_of(nm, c->old.owner), c->old.type, -1);
		p->entries[from].final = NULL;
	}
	if (c->kind != DNSB_CHANGE_DELETE) {
		name_state *st = name_of(nm, c->new_set.owner);
		if (p->entries[to].final == NULL)
			name_count(st, c->new_set.type, +1);
		if (st && c->new_set.type == LDNS_RR_TYPE_CNAME)
			st->cname_written = 1;
		p->entries[to].final = &c->new_set;
	}
	return 0;
}

static const char *kind_name(dnsb_change_kind kind)
{
	return kind == DNSB_CHANGE_CREATE ? "create" : kind == DNSB_CHANGE_UPDATE ? "update" : "delete";
}

static const char *mismatch_text(dnsb_precheck_mismatch why)
{
	switch (why) {
	case DNSB_PRECHECK_EXISTS:
		return "the RRset exists";
	case DNSB_PRECHECK_MISSING:
		return "the old RRset does not exist";
	case DNSB_PRECHECK_DIFFERS:
		return "the old RRset holds other records or another TTL";
	case DNSB_PRECHECK_CNAME:
		return "a CNAME and other data at one name (RFC 1034 section 3.6.2)";
	case DNSB_PRECHECK_APEX_CNAME:
		return "a CNAME at the zone apex, beside its SOA and NS";
	case DNSB_PRECHECK_APEX_NS:
		return "the zone apex would be left without its NS RRset";
	default:
		return "matches";
	}
}

/* Keep only the entries whose final state differs from what is held. */
static void keep_changed(dnsb_precheck *p)
{
	size_t k = 0;

	for (size_t i = 0; i < p->count; i++) {
		const dnsb_precheck_entry *e = &p->entries[i];
		int same = e->final == e->held ||
			   (e->final && e->held && dnsb_rrset_equal(e->final, e->held));
		if (!same)
			p->entries[k++] = *e;
	}
	p->count = k;
}

/* ", disabled records held: A, B" for the disabled records at (owner, type), into buf ("" when none). */
static void disabled_text(char *buf, size_t size, const dnsb_rrset_list *disabled, const char *owner, uint16_t type)
{
	const dnsb_rrset *d = disabled ? dnsb_rrset_list_find(disabled, owner, type) : NULL;
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; d && i < d->rdata_count && len + 1 < size; i++) {
		int w = snprintf(buf + len, size - len, "%s%s", i ? ", " : " (disabled records held: ", d->rdata[i]);
		len = w < 0 ? size : len + (size_t)w;
	}
	if (d && d->rdata_count > 0 && len + 2 < size)
		snprintf(buf + len, size - len, ")");
}

/* Name change i, with its own finding as the note. */
static void culprit(dnsb_result *res, size_t i, const dnsb_change *c, dnsb_precheck_mismatch why,
		    const dnsb_rrset_list *disabled)
{
	const dnsb_rrset *r = c->kind == DNSB_CHANGE_CREATE ? &c->new_set : &c->old;
	char note[512], off[256];

	disabled_text(off, sizeof(off), disabled, r->owner, r->type);
	snprintf(note, sizeof(note), "%s %s %s: %s%s", kind_name(c->kind), r->owner, dnsb_type_name(r->type),
		 mismatch_text(why), off);
	dnsb_result_add_culprit_note(res, i, note);
}

/* The culprits named so far: how many, and the first with its finding (for the reply's message). */
typedef struct tally {
	size_t named, first;
	dnsb_precheck_mismatch first_why;
} tally;

static void name_one(tally *t, dnsb_result *res, size_t i, dnsb_change *const *changes, dnsb_precheck_mismatch why,
		     const dnsb_rrset_list *disabled)
{
	if (t->named++ == 0) {
		t->first = i;
		t->first_why = why;
	}
	culprit(res, i, changes[i], why, disabled);
}

/* The reply of a pre-check that named culprits: CONFLICT, the first named in the message. */
static void refuse(dnsb_result *res, const tally *t, dnsb_change *const *changes, const dnsb_rrset_list *disabled)
{
	const dnsb_change *c = changes[t->first];
	const dnsb_rrset *r = c->kind == DNSB_CHANGE_CREATE ? &c->new_set : &c->old;
	char off[256];

	disabled_text(off, sizeof(off), disabled, r->owner, r->type);
	dnsb_result_set(res, DNSB_CLASS_CONFLICT, 0, "precheck", "%s %s %s: %s%s%s", kind_name(c->kind), r->owner,
			dnsb_type_name(r->type), mismatch_text(t->first_why), off,
			t->named > 1 ? " (and more changes of the batch: each named)" : "");
}

int dnsb_precheck_run(dnsb_precheck *patch, dnsb_result *res, dnsb_change *const *changes, size_t n,
		    const dnsb_rrset_list *held, const dnsb_rrset_list *disabled)
{
	size_t cap = 0;
	tally t = { 0, 0, DNSB_PRECHECK_MATCH };
	dnsb_precheck_mismatch why;
	dnsb_rrset_list keys = { 0 };
	names nm = { { 0 }, NULL, 0 };
	unsigned char *passed = calloc(n + 1, 1);
	int rc = passed ? names_read(&nm, changes, n, held) : DNSB_ENOMEM;

	memset(patch, 0, sizeof(*patch));
	dnsb_result_init(res);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if ((rc = replay(patch, &cap, &keys, &nm, changes[i], held, disabled, &why)) != 0)
			break;
		passed[i] = why == DNSB_PRECHECK_MATCH;
		if (!passed[i])
			name_one(&t, res, i, changes, why, disabled);
	}
	/* The rules on the batch's final state, now that every change has been replayed. */
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (passed[i] && (why = rules(&nm, changes[i])) != DNSB_PRECHECK_MATCH)
			name_one(&t, res, i, changes, why, disabled);
	if (rc == 0 && t.named > 0)
		refuse(res, &t, changes, disabled);
	free(passed);
	dnsb_rrset_list_clear(&keys);
	names_clear(&nm);
	if (rc != 0) {
		dnsb_precheck_clear(patch);
		return DNSB_ENOMEM;
	}
	keep_changed(patch);
	return 0;
}

/* Is `cur` (NULL: absent) the RRset `want` (NULL: absent)? */
static int same_state(const dnsb_rrset *cur, const dnsb_rrset *want)
{
	if (cur == NULL || want == NULL)
		return cur == want;
	return dnsb_rrset_equal(cur, want);
}

/* "192.0.2.1, 192.0.2.2 (TTL 300)" or "nothing", into buf. */
static void state_text(char *buf, size_t size, const dnsb_rrset *r)
{
	size_t len = 0;

	snprintf(buf, size, "nothing");
	for (size_t i = 0; r && i < r->rdata_count && len + 1 < size; i++) {
		int w = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", r->rdata[i]);
		len = w < 0 ? size : len + (size_t)w;
	}
	if (r && len + 1 < size)
		snprintf(buf + len, size - len, " (TTL %u)", r->ttl);
}

unsigned dnsb_precheck_races(const dnsb_precheck *patch, const dnsb_rrset_list *after, const char *zone)
{
	unsigned races = 0;

	for (size_t i = 0; i < patch->count; i++) {
		const dnsb_precheck_entry *e = &patch->entries[i];
		const dnsb_rrset *cur = dnsb_rrset_list_find(after, e->owner, e->type);
		char now[256], wrote[256];

		if (same_state(cur, e->final) || same_state(cur, e->held))
			continue;
		races++;
		state_text(now, sizeof(now), cur);
		state_text(wrote, sizeof(wrote), e->final);
		dnsb_log(DNSB_LOG_WARN, "race: zone %s: %s %s holds %s after this PATCH wrote %s: another client wrote "
			 "it between the pre-check and the read-back", zone, e->owner, dnsb_type_name(e->type), now, wrote);
	}
	return races;
}

int dnsb_precheck_keys(dnsb_rrkey **out, dnsb_change *const *changes, size_t n)
{
	dnsb_rrkey *keys = calloc(2 * n + 1, sizeof(*keys));
	size_t k = 0;

	if ((*out = keys) == NULL)
		return DNSB_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (changes[i]->kind != DNSB_CHANGE_CREATE)
			keys[k++] = (dnsb_rrkey){ changes[i]->old.owner, DNSB_RRKEY_ANY };
		if (changes[i]->kind != DNSB_CHANGE_DELETE)
			keys[k++] = (dnsb_rrkey){ changes[i]->new_set.owner, DNSB_RRKEY_ANY };
	}
	return (int)k;
}
