/*
 * providers/google/google.h - internals of the google provider (Cloud DNS
 * v1), shared by its files and its unit tests. Not installed; users see the
 * backend only as dnsb_backend_google.
 *
 *   config.c   flags: project, zones, batch size and interval, credentials,
 *              endpoint, CA file
 *   auth.c     credentials in order ($DNSBATCH_GOOGLE_ACCESS_TOKEN, a
 *              service-account key: a JWT signed RS256 and exchanged at its
 *              token_uri, the GCE metadata server); the token cache
 *   request.c  URLs, the changes.create body and its layout (which batch
 *              change each addition and deletion is), RRsets from replies
 *   reply.c    a reply to changes.create as one class, with the culprits its
 *              errors name; read and list errors as codes
 *   api.c      authorised calls (a 401 refreshes the token once),
 *              rrsets.list and managedZones.list with pagination, projects.get
 *   google.c   the ops table (submit, read, list, close), open, flags
 *
 * No token, assertion or key ever appears in a message or a log line.
 */
#ifndef DNSBATCH_PROVIDERS_GOOGLE_H
#define DNSBATCH_PROVIDERS_GOOGLE_H

#include <pthread.h>
#include <time.h>

#include <json-c/json.h>
#include <openssl/evp.h>

#include "dnsbatch/sys/provider.h"
#include "providers/common/backend.h"

/** An access token to use as is (no refresh: a 401 is final). */
#define DNSB_GOOGLE_TOKEN_ENV "DNSBATCH_GOOGLE_ACCESS_TOKEN"
/** A service-account key file, when --google-credentials is not given. */
#define DNSB_GOOGLE_CREDENTIALS_ENV "GOOGLE_APPLICATION_CREDENTIALS"
/** host[:port] of the metadata server instead of metadata.google.internal (as Google's libraries read it). */
#define DNSB_GOOGLE_METADATA_HOST_ENV "GCE_METADATA_HOST"
#define DNSB_GOOGLE_METADATA_HOST "metadata.google.internal"
#define DNSB_GOOGLE_METADATA_PATH "/computeMetadata/v1/instance/service-accounts/default/token"
#define DNSB_GOOGLE_ENDPOINT_DEFAULT "https://dns.googleapis.com/dns/v1/"
#define DNSB_GOOGLE_TOKEN_URI_DEFAULT "https://oauth2.googleapis.com/token"
#define DNSB_GOOGLE_SCOPE "https://www.googleapis.com/auth/ndev.clouddns.readwrite"
/** --google-batch-change-size default (external-dns's). */
#define DNSB_GOOGLE_BATCH_DEFAULT 1000
/** --google-batch-change-interval default, seconds (external-dns's). */
#define DNSB_GOOGLE_INTERVAL_DEFAULT 1.0
/** Seconds one HTTP request may take at most (the engine's time left may cut it). */
#define DNSB_GOOGLE_TIMEOUT 30.0
/** Per-change quotas when projects.get does not tell (Cloud DNS's documented defaults). */
#define DNSB_GOOGLE_ADDITIONS_DEFAULT 1000
#define DNSB_GOOGLE_DELETIONS_DEFAULT 1000
#define DNSB_GOOGLE_RDATA_BYTES_DEFAULT 100000
/** rrsets.list and managedZones.list page size asked for (the server may give fewer). */
#define DNSB_GOOGLE_PAGE_SIZE 1000
/** A read of at most this many distinct owner names lists each name; more lists the zone. */
#define DNSB_GOOGLE_READ_BY_NAME_MAX 16
/** Pages followed at most in one listing (a server looping on nextPageToken). */
#define DNSB_GOOGLE_PAGES_MAX 100000

/** A DNS name served by a managed zone: its apex ("example.com.") and the managed zone's name ("example-com"). */
typedef dnsb_hb_zone dnsb_google_zone;

/** Settings of one google provider, from its flags and the environment. */
/** The google flags (config.c): the one table of their names, kinds, defaults and help. */
extern const dnsb_flag dnsb_google_flags[];

typedef struct dnsb_google_config {
	char *project;                /**< --google-project; owned */
	dnsb_google_zone *zones;      /**< --google-zone DNSNAME=ZONENAME; empty = managedZones.list */
	size_t zone_count;
	size_t batch_size;            /**< --google-batch-change-size: changes per changes.create */
	double interval;              /**< --google-batch-change-interval, seconds between submissions */
	char *credentials;            /**< key file path (--google-credentials or the environment), or NULL */
	const char *credentials_source; /**< static: which of the two, for messages */
	char *endpoint;               /**< --google-api-endpoint, ending in '/'; owned */
	char *ca_file;                /**< --google-ca-file, or NULL */
} dnsb_google_config;

