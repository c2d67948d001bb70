/*
 * providers/digitalocean/digitalocean.h - internals of the digitalocean
 * provider (DigitalOcean API v2, /v2/domains/{domain}/records), shared by
 * its files, its fuzz target and its tests. Not installed; users see the
 * backend only as dnsb_backend_digitalocean.
 *
 *   config.c        the flags and the token ($DO_TOKEN or a file)
 *   records.c       a record's JSON and an RRset's RDATA, both ways (`@` for
 *                   the apex, data without the final dot, MX/SRV/CAA fields)
 *   diff.c          the requests of a pre-checked batch: per RRset, records
 *                   updated in place by id (PUT), the difference added
 *                   (POST) or removed (DELETE); the apex CNAME check
 *   reply.c         a reply's class from its status and error body
 *   pace.c          the ratelimit-remaining / ratelimit-reset headers as the
 *                   throttle chain's header pacer
 *   list.c          the listings (domains, a domain's records, by name)
 *   send.c          a batch's requests side by side (the transport's
 *                   dnsb_http_many), 429 rounds, a lost reply read back
 *   write.c         one batch: its DELETEs, PUTs and POSTs, each kind a run
 *                   of requests side by side, undone when one is refused
 *   digitalocean.c  the methods on the HTTP skeleton, open, the descriptor
 *
 * DigitalOcean has no batch call and writes unconditionally: a record per
 * value, each with an id; an RRset is every record of one name and type. A
 * submission reads the batch's names (records and ids), replays the batch
 * over them (providers/common/precheck.h: a CNAME beside other data, a record that
 * exists, an old RRset that moved, all found before anything is sent; a
 * CNAME at the apex too), then writes the difference, one request per
 * record: the DELETEs, then the PUTs, then the POSTs, each kind side by side.
 * When one is refused, those already written are undone, the last kind
 * first (a POST deleted, a PUT put back, a DELETE posted again); a request whose
 * reply was lost is settled by reading its RRset back before anything is
 * undone (an undo's own lost reply too). An undo that fails ends the answer
 * FATAL, code "rollback", naming the records left. The token never appears in a message or a log line.
 */
#ifndef DNSBATCH_PROVIDERS_DIGITALOCEAN_H
#define DNSBATCH_PROVIDERS_DIGITALOCEAN_H

#include <pthread.h>
#include <stddef.h>

#include <json-c/json.h>

#include "dnsbatch/sys/flag.h"
#include "dnsbatch/sys/provider.h"
#include "providers/common/backend.h"
#include "providers/common/precheck.h"
#include "providers/common/window.h"

#define DNSB_DO_ENDPOINT_DEFAULT "https://api.digitalocean.com"
/** The token's variable, as external-dns's removed provider read it. */
#define DNSB_DO_TOKEN_ENV "DO_TOKEN"
/** --digitalocean-api-page-size default (external-dns's) and the API's largest page. */
#define DNSB_DO_PAGE_DEFAULT 50
#define DNSB_DO_PAGE_MAX 200
/** Pages followed at most in one listing (list.c bounds it by the first page's meta.total). */
#define DNSB_DO_PAGES_MAX 100000
/** Pages a listing may run past what its first page's meta.total announced (records added meanwhile), besides a tenth. */
#define DNSB_DO_PAGES_SLACK 2
/** A read of at most this many distinct owner names lists each name (?name=); more lists the domain. */
#define DNSB_DO_READ_BY_NAME_MAX 16
/** Seconds one HTTP request may take at most. */
#define DNSB_DO_TIMEOUT 30.0
/** DigitalOcean's smallest TTL: a smaller one is written (and listed) as this. */
#define DNSB_DO_TTL_MIN 30
/**
 * The default shared budget (--rate-budget-rate, --rate-budget-burst): a
 * token may make 5,000 requests an hour and 250 a minute, shared by every
 * client of it. A bucket starting full grants burst + rate x t in t
 * seconds: 150 + 4,850 = 5,000 in an hour, 150 + 81 = 231 in a minute.
 */
#define DNSB_DO_BUDGET_BURST 150.0
#define DNSB_DO_BUDGET_RATE (4850.0 / 3600.0)
/** Rounds of one run of requests: those refused with 429 are sent again (after the pacer's hold), at most. */
#define DNSB_DO_429_TRIES 3
/** Requests of one batch in flight at once (DigitalOcean's limit is per minute: a few hide the round trips). */
#define DNSB_DO_IN_FLIGHT 4

