/*
 * applier/net/http.h - the one HTTP transport: every HTTP backend (google, aws,
 * pdns, cloudflare, azure) and `dnsbatch drops --url` send through it, and
 * nothing else calls curl_easy_init or curl_multi_init. libcurl underneath,
 * connections reused across requests. Not installed; a backend includes it
 * as "applier/net/http.h".
 *
 * One dnsb_http is one libcurl share handle holding the connection cache
 * (and DNS cache, TLS sessions), with a fresh easy handle per request (no
 * state of one reply reaches the next: libcurl 7.88's #11101): the provider
 * keeps one for its lifetime, so consecutive requests to the same host reuse
 * one TCP+TLS connection (keep-alive). A provider is used from several
 * threads (the sidecar), so requests are serialized by a mutex: one request
 * at a time per client, the others wait (within their time left).
 *
 * Requests in flight side by side (dnsb_http_many) go over one libcurl multi
 * handle the client keeps (its own connection cache, HTTP/2 multiplexed
 * where the server offers it), one dnsb_http_many at a time.
 *
 * Every counted request passes the client's throttle chain
 * (applier/net/throttle.h) first: it reserves a slot before the request
 * leaves, and notes the reply's headers after. A request the chain holds
 * past the caller's time left is not sent: DNSB_ERATELIMIT, the hold's
 * seconds in the response's retry_after (no thread-local).
 *
 * Response headers are read with libcurl's header API (curl_easy_header,
 * curl_easy_nextheader; libcurl >= 7.84), of the last response only (not a
 * 100 Continue's).
 *
 * TLS peer and host verification are always on; only the CA bundle can be
 * changed (ca_file). Redirects are never followed. Nothing here logs a
 * header or a body: requests carry tokens and assertions.
 */
#ifndef DNSBATCH_PROVIDERS_HTTP_H
#define DNSBATCH_PROVIDERS_HTTP_H

#include <stddef.h>
#include <time.h>

#include <json-c/json.h>

#include "dnsbatch/common.h"

/** A client: one reused connection per host, thread-safe. Opaque. */
typedef struct dnsb_http dnsb_http;

/** Settings of a client. NULL given to dnsb_http_new = DNSB_HTTP_OPTIONS_INIT. */
typedef struct dnsb_http_options {
	unsigned version;        /**< DNSB_HTTP_OPTIONS_VERSION */
	double timeout;          /**< seconds a whole request may take at most, > 0 (default 30) */
	double connect_timeout;  /**< seconds to connect (TCP and TLS), > 0 (default 10) */
	const char *ca_file;     /**< PEM bundle of trusted CAs instead of the system's; NULL = system
				      (copied) */
	size_t max_body;         /**< bytes of a response body kept; the rest is discarded and
				      `truncated` set (default 8 MiB) */
	const char *user_agent;  /**< User-Agent header (copied); NULL = "dnsbatch/VERSION" */
} dnsb_http_options;

#define DNSB_HTTP_OPTIONS_VERSION 1
#define DNSB_HTTP_OPTIONS_INIT { DNSB_HTTP_OPTIONS_VERSION, 30.0, 10.0, NULL, 8u << 20, NULL }

/** One request. Every pointer is borrowed for the call. */
typedef struct dnsb_http_request {
	const char *method;          /**< "GET", "POST", "PATCH", "PUT", "DELETE" */
	const char *url;             /**< absolute http:// or https:// URL, query already escaped */
	const char *const *headers;  /**< "Name: value" lines, NULL-terminated; NULL = none.
					  May hold secrets (Authorization): never logged */
	const char *body;            /**< request body, or NULL for none */
	size_t body_len;             /**< its size in bytes */
	double time_left;            /**< seconds the caller has left, > 0; 0 = none. The request's
					  timeout is min(options.timeout, time_left), the wait for
					  the handle and for the rate budget included */
} dnsb_http_request;

/** What came back. Owned by the caller; dnsb_http_response_clear frees it. */
typedef struct dnsb_http_response {
	long status;              /**< HTTP status code */
	char *body;               /**< the body (malloc'd, NUL-terminated, at most max_body bytes);
				       never NULL after a successful dnsb_http_do */
	size_t body_len;          /**< bytes in body, without the NUL */
	int truncated;            /**< 1 when the body was longer than max_body */
	char content_type[128];   /**< the Content-Type header as sent, "" if none */
	double retry_after;       /**< seconds from the Retry-After header (delay-seconds or
				       HTTP-date, never negative); < 0 when absent or unreadable */
	double seconds;           /**< wall seconds the request took, waiting for the handle included */
	char ratelimit[160];      /**< the RateLimit header as sent (IETF draft httpapi-ratelimit-headers:
				       "default";r=50;t=30, Cloudflare's form), "" if none */
	char ratelimit_policy[160]; /**< the RateLimit-Policy header ("burst";q=100;w=60), "" if none */
	char *headers;            /**< every header of the response, "name\0value\0" pairs one after the
				       other (libcurl's names and trimmed values); NULL when none. Owned;
				       read with dnsb_http_header */
	size_t headers_len;       /**< bytes in headers */
} dnsb_http_response;

