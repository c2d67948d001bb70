/*
 * noop.c - changes that write nothing, and the TXT registry's format upgrade.
 *
 * An update whose old and new RRsets hold the same data (external-dns's
 * txt/force-update sends them) asks for no write. A group made only of such
 * updates is not submitted: one read per batch proves it in effect
 * (already_applied, no serial bump, no UPDATE, no HTTP write). The update does
 * not prove the RRset exists, so the read is needed; a group the read does not
 * prove is sent as it is and the provider's answer settles it. A group that
 * writes anyway carries its no-op updates in the same atomic submission: the
 * provider checks their old RRsets there, at no extra request.
 *
 * external-dns v0.22's registry (registry/txt/registry.go) migrates ownership
 * records from the old format (a TXT at the record's own name) to the new
 * one ("a-" + name): it marks the record txt/force-update and sends an update
 * of the record and of its new-format TXT, whose old RRset does not exist yet.
 * Such an update (an ownership TXT whose old RRset is absent while the record
 * it owns is as the group expects) is sent as a create of the new TXT: a
 * create is conditional on absence, so nothing anyone wrote is overwritten,
 * and the old-format TXT is kept, as external-dns keeps it.
 */
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "applier/core/array.h"
#include "applier/engine/internal.h"

/* Every pending change of g is a no-op update (TTL unset allowed: the read judges it). */
static int quiet_group(const group *g)
{
	size_t pending = 0;

	for (size_t i = 0; i < g->count; i++) {
		if (g->changes[i]->outcome != DNSB_OUTCOME_PENDING)
			continue;
		if (!dnsb_engine_change_noop(g->changes[i], 0))
			return 0;
		pending++;
	}
	return pending > 0;
}

/* Is the record c owns (an ownership TXT's labels.ownedRecord) as g expects it: in effect, or its old RRset held? */
static int owned_record_matches(const engine *e, const group *g, const dnsb_change *c, const dnsb_rrset_list *held)
{
	int found = 0;

	for (size_t i = 0; i < g->count; i++) {
		const dnsb_change *o = g->changes[i];
		const dnsb_rrset *r = o->kind == DNSB_CHANGE_DELETE ? &o->old : &o->new_set, *cur;

		if (o == c || o->owned_record != NULL || strcmp(r->owner, c->owned_record) != 0)
			continue;
		if (o->kind == DNSB_CHANGE_CREATE)
			return 0; /* a record still to be made has no ownership record to upgrade */
		cur = dnsb_rrset_list_find(held, o->old.owner, o->old.type);
		if (!dnsb_engine_change_in_effect(e, g, o, held) && (cur == NULL || !dnsb_rrset_matches_old(cur, &o->old)))
			return 0;
		found = 1;
	}
	return found;
}

int dnsb_engine_registry_upgrade(const engine *e, const group *g, const dnsb_change *c, const dnsb_rrset_list *held)
{
	if (c->outcome != DNSB_OUTCOME_PENDING || c->kind != DNSB_CHANGE_UPDATE || c->owned_record == NULL ||
	    c->old.type != LDNS_RR_TYPE_TXT || strcmp(c->old.owner, c->new_set.owner) != 0 ||
	    c->new_set.type != LDNS_RR_TYPE_TXT)
		return 0;
	return dnsb_rrset_list_find(held, c->old.owner, c->old.type) == NULL && owned_record_matches(e, g, c, held);
}

static int remember(batch_run *br, dnsb_change *c)
{
	if (DNSB_ARRAY_RESERVE(br->upgraded, br->upgraded_cap, br->nupgraded + 1, 8) < 0)
		return DNSB_ENOMEM;
	br->upgraded[br->nupgraded++] = c;
	return 0;
}

size_t dnsb_engine_upgrade_group(batch_run *br, group *g, const dnsb_rrset_list *held)
{
	size_t n = 0;

	for (size_t i = 0; i < g->count; i++) {
		dnsb_change *c = g->changes[i];
		if (!dnsb_engine_registry_upgrade(br->e, g, c, held))
			continue;
		if (remember(br, c) < 0) {
			br->e->rc = DNSB_ENOMEM;
			return n;
		}
		c->kind = DNSB_CHANGE_CREATE;
		n++;
		dnsb_log(DNSB_LOG_INFO, "zone %s: %s TXT: the registry's new-format ownership record of %s is absent: "
			 "created (the old-format record is kept)", dnsb_engine_zone_name(br->e, g->zone), c->new_set.owner,
			 c->owned_record);
	}
	return n;
}

void dnsb_engine_restore_upgraded(batch_run *br)
{
	for (size_t i = 0; i < br->nupgraded; i++)
		br->upgraded[i]->kind = DNSB_CHANGE_UPDATE;
	free(br->upgraded);
	br->upgraded = NULL;
	br->nupgraded = br->upgraded_cap = 0;
}

/*
 * Before a batch is sent: its groups made only of no-op updates are read
 * back, together. In effect: already_applied, nothing sent. Not in effect
 * but a registry format upgrade: the missing ownership record becomes a
 * create (its no-op siblings ride along). Otherwise, or when the read
 * fails, they are sent as they are.
 */
void dnsb_engine_prove_noops(batch_run *br)
{
	group **quiet = malloc((br->n ? br->n : 1) * sizeof(group *));
	dnsb_rrset_list held = { 0 };
	dnsb_error rerr = { 0, "" };
	size_t n = 0;

	if (quiet == NULL) {
		br->e->rc = DNSB_ENOMEM;
		return;
	}
	for (size_t i = 0; i < br->n; i++)
		if (quiet_group(br->gs[i]))
			quiet[n++] = br->gs[i];
	if (n > 0 && dnsb_engine_read_back(br->e, quiet, n, 0, &held, &rerr) == 0) {
		for (size_t i = 0; i < n; i++) {
			if (dnsb_engine_group_in_effect(br->e, quiet[i], &held))
				dnsb_engine_finish(br->e, quiet[i], DNSB_OUTCOME_ALREADY_APPLIED, DNSB_REASON_NONE, NULL,
						   "nothing to change: the provider holds it");
			else
				dnsb_engine_upgrade_group(br, quiet[i], &held);
		}
	} else if (n > 0) {
		dnsb_log(DNSB_LOG_INFO, "zone %s: reading %zu unchanged groups failed (%s): they are sent",
			 dnsb_engine_zone_name(br->e, quiet[0]->zone), n, rerr.message);
	}
	dnsb_rrset_list_clear(&held);
	free(quiet);
}
