/*
 * outcome.c - settling changes (outcome, reason, the provider's detail) and
 * the tally: the report, the metrics and the drop log, each change once.
 * The metrics count every change of every apply; the logs (stderr and the
 * drop log) tell what is new: a change still held by the quarantine gets no
 * line, its group gets lines when the hold starts and when it ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "dnsbatch/droplog.h"
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

static const char *kind_name(const dnsb_change *c);

/* "dropped with its group: create web.example.test. A was refused: WHY" for a change with nothing in its own way. */
static void with_group_message(char *buf, size_t size, const dnsb_change *refused, const char *why)
{
	const dnsb_rrset *r = refused->kind == DNSB_CHANGE_DELETE ? &refused->old : &refused->new_set;

	snprintf(buf, size, "dropped with its group: %s %s %s was refused%s%s", kind_name(refused),
		 r->owner ? r->owner : "(no name)", dnsb_type_name(r->type), why && *why ? ": " : "", why ? why : "");
}

/* Settle every change of g still pending; changes settled apart keep their outcome. */
void dnsb_engine_finish(group *g, dnsb_outcome outcome, dnsb_reason reason, const dnsb_result *res,
			 const char *message)
{
	char grouped[DNSB_ERROR_MESSAGE_MAX * 2];

	for (size_t i = 0; i < g->count; i++) {
		dnsb_change *c = g->changes[i];
		const char *text = message ? message : res ? res->message : NULL;
		if (c->outcome != DNSB_OUTCOME_PENDING)
			continue; /* settled apart (already in effect) */
		c->outcome = outcome;
		c->reason = reason;
		if (outcome == DNSB_OUTCOME_DROPPED && g->refused && g->refused != c && i < sizeof(g->with_group) * 8 &&
		    (g->with_group >> i & 1)) {
			with_group_message(grouped, sizeof(grouped), g->refused, text);
			text = grouped;
		}
		dnsb_engine_set_detail(c, res ? res->status : 0, res ? res->code : NULL, text);
	}
}

static const char *kind_name(const dnsb_change *c)
{
	return c->kind == DNSB_CHANGE_CREATE ? "create" : c->kind == DNSB_CHANGE_UPDATE ? "update" : "delete";
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

/*
 * The lines of one settled change. None for a change still held or a drop an
 * earlier apply logged (`quiet`); drops summed up go to `sum` (NULL: logged
 * one by one) and to the drop log; an applied change only when its
 * quarantine ended.
 */
static void tell(engine *e, const dnsb_change *c, int quiet, drop_summary *sum, const char *zone, double wall)
{
	const group *g = quarantined_group(e, c);
	dnsb_droplog_quarantine event = g ? g->qevent : DNSB_DROPLOG_QUARANTINE_NONE;
	const char *owner = dnsb_change_owner(c) ? dnsb_change_owner(c) : "(no name)";
	const char *type = dnsb_type_name(c->kind == DNSB_CHANGE_DELETE ? c->old.type : c->new_set.type);
	char held[128] = "", with[600];

	if (quiet || (c->outcome == DNSB_OUTCOME_DROPPED && c->reason == DNSB_REASON_QUARANTINED))
		return;
	if (c->outcome == DNSB_OUTCOME_APPLIED || c->outcome == DNSB_OUTCOME_ALREADY_APPLIED) {
		if (event != DNSB_DROPLOG_QUARANTINE_END)
			return;
		dnsb_log(DNSB_LOG_INFO, "quarantine ended: %s %s %s was tried again: %s", kind_name(c), owner, type,
			 dnsb_outcome_name(c->outcome));
	} else if (c->outcome != DNSB_OUTCOME_DROPPED && c->outcome != DNSB_OUTCOME_FAILED) {
		return;
	} else if (sum && c->outcome == DNSB_OUTCOME_DROPPED && dnsb_engine_summed(c->reason)) {
		dnsb_engine_summary_add(sum, c);
	} else if (c->outcome == DNSB_OUTCOME_FAILED && c->reason == DNSB_REASON_DEADLINE && c->message &&
		   strcmp(c->message, DNSB_ENGINE_STOPPED_MESSAGE) == 0) {
		e->unsent++; /* one line for them all, after the tally */
	} else {
		with_group_note(with, sizeof(with), e, c);
		if (event == DNSB_DROPLOG_QUARANTINE_START)
			snprintf(held, sizeof(held), "; quarantined for %g s", g->held_for);
		else if (event == DNSB_DROPLOG_QUARANTINE_AGAIN)
			snprintf(held, sizeof(held), "; its quarantine ran out and it conflicted again: quarantined for %g s",
				 g->held_for);
		if (c->cause != DNSB_CAUSE_NONE && c->reason == DNSB_REASON_CONFLICT) {
			/* What is in the way, from the read that proved the drop (the provider's words are in the drop log). */
			json_object *current = dnsb_droplog_current(&c->current);
			char why[768];

			json_object *fields = json_object_new_object();

			dnsb_drop_explain(why, sizeof(why), dnsb_cause_name(c->cause), owner, type, current, c->txt_owner,
					  c->txt_resource);
			/* In the JSON log, the drop log's fields beside the message. */
			if (fields) {
				json_object_object_add(fields, "zone", json_object_new_string(zone ? zone : ""));
				json_object_object_add(fields, "outcome", json_object_new_string(dnsb_outcome_name(c->outcome)));
				json_object_object_add(fields, "reason", json_object_new_string(dnsb_reason_name(c->reason)));
				json_object_object_add(fields, "cause", json_object_new_string(dnsb_cause_name(c->cause)));
				json_object_object_add(fields, "current", json_object_get(current));
				if (c->txt_owner)
					json_object_object_add(fields, "owner", json_object_new_string(c->txt_owner));
				if (c->txt_resource)
					json_object_object_add(fields, "owner_resource", json_object_new_string(c->txt_resource));
				if (c->message)
					json_object_object_add(fields, "message", json_object_new_string(c->message));
			}
			dnsb_log_fields(DNSB_LOG_WARN, fields, "%s %s %s %s: %s%s%s", dnsb_outcome_name(c->outcome),
					kind_name(c), owner, type, why, with, held);
			json_object_put(fields);
			json_object_put(current);
		} else {
			dnsb_log(DNSB_LOG_WARN, "%s %s %s %s: %s%s%s%s", dnsb_outcome_name(c->outcome), kind_name(c), owner,
				 type, dnsb_reason_name(c->reason), c->message ? ": " : "", c->message ? c->message : "", held);
		}
	}
	if (e->o->droplog && dnsb_droplog_write_quarantine(e->o->droplog, zone, c, wall, event, g ? g->held_for : 0) < 0 &&
	    e->rc == 0)
		e->rc = dnsb_error_set(e->err, DNSB_EIO, "the drop log could not be written");
}

void dnsb_engine_tally(engine *e, dnsb_plan *plan)
{
	double wall = (double)time(NULL);
	drop_summary *sum = dnsb_engine_summary_new();

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
		tell(e, c, e->quiet && e->quiet[i], sum, zone, wall);
	}
	dnsb_engine_summary_log(sum);
	if (e->unsent > 0)
		dnsb_log(DNSB_LOG_WARN, "%zu changes not sent: the apply was stopped before their batches began "
			 "(failed, reason deadline)", e->unsent);
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