/**
 * Read the settings from the flags (and $GOOGLE_APPLICATION_CREDENTIALS).
 * @param out  filled (the caller's; dnsb_google_config_clear)
 * @return 0; DNSB_EINVAL naming the flag; DNSB_ENOMEM
 */
int dnsb_google_config_parse(dnsb_google_config *out, const dnsb_config *cfg, dnsb_error *err);

/** Free what a config owns and zero it. NULL is a no-op. */
void dnsb_google_config_clear(dnsb_google_config *cfg);

/* ---- credentials (auth.c) ---- */

typedef enum dnsb_google_auth_kind {
	DNSB_GOOGLE_AUTH_ENV = 0,      /**< a token from $DNSBATCH_GOOGLE_ACCESS_TOKEN, never refreshed */
	DNSB_GOOGLE_AUTH_KEY = 1,      /**< a service-account key: JWT bearer grant at token_uri */
	DNSB_GOOGLE_AUTH_METADATA = 2  /**< the GCE metadata server */
} dnsb_google_auth_kind;

/** Where tokens come from, and the cached one. Thread-safe once initialised. */
typedef struct dnsb_google_auth {
	dnsb_google_auth_kind kind;
	char source[320];       /**< for messages: "$DNSBATCH_GOOGLE_ACCESS_TOKEN", "service account a@b (key file f)" */
	char *client_email;     /**< KEY: the JWT's issuer; owned */
	char *token_uri;        /**< KEY: where the JWT is exchanged (https); owned */
	EVP_PKEY *key;          /**< KEY: the RSA private key; owned */
	char *metadata_url;     /**< METADATA: the token URL; owned */
	pthread_mutex_t lock;   /**< guards the fields below */
	char *token;            /**< the cached access token (wiped when replaced), or NULL */
	double refresh_at;      /**< monotonic seconds after which it is fetched anew; 0 = never (ENV) */
	unsigned long fetches;  /**< tokens obtained so far */
} dnsb_google_auth;

/**
 * Choose the credential source, in order: $DNSBATCH_GOOGLE_ACCESS_TOKEN; the
 * key file of cfg->credentials (read and its key parsed now, so that a bad
 * file stops the provider before anything is sent); the metadata server.
 * @param a  filled (the caller's); dnsb_google_auth_clear it after any return
 * @return 0; DNSB_EINVAL (a key file that is not a service-account key: the
 *         message names the file and what is wrong, never its content);
 *         DNSB_ENOTFOUND/DNSB_EIO (unreadable file); DNSB_ENOMEM
 */
int dnsb_google_auth_init(dnsb_google_auth *a, const dnsb_google_config *cfg, dnsb_error *err);

/** Free what auth owns (wiping the token) and zero it. NULL is a no-op. */
void dnsb_google_auth_clear(dnsb_google_auth *a);

/**
 * Take a service-account key file's text: client_email, private_key (PEM
 * RSA), token_uri (default DNSB_GOOGLE_TOKEN_URI_DEFAULT; must be https).
 * Sets kind KEY and source. Called by dnsb_google_auth_init; apart for tests.
 * @param a     a zeroed or freshly initialised auth (the caller's; clear it after any return)
 * @param text  the file's content (borrowed; the caller wipes it)
 * @param path  the file's name, for messages only
 * @return 0; DNSB_EINVAL (not JSON, not a service account, a field missing,
 *         a key that does not parse or is not RSA); DNSB_ENOMEM
 */
int dnsb_google_key_parse(dnsb_google_auth *a, const char *text, const char *path, dnsb_error *err);

/**
 * A token endpoint's or the metadata server's 2xx reply ({"access_token",
 * "expires_in"}) into a's cache (a->lock held). auth.c; apart for the fuzzer.
 * @return 0; DNSB_ETRANSIENT (no access_token); DNSB_ENOMEM
 */
int dnsb_google_token_take(dnsb_google_auth *a, const dnsb_http_response *resp, dnsb_error *err);

/**
 * The code of a token endpoint's refusal ({"error", "error_description"} or a
 * Cloud-style error object): DNSB_ETRANSIENT (408, 429, 5xx), else DNSB_EFATAL,
 * with err naming a->source, the status and the reply's words. auth.c.
 */
int dnsb_google_token_refused(const dnsb_http_response *resp, const dnsb_google_auth *a, dnsb_error *err);

/**
 * base64url without padding (RFC 4648 §5), through OpenSSL's encoder.
 * @return a malloc'd string (the caller's), or NULL when out of memory
 */
