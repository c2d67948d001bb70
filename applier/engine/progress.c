/*
 * progress.c - where an apply is, told to dnsb_engine_options.on_progress:
 * changes settled before sending at the start, then each batch's as it
 * ends; and the stop a signal asks for, honoured between batches.
 */
#include "applier/engine/internal.h"

/* Add to p the outcomes of the changes of gs, each counted `sign` (+1 or -1). */
static void count_outcomes(dnsb_progress *p, group **gs, size_t n, int sign)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < gs[i]->count; k++) {
			size_t *slot;
			switch (gs[i]->changes[k]->outcome) {
			case DNSB_OUTCOME_APPLIED:
			case DNSB_OUTCOME_ALREADY_APPLIED: slot = &p->applied; break;
			case DNSB_OUTCOME_DROPPED: slot = &p->dropped; break;
			case DNSB_OUTCOME_FAILED: slot = &p->failed; break;
			default: continue;
			}
			*slot += (size_t)sign;
			p->done += (size_t)sign;
		}
}

void dnsb_engine_progress_tell(engine *e, int final)
{
	if (e->o->on_progress == NULL || e->o->dry_run)
		return;
	e->progress.batches = e->rep->batches;
	e->progress.submissions = e->rep->submissions;
	e->progress.elapsed = dnsb_engine_now(e) - e->started;
	e->progress.final = final;
	e->o->on_progress(e->o->progress_payload, &e->progress);
}

void dnsb_engine_progress_start(engine *e, dnsb_plan *plan)
{
	e->progress.total = dnsb_plan_count(plan);
	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		group g = { .changes = &c, .count = 1 };
		group *one = &g;
		count_outcomes(&e->progress, &one, 1, 1);
	}
	dnsb_engine_progress_tell(e, 0);
}

void dnsb_engine_progress_before(engine *e, group **gs, size_t n)
{
	count_outcomes(&e->progress, gs, n, -1);
}

void dnsb_engine_progress_after(engine *e, group **gs, size_t n)
{
	count_outcomes(&e->progress, gs, n, 1);
	dnsb_engine_progress_tell(e, 0);
}

int dnsb_engine_stop_asked(const engine *e)
{
	return e->o->stop != NULL && *e->o->stop != 0;
}

void dnsb_engine_progress_final(engine *e)
{
	const dnsb_report *r = e->rep;

	e->progress.applied = r->applied + r->already_applied;
	e->progress.dropped = r->dropped;
	e->progress.failed = r->failed;
	e->progress.done = r->applied + r->already_applied + r->dropped + r->failed;
	dnsb_engine_progress_tell(e, 1);
}
