/*
 * providers/akamai/akamai.h - internals of the akamai provider (Akamai Edge
 * DNS, API /config-dns/v2), shared by its files, its fuzz target and its
 * tests. Not installed; users see the backend only as dnsb_backend_akamai.
 *
 *   akamai.c      the glue: methods table, open, flags (rewritten by issue 32's descriptor)
 *   config.c      the flags and the environment into dnsb_akamai_config
 *   edgerc.c      an .edgerc file's section into credentials (plain inputs)
 *   edgegrid.c    the EG1-HMAC-SHA256 Authorization header (OpenSSL; plain inputs)
 *   changelist.c  the change-list protocol: create (leftovers removed), add-change, submit, delete
 *   records.c     JSON <-> RRsets: record-set pages, zone pages, change-list listings, add-change bodies
 *   problem.c     RFC 7807 problem details as one class, the culprits they name
 *
 * A batch is one change list: created on the zone's current version (POST
 * /changelists?zone=), the batch's names read (the pre-check), one
 * add-change per RRset (ADD, EDIT, DELETE), one submit. The submit fails
 * when the zone moved since the list was created (stale): the write is
 * conditional on everything the pre-check read, so no race goes unseen.
 * Credentials never appear in a message or a log line.
 */
#ifndef DNSBATCH_PROVIDERS_AKAMAI_H
#define DNSBATCH_PROVIDERS_AKAMAI_H

#include <pthread.h>
#include <stddef.h>

#include <json-c/json.h>

#include "dnsbatch/sys/flag.h"
#include "dnsbatch/sys/provider.h"
#include "providers/common/backend.h"
#include "providers/common/precheck.h"

/** The API's base path under the host. */
#define DNSB_AKAMAI_BASE_PATH "/config-dns/v2"
/** EdgeGrid's max_body default: bytes of a POST body that the content hash covers (akamai-edgegrid's MAX_BODY). */
#define DNSB_AKAMAI_MAX_BODY 131072
/** --akamai-batch-change-size default: record-set operations per change list. */
#define DNSB_AKAMAI_BATCH_DEFAULT 100
/** Record sets asked per page of a listing (the API's default is 25). */
#define DNSB_AKAMAI_PAGE_SIZE 500
/** Pages followed at most by one listing. */
#define DNSB_AKAMAI_PAGES_MAX 10000
/** Owner names read one by one (search=) at most; above, one listing of the zone. */
#define DNSB_AKAMAI_READ_BY_NAME_MAX 20
/** Seconds one HTTP request may take at most. */
#define DNSB_AKAMAI_TIMEOUT 30.0
/** The client secret, when neither --akamai-client-secret-file nor an .edgerc gives it. */
#define DNSB_AKAMAI_SECRET_ENV "AKAMAI_CLIENT_SECRET"
/** The same, under the name external-dns's removed provider read. */
#define DNSB_AKAMAI_SECRET_ENV_EXTDNS "EXTERNAL_DNS_AKAMAI_CLIENT_SECRET"

/** EdgeGrid credentials: an .edgerc section's four values (and its max_body). */
typedef struct dnsb_akamai_creds {
	char *host;           /**< "akab-....luna.akamaiapis.net" (no scheme); owned */
	char *client_token;   /**< owned */
	char *client_secret;  /**< a secret: wiped when cleared; owned */
	char *access_token;   /**< owned */
	size_t max_body;      /**< bytes hashed of a POST body (DNSB_AKAMAI_MAX_BODY when not given) */
} dnsb_akamai_creds;

/** Free what creds own (wiping the secret) and zero them. NULL is a no-op. */
void dnsb_akamai_creds_clear(dnsb_akamai_creds *c);

/**
 * Read one section of an .edgerc file (INI: "[section]" then "key = value"
 * lines; '#' and ';' comments; values may be quoted): host, client_token,
 * client_secret, access_token, max_body. Keys missing from the section stay
 * NULL (the caller may fill them from flags).
 * @param text     the file's text (NUL-terminated)
 * @param section  the section's name ("default")
 * @param where    the file's name, for the messages
 * @return 0; DNSB_ENOTFOUND (no such section); DNSB_EINVAL (a line that is
 *         neither, a max_body that is not a number; the message names the
 *         line, never a value); DNSB_ENOMEM
 */
int dnsb_akamai_edgerc_parse(dnsb_akamai_creds *out, const char *text, const char *section, const char *where,
			     dnsb_error *err);

