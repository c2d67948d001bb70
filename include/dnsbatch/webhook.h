/*
 * dnsbatch/webhook.h - the external-dns webhook provider (`dnsbatch serve`).
 *
 * An HTTP server (libmicrohttpd, one thread per connection) that speaks the
 * external-dns webhook protocol (external-dns provider/webhook/api/httpapi.go):
 *   GET  /                 domain filter negotiation
 *   GET  /records          every RRset of every zone the domain filter lets
 *                          through, as Endpoints (not SOA or DNSSEC types:
 *                          dnsb_webhook_type_listed)
 *   POST /records          apply a plan through dnsb_engine_apply
 *   POST /adjustendpoints  Endpoints in, the same Endpoints out
 * plus GET /healthz and GET /metrics, served on the API listener and on a
 * second listener of their own (the pod's probe and scrape port).
 *
 * Routes are those of external-dns's reference server: any other path is
 * answered as GET /, and /records and /adjustendpoints answer other methods
 * with 400. On the provider port, POST bodies must carry the media type
 * (415 otherwise: a browser's cross-origin "simple" request cannot), and a
 * listener on a loopback address answers only a loopback Host or one of
 * allowed_hosts (421 otherwise: DNS rebinding). /healthz and /metrics are
 * open. Each listener keeps room for new connections: past 200, each new
 * one closes the longest idle one; idle connections close after 60 s (10 s
 * on the metrics listener).
 *
 * Every JSON reply carries the media type DNSB_WEBHOOK_MEDIA_TYPE byte for
 * byte: external-dns compares it as a string and refuses to start on any
 * other value. POST /records answers 204 when no change ended `failed`
 * (conflicts are dropped, logged and counted, never blocking the rest), 503
 * when some failed (external-dns retries the plan next interval), 400 for a
 * body that is not a plan, 413 for a body over the size cap and 500 when the
 * engine itself fails (out of memory): external-dns treats any other 4xx as
 * fatal and exits.
 *
 * GET /records has a deadline too, apply_timeout after its arrival: a
 * provider that keeps throttling (429 with Retry-After) or does not answer
 * ends the listing with 503 by then (a soft error: external-dns lists again
 * next loop), well before external-dns's own read timeout would make it exit.
 *
 * Every POST /records has one deadline, apply_timeout after its arrival, on
 * the engine's clock (dnsb_engine_options.deadline): the wait for its zones'
 * locks counts against it. What is not reached by then ends failed/deadline
 * (503); when the locks stay busy past it, the engine still settles the whole
 * plan without a request, so invalid and no_zone changes keep their outcomes
 * and every change is counted once in the metrics and the drop log.
 *
 * Applies are serialised per zone: two plans touching different zones run
 * at once; a plan touching several zones holds their locks in zone order.
 * GET /records, /healthz and /metrics never wait for an apply.
 */
#ifndef DNSBATCH_WEBHOOK_H
#define DNSBATCH_WEBHOOK_H

#include "engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The media type of the protocol, exactly as external-dns compares it. */
#define DNSB_WEBHOOK_MEDIA_TYPE "application/external.dns.webhook+json;version=1"

/** The provider port external-dns's webhook provider calls by default (--webhook-provider-url). */
#define DNSB_WEBHOOK_LISTEN_DEFAULT "127.0.0.1:8888"
/** The port of /healthz and /metrics, as external-dns's webhook providers serve them. */
#define DNSB_WEBHOOK_METRICS_LISTEN_DEFAULT "0.0.0.0:8080"
/** Largest POST body accepted, bytes (larger: 413). */
#define DNSB_WEBHOOK_MAX_BODY_DEFAULT ((size_t)32 * 1024 * 1024)
/**
 * Seconds one POST /records may take, waiting for zone locks included.
 * external-dns (v0.21 and later) gives up on a webhook request after its
 * read + write timeouts, 5 s + 10 s by default, and a timeout is not a soft
 * error to it: it exits. 10 s answers well inside that, leaving room for
 * the reply; raise it only with --webhook-provider-write-timeout.
 */
#define DNSB_WEBHOOK_APPLY_TIMEOUT_DEFAULT 10.0

