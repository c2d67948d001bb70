/*
 * providers/cloudflare/cloudflare.h - internals of the cloudflare provider
 * (Cloudflare API v4, DNS records), shared by its files and its unit tests.
 * Not installed; users see the backend only as dnsb_backend_cloudflare.
 *
 *   config.c      flags and the credentials ($CF_API_TOKEN, a value or
 *                 file:PATH; else $CF_API_KEY with $CF_API_EMAIL)
 *   records.c     records of a listing page as RRsets and record ids; the
 *                 batch body (deletes by id, then posts) and which change
 *                 each operation comes from
 *   props.c       the proxied flag and comment of an RRset (external-dns's
 *                 providerSpecific) in one canonical form, defaults resolved
 *   reply.c       a batch reply as one class, its first error mapped to its
 *                 change; read errors as codes
 *   pace.c        requests slowed down by the RateLimit headers before a 429
 *   cloudflare.c  the methods on the HTTP backend skeleton: calls, listings,
 *                 submit (read the names, pre-check, one batch, read back), open, flags
 *
 * Cloudflare stores one record per value, each with an id, and writes
 * unconditionally: a submission reads the batch's names first (their
 * records and ids), replays the batch over them (providers/common/precheck.h) and
 * sends the difference as one POST .../dns_records/batch, which Cloudflare
 * applies whole or not at all; then reads the names back, and an RRset
 * holding what neither the batch wrote nor the read found was written by
 * another client in the window (a `race` warning, counted). No token or key
 * ever appears in a message, a log line or argv.
 *
 * TTLs are compared exactly (the provider does not declare ttl_inexact):
 * Cloudflare rewrites a TTL only where this provider writes automatic (1)
 * itself, for a proxied record and below Cloudflare's minimum of 60 s, and
 * the properties hook (dnsb_cf_props) gives every RRset that TTL before the
 * engine compares or sends anything, and AdjustEndpoints before external-dns
 * plans: what is asked is what `records` will list, and a TTL that never
 * landed is never taken for one in effect.
 */
#ifndef DNSBATCH_PROVIDERS_CLOUDFLARE_H
#define DNSBATCH_PROVIDERS_CLOUDFLARE_H

#include <pthread.h>

#include <json-c/json.h>

#include "dnsbatch/sys/provider.h"
#include "providers/common/backend.h"
#include "providers/common/window.h"
#include "providers/common/precheck.h"

#define DNSB_CF_ENDPOINT_DEFAULT "https://api.cloudflare.com/client/v4"
/** An API token: the value, or "file:PATH" (as external-dns reads it). */
#define DNSB_CF_TOKEN_ENV "CF_API_TOKEN"
/** A global API key and its account's email, when there is no token. */
#define DNSB_CF_KEY_ENV "CF_API_KEY"
#define DNSB_CF_EMAIL_ENV "CF_API_EMAIL"
/** --cloudflare-batch-change-size default: operations per batch on the Free plan (3,500 on paid plans). */
#define DNSB_CF_BATCH_DEFAULT 200
/** Seconds one HTTP request may take at most (the engine's time left may cut it). */
#define DNSB_CF_TIMEOUT 30.0
/** Records asked for per listing page. */
#define DNSB_CF_PAGE_SIZE 100
/** Pages followed at most in one listing. */
#define DNSB_CF_PAGES_MAX 100000
/** A read of at most this many distinct owner names lists each name; more lists the zone. */
#define DNSB_CF_READ_BY_NAME_MAX 16
/** Cloudflare's TTL meaning "automatic" (and the only TTL of a proxied record). */
#define DNSB_CF_TTL_AUTO 1
/** Cloudflare's smallest TTL other than automatic (30 on Enterprise zones): below it this provider writes automatic. */
#define DNSB_CF_TTL_MIN 60
/**
 * The default shared budget (--rate-budget-rate, --rate-budget-burst):
 * Cloudflare allows 1,200 requests per five minutes per user or token, shared
 * by every client of that token. A bucket that starts full grants burst +
 * rate x 300 s in the first five minutes: 300 + 3 x 300 = 1,200.
 */
