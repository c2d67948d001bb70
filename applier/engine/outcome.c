/*
 * outcome.c - settling changes (outcome, reason, the provider's detail: the
 * one writer of a change's outcome, dnsb_engine_settle_change) and the tally: the report, the metrics and the drop log, each change once.
 * The metrics count every change of every apply; the logs (stderr and the
 * drop log) tell what is new: a change still held by the quarantine gets no
 * line, its group gets lines when the hold starts and when it ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "applier/core/clock.h"
#include "applier/obs/drop_record.h"
#include "applier/engine/internal.h"

/* "dropped with its group: create web.example.test. A was refused: WHY" for a change with nothing in its own way. */
static void with_group_message(char *buf, size_t size, const dnsb_change *refused, const char *why)
{
	const dnsb_rrset *r = refused->kind == DNSB_CHANGE_DELETE ? &refused->old : &refused->new_set;

	snprintf(buf, size, "dropped with its group: %s %s %s was refused%s%s", dnsb_drop_kind(refused),
		 r->owner ? r->owner : "(no name)", dnsb_type_name(r->type), why && *why ? ": " : "", why ? why : "");
}

int dnsb_engine_settle_change(engine *e, dnsb_change *c, dnsb_outcome outcome, dnsb_reason reason, int status,
			      const char *code, const char *message)
{
	c->outcome = outcome;
	c->reason = reason;
	if (dnsb_engine_set_detail(c, status, code, message) == 0)
		return 0;
	if (e && e->rc == 0)
		e->rc = dnsb_error_set(e->err, DNSB_ENOMEM, "out of memory keeping a change's detail (%s)",
				       dnsb_outcome_name(outcome));
	return DNSB_ENOMEM;
}

void dnsb_engine_finish(engine *e, group *g, dnsb_outcome outcome, dnsb_reason reason, const dnsb_result *res,
			 const char *message)
{
	char grouped[DNSB_ERROR_MESSAGE_MAX * 2];

	for (size_t i = 0; i < g->count; i++) {
		dnsb_change *c = g->changes[i];
		const char *text = message ? message : res ? res->message : NULL;
		dnsb_outcome end = outcome;

		if (c->outcome != DNSB_OUTCOME_PENDING)
			continue; /* settled apart (already in effect) */
		/* Accepted with its group, an update that changes nothing was in effect before: the accepting
		 * answer proved its old RRset, which is its new one. */
		if (outcome == DNSB_OUTCOME_APPLIED && dnsb_engine_change_noop(c, 1))
			end = DNSB_OUTCOME_ALREADY_APPLIED;
		if (outcome == DNSB_OUTCOME_DROPPED && g->refused && g->refused != c && i < sizeof(g->with_group) * 8 &&
		    (g->with_group >> i & 1)) {
			with_group_message(grouped, sizeof(grouped), g->refused, text);
			text = grouped;
		}
		dnsb_engine_settle_change(e, c, end, reason, res ? res->status : 0, res ? res->code : NULL, text);
	}
}

/* "; dropped with its group: create web.example.test. A was refused" when c went down only with its group, else "". */
static void with_group_note(char *buf, size_t size, const engine *e, const dnsb_change *c)
{
	const group *g;

	buf[0] = '\0';
	if (e->groups == NULL || c->group >= e->ngroups || c->outcome != DNSB_OUTCOME_DROPPED)
		return;
	g = &e->groups[c->group];
	for (size_t k = 0; k < g->count && k < sizeof(g->with_group) * 8; k++)
		if (g->changes[k] == c && g->refused && g->refused != c && (g->with_group >> k & 1)) {
			buf[0] = ';';
			buf[1] = ' ';
			with_group_message(buf + 2, size - 2, g->refused, NULL);
		}
}

/* c's group, when what the quarantine did to it this apply concerns c; else NULL. */
static const group *quarantined_group(const engine *e, const dnsb_change *c)
{
	const group *g;

	/* c->group is only set for grouped changes: membership is checked, not assumed. */
	if (e->groups == NULL || c->group >= e->ngroups)
		return NULL;
	g = &e->groups[c->group];
	if (g->qevent == DNSB_DROPLOG_QUARANTINE_NONE)
		return NULL;
	for (size_t k = 0; k < g->count; k++)
		if (g->changes[k] == c)
			return dnsb_engine_in_mask(g, k, g->qmask) ? g : NULL;
	return NULL;
}

/*
 * The lines of one settled change. None for a change still held or a drop an
 * earlier apply logged (`quiet`); drops summed up go to `sum` (NULL: logged
 * one by one) and to the drop log; failed changes to `fsum` (per zone and
 * reason, the drop log's lines bounded; NULL: one by one), those not sent after
 * a stop to one line; an applied change only when its quarantine ended.
 */
