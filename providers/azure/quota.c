/*
 * quota.c - the subscription's request quota as Azure Resource Manager
 * reports it (x-ms-ratelimit-remaining-subscription-reads / -writes on every
 * reply), turned into a pace: while plenty remains requests leave at once;
 * once what remains (less the requests sent since the header) falls to the
 * low-water mark, requests leave one per refill interval, the refill rate
 * estimated from successive headers. A 429's Retry-After holds the kind
 * back for as long as it says, within the cap every throttle's Retry-After
 * has (applier/core/backoff.h): DNSB_RETRY_AFTER_CAP_FACTOR x
 * DNSB_HB_THROTTLE_CAP (50 s), the cap base dnsb_hb_get gives the listing
 * pages sent through here (the skeleton's throttle cap, not the engine's
 * --backoff-cap); past it the request is sent again, and a second 429 sets a
 * new hold. The functions on one quota are plain; the pacer below (the
 * header pacer of the transport's throttle chain, applier/net/throttle.h)
 * holds the provider's quota_lock around them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/backoff.h"
#include "providers/azure/internal.h"
#include "applier/net/throttle.h"

#define REMAINING_READS "x-ms-ratelimit-remaining-subscription-reads"
#define REMAINING_WRITES "x-ms-ratelimit-remaining-subscription-writes"

/* Seconds between estimates of the refill rate: shorter spans are mostly in-flight noise. */
#define ESTIMATE_SPAN 1.0
/* The longest interval a pace imposes between two requests (a quota that seems not to refill at all). */
#define PACE_MAX 10.0
/* The interval while the refill rate is not known yet. */
#define PACE_UNKNOWN 1.0

void dnsb_azure_quota_init(dnsb_azure_quota *q)
{
	*q = (dnsb_azure_quota){ .remaining = -1, .anchor_left = -1 };
}

/* Seconds between two requests while paced. */
static double interval(const dnsb_azure_quota *q)
{
	return q->rate > 0 ? fmin(1.0 / q->rate, PACE_MAX) : PACE_UNKNOWN;
}

static int low(const dnsb_azure_quota *q, size_t low_water)
{
	return q->remaining >= 0 && q->remaining - (long)q->since <= (long)low_water;
}

double dnsb_azure_quota_wait(const dnsb_azure_quota *q, size_t low_water, double now)
{
	if (now < q->hold_until)
		return q->hold_until - now;
	if (!low(q, low_water) || now >= q->next_at)
		return 0;
	return q->next_at - now;
}

void dnsb_azure_quota_started(dnsb_azure_quota *q, size_t low_water, double now)
{
	if (low(q, low_water)) {
		q->next_at = now + interval(q);
		q->paced++;
	}
	q->since++;
}

void dnsb_azure_quota_seen(dnsb_azure_quota *q, long remaining, double now)
{
	q->replies++;
	if (q->anchor_left < 0) {
		q->anchor_at = now, q->anchor_left = remaining, q->anchor_replies = q->replies;
	} else if (now - q->anchor_at >= ESTIMATE_SPAN) {
		/* What came back into the quota: what remains now, less what remained, plus what was spent since. */
		double refill = (double)(remaining - q->anchor_left) + (double)(q->replies - q->anchor_replies);
		double rate = refill > 0 ? refill / (now - q->anchor_at) : 0;
		q->rate = q->rate > 0 ? (q->rate + rate) / 2 : rate;
		q->anchor_at = now, q->anchor_left = remaining, q->anchor_replies = q->replies;
	}
	q->remaining = remaining;
	q->since = 0;
}

void dnsb_azure_quota_throttled(dnsb_azure_quota *q, double retry_after, double now)
{
	double until = now + (retry_after > 0 ? dnsb_retry_after_wait(0, retry_after, DNSB_HB_THROTTLE_CAP) : interval(q));

	if (until > q->hold_until)
		q->hold_until = until;
	q->throttled++;
}

long dnsb_azure_quota_count(const char *value)
{
	char buf[32], *end;
	long n;

	if (value == NULL)
		return -1;
	dnsb_http_header_value(buf, sizeof(buf), value, strlen(value));
	n = strtol(buf, &end, 10);
	return end != buf && *end == '\0' && n >= 0 ? n : -1;
}

/* The kind of quota a request counts against: reads for a GET, writes for the rest. */
static dnsb_azure_quota *kind(dnsb_azure *a, const char *method)
{
	return strcmp(method, "GET") == 0 ? &a->reads : &a->writes;
}

static double pace_reserve(void *state, const char *method, double now, double give_up)
{
	dnsb_azure *a = state;
	size_t low = DNSB_AZURE_LOW_WATER(a);
	double wait;

	pthread_mutex_lock(&a->quota_lock);
	wait = dnsb_azure_quota_wait(kind(a, method), low, now);
	if (wait <= DNSB_THROTTLE_CAP && !(wait > 0 && give_up > 0 && now + wait > give_up))
		dnsb_azure_quota_started(kind(a, method), low, now + wait);
	pthread_mutex_unlock(&a->quota_lock);
	return wait;
}

static int pace_note(void *state, const char *method, const dnsb_http_response *resp, double now)
{
	dnsb_azure *a = state;
	long reads = dnsb_azure_quota_count(dnsb_http_header(resp, REMAINING_READS));
	long writes = dnsb_azure_quota_count(dnsb_http_header(resp, REMAINING_WRITES));

	pthread_mutex_lock(&a->quota_lock);
	if (reads >= 0)
		dnsb_azure_quota_seen(&a->reads, reads, now);
	if (writes >= 0)
		dnsb_azure_quota_seen(&a->writes, writes, now);
	if (resp->status == 429)
		dnsb_azure_quota_throttled(kind(a, method), resp->retry_after, now);
	pthread_mutex_unlock(&a->quota_lock);
	return 0; /* a quota running low is paced here, not fed to the budget */
}

void dnsb_azure_pacer(dnsb_pacer *out, dnsb_azure *a)
{
	*out = (dnsb_pacer){ pace_reserve, pace_note, a, { "held", " by the subscription's quota (its pace, a 429's "
							    "Retry-After), past the time left" } };
}