#define DNSB_CF_BUDGET_RATE 3.0
#define DNSB_CF_BUDGET_BURST 300.0
/** Cloudflare's window of the limit above, in seconds, and the requests it allows per token. */
#define DNSB_CF_LIMIT_WINDOW 300.0
#define DNSB_CF_LIMIT_REQUESTS 1200.0

/** Settings of one cloudflare provider, from its flags and the environment. */
/** The cloudflare flags (config.c): the one table of their names, kinds, defaults and help. */
extern const dnsb_flag dnsb_cf_flags[];

typedef struct dnsb_cf_config {
	char *endpoint;            /**< --cloudflare-api-endpoint, without a trailing '/'; owned */
	char *ca_file;             /**< --cloudflare-ca-file, or NULL; owned */
	size_t zone_id_count;      /**< how many --cloudflare-zone-id (checked; read again at open); 0 = GET /zones */
	size_t batch_size;         /**< --cloudflare-batch-change-size: operations per batch */
	int proxied;               /**< --cloudflare-proxied: new A, AAAA and CNAME records proxied */
	char *comment;             /**< --cloudflare-record-comment, or NULL; owned */
	char *auth[3];             /**< the credential header lines, NULL-terminated (secrets: wiped when freed) */
	const char *auth_source;   /**< static: "$CF_API_TOKEN", "file $CF_API_TOKEN names", "$CF_API_KEY" */
} dnsb_cf_config;

/**
 * Read the settings from the flags and the credentials from the environment.
 * @param out  filled (the caller's; dnsb_cf_config_clear)
 * @return 0; DNSB_EINVAL naming the flag or variable (never its value);
 *         DNSB_ENOTFOUND/DNSB_EIO for an unreadable token file; DNSB_ENOMEM
 */
int dnsb_cf_config_parse(dnsb_cf_config *out, const dnsb_config *cfg, dnsb_error *err);

/** Free what a config owns (wiping the credentials) and zero it. NULL is a no-op. */
void dnsb_cf_config_clear(dnsb_cf_config *cfg);

/* ---- records (records.c) ---- */

/**
 * Append the records of a listing page ({"result": [{"id", "name", "type",
 * "content", "ttl", "priority"}], "result_info": {"page", "total_pages"}})
 * to `out` as RRsets (owner lower-case and absolute, RDATA canonical) and,
 * when `ids` is not NULL, each record's id keyed by (owner, type, RDATA).
 * Only those of `keys` when n > 0. SRV and CAA records are read from their
 * "data" object ({priority, weight, port, target}, {flags, tag, value});
 * types this provider does not write (dnsb_cf_writable) are skipped. Two
 * records of one value (Cloudflare allows it) are one. A record's "proxied" and
 * "comment" become its RRset's properties in their canonical form
 * (dnsb_cf_routing against cfg's defaults; cfg NULL: none), from the
 * set's first record.
 * @param next  receives the next page's number as text (malloc'd), or NULL on the last page
 * @return 0; DNSB_EPARSE (not a listing); DNSB_ENOMEM
 */
int dnsb_cf_records_parse(dnsb_rrset_list *out, dnsb_hb_tags *ids, const dnsb_cf_config *cfg, json_object *page,
			  const dnsb_rrkey *keys, size_t n, char **next, dnsb_error *err);

/** The batch body and where each operation came from. */
typedef struct dnsb_cf_batch {
	char *json;             /**< {"deletes": [{"id"}], "posts": [{...}]}; owned */
	size_t *deletes;        /**< deletes[i] = the index in the batch of the change it came from */
	size_t delete_count;
	const char **delete_ids; /**< the record id of each delete (borrowed from the ids read) */
	size_t *posts;          /**< posts[i] = likewise */
	size_t post_count;
} dnsb_cf_batch;

/**
 * Build the batch body of a pre-checked batch: for each RRset that changes,
 * the deletes (by id) of the records that go and the posts of those that
 * come; all of them when the TTL or the properties change. A record posted
 * is {name, type, content, ttl, proxied (A, AAAA, CNAME), comment, priority
 * (MX)}, or {name, type, data, ttl, comment} for SRV and CAA; proxied and
 * comment from the RRset's properties (dnsb_cf_effective), the TTL dnsb_cf_ttl.
 * @param pc     the pre-check's RRsets that change
 * @param ids    the record ids the read found
 * @param cfg    the defaults: --cloudflare-proxied, --cloudflare-record-comment
 * @return 0; DNSB_EINVAL when a record cannot be written (a type this
 *         provider does not write, a held record without an id): err names
 *         it and *bad the change; DNSB_ENOMEM
 */
