/* apply.c - POST /records: parse the plan, take the zones' locks within the deadline, run the engine, answer. */
#include <errno.h>
#include <float.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <microhttpd.h>

#include "dnsbatch/log.h"
#include "dnsbatch/sys/provider.h"
#include "dnsbatch/webhook.h"
#include "applier/core/clock.h"
#include "applier/webhook/internal.h"

static const char *change_owner(const dnsb_change *c)
{
	return c->new_set.owner ? c->new_set.owner : c->old.owner;
}

/* Take the locks of every zone the plan touches, in zone order so that two
 * plans can never wait for each other. @return 0 or ETIMEDOUT (none held) */
static int lock_zones(dnsb_webhook *wh, const unsigned char *touched, double seconds)
{
	struct timespec ts = dnsb_wall_deadline(seconds);

	for (size_t z = 0; z < wh->zone_count; z++) {
		if (!touched[z])
			continue;
		if (pthread_mutex_timedlock(&wh->zone_locks[z], &ts) != 0) {
			while (z-- > 0)
				if (touched[z])
					pthread_mutex_unlock(&wh->zone_locks[z]);
			return ETIMEDOUT;
		}
	}
	return 0;
}

static void unlock_zones(dnsb_webhook *wh, const unsigned char *touched)
{
	for (size_t z = wh->zone_count; z-- > 0;)
		if (touched[z])
			pthread_mutex_unlock(&wh->zone_locks[z]);
}

static void flush_droplog(dnsb_webhook *wh)
{
	if (wh->droplog == NULL)
		return;
	pthread_mutex_lock(&wh->droplog_lock);
	if (dnsb_droplog_flush(wh->droplog) != 0)
		dnsb_log(DNSB_LOG_ERROR, "drop log: flush failed");
	pthread_mutex_unlock(&wh->droplog_lock);
}

/* Mark the zones the plan's changes fall in; a change in no zone marks none.
 * @return a zone_count-long array (the caller's), or NULL when out of memory */
static unsigned char *touched_zones(dnsb_webhook *wh, dnsb_plan *plan)
{
	unsigned char *touched = calloc(wh->zone_count ? wh->zone_count : 1, 1);

	for (size_t i = 0; touched && i < dnsb_plan_count(plan); i++) {
		const char *owner = change_owner(dnsb_plan_change(plan, i));
		long z = owner ? dnsb_provider_zone_for(wh->provider, owner) : -1;
		if (z >= 0 && (size_t)z < wh->zone_count)
			touched[z] = 1;
	}
	return touched;
}

/* When the request's phases ended (dnsb_monotonic seconds), for its log line. */
struct phases {
	double start, parsed, first_submission; /* first_submission 0: none */
};

/* The engine's on_batch: called before each submission; the first is noted. */
static void note_submission(void *payload, const char *zone, unsigned long batch_no, dnsb_change *const *changes,
			    size_t n)
{
	struct phases *ph = payload;

	(void)zone;
	(void)batch_no;
	(void)changes;
	(void)n;
	if (ph->first_submission == 0)
		ph->first_submission = dnsb_monotonic();
}

/* Run the engine once, whatever happened to the locks, so that every change is
 * settled and counted by it alone. The deadline bounds the whole request, the
 * wait for the zones included; when they stayed busy it has passed, and the
 * engine settles pending changes failed/deadline without a request (invalid
 * and no_zone keep their outcomes). Its clock: the engine's. */
static int run_engine(dnsb_report *report, dnsb_webhook *wh, dnsb_plan *plan, int busy, double waited,
		      struct phases *ph, dnsb_error *err)
{
	dnsb_engine_options opts = wh->engine;
	const dnsb_clock *clk = opts.clock ? opts.clock : dnsb_clock_system();

	if (opts.on_batch == NULL) {
		opts.on_batch = note_submission;
		opts.payload = ph;
	}
	opts.timeout = 0;
	opts.deadline = clk->now(clk->payload) + (busy ? 0.0 : wh->apply_timeout - waited);
	if (!(opts.deadline > 0)) /* 0 would mean no deadline: a clock near its epoch */
		opts.deadline = DBL_MIN;
	return dnsb_engine_apply(report, wh->provider, plan, &opts, err);
}

/* What external-dns acts on: 204 every change settled, 503 some failed (it
 * retries the plan next interval), 500 the engine itself failed. */
static unsigned status_of(int rc, const dnsb_report *report)
{
	if (rc != 0)
		return MHD_HTTP_INTERNAL_SERVER_ERROR;
	return report->failed > 0 ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_NO_CONTENT;
}

