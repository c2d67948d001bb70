/*
 * http_many.c - requests side by side (dnsb_http_many): one libcurl multi
 * handle per client, kept across calls (its connections reused, HTTP/2
 * multiplexed where the server offers it), at most max_in_flight transfers
 * at a time. The next request in line asks the throttle chain for its slot
 * once; while the chain's wait runs, the transfers already running go on,
 * and the loop sleeps in curl_multi_poll until a transfer ends or the wait
 * is over (no polling in small steps).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "applier/net/http_xfer.h"

/* Longest sleep of one turn of the loop (ms): a stop (a signal) is seen within it. */
#define TURN_MS 100

typedef struct run {
	dnsb_http *h;
	dnsb_http_item *items;
	dnsb_http_xfer *xs;
	size_t n, next, running, max;
	double give_up;
	double head_at;  /* monotonic: when items[next] goes on (its slot taken); < 0: not asked yet */
	int head_budget; /* 1 once items[next] holds the budget's token too: at head_at it starts */
	const dnsb_http_hooks *hooks;
} run;

static void done(run *r, size_t i)
{
	if (r->hooks && r->hooks->done)
		r->hooks->done(r->hooks->payload, i, &r->items[i]);
}

/* items[next] is not sent: rc and err say why (hold: the chain's wait, -1 none). */
static void skip(run *r, int rc, double hold)
{
	dnsb_http_item *it = &r->items[r->next];

	it->rc = rc;
	it->resp.retry_after = hold;
	dnsb_http_hold(r->h, hold);
	r->head_at = -1;
	r->head_budget = 0;
	done(r, r->next++);
}

/* Ask the hook and the chain for items[next]. @return 1 when it has its start time in head_at, 0 when skipped */
static int ask(run *r, double now)
{
	dnsb_http_item *it = &r->items[r->next];
	double wait;
	int rc;

	if (r->give_up > 0 && now >= r->give_up) {
		dnsb_error_set(&it->err, DNSB_ETRANSIENT, "%s %s: not sent: no time left", it->req.method, it->req.url);
		skip(r, DNSB_ETRANSIENT, -1);
		return 0;
	}
	if (r->hooks && r->hooks->start && (rc = r->hooks->start(r->hooks->payload, r->next, it)) != 0) {
		skip(r, rc, -1);
		return 0;
	}
	if (!it->uncounted && dnsb_throttle_pace(&r->h->throttle, it->req.method, now, r->give_up, &wait, &it->err) != 0) {
		skip(r, DNSB_ERATELIMIT, wait);
		return 0;
	}
	r->head_at = now + (it->uncounted ? 0 : wait);
	r->head_budget = it->uncounted;
	return 1;
}

/* The budget's token of items[next], its pacer's slot reached. @return 1 when it has its start time, 0 when skipped */
static int take_budget(run *r, double now)
{
	dnsb_http_item *it = &r->items[r->next];
	double wait, left = r->give_up > 0 ? r->give_up - now : 0;

	if (r->give_up > 0 && left <= 0.001)
		left = 0.001;
	if (dnsb_throttle_budget(&r->h->throttle, it->req.method, it->req.url, left, &wait, &it->err) != 0) {
		skip(r, DNSB_ERATELIMIT, -1);
		return 0;
	}
	r->head_at = now + wait;
	r->head_budget = 1;
	return 1;
}

/* Start items[next] now. @return 0; DNSB_ENOMEM */
static int start(run *r, double now)
{
	dnsb_http_item *it = &r->items[r->next];
	dnsb_http_xfer *x = &r->xs[r->next];
	double seconds = r->h->timeout;
	int rc;

	if (r->give_up > 0 && r->give_up - now < seconds)
		seconds = r->give_up - now > 0.001 ? r->give_up - now : 0.001;
	x->start = now;
	if ((rc = dnsb_http_xfer_setup(r->h, x, &it->req, NULL, 0, seconds, &it->err)) != 0) {
		skip(r, rc, -1);
		return rc == DNSB_ENOMEM ? rc : 0;
	}
	if (curl_multi_add_handle(r->h->multi, x->curl) != CURLM_OK) {
		dnsb_http_xfer_free(x);
		dnsb_error_set(&it->err, DNSB_ENOMEM, "out of memory");
		skip(r, DNSB_ENOMEM, -1);
		return DNSB_ENOMEM;
	}
	atomic_fetch_add(&r->h->requests, 1);
	r->head_at = -1;
	r->head_budget = 0;
	r->next++;
	r->running++;
	return 0;
}

