/*
 * verify.c - reading back what the provider holds and judging it (docs/design.md §3.3,
 * verify before drop): is a group's whole desired final state in effect, and
 * does the read show why a group was refused? Three values: in effect, not in
 * effect, unknown (the read could not be made).
 */
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "applier/core/array.h"
#include "applier/core/provider.h"
#include "applier/engine/diagnose.h"
#include "applier/engine/internal.h"

typedef struct keys {
	dnsb_rrkey *at;
	size_t n, cap;
	char **names;      /* owned: the registry names the keys point at */
	size_t names_n, names_cap;
} keys;

static int add_key(keys *k, const char *owner, uint16_t type)
{
	for (size_t i = k->n; i > 0 && i + 8 > k->n; i--)
		if (k->at[i - 1].type == type && strcmp(k->at[i - 1].owner, owner) == 0)
			return 0; /* the group's last few keys: the usual repeats */
	if (DNSB_ARRAY_RESERVE(k->at, k->cap, k->n + 1, 16) < 0)
		return DNSB_ENOMEM;
	k->at[k->n].owner = owner;
	k->at[k->n++].type = type;
	return 0;
}

/* Keep a malloc'd name for the keys' life. @return 0 or DNSB_ENOMEM (name freed) */
static int keep_name(keys *k, char *name)
{
	if (DNSB_ARRAY_RESERVE(k->names, k->names_cap, k->names_n + 1, 16) < 0) {
		free(name);
		return DNSB_ENOMEM;
	}
	k->names[k->names_n++] = name;
	return 0;
}

static void keys_clear(keys *k)
{
	for (size_t i = 0; i < k->names_n; i++)
		free(k->names[i]);
	free(k->names);
	free(k->at);
}

/*
 * The RRsets a group touches and a CNAME at each owner it adds to (the usual
 * cause of a refused create). Before a drop (`diagnose`), also every RRset at
 * those owner names (ANY: what to show as in the way; a server may answer ANY
 * in part, so the judgement never rests on it) and the ownership TXT records
 * external-dns's registry keeps for them (diagnose.c).
 */
static int group_keys(keys *k, const group *g, int diagnose)
{
	int rc = 0;

	for (size_t j = 0; rc == 0 && j < g->count; j++) {
		const dnsb_change *c = g->changes[j];
		char *names[4];
		size_t n = 0;

		if (c->kind != DNSB_CHANGE_CREATE)
			rc = add_key(k, c->old.owner, c->old.type);
		if (rc == 0 && c->kind != DNSB_CHANGE_DELETE)
			rc = add_key(k, c->new_set.owner, c->new_set.type);
		if (rc == 0 && c->kind != DNSB_CHANGE_DELETE && c->new_set.type != LDNS_RR_TYPE_CNAME)
			rc = add_key(k, c->new_set.owner, LDNS_RR_TYPE_CNAME);
		if (!diagnose)
			continue;
		if (rc == 0)
			rc = add_key(k, c->kind == DNSB_CHANGE_DELETE ? c->old.owner : c->new_set.owner, DNSB_RRKEY_ANY);
		if (rc == 0)
			rc = dnsb_engine_registry_names(g, c, names, 4, &n);
		for (size_t i = 0; i < n; i++) {
			if (rc != 0)
				free(names[i]);
			else if ((rc = keep_name(k, names[i])) == 0) /* keep_name frees it on failure */
				rc = add_key(k, names[i], LDNS_RR_TYPE_TXT);
		}
	}
	return rc;
}

/*
 * Read back every RRset the groups touch, in one read, after the provider's
 * pacing and only while the deadline leaves time.
 * @return 0 with `held` filled, or a negative code (detail in rerr)
 */
