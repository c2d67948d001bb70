/*
 * providers/common/backend.h - the skeleton every HTTP backend stands on (those
 * whose ops are DNSB_HB_OPS), as curl's lib/vtls/vtls.c is for its TLS
 * backends. Not installed; a backend includes it as "providers/common/backend.h".
 *
 * The skeleton holds what does not depend on the service: the provider ops
 * (submit, read, list, close) with their opening (the zone looked up, the
 * time left turned into a monotonic give-up time), the open sequence
 * (provider allocated, zones added, limits declared), the HTTP client and
 * the submission interval, requests with the time left, GET with a 200
 * expected, pagination, reads by owner name, the opening of the "HTTP
 * status -> class" function and the result of a classified reply. A backend
 * writes its requests, its replies and its classification: a
 * dnsb_hb_methods table and a state struct whose first member is a dnsb_hb.
 *
 * The shapes it is made for: one batch request per submission (Cloud DNS
 * changes.create, Route53 ChangeResourceRecordSets, PowerDNS PATCH), one
 * batch of per-record operations on record ids found by a read first
 * (Cloudflare: the ids are kept in a dnsb_hb_tags by the read the backend
 * makes in its submit), one conditional request per RRset (Azure: the
 * ETags in a dnsb_hb_tags, keyed by RRset). How a submission is made is the
 * backend's `submit`; what it needs before (a read of the batch's names,
 * the TTLs of old RRsets sent without one) are helpers here.
 */
#ifndef DNSBATCH_PROVIDERS_BACKEND_H
#define DNSBATCH_PROVIDERS_BACKEND_H

#include <stddef.h>

#include <json-c/json.h>

#include "dnsbatch/sys/provider.h"
#include "applier/net/http.h"
#include "applier/net/interval.h"

/** Seconds: the full-jitter backoff of a throttled read (dnsb_hb_get), base and cap. */
#define DNSB_HB_THROTTLE_BASE 0.2
#define DNSB_HB_THROTTLE_CAP 5.0
/** Throttled tries of one read at most (as the engine's --max-rate-limit-waits default): a read with no time
 *  limit (give_up 0) still ends, DNSB_ERATELIMIT, under an endless 429. */
#define DNSB_HB_THROTTLE_TRIES 20

/** A zone a backend serves: its apex and the service's name for it. */
typedef struct dnsb_hb_zone {
	char *apex;  /**< absolute, lower-case ("example.com."); owned */
	char *id;    /**< the service's id or name for it ("Z0123", "example-com", "example.test."); owned */
} dnsb_hb_zone;

typedef struct dnsb_hb dnsb_hb;

/** What a backend writes. Every function receives the dnsb_hb its state starts with. */
typedef struct dnsb_hb_methods {
	dnsb_provider_ops ops;      /**< DNSB_HB_OPS(name): the name is the backend's, for log lines too */
	const char *zone_noun;      /**< for "no ZONE_NOUN serves example.com." ("managed zone", "hosted zone") */
	size_t state_size;          /**< sizeof the backend's state (a dnsb_hb first) */
	const char *interval_flag;  /**< the flag of the backend's submission interval, without dashes, or NULL */

	/**
	 * Fill a new state (zeroed; m and the interval set) from the flags: the
	 * backend's settings and credentials, the client (dnsb_hb_client), the
	 * zones (b->zones), the interval's seconds; declare `limits`. Anything
	 * that cannot work (a refused credential, no zone) fails here, before
	 * a plan is read.
	 * @param limits  zeroed; filled
	 * @return 0; DNSB_EINVAL naming the flag; DNSB_EFATAL; DNSB_ENOMEM (the
	 *         skeleton then closes the state)
	 */
	int (*open)(dnsb_hb *b, const dnsb_config *cfg, dnsb_provider_limits *limits, dnsb_error *err);

	/**
	 * One request as the service wants it: authorised (a token, a key, a
	 * signature), a refusal of stale credentials renewed once. Send it with
	 * dnsb_hb_send.
	 * @param body     the request body (borrowed) or NULL
	 * @param give_up  monotonic seconds when the caller stops waiting, 0 = none
	 * @return as dnsb_http_do (a response of any status is 0), plus the
	 *         backend's credential errors
	 */
	int (*call)(dnsb_hb *b, const char *method, const char *url, const char *body, double give_up,
		    dnsb_http_response *out, dnsb_error *err);

	/**
	 * The code of a failed read, list or lookup reply (any status but 200),
	 * err naming `what`, the status and the service's message.
	 * @return DNSB_ERATELIMIT (the class is rate_limited), DNSB_ETRANSIENT
	 *         (transient: see dnsb_hb_class_code) or DNSB_EFATAL
	 */
	int (*reply_error)(const dnsb_http_response *resp, const char *what, dnsb_error *err);

	/**
	 * Submit one batch to a zone (dnsb_provider_ops.submit after its opening:
	 * `out` initialised, the zone found).
	 * @return as dnsb_provider_ops.submit
	 */
	int (*submit)(dnsb_hb *b, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n, double give_up,
		      dnsb_result *out, dnsb_error *err);

	/**
	 * The RRsets of `keys` that exist (n >= 1), or with keys NULL and n 0
	 * every RRset of the zone; appended to `out`.
	 * @return as dnsb_provider_ops.read
	 */
	int (*read)(dnsb_hb *b, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
		    dnsb_rrset_list *out, dnsb_error *err);

	/** Free what the backend's state owns beyond the dnsb_hb (config, credentials); not the state itself. */
	void (*close)(dnsb_hb *b);

	/** The service's documented request limit per account, the defaults of --rate-budget-rate and
	 *  --rate-budget-burst (requests per second, requests); 0 = none documented (the budget's own defaults) */
	double budget_rate, budget_burst;
} dnsb_hb_methods;

