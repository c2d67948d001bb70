/* zones.c - each change to the configured zone with the longest matching apex (docs/design.md §2). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "applier/core/par.h"
#include "applier/engine/internal.h"

static int holds_alias(const dnsb_change *c)
{
	return (c->kind != DNSB_CHANGE_CREATE && c->old.alias != DNSB_ALIAS_NONE) ||
	       (c->kind != DNSB_CHANGE_DELETE && c->new_set.alias != DNSB_ALIAS_NONE);
}

/* The set identifier the change carries, or NULL. */
static const char *set_id_of(const dnsb_change *c)
{
	return c->kind != DNSB_CHANGE_DELETE && c->new_set.set_id ? c->new_set.set_id :
	       c->kind != DNSB_CHANGE_CREATE ? c->old.set_id : NULL;
}

/* Does the change hold a provider property (those of DNSB_ROUTING_PROPERTIES past the routing ones)? */
static int holds_property(const dnsb_change *c)
{
	static const char *const names[DNSB_ROUTING_PROPERTY_COUNT] = DNSB_ROUTING_PROPERTIES;
	size_t len;

	for (size_t i = DNSB_ROUTING_SET_PROPERTY_COUNT; i < DNSB_ROUTING_PROPERTY_COUNT; i++)
		if ((c->kind != DNSB_CHANGE_CREATE && dnsb_routing_get(c->old.routing, names[i], &len)) ||
		    (c->kind != DNSB_CHANGE_DELETE && dnsb_routing_get(c->new_set.routing, names[i], &len)))
			return 1;
	return 0;
}

/* The provider's canonical form of the change's provider properties.
 * @return 0, DNSB_EINVAL (a type it writes no record of) or DNSB_ENOMEM */
static int resolve_properties(dnsb_change *c, const dnsb_provider_limits *limits)
{
	int rc = 0;

	if (c->kind != DNSB_CHANGE_CREATE)
		rc = limits->properties(limits->properties_ctx, &c->old);
	if (rc == 0 && c->kind != DNSB_CHANGE_DELETE)
		rc = limits->properties(limits->properties_ctx, &c->new_set);
	return rc;
}

/* An alias that did not say whether to evaluate its target's health gets the provider's default. */
static void resolve_health(dnsb_change *c, int health)
{
	dnsb_rrset *sets[2] = { &c->old, &c->new_set };

	for (size_t i = 0; i < 2; i++)
		if (sets[i]->alias == DNSB_ALIAS_DEFAULT)
			sets[i]->alias = health ? DNSB_ALIAS_HEALTH : DNSB_ALIAS_PLAIN;
}

/*
 * A change in no zone is dropped (no_zone) before anything is sent; so is
 * an alias, a set identifier or a provider property (invalid) for a provider
 * that cannot store one; a provider that stores properties resolves their
 * defaults here. An alias that did
 * not say how to treat its target's health gets the provider's default here.
 */
/* The type of the RRset the change writes, for messages. */
static const char *type_of(const dnsb_change *c)
{
	return dnsb_type_name(c->kind == DNSB_CHANGE_DELETE ? c->old.type : c->new_set.type);
}

/* A change no batch will carry: dropped before anything is sent, for `reason`, with `msg`.
 * @return 0 or DNSB_ENOMEM (dnsb_engine_settle_change, told by the parallel pass) */
static int drop_unsent(dnsb_change *c, dnsb_reason reason, const char *msg)
{
	return dnsb_engine_settle_change(NULL, c, DNSB_OUTCOME_DROPPED, reason, 0, NULL, msg);
}

/* @return 0, or DNSB_ENOMEM when c's settlement could not keep its detail */
static int map_change(const engine *e, dnsb_change *c)
{
	const char *owner = dnsb_change_owner(c);
	long z = owner ? dnsb_provider_zone_for(e->p, owner) : -1;
	char msg[512];
	int rc = 0;

	c->zone = z < 0 ? e->zone_count : (size_t)z;
	if (c->outcome != DNSB_OUTCOME_PENDING)
		return 0;
	if (z < 0) {
		snprintf(msg, sizeof(msg), "no configured zone holds %s", owner);
		return drop_unsent(c, DNSB_REASON_NO_ZONE, msg);
	}
	if (e->limits->aliases && holds_alias(c))
		resolve_health(c, e->limits->alias_health);
	if (!e->limits->aliases && holds_alias(c)) {
		snprintf(msg, sizeof(msg), "%s %s is an alias (providerSpecific alias=true): provider %s "
			 "stores no aliases (Route53's AliasTarget; use --provider aws)", owner, type_of(c),
			 dnsb_provider_name(e->p));
		return drop_unsent(c, DNSB_REASON_INVALID, msg);
	}
	if (!e->limits->set_ids && set_id_of(c) != NULL) {
		snprintf(msg, sizeof(msg), "%s %s: setIdentifier '%s' (a routing policy): provider %s stores no "
			 "set identifiers (use --provider aws)", owner, type_of(c), set_id_of(c), dnsb_provider_name(e->p));
		return drop_unsent(c, DNSB_REASON_INVALID, msg);
	}
	if (e->limits->properties == NULL && holds_property(c)) {
		snprintf(msg, sizeof(msg), "%s %s: providerSpecific %s or %s: provider %s stores no such "
			 "property (use --provider cloudflare)", owner, type_of(c), DNSB_PROPERTY_CF_PROXIED,
			 DNSB_PROPERTY_CF_COMMENT, dnsb_provider_name(e->p));
		return drop_unsent(c, DNSB_REASON_INVALID, msg);
	}
	if (e->limits->properties && (rc = resolve_properties(c, e->limits)) == DNSB_EINVAL) {
		snprintf(msg, sizeof(msg), "%s %s: provider %s writes no record of this type", owner, type_of(c),
			 dnsb_provider_name(e->p));
		return drop_unsent(c, DNSB_REASON_INVALID, msg);
	}
	if (rc != 0)
		return dnsb_engine_settle_change(NULL, c, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, 0, NULL,
						 "out of memory resolving provider properties");
	/* An ownership record joins its owner's group only inside one zone. */
	if (c->owned_record && dnsb_provider_zone_for(e->p, c->owned_record) != z) {
		free(c->owned_record);
		c->owned_record = NULL;
	}
	return 0;
}

typedef struct map_pass {
	const engine *e;
	dnsb_plan *plan;
	atomic_int nomem;        /* a change ran out of memory (both halves may tell it) */
} map_pass;

static void map_one(void *ctx, size_t i)
{
	map_pass *m = ctx;

	if (map_change(m->e, dnsb_plan_change(m->plan, i)) != 0)
		atomic_store(&m->nomem, 1);
}

/* Each change on its own: a long plan is mapped in two halves at once (dnsb_par_for). */
void dnsb_engine_map_zones(engine *e, dnsb_plan *plan)
{
	map_pass m = { e, plan, 0 };

	dnsb_par_for(dnsb_plan_count(plan), map_one, &m);
	if (atomic_load(&m.nomem) && e->rc == 0)
		e->rc = dnsb_error_set(e->err, DNSB_ENOMEM, "out of memory mapping the plan's changes to zones");
}
