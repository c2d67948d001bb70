/*
 * precheck.c - the pre-check of the unconditional backends (pdns,
 * cloudflare): the batch replayed over the RRsets the zone holds, in order,
 * every change whose condition fails named at once (one read finds them
 * all; the services would report only the first error of a write); and the
 * race check of a read-back after the write.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "providers/precheck.h"

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

/* Check one change against the replayed state and, when it holds, move the state on. */
static int replay(dnsb_precheck *p, size_t *cap, dnsb_rrset_list *keys, const dnsb_change *c,
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
	if (c->kind != DNSB_CHANGE_CREATE)
		p->entries[from].final = NULL;
	if (c->kind != DNSB_CHANGE_DELETE)
		p->entries[to].final = &c->new_set;
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

int dnsb_precheck_run(dnsb_precheck *patch, dnsb_result *res, dnsb_change *const *changes, size_t n,
		    const dnsb_rrset_list *held, const dnsb_rrset_list *disabled)
{
	size_t cap = 0, named = 0, first = 0;
	dnsb_precheck_mismatch why, first_why = DNSB_PRECHECK_MATCH;
	dnsb_rrset_list keys = { 0 };

	memset(patch, 0, sizeof(*patch));
	dnsb_result_init(res);
	for (size_t i = 0; i < n; i++) {
		if (replay(patch, &cap, &keys, changes[i], held, disabled, &why) != 0) {
			dnsb_rrset_list_clear(&keys);
			dnsb_precheck_clear(patch);
			return DNSB_ENOMEM;
		}
		if (why == DNSB_PRECHECK_MATCH)
			continue;
		if (named++ == 0) {
			first = i;
			first_why = why;
		}
		culprit(res, i, changes[i], why, disabled);
	}
	if (named > 0) {
		const dnsb_change *c = changes[first];
		const dnsb_rrset *r = c->kind == DNSB_CHANGE_CREATE ? &c->new_set : &c->old;
		char off[256];

		disabled_text(off, sizeof(off), disabled, r->owner, r->type);
		dnsb_result_set(res, DNSB_CLASS_CONFLICT, 0, "precheck", "%s %s %s: %s%s%s", kind_name(c->kind), r->owner,
				dnsb_type_name(r->type), mismatch_text(first_why), off,
				named > 1 ? " (and more changes of the batch: each named)" : "");
	}
	dnsb_rrset_list_clear(&keys);
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