/** The part of a backend's state the skeleton keeps: the first member of that state. */
struct dnsb_hb {
	const dnsb_hb_methods *m;  /**< the backend's methods (static) */
	dnsb_http *http;           /**< the one client; owned */
	dnsb_hb_zone *zones;       /**< the zones served; owned */
	size_t zone_count;
	dnsb_interval pace;        /**< the backend's submission interval (every 0: none) */
	struct dnsb_budget *budget; /**< --rate-budget: the account's shared budget, or NULL; owned */
	const dnsb_config *cfg;    /**< the flags, borrowed during m->open only (dnsb_hb_client reads the budget's) */
	uint64_t rng;              /**< jitter of the waits after a throttled read */
};

/**
 * The provider ops of an HTTP backend named NAME (the first member of its
 * methods): the skeleton's submit, read, list and close, which open each
 * call and hand it to the methods, and its budget (no flush).
 */
#define DNSB_HB_OPS(NAME) \
	DNSB_PROVIDER_OPS_INIT_ALL(NAME, dnsb_hb_submit, dnsb_hb_read, dnsb_hb_list, dnsb_hb_close, NULL, dnsb_hb_budget)

/** As ops.submit; a rate_limited answer without a Retry-After takes the hold the client keeps
 *  (dnsb_http_held: a request the throttle chain did not send, a read, dnsb_hb_get, that gave up on a
 *  Retry-After), so the engine waits as long before sending again. */
int dnsb_hb_submit(void *state, const char *zone, dnsb_change *const *changes, size_t n, double timeout,
		   dnsb_result *out, dnsb_error *err);
int dnsb_hb_read(void *state, const char *zone, const dnsb_rrkey *keys, size_t n, double timeout,
		 dnsb_rrset_list *out, dnsb_error *err);
int dnsb_hb_list(void *state, const char *zone, double timeout, dnsb_rrset_list *out, dnsb_error *err);
/** ops.budget: the figures of --rate-budget's budget (dnsb_budget_stats_get); DNSB_ENOTFOUND without one. */
int dnsb_hb_budget(void *state, dnsb_budget_stats *out);
/** Calls m->close, logs the client's request and connection counts, frees the rest and the state. */
void dnsb_hb_close(void *state);

/**
 * The backend's HTTP client: `timeout` seconds per request at most, the CA
 * file (borrowed; NULL = the system's); with --rate-budget, the account's
 * shared rate budget (applier/net/ratelimit.h), whose token every request but
 * a credential call takes. Call it before the first request (zone discovery).
 * @return 0, or as dnsb_http_new and dnsb_budget_from_config (DNSB_EINVAL
 *         naming a --rate-budget flag)
 */
int dnsb_hb_client(dnsb_hb *b, double timeout, const char *ca_file, dnsb_error *err);

/**
 * A backend's dnsb_backend.open: its state allocated (m->state_size,
 * zeroed), m->open run, then a provider on m->ops with the zones added and
 * the limits declared. On an error the state is closed.
 * @param out  receives the provider (the caller's)
 * @return 0; m->open's codes; DNSB_EINVAL for a zone apex that is not a name; DNSB_ENOMEM
 */
int dnsb_hb_open(dnsb_provider **out, const dnsb_hb_methods *m, const dnsb_config *cfg, dnsb_error *err);

/** A backend's reading of its flags into its settings (`settings`: the backend's config struct). */
typedef int (*dnsb_hb_settings_fn)(void *settings, const dnsb_config *cfg, dnsb_error *err);