/*
 * Start what may start now. @return the seconds until the next in line may
 * start (0: none waits), or -1.0 on DNSB_ENOMEM
 */
static double start_some(run *r)
{
	while (r->next < r->n && r->running < r->max) {
		double now = dnsb_monotonic();
		if (r->head_at < 0 && !ask(r, now))
			continue;
		if (now < r->head_at && dnsb_stop_requested()) { /* a stop ends the wait: not sent */
			dnsb_error_set(&r->items[r->next].err, DNSB_ERATELIMIT, "%s %s: not sent: the apply was stopped "
				       "while the rate limit held it back", r->items[r->next].req.method,
				       r->items[r->next].req.url);
			skip(r, DNSB_ERATELIMIT, r->head_at - now);
			continue;
		}
		if (now < r->head_at)
			return r->head_at - now;
		if (!r->head_budget && !take_budget(r, now))
			continue;
		if (r->head_budget && now < r->head_at)
			continue; /* the budget's wait: told at the top of the next turn */
		if (start(r, now) != 0)
			return -1.0;
	}
	return 0;
}

/* The transfers that ended, into their items. */
static void reap(run *r)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(r->h->multi, &left)) != NULL) {
		dnsb_http_xfer *x;
		dnsb_http_item *it;
		size_t i;
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		i = (size_t)(x - r->xs);
		it = &r->items[i];
		curl_multi_remove_handle(r->h->multi, msg->easy_handle);
		it->rc = dnsb_http_xfer_finish(r->h, x, msg->data.result, &it->req, &it->resp, &it->err);
		if (it->rc == 0 && !it->uncounted)
			dnsb_throttle_note(&r->h->throttle, it->req.method, &it->resp, dnsb_monotonic());
		r->running--;
		done(r, i);
	}
}

static int loop(run *r)
{
	int still;

	while (r->next < r->n || r->running > 0) {
		double wait = start_some(r);
		if (wait < 0)
			return DNSB_ENOMEM;
		if (r->running == 0) {
			if (wait > 0)
				(void)dnsb_stop_sleep(wait); /* a stop ends it: start_some then sends none of those held */
			continue;
		}
		if (curl_multi_perform(r->h->multi, &still) != CURLM_OK)
			return DNSB_ENOMEM; /* libcurl's multi handle is out of memory or broken: none can go on */
		reap(r);
		if (r->running > 0 &&
		    curl_multi_poll(r->h->multi, NULL, 0, wait > 0 && wait * 1000 < TURN_MS ? (int)ceil(wait * 1000) : TURN_MS,
				    NULL) != CURLM_OK)
			return DNSB_ENOMEM;
	}
	return 0;
}

/* The client's multi handle, made at first use. @return 0 or DNSB_ENOMEM */
static int multi_of(dnsb_http *h, size_t max_in_flight)
{
	if (h->multi == NULL && (h->multi = curl_multi_init()) == NULL)
		return DNSB_ENOMEM;
	if (curl_multi_setopt(h->multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX) != CURLM_OK ||
	    curl_multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)max_in_flight) != CURLM_OK)
		return DNSB_ENOMEM;
	return 0;
}

int dnsb_http_many(dnsb_http *h, dnsb_http_item *items, size_t n, size_t max_in_flight, double give_up,
		   const dnsb_http_hooks *hooks, dnsb_error *err)
{
	run r = { h, items, NULL, n, 0, 0, max_in_flight ? max_in_flight : 1, give_up, -1, 0, hooks };
	int rc;

	for (size_t i = 0; i < n; i++) {
		items[i].rc = DNSB_ENOMEM; /* until it is done */
		memset(&items[i].resp, 0, sizeof(items[i].resp));
		items[i].err = (dnsb_error){ 0, "" };
	}
	if (n == 0)
		return 0;
	if ((r.xs = calloc(n, sizeof(*r.xs))) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	pthread_mutex_lock(&h->multi_lock);
	if ((rc = multi_of(h, r.max)) == 0)
		rc = loop(&r);
	for (size_t i = 0; i < n; i++) {
		if (r.xs[i].curl)
			curl_multi_remove_handle(h->multi, r.xs[i].curl);
		dnsb_http_xfer_free(&r.xs[i]);
	}
	pthread_mutex_unlock(&h->multi_lock);
	free(r.xs);
	if (rc != 0)
		return dnsb_error_set(err, rc, "out of memory");
	return 0;
}