/** Settings of one digitalocean provider. Every string owned. */
typedef struct dnsb_do_config {
	char *endpoint;     /**< --digitalocean-api-endpoint + "/v2", no trailing '/' */
	char *ca_file;      /**< --digitalocean-ca-file or NULL */
	char *token;        /**< --digitalocean-token-file's content or $DO_TOKEN (a secret: dnsb_secret_free) */
	char *auth;         /**< "Authorization: Bearer TOKEN" (a secret) */
	size_t page_size;   /**< --digitalocean-api-page-size */
} dnsb_do_config;

/** config.c: the flags. */
extern const dnsb_flag dnsb_do_flags[];

/**
 * Read the settings.
 * @return 0; DNSB_EINVAL naming the flag (no token, a bad URL or page size);
 *         DNSB_ENOTFOUND/DNSB_EIO for an unreadable token file; DNSB_ENOMEM
 */
int dnsb_do_config_parse(dnsb_do_config *out, const dnsb_config *cfg, dnsb_error *err);

/** Free what a config owns (wiping the token) and zero it. NULL is a no-op. */
void dnsb_do_config_clear(dnsb_do_config *cfg);

/* ---- records (records.c) ---- */

/** 1 when this provider writes records of this type (A, AAAA, CNAME, TXT, MX, SRV, NS, CAA), else 0. */
int dnsb_do_writable(uint16_t type);

/**
 * One record of a listing ({"id", "type", "name", "data", "priority",
 * "port", "weight", "ttl", "flags", "tag"}) as (owner, type, RDATA, TTL, id):
 * owner `apex` for "@", else name + "." + apex; the data of CNAME, MX, NS
 * and SRV absolute ("@" the apex, a final dot added); TXT data one string
 * (cut in 255-octet character-strings), CAA's value quoted by ldns.
 * @param owner   receives it (absolute, lower-case; malloc'd, the caller's)
 * @param rdata   receives the canonical RDATA (malloc'd, the caller's)
 * @param id      receives the record's id as text (>= 24 bytes)
 * @return 0; 1 for a record of a type not written here (SOA: skipped);
 *         DNSB_EPARSE (not a record, a field missing or out of range: err
 *         names it); DNSB_ENOMEM
 */
int dnsb_do_record_parse(char **owner, uint16_t *type, char **rdata, uint32_t *ttl, char *id, json_object *rec,
			 const char *apex, dnsb_error *err);

/**
 * Append the records of one listing page ({"domain_records": [...],
 * "links": {"pages": {"next"}}}) to `out` (those of keys when n > 0) and
 * their ids to `ids` (may be NULL), keyed by (owner, type, RDATA). With
 * n 0 (a listing of the whole domain, never a change's read) a record that
 * cannot be read is skipped with a warning naming it (owner, type, id);
 * with n > 0 one of the keys' RRsets fails the page (DNSB_EPARSE).
 * @param next  receives the next page's URL (malloc'd) or NULL on the last page
 * @return the number of records skipped (0 when n > 0); DNSB_EPARSE (not a
 *         listing, an unreadable record of the keys); DNSB_ENOMEM
 */
int dnsb_do_records_parse(dnsb_rrset_list *out, dnsb_hb_tags *ids, json_object *page, const char *apex,
			  const dnsb_rrkey *keys, size_t n, char **next, dnsb_error *err);

/**
 * The body of a POST or PUT of one record: {"type", "name", "data", "ttl"}
 * and "priority" (MX, SRV), "weight" and "port" (SRV), "flags" and "tag"
 * (CAA): the name "@" at the apex else relative to it, the data of a name
 * absolute with its final dot.
 * @param rdata  canonical presentation form
 * @param ttl    seconds (DNSB_DO_TTL_MIN at least is written)
 * @param out    receives the JSON text (malloc'd, the caller's)
 * @return 0; DNSB_EINVAL (a type not written here, RDATA that does not
 *         parse, an owner outside the apex, a TXT of several strings that
 *         one string cannot hold as they are: err says which); DNSB_ENOMEM
 */
int dnsb_do_record_body(char **out, const char *apex, const char *owner, uint16_t type, const char *rdata,
			uint32_t ttl, dnsb_error *err);

/**
 * The provider's dnsb_provider_limits.properties: the TTL DigitalOcean will
 * list (DNSB_DO_TTL_MIN at least; unset stays unset), no provider property.
 * @return 0; DNSB_EINVAL for a type not written here
 */
int dnsb_do_props(const void *ctx, dnsb_rrset *r);

/* ---- the requests of a batch (diff.c) ---- */

typedef enum dnsb_do_op_kind { DNSB_DO_DELETE = 0, DNSB_DO_PUT, DNSB_DO_POST } dnsb_do_op_kind;