/* ------------------------------------------------------------------ */
/* Domain filter (external-dns endpoint/domain_filter.go)              */
/* ------------------------------------------------------------------ */

/**
 * The domain filter offered on GET / and applied to GET /records: either
 * include/exclude lists of domains, or a pair of regular expressions
 * (RE2, the syntax of Go's regexp, as external-dns compiles them: `\d`
 * and `(?i)` work, backreferences and lookaround do not). Never both.
 *
 * Internationalised names match in either form, as in external-dns:
 * names and list entries are mapped by UTS #46 (transitional, as
 * external-dns's idna profile: lower-cased, NFC) with libidn2, so
 * `café.example.org` and `xn--caf-dma.example.org` are the same domain.
 * A regular expression is matched unanchored against the name without its
 * trailing dot, lower-cased, in Unicode form (`café.example.org`, never
 * `xn--caf-dma.example.org`), which is what external-dns matches it
 * against. A label libidn2 refuses (`r3---sn`) is compared as given,
 * lower-cased.
 *
 * Immutable once built, so it may be shared by threads. Opaque.
 */
typedef struct dnsb_domain_filter dnsb_domain_filter;

/**
 * Build a filter. List entries are trimmed of blanks and of a trailing dot
 * and lower-cased; empty entries are ignored; an entry may hold several
 * domains separated by commas (as in `--domain-filter a.com,b.com`).
 * A leading dot ("`.example.com`") matches subdomains only, as in
 * external-dns. Entries in Unicode and in punycode are equivalent.
 *
 * @param out            receives the filter (the caller's; dnsb_domain_filter_free)
 * @param include        domains to keep (borrowed, copied), may be NULL
 * @param include_count  entries in include
 * @param exclude        domains to leave out (borrowed, copied), may be NULL
 * @param exclude_count  entries in exclude
 * @param regex_include  regular expression of names to keep, or NULL/""
 * @param regex_exclude  regular expression of names to leave out, or NULL/""
 * @param err            detail on failure
 * @return 0; DNSB_EINVAL when lists and regular expressions are both given,
 *         a regular expression does not compile as RE2 (the message names
 *         the flag and RE2's reason), or a list domain has an empty label
 *         ("..", "example.com..", "a..b"; the message names the flag and the
 *         domain: external-dns would read it otherwise once handed it on
 *         GET /); DNSB_ENOMEM
 */
int dnsb_domain_filter_new(dnsb_domain_filter **out,
			   const char *const *include, size_t include_count,
			   const char *const *exclude, size_t exclude_count,
			   const char *regex_include, const char *regex_exclude,
			   dnsb_error *err);

/** Free a filter. NULL is a no-op. */
void dnsb_domain_filter_free(dnsb_domain_filter *filter);

/**
 * Does a name pass the filter (external-dns DomainFilter.Match)?
 * @param filter  may be NULL: everything passes
 * @param name    a domain name, with or without trailing dot, in A-labels
 *                or UTF-8 (borrowed)
 * @return 1 or 0 (also 0 when memory runs out)
 */
int dnsb_domain_filter_match(const dnsb_domain_filter *filter, const char *name);

/**
 * Could any name at or below the zone apex pass the filter? Used to skip
 * listing zones the filter rules out entirely; regular expressions are
 * never ruled out.
 * @return 1 or 0
 */
int dnsb_domain_filter_may_match_zone(const dnsb_domain_filter *filter, const char *apex);

/**
 * The negotiation body of GET /: {"include":[...],"exclude":[...]} with
 * sorted lists, or {"regexInclude":"...","regexExclude":"..."}, empty
 * members left out (Go's omitempty), so `{}` for no filter. List entries
 * are sent as the user gave them (trimmed, ASCII lower-cased, no trailing dot,
 * not converted to or from punycode: external-dns normalises them itself);
 * regular expressions byte for byte.
 * @param out  receives a new json-c object (the caller's reference)
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_domain_filter_to_json(struct json_object **out, const dnsb_domain_filter *filter);

/* ------------------------------------------------------------------ */
/* Endpoints                                                           */
/* ------------------------------------------------------------------ */