/* The request's one line: what was applied by the deadline, and where the time went. */
static void log_apply(int rc, const dnsb_report *r, const dnsb_error *err, const struct phases *ph, unsigned status)
{
	char first[64] = "no submission";

	if (ph->first_submission > 0)
		snprintf(first, sizeof(first), "first submission at %.3f s", ph->first_submission - ph->start);
	dnsb_log(rc != 0 ? DNSB_LOG_ERROR : r->failed ? DNSB_LOG_WARN : DNSB_LOG_INFO,
		 "POST /records: %zu changes: %zu applied, %zu already applied, %zu dropped, %zu failed; "
		 "%lu batches, %lu submissions, %lu bisections, %.3f s (parsed at %.3f s, %s) -> %u%s%s",
		 r->changes, r->applied, r->already_applied, r->dropped, r->failed,
		 r->batches, r->submissions, r->bisections, dnsb_monotonic() - ph->start, ph->parsed - ph->start, first,
		 status, rc != 0 ? ": " : "", rc != 0 ? (err->message[0] ? err->message : dnsb_strerror(rc)) : "");
}

/* After an apply that held its zones: the drop log to disk, the gauges, readiness. */
static void after_apply(dnsb_webhook *wh, const dnsb_report *r)
{
	if (r->dropped + r->failed > 0)
		flush_droplog(wh);
	dnsb_metrics_set_last_apply(wh->metrics, dnsb_wall_clock());
	dnsb_webhook_update_quarantine_gauge(wh);
	if (r->applied + r->already_applied > 0 || (r->submissions > 0 && r->failed == 0))
		dnsb_webhook_set_ready(wh, "apply");
}

/* The answer; a 503 says what is in effect by the deadline and what external-dns will send again. */
static enum MHD_Result answer(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req, unsigned status,
			      const dnsb_report *r, const char *why)
{
	if (status == MHD_HTTP_NO_CONTENT)
		return dnsb_webhook_reply(conn, wh, req, status, NULL, NULL, 0);
	if (status != MHD_HTTP_SERVICE_UNAVAILABLE)
		return dnsb_webhook_reply_text(conn, wh, req, status, "internal error");
	return dnsb_webhook_reply_text(conn, wh, req, status, "%s%zu of %zu changes in effect (%zu applied, %zu already "
				       "applied), %zu dropped, %zu failed: the failed ones are retried next interval",
				       why, r->applied + r->already_applied, r->changes, r->applied, r->already_applied,
				       r->dropped, r->failed);
}

enum MHD_Result dnsb_webhook_handle_records_post(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	dnsb_plan *plan = NULL;
	dnsb_report report = { 0 };
	dnsb_error err = { 0 };
	unsigned char *touched;
	double start_unix = dnsb_wall_clock();
	struct phases ph = { dnsb_monotonic(), 0, 0 };
	enum MHD_Result ret;
	unsigned status;
	int rc, busy;

	rc = dnsb_plan_parse(&plan, req->body ? req->body : "", req->len, "POST /records", &err);
	ph.parsed = dnsb_monotonic();
	if (rc == DNSB_EPARSE) {
		dnsb_log(DNSB_LOG_WARN, "%s", err.message);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_BAD_REQUEST, "%s", err.message);
	}
	if (rc != 0)
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s",
				  err.message[0] ? err.message : dnsb_strerror(rc));
	if ((touched = touched_zones(wh, plan)) == NULL) {
		dnsb_plan_free(plan);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	}

	/* pthread_mutex_timedlock is timed on the system's wall clock: the wait ends apply_timeout after the request began. */
	busy = lock_zones(wh, touched, start_unix + wh->apply_timeout - dnsb_wall_clock()) != 0;
	rc = run_engine(&report, wh, plan, busy, dnsb_wall_clock() - start_unix, &ph, &err);
	if (busy) {
		dnsb_log(DNSB_LOG_WARN, "POST /records: zones still busy after %.1f s: %zu changes failed (deadline)",
			 wh->apply_timeout, report.failed);
		flush_droplog(wh);
		status = MHD_HTTP_SERVICE_UNAVAILABLE;
	} else {
		if (report.submissions > 0) /* under the zones' locks: no POST counts from a listing this apply outdated */
			dnsb_webhook_listing_forget(wh, touched);
		unlock_zones(wh, touched);
		after_apply(wh, &report);
		status = status_of(rc, &report);
		log_apply(rc, &report, &err, &ph, status);
	}
	free(touched);
	dnsb_plan_free(plan);
	ret = answer(conn, wh, req, status, &report, busy ? "zones busy past the apply timeout: " : "");
	dnsb_report_clear(&report);
	return ret;
}
