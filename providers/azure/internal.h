/*
 * providers/azure/internal.h - internals of the azure provider (Azure DNS,
 * Microsoft.Network/dnsZones, api-version 2018-05-01), shared by its files
 * and its tests. Not installed; users see the backend as dnsb_backend_azure.
 *
 *   config.c   flags, the environment and external-dns's azure.json
 *   auth.c     the bearer token: workload identity, client secret, managed
 *              identity (IMDS); cached until shortly before it expires
 *   rrset.c    record sets as JSON and back (ldns builds every RDATA)
 *   write.c    one batch: its record sets written one request each, with
 *              If-None-Match / If-Match, undone when one is refused
 *   reply.c    a reply's class from its status and error.code
 *   send.c     every API request, side by side through the transport's
 *              dnsb_http_many: the token, 401 and 429 rounds, the classes
 *   quota.c    the x-ms-ratelimit-remaining-subscription-* headers as a pace:
 *              the header pacer of the transport's throttle chain
 *   read.c     a batch's record sets: GETs by name or the zone's listing,
 *              whichever costs fewer requests
 *   list.c     the listings (zones, a zone's record sets) and record-set URLs
 *   azure.c    the ops table (submit, read, list, close), open, flags
 *
 * Azure DNS has no batch API. A submission here writes every record set the
 * batch changes, conditionally (a create with If-None-Match: *, an update or
 * delete with If-Match and the ETag read just before), and when any write
 * is refused it undoes those already written, conditionally on the ETags
 * they returned. The batch, not only the group, is the unit undone: so each
 * answer keeps the meaning every provider's answer has for the engine (all
 * or nothing), and its bisection needs no partial-answer model. An undo
 * that fails makes the answer FATAL (code "rollback"): the zone stops with
 * its changes failed, never applied or dropped on a read that sees a part.
 * No secret appears in a message or a log line.
 */
#ifndef DNSBATCH_PROVIDERS_AZURE_INTERNAL_H
#define DNSBATCH_PROVIDERS_AZURE_INTERNAL_H

#include <pthread.h>

#include <json-c/json.h>

#include "dnsbatch/sys/provider.h"
#include "providers/common/backend.h"

#define DNSB_AZURE_API_VERSION "2018-05-01"
#define DNSB_AZURE_PRIVATE_API_VERSION "2018-09-01"
#define DNSB_AZURE_ENDPOINT_DEFAULT "https://management.azure.com/"
#define DNSB_AZURE_AUTHORITY_DEFAULT "https://login.microsoftonline.com"
#define DNSB_AZURE_IMDS_DEFAULT "http://169.254.169.254/metadata/identity/oauth2/token"
/** Requests in flight at once by default (--azure-max-in-flight). */
#define DNSB_AZURE_IN_FLIGHT_DEFAULT 8
/** Seconds one HTTP request may take at most. */
#define DNSB_AZURE_TIMEOUT 30.0
/** Octets Azure holds in one TXTRecords[].value[] string (it serves a longer one in 255-octet pieces). */
#define DNSB_AZURE_TXT_VALUE 1024
/** The start of the rdata of a tags entry that marks a record set this library cannot represent. */
#define DNSB_AZURE_OPAQUE "unrepresentable: "
/** Record sets per listing page asked for ($top). */
#define DNSB_AZURE_PAGE 1000
/** Record sets a listing page is assumed to hold until a full page says (Azure's documented default). */
#define DNSB_AZURE_PAGE_GUESS 100

/** Where the token comes from, in the order the Azure SDKs try them. */
typedef enum dnsb_azure_cred {
	DNSB_AZURE_CRED_WORKLOAD = 1,  /**< a federated token file (AKS workload identity) */
	DNSB_AZURE_CRED_SECRET,        /**< a client secret */
	DNSB_AZURE_CRED_MANAGED        /**< IMDS (managed identity) */
} dnsb_azure_cred;

/** Settings of one azure provider. Every string owned. */
/** The azure flags (config.c): the one table of their names, kinds, defaults and help. */
extern const dnsb_flag dnsb_azure_flags[];