int dnsb_cf_batch_build(dnsb_cf_batch *out, const dnsb_precheck *pc, const dnsb_hb_tags *ids,
			dnsb_change *const *changes, size_t n, const dnsb_cf_config *cfg, size_t *bad, dnsb_error *err);

/** Operations in a batch. */
size_t dnsb_cf_batch_size(const dnsb_cf_batch *b);

/** Free what a batch owns and zero it. NULL is a no-op. */
void dnsb_cf_batch_clear(dnsb_cf_batch *b);

/* ---- provider properties (props.c) ---- */

/** 1 when Cloudflare can proxy a record of this type (A, AAAA, CNAME). */
int dnsb_cf_proxiable(uint16_t type);

/**
 * 1 when this provider writes records of this type: every type external-dns
 * v0.22 writes to Cloudflare (A, AAAA, CNAME, TXT, MX, NS, SRV; its DNAME
 * Cloudflare has not) and CAA and PTR; else 0.
 */
int dnsb_cf_writable(uint16_t type);

/**
 * The TTL Cloudflare lists for a record written with `ttl`: automatic
 * (DNSB_CF_TTL_AUTO) when proxied or below DNSB_CF_TTL_MIN, else ttl
 * (DNSB_TTL_UNSET stays unset).
 * @return seconds
 */
uint32_t dnsb_cf_ttl(uint32_t ttl, int proxied);

/**
 * What an RRset asks of Cloudflare: whether proxied (its
 * DNSB_PROPERTY_CF_PROXIED read as Go's strconv.ParseBool does, else
 * --cloudflare-proxied; never for a type not proxiable) and its comment (its
 * DNSB_PROPERTY_CF_COMMENT, else --cloudflare-record-comment, else NULL).
 * @param comment, comment_len  receive the comment, borrowed from r or cfg, not NUL-terminated at len
 * @return 1 proxied, 0 not
 */
int dnsb_cf_effective(const dnsb_cf_config *cfg, const dnsb_rrset *r, const char **comment, size_t *comment_len);

/**
 * The canonical properties of a record (dnsb_rrset.routing's form): a
 * proxied line only for a proxiable type whose flag is not the default, a
 * comment line only for a comment (not empty, without a line break) that is
 * not the default.
 * @param out  receives the malloc'd text, or NULL when every property is the default
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_cf_routing(char **out, const dnsb_cf_config *cfg, uint16_t type, int proxied, const char *comment,
		    size_t comment_len);

/**
 * The provider's dnsb_provider_limits.properties (ctx: its dnsb_cf_config):
 * r's properties rewritten by dnsb_cf_routing from dnsb_cf_effective, and
 * its TTL the one Cloudflare will list (dnsb_cf_ttl).
 * @return 0; DNSB_EINVAL when this provider writes no record of r's type
 *         (dnsb_cf_writable: r is left as it was); DNSB_ENOMEM
 */
int dnsb_cf_props(const void *ctx, dnsb_rrset *r);

/* ---- replies (reply.c) ---- */

/**
 * The class of a batch reply, by Cloudflare's first error code: 81053,
 * 81054, 81057, 81058 (a record of that name exists, a CNAME beside other
 * data) and 81044 (no such record for a delete by id) conflict; 1004 and
 * 9000-9999 (content Cloudflare refuses) invalid; 429 and its code 971
 * rate_limited with Retry-After; 408, 5xx transient, as a 2xx that is not
 * the API's JSON with success true; 413 too_large; 401, 403 (a token
 * without DNS Write or without the zone), 404 (the zone) and any other
 * status fatal. An error names its operation in one of three documented
 * forms: its source.pointer ("/posts/3", "/deletes/0/id"), its message
 * ("posts[3]: ..."), or a deleted record's id in its message; every error of
 * the reply that names one makes that operation's change a culprit.
 * @param layout  the body as sent
 */
