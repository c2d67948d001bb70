/*
 * clock.h - the one monotonic clock and the one seedable random source,
 * shared by the engine, the sidecar and the backends.
 */
#ifndef DNSBATCH_CORE_CLOCK_H
#define DNSBATCH_CORE_CLOCK_H

#include <stdint.h>
#include <time.h>

struct dnsb_clock;

/** CLOCK_MONOTONIC in seconds since an arbitrary origin. */
double dnsb_monotonic(void);

/** Sleep this many seconds (nothing when not > 0), resuming after signals. */
void dnsb_sleep(double seconds);

/** The system's wall clock in seconds since the Unix epoch: dnsb_clock_system()'s wall reading. */
double dnsb_wall_clock(void);

/**
 * The wall reading of a clock: seconds since the Unix epoch (UTC), with
 * fractions. The one door to wall time: everything that prints or compares a
 * wall time reads it here, so that a test can fix it.
 * @param clock  borrowed; NULL or a clock without a wall reading = the system's
 */
double dnsb_clock_wall(const struct dnsb_clock *clock);

/**
 * The absolute time `seconds` from now on the system's wall clock, as the timed waits of
 * POSIX threads take it (pthread_cond_timedwait, pthread_mutex_timedlock).
 * Always the system's wall clock, never an injected one: those waits are
 * timed by the system.
 * @param seconds  from now; not > 0 = now
 */
struct timespec dnsb_wall_deadline(double seconds);

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
