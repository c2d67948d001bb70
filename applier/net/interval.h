/*
 * applier/net/interval.h - a provider's own submission interval (external-dns's
 * --google-batch-change-interval, --aws-batch-change-interval): change
 * batches leave at least that far apart, so as not to meet the API's rate
 * limit at all. Not installed. It is the rate budget's local bucket
 * (applier/net/ratelimit.h, dnsb_budget_gcra) with burst 1, one link of the
 * throttle chain (applier/net/throttle.h) on batches. The engine's pacing
 * after a rate limit is another thing (applier/core/pacing.h).
 */
#ifndef DNSBATCH_PROVIDERS_INTERVAL_H
#define DNSBATCH_PROVIDERS_INTERVAL_H

#include <pthread.h>

#include "dnsbatch/common.h"

/** The slots of one provider. Initialise with dnsb_interval_init; thread-safe after. */
typedef struct dnsb_interval {
	double every;          /**< seconds between two submissions; <= 0: no pacing */
	const char *flag;      /**< the flag that set it, for messages ("aws-batch-change-interval"); static */
	pthread_mutex_t lock;  /**< guards next */
	double next;           /**< monotonic: the bucket's theoretical arrival time (dnsb_budget_gcra) */
} dnsb_interval;

/** Set up (every: seconds; flag: a static string without dashes). */
void dnsb_interval_init(dnsb_interval *iv, double every, const char *flag);

/** Release the lock. */
void dnsb_interval_clear(dnsb_interval *iv);

/**
 * Take the next slot and sleep until it (the slot is taken under the lock,
 * waited for outside it, so concurrent submitters queue one interval apart).
 * @param give_up  monotonic time by which the caller must answer, or 0
 * @return 0; DNSB_ETRANSIENT (err names the flag) when the slot comes at or
 *         after give_up: nothing is taken; DNSB_ERATELIMIT when a stop
 *         (dnsb_stop_request: SIGTERM, SIGINT) ends the wait: not to be sent
 */
int dnsb_interval_wait(dnsb_interval *iv, double give_up, dnsb_error *err);

#endif
