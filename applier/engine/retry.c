/*
 * retry.c - waiting: the full-jitter backoff (docs/design.md §3.6), Retry-After as a
 * floor within bounds, and the pacing every batch to one provider shares.
 */

#include "applier/core/backoff.h"
#include "applier/core/clock.h"
#include "applier/core/pacing.h"
#include "applier/core/stop.h"
#include "applier/engine/internal.h"

int dnsb_engine_wait(engine *e, double seconds)
{
	double start, slept;

	if (!(seconds > 0))
		return 0;
	start = dnsb_engine_now(e);
	e->clock->sleep(e->clock->payload, seconds);
	slept = dnsb_engine_now(e) - start;
	slept = slept > 0 && slept < seconds ? slept : seconds; /* a stop cuts it short */
	e->rep->backoff_seconds += slept;
	dnsb_metrics_backoff(e->o->metrics, slept);
	/* The process's stop too (serve's SIGTERM: no engine flag): a wait it cut short is not a wait served, and
	 * the retry it preceded would go at once; the batch ends instead. */
	return dnsb_engine_stop_asked(e) || dnsb_stop_requested();
}

/* Seconds until the provider's pacing lets a request leave (<= 0: now). */
double dnsb_engine_pacing_wait(engine *e)
{
	return dnsb_pacing_not_before(e->p) - dnsb_engine_now(e);
}

void dnsb_engine_pacing_hold(engine *e, double seconds)
{
	dnsb_pacing_hold(e->p, dnsb_engine_now(e) + seconds);
}

/*
 * After a transient or rate-limited answer: the wait before the next try, or
 * -1 with `give_up` set when the batch's budget (max_retries transient answers,
 * max_rate_limit_waits rate limits, counted over the whole batch and all its
 * parts) or the deadline does not allow another. A rate limit holds every
 * batch to the provider (the wait happens before the next submission); after
 * a transient answer the caller waits (dnsb_engine_wait), once it has said so.
 */
double dnsb_engine_retry_wait(batch_run *br, const dnsb_result *res, dnsb_reason *give_up)
{
	engine *e = br->e;
	int limit = res->cls == DNSB_CLASS_RATE_LIMITED;
	unsigned attempt = limit ? br->limited++ : br->transient++;
	double wait;

	if (attempt >= (limit ? e->o->max_rate_limit_waits : e->o->max_retries)) {
		*give_up = limit ? DNSB_REASON_RATE_LIMITED : DNSB_REASON_TRANSIENT;
		return -1;
	}
	wait = dnsb_backoff_delay(attempt, e->o->backoff_base, e->o->backoff_cap, dnsb_uniform01(&e->rng));
	wait = dnsb_retry_after_wait(wait, res->retry_after, e->o->backoff_cap);
	/* A rate limit's hold that passes the deadline, uncapped: the provider refuses until then, so a resubmission
	 * at the capped wait only spends a submission (DigitalOcean's spent hour against --backoff-cap 0.05). */
	if (e->deadline > 0 && (dnsb_engine_now(e) + wait >= e->deadline ||
				(limit && res->retry_after > 0 && dnsb_engine_now(e) + res->retry_after >= e->deadline))) {
		*give_up = DNSB_REASON_DEADLINE;
		return -1;
	}
	e->rep->retries++;
	dnsb_metrics_retry(e->o->metrics, limit ? "rate_limited" : "transient");
	if (limit)
		dnsb_engine_pacing_hold(e, wait);
	return wait;
}
