/*
 * held.c - the engine's use of the quarantine (DESIGN §5): a group whose
 * changes were dropped for conflict is held back, without a request, until
 * its backoff runs out. Only the changes that conflicted are held: the entry's
 * key is the group's content key plus the set of its conflicting changes, so
 * a change that was in effect beside them is sent (and proved) again.
 * Each group notes what the quarantine did to it (start, again, end) for the
 * logs; a change still held is logged by no one (outcome.c). Drops decided
 * before sending (invalid, no_zone) are noted with the same backoff, so an
 * unchanged plan does not log them again on every loop either.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "applier/core/clock.h"
#include "applier/engine/internal.h"
#include "applier/engine/quarantine.h"

/* Groups up to this size are looked up under every subset of conflicting changes; larger ones only whole. */
#define MASK_BITS 6

/* key + "|" + the held changes as a bit mask, in hex. @return a malloc'd string or NULL */
static char *held_key(const group *g, unsigned long mask)
{
	size_t len = strlen(g->key) + 24;
	char *k = malloc(len);

	if (k != NULL)
		snprintf(k, len, "%s|%lx", g->key, mask);
	return k;
}

static unsigned long all_changes(const group *g)
{
	return g->count >= MASK_BITS ? ~0UL : (1UL << g->count) - 1;
}

/* As hold_back reads a mask: past MASK_BITS a change is held with any other. */
int dnsb_engine_in_mask(const group *g, size_t k, unsigned long mask)
{
	(void)g;
	return mask != 0 && (k >= MASK_BITS || (mask >> k) & 1);
}

static int is_held(engine *e, const group *g, unsigned long mask, double t)
{
	char *k = held_key(g, mask);
	int held = k && dnsb_quarantine_check(e->o->quarantine, k, e->qtoken, t);

	if (k == NULL)
		e->rc = DNSB_ENOMEM;
	free(k);
	return held;
}

/* The mask under which the quarantine holds g now, or 0. The whole group first: the common case. */
static unsigned long held_mask(engine *e, const group *g, double t)
{
	unsigned long full = all_changes(g);

	if (is_held(e, g, full, t))
		return full;
	for (unsigned long m = 1; g->count < MASK_BITS && m < full; m++)
		if (is_held(e, g, m, t))
			return m;
	return 0;
}

/* Before sending: the held changes of held groups are dropped (quarantined) without a request. */
void dnsb_engine_hold_back(engine *e, group *groups, size_t n)
{
	double t = dnsb_engine_now(e);

	for (size_t i = 0; i < n; i++) {
		group *g = &groups[i];
		unsigned long mask;

		if (dnsb_engine_group_key(g) < 0) {
			e->rc = DNSB_ENOMEM;
			continue;
		}
		if (!dnsb_engine_group_open(g) || (mask = held_mask(e, g, t)) == 0)
			continue;
		for (size_t k = 0; k < g->count; k++) {
			dnsb_change *c = g->changes[k];
			if (c->outcome == DNSB_OUTCOME_PENDING && dnsb_engine_in_mask(g, k, mask)) {
				c->outcome = DNSB_OUTCOME_DROPPED;
				c->reason = DNSB_REASON_QUARANTINED;
				dnsb_engine_set_detail(c, 0, NULL, "conflicted before; held back until its quarantine ends");
			}
		}
	}
}

/* The changes of g that conflicted in this apply or are still held, as a mask; 0 when none. */
static unsigned long conflict_mask(const group *g)
{
	unsigned long mask = 0;

	for (size_t k = 0; k < g->count; k++) {
		const dnsb_change *c = g->changes[k];
		if (c->outcome == DNSB_OUTCOME_DROPPED &&
		    (c->reason == DNSB_REASON_CONFLICT || c->reason == DNSB_REASON_QUARANTINED))
			mask |= k >= MASK_BITS ? all_changes(g) : 1UL << k;
	}
	/* A large group is held and looked up whole only (held_mask): never under a part of it. */
	return mask != 0 && g->count >= MASK_BITS ? all_changes(g) : mask;
}