int dnsb_engine_read_back(engine *e, group **gs, size_t n, int diagnose, dnsb_rrset_list *held, dnsb_error *rerr)
{
	const char *zone = dnsb_engine_zone_name(e, gs[0]->zone);
	double secs = 0, wait = dnsb_engine_pacing_wait(e);
	keys k = { NULL, 0, 0, NULL, 0, 0 };
	int rc = 0;

	if (e->deadline > 0 && dnsb_engine_now(e) + (wait > 0 ? wait : 0) >= e->deadline)
		return dnsb_error_set(rerr, DNSB_EDEADLINE, "no time left before the deadline to read back");
	if (dnsb_engine_wait(e, wait))
		return dnsb_error_set(rerr, DNSB_EDEADLINE, "the apply was stopped (a signal) before the read-back");
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = group_keys(&k, gs[i], diagnose);
	if (rc == 0)
		rc = dnsb_provider_read(e->p, zone, k.at, k.n, dnsb_engine_time_left(e), held, &secs, rerr);
	keys_clear(&k);
	if (rc == DNSB_ENOMEM)
		e->rc = rc;
	e->rep->reads++;
	dnsb_engine_zone_report(e, gs[0]->zone)->reads++;
	dnsb_metrics_request(e->o->metrics, dnsb_provider_name(e->p), "read",
			     rc == 0 ? "ok" : rc == DNSB_ETRANSIENT ? "transient" : "fatal", secs);
	return rc;
}

/* Is `held` the RRset `want`? TTL 0 asks for none in particular; a provider may declare it does not store TTLs exactly. */
static int holds(const engine *e, const dnsb_rrset *held, const dnsb_rrset *want)
{
	if (held == NULL || !dnsb_rrset_same_data(held, want))
		return 0;
	return want->ttl == 0 || e->limits->ttl_inexact || held->ttl == want->ttl;
}

/*
 * The group's desired final state at (owner, type): the RRset its last
 * change there writes, or NULL when the group deletes it and does not write it
 * again. Changes are in order: deletions, updates, creations.
 */
/* Is `r` keyed (owner, type, set_id)? A NULL or "" set identifier is none. */
static int keyed(const dnsb_rrset *r, const char *owner, uint16_t type, const char *set_id)
{
	return r->type == type && strcmp(r->owner, owner) == 0 &&
	       strcmp(r->set_id ? r->set_id : "", set_id ? set_id : "") == 0;
}

static const dnsb_rrset *desired(const group *g, const char *owner, uint16_t type, const char *set_id)
{
	const dnsb_rrset *want = NULL;

	for (size_t i = 0; i < g->count; i++) {
		const dnsb_change *c = g->changes[i];
		if (c->kind != DNSB_CHANGE_CREATE && keyed(&c->old, owner, type, set_id))
			want = NULL;
		if (c->kind != DNSB_CHANGE_DELETE && keyed(&c->new_set, owner, type, set_id))
			want = &c->new_set;
	}
	return want;
}

static int key_in_effect(const engine *e, const group *g, const dnsb_rrset *key, const dnsb_rrset_list *held)
{
	const dnsb_rrset *want = desired(g, key->owner, key->type, key->set_id),
			 *cur = dnsb_rrset_list_find_set(held, key->owner, key->type, key->set_id);

	return want ? holds(e, cur, want) : cur == NULL;
}

int dnsb_engine_change_in_effect(const engine *e, const group *g, const dnsb_change *c, const dnsb_rrset_list *held)
{
	if (c->kind != DNSB_CHANGE_CREATE && !key_in_effect(e, g, &c->old, held))
		return 0;
	return c->kind == DNSB_CHANGE_DELETE || key_in_effect(e, g, &c->new_set, held);
}

int dnsb_engine_group_in_effect(const engine *e, const group *g, const dnsb_rrset_list *held)
{
	for (size_t i = 0; i < g->count; i++)
		if (g->changes[i]->outcome == DNSB_OUTCOME_PENDING && !dnsb_engine_change_in_effect(e, g, g->changes[i], held))
			return 0;
	return 1;
}

