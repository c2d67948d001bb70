/*
 * clock.h - the one monotonic clock and the one seedable random source,
 * shared by the engine, the sidecar and the backends.
 */
#ifndef DNSBATCH_CORE_CLOCK_H
#define DNSBATCH_CORE_CLOCK_H

#include <stdint.h>

/** CLOCK_MONOTONIC in seconds since an arbitrary origin. */
double dnsb_monotonic(void);

/** Sleep this many seconds (nothing when not > 0), resuming after signals. */
void dnsb_sleep(double seconds);

/** CLOCK_REALTIME in seconds since the Unix epoch. */
double dnsb_wall_clock(void);

/**
 * splitmix64 (Steele, Lea, Flood 2014): small and seedable, for jitter and
 * fault injection, never for secrets.
 * @param state  the generator's state (the caller's), advanced
 * @return the next 64 random bits
 */
uint64_t dnsb_splitmix64(uint64_t *state);

/** A uniform double in [0, 1) from dnsb_splitmix64 (53 bits). */
double dnsb_uniform01(uint64_t *state);

#endif