/**
 * The Authorization header's value for one request, EdgeGrid v1
 * (EG1-HMAC-SHA256): signing key = base64(HMAC-SHA256(client_secret,
 * timestamp)); signature = base64(HMAC-SHA256(signing key, METHOD \t scheme
 * \t host \t path?query \t "" \t content hash \t auth header)), the content
 * hash base64(SHA-256) of a POST body's first max_body bytes ("" otherwise).
 * @param url        the absolute URL (scheme://host[:port]/path?query)
 * @param host_as    the host signed for, or NULL for the URL's: the credentials' host when the URL is
 *                   another server's (--akamai-api-endpoint: a proxy, the fake), as Akamai checks the
 *                   signature against the host of the API client
 * @param body       the body or NULL; body_len its bytes
 * @param timestamp  "yyyyMMddTHH:mm:ss+0000" (dnsb_akamai_timestamp)
 * @param nonce      a fresh UUID (dnsb_akamai_nonce)
 * @param out        receives "EG1-HMAC-SHA256 client_token=...;signature=..." (malloc'd; a secret for its
 *                   lifetime: free with dnsb_secret_free)
 * @return 0; DNSB_EINVAL (a URL without scheme or host); DNSB_ENOMEM; DNSB_ERROR (OpenSSL failed)
 */
int dnsb_akamai_sign(char **out, const dnsb_akamai_creds *c, const char *method, const char *url, const char *host_as,
		     const char *body, size_t body_len, const char *timestamp, const char *nonce, dnsb_error *err);

/** The current time as EdgeGrid wants it, "yyyyMMddTHH:mm:ss+0000" (UTC), in buf (>= 24 bytes). */
void dnsb_akamai_timestamp(char *buf, size_t size);

/** A random UUID (version 4) from OpenSSL's RAND_bytes, in buf (>= 37 bytes). @return 0 or DNSB_ERROR */
int dnsb_akamai_nonce(char *buf, size_t size);

/** Settings of one akamai provider, from its flags, the environment and the .edgerc. */
typedef struct dnsb_akamai_config {
	dnsb_akamai_creds creds;
	char *endpoint;         /**< "https://HOST/config-dns/v2", or --akamai-api-endpoint's (no trailing '/'); owned */
	char *ca_file;          /**< --akamai-ca-file or NULL; owned */
	dnsb_hb_zone *zones;    /**< --akamai-zone (id = name without the dot); empty = GET /zones */
	size_t zone_count;
	char *contract_ids;     /**< --akamai-contract-id values joined by ',' (GET /zones?contractIds=), or NULL; owned */
	size_t batch_size;      /**< --akamai-batch-change-size */
	const char *source;     /**< static: where the credentials came from (for the log line) */
} dnsb_akamai_config;

/**
 * Read the settings.
 * @return 0; DNSB_EINVAL naming the flag (no credentials, a bad URL, zone or
 *         size); DNSB_ENOTFOUND/DNSB_EIO for an unreadable file; DNSB_ENOMEM
 */
int dnsb_akamai_config_parse(dnsb_akamai_config *out, const dnsb_config *cfg, dnsb_error *err);

/** Free what a config owns and zero it. NULL is a no-op. */
void dnsb_akamai_config_clear(dnsb_akamai_config *cfg);

/* ---- records.c ---- */

/**
 * Append the record sets of one page of GET /zones/{zone}/recordsets
 * ({"metadata": {page, pageSize, totalElements}, "recordsets": [{name, type,
 * ttl, rdata: []}]}) to `out`, those of keys only when n > 0, and whose
 * owner is `only_owner` when not NULL (a search= read also matches RDATA).
 * Records ldns cannot read are skipped.
 * @param more  receives 1 when a page follows (page x pageSize < totalElements)
 * @return 0; DNSB_EPARSE (not such a page); DNSB_ENOMEM
 */
int dnsb_akamai_recordsets_parse(dnsb_rrset_list *out, json_object *doc, const dnsb_rrkey *keys, size_t n,
				 const char *only_owner, int *more, dnsb_error *err);

/**
 * Append the zones of one page of GET /zones ({"metadata": {...}, "zones":
 * [{"zone", "type"}]}): PRIMARY and SECONDARY only (an ALIAS has no records).
 * @param more  as dnsb_akamai_recordsets_parse
 * @return 0; DNSB_EPARSE; DNSB_ENOMEM
 */
int dnsb_akamai_zones_parse(dnsb_hb_zone **zones, size_t *count, json_object *doc, int *more, dnsb_error *err);