/* Does an earlier pending change of g delete (owner, type)? */
static int removed_before(const group *g, size_t upto, const char *owner, uint16_t type, const char *set_id)
{
	for (size_t i = 0; i < upto; i++) {
		const dnsb_change *c = g->changes[i];
		if (c->outcome == DNSB_OUTCOME_PENDING && c->kind != DNSB_CHANGE_CREATE &&
		    keyed(&c->old, owner, type, set_id))
			return 1;
	}
	return 0;
}

/*
 * Does the read show why the group's pending changes were refused? An old
 * RRset missing or holding other data, a new RRset that exists already, or a
 * CNAME in the way of new data. Only then may a group that was never refused
 * on its own be dropped without a submission of its own.
 */
int dnsb_engine_cause_shown(const engine *e, const group *g, const dnsb_rrset_list *held)
{
	for (size_t i = 0; i < g->count; i++) {
		const dnsb_change *c = g->changes[i];
		const dnsb_rrset *cur;

		if (c->outcome != DNSB_OUTCOME_PENDING)
			continue;
		if (c->kind != DNSB_CHANGE_CREATE &&
		    !holds(e, dnsb_rrset_list_find_set(held, c->old.owner, c->old.type, c->old.set_id), &c->old))
			return 1;
		if (c->kind == DNSB_CHANGE_DELETE)
			continue;
		cur = dnsb_rrset_list_find_set(held, c->new_set.owner, c->new_set.type, c->new_set.set_id);
		if (cur && !removed_before(g, i, c->new_set.owner, c->new_set.type, c->new_set.set_id))
			return 1;
		if (c->new_set.type != LDNS_RR_TYPE_CNAME &&
		    dnsb_rrset_list_find(held, c->new_set.owner, LDNS_RR_TYPE_CNAME) != NULL &&
		    !removed_before(g, i, c->new_set.owner, LDNS_RR_TYPE_CNAME, NULL))
			return 1;
		/* A CNAME where other data is held (seen when the read asked for every type at the owner). */
		for (size_t k = 0; c->new_set.type == LDNS_RR_TYPE_CNAME && k < held->count; k++) {
			const dnsb_rrset *o = &held->items[k];
			if (o->type != LDNS_RR_TYPE_CNAME && o->type != LDNS_RR_TYPE_RRSIG && o->type != LDNS_RR_TYPE_NSEC &&
			    o->type != LDNS_RR_TYPE_NSEC3 && strcmp(o->owner, c->new_set.owner) == 0 &&
			    !removed_before(g, i, o->owner, o->type, o->set_id))
				return 1;
		}
	}
	return 0;
}

verdict dnsb_engine_verify(engine *e, group **gs, size_t n, verdict *each, dnsb_error *rerr)
{
	dnsb_rrset_list held = { 0 };
	verdict all = IN_EFFECT;

	if (dnsb_engine_read_back(e, gs, n, 0, &held, rerr) < 0) {
		dnsb_rrset_list_clear(&held);
		return UNKNOWN;
	}
	for (size_t i = 0; i < n; i++) {
		verdict v = dnsb_engine_group_in_effect(e, gs[i], &held) ? IN_EFFECT : NOT_IN_EFFECT;
		if (each)
			each[i] = v;
		if (v != IN_EFFECT)
			all = NOT_IN_EFFECT;
	}
	dnsb_rrset_list_clear(&held);
	return all;
}

void dnsb_engine_settle_verified(engine *e, group **gs, size_t n, const verdict *each, const dnsb_result *res)
{
	size_t settled = 0;

	for (size_t i = 0; i < n; i++) {
		if (each[i] != IN_EFFECT)
			continue;
		dnsb_engine_finish(e, gs[i], DNSB_OUTCOME_ALREADY_APPLIED, DNSB_REASON_NONE, res, NULL);
		settled++;
	}
	if (settled > 0)
		dnsb_log(DNSB_LOG_INFO, "zone %s: read back after a transient error%s%s: %zu of %zu groups already in effect",
			 dnsb_engine_zone_name(e, gs[0]->zone), res ? ", then " : "", res ? dnsb_class_name(res->cls) : "",
			 settled, n);
}