/** One request of a batch. Strings borrowed from the pre-check's RRsets and the ids read, except id. */
typedef struct dnsb_do_op {
	dnsb_do_op_kind kind;
	const char *owner;       /**< absolute */
	uint16_t type;
	char id[24];             /**< the record's id (PUT, DELETE; a POST's once it landed) */
	const char *rdata;       /**< the record written (PUT, POST), or NULL */
	uint32_t ttl;            /**< its TTL */
	const char *old_rdata;   /**< the record replaced or removed (PUT, DELETE), or NULL */
	uint32_t old_ttl;        /**< its TTL */
	unsigned char theirs;    /**< a POST refused as a duplicate (422) whose record the read-back found: ours (libcurl's
				      resend) or another client's made meanwhile; its undo deletes nothing (write.c) */
} dnsb_do_op;

/**
 * The requests that take each RRset of `patch` from what is held (the
 * records of `ids`) to its final state: the records held with the final
 * RDATA and TTL stay; the others are paired with the final records not
 * held, the same RDATA first, and each pair is one PUT by id; the held ones
 * left over are DELETEd, the final ones left over POSTed. In order: every
 * DELETE, then every PUT, then every POST (a CNAME leaves a name before
 * another type takes it).
 * @param ops  receives the requests (malloc'd, the caller's; NULL when none)
 * @return 0; DNSB_EINVAL when a held record has no id (err names it); DNSB_ENOMEM
 */
int dnsb_do_diff(dnsb_do_op **ops, size_t *count, const dnsb_precheck *patch, const dnsb_hb_tags *ids,
		 dnsb_error *err);

/**
 * The pre-check's rule DigitalOcean adds: no CNAME at the apex (its
 * listing shows no SOA the shared pre-check could find it by). Every change
 * writing one is named a culprit in `res` (CONFLICT, code "precheck").
 * @return how many
 */
size_t dnsb_do_apex_cname(dnsb_result *res, dnsb_change *const *changes, size_t n, const char *apex);

/* ---- sending (send.c) ---- */

/** What is known of one request: not sent or refused (nothing done), landed, or nobody can tell. */
#define DNSB_DO_NOT_LANDED 0
#define DNSB_DO_LANDED 1
#define DNSB_DO_UNKNOWN (-1)

/** Requests of one batch, sent a run at a time, and what became of each. */
typedef struct dnsb_do_batch {
	struct dnsb_do *d;
	const dnsb_hb_zone *zone;
	const dnsb_hb_tags *held;  /**< the ids read before writing (a POST's record is one not among them); borrowed */
	dnsb_do_op *ops;           /**< borrowed; a POST's id filled when it lands */
	size_t count;
	signed char *state;        /**< per op: DNSB_DO_NOT_LANDED (also: not sent yet), _LANDED or _UNKNOWN */
	dnsb_result *res;          /**< per op: its reply's class (OK when it landed) */
} dnsb_do_batch;

/**
 * Send ops [from, to) side by side (at most DNSB_DO_IN_FLIGHT at a time,
 * each through the throttle chain), those refused with 429 again (the pacer
 * holds them until the reset) up to DNSB_DO_429_TRIES rounds; with
 * `settle`, each whose reply was lost (no reply, 408, 5xx; a POST that meets
 * itself, 422 duplicate, or a DELETE its own work, 404: libcurl's resend of a
 * request whose connection closed) read back: landed, not, or unknown.
 * @return 0 (state and res say what became of each); DNSB_ENOMEM
 */
int dnsb_do_send(dnsb_do_batch *b, size_t from, size_t to, double give_up, int settle, dnsb_error *err);

/* ---- replies (reply.c) ---- */

/**
 * The class of a write's reply: 2xx ok; 422 conflict when its message says
 * a record is in the way (a CNAME beside other data, a record that exists),
 * else invalid; 400 invalid; 404 of a record by id conflict (another client
 * removed it), of the domain fatal; 429 rate_limited, 408 and 5xx transient
 * (Retry-After, else the ratelimit-reset, kept); 401, 403 and the rest fatal.
 * The code is the body's "id", the message its "message".
 * @param by_id  1 for a request on a record by id (PUT, DELETE)
 */
void dnsb_do_classify(dnsb_result *res, const dnsb_http_response *resp, int by_id);

