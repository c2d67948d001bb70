/*
 * backoff.c - the full-jitter backoff, and a throttle's Retry-After as a
 * floor over it, capped (backoff.h).
 */
#include <math.h>

#include "applier/core/backoff.h"

double dnsb_backoff_delay(unsigned attempt, double base, double cap, double u)
{
	/* base * 2^attempt overflows nothing that matters once it passes cap. */
	double ceiling = attempt >= 63 ? cap : fmin(cap, base * ldexp(1.0, (int)attempt));

	return u * ceiling;
}

double dnsb_retry_after_wait(double backoff, double retry_after, double cap)
{
	if (retry_after > backoff)
		return fmin(retry_after, cap * DNSB_RETRY_AFTER_CAP_FACTOR);
	return backoff;
}
