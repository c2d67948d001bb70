/*
 * backoff.c - a throttle's Retry-After as a floor over the backoff, capped
 * (backoff.h).
 */
#include <math.h>

#include "applier/core/backoff.h"

double dnsb_retry_after_wait(double backoff, double retry_after, double cap)
{
	if (retry_after > backoff)
		return fmin(retry_after, cap * DNSB_RETRY_AFTER_CAP_FACTOR);
	return backoff;
}