/**
 * Create a client.
 * @param out   receives it (the caller's; dnsb_http_free)
 * @param opts  settings, read during the call (NULL = defaults)
 * @return 0; DNSB_EINVAL for a bad option (version, a timeout <= 0, an
 *         unreadable ca_file: the message names it); DNSB_ENOMEM or
 *         DNSB_ERROR when libcurl cannot start
 */
int dnsb_http_new(dnsb_http **out, const dnsb_http_options *opts, dnsb_error *err);

/** Close the connections and free. NULL is a no-op. */
void dnsb_http_free(dnsb_http *h);

/**
 * Send one request and wait for the whole response.
 * @param out  filled on 0 (the caller's; dnsb_http_response_clear), zeroed
 *             otherwise
 * @return 0 when a response arrived, whatever its status;
 *         DNSB_ETRANSIENT when none did: no connection, timed out (the
 *         request may have been processed), connection reset or closed
 *         without a reply, a send or receive error (err names the method,
 *         the URL and curl's reason; never a header or a body);
 *         DNSB_EFATAL when the peer's TLS certificate does not verify (unknown
 *         CA, wrong host name) or TLS cannot be set up: retrying cannot help;
 *         DNSB_EINVAL for a bad URL or method; DNSB_ERATELIMIT when the
 *         throttle chain (the budget, the pacer) has no slot within the time
 *         left, or a stop ended its wait: nothing sent, out zeroed but for
 *         retry_after, the seconds the pacer holds the request (-1 when
 *         unknown: the budget's refusal); DNSB_ENOMEM
 */
int dnsb_http_do(dnsb_http *h, const dnsb_http_request *req, dnsb_http_response *out, dnsb_error *err);

/**
 * dnsb_http_do for a request that the provider's rate limit does not count (a
 * credential or token call: STS, IMDS, OAuth2): it takes no token of the
 * rate budget.
 * @return as dnsb_http_do
 */
int dnsb_http_do_uncounted(dnsb_http *h, const dnsb_http_request *req, dnsb_http_response *out, dnsb_error *err);

struct dnsb_budget;
/**
 * The budget of the client's throttle chain (applier/net/throttle.h): every
 * counted request takes its token from `budget` (applier/net/ratelimit.h)
 * before it is sent, and a 429 is fed back to it. dnsb_http_do then also
 * returns DNSB_ERATELIMIT, nothing sent, when the budget has no slot within
 * the request's time left. Call before the first request.
 * @param budget  borrowed: it must outlive h; NULL = none
 */
void dnsb_http_set_budget(dnsb_http *h, struct dnsb_budget *budget);

struct dnsb_pacer;
/**
 * The header pacer of the client's throttle chain (applier/net/throttle.h):
 * a service's reading of its rate-limit headers (Cloudflare's RateLimit,
 * Azure's x-ms-ratelimit-remaining-*). Call before the first request.
 * @param pacer  copied; its state borrowed (it must outlive h); NULL = none
 */
void dnsb_http_set_pacer(dnsb_http *h, const struct dnsb_pacer *pacer);

/** A throttling answer the status does not show (Route53's 400 Throttling): feed it to the budget, if any. */
void dnsb_http_throttled(dnsb_http *h);

/**
 * A throttle holds the client's requests `seconds` more from now (a
 * Retry-After a read gave up on). The throttle chain's refusals record
 * their own hold. Thread-safe; the hold that ends last counts.
 * @param seconds  <= 0: nothing
 */
void dnsb_http_hold(dnsb_http *h, double seconds);

/**
 * The wait a refusal returns to the engine: seconds until the longest hold
 * recorded (dnsb_http_hold, a refusal of the chain) ends. Thread-safe.
 * @return seconds > 0, or -1 when none is in force
 */
double dnsb_http_held(dnsb_http *h);

/** One request of dnsb_http_many, and what became of it. */
typedef struct dnsb_http_item {
	dnsb_http_request req;    /**< in: as dnsb_http_do's; its headers are read when it starts (the
				       start hook may change them); time_left unused (give_up rules) */
	int uncounted;            /**< in: 1 = the throttle chain does not count it (a credential call) */
	int rc;                   /**< out: 0 when a reply came (resp, whatever its status); a DNSB_E* code
				       as dnsb_http_do's (err says why; for DNSB_ERATELIMIT, not sent, the
				       hold's seconds in resp.retry_after, -1 when unknown); or the start
				       hook's code when it kept the request back */
	dnsb_http_response resp;  /**< out: the caller's (dnsb_http_response_clear), zeroed when no reply */
	dnsb_error err;           /**< out: set when rc != 0 (not when the start hook kept it back) */
} dnsb_http_item;

/** What the caller does around each request of dnsb_http_many. Either may be NULL. */
typedef struct dnsb_http_hooks {
	/**
	 * Item i is about to start (the throttle chain not yet asked): set
	 * what it carries (a fresh token in its headers).
	 * @return 0 to start it; any other value keeps it back: its rc
	 */
	int (*start)(void *payload, size_t i, dnsb_http_item *item);
	/** Item i is done (a reply, a failure or a refusal of the chain: item->rc says). */
	void (*done)(void *payload, size_t i, dnsb_http_item *item);
	void *payload;
} dnsb_http_hooks;

