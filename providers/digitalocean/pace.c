/*
 * pace.c - slowing down before DigitalOcean says 429. Every reply carries
 * ratelimit-limit (the token's requests per hour, 5,000), ratelimit-remaining
 * and ratelimit-reset (the Unix time when the oldest request counted leaves
 * the window and one more may be made). Every request of the token passes
 * here (reads and writes count alike): while more than a twentieth of the
 * limit is left nothing waits; below it, what is left is spread over the
 * time to the reset; none left, the next request waits for the reset. A
 * 429 (the hourly limit, or the 250 per minute the headers do not announce)
 * holds every request until its Retry-After, else the reset, within the cap
 * every throttle's Retry-After has (applier/core/backoff.h). A wait past the
 * request's give_up or DNSB_THROTTLE_CAP reserves nothing: the request is
 * not sent (rate_limited), and the engine waits the hold. dnsb_do_pacer
 * makes it the header pacer of the transport's throttle chain
 * (providers/common/throttle.h).
 */
#include <stdlib.h>
#include <string.h>

#include "applier/core/backoff.h"
#include "applier/core/clock.h"
#include "providers/digitalocean/digitalocean.h"
#include "providers/common/throttle.h"

/* A reset further than this from now makes no sense (the window is an hour): ignored. */
#define RESET_MAX 3660.0

void dnsb_do_pace_init(dnsb_do_pace *p)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	p->remaining = -1;
	p->ready = 1;
}

void dnsb_do_pace_clear(dnsb_do_pace *p)
{
	if (p->ready)
		pthread_mutex_destroy(&p->lock);
	p->ready = 0;
}

static double low_water(const dnsb_do_pace *p)
{
	return p->limit > 0 ? (p->limit / 20 > 1 ? p->limit / 20 : 1) : 10;
}

double dnsb_do_pace_reserve(dnsb_do_pace *p, double now, double give_up)
{
	double start = now;
	int known;

	pthread_mutex_lock(&p->lock);
	if ((known = p->remaining >= 0 && now < p->reset_at)) {
		if (p->remaining < 1)
			start = p->reset_at;
		else if (p->remaining < low_water(p))
			start = p->last + (p->reset_at - now) / p->remaining;
		if (start < now)
			start = now;
	}
	if (start - now > DNSB_THROTTLE_CAP || (give_up > 0 && start > give_up)) {
		pthread_mutex_unlock(&p->lock);
		return start - now; /* not sent: nothing spent */
	}
	if (known && p->remaining >= 1)
		p->remaining -= 1;
	if (start > now)
		p->slowed++;
	p->last = start;
	pthread_mutex_unlock(&p->lock);
	return start - now;
}

double dnsb_do_pace_room(dnsb_do_pace *p, double need, double now)
{
	double wait = 0;

	pthread_mutex_lock(&p->lock);
	if (p->limit > 0 && need > p->limit / 2)
		need = p->limit / 2; /* a batch larger than half the hour waits for nothing it could ever have */
	if (p->remaining >= 0 && now < p->reset_at && p->remaining < need)
		wait = p->reset_at - now;
	pthread_mutex_unlock(&p->lock);
	return wait;
}

/* A header's number, or -1 when absent or not one. */
static double header_number(const dnsb_http_response *resp, const char *name)
{
	const char *v = dnsb_http_header(resp, name);
	char *end;
	double x = v ? strtod(v, &end) : -1;

	return v && end != v && x >= 0 && x < 1e15 ? x : -1;
}

int dnsb_do_pace_note(dnsb_do_pace *p, const dnsb_http_response *resp, double now, double wall)
{
	double left = header_number(resp, "ratelimit-remaining"), limit = header_number(resp, "ratelimit-limit");
	double reset = header_number(resp, "ratelimit-reset"), in = reset >= 0 ? reset - wall : -1;
	int fell = 0;

	if (in > RESET_MAX)
		left = in = -1; /* nonsense: ignored */
	pthread_mutex_lock(&p->lock);
	if (limit > 0)
		p->limit = limit;
	if (left >= 0 && in >= 0) {
		int low = left < low_water(p);
		fell = low && (p->remaining < 0 || p->remaining >= low_water(p));
		p->remaining = left;
		p->reset_at = now + (in > 1 ? in : 1);
	}
	if (resp->status == 429) {
		double hold = resp->retry_after > 0 ? resp->retry_after : (in > 0 ? in : 1);
		p->throttled++;
		p->remaining = 0;
		p->reset_at = now + dnsb_retry_after_wait(0, hold, DNSB_HB_THROTTLE_CAP);
	}
	pthread_mutex_unlock(&p->lock);
	return fell;
}

static double pace_reserve(void *state, const char *method, double now, double give_up)
{
	(void)method; /* reads and writes count alike */
	return dnsb_do_pace_reserve(state, now, give_up);
}

static int pace_note(void *state, const char *method, const dnsb_http_response *resp, double now)
{
	(void)method;
	return dnsb_do_pace_note(state, resp, now, dnsb_wall_clock());
}

void dnsb_do_pacer(dnsb_pacer *out, dnsb_do_pace *p)
{
	*out = (dnsb_pacer){ pace_reserve, pace_note, p, { "the token's limit (ratelimit-remaining, ratelimit-reset, "
							   "429) leaves no request for", ", past the time left or the 60 s cap" } };
}
