/*
 * outcome.c - settling changes (outcome, reason, the provider's detail) and
 * the tally: the report, the metrics and the drop log, each change once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "applier/engine/internal.h"

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

void dnsb_engine_set_detail(dnsb_change *c, int status, const char *code, const char *message)
{
	c->status = status;
	free(c->code);
	free(c->message);
	c->code = code && *code ? strdup(code) : NULL;
	c->message = message && *message ? strdup(message) : NULL;
}

/* Settle every change of g still pending; changes settled apart keep their outcome. */
void dnsb_engine_finish(group *g, dnsb_outcome outcome, dnsb_reason reason, const dnsb_result *res,
			 const char *message)
{
	for (size_t i = 0; i < g->count; i++) {
		dnsb_change *c = g->changes[i];
		if (c->outcome != DNSB_OUTCOME_PENDING)
			continue; /* settled apart (already in effect) */
		c->outcome = outcome;
		c->reason = reason;
		dnsb_engine_set_detail(c, res ? res->status : 0, res ? res->code : NULL, message ? message : res ? res->message : NULL);
	}
}

void dnsb_engine_tally(engine *e, dnsb_plan *plan)
{
	double wall = (double)time(NULL);

	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		dnsb_zone_report *z = dnsb_engine_zone_report(e, c->zone);
		const char *zone = dnsb_engine_zone_name(e, c->zone);

		e->rep->changes++;
		z->changes++;
		switch (c->outcome) {
		case DNSB_OUTCOME_APPLIED: e->rep->applied++; z->applied++; break;
		case DNSB_OUTCOME_ALREADY_APPLIED: e->rep->already_applied++; z->already_applied++; break;
		case DNSB_OUTCOME_DROPPED: e->rep->dropped++; z->dropped++; break;
		case DNSB_OUTCOME_FAILED: e->rep->failed++; z->failed++; break;
		case DNSB_OUTCOME_PENDING: continue; /* dry run */
		}
		dnsb_metrics_change(e->o->metrics, zone, c);
		if (c->outcome == DNSB_OUTCOME_DROPPED || c->outcome == DNSB_OUTCOME_FAILED) {
			dnsb_log(DNSB_LOG_WARN, "%s %s %s %s: %s%s%s", dnsb_outcome_name(c->outcome),
				 c->kind == DNSB_CHANGE_CREATE ? "create" : c->kind == DNSB_CHANGE_UPDATE ? "update" : "delete",
				 dnsb_change_owner(c) ? dnsb_change_owner(c) : "(no name)",
				 dnsb_type_name(c->kind == DNSB_CHANGE_DELETE ? c->old.type : c->new_set.type),
				 dnsb_reason_name(c->reason), c->message ? ": " : "", c->message ? c->message : "");
			if (e->o->droplog && dnsb_droplog_write(e->o->droplog, zone, c, wall) < 0 && e->rc == 0)
				e->rc = dnsb_error_set(e->err, DNSB_EIO, "the drop log could not be written");
		}
	}
}

/* After a local error nothing is lost silently: whatever is still pending is reported failed. */
void dnsb_engine_fail_pending(dnsb_plan *plan, int rc)
{
	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		if (c->outcome == DNSB_OUTCOME_PENDING) {
			c->outcome = DNSB_OUTCOME_FAILED;
			c->reason = DNSB_REASON_TRANSIENT;
			dnsb_engine_set_detail(c, 0, NULL, dnsb_strerror(rc));
		}
	}
}

int dnsb_engine_group_open(const group *g)
{
	for (size_t i = 0; i < g->count; i++)
		if (g->changes[i]->outcome == DNSB_OUTCOME_PENDING)
			return 1;
	return 0;
}