static int group_in_effect_now(const group *g)
{
	for (size_t k = 0; k < g->count; k++)
		if (g->changes[k]->outcome != DNSB_OUTCOME_APPLIED &&
		    g->changes[k]->outcome != DNSB_OUTCOME_ALREADY_APPLIED)
			return 0;
	return 1;
}

static int put_string(json_object *o, const char *key, const char *value)
{
	json_object *v;

	if (value == NULL)
		return 0;
	if ((v = json_object_new_string(value)) == NULL || json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

/*
 * What a held group is, for GET /quarantine: its changes and, from the change
 * that conflicted, what is in the way, whose it is and the provider's words.
 * @return a new object, or NULL (ENOMEM: the entry just has none)
 */
static json_object *describe(engine *e, const group *g)
{
	json_object *d = json_object_new_object(), *changes = json_object_new_array();
	const dnsb_change *why = NULL;
	int fail = d == NULL || changes == NULL || json_object_object_add(d, "changes", changes) != 0;

	if (fail)
		json_object_put(changes);
	fail |= d == NULL || put_string(d, "zone", dnsb_engine_zone_name(e, g->zone)) != 0;
	for (size_t k = 0; !fail && k < g->count; k++) {
		const dnsb_change *c = g->changes[k];
		const dnsb_rrset *r = c->kind == DNSB_CHANGE_DELETE ? &c->old : &c->new_set;
		json_object *one = json_object_new_object();
		size_t len = r->owner ? strlen(r->owner) : 0;
		char name[300];

		snprintf(name, sizeof(name), "%.*s", (int)(len > 1 ? len - 1 : len), r->owner ? r->owner : "");
		fail |= one == NULL || json_object_array_add(changes, one) != 0;
		fail |= !fail && (put_string(one, "kind", c->kind == DNSB_CHANGE_CREATE ? "create" :
						   c->kind == DNSB_CHANGE_UPDATE ? "update" : "delete") != 0 ||
				  put_string(one, "dnsName", name) != 0 ||
				  put_string(one, "recordType", dnsb_type_name(r->type)) != 0);
		if (why == NULL && c->outcome == DNSB_OUTCOME_DROPPED && c->reason == DNSB_REASON_CONFLICT)
			why = c;
	}
	if (!fail && why)
		fail |= put_string(d, "cause", dnsb_cause_name(dnsb_change_cause(why))) != 0 ||
			put_string(d, "owner", why->txt_owner) != 0 || put_string(d, "owner_resource", why->txt_resource) != 0 ||
			put_string(d, "message", why->message) != 0;
	if (fail) {
		json_object_put(d);
		return NULL;
	}
	return d;
}

/*
 * A group that conflicted now is held (longer each time): its quarantine
 * starts, or it had run out and starts again. One in effect is released: a
 * quarantine it had ends.
 */
static void hold_or_release(engine *e, group *g, double t)
{
	int conflicted = 0, rc = DNSB_ENOMEM;
	unsigned long mask = conflict_mask(g);
	char *k;

	for (size_t i = 0; i < g->count; i++)
		conflicted |= g->changes[i]->outcome == DNSB_OUTCOME_DROPPED &&
			      g->changes[i]->reason == DNSB_REASON_CONFLICT;
	if (conflicted) {
		if ((k = held_key(g, mask)) != NULL)
			rc = dnsb_quarantine_hold(e->o->quarantine, k, dnsb_engine_zone_name(e, g->zone), e->qtoken, t,
						  &g->held_for);
		if (rc >= 0)
			dnsb_quarantine_describe(e->o->quarantine, k, describe(e, g), dnsb_wall_clock());
		if (rc < 0)
			e->rc = DNSB_ENOMEM;
		else
			g->qevent = rc == 0 ? DNSB_DROPLOG_QUARANTINE_START : DNSB_DROPLOG_QUARANTINE_AGAIN;
		g->qmask = mask;
		free(k);
	} else if (group_in_effect_now(g)) {
		unsigned long full = all_changes(g);
		for (unsigned long m = g->count < MASK_BITS ? 1 : full; m <= full && m != 0; m++) {
			if ((k = held_key(g, m)) != NULL && dnsb_quarantine_release(e->o->quarantine, k)) {
				g->qevent = DNSB_DROPLOG_QUARANTINE_END;
				g->qmask |= m;
			}
			free(k);
		}
	}
}

/* FNV-1a, 64 bits, from `h`. */
static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/*
 * A drop's key: reason, kind and the endpoints as the plan gave them (not its
 * message, which names the change's place in the plan), hashed to 128 bits so
 * that a huge endpoint costs no memory here. "!" keeps it apart from groups'
 * keys. A collision would only keep one line off the logs.
 */
static void drop_key(char *buf, size_t size, const dnsb_change *c)
{
	/* The plan keeps no endpoint its RRset prints again (dnsb_endpoint_reproduced): print it. */
	json_object *eo = c->endpoint_old ? json_object_get(c->endpoint_old)
			  : c->kind != DNSB_CHANGE_CREATE ? dnsb_rrset_to_endpoint(&c->old) : NULL;
	json_object *en = c->endpoint_new ? json_object_get(c->endpoint_new)
			  : c->kind != DNSB_CHANGE_DELETE ? dnsb_rrset_to_endpoint(&c->new_set) : NULL;
	const char *old = eo ? json_object_to_json_string_ext(eo, JSON_C_TO_STRING_PLAIN) : "";
	const char *new = en ? json_object_to_json_string_ext(en, JSON_C_TO_STRING_PLAIN) : "";
	uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;

	a = fnv1a(fnv1a(fnv1a(a, old ? old : ""), "\x1e"), new ? new : "");
	b = fnv1a(fnv1a(fnv1a(b, new ? new : ""), "\x1e"), old ? old : "");
	snprintf(buf, size, "!%s|%d|%016llx%016llx", dnsb_reason_name(c->reason), (int)c->kind,
		 (unsigned long long)a, (unsigned long long)b);
	json_object_put(eo);
	json_object_put(en);
}

/* Invalid and no_zone drops that an earlier apply logged, while their backoff runs: quiet (e->quiet). */
static void note_drops(engine *e, dnsb_plan *plan, double t)
{
	size_t n = dnsb_plan_count(plan);
	char key[96];

	/* Out of memory: every drop is logged, as without a quarantine. */
	if (n == 0 || (e->quiet = calloc(n, 1)) == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		const dnsb_change *c = dnsb_plan_change(plan, i);
		if (c->outcome != DNSB_OUTCOME_DROPPED || !dnsb_engine_summed(c->reason))
			continue;
		drop_key(key, sizeof(key), c);
		e->quiet[i] = dnsb_quarantine_note(e->o->quarantine, key, dnsb_engine_zone_name(e, c->zone),
						   e->qtoken, t) == 0;
	}
}

/*
 * After the apply: hold or release each group, note the drops decided before
 * sending; entries of this plan's zones ("" for changes in none) that it did
 * not see are forgotten (their groups left the plan).
 */
void dnsb_engine_release_held(engine *e, dnsb_plan *plan, group *groups, size_t n)
{
	dnsb_quarantine *q = e->o->quarantine;
	const char **zones = malloc((e->zone_count + 1) * sizeof(char *));
	char *in_plan = calloc(e->zone_count + 1, 1);
	double t = dnsb_engine_now(e);
	size_t nzones = 0;

	for (size_t i = 0; i < n; i++)
		if (groups[i].key != NULL)
			hold_or_release(e, &groups[i], t);
	note_drops(e, plan, t);
	/* Only this plan's zones: a plan for other zones may be running at the same time. Changes in
	 * no zone share "": two plans with such drops at once forget each other's, which only logs
	 * them once more. */
	for (size_t i = 0; in_plan && i < dnsb_plan_count(plan); i++)
		in_plan[dnsb_plan_change(plan, i)->zone] = 1;
	for (size_t z = 0; zones && in_plan && z <= e->zone_count; z++)
		if (in_plan[z])
			zones[nzones++] = dnsb_engine_zone_name(e, z);
	if (zones && in_plan)
		dnsb_quarantine_end(q, e->qtoken, zones, nzones);
	else
		e->rc = DNSB_ENOMEM;
	free(in_plan);
	free(zones);
	dnsb_metrics_set_quarantined(e->o->metrics, dnsb_quarantine_count(q, t));
}
