/*
 * submit.c - one part of a batch sent to the provider: pacing, the deadline,
 * the on_batch callback, the request itself, and the retries of transient
 * and rate-limited answers, all within the batch's one budget.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/provider.h"
#include "applier/engine/internal.h"

/* The pending changes of gs, in order (a change settled apart, or held back, is not sent). @return how many */
size_t dnsb_engine_flatten(group **gs, size_t n, dnsb_change ***out)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < n; i++)
		total += gs[i]->count;
	if ((*out = malloc((total ? total : 1) * sizeof(dnsb_change *))) == NULL)
		return 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < gs[i]->count; j++)
			if (gs[i]->changes[j]->outcome == DNSB_OUTCOME_PENDING)
				(*out)[k++] = gs[i]->changes[j];
	return k;
}

/* Settle the open groups of gs as failed with `reason`, no read. */
static void fail_open(engine *e, group **gs, size_t n, dnsb_reason reason, const dnsb_result *res, const char *message)
{
	for (size_t i = 0; i < n; i++)
		dnsb_engine_finish(e, gs[i], DNSB_OUTCOME_FAILED, reason, res, message);
}

/*
 * The run is over: every open group of the batch fails with `reason`. After a
 * transient answer a lost success reply may have committed some of them, so
 * they are read back first: what is in effect is already_applied, and when the
 * read cannot be made the truth is unknown (failed, transient).
 */
void dnsb_engine_end_run(batch_run *br, dnsb_reason reason, const dnsb_result *res, const char *message)
{
	group **open = malloc((br->n ? br->n : 1) * sizeof(group *));
	char msg[DNSB_ERROR_MESSAGE_MAX * 2 + 64];
	size_t n = 0;

	br->over = 1;
	if (open == NULL) {
		br->e->rc = DNSB_ENOMEM;
		fail_open(br->e, br->gs, br->n, reason, res, message);
		return;
	}
	for (size_t i = 0; i < br->n; i++)
		if (dnsb_engine_group_open(br->gs[i]))
			open[n++] = br->gs[i];
	if (n > 0 && br->saw_transient) {
		verdict *each = calloc(n, sizeof(verdict));
		dnsb_error rerr = { 0, "" };

		if (each && dnsb_engine_verify(br->e, open, n, each, &rerr) != UNKNOWN) {
			dnsb_engine_settle_verified(br->e, open, n, each, res);
		} else {
			snprintf(msg, sizeof(msg), "%s; reading back after a transient error failed: %s",
				 message ? message : res ? res->message : dnsb_reason_name(reason), rerr.message);
			reason = DNSB_REASON_TRANSIENT;
			message = msg;
		}
		free(each);
	}
	fail_open(br->e, open, n, reason, res, message);
	free(open);
}

/* "transient error (503 backendError): message", "transient error: cannot connect ..." for an answer: no
 * empty status or code left in the sentence (a connection failure has neither). */
static void describe(char *buf, size_t size, const dnsb_result *res)
{
	char tag[96] = "";

	if (res->status > 0 && res->code[0])
		snprintf(tag, sizeof(tag), " (%d %s)", res->status, res->code);
	else if (res->status > 0)
		snprintf(tag, sizeof(tag), " (%d)", res->status);
	else if (res->code[0])
		snprintf(tag, sizeof(tag), " (%s)", res->code);
	snprintf(buf, size, "%s%s%s%s", res->cls == DNSB_CLASS_RATE_LIMITED ? "rate limited" :
		 res->cls == DNSB_CLASS_FATAL ? "fatal error" : "transient error", tag, res->message[0] ? ": " : "",
		 res->message);
}

/* A fatal answer: the zone stops; this batch and every later one of the zone fail, naming the cause. */
static void stop_zone(batch_run *br, size_t zone, const dnsb_result *res)
{
	engine *e = br->e;
	char msg[DNSB_ERROR_MESSAGE_MAX + 160], what[DNSB_ERROR_MESSAGE_MAX + 128];

	describe(what, sizeof(what), res);
	snprintf(msg, sizeof(msg), "zone %s stopped: %s", dnsb_engine_zone_name(e, zone), what);
	dnsb_log(DNSB_LOG_ERROR, "%s", msg);
	e->zone_stopped[zone] = 1;
	free(e->zone_stop_message[zone]);
	e->zone_stop_message[zone] = strdup(msg);
	dnsb_engine_end_run(br, DNSB_REASON_FATAL, res, msg);
}

/*
 * Wait for the provider's pacing, then submit once, counting it.
 * @return 1 with `res` filled; 0 when the run ended instead (the deadline, a local error)
 */
