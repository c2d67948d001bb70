/*
 * ratelimit.c - the rate budget (see ratelimit.h): the shared bucket in Redis
 * when it answers, else a local bucket at the instance's share; the wait is
 * slept outside the lock, so threads queue one emission interval apart.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "dnsbatch/sys/log.h"
#include "dnsbatch/sys/provider.h"
#include "applier/net/ratelimit.h"
#include "applier/net/ratelimit_redis.h"

/* After Redis is found away, it is tried again at most this often (seconds). */
#define REDIS_RETRY_EVERY 1.0
/* No wait is longer than this (seconds), deadline or none: past it the request is rate_limited, not sent. */
#define MAX_WAIT 60.0

struct dnsb_budget {
	pthread_mutex_t lock;        /* guards everything below */
	dnsb_redis_target target;
	int shared;                  /* a URL was given */
	dnsb_redis *redis;           /* NULL: not connected (yet, or Redis is away) */
	char *key;
	double rate, burst, call_timeout, slow_hold; /* rate and burst: granted, the margin kept (dnsb_budget_margin) */
	unsigned instances;
	double local_tat;            /* the local bucket's theoretical arrival time, monotonic seconds */
	double local_slow_until;     /* monotonic: the local rate is lowered by a quarter until then */
	double retry_at;             /* monotonic: do not try Redis again before */
	int away;                    /* in fallback: said once, said again on return */
	uint64_t seed;               /* the local share's starting point (dnsb_splitmix64) */
	dnsb_budget_stats st;
};

int dnsb_budget_new(dnsb_budget **out, const dnsb_budget_options *o, dnsb_error *err)
{
	dnsb_budget *b;
	int rc;

	*out = NULL;
	if (o->version != DNSB_BUDGET_OPTIONS_VERSION)
		return dnsb_error_set(err, DNSB_EINVAL, "rate budget options version %u, expected %u", o->version,
				      DNSB_BUDGET_OPTIONS_VERSION);
	if (!(o->rate > 0) || !(o->burst >= 1) || o->instances < 1 || !(o->call_timeout > 0) || !(o->slow_hold >= 0))
		return dnsb_error_set(err, DNSB_EINVAL, "rate budget: need a rate > 0 (%g), a burst >= 1 (%g) and "
				      "instances >= 1 (%u)", o->rate, o->burst, o->instances);
	if ((b = calloc(1, sizeof(*b))) == NULL || (b->key = strdup(o->key ? o->key : "default")) == NULL) {
		free(b);
		return DNSB_ENOMEM;
	}
	pthread_mutex_init(&b->lock, NULL);
	dnsb_budget_margin(o->rate, o->burst, &b->rate, &b->burst);
	b->instances = o->instances;
	b->call_timeout = o->call_timeout;
	b->slow_hold = o->slow_hold > 0 ? o->slow_hold : dnsb_budget_hold(o->rate, o->burst);
	b->st.rate = b->rate;
	b->seed = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)(dnsb_monotonic() * 1e9);
	if (o->url) {
		if ((rc = dnsb_redis_target_parse(&b->target, o->url, err)) < 0 ||
		    (o->password && (dnsb_secret_free(b->target.password),
				     (b->target.password = strdup(o->password)) == NULL))) {
			dnsb_budget_free(b);
			return rc < 0 ? rc : DNSB_ENOMEM;
		}
		b->shared = 1;
	}
	*out = b;
	return 0;
}

void dnsb_budget_free(dnsb_budget *b)
{
	if (b == NULL)
		return;
	dnsb_redis_close(b->redis);
	dnsb_redis_target_clear(&b->target);
	pthread_mutex_destroy(&b->lock);
	free(b->key);
	free(b);
}

/* Redis did not answer: close, and take the local share until it does. Under the lock. */
static void go_away(dnsb_budget *b, double now, const dnsb_error *why)
{
	dnsb_redis_close(b->redis);
	b->redis = NULL;
	b->retry_at = now + REDIS_RETRY_EVERY;
	if (!b->away) {
		b->away = 1;
		b->st.fallbacks++;
		b->st.shared = 0;
		dnsb_log(DNSB_LOG_WARN, "rate budget %s: the shared bucket is away (%s); taking this instance's "
			 "share, %g requests/s, until it answers", b->key, why->message, b->rate / b->instances);
	}
}

/*
 * The shared bucket, connecting first if need be. Under the lock.
 * @return 1 with *wait set (negative: too long, nothing taken), 0 when Redis is away
 */
