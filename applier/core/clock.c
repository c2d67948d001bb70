/* clock.c - the system dnsb_clock (its sleep ends on a stop), deadlines, and splitmix64; the OS clocks are now.c. */
#include <errno.h>
#include <math.h>
#include <time.h>

#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "dnsbatch/clock.h"

double dnsb_clock_wall(const dnsb_clock *clock)
{
	return clock && clock->wall ? clock->wall(clock->payload) : dnsb_wall_clock();
}

struct timespec dnsb_wall_deadline(double seconds)
{
	struct timespec ts;
	double whole = seconds > 0 ? floor(seconds) : 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)whole;
	ts.tv_nsec += seconds > 0 ? (long)((seconds - whole) * 1e9) : 0;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static double system_wall(void *payload)
{
	(void)payload;
	return dnsb_wall_clock();
}

static double system_now(void *payload)
{
	(void)payload;
	return dnsb_monotonic();
}

void dnsb_sleep(double seconds)
{
	struct timespec ts;

	if (!(seconds > 0))
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The engine's waits (backoff, pacing): a stop (a signal, stop.h) ends them at once. */
static void system_sleep(void *payload, double seconds)
{
	(void)payload;
	(void)dnsb_stop_sleep(seconds);
}

const dnsb_clock *dnsb_clock_system(void)
{
	static const dnsb_clock clock = { DNSB_CLOCK_VERSION, system_now, system_sleep, system_wall, NULL };

	return &clock;
}

uint64_t dnsb_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

double dnsb_uniform01(uint64_t *state)
{
	return (double)(dnsb_splitmix64(state) >> 11) / 9007199254740992.0;
}
