/*
 * dnsbatch/clock.h - the clock the engine waits on, injectable so that tests
 * run without waiting.
 */
#ifndef DNSBATCH_CLOCK_H
#define DNSBATCH_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A clock, injectable so that tests run without waiting. Times are seconds
 * (double) since an arbitrary origin; sleep waits that many seconds.
 */
typedef struct dnsb_clock {
	double (*now)(void *payload);
	void (*sleep)(void *payload, double seconds);
	void *payload;
} dnsb_clock;

/** The real clock: CLOCK_MONOTONIC and nanosleep. Static. */
const dnsb_clock *dnsb_clock_system(void);

#ifdef __cplusplus
}
#endif
#endif
