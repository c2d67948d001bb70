/*
 * applier/net/ratelimit.h - one rate budget for every instance writing to one
 * provider account (docs/design.md §3.6). Not installed; the HTTP backends
 * reach it through their client's throttle chain (applier/net/throttle.h).
 *
 * A provider's request limit belongs to the account (Route53: a token bucket
 * per AWS account; Cloudflare: 1,200 requests per 5 minutes per token), so N
 * sidecars pacing themselves alone spend N budgets. With a Redis URL, every
 * instance configured with the same key takes its tokens from one bucket kept
 * in Redis: a GCRA (generic cell rate algorithm, ITU-T I.371) evaluated by one
 * server-side Lua script, so taking a token is one atomic round trip that
 * answers how long to wait; the caller sleeps exactly that long (no polling).
 * The budget keeps a margin below the account's own bucket (rate and burst
 * are the account's): it grants DNSB_BUDGET_MARGIN of the rate, and one token
 * less than the burst (at least 1). Requests leave on time but reach the
 * service with milliseconds of jitter; a budget run at exactly the account's
 * rate and burst drains the account's bucket to nothing and the next request
 * that arrives a little early meets a throttle. The token held back absorbs
 * that jitter (one emission interval, 200 ms at 5/s), and the 3% refills it.
 *
 * A throttling answer that still arrives lowers the shared rate by a quarter
 * for everyone for a short while (a key beside the bucket that expires:
 * dnsb_budget_hold, two refills of the burst, 1 to 10 s; 2 s for Route53's
 * 5/s, burst 5), and each further throttle by another quarter: one throttle
 * costs a few requests' worth of the account's capacity, not fifty.
 *
 * Redis away (no answer within the call timeout, 100 ms by default): the
 * instance falls back to a local bucket at rate / instances, says so once in
 * the log and in the stats, tries Redis again at most once a second, and goes
 * back to the shared bucket when Redis answers. Nothing fails because Redis
 * is down.
 *
 * Keys: "dnsbatch:{KEY}:tat" and "dnsbatch:{KEY}:slow"; the hash tag {KEY}
 * keeps both in one slot, so Redis Cluster runs the script.
 *
 * Thread-safe: one budget serves every thread of the sidecar.
 */
#ifndef DNSBATCH_PROVIDERS_RATELIMIT_H
#define DNSBATCH_PROVIDERS_RATELIMIT_H

#include "dnsbatch/common.h"
#include "dnsbatch/config.h"
#include "dnsbatch/provider.h"
#include "dnsbatch/sys/provider.h"

/** A rate budget, shared through Redis or local. Opaque. */
typedef struct dnsb_budget dnsb_budget;

/** Settings of a budget; read during dnsb_budget_new, strings copied. */
typedef struct dnsb_budget_options {
	unsigned version;         /**< DNSB_BUDGET_OPTIONS_VERSION */
	const char *url;          /**< "redis://[user@]HOST[:PORT][/DB]"; NULL = local only. A password
				       in the URL (user:password@) is refused (DNSB_EINVAL): it would sit in
				       /proc/PID/cmdline. rediss:// is refused: Debian 12's hiredis (0.14)
				       has no TLS */
	const char *password;     /**< the Redis password (from --rate-budget-password-file or
				       DNSBATCH_REDIS_PASSWORD); NULL = none. Never logged */
	const char *key;          /**< the account ("aws:123456789012"): instances with the same key share
				       one bucket; NULL = "default" */
	double rate;              /**< tokens per second for the whole account, > 0 */
	double burst;             /**< tokens that may be taken at once after a quiet spell, >= 1 */
	unsigned instances;       /**< the local share when Redis is away is rate / instances, >= 1 */
	double call_timeout;      /**< seconds a Redis call (connect included) may take, > 0 */
	double slow_hold;         /**< seconds the shared rate stays lowered after a throttle, > 0;
				       0 = dnsb_budget_hold(rate, burst) */
} dnsb_budget_options;

#define DNSB_BUDGET_OPTIONS_VERSION 1
#define DNSB_BUDGET_OPTIONS_INIT { DNSB_BUDGET_OPTIONS_VERSION, NULL, NULL, NULL, 5.0, 1.0, 4, 0.1, 0 }