typedef struct dnsb_azure_config {
	char *endpoint;         /**< --azure-api-endpoint, with a trailing '/' */
	char *subscription;     /**< --azure-subscription-id or azure.json subscriptionId */
	char *resource_group;   /**< --azure-resource-group or azure.json resourceGroup */
	char *ca_file;          /**< --azure-ca-file or NULL */
	int private_zones;      /**< --azure-private-zones: privateDnsZones */
	size_t max_in_flight;   /**< --azure-max-in-flight */
	dnsb_azure_cred cred;
	const char *cred_source;  /**< static: for the log line ("$AZURE_CLIENT_SECRET", "azure.json") */
	char *tenant;           /**< the tenant id (secret and workload) */
	char *client_id;        /**< the client id, or a user-assigned identity's (managed) */
	char *secret;           /**< the client secret (a secret: wiped) */
	char *token_file;       /**< AZURE_FEDERATED_TOKEN_FILE (read at every token fetch: it rotates) */
	char *authority;        /**< AZURE_AUTHORITY_HOST without a trailing '/' */
	char *imds;             /**< the IMDS token URL ($DNSBATCH_AZURE_IMDS_ENDPOINT for tests) */
} dnsb_azure_config;

/**
 * Read the settings: flags first, then azure.json (--azure-config-file),
 * then the environment, choosing the credential in the SDKs' order.
 * @return 0; DNSB_EINVAL naming the flag or the file's key; DNSB_ENOTFOUND
 *         / DNSB_EIO for an unreadable file; DNSB_ENOMEM
 */
int dnsb_azure_config_parse(dnsb_azure_config *out, const dnsb_config *cfg, dnsb_error *err);

/** Free what a config owns (wiping the secret) and zero it. NULL is a no-op. */
void dnsb_azure_config_clear(dnsb_azure_config *cfg);

/** The token cache. */
typedef struct dnsb_azure_auth {
	pthread_mutex_t lock;
	char *header;        /**< "Authorization: Bearer ..." (a secret) or NULL */
	double refresh_at;   /**< monotonic seconds after which a new token is fetched */
} dnsb_azure_auth;

/**
 * The Authorization header for the next request, fetching a token when none
 * is cached, it is near its end, or `stale` is the header a 401 refused.
 * @param out  receives a malloc'd copy (the caller's; dnsb_secret_free)
 * @return 0; DNSB_EFATAL when the token endpoint refuses the credential;
 *         DNSB_ETRANSIENT when it cannot be reached; DNSB_ENOMEM
 */
int dnsb_azure_auth_header(char **out, dnsb_azure_auth *a, dnsb_http *http, const dnsb_azure_config *cfg,
			   const char *stale, double give_up, dnsb_error *err);

/** Free the cached token. */
void dnsb_azure_auth_clear(dnsb_azure_auth *a);

/* ---- record sets (rrset.c) ---- */

/**
 * The record set body {"properties": {"TTL", "ARecords": [...]}} of an
 * RRset (the private-zone spelling when `private_zones`).
 * @param out  receives the JSON text (malloc'd, the caller's)
 * @return 0; DNSB_EINVAL for a type Azure does not hold or RDATA that does
 *         not parse; DNSB_ENOMEM
 */
int dnsb_azure_rrset_body(char **out, const dnsb_rrset *rrset, int private_zones, dnsb_error *err);

/**
 * Append a listed or returned record set to `out` (when keys want it) and
 * its ETag to `tags`. Record sets of types this library does not keep (SOA)
 * are skipped. A TXT value[] string of more than 255 octets is read as its
 * 255-octet character-strings (as Azure serves it). A record set this library
 * cannot represent as an RRset (an alias with targetResource, one registered
 * automatically in a private zone, one without records or with a record that
 * does not parse, one whose name ldns refuses or whose TTL is missing, not an
 * integer or outside 0..2147483647, RFC 2181 section 8) is not appended: with
 * tags, it is kept there as an entry whose rdata is DNSB_AZURE_OPAQUE and the
 * reason (dnsb_azure_opaque finds it); without, an INFO log line names it.
 * Owners are in ldns's printed form (lower-cased), as every dnsb_rrset's.
 * @return 0; DNSB_EPARSE (not a record set); DNSB_ENOMEM (memory ran out)
 */
int dnsb_azure_rrset_parse(dnsb_rrset_list *out, dnsb_hb_tags *tags, json_object *rs, const char *apex,
			   const dnsb_rrkey *keys, size_t n, dnsb_error *err);

/** Why the record set (owner, type) read into tags cannot be represented here, or NULL (borrowed from tags). */
const char *dnsb_azure_opaque(const dnsb_hb_tags *tags, const char *owner, uint16_t type);