static int take_shared(dnsb_budget *b, double now, double max_wait, double *wait)
{
	dnsb_error e = { 0 };
	double rate;

	if (b->redis == NULL) {
		if (now < b->retry_at)
			return 0;
		if (dnsb_redis_connect(&b->redis, &b->target, b->call_timeout, &e) < 0) {
			go_away(b, now, &e);
			return 0;
		}
	}
	if (dnsb_redis_take(b->redis, b->key, b->rate, b->burst, max_wait, wait, &rate, &e) < 0) {
		go_away(b, now, &e);
		return 0;
	}
	if (b->away) {
		b->away = 0;
		dnsb_log(DNSB_LOG_INFO, "rate budget %s: the shared bucket answers again", b->key);
	}
	b->st.shared = 1;
	b->st.rate = rate;
	if (*wait >= 0)
		b->st.shared_tokens++;
	return 1;
}

void dnsb_budget_margin(double rate, double burst, double *eff_rate, double *eff_burst)
{
	*eff_rate = rate * DNSB_BUDGET_MARGIN;
	*eff_burst = burst - 1 >= 1 ? burst - 1 : 1;
}

double dnsb_budget_hold(double rate, double burst)
{
	double hold = 2 * burst / rate;

	return hold < 1 ? 1 : hold > 10 ? 10 : hold;
}

double dnsb_budget_gcra(double *tat, double now, double rate, double burst, double max_wait)
{
	double step = 1.0 / rate, start = *tat > now ? *tat : now;
	double wait = start + step - burst * step - now;

	if (wait < 0)
		wait = 0;
	if (max_wait > 0 && wait > max_wait)
		return -wait;
	*tat = start + step;
	return wait;
}

/* The local bucket: this instance's share when shared, else the whole rate. Under the lock. */
static double take_local(dnsb_budget *b, double now, double max_wait)
{
	double rate = b->shared ? b->rate / b->instances : b->rate;
	double burst = b->shared ? b->burst / b->instances : b->burst;
	double wait;

	if (now < b->local_slow_until)
		rate *= 0.75;
	if (burst < 1)
		burst = 1;
	/* Instances that fall back together must not all take their first share at once (8 shares of burst 1
	 * are 8 requests against an account's burst of 5): each starts at a random point of its interval. */
	if (b->shared && b->local_tat == 0)
		b->local_tat = now + dnsb_uniform01(&b->seed) / rate;
	if ((wait = dnsb_budget_gcra(&b->local_tat, now, rate, burst, max_wait)) < 0)
		return wait;
	b->st.local_tokens++;
	b->st.rate = rate;
	return wait;
}

int dnsb_budget_reserve(dnsb_budget *b, double time_left, double *wait)
{
	double now, w;

	*wait = 0;
	if (!(time_left > 0) || time_left > MAX_WAIT)
		time_left = MAX_WAIT;
	pthread_mutex_lock(&b->lock);
	now = dnsb_monotonic();
	if (!(b->shared && take_shared(b, now, time_left, &w)))
		w = take_local(b, now, time_left);
	if (w > 0)
		b->st.wait_seconds += w;
	pthread_mutex_unlock(&b->lock);
	if (w < 0)
		return DNSB_ERATELIMIT;
	*wait = w;
	return 0;
}

int dnsb_budget_take(dnsb_budget *b, double time_left, double *waited)
{
	double wait;

	if (waited)
		*waited = 0;
	if (dnsb_budget_reserve(b, time_left, &wait) != 0 || dnsb_stop_sleep(wait)) /* a stop ends the wait: not sent */
		return DNSB_ERATELIMIT;
	if (waited)
		*waited = wait;
	return 0;
}

void dnsb_budget_throttled(dnsb_budget *b)
{
	dnsb_error e = { 0 };
	double now;

	pthread_mutex_lock(&b->lock);
	now = dnsb_monotonic();
	b->st.throttles++;
	b->local_slow_until = now + b->slow_hold;
	if (b->redis && dnsb_redis_slow(b->redis, b->key, b->slow_hold, &e) < 0)
		go_away(b, now, &e);
	pthread_mutex_unlock(&b->lock);
}

void dnsb_budget_stats_get(void *budget, dnsb_budget_stats *out)
{
	dnsb_budget *b = budget;

	pthread_mutex_lock(&b->lock);
	*out = b->st;
	pthread_mutex_unlock(&b->lock);
}