/**
 * The frame of a backend's config parse: `settings` (size bytes) zeroed,
 * read by `read` (dnsb_flags_parse of the backend's flag table, then what
 * crosses flags); on an error, DNSB_ENOMEM given its message and what was
 * read freed by `clear`.
 * @return read's code
 */
int dnsb_hb_config_parse(void *settings, size_t size, dnsb_hb_settings_fn read, void (*clear)(void *settings),
			 const dnsb_config *cfg, dnsb_error *err);

/**
 * Append a zone to an array (a backend's configuration, a listing's reply,
 * or b->zones).
 * @param apex  absolute, lower-case (dnsb_name_canonical's); taken, freed on an error
 * @param id    copied
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_hb_zones_push(dnsb_hb_zone **zones, size_t *count, char *apex, const char *id);

/** Take the zones of a backend's configuration (its --X-zone flags): *zones and *count are left empty. */
void dnsb_hb_zones_take(dnsb_hb *b, dnsb_hb_zone **zones, size_t *count);

/** Free a zone array (and its strings). NULL is a no-op. */
void dnsb_hb_zones_free(dnsb_hb_zone *zones, size_t count);

/** The zone of an apex, or NULL. Borrowed from b. */
const dnsb_hb_zone *dnsb_hb_zone_find(const dnsb_hb *b, const char *apex);

/**
 * Send one request within the time left (the methods' call uses it).
 * @param headers  "Name: value" lines, NULL-terminated (borrowed; may hold secrets)
 * @param sign     AWS Signature V4, or NULL
 * @param give_up  monotonic seconds, 0 = none
 * @return as dnsb_http_do; DNSB_ETRANSIENT when give_up has passed (nothing sent)
 */
int dnsb_hb_send(dnsb_hb *b, const char *method, const char *url, const char *const *headers, const char *body,
		 const dnsb_http_sigv4 *sign, double give_up, dnsb_http_response *out, dnsb_error *err);

/**
 * GET a URL through m->call, expecting 200; another status becomes a code
 * through m->reply_error. A throttle is waited out (full jitter, base
 * DNSB_HB_THROTTLE_BASE, cap DNSB_HB_THROTTLE_CAP; the reply's Retry-After as
 * a floor, capped at DNSB_RETRY_AFTER_CAP_FACTOR x DNSB_HB_THROTTLE_CAP as in
 * applier/core/backoff.h) and fed to the rate budget while give_up allows;
 * DNSB_ERATELIMIT when it does not, at once, without a wait (the message
 * names a Retry-After that did not fit).
 * @param out     the 200 response (the caller's; dnsb_http_response_clear), zeroed otherwise
 * @param status  receives the status of any reply, 0 when none came (may be NULL)
 * @return 0; as m->call and m->reply_error
 */
int dnsb_hb_get(dnsb_hb *b, const char *url, const char *what, double give_up, dnsb_http_response *out, long *status,
		dnsb_error *err);

/**
 * dnsb_hb_get of a JSON document. A 200 that is not JSON is DNSB_ETRANSIENT
 * (maybe not the API's reply).
 * @param doc  receives it (the caller's; json_object_put), NULL otherwise
 * @return as dnsb_hb_get
 */
int dnsb_hb_get_json(dnsb_hb *b, const char *url, const char *what, double give_up, json_object **doc, long *status,
		     dnsb_error *err);

/**
 * One page of a listing: fetch the page after `token` (NULL: the first) and
 * take what it holds.
 * @param next  receives the next page's token (malloc'd) or NULL on the last page
 * @return 0 or a DNSB_E* code with err set (the listing stops)
 */
typedef int (*dnsb_hb_page_fn)(void *payload, const char *token, char **next, dnsb_error *err);

/**
 * Follow a listing page by page until a page has no next token.
 * @param what       the listing, for the message when it runs past max_pages
 * @param max_pages  pages followed at most (a server looping on its token): then DNSB_ETRANSIENT
 * @return 0, or the page's code
 */
int dnsb_hb_pages(const char *what, unsigned long max_pages, dnsb_hb_page_fn page, void *payload, dnsb_error *err);

/**
 * The query of a listing at one owner name: "&NAME_PARAM=OWNER&TYPE_PARAM=TYPE", OWNER without its trailing dot
 * and percent-encoded (the REST APIs' form: Cloudflare's name/type, Akamai's search/types), each part only when
 * given (owner NULL, type 0: "").
 * @param out  receives the query (malloc'd, the caller's)
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_hb_owner_query(char **out, const char *owner, const char *name_param, uint16_t type, const char *type_param,
			dnsb_error *err);

typedef struct dnsb_hb_tags dnsb_hb_tags;

/**
 * List the RRsets at one owner name (and of `type` when not 0), or the whole
 * zone when owner is NULL, keeping those of keys (all when n is 0); with
 * `tags` (may be NULL), the service's handles of what is kept (record ids).
 */