char *dnsb_google_base64url(const unsigned char *data, size_t len);

/**
 * The signed JWT of the bearer grant (RFC 7523): header {alg RS256, typ JWT},
 * claims iss, scope, aud (token_uri), iat = now, exp = now + 3600.
 * @param out  receives it (the caller's; a credential: wipe and free)
 * @return 0; DNSB_EINVAL when signing fails; DNSB_ENOMEM
 */
int dnsb_google_jwt(char **out, const dnsb_google_auth *a, time_t now, dnsb_error *err);

/**
 * The "Authorization: Bearer ..." header line for the next request: the
 * cached token, or a new one when there is none, it is due for refresh, or
 * `refused` (the line a 401 answered) is the cached one.
 * @param out       receives the line (the caller's; a credential: wipe and free)
 * @param refused   the line the server refused with 401, or NULL
 * @param give_up   monotonic seconds when the caller stops waiting, 0 = none
 * @return 0; DNSB_EFATAL (the token source refused: a refused ENV token, the
 *         token endpoint's 4xx with its error and description, no metadata
 *         server); DNSB_ETRANSIENT (unreachable, 5xx, timeout); DNSB_ENOMEM
 */
int dnsb_google_auth_header(char **out, dnsb_google_auth *a, dnsb_http *http, const char *refused, double give_up,
			    dnsb_error *err);

/** Tokens obtained so far (fetches from the key's token_uri or the metadata server). */
unsigned long dnsb_google_auth_fetches(dnsb_google_auth *a);

/* ---- the changes.create body (request.c) ---- */

/** A changes.create body and where each of its entries came from. */
typedef struct dnsb_google_change {
	char *json;               /**< the body; owned */
	size_t *additions;        /**< additions[i] = index in the batch of the change it came from */
	size_t addition_count;
	size_t *deletions;        /**< deletions[i] = likewise */
	size_t deletion_count;
} dnsb_google_change;

/**
 * Build the body for a batch: additions are the created and updated-to
 * RRsets, deletions the updated-from and deleted ones, in batch order. An old
 * RRset whose TTL is DNSB_TTL_UNSET takes the TTL of the same RRset in `held`
 * (the current data), since Cloud DNS deletes only an exact match.
 * @param held  the zone's current RRsets for those, or NULL
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_google_change_build(dnsb_google_change *out, dnsb_change *const *changes, size_t n,
			     const dnsb_rrset_list *held, dnsb_error *err);

/** Free what a body owns and zero it. NULL is a no-op. */
void dnsb_google_change_clear(dnsb_google_change *body);

/** A ResourceRecordSet object for an RRset with the given TTL. @return a new object, or NULL (ENOMEM) */
json_object *dnsb_google_rrset_json(const dnsb_rrset *rrset, uint32_t ttl);

/**
 * Append the RRsets of an rrsets.list page ({"rrsets": [...]}) to `out`, in
 * canonical form (owner lower-case, RDATA as ldns prints it). Only those of
 * `keys` when n > 0 (DNSB_RRKEY_ANY: any type at the owner). Records ldns
 * cannot read (types it does not know,
 * routing policies without rrdatas) are skipped.
 * @param next  receives the page's nextPageToken (malloc'd) or NULL
 * @return 0; DNSB_EPARSE (not an rrsets.list reply); DNSB_ENOMEM
 */
int dnsb_google_rrsets_parse(dnsb_rrset_list *out, json_object *page, const dnsb_rrkey *keys, size_t n,
			     char **next, dnsb_error *err);

/**
 * endpoint + path, where each %s of `path` is replaced by the next argument
 * percent-encoded (a project, a zone, a change id, a query value).
 * @return a malloc'd URL (the caller's), or NULL when out of memory
 */
char *dnsb_google_url(const char *endpoint, const char *path, ...);

/* ---- replies (reply.c) ---- */

/** The error object of a reply: {"error": {"code", "message", "errors": [{"reason", "message"}]}}. */
typedef struct dnsb_google_error {
	int code;             /**< error.code, or the HTTP status */
	char reason[64];      /**< errors[0].reason (or error.status), "" if none */
	char message[400];    /**< error.message on one line, "" if none */
	size_t entries;       /**< how many errors[] there are */
} dnsb_google_error;

/**
 * Read the error object of a reply whose body is JSON; other bodies give
 * code = status and the first line of the body as message.
 */
void dnsb_google_error_parse(dnsb_google_error *out, const dnsb_http_response *resp);