/** The share of the account's rate the budget grants (see above). */
#define DNSB_BUDGET_MARGIN 0.97

/**
 * The rate and burst the budget grants for an account's: rate *
 * DNSB_BUDGET_MARGIN, and burst - 1 (at least 1).
 * @param rate, burst  the account's (> 0, >= 1)
 */
void dnsb_budget_margin(double rate, double burst, double *eff_rate, double *eff_burst);

/**
 * Seconds the rate stays lowered after a throttle: the time the account's
 * bucket takes to refill its burst twice, within 1 and 10 s.
 */
double dnsb_budget_hold(double rate, double burst);

/**
 * One step of the local bucket (GCRA, as the shared one): the wait before a
 * token taken `now` may be used, the bucket's theoretical arrival time *tat
 * advanced; nothing taken when the wait would pass max_wait (> 0).
 * @param now  monotonic seconds
 * @return the wait (>= 0), or the too-long wait negated (*tat unchanged)
 */
double dnsb_budget_gcra(double *tat, double now, double rate, double burst, double max_wait);


/**
 * Create a budget. Does not connect: the first dnsb_budget_take does, and a
 * Redis that cannot be reached then is the fallback, not an error.
 * @param out   receives it (the caller's; dnsb_budget_free)
 * @return 0; DNSB_EINVAL for a bad option (the message names it: a URL that is
 *         not redis://, a rate <= 0, a burst < 1); DNSB_ENOMEM
 */
int dnsb_budget_new(dnsb_budget **out, const dnsb_budget_options *opts, dnsb_error *err);

/**
 * A budget from the provider configuration's generic keys: `rate-budget`
 * (the URL), `rate-budget-key`, `rate-budget-rate` (N or N/s),
 * `rate-budget-burst`, `rate-budget-instances`, `rate-budget-password-file`;
 * the password otherwise from the environment variable DNSBATCH_REDIS_PASSWORD.
 * Without `rate-budget` no budget is made (*out = NULL, return 0).
 * @param dflt  the provider's documented limits and default key (borrowed)
 * @return 0; DNSB_EINVAL naming the flag; DNSB_EIO for an unreadable password file; DNSB_ENOMEM
 */
int dnsb_budget_from_config(dnsb_budget **out, const dnsb_config *cfg, const dnsb_budget_options *dflt,
			    dnsb_error *err);

/**
 * Take one token, sleeping as long as the bucket says: at most `time_left`,
 * and never more than 60 s (issue 38 §1: a bucket set far in the future by
 * whoever can write to that Redis stalls no one). A stop (SIGTERM, SIGINT:
 * dnsb_stop_sleep) ends the sleep at once.
 * @param time_left  seconds the caller has, > 0; 0 (or anything past 60) = 60 s
 * @param waited     receives the seconds slept (may be NULL)
 * @return 0 when the token was taken; DNSB_ERATELIMIT when the wait would pass
 *         time_left or 60 s (nothing was taken, nothing slept), or a stop
 *         ended the sleep (nothing is sent)
 */
int dnsb_budget_take(dnsb_budget *b, double time_left, double *waited);

/**
 * dnsb_budget_take without the sleep: the token is taken for `*wait`
 * seconds from now, and the caller waits that long before it sends (the
 * transport's throttle chain, which keeps other transfers running meanwhile).
 * @param time_left  as dnsb_budget_take's
 * @param wait       receives the seconds to wait (>= 0); 0 on a refusal
 * @return 0; DNSB_ERATELIMIT when the wait would pass time_left or 60 s (nothing taken)
 */
int dnsb_budget_reserve(dnsb_budget *b, double time_left, double *wait);

/** A throttling answer arrived despite the budget: lower the shared rate by a quarter for everyone for the hold (slow_hold). */
void dnsb_budget_throttled(dnsb_budget *b);

/** Copy the figures (dnsbatch/provider.h). Thread-safe (dnsb_hb_budget, the HTTP backends' budget op, gives it). */
void dnsb_budget_stats_get(void *budget, dnsb_budget_stats *out);

/** The flags of dnsb_budget_from_config, for the command line (dnsb_backend_shared_flags). */
extern const dnsb_flag dnsb_budget_flags[];

/** Close the connection and free. NULL is a no-op. */
void dnsb_budget_free(dnsb_budget *b);

#endif
