/*
 * applier/net/ratelimit_redis.h - the shared bucket's side in Redis: the URL,
 * the connection (hiredis, with one timeout for the whole of every call, its
 * replies bounded in size) and the one Lua script that takes a token or
 * lowers the rate. Used by ratelimit.c only.
 */
#ifndef DNSBATCH_PROVIDERS_RATELIMIT_REDIS_H
#define DNSBATCH_PROVIDERS_RATELIMIT_REDIS_H

#include "dnsbatch/common.h"

/** Where the bucket lives, from the URL. Strings owned (dnsb_redis_target_clear). */
typedef struct dnsb_redis_target {
	char *host;
	int port;          /**< 6379 when the URL has none */
	long db;           /**< SELECT this database; 0 by default */
	char *user;        /**< ACL user (Redis 6+), or NULL */
	char *password;    /**< secret: never logged; NULL = no AUTH */
} dnsb_redis_target;

/**
 * Parse "redis://[user@]HOST[:PORT][/DB]" with libcurl's URL API. A password
 * in the URL is refused: it would sit in /proc/PID/cmdline (the password comes
 * from --rate-budget-password-file or DNSBATCH_REDIS_PASSWORD instead).
 * @return 0; DNSB_EINVAL naming what is wrong (never echoing a password)
 */
int dnsb_redis_target_parse(dnsb_redis_target *out, const char *url, dnsb_error *err);

/** Free the strings (the password zeroed first). */
void dnsb_redis_target_clear(dnsb_redis_target *t);

/** A wait the script answers past this (seconds) makes no sense: every instance caps its waits far below. */
#define DNSB_REDIS_WAIT_ABSURD 86400.0

/** A connection to the bucket's Redis. Opaque; one caller at a time. */
typedef struct dnsb_redis dnsb_redis;

/**
 * Connect, authenticate, select the database and load the script, all within
 * `timeout`, which then bounds each later call as a whole (every reply of it).
 * @param target  borrowed for the call (strings copied)
 * @return 0; DNSB_ETRANSIENT when Redis cannot be reached or refuses (err
 *         names host:port and Redis's word, never the password); DNSB_ENOMEM
 */
int dnsb_redis_connect(dnsb_redis **out, const dnsb_redis_target *target, double timeout, dnsb_error *err);

/** Close. NULL is a no-op. */
void dnsb_redis_close(dnsb_redis *r);

/**
 * Take one token from the bucket `key` (GCRA with reservation: the token is
 * the caller's at once, to be used after the wait).
 * @param rate       tokens per second before any lowering, > 0
 * @param burst      >= 1
 * @param max_wait   seconds: a wait longer than this takes nothing; <= 0 = none
 * @param wait       receives the seconds to sleep (0 = go now, never past
 *                   max_wait), or, when nothing usable was taken, the wait that
 *                   was too long, negated
 * @param eff_rate   receives the rate in force (lowered after a throttle)
 * @return 0; DNSB_ETRANSIENT when the call failed or its reply makes no sense
 *         (not three integers; a wait negative or past DNSB_REDIS_WAIT_ABSURD;
 *         a rate above `rate`; a reply over 64 KiB or 64 elements): the
 *         connection is then unusable, close it
 */
int dnsb_redis_take(dnsb_redis *r, const char *key, double rate, double burst, double max_wait, double *wait,
		    double *eff_rate, dnsb_error *err);

/**
 * Lower the shared rate of `key` to three quarters of what it is (not below a
 * tenth of the configured rate) for `hold` seconds.
 * @return 0; DNSB_ETRANSIENT as dnsb_redis_take
 */
int dnsb_redis_slow(dnsb_redis *r, const char *key, double hold, dnsb_error *err);

#endif