typedef int (*dnsb_hb_list_fn)(dnsb_hb *b, const dnsb_hb_zone *zone, const char *owner, uint16_t type,
			       const dnsb_rrkey *keys, size_t n, double give_up, dnsb_rrset_list *out,
			       dnsb_hb_tags *tags, dnsb_error *err);

/**
 * A read for services that list by owner name (Cloud DNS, Route53,
 * Cloudflare): one listing per owner name of `keys` when there are at most
 * `by_name_max` of them (by name and type where one type is asked), else one
 * listing of the whole zone kept to the keys; n 0 lists the whole zone.
 * `tags` (may be NULL) is given to the list function (a whole-zone listing
 * gives the handles of the whole zone).
 * @return as the list function
 */
int dnsb_hb_read_by_owner(dnsb_hb *b, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n,
			  size_t by_name_max, dnsb_hb_list_fn list, double give_up, dnsb_rrset_list *out,
			  dnsb_hb_tags *tags, dnsb_error *err);

/**
 * Copy from `all` the RRsets keys ask for (by type, or DNSB_RRKEY_ANY) into
 * `out`, through an index of the keys (a batch of thousands stays linear).
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_hb_pick(dnsb_rrset_list *out, const dnsb_rrset_list *all, const dnsb_rrkey *keys, size_t n);

/**
 * For services whose deletions must match the held RRset exactly (Cloud DNS,
 * Route53): read, through m->read, the old RRsets of a batch sent without a
 * TTL (dnsb_unset_ttl_keys), so that dnsb_old_ttl can give theirs.
 * @param held  receives them (the caller's)
 * @return as m->read
 */
int dnsb_hb_read_unset_ttls(dnsb_hb *b, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n,
			    double give_up, dnsb_rrset_list *held, dnsb_error *err);

/** dnsb_hb_status_class's answer when the status is the backend's to classify. */
#define DNSB_HB_CLASS_OWN (-1)

/**
 * The opening every backend's classification shares: 2xx ok, 408 and 5xx
 * transient, 413 too_large, 429 rate_limited.
 * @return a dnsb_class, or DNSB_HB_CLASS_OWN for every other status (the
 *         backend reads its error body)
 */
int dnsb_hb_status_class(long status);

/** The code of a failed read of that class: DNSB_ERATELIMIT for rate_limited, DNSB_ETRANSIENT for transient, else DNSB_EFATAL. */
int dnsb_hb_class_code(dnsb_class cls);

/**
 * The end of a classification: `res` set to cls with the reply's status,
 * the service's code (copied, may be NULL or "") and message ("" for ok,
 * "(no message)" when empty otherwise); the reply's Retry-After for
 * rate_limited and transient. The culprits already named are kept.
 */
void dnsb_hb_result(dnsb_result *res, dnsb_class cls, const dnsb_http_response *resp, const char *code,
		    const char *message);

/**
 * Service handles read beside the records: Cloudflare's record id per
 * (owner, type, RDATA), Azure's ETag per RRset (rdata NULL). A list owned by
 * its user; dnsb_hb_tags_clear frees it.
 */
typedef struct dnsb_hb_tag {
	char *owner;   /**< absolute, lower-case; owned */
	uint16_t type;
	char *rdata;   /**< canonical presentation form (as dnsb_rrset holds it), or NULL for the RRset; owned */
	char *tag;     /**< the service's handle; owned */
	uint32_t ttl;  /**< the record's TTL as the service holds it */
} dnsb_hb_tag;

struct dnsb_hb_tags {
	dnsb_hb_tag *items;
	size_t count, cap;
};

/** Add a handle (strings copied; rdata may be NULL). @return 0 or DNSB_ENOMEM */
int dnsb_hb_tags_add(dnsb_hb_tags *tags, const char *owner, uint16_t type, const char *rdata, const char *tag,
		     uint32_t ttl);

/**
 * The handle of (owner, type, rdata), rdata NULL for the RRset's, or NULL.
 * With `skip`, the first handle not marked in it (skip[i] for tags->items[i]):
 * a service may hold one value twice under two ids.
 * @return borrowed from tags
 */
const dnsb_hb_tag *dnsb_hb_tags_find(const dnsb_hb_tags *tags, const char *owner, uint16_t type, const char *rdata,
				     const unsigned char *skip);

/** Free what a list owns and zero it. NULL is a no-op. */
void dnsb_hb_tags_clear(dnsb_hb_tags *tags);

#endif
