/*
 * window.h - a provider's request window as its replies announce it: how many
 * requests are left and when the window resets (Cloudflare's RateLimit header,
 * DigitalOcean's ratelimit-remaining and ratelimit-reset), and the pace that
 * follows from it. While more than a share of the limit is left nothing waits;
 * below it, what is left is spread over the time to the reset; none left (or
 * a 429's hold) the next request waits for the reset. Each provider reads its
 * own headers and hands the numbers to dnsb_window_note; the window is the
 * header pacer of the transport's throttle chain (throttle.h) through the
 * provider's dnsb_pacer. Thread-safe: every request of a client passes here.
 */
#ifndef DNSB_PROVIDERS_WINDOW_H
#define DNSB_PROVIDERS_WINDOW_H

#include <pthread.h>

/** What the last reply said of the window, and what was spent since. */
typedef struct dnsb_window {
	pthread_mutex_t lock;
	int ready;               /**< lock initialised */
	double low_share;        /**< below this share of the limit, what is left is spread (0.2 = a fifth) */
	double remaining;        /**< requests left (the last reply's, less those let go since), < 0 unknown */
	double limit;            /**< requests per window, 0 unknown (the low water is then 10) */
	double reset_at;         /**< monotonic seconds when the window resets */
	double last;             /**< monotonic seconds the last request was let go */
	int low;                 /**< 1 while the last reply said less than the low water is left */
	unsigned long slowed;    /**< requests held back */
	double waited;           /**< seconds they were held back in all */
	unsigned long throttled; /**< 429s that set a hold */
} dnsb_window;

/**
 * Start with nothing known: no request is held until a reply says so.
 * @param low_share  the share of the limit below which requests are spread, in (0, 1]
 */
void dnsb_window_init(dnsb_window *w, double low_share);

/** Destroy the lock (after dnsb_window_init; a zeroed window is a no-op). */
void dnsb_window_clear(dnsb_window *w);

/**
 * Reserve the next request: the seconds to wait before sending it.
 * @param now      monotonic seconds
 * @param give_up  monotonic seconds, 0 = none
 * @param cap      seconds: a wait longer than this, or past give_up, reserves
 *                 nothing (the request is not to be sent: rate_limited; the
 *                 seconds returned say how long the window holds)
 * @return seconds, >= 0
 */
double dnsb_window_reserve(dnsb_window *w, double now, double give_up, double cap);

/**
 * Room for `need` requests in a row (a group and its undos, at most half the
 * limit when it is known): 0 when the last reply left that many, or nothing is
 * known; else the seconds to the reset.
 * @param now  monotonic seconds
 */
double dnsb_window_room(dnsb_window *w, double need, double now);

/**
 * Take what a reply said.
 * @param remaining  requests left, < 0 when the reply did not say
 * @param reset_in   seconds to the reset (used with remaining; below 1 counts as 1)
 * @param limit      requests per window, <= 0 when the reply did not say
 * @param hold       seconds a 429 holds every request (its Retry-After, or the
 *                   reset), 0 for none; capped as every throttle's Retry-After
 *                   (applier/core/backoff.h, DNSB_HB_THROTTLE_CAP)
 * @param now        monotonic seconds
 * @return 1 when this reply brought what is left below the low water, else 0
 */
int dnsb_window_note(dnsb_window *w, double remaining, double reset_in, double limit, double hold, double now);

#endif
