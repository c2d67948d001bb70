/*
 * pace.c - slowing down before Cloudflare says 429: its RateLimit and
 * RateLimit-Policy headers (IETF draft httpapi-ratelimit-headers, in the form
 * Cloudflare documents: RateLimit: "default";r=50;t=30 - r requests left, t
 * seconds until the window resets; RateLimit-Policy: "burst";q=100;w=60 - q
 * requests per w seconds) are read from every reply, and once fewer than a
 * fifth of the quota is left, the requests that remain are spread over the
 * time to the reset; none left, the next waits for the reset. Every request
 * of the token (reads and writes) passes here: Cloudflare counts them all
 * against the one limit (1,200 per 5 minutes, shared by every client of the
 * token), and blocks the token for the rest of the window once it is passed.
 * A 429's Retry-After holds every request under the rule every throttle
 * obeys (applier/core/backoff.h): at most DNSB_RETRY_AFTER_CAP_FACTOR x
 * DNSB_HB_THROTTLE_CAP (50 s), the cap base dnsb_hb_get gives the same reply
 * (the skeleton's throttle cap, not the engine's --backoff-cap), so a listing
 * without a deadline is held no longer than its read waits: after that the
 * request is sent again, and a second 429 sets a new hold. A request whose
 * hold or pace passes its give_up, or DNSB_CF_PACE_CAP (60 s, the cap of every
 * wait, issue 38 §1: a listing has no give_up), is not reserved (nor sent).
 * A RateLimit header whose reset makes no sense (past DNSB_CF_RESET_MAX; a
 * fuzzed t=99999999999 held a listing for 3,000 years) is ignored, and said
 * once. dnsb_cf_pacer makes it the header pacer of the transport's throttle
 * chain (providers/common/throttle.h): every request of the provider passes it.
 */
#include <stdlib.h>
#include <string.h>

#include "applier/core/backoff.h"
#include "dnsbatch/sys/log.h"
#include "providers/cloudflare/cloudflare.h"
#include "providers/common/throttle.h"

/* The value of parameter `key` in one item (`len` bytes: "name";k=v;k=v). @return 0, or -1 when absent */
static int item_param(const char *item, size_t len, const char *key, long *value)
{
	size_t klen = strlen(key);

	for (const char *p = item; p < item + len; p++) {
		char *end;
		long v;
		if (*p != ';')
			continue;
		p += strspn(p + 1, " ") + 1;
		if ((size_t)(item + len - p) <= klen || strncmp(p, key, klen) != 0 || p[klen] != '=')
			continue;
		v = strtol(p + klen + 1, &end, 10);
		if (end == p + klen + 1 || v < 0)
			continue;
		*value = v;
		return 0;
	}
	return -1;
}

int dnsb_cf_ratelimit_read(const char *header, const char *key, long *value, const char *key2, long *value2)
{
	int found = 0;

	/* Items are separated by ',' (a name is a token or a string without ','), parameters by ';'. */
	for (const char *item = header; item && *item; item += strcspn(item, ",") + (item[strcspn(item, ",")] != '\0')) {
		size_t len = strcspn(item, ",");
		long v, v2;
		if (item_param(item, len, key, &v) != 0 || (found && v >= *value))
			continue;
		*value = v;
		if (key2 && value2)
			*value2 = item_param(item, len, key2, &v2) == 0 ? v2 : -1;
		found = 1;
	}
	return found ? 0 : -1;
}

void dnsb_cf_pace_init(dnsb_cf_pace *p)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	p->remaining = -1;
	p->ready = 1;
}

void dnsb_cf_pace_clear(dnsb_cf_pace *p)
{
	if (p->ready)
		pthread_mutex_destroy(&p->lock);
	p->ready = 0;
}

/* Fewer than this many left: spread what is left (a fifth of the quota, 10 when no policy came). */
static double low_water(const dnsb_cf_pace *p)
{
	return p->quota > 0 ? (p->quota / 5 > 1 ? p->quota / 5 : 1) : 10;
}

double dnsb_cf_pace_reserve(dnsb_cf_pace *p, double now, double give_up)
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
	/* Not sent (the caller's test, on the same numbers): nothing spent, nobody held back. */
	if (start - now > DNSB_CF_PACE_CAP || (give_up > 0 && now + (start - now) > give_up)) {
		pthread_mutex_unlock(&p->lock);
		return start - now;
	}
	if (known && p->remaining >= 1)
		p->remaining -= 1; /* this one (none left stays none, not unknown); the reply's header says again */
	if (start > now) {
		p->slowed++;
		p->waited += start - now;
	}
	p->last = start;
	pthread_mutex_unlock(&p->lock);
	return start - now;
}

int dnsb_cf_pace_note(dnsb_cf_pace *p, const dnsb_http_response *resp, double now)
{
	long r, t = -1, q;
	int fell = 0, known = dnsb_cf_ratelimit_read(resp->ratelimit, "r", &r, "t", &t) == 0;

	if (known && t > DNSB_CF_RESET_MAX) {
		known = 0;
		if (__atomic_fetch_add(&p->absurd, 1, __ATOMIC_RELAXED) == 0)
			dnsb_log(DNSB_LOG_WARN, "cloudflare: a RateLimit header resets in %ld s, past %ld s: it makes no "
				 "sense and is ignored (said once)", t, DNSB_CF_RESET_MAX);
	}
	pthread_mutex_lock(&p->lock);
	if (dnsb_cf_ratelimit_read(resp->ratelimit_policy, "q", &q, NULL, NULL) == 0 && q > 0)
		p->quota = (double)q;
	if (known) {
		fell = !p->low && (double)r < low_water(p);
		p->low = (double)r < low_water(p);
		p->remaining = (double)r;
		p->reset_at = now + (double)(t > 0 ? t : 1);
	}
	/* A 429 all the same: nothing more until its Retry-After has passed (reads and writes alike); it, not
	 * the window's end, says when, within the cap every throttle's Retry-After has (backoff.h). */
	if (resp->status == 429 && resp->retry_after > 0) {
		p->remaining = 0;
		p->reset_at = now + dnsb_retry_after_wait(0, resp->retry_after, DNSB_HB_THROTTLE_CAP);
	}
	pthread_mutex_unlock(&p->lock);
	return fell;
}

static double pace_reserve(void *state, const char *method, double now, double give_up)
{
	(void)method; /* Cloudflare counts reads and writes alike */
	return dnsb_cf_pace_reserve(state, now, give_up);
}

static int pace_note(void *state, const char *method, const dnsb_http_response *resp, double now)
{
	(void)method;
	return dnsb_cf_pace_note(state, resp, now);
}

void dnsb_cf_pacer(dnsb_pacer *out, dnsb_cf_pace *p)
{
	*out = (dnsb_pacer){ pace_reserve, pace_note, p, { "the token's limit (RateLimit header, 429 Retry-After) "
							   "leaves no request for", ", past the time left or the 60 s cap" } };
}
