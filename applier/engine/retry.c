/* retry.c - the clock and the full-jitter backoff (DESIGN §3). */
#include <errno.h>
#include <math.h>
#include <time.h>

#include "dnsbatch/engine.h"

static double system_now(void *payload)
{
	struct timespec ts;

	(void)payload;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void system_sleep(void *payload, double seconds)
{
	struct timespec ts;

	(void)payload;
	if (!(seconds > 0))
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

const dnsb_clock *dnsb_clock_system(void)
{
	static const dnsb_clock clock = { system_now, system_sleep, NULL };

	return &clock;
}

double dnsb_backoff_delay(unsigned attempt, double base, double cap, double u)
{
	/* base * 2^attempt overflows nothing that matters once it passes cap. */
	double ceiling = attempt >= 63 ? cap : fmin(cap, base * ldexp(1.0, (int)attempt));

	return u * ceiling;
}