void dnsb_cf_classify(dnsb_result *res, const dnsb_http_response *resp, const dnsb_cf_batch *layout);

/**
 * The code of a failed read or lookup reply (the skeleton's reply_error):
 * DNSB_ERATELIMIT for 429 (code 971), DNSB_ETRANSIENT for 408 and 5xx;
 * DNSB_EFATAL otherwise, with err naming `what`, the status and
 * Cloudflare's first error (code and message).
 */
int dnsb_cf_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err);

/* ---- pacing by the RateLimit headers (pace.c) ---- */

/** The token's window (providers/common/window.h: spread below a fifth of the quota), read from the RateLimit
 *  headers. Thread-safe. */
typedef struct dnsb_cf_pace {
	dnsb_window w;          /**< remaining, reset, quota (RateLimit-Policy q), slowed, waited */
	unsigned long absurd;   /**< RateLimit headers ignored: a reset past DNSB_CF_RESET_MAX (logged once) */
} dnsb_cf_pace;

/** The longest a request is held (seconds), the rate budget's cap (ratelimit.h): a longer wait is not made. */
#define DNSB_CF_PACE_CAP 60.0
/** A RateLimit reset (t) past this many seconds makes no sense (Cloudflare's window is 300 s): ignored. */
#define DNSB_CF_RESET_MAX 3600L

/**
 * The tightest item of a RateLimit or RateLimit-Policy header
 * ("default";r=50;t=30, "burst";r=5;t=2): the smallest value of parameter
 * `key` ("r", "q") over the items, and that item's `key2` ("t", "w").
 * @param key2, value2  may be NULL; *value2 is -1 when that item lacks key2
 * @return 0 with *value set, or -1 when no item has `key`
 */
int dnsb_cf_ratelimit_read(const char *header, const char *key, long *value, const char *key2, long *value2);

/** Start with nothing known (remaining unknown: no request is held). */
void dnsb_cf_pace_init(dnsb_cf_pace *p);

/** Destroy the lock (after dnsb_cf_pace_init; a zeroed pace is a no-op). */
void dnsb_cf_pace_clear(dnsb_cf_pace *p);

/**
 * Reserve the next request: the seconds to wait before sending it (0 while
 * more than a fifth of the quota is left; then what is left spread over the
 * time to the reset; none left, or a 429's hold, until the reset).
 * @param now      monotonic seconds
 * @param give_up  monotonic seconds, 0 = none: a wait that passes it, or
 *                 DNSB_CF_PACE_CAP, reserves nothing (the request is not to be
 *                 sent: rate_limited; the seconds returned say how long the
 *                 token is held)
 * @return seconds
 */
double dnsb_cf_pace_reserve(dnsb_cf_pace *p, double now, double give_up);

/**
 * Take a reply's RateLimit and RateLimit-Policy headers (ignored when
 * absent, and when the reset is past DNSB_CF_RESET_MAX: logged once, counted
 * in `absurd`); a 429 with Retry-After holds every request until it has passed,
 * at most DNSB_RETRY_AFTER_CAP_FACTOR x DNSB_HB_THROTTLE_CAP seconds (as
 * dnsb_hb_get waits the same reply).
 * @return 1 when this reply brought what is left below the fifth of the quota, else 0
 */
int dnsb_cf_pace_note(dnsb_cf_pace *p, const dnsb_http_response *resp, double now);

struct dnsb_pacer;
/**
 * The pace as the header pacer of the transport's throttle chain
 * (applier/net/throttle.h, dnsb_http_set_pacer): reserve is
 * dnsb_cf_pace_reserve, note dnsb_cf_pace_note (its 1 slows the rate budget).
 * @param p  borrowed (the pacer's state): it outlives the client
 */
void dnsb_cf_pacer(struct dnsb_pacer *out, dnsb_cf_pace *p);

/* ---- the provider (cloudflare.c) ---- */

typedef struct dnsb_cf {
	dnsb_hb base;  /**< first: the skeleton's part (client; zones: apex -> zone id) */
	dnsb_cf_config cfg;
	dnsb_cf_pace pace; /**< every request of the token (pace.c) */
} dnsb_cf;


#endif