/**
 * The class of a changes.create reply (docs/design.md §3.1): 2xx ok; 409 alreadyExists,
 * 412 conditionNotMet, 404 naming a deletion, 400 cnameResourceRecordSetConflict
 * conflict; other 400 invalid; 403 quotaExceeded for a per-change quota and 413
 * too_large; 429, 403 rateLimitExceeded/userRateLimitExceeded (and a 403
 * quotaExceeded for a rate quota) rate_limited with Retry-After; 408 and 5xx
 * transient (also a 2xx that is not JSON); 401, other 403, 404 on the zone
 * and other statuses fatal. The culprits are the batch changes the errors[]
 * entries (and the message) name, as entity.change.additions[i] /
 * deletions[i] through the body's layout, or as 'NAME (TYPE)'.
 * @param layout  the body as sent (which change each entry is)
 */
void dnsb_google_classify(dnsb_result *res, const dnsb_http_response *resp, const dnsb_google_change *layout,
			  dnsb_change *const *changes, size_t n);

/**
 * Name as culprits the changes a message names (entity.change.additions[i],
 * entity.change.deletions[i], or "'owner (TYPE)'" matched against the
 * additions when `reason` is alreadyExists or cnameResourceRecordSetConflict,
 * the deletions when notFound or conditionNotMet, both otherwise).
 * @return how many were named
 */
size_t dnsb_google_culprits(dnsb_result *res, const char *message, const char *reason,
			    const dnsb_google_change *layout, dnsb_change *const *changes, size_t n);

/**
 * The code of a failed read, list or lookup reply: DNSB_ERATELIMIT (429, a
 * rate-limit 403), DNSB_ETRANSIENT (408, 5xx), DNSB_EFATAL (401, 403, 404,
 * other), with err naming `what`, the status, reason and message.
 */
int dnsb_google_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err);

/* ---- the provider state and its calls (api.c) ---- */

typedef struct dnsb_google {
	dnsb_hb base;                 /**< first: the skeleton's part (client; zones: cfg's, or from
					   managedZones.list; pace: --google-batch-change-interval) */
	dnsb_google_config cfg;
	dnsb_google_auth auth;
	int auth_ready;
} dnsb_google;

/**
 * One authorised request (the backend's dnsb_hb_methods.call): the bearer
 * token added, and after a 401 the token refreshed and the request sent
 * once more.
 * @param give_up  monotonic seconds when the caller stops waiting, 0 = none
 * @return as dnsb_http_do, plus the token errors of dnsb_google_auth_header;
 *         a second 401 is returned as the response
 */
int dnsb_google_call(dnsb_hb *b, const char *method, const char *url, const char *body, double give_up,
		     dnsb_http_response *out, dnsb_error *err);

/**
 * rrsets.list of a managed zone (a dnsb_hb_list_fn), every page: all RRsets
 * (owner NULL), or those at `owner` (and of `type` when not 0), kept when
 * among `keys` (n > 0; a key of type DNSB_RRKEY_ANY keeps every RRset at its
 * owner). Appended to `out` (the caller's); `tags` is not used (Cloud DNS
 * writes by value). Each request waits at most
 * DNSB_GOOGLE_TIMEOUT and until give_up.
 * @return 0; DNSB_ETRANSIENT; DNSB_EFATAL; DNSB_ENOMEM (err says which)
 */
int dnsb_google_rrsets_list(dnsb_hb *b, const dnsb_hb_zone *zone, const char *owner, uint16_t type,
			    const dnsb_rrkey *keys, size_t n, double give_up, dnsb_rrset_list *out, dnsb_hb_tags *tags,
			    dnsb_error *err);

/**
 * managedZones.list of the project, every page, into g->base.zones.
 * @return as dnsb_google_rrsets_list
 */
int dnsb_google_zones_list(dnsb_google *g, double give_up, dnsb_error *err);

/**
 * The managed zones of one managedZones.list page ({"managedZones": [{"name",
 * "dnsName"}], "nextPageToken"}) appended to g->zones (a second zone for one
 * DNS name is skipped, with a warning). api.c; apart for the fuzzer.
 * @param next  receives the nextPageToken (malloc'd) or NULL
 * @return 0; DNSB_EPARSE (not such a page, or a zone without name or dnsName); DNSB_ENOMEM
 */
int dnsb_google_zones_page(dnsb_google *g, json_object *doc, char **next);

/**
 * projects.get: the per-change quotas into `limits` (max_additions,
 * max_deletions, max_rdata_bytes); fields it lacks keep their values.
 * @param status  receives the HTTP status of a failing reply, 0 when none
 *                came (network, TLS, token)
 * @return as dnsb_google_rrsets_list
 */
int dnsb_google_quota(dnsb_google *g, double give_up, dnsb_provider_limits *limits, long *status, dnsb_error *err);


#endif
