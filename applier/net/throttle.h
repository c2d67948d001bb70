/*
 * applier/net/throttle.h - the one throttle chain of the HTTP transport
 * (applier/net/http.h). Not installed.
 *
 * Every counted request of a client passes it: before the request leaves,
 * dnsb_throttle_pace (the pacer's slot) and, that wait over,
 * dnsb_throttle_budget (the budget's token, spent when the request can
 * leave): each the seconds to wait, or a refusal when the wait passes the
 * time left; after its reply, dnsb_throttle_note (the pacer reads the
 * headers; a 429, or headers saying the quota just fell low, slow the
 * budget). Its links, in that order:
 *
 *   budget  the account's rate budget (applier/net/ratelimit.h), local or
 *           shared through Redis; a provider's submission interval
 *           (applier/net/interval.h) is a local bucket of burst 1;
 *   pacer   one header pacer, the service's small parser of its rate-limit
 *           headers (Cloudflare's RateLimit and RateLimit-Policy, Azure's
 *           x-ms-ratelimit-remaining-subscription-*, a 429's Retry-After).
 *
 * The wait a refusal names is returned to the caller (the response's
 * retry_after) and kept by the client for the engine (dnsb_http_held), not
 * in a thread-local. The engine's own hold after a
 * rate_limited answer (applier/core/pacing.h) sits above the transport, on
 * batches, not on requests.
 */
#ifndef DNSBATCH_PROVIDERS_THROTTLE_H
#define DNSBATCH_PROVIDERS_THROTTLE_H

#include "dnsbatch/common.h"
#include "applier/net/http.h"

/** Seconds: the longest wait the chain makes before a request (the budget's cap too); a longer one is a refusal. */
#define DNSB_THROTTLE_CAP 60.0

/** A service's header pacer. Its functions are thread-safe on their state. */
typedef struct dnsb_pacer {
	/**
	 * Reserve the next request: the seconds it waits from `now` (0: at once).
	 * When that wait is at most DNSB_THROTTLE_CAP and ends before give_up,
	 * the slot is taken for now + wait; otherwise nothing is taken.
	 * @param method   the request's ("GET", "PUT": a service may count reads apart)
	 * @param now      monotonic seconds
	 * @param give_up  monotonic seconds, 0 = none
	 * @return seconds, >= 0
	 */
	double (*reserve)(void *state, const char *method, double now, double give_up);
	/**
	 * Read a reply's headers (dnsb_http_header, and the fields the response
	 * keeps: ratelimit, retry_after).
	 * @return 1 when they say the service's quota just fell low (the chain
	 *         then slows the shared budget as for a throttle), else 0
	 */
	int (*note)(void *state, const char *method, const dnsb_http_response *resp, double now);
	void *state;       /**< borrowed: it outlives the client */
	const char *held[2]; /**< a refusal's words around the seconds held: held[0] " N.N s" held[1]
				  ("held", " by the subscription's quota"); static */
} dnsb_pacer;

/** The chain of one client. Plain data: its links are thread-safe. */
typedef struct dnsb_throttle {
	struct dnsb_budget *budget;  /**< borrowed; NULL = none */
	dnsb_pacer pacer;            /**< reserve NULL = none */
} dnsb_throttle;

/**
 * The first step of a request's reservation: the pacer's slot. The caller
 * waits *wait, then takes the budget's (dnsb_throttle_budget): the budget's
 * token is spent when the request can leave, not before.
 * @param now      monotonic seconds
 * @param give_up  monotonic seconds the wait must end before, 0 = none
 * @param wait     receives the seconds to wait (the slot taken); on DNSB_ERATELIMIT the seconds the
 *                 pacer holds the request
 * @return 0; DNSB_ERATELIMIT, nothing taken, err naming the method and the hold (the URL left out:
 *         a log line keeps the hold)
 */
int dnsb_throttle_pace(dnsb_throttle *t, const char *method, double now, double give_up, double *wait,
		       dnsb_error *err);

/**
 * The second step: the budget's token (none: 0 at once).
 * @param budget_left  seconds the budget may make it wait, > 0; 0 = DNSB_THROTTLE_CAP
 * @param wait         receives the seconds to wait before sending (the token taken)
 * @return 0; DNSB_ERATELIMIT, nothing taken, err naming the method and the URL
 */
int dnsb_throttle_budget(dnsb_throttle *t, const char *method, const char *url, double budget_left, double *wait,
			 dnsb_error *err);

/** A reply came: the pacer reads it; a 429, or the pacer saying the quota fell low, slows the budget. */
void dnsb_throttle_note(dnsb_throttle *t, const char *method, const dnsb_http_response *resp, double now);

/** A throttling answer the status does not show (Route53's 400 Throttling): slow the budget, if any. */
void dnsb_throttle_throttled(dnsb_throttle *t);

#endif
