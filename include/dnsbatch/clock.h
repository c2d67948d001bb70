/*
 * dnsbatch/clock.h - the clock the engine reads and waits on, injectable so
 * that tests run without waiting and fix the times they print.
 */
#ifndef DNSBATCH_CLOCK_H
#define DNSBATCH_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A clock, injectable so that tests run without waiting. Start from
 * DNSB_CLOCK_INIT and set the readings; a clock of another version is
 * refused (DNSB_EINVAL) by those that take one.
 */
typedef struct dnsb_clock {
	unsigned version;                              /**< DNSB_CLOCK_VERSION */
	/** Monotonic seconds since an arbitrary origin: timeouts, backoff, the quarantine's holds. */
	double (*now)(void *payload);
	/** Wait this many seconds on the `now` clock. */
	void (*sleep)(void *payload, double seconds);
	/** Wall time, seconds since the Unix epoch (UTC), with fractions: the times
	 *  the logs, the drop log and GET /quarantine print, credentials' expiry.
	 *  NULL = the system's (CLOCK_REALTIME). */
	double (*wall)(void *payload);
	void *payload;                                 /**< passed to each reading; borrowed */
} dnsb_clock;

#define DNSB_CLOCK_VERSION 1
#define DNSB_CLOCK_INIT { DNSB_CLOCK_VERSION, 0, 0, 0, 0 }

/** The real clock: CLOCK_MONOTONIC, poll and CLOCK_REALTIME; its sleep ends at once when the process is
 *  asked to stop (SIGINT, SIGTERM, SIGHUP, SIGQUIT in the dnsbatch program). Static. */
const dnsb_clock *dnsb_clock_system(void);

#ifdef __cplusplus
}
#endif
#endif
