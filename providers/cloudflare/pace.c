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
 * once. The window and its pace are the shared one (providers/common/window.h);
 * this file reads Cloudflare's headers into it. dnsb_cf_pacer makes it the
 * header pacer of the transport's throttle chain (applier/net/throttle.h):
 * every request of the provider passes it.
 */
#include <stdlib.h>
#include <string.h>

#include "applier/core/backoff.h"
#include "dnsbatch/sys/log.h"
#include "providers/cloudflare/cloudflare.h"
#include "applier/net/throttle.h"
#include "providers/common/window.h"

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
	dnsb_window_init(&p->w, 0.2); /* a fifth of the quota */
	p->absurd = 0;
}

void dnsb_cf_pace_clear(dnsb_cf_pace *p)
{
	dnsb_window_clear(&p->w);
}

double dnsb_cf_pace_reserve(dnsb_cf_pace *p, double now, double give_up)
{
	return dnsb_window_reserve(&p->w, now, give_up, DNSB_CF_PACE_CAP);
}

int dnsb_cf_pace_note(dnsb_cf_pace *p, const dnsb_http_response *resp, double now)
{
	long r, t = -1, q = 0;
	int known = dnsb_cf_ratelimit_read(resp->ratelimit, "r", &r, "t", &t) == 0;

	if (known && t > DNSB_CF_RESET_MAX) {
		known = 0;
		if (__atomic_fetch_add(&p->absurd, 1, __ATOMIC_RELAXED) == 0)
			dnsb_log(DNSB_LOG_WARN, "cloudflare: a RateLimit header resets in %ld s, past %ld s: it makes no "
				 "sense and is ignored (said once)", t, DNSB_CF_RESET_MAX);
	}
	if (dnsb_cf_ratelimit_read(resp->ratelimit_policy, "q", &q, NULL, NULL) != 0)
		q = 0;
	/* A 429 all the same: nothing more until its Retry-After has passed; it, not the window's end, says when. */
	return dnsb_window_note(&p->w, known ? (double)r : -1, (double)t, (double)q,
				resp->status == 429 && resp->retry_after > 0 ? resp->retry_after : 0, now);
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
