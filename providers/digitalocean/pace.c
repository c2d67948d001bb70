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
 * not sent (rate_limited), and the engine waits the hold. The window and
 * its pace are the shared one (providers/common/window.h, as Cloudflare's);
 * this file reads DigitalOcean's headers into it. dnsb_do_pacer makes it the
 * header pacer of the transport's throttle chain (applier/net/throttle.h).
 */
#include <stdlib.h>
#include <string.h>

#include "applier/core/backoff.h"
#include "applier/core/clock.h"
#include "providers/digitalocean/digitalocean.h"
#include "applier/net/throttle.h"
#include "providers/common/window.h"

/* A reset further than this from now makes no sense (the window is an hour): ignored. */
#define RESET_MAX 3660.0

void dnsb_do_pace_init(dnsb_do_pace *p)
{
	dnsb_window_init(p, 0.05); /* a twentieth of the limit */
}

void dnsb_do_pace_clear(dnsb_do_pace *p)
{
	dnsb_window_clear(p);
}

double dnsb_do_pace_reserve(dnsb_do_pace *p, double now, double give_up)
{
	return dnsb_window_reserve(p, now, give_up, DNSB_THROTTLE_CAP);
}

double dnsb_do_pace_room(dnsb_do_pace *p, double need, double now)
{
	return dnsb_window_room(p, need, now);
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

	if (in > RESET_MAX || in < 0)
		left = in = -1; /* nonsense, or not said: ignored */
	/* a 429 holds every request until its Retry-After, else the reset */
	return dnsb_window_note(p, left, in, limit, resp->status != 429 ? 0 :
				resp->retry_after > 0 ? resp->retry_after : (in > 0 ? in : 1), now);
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