/** The record type's segment in a URL ("A", "TXT"), or NULL when Azure holds no such type. */
const char *dnsb_azure_type_segment(uint16_t type);

/* ---- replies (reply.c) ---- */

/**
 * The class of a write's reply: 2xx ok; 412 conflict; 409 and 400 whose
 * error.code says a record is in the way conflict, other 400 invalid; 429
 * rate_limited and 5xx transient (Retry-After kept); 401, 403, 404 (zone or
 * resource group) fatal.
 */
void dnsb_azure_classify(dnsb_result *res, const dnsb_http_response *resp);

/**
 * The code and message of an error reply, in either shape Azure answers:
 * {"error": {"code", "message"}} (ARM's CloudError) or {"code", "message"}
 * (the DNS resource provider's own, met on record-set requests). Both ""
 * when the body is neither; msg then the body's first line when not JSON.
 * Truncated to the sizes given.
 */
void dnsb_azure_reply_fields(const dnsb_http_response *resp, char *code, size_t code_size, char *msg, size_t msg_size);

/** The code of a failed read: DNSB_ERATELIMIT (429), DNSB_ETRANSIENT (408, 5xx) or DNSB_EFATAL, err naming `what`. */
int dnsb_azure_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err);

/* ---- the quota (quota.c) ---- */

/**
 * One kind (reads or writes) of the subscription's quota as the replies'
 * x-ms-ratelimit-remaining-subscription-* headers report it. Plain data,
 * kept under the provider's quota_lock.
 */
typedef struct dnsb_azure_quota {
	long remaining;            /**< the last header's count; -1 before any */
	unsigned long since;       /**< requests started since that header */
	double rate;               /**< the refill estimated, requests per second; 0 unknown */
	double next_at;            /**< monotonic seconds before which a paced request waits */
	double hold_until;         /**< monotonic seconds: a 429's Retry-After */
	double anchor_at;          /**< the estimate's start: when, */
	long anchor_left;          /**< what remained then (-1: none yet), */
	unsigned long anchor_replies; /**< and the replies counted then */
	unsigned long replies;     /**< headers seen */
	unsigned long paced;       /**< requests started under the pace */
	unsigned long throttled;   /**< 429s seen */
} dnsb_azure_quota;

/** A quota that knows nothing yet. */
void dnsb_azure_quota_init(dnsb_azure_quota *q);

/**
 * Seconds the next request of this kind waits: 0 while more than
 * `low_water` requests remain, else until one refill interval has passed
 * since the last paced request; a 429's Retry-After holds it regardless.
 * @param now  monotonic seconds
 */
double dnsb_azure_quota_wait(const dnsb_azure_quota *q, size_t low_water, double now);

/** A request of this kind leaves now (after dnsb_azure_quota_wait said 0). */
void dnsb_azure_quota_started(dnsb_azure_quota *q, size_t low_water, double now);

/** A reply's header: `remaining` requests of this kind left in the subscription's quota. */
void dnsb_azure_quota_seen(dnsb_azure_quota *q, long remaining, double now);

/** A 429: hold this kind `retry_after` seconds, at most DNSB_RETRY_AFTER_CAP_FACTOR x DNSB_HB_THROTTLE_CAP
 *  (as dnsb_hb_get waits the same reply); < 0: one pace interval. */
void dnsb_azure_quota_throttled(dnsb_azure_quota *q, double retry_after, double now);

/** A quota header's count ("1199", spaces allowed). @return it, or -1 when value is NULL or not a count */
long dnsb_azure_quota_count(const char *value);

struct dnsb_pacer;
struct dnsb_azure;
/**
 * The provider's header pacer for the transport's throttle chain
 * (applier/net/throttle.h, dnsb_http_set_pacer): GETs against the reads
 * quota, other requests against the writes quota, low water
 * DNSB_AZURE_LOW_WATER; a 429's Retry-After holds that kind.
 * @param a  borrowed (the pacer's state): it outlives the client
 */
void dnsb_azure_pacer(struct dnsb_pacer *out, struct dnsb_azure *a);

/* ---- the provider ---- */