/**
 * Send requests side by side over the client's multi handle, at most
 * max_in_flight at a time, in order of the array; each counted one first
 * passes the throttle chain (its wait kept without stalling the transfers
 * running). One call at a time per client (the others wait for it). A stop
 * (dnsb_stop_request) keeps back what the chain still holds: DNSB_ERATELIMIT.
 * @param items          n requests; their results filled (every item's rc set)
 * @param max_in_flight  >= 1
 * @param give_up        monotonic seconds when the caller stops waiting, 0 = none: each
 *                       request's timeout is min(options.timeout, what is left then); one
 *                       that cannot start before it is DNSB_ETRANSIENT, not sent
 * @return 0 (each item's rc says what became of it); DNSB_ENOMEM with err set
 *         (the items not done then have rc DNSB_ENOMEM)
 */
int dnsb_http_many(dnsb_http *h, dnsb_http_item *items, size_t n, size_t max_in_flight, double give_up,
		   const dnsb_http_hooks *hooks, dnsb_error *err);

/** AWS Signature V4 for dnsb_http_do_sigv4. Both strings borrowed for the call. */
typedef struct dnsb_http_sigv4 {
	const char *provider;  /**< CURLOPT_AWS_SIGV4: "aws:amz:REGION:SERVICE" */
	const char *userpwd;   /**< CURLOPT_USERPWD: "ACCESSKEY:SECRET". A secret: never logged */
} dnsb_http_sigv4;

/**
 * dnsb_http_do, the request signed with AWS Signature V4 by libcurl
 * (CURLOPT_AWS_SIGV4 and CURLOPT_USERPWD, set for this request only). A
 * session token goes in req->headers as "X-Amz-Security-Token: ..." (libcurl
 * signs the x-amz-* headers). libcurl 7.88 signs the query string as given,
 * unsorted (curl issue 9717): the caller passes it sorted and encoded.
 * @return as dnsb_http_do
 */
int dnsb_http_do_sigv4(dnsb_http *h, const dnsb_http_request *req, const dnsb_http_sigv4 *sign, dnsb_http_response *out,
		       dnsb_error *err);

/**
 * A response header's value, by name (case-insensitive): the last one of
 * that name. @return borrowed from resp (valid until dnsb_http_response_clear),
 * or NULL when the response has none
 */
const char *dnsb_http_header(const dnsb_http_response *resp, const char *name);

/** Free what a response owns and zero it. NULL is a no-op. */
void dnsb_http_response_clear(dnsb_http_response *resp);

/**
 * Parse a response body as JSON, after checking that its Content-Type is
 * application/json (or a +json type; parameters such as charset allowed).
 * @param out  receives the document (the caller's; json_object_put)
 * @return 0; DNSB_EPARSE when the Content-Type is another (the message names
 *         it and the status), the body was truncated, or it is not one JSON
 *         document; DNSB_ENOMEM
 */
int dnsb_http_json(json_object **out, const dnsb_http_response *resp, dnsb_error *err);

/** Does a Content-Type name JSON ("application/json; charset=UTF-8", "application/problem+json")? @return 1 or 0 */
int dnsb_http_is_json(const char *content_type);

/**
 * The value of a Retry-After header in seconds from `now` (RFC 9110
 * §10.2.3): delay-seconds, or an HTTP-date read by curl_getdate (a date in
 * the past gives 0).
 * @param value  the header's value (borrowed), surrounding spaces allowed
 * @param now    the current time, seconds since the epoch (dnsb_clock_wall)
 * @return seconds, >= 0; -1 when the value is neither
 */
double dnsb_http_retry_after(const char *value, time_t now);

/**
 * Akamai's X-RateLimit-Next header (an ISO 8601 UTC time, "2026-11-27T15:04:05.123Z",
 * when the next request is allowed) as seconds from `now`; a response's
 * retry_after when it has no Retry-After.
 * @return seconds, >= 0 (rounded up to the next whole second); -1 when unreadable
 */
double dnsb_http_ratelimit_next(const char *value, time_t now);

/**
 * A header's value as libcurl's header callback hands it (`v`, `len` bytes after the
 * "Name:", CRLF included), without surrounding white space, into dst (copied, cut to
 * dstlen - 1 bytes, always NUL-terminated).
 */
void dnsb_http_header_value(char *dst, size_t dstlen, const char *v, size_t len);

/**
 * Percent-encode a string for a URL path segment or query value (every byte
 * but A-Z a-z 0-9 - . _ ~), through curl_easy_escape.
 * @return a malloc'd string (the caller's), or NULL when out of memory
 */
char *dnsb_http_escape(const char *s);

/** TCP connections the client has opened so far (CURLINFO_NUM_CONNECTS summed). Thread-safe. */
unsigned long dnsb_http_connections(dnsb_http *h);

/** Requests the client has sent so far (each dnsb_http_do that reached libcurl). Thread-safe. */
unsigned long dnsb_http_requests(dnsb_http *h);

#endif