static int submit_once(batch_run *br, size_t zone, dnsb_change **changes, size_t count, dnsb_result *res)
{
	engine *e = br->e;
	const char *zname = dnsb_engine_zone_name(e, zone);
	double secs = 0, wait = dnsb_engine_pacing_wait(e);
	dnsb_error serr = { 0, "" };
	int rc;

	if (e->deadline > 0 && dnsb_engine_now(e) + (wait > 0 ? wait : 0) >= e->deadline) {
		dnsb_engine_end_run(br, DNSB_REASON_DEADLINE, NULL, "the apply deadline passed before this change was applied");
		return 0;
	}
	if (dnsb_engine_wait(e, wait)) { /* stopped (a signal) in the wait: not sent */
		dnsb_engine_end_run(br, DNSB_REASON_DEADLINE, NULL, DNSB_ENGINE_STOPPED_WAIT_MESSAGE);
		return 0;
	}
	if (e->o->on_batch)
		e->o->on_batch(e->o->payload, zname, ++e->batch_no, changes, count);
	rc = dnsb_provider_submit(e->p, zname, changes, count, dnsb_engine_time_left(e), res, &secs, &serr);
	e->rep->submissions++;
	dnsb_engine_zone_report(e, zone)->submissions++;
	dnsb_engine_progress_tell(e, 0);
	if (rc < 0) {
		e->rc = dnsb_error_set(e->err, rc, "zone %s: %s", zname, serr.message);
		dnsb_engine_end_run(br, DNSB_REASON_TRANSIENT, NULL, serr.message);
		return 0;
	}
	dnsb_metrics_batch(e->o->metrics, zname, dnsb_class_name(res->cls));
	dnsb_metrics_overwrites(e->o->metrics, zname, res->races);
	dnsb_metrics_request(e->o->metrics, dnsb_provider_name(e->p), "submit", dnsb_class_name(res->cls), secs);
	return 1;
}

/* Transient or rate limited: wait and go on (1), or the budget is spent and the run is over (0). */
static int retry(batch_run *br, size_t count, const dnsb_result *res)
{
	dnsb_reason give_up = DNSB_REASON_NONE;
	double wait;
	char what[DNSB_ERROR_MESSAGE_MAX + 128];

	if (res->cls == DNSB_CLASS_TRANSIENT)
		br->saw_transient = br->suspect = 1;
	wait = dnsb_engine_retry_wait(br, res, &give_up);
	if (wait < 0) {
		dnsb_engine_end_run(br, give_up, res, NULL);
		return 0;
	}
	/* Said before the wait, not after it. */
	describe(what, sizeof(what), res);
	dnsb_log(DNSB_LOG_INFO, "zone %s: %zu changes not applied yet: %s; retrying in %.3f s",
		 dnsb_engine_zone_name(br->e, br->gs[0]->zone), count, what, wait);
	if (res->cls == DNSB_CLASS_TRANSIENT && dnsb_engine_wait(br->e, wait)) { /* stopped in the wait */
		dnsb_engine_end_run(br, DNSB_REASON_DEADLINE, res, DNSB_ENGINE_STOPPED_WAIT_MESSAGE);
		return 0;
	}
	return 1;
}

/*
 * Send gs as one submission and act on the class of the answer (docs/design.md §3.1):
 * retry transient and rate-limited answers within the batch's budget, stop the
 * zone on a fatal one, and hand the rest back. br->suspect tells whether this
 * part met a transient answer (a lost reply may have committed it).
 */
sent dnsb_engine_send(batch_run *br, group **gs, size_t n, dnsb_result *res)
{
	engine *e = br->e;
	size_t zone = gs[0]->zone;
	dnsb_change **changes = NULL;
	size_t count = dnsb_engine_flatten(gs, n, &changes);
	sent out = SENT_OVER;

	br->suspect = 0;
	if (changes == NULL) {
		e->rc = DNSB_ENOMEM;
		dnsb_engine_end_run(br, DNSB_REASON_TRANSIENT, NULL, "out of memory");
	} else if (count == 0) {
		out = SENT_OK; /* every change was settled apart: nothing left to send */
	}
	while (count > 0 && !br->over) {
		if (e->zone_stopped[zone]) {
			dnsb_engine_end_run(br, DNSB_REASON_FATAL, NULL, e->zone_stop_message[zone]);
			break;
		}
		if (!submit_once(br, zone, changes, count, res))
			break;
		if (res->cls == DNSB_CLASS_OK || res->cls == DNSB_CLASS_CONFLICT || res->cls == DNSB_CLASS_INVALID ||
		    res->cls == DNSB_CLASS_TOO_LARGE) {
			out = res->cls == DNSB_CLASS_OK ? SENT_OK : res->cls == DNSB_CLASS_TOO_LARGE ? SENT_TOO_LARGE
											   : SENT_REFUSED;
			break;
		}
		if (res->cls == DNSB_CLASS_FATAL) {
			stop_zone(br, zone, res);
			break;
		}
		if (res->cls == DNSB_CLASS_TRANSIENT)
			for (size_t i = 0; i < n; i++)
				gs[i]->lost_reply = 1;
		if (!retry(br, count, res))
			break;
	}
	free(changes);
	return out;
}