/**
 * What a write's reply says of it (res: its class, dnsb_do_classify):
 * DNSB_DO_LANDED (2xx; a POST's id taken from its reply into op->id),
 * DNSB_DO_NOT_LANDED (refused: nothing done), or DNSB_DO_UNKNOWN (408, 5xx;
 * a POST's 2xx without an id; a POST refused as a duplicate, 422, and a
 * DELETE answered 404: libcurl's resend of a request whose connection closed
 * meets its own work): to be read back. A POST refused as a duplicate is
 * marked op->theirs: the record found may be another client's.
 */
int dnsb_do_write_state(dnsb_result *res, dnsb_do_op *op, const dnsb_http_response *resp);

/** The code of a failed read reply: DNSB_ERATELIMIT (429), DNSB_ETRANSIENT (408, 5xx) or DNSB_EFATAL, err naming `what`. */
int dnsb_do_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err);

/* ---- the ratelimit headers (pace.c) ---- */

/** The token's window (providers/common/window.h: spread below a twentieth of the limit), read from the
 *  ratelimit-* headers. Thread-safe. */
typedef dnsb_window dnsb_do_pace;

/** Start with nothing known. */
void dnsb_do_pace_init(dnsb_do_pace *p);

/** Destroy the lock (a zeroed pace: no-op). */
void dnsb_do_pace_clear(dnsb_do_pace *p);

/**
 * Seconds the next request waits: 0 while more than a twentieth of the
 * limit (10 when unknown) is left; then what is left spread over the time
 * to the reset; none left (or a 429 seen) until the reset. A wait past
 * give_up or DNSB_THROTTLE_CAP reserves nothing.
 * @param now  monotonic seconds
 */
double dnsb_do_pace_reserve(dnsb_do_pace *p, double now, double give_up);

/**
 * Room for a batch of `need` requests (its writes and as many undos, at
 * most half the limit): 0 when the last reply left that many or nothing is
 * known, else the seconds to the reset. A batch started without room could
 * be cut mid-group by the limit with no request left to undo it.
 * @param now  monotonic seconds
 */
double dnsb_do_pace_room(dnsb_do_pace *p, double need, double now);

/**
 * Take a reply's ratelimit-limit, ratelimit-remaining and ratelimit-reset
 * (Unix seconds; a reset past an hour and a minute from `wall` is ignored);
 * a 429 holds every request until the reset (or its Retry-After), capped as
 * dnsb_hb_get's wait.
 * @param wall  the Unix time of `now`
 * @return 1 when this reply brought what is left below the low water, else 0
 */
int dnsb_do_pace_note(dnsb_do_pace *p, const dnsb_http_response *resp, double now, double wall);

struct dnsb_pacer;
/** The pace as the header pacer of the transport's throttle chain. @param p  borrowed: it outlives the client */
void dnsb_do_pacer(struct dnsb_pacer *out, dnsb_do_pace *p);

/* ---- the provider ---- */

typedef struct dnsb_do {
	dnsb_hb base;         /**< first: the skeleton's part (zones: apex -> domain name) */
	dnsb_do_config cfg;
	dnsb_do_pace pace;
	unsigned long writes, undone, settled; /**< writes sent, undone, lost replies read back (atomic) */
	unsigned long skipped;                 /**< records a whole listing skipped, unreadable (atomic) */
} dnsb_do;

/** list.c: endpoint + "/domains/" + the domain + rest. @return malloc'd or NULL */
char *dnsb_do_url(const dnsb_do *d, const char *domain, const char *rest);

/** list.c: every domain of the account into d->base.zones. @return 0; as dnsb_hb_get (401: DNSB_EFATAL); DNSB_EINVAL (none) */
int dnsb_do_list_domains(dnsb_do *d, dnsb_error *err);

/**
 * list.c: the RRsets of keys (n >= 1; all when n 0) and their records' ids
 * (ids may be NULL): by name (?name=) for a few names, else the listing.
 * @return as dnsb_provider_ops.read
 */
int dnsb_do_read_ids(dnsb_do *d, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
		     dnsb_rrset_list *out, dnsb_hb_tags *ids, dnsb_error *err);

/** digitalocean.c: one request with the token (the skeleton's call). */
int dnsb_do_call(dnsb_hb *b, const char *method, const char *url, const char *body, double give_up,
		 dnsb_http_response *out, dnsb_error *err);

/**
 * write.c: one batch (the methods' submit): read, pre-check, room in the
 * token's hour, the requests in runs (DELETEs, PUTs, POSTs) each side by
 * side, a lost reply read back, undo on a refusal.
 * @return as dnsb_provider_ops.submit
 */
int dnsb_do_submit(dnsb_hb *b, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n, double give_up,
		   dnsb_result *out, dnsb_error *err);

#endif
