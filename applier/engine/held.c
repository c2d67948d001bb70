/*
 * held.c - the engine's use of the quarantine (docs/design.md §5.3): a group whose
 * changes were dropped for conflict is held back, without a request, until
 * its backoff runs out. The whole group is held, whichever of its changes
 * conflicted: a group lands or drops as one (a change in effect beside a
 * held one is not sent, so nothing of a held group is written). The entry's
 * key is the group's content key plus a mask of its changes (held_mask
 * still finds entries keyed by a part of a group).
 * Each group notes what the quarantine did to it (start, again, end) for the
 * logs; a change still held is logged by no one (outcome.c). Drops decided
 * before sending (invalid, no_zone) are noted with the same backoff, so an
 * unchanged plan does not log them again on every loop either.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/clock.h"
#include "applier/engine/internal.h"
#include "applier/engine/quarantine.h"

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
	return g->count >= DNSB_ENGINE_MASK_BITS ? ~0UL : (1UL << g->count) - 1;
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
	for (unsigned long m = 1; g->count < DNSB_ENGINE_MASK_BITS && m < full; m++)
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

		if (g->key == NULL || !dnsb_engine_group_open(g) || (mask = held_mask(e, g, t)) == 0)
			continue;
		/* The whole group, whichever of its changes conflicted: a group lands or drops as one. */
		for (size_t k = 0; k < g->count; k++) {
			dnsb_change *c = g->changes[k];
			if (c->outcome == DNSB_OUTCOME_PENDING)
				dnsb_engine_settle_change(e, c, DNSB_OUTCOME_DROPPED, DNSB_REASON_QUARANTINED, 0, NULL,
							  "conflicted before; held back until its quarantine ends");
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
			mask |= k >= DNSB_ENGINE_MASK_BITS ? all_changes(g) : 1UL << k;
	}
	/* A group is held whole (hold_back), and so keyed whole. */
	return mask != 0 ? all_changes(g) : 0;
}

static int group_in_effect_now(const group *g)
{
	for (size_t k = 0; k < g->count; k++)
		if (g->changes[k]->outcome != DNSB_OUTCOME_APPLIED &&
		    g->changes[k]->outcome != DNSB_OUTCOME_ALREADY_APPLIED)
			return 0;
	return 1;
}

/*
 * What a held group is, for GET /quarantine: its changes and, from the change
 * that conflicted, what is in the way, whose it is and the provider's words.
 * @return a new record, or NULL (ENOMEM: the entry just has none)
 */
static dnsb_held_record *describe(engine *e, const group *g)
{
	const dnsb_change *why = NULL;

	for (size_t k = 0; why == NULL && k < g->count; k++)
		if (g->changes[k]->outcome == DNSB_OUTCOME_DROPPED && g->changes[k]->reason == DNSB_REASON_CONFLICT)
			why = g->changes[k];
	return dnsb_held_record_new(dnsb_engine_zone_name(e, g->zone), (const dnsb_change *const *)g->changes,
				    g->count, why);
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
			dnsb_quarantine_describe(e->o->quarantine, k, describe(e, g), dnsb_clock_wall(e->clock));
		if (rc < 0)
			e->rc = DNSB_ENOMEM;
		else
			g->qevent = rc == 0 ? DNSB_DROPLOG_QUARANTINE_START : DNSB_DROPLOG_QUARANTINE_AGAIN;
		g->qmask = mask;
		free(k);
	} else if (group_in_effect_now(g)) {
		unsigned long full = all_changes(g);
		for (unsigned long m = g->count < DNSB_ENGINE_MASK_BITS ? 1 : full; m <= full && m != 0; m++) {
			if ((k = held_key(g, m)) != NULL && dnsb_quarantine_release(e->o->quarantine, k)) {
				g->qevent = DNSB_DROPLOG_QUARANTINE_END;
				g->qmask |= m;
			}
			free(k);
		}
	}
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
		dnsb_drop_key(key, sizeof(key), c);
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
