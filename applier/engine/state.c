/*
 * state.c - the engine's state as every stage reads it: the clock and the
 * time left, zone names and report slots, a change's detail and owner, a
 * group's state. The ground floor of applier/engine/: it calls no other
 * engine file, so the stages call down to it and never back up to engine.c.
 */
#include <stdlib.h>
#include <string.h>

#include "applier/engine/internal.h"

double dnsb_engine_now(engine *e)
{
	return e->clock->now(e->clock->payload);
}

double dnsb_engine_time_left(engine *e)
{
	double left;

	if (e->deadline <= 0)
		return 0;
	left = e->deadline - dnsb_engine_now(e);
	return left > 1e-3 ? left : 1e-3; /* never 0, which means "no limit" */
}

const char *dnsb_engine_zone_name(const engine *e, size_t zone)
{
	return zone < e->zone_count ? dnsb_provider_zone(e->p, zone) : "";
}

dnsb_zone_report *dnsb_engine_zone_report(engine *e, size_t zone)
{
	size_t idx = zone < e->zone_count ? zone : e->zone_count;

	if (e->zone_slot[idx] < 0) {
		dnsb_zone_report *z = &e->rep->zones[e->rep->zone_count];
		memset(z, 0, sizeof(*z));
		z->zone = strdup(dnsb_engine_zone_name(e, zone));
		if (z->zone == NULL)
			e->rc = DNSB_ENOMEM;
		e->zone_slot[idx] = (long)e->rep->zone_count++;
	}
	return &e->rep->zones[e->zone_slot[idx]];
}

int dnsb_engine_set_detail(dnsb_change *c, int status, const char *code, const char *message)
{
	c->status = status;
	free(c->code);
	free(c->message);
	c->code = code && *code ? strdup(code) : NULL;
	c->message = message && *message ? strdup(message) : NULL;
	return (code && *code && c->code == NULL) || (message && *message && c->message == NULL) ? DNSB_ENOMEM : 0;
}

const char *dnsb_change_owner(const dnsb_change *c)
{
	return c->kind == DNSB_CHANGE_DELETE ? c->old.owner : c->new_set.owner;
}

int dnsb_engine_group_open(const group *g)
{
	for (size_t i = 0; i < g->count; i++)
		if (g->changes[i]->outcome == DNSB_OUTCOME_PENDING)
			return 1;
	return 0;
}

/* As held.c's masks read: past DNSB_ENGINE_MASK_BITS a change is held with any other. */
int dnsb_engine_in_mask(const group *g, size_t k, unsigned long mask)
{
	(void)g;
	return mask != 0 && (k >= DNSB_ENGINE_MASK_BITS || (mask >> k) & 1);
}

/* A predicate on one change, read by noop.c and outcome.c alike: here, below both. */
int dnsb_engine_change_noop(const dnsb_change *c, int strict)
{
	if (c->kind != DNSB_CHANGE_UPDATE || !dnsb_rrset_same_data(&c->old, &c->new_set))
		return 0;
	if (c->old.alias != DNSB_ALIAS_NONE || c->old.ttl == c->new_set.ttl)
		return 1;
	return !strict && c->old.ttl == DNSB_TTL_UNSET;
}