static void tell(engine *e, const dnsb_change *c, int quiet, int recorded, drop_summary *sum, failed_sums *fsum,
		 const char *zone, double wall)
{
	const group *g = quarantined_group(e, c);
	dnsb_drop d = { zone, c, wall, g ? g->qevent : DNSB_DROPLOG_QUARANTINE_NONE, g ? g->held_for : 0 };
	char held[128] = "", tail[768];

	if (quiet || (c->outcome == DNSB_OUTCOME_DROPPED && c->reason == DNSB_REASON_QUARANTINED))
		return;
	if (c->outcome == DNSB_OUTCOME_APPLIED || c->outcome == DNSB_OUTCOME_ALREADY_APPLIED) {
		if (d.event != DNSB_DROPLOG_QUARANTINE_END)
			return;
		dnsb_log(DNSB_LOG_INFO, "quarantine ended: %s %s %s was tried again: %s", dnsb_drop_kind(c),
			 dnsb_change_owner(c) ? dnsb_change_owner(c) : "(no name)",
			 dnsb_type_name(c->kind == DNSB_CHANGE_DELETE ? c->old.type : c->new_set.type),
			 dnsb_outcome_name(c->outcome));
	} else if (c->outcome != DNSB_OUTCOME_DROPPED && c->outcome != DNSB_OUTCOME_FAILED) {
		return;
	} else if (sum && c->outcome == DNSB_OUTCOME_DROPPED && dnsb_engine_summed(c->reason)) {
		dnsb_engine_summary_add(sum, c);
	} else if (c->outcome == DNSB_OUTCOME_FAILED && c->reason == DNSB_REASON_DEADLINE && c->message &&
		   strcmp(c->message, DNSB_ENGINE_STOPPED_MESSAGE) == 0) {
		e->unsent++; /* one line for them all, after the tally */
	} else if (fsum && c->outcome == DNSB_OUTCOME_FAILED) {
		if (!dnsb_engine_failed_add(fsum, zone, c))
			return; /* counted in the drop log's line for those left out */
	} else {
		if (d.event == DNSB_DROPLOG_QUARANTINE_START)
			snprintf(held, sizeof(held), "; quarantined for %g s", d.seconds);
		else if (d.event == DNSB_DROPLOG_QUARANTINE_AGAIN)
			snprintf(held, sizeof(held), "; its quarantine ran out and it conflicted again: quarantined for %g s",
				 d.seconds);
		with_group_note(tail, sizeof(tail), e, c);
		snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), "%s", held);
		dnsb_drop_log(&d, tail);
	}
	if (e->o->droplog && !recorded)
		dnsb_engine_droplog_failed(e, dnsb_droplog_write_quarantine(e->o->droplog, zone, c, wall, d.event,
									    d.seconds));
}

void dnsb_engine_droplog_failed(engine *e, int rc)
{
	if (rc >= 0 || e->rc != 0)
		return;
	if (rc == DNSB_ENOMEM)
		e->rc = dnsb_error_set(e->err, DNSB_ENOMEM, "out of memory writing the drop log");
	else
		e->rc = dnsb_error_set(e->err, DNSB_EIO, "the drop log could not be written");
}

int dnsb_engine_record_zone(engine *e, size_t zone)
{
	size_t n = dnsb_plan_count(e->plan);
	double wall = floor(dnsb_clock_wall(e->clock));
	size_t written = 0;
	int rc = 0;

	if (e->o->droplog == NULL || e->quarantine_on || n == 0)
		return 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const dnsb_change *c = dnsb_plan_change(e->plan, i);
		if (c->zone != zone || c->outcome != DNSB_OUTCOME_DROPPED || (e->recorded && e->recorded[i]))
			continue;
		if (e->recorded == NULL && (e->recorded = calloc(n, 1)) == NULL)
			return 0; /* out of memory: the tally writes every line, after the commit */
		rc = dnsb_droplog_write(e->o->droplog, dnsb_engine_zone_name(e, zone), c, wall);
		e->recorded[i] = rc == 0;
		written += rc == 0;
	}
	if (rc == 0 && written > 0)
		rc = dnsb_droplog_flush(e->o->droplog); /* one fsync for the zone's lines */
	dnsb_engine_droplog_failed(e, rc);
	return rc == DNSB_ENOMEM ? DNSB_ENOMEM : rc < 0 ? DNSB_EIO : 0;
}

void dnsb_engine_tally(engine *e, dnsb_plan *plan)
{
	double wall = floor(dnsb_clock_wall(e->clock));
	drop_summary *sum = dnsb_engine_summary_new();
	failed_sums *fsum = dnsb_engine_failed_new();

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
		case DNSB_OUTCOME_FAILED: e->rep->failed++; z->failed++; e->rep->held += c->reason == DNSB_REASON_HELD; break;
		case DNSB_OUTCOME_PENDING: continue; /* dry run */
		}
		dnsb_metrics_change(e->o->metrics, zone, c);
		if (e->o->on_outcome)
			e->o->on_outcome(e->o->outcome_payload, zone, c);
		if (!e->o->preview) /* a prediction: nothing happened to log */
			tell(e, c, e->quiet && e->quiet[i], e->recorded && e->recorded[i], sum, fsum, zone, wall);
	}
	dnsb_engine_summary_log(sum);
	dnsb_engine_droplog_failed(e, dnsb_engine_failed_log(fsum, e->o->droplog, wall));
	if (e->unsent > 0)
		dnsb_log(DNSB_LOG_WARN, "%zu changes not sent: the apply was stopped before their batches began "
			 "(failed, reason deadline)", e->unsent);
}

/* After a local error nothing is lost silently: whatever is still pending is reported failed. */
void dnsb_engine_fail_pending(engine *e, dnsb_plan *plan, int rc)
{
	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		if (c->outcome == DNSB_OUTCOME_PENDING)
			dnsb_engine_settle_change(e, c, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, 0, NULL, dnsb_strerror(rc));
	}
}
