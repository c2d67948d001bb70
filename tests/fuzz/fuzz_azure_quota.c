/*
 * fuzz_azure_quota.c - libFuzzer: any bytes as a run of Azure Resource
 * Manager replies to one kind of request, one line each:
 *   "x-ms-ratelimit-remaining-subscription-writes: N"  the quota header,
 *   "Retry-After: V"                                    a 429 holding V,
 *   anything else                                       a request started,
 * each value trimmed by dnsb_http_header_value as libcurl's header API hands
 * it, in a reply given to the provider's header pacer (dnsb_azure_pacer: the
 * count read by dnsb_azure_quota_count, a 429's Retry-After by
 * dnsb_http_retry_after; a request reserved through it and sent at its slot),
 * the clock moving on a little per line.
 * The wait the quota asks must be a number of seconds >= 0 and never past
 * the cap every throttle has (DNSB_RETRY_AFTER_CAP_FACTOR x
 * DNSB_HB_THROTTLE_CAP) or the longest pace interval: whatever the headers
 * say, no request is held for hours.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "applier/core/backoff.h"
#include "providers/azure/internal.h"
#include "providers/common/backend.h"
#include "applier/net/http.h"
#include "applier/net/throttle.h"
#include "fuzz_common.h"

#define REMAINING "x-ms-ratelimit-remaining-subscription-writes:"
#define LOW_WATER 10
/* The hold of a 429 (capped) plus the longest pace interval quota.c keeps (PACE_MAX, 10 s). */
#define WAIT_MAX (DNSB_RETRY_AFTER_CAP_FACTOR * DNSB_HB_THROTTLE_CAP + 10.0)

/* A reply holding one header, its value trimmed as libcurl's header API hands it. */
static void reply_of(dnsb_http_response *resp, char *block, size_t size, const char *name, const char *v, size_t len)
{
	size_t nl = strlen(name) + 1;

	memcpy(block, name, nl);
	dnsb_http_header_value(block + nl, size - nl, v, len);
	resp->headers = block;
	resp->headers_len = nl + strlen(block + nl) + 1;
}

/* One line at *now; a request reserved waits its slot (the clock moves on to it), as dnsb_http_many's does. */
static void line(const dnsb_pacer *p, const char *s, size_t n, double *now_p)
{
	double now = *now_p;
	size_t lr = strlen(REMAINING);
	char value[128], block[256];
	dnsb_http_response resp = { 0 };
	double wait;

	resp.status = 200;
	resp.retry_after = -1;
	if (n > lr && strncasecmp(s, REMAINING, lr) == 0) {
		reply_of(&resp, block, sizeof(block), "x-ms-ratelimit-remaining-subscription-writes", s + lr, n - lr);
		(void)p->note(p->state, "PUT", &resp, now);
	} else if (n > 12 && strncasecmp(s, "Retry-After:", 12) == 0) {
		dnsb_http_header_value(value, sizeof(value), s + 12, n - 12);
		resp.status = 429;
		resp.retry_after = dnsb_http_retry_after(value, (time_t)1700000000 + (time_t)now);
		(void)p->note(p->state, "PUT", &resp, now);
	} else {
		wait = p->reserve(p->state, "PUT", now, 0);
		if (!(wait >= 0) || wait > WAIT_MAX)
			abort();
		if (wait <= DNSB_THROTTLE_CAP)
			*now_p = now + wait; /* taken: the request leaves then */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static dnsb_azure a;
	dnsb_pacer p;
	const char *s = (const char *)data, *end = s + size;
	double now = 1000.0, wait;

	memset(&a, 0, sizeof(a));
	a.cfg.max_in_flight = 3; /* low water 2 x 3 + 4 = LOW_WATER */
	pthread_mutex_init(&a.quota_lock, NULL);
	dnsb_azure_quota_init(&a.reads);
	dnsb_azure_quota_init(&a.writes);
	dnsb_azure_pacer(&p, &a);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = (size_t)((nl ? nl : end) - s);

		line(&p, s, n, &now);
		wait = dnsb_azure_quota_wait(&a.writes, LOW_WATER, now);
		if (!(wait >= 0) || wait > WAIT_MAX)
			abort(); /* a wait that is not a number of seconds, or one nothing bounds */
		now += 0.05 + (double)(n % 7) * 0.1;
		s = nl ? nl + 1 : end;
	}
	pthread_mutex_destroy(&a.quota_lock);
	return 0;
}