/**
 * Should GET /records show this RR type? SOA and DNSSEC records (RRSIG,
 * NSEC, NSEC3, NSEC3PARAM, DNSKEY) are the server's, never external-dns's.
 * @return 1 or 0
 */
int dnsb_webhook_type_listed(uint16_t type);

/* ------------------------------------------------------------------ */
/* Server                                                              */
/* ------------------------------------------------------------------ */

/** Settings of the server. Initialise with DNSB_WEBHOOK_OPTIONS_INIT. */
typedef struct dnsb_webhook_options {
	unsigned version;
	/** "HOST:PORT", "[V6]:PORT" or ":PORT" (all IPv4 interfaces); port 0
	 * picks a free port (see dnsb_webhook_port). Borrowed, read by start. */
	const char *listen;
	/** The same for /healthz and /metrics; NULL or "" for no second
	 * listener (they stay available on `listen`). */
	const char *metrics_listen;
	/** Domain filter for GET / and GET /records (borrowed for the life of
	 * the server; NULL = none). */
	const dnsb_domain_filter *filter;
	/** Largest request body accepted, bytes; bigger ones get 413. */
	size_t max_body_size;
	/** Seconds one POST /records may take, waiting for zone locks included;
	 * must be > 0. Each apply's engine deadline is its arrival plus this.
	 * GET /records lists every zone within it too (503 past it). */
	double apply_timeout;
	/** Template for the engine (borrowed, copied by start; NULL = defaults).
	 * Its metrics, droplog and quarantine are replaced by the fields below;
	 * its timeout and deadline by each apply's deadline (apply_timeout); its
	 * clock, when set, also keeps that deadline. */
	const dnsb_engine_options *engine;
	/** Borrowed for the life of the server; NULL = the server keeps its own. */
	dnsb_metrics *metrics;
	/** Borrowed for the life of the server; NULL = no drop log. Flushed
	 * after every apply that wrote to it. */
	dnsb_droplog *droplog;
	/** Borrowed for the life of the server; NULL = the server keeps its own
	 * (60 s doubling to 3600 s, docs/design.md §5.3). */
	dnsb_quarantine *quarantine;
	/** Seconds between readiness probes of the provider until it first
	 * answers; <= 0 means 5. */
	double probe_interval;
	/** Since version 2. When `listen` is a loopback address, requests to
	 * the provider routes must carry a Host that is a loopback name or
	 * address (DNS rebinding), or one of these names (with or without a
	 * port; borrowed, copied by start): for a deployment that puts dnsbatch
	 * behind a Service name. */
	const char *const *allowed_hosts;
	size_t allowed_host_count;
	/** Since version 3. Seconds a connection may stay silent (an idle
	 * keep-alive, or headers or a body that do not come) before the server
	 * closes it, on both listeners; 0 = the defaults: 60 on `listen`, 10 on
	 * `metrics_listen`. Meant for tests; external-dns needs no other. */
	unsigned connection_timeout;
	/** Since version 4. Seconds to receive a whole request, headers and
	 * body, on both listeners, however steadily its bytes come (the
	 * connection timeout above is reset by each one): counted from the
	 * connection's opening for its first request, from the end of the
	 * request line for a later one. Past it the connection is closed.
	 * <= 0 = DNSB_WEBHOOK_REQUEST_TIMEOUT_DEFAULT. */
	double request_timeout;
	/** Since version 4. external-dns's --txt-wildcard-replacement (borrowed,
	 * copied by start; NULL or "" = none): its TXT registry writes the
	 * ownership record of "*.example.com" as "a-REPLACEMENT.example.com", which
	 * GET /records then returns whenever the wildcard is in the filter. */
	const char *txt_wildcard_replacement;
	/** Since version 5. external-dns's --txt-owner-id (borrowed, copied by
	 * start; NULL or "" = not known): a quarantined group held by a record
	 * this owner owns is not counted in dnsbatch_conflicting_owner_groups,
	 * whose owners are the foreign ones. */
	const char *txt_owner_id;
	/** Since version 6. Seconds a zone's listing by GET /records stands for
	 * the safety thresholds' count of its RRsets in a POST /records that
	 * follows it (one external-dns loop lists, then applies: one listing
	 * serves both), counted from the listing's start; a POST that applied
	 * something to the zone ends it. 0 =
	 * DNSB_WEBHOOK_LISTING_MAX_AGE_DEFAULT; < 0: never (every POST that
	 * needs the count lists the zone). Only that count comes from it. */
	double listing_max_age;
} dnsb_webhook_options;

