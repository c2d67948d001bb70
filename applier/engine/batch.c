/*
 * batch.c - a zone's groups, in order, cut into batches within --batch-size
 * and the provider's declared limits (docs/design.md §2.2).
 */
#include <stdlib.h>
#include <string.h>

#include "applier/engine/internal.h"

/* Would adding g overflow the batch under the provider's limits? */
typedef struct batch_fill {
	size_t groups, changes, additions, deletions, rdata, records;
} batch_fill;

static int fits(const engine *e, const batch_fill *f, const group *g, batch_fill *after)
{
	const dnsb_provider_limits *l = e->limits;

	*after = *f;
	after->groups++;
	for (size_t i = 0; i < g->count; i++) {
		const dnsb_change *c = g->changes[i];
		after->changes++;
		if (c->kind != DNSB_CHANGE_DELETE) {
			after->additions++;
			after->rdata += dnsb_rrset_rdata_bytes(&c->new_set);
			after->records += c->new_set.rdata_count;
		}
		if (c->kind != DNSB_CHANGE_CREATE) {
			after->deletions++;
			after->rdata += dnsb_rrset_rdata_bytes(&c->old);
			after->records += c->old.rdata_count;
		}
	}
	if (f->groups == 0)
		return 1; /* a group always fits an empty batch; the provider judges it */
	return after->groups <= e->o->batch_size &&
	       (!l->max_changes || after->changes <= l->max_changes) &&
	       (!l->max_additions || after->additions <= l->max_additions) &&
	       (!l->max_deletions || after->deletions <= l->max_deletions) &&
	       (!l->max_rdata_bytes || after->rdata <= l->max_rdata_bytes) &&
	       (!l->max_records || after->records <= l->max_records);
}

/* One batch cut from a zone: counted, then submitted, or in a dry run only shown; once a stop is asked, failed unsent. */
static void take_batch(engine *e, group **gs, size_t n)
{
	dnsb_change **changes;
	size_t count;

	if (!e->o->dry_run && dnsb_engine_stop_asked(e)) {
		for (size_t i = 0; i < n; i++) /* stopped (a signal): the batch is never begun */
			dnsb_engine_finish(e, gs[i], DNSB_OUTCOME_FAILED, DNSB_REASON_DEADLINE, NULL,
					   DNSB_ENGINE_STOPPED_MESSAGE);
		return;
	}
	dnsb_engine_zone_report(e, gs[0]->zone)->batches++;
	e->rep->batches++;
	if (!e->o->dry_run) {
		dnsb_engine_progress_before(e, gs, n);
		dnsb_engine_run_batch(e, gs, n);
		dnsb_engine_progress_after(e, gs, n);
		return;
	}
	count = dnsb_engine_flatten(gs, n, &changes);
	if (changes == NULL)
		e->rc = DNSB_ENOMEM;
	else if (e->o->on_batch)
		e->o->on_batch(e->o->payload, dnsb_engine_zone_name(e, gs[0]->zone), ++e->batch_no, changes, count);
	free(changes);
}

/* Cut a zone's groups, in order, into batches within batch_size and the provider's limits. */
void dnsb_engine_run_zone(engine *e, group **gs, size_t n)
{
	size_t start = 0;
	batch_fill fill = { 0 }, after;

	for (size_t i = 0; i < n; i++) {
		if (!fits(e, &fill, gs[i], &after)) {
			take_batch(e, gs + start, i - start);
			start = i;
			memset(&fill, 0, sizeof(fill));
			fits(e, &fill, gs[i], &after);
		}
		fill = after;
	}
	if (start < n)
		take_batch(e, gs + start, n - start);
}