typedef struct dnsb_azure {
	dnsb_hb base;  /**< first */
	dnsb_azure_config cfg;
	dnsb_azure_auth auth;
	char *zones_url;  /**< .../providers/Microsoft.Network/dnsZones (or privateDnsZones); owned */
	const char *api_version;
	pthread_mutex_t quota_lock; /**< guards reads and writes */
	unsigned long requests;     /**< API requests started by dnsb_azure_send (atomic) */
	dnsb_azure_quota reads, writes; /**< the subscription's quota (under quota_lock) */
	size_t *zone_sets;          /**< per zone of base.zones: its record sets, as the zones listing's
				         numberOfRecordSets, then the last listing counted (atomic); owned */
	size_t page_size;           /**< record sets a listing page held when a next page followed; 0 not
				         seen yet (atomic) */
	unsigned long gets, pages;  /**< record-set GETs and listing pages (atomic), for the log */
} dnsb_azure;

/** Requests below which what remains of a quota makes the requests paced (--azure-max-in-flight counts too). */
#define DNSB_AZURE_LOW_WATER(a) (2 * (a)->cfg.max_in_flight + 4)

/**
 * The URL of a record set: zones_url/{zone}/{type}/{relative name}?api-version.
 * @return malloc'd, or NULL when out of memory
 */
char *dnsb_azure_rrset_url(const dnsb_azure *a, const dnsb_hb_zone *zone, const char *owner, uint16_t type);

/**
 * The resource group's zones into base.zones and zone_sets (at open): a
 * missing group, a refused token, a wrong subscription are fatal here.
 * @return 0; DNSB_EFATAL naming the group and the subscription (none held
 *         too); DNSB_ENOMEM
 */
int dnsb_azure_list_zones(dnsb_azure *a, dnsb_error *err);

/**
 * Every record set of a zone (those of keys when n > 0) and their ETags, by
 * listing with $top and nextLink. Counts the zone's record sets into
 * zone_sets and a full page's size into page_size.
 * @return as dnsb_provider_ops.read
 */
int dnsb_azure_list(dnsb_azure *a, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
		    dnsb_rrset_list *out, dnsb_hb_tags *tags, dnsb_error *err);

/**
 * The record sets of keys (n >= 1) that exist, and their ETags (tags may be
 * NULL): by one GET per distinct (owner, type) side by side when there are
 * fewer of them than the zone's listing would take pages (estimated from
 * zone_sets and page_size), else by the listing.
 * @return as dnsb_provider_ops.read
 */
int dnsb_azure_read_keys(dnsb_azure *a, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
			 dnsb_rrset_list *out, dnsb_hb_tags *tags, dnsb_error *err);

/** One API request: a write (or its undo) of a batch, a GET by name, or any call of the skeleton's. */
typedef struct dnsb_azure_write {
	const char *method;        /**< "PUT", "DELETE" or "GET" (a read of the quota) */
	char *url;                 /**< owned (dnsb_azure_write_clear frees it) */
	char *body;                /**< owned; NULL for none */
	char *condition;           /**< "If-Match: \"etag\"" or "If-None-Match: *", or NULL; owned */
	dnsb_http_response *reply; /**< when not NULL, receives the reply (the caller's; borrowed here) */
	/* after the request */
	int rc;                    /**< 0 when a reply came (or the budget, the pace held it: res says), 1 when
				        not sent (res says why when its class is not ok: the token), else as
				        dnsb_http_do */
	dnsb_result res;           /**< its class */
	char *etag;                /**< the record set's ETag a PUT returned; owned */
} dnsb_azure_write;

/**
 * Send requests side by side, at most cfg.max_in_flight at a time
 * (dnsb_http_many), each with the token, each through the transport's
 * throttle chain (the rate budget, --rate-budget, and the quota's pace); fill each one's
 * rc, res and etag (and reply). One refused with 401 is sent once more with
 * a new token. A request the budget has no slot for within give_up is not
 * sent: rc 0, class rate_limited, code "budget"; nor one the quota holds or
 * paces past give_up: code "quota", res.retry_after the seconds it is held
 * (the client keeps it too: dnsb_http_held).
 * @return 0 (n 0: at once, no token asked for); DNSB_ENOMEM, or the token's
 *         code (nothing sent then)
 */
int dnsb_azure_send(dnsb_azure *a, dnsb_azure_write *w, size_t n, double give_up, dnsb_error *err);

/** Free what a write owns. */
void dnsb_azure_write_clear(dnsb_azure_write *w);

/**
 * The submission: read, check (dnsb_precheck_run's replay), write, undo on a
 * refusal. @return as dnsb_provider_ops.submit
 */
int dnsb_azure_submit(dnsb_hb *b, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n, double give_up,
		      dnsb_result *out, dnsb_error *err);


#endif