/**
 * Default listing_max_age, seconds. One external-dns loop sends GET /records,
 * then POST /adjustendpoints, then POST /records, normally within a second;
 * a listing of large zones takes a few. A count this old is off only by what
 * another writer changed meanwhile, and it feeds a guard rail (a share of the
 * zone), not an outcome.
 */
#define DNSB_WEBHOOK_LISTING_MAX_AGE_DEFAULT 10.0

/** Default request_timeout, seconds. */
#define DNSB_WEBHOOK_REQUEST_TIMEOUT_DEFAULT 30.0

/* 2: allowed_hosts. 3: connection_timeout. 4: request_timeout, txt_wildcard_replacement. 5: txt_owner_id.
 * 6: listing_max_age. */
#define DNSB_WEBHOOK_OPTIONS_VERSION 6
#define DNSB_WEBHOOK_OPTIONS_INIT \
	{ DNSB_WEBHOOK_OPTIONS_VERSION, DNSB_WEBHOOK_LISTEN_DEFAULT, DNSB_WEBHOOK_METRICS_LISTEN_DEFAULT, \
	  NULL, DNSB_WEBHOOK_MAX_BODY_DEFAULT, DNSB_WEBHOOK_APPLY_TIMEOUT_DEFAULT, NULL, NULL, NULL, NULL, 5.0, NULL, 0, 0, \
	  DNSB_WEBHOOK_REQUEST_TIMEOUT_DEFAULT, NULL, NULL, 0.0 }

/** A running server. Opaque. */
typedef struct dnsb_webhook dnsb_webhook;

/**
 * Bind the listeners and start serving, on threads of the server's own.
 * The provider is probed (a read of the first zone's apex SOA) in the
 * background until it answers once; until then /healthz answers 503.
 *
 * Block SIGPIPE, SIGTERM and SIGINT in the calling thread first if the
 * program handles them with sigwait: the server's threads inherit the mask.
 *
 * @param out       receives the server (the caller's; dnsb_webhook_free)
 * @param provider  borrowed; must outlive the server; used from several
 *                  threads at once
 * @param opts      borrowed during the call; NULL = defaults
 * @param err       detail on failure
 * @return 0; DNSB_EINVAL for a missing or bad address (the message quotes
 *         it), a zero body cap or an apply_timeout <= 0; DNSB_EIO when a
 *         listener cannot be bound (the message names the address);
 *         DNSB_ENOMEM
 */
int dnsb_webhook_start(dnsb_webhook **out, dnsb_provider *provider,
		       const dnsb_webhook_options *opts, dnsb_error *err);

/**
 * The port a listener is bound to (useful after asking for port 0).
 * @param metrics  0 for the API listener, 1 for the metrics listener
 * @return the port, or 0 when there is no such listener
 */
unsigned dnsb_webhook_port(const dnsb_webhook *wh, int metrics);

/**
 * Has the provider answered at least once (the probe, GET /records or an
 * apply)? Also 1 when the provider has no zone to probe, or the probe thread
 * could not start (so /healthz never stays 503 for a reason of its own).
 * @return 1 or 0
 */
int dnsb_webhook_ready(dnsb_webhook *wh);

/**
 * Stop gracefully: stop accepting connections, answer 503 to new POSTs on
 * open connections, wait (up to `grace` seconds) for requests in flight -
 * an apply in particular - to finish and their replies to leave, then close
 * everything and flush the drop log. Safe to call twice.
 * @param grace  seconds; <= 0 means apply_timeout + 10
 */
void dnsb_webhook_shutdown(dnsb_webhook *wh, double grace);

/** Shut down (if not done) and free. NULL is a no-op. */
void dnsb_webhook_free(dnsb_webhook *wh);

#ifdef __cplusplus
}
#endif
#endif
