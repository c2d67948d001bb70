/*
 * fuzz_azure_quota.c - libFuzzer: any bytes as a run of Azure Resource
 * Manager replies to one kind of request, one line each:
 *   "x-ms-ratelimit-remaining-subscription-writes: N"  the quota header,
 *   "Retry-After: V"                                    a 429 holding V,
 *   anything else                                       a request started,
 * each value trimmed by dnsb_http_header_value and read as send.c reads it
 * (a count by strtol, a Retry-After by dnsb_http_retry_after), given to the
 * quota (providers/azure/quota.c), the clock moving on a little per line.
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
#include "providers/azure/azure.h"
#include "providers/backend.h"
#include "providers/http.h"
#include "fuzz_common.h"

#define REMAINING "x-ms-ratelimit-remaining-subscription-writes:"
#define LOW_WATER 10
/* The hold of a 429 (capped) plus the longest pace interval quota.c keeps (PACE_MAX, 10 s). */
#define WAIT_MAX (DNSB_RETRY_AFTER_CAP_FACTOR * DNSB_HB_THROTTLE_CAP + 10.0)

static long count_of(const char *v, size_t len)
{
	char buf[32], *end;
	long n;

	dnsb_http_header_value(buf, sizeof(buf), v, len);
	n = strtol(buf, &end, 10);
	return end != buf && *end == '\0' && n >= 0 ? n : -1;
}

static void line(dnsb_azure_quota *q, const char *s, size_t n, double now)
{
	size_t lr = strlen(REMAINING);
	char value[128];
	long left;

	if (n > lr && strncasecmp(s, REMAINING, lr) == 0) {
		if ((left = count_of(s + lr, n - lr)) >= 0)
			dnsb_azure_quota_seen(q, left, now);
	} else if (n > 12 && strncasecmp(s, "Retry-After:", 12) == 0) {
		dnsb_http_header_value(value, sizeof(value), s + 12, n - 12);
		dnsb_azure_quota_throttled(q, dnsb_http_retry_after(value, (time_t)1700000000 + (time_t)now), now);
	} else {
		dnsb_azure_quota_started(q, LOW_WATER, now);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dnsb_azure_quota q;
	const char *s = (const char *)data, *end = s + size;
	double now = 1000.0, wait;

	dnsb_azure_quota_init(&q);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = (size_t)((nl ? nl : end) - s);

		line(&q, s, n, now);
		wait = dnsb_azure_quota_wait(&q, LOW_WATER, now);
		if (!(wait >= 0) || wait > WAIT_MAX)
			abort(); /* a wait that is not a number of seconds, or one nothing bounds */
		now += 0.05 + (double)(n % 7) * 0.1;
		s = nl ? nl + 1 : end;
	}
	return 0;
}
