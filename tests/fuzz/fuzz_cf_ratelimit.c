/*
 * fuzz_cf_ratelimit.c - libFuzzer: any bytes as the headers of a run of
 * Cloudflare replies ("RateLimit:", "RateLimit-Policy:", "Retry-After:"
 * lines, a blank line ending each reply, "429" as a line making it a 429),
 * each reply's values trimmed as libcurl's header API hands them and given
 * to the pace through its header pacer (dnsb_cf_pacer's note), then the
 * next request reserved through it, one second later each. A wait must be a number of seconds >= 0, and one past
 * DNSB_CF_PACE_CAP (the caller does not send then) must reserve nothing;
 * what is said is at most a reset that makes sense (DNSB_CF_RESET_MAX) past
 * the last request let go (at most the cap ahead): a reset past it is
 * ignored, a 429's hold is capped at DNSB_RETRY_AFTER_CAP_FACTOR x
 * DNSB_HB_THROTTLE_CAP.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "providers/cloudflare/cloudflare.h"
#include "applier/net/throttle.h"
#include "fuzz_common.h"

#ifndef WAIT_MAX
#define WAIT_MAX ((double)DNSB_CF_RESET_MAX + DNSB_CF_PACE_CAP) /* -DWAIT_MAX=1e300 to look past it */
#endif

static void reply_done(dnsb_cf_pace *p, const dnsb_pacer *pacer, dnsb_http_response *resp, double *now, size_t round)
{
	double wait;
	long v = -2, v2 = -2;
	unsigned long slowed = p->slowed;

	if (dnsb_cf_ratelimit_read(resp->ratelimit, "r", &v, "t", &v2) == 0 && (v < 0 || v2 < -1))
		abort(); /* a value read negative */
	(void)pacer->note(pacer->state, "GET", resp, *now);
	/* Every other request without a deadline, as a listing without one (give_up 0) makes it. */
	slowed = p->slowed;
	wait = pacer->reserve(pacer->state, round % 2 ? "GET" : "POST", *now, round % 2 ? *now + 30.0 : 0);
	if (!isfinite(wait) || wait < 0 || wait > WAIT_MAX || (wait > DNSB_CF_PACE_CAP && p->slowed != slowed)) {
		fprintf(stderr, "RateLimit '%s', RateLimit-Policy '%s', status %ld, Retry-After %.3f: a wait of %g s\n",
			resp->ratelimit, resp->ratelimit_policy, resp->status, resp->retry_after, wait);
		abort();
	}
	memset(resp, 0, sizeof(*resp));
	resp->status = 200;
	resp->retry_after = -1;
	*now += 1.0;
}

static void header_line(dnsb_http_response *resp, const char *line, size_t len)
{
	char value[128];

	if (len == 3 && memcmp(line, "429", 3) == 0)
		resp->status = 429;
	else if (len > 17 && strncasecmp(line, "RateLimit-Policy:", 17) == 0)
		dnsb_http_header_value(resp->ratelimit_policy, sizeof(resp->ratelimit_policy), line + 17, len - 17);
	else if (len > 10 && strncasecmp(line, "RateLimit:", 10) == 0)
		dnsb_http_header_value(resp->ratelimit, sizeof(resp->ratelimit), line + 10, len - 10);
	else if (len > 12 && strncasecmp(line, "Retry-After:", 12) == 0) {
		dnsb_http_header_value(value, sizeof(value), line + 12, len - 12);
		resp->retry_after = dnsb_http_retry_after(value, 1700000000);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *line, *end;
	dnsb_http_response resp;
	dnsb_cf_pace pace;
	dnsb_pacer pacer;
	double now = 1000.0;
	size_t round = 0;

	if (text == NULL)
		return 0;
	dnsb_cf_pace_init(&pace);
	dnsb_cf_pacer(&pacer, &pace);
	memset(&resp, 0, sizeof(resp));
	resp.status = 200;
	resp.retry_after = -1;
	for (line = text; line < text + size && round < 64; line = end + 1) {
		end = memchr(line, '\n', (size_t)(text + size - line));
		if (end == NULL)
			end = text + size;
		if (end == line || (end == line + 1 && *line == '\r'))
			reply_done(&pace, &pacer, &resp, &now, round++);
		else
			header_line(&resp, line, (size_t)(end - line));
	}
	reply_done(&pace, &pacer, &resp, &now, round);
	dnsb_cf_pace_clear(&pace);
	free(text);
	return 0;
}