/**
 * One add-change body: {"name", "type", "op", "ttl", "rdata"} for the
 * pre-check's entry (op ADD when nothing is held, DELETE when nothing is
 * wanted, else EDIT); the name without its trailing dot.
 * @param out  receives it (malloc'd, the caller's)
 * @return 0; DNSB_ENOMEM
 */
int dnsb_akamai_change_body(char **out, const dnsb_precheck_entry *e);

/** The operation of an entry: "ADD", "EDIT" or "DELETE". */
const char *dnsb_akamai_op(const dnsb_precheck_entry *e);

/**
 * Is a change list named in GET /changelists's reply ({"changeLists":
 * [{"zone", "stale", ...}]}) for `zone` (without the dot)?
 * @return 1 (found), 0 (not), DNSB_EPARSE
 */
int dnsb_akamai_changelists_has(json_object *doc, const char *zone);

/* ---- problem.c ---- */

/** An RFC 7807 problem, as much of it as a reply holds. */
typedef struct dnsb_akamai_problem {
	char type[200];       /**< "https://problems.luna.akamaiapis.net/authoritative-dns/...", "" if none */
	char title[200];      /**< "" if none */
	char detail[400];     /**< one line, "" if none; the first errors[] entry's detail after it */
	int stale;            /**< the type or text says the change list is stale */
	int nonce;            /**< the detail says the request's nonce was used already (a resend) */
} dnsb_akamai_problem;

/** Read a reply's body as a problem (a body that is no JSON gives its first line as the detail). */
void dnsb_akamai_problem_read(dnsb_akamai_problem *pb, const dnsb_http_response *resp);

/**
 * The class of a reply: 2xx ok; 400 invalid; 409 conflict (a stale change
 * list too, whatever the status); 429 rate_limited (Retry-After or
 * X-RateLimit-Next); 408, 5xx and a 401 refusing a nonce already used (a
 * resend of a request that reached Akamai) transient; 401, 403, 404 and the
 * rest fatal.
 */
dnsb_class dnsb_akamai_problem_class(long status, const dnsb_akamai_problem *pb);

/**
 * Classify a reply into res (dnsb_hb_result: the type's last segment as the
 * code, "title: detail" as the message); for a conflict or an invalid answer
 * the changes whose owner name the problem's text or errors[] names are
 * culprits, with that text.
 */
void dnsb_akamai_classify(dnsb_result *res, const dnsb_http_response *resp, dnsb_change *const *changes, size_t n);

/** The code of a failed read reply, err naming `what`, the status and the problem's title and detail. */
int dnsb_akamai_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err);

/* ---- the provider (akamai.c, changelist.c) ---- */

typedef struct dnsb_akamai {
	dnsb_hb base;              /**< first: the skeleton's part */
	dnsb_akamai_config cfg;
	pthread_mutex_t *lists;    /**< per zone (b->zones' order): one change list per zone and user, so the
				        submissions to one zone take turns; owned */
	unsigned long leftovers;   /**< leftover change lists removed (statistics) */
} dnsb_akamai;

/** config.c: the flags (the credentials, endpoint and zones MANUAL: read with their other sources). */
extern const dnsb_flag dnsb_akamai_flags[];

/** config.c: endpoint + path, each %s of `path` replaced by the next argument percent-encoded. @return malloc'd or NULL */
char *dnsb_akamai_url(const dnsb_akamai *a, const char *path, ...);

/**
 * Submit one batch as one change list (the methods' submit): create it
 * (removing a leftover list of this user, never submitting it), pre-check
 * the batch on a read of its names, add one change per RRset, submit. A
 * stale submit is re-read: the changes whose names moved are the culprits
 * (conflict); none moved, the answer is transient. The list is deleted
 * whenever it is not submitted.
 * @return as dnsb_provider_ops.submit
 */
int dnsb_akamai_submit(dnsb_hb *b, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n, double give_up,
		       dnsb_result *out, dnsb_error *err);

/** The read method: by owner name (search=) or one listing of the zone. @return as dnsb_provider_ops.read */
int dnsb_akamai_read(dnsb_hb *b, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
		     dnsb_rrset_list *out, dnsb_error *err);

/**
 * The zones: --akamai-zone's, else those of GET /zones (with --akamai-contract-id's filter), into a->base.
 * @return 0; DNSB_EINVAL (a refusal, no zone); DNSB_ETRANSIENT (no answer, 5xx, 429); DNSB_ENOMEM
 */
int dnsb_akamai_zones(dnsb_akamai *a, dnsb_error *err);

#endif
