/* now.c - the OS clocks as seconds: monotonic (for intervals and deadlines) and wall (for timestamps). */
#include <time.h>

#include "applier/core/clock.h"

double dnsb_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double dnsb_wall_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
