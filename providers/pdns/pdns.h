/*
 * providers/pdns/pdns.h - internals of the pdns provider (the PowerDNS
 * Authoritative HTTP API, 4.x), shared by its files and its unit tests. Not
 * installed; users see the backend only as dnsb_backend_pdns.
 *
 *   config.c   flags: server URL, server id, zones, batch size, API key
 *              (file or environment), CA file
 *   request.c  URLs, the PATCH body (DELETEs first), zone replies to RRsets
 *   reply.c    a PATCH reply as one class, with the RRset its 422 names;
 *              read errors as codes
 *   pdns.c     the ops table (submit, read, list, close), open, flags
 *
 * PowerDNS writes unconditionally: REPLACE overwrites whatever is there and
 * DELETE of a missing RRset succeeds. The pre-check restores the meaning
 * every provider shares (create needs the RRset absent, update and delete
 * need the old RRset as held) at the cost of a second request; between the
 * read and the PATCH another writer can still change the zone. A read-back
 * after an accepted PATCH finds what another writer left in its RRsets
 * (dnsb_precheck_races); a write the PATCH itself replaced leaves no trace.
 * The pre-check and the race check are providers/common/precheck.h (shared with
 * cloudflare).
 *
 * The API key never appears in a message or a log line.
 */
#ifndef DNSBATCH_PROVIDERS_PDNS_H
#define DNSBATCH_PROVIDERS_PDNS_H

#include <json-c/json.h>

#include "dnsbatch/sys/provider.h"
#include "providers/common/backend.h"
#include "providers/common/precheck.h"

/** The API key, when --pdns-api-key-file is not given. */
#define DNSB_PDNS_API_KEY_ENV "DNSBATCH_PDNS_API_KEY"
/** --pdns-server-id default (PowerDNS's only server id). */
#define DNSB_PDNS_SERVER_ID_DEFAULT "localhost"
/** --pdns-batch-change-size default: PowerDNS has no limit of its own. */
#define DNSB_PDNS_BATCH_DEFAULT 1000
/** Seconds one HTTP request may take at most (the engine's time left may cut it). */
#define DNSB_PDNS_TIMEOUT 30.0

/** A zone the server holds: its apex and the id the API knows it by ("example.test.", or with =2F escapes). */
typedef dnsb_hb_zone dnsb_pdns_zone;

/** Settings of one pdns provider, from its flags and the environment. */
typedef struct dnsb_pdns_config {
	char *server;              /**< --pdns-server without a trailing '/'; owned */
	char *server_id;           /**< --pdns-server-id; owned */
	dnsb_pdns_zone *zones;     /**< --pdns-zone (id = name); empty = GET .../zones */
	size_t zone_count;
	size_t batch_size;         /**< --pdns-batch-change-size: changes per PATCH */
	char *api_key;             /**< the key's text (a secret: wiped when cleared); owned */
	const char *key_source;    /**< static: "--pdns-api-key-file" or "$DNSBATCH_PDNS_API_KEY" */
	char *ca_file;             /**< --pdns-ca-file, or NULL; owned */
} dnsb_pdns_config;

/**
 * Read the settings from the flags and $DNSBATCH_PDNS_API_KEY (the key
 * file's first line, surrounding white space removed, wins over it).
 * @param out  filled (the caller's; dnsb_pdns_config_clear)
 * @return 0; DNSB_EINVAL naming the flag (no server, a URL that is not
 *         http(s), no key, a bad zone or size); DNSB_ENOTFOUND/DNSB_EIO for
 *         an unreadable key or CA file; DNSB_ENOMEM
 */
int dnsb_pdns_config_parse(dnsb_pdns_config *out, const dnsb_config *cfg, dnsb_error *err);

/** The pdns flags (config.c): the one table of their names, kinds, defaults and help. */
extern const dnsb_flag dnsb_pdns_flags[];

/** Free what a config owns (wiping the key) and zero it. NULL is a no-op. */
void dnsb_pdns_config_clear(dnsb_pdns_config *cfg);

/* ---- requests (request.c) ---- */

/**
 * The PATCH body {"rrsets": [...]}: every entry whose final RRset is absent
 * as a DELETE first, then the others as REPLACE with their records and TTL.
 * DELETEs lead because PowerDNS checks a CNAME against the other RRsets at
 * its name one RRset at a time, in order: a CNAME replaced by an A record
 * must be gone before the A record is written.
 * @param out  receives the body (malloc'd, the caller's)
 * @return 0; DNSB_ENOMEM
 */
int dnsb_pdns_patch_body(char **out, const dnsb_precheck *patch);

/**
 * server + "/api/v1/servers/" + server_id + path, where each %s of `path`
 * is replaced by the next argument percent-encoded.
 * @return a malloc'd URL (the caller's), or NULL when out of memory
 */
char *dnsb_pdns_url(const dnsb_pdns_config *cfg, const char *path, ...);

/**
 * Append the RRsets of a zone document ({"rrsets": [{"name", "type", "ttl",
 * "records": [{"content", "disabled"}]}]}) to `out`, in canonical form:
 * only those of `keys` when n > 0 (DNSB_RRKEY_ANY: every type at the
 * owner). Disabled records are left out (the server does not serve them);
 * records ldns cannot read are skipped.
 * @return 0; DNSB_EPARSE (not a zone document); DNSB_ENOMEM
 */
int dnsb_pdns_rrsets_parse(dnsb_rrset_list *out, json_object *zone, const dnsb_rrkey *keys, size_t n,
			   dnsb_error *err);

/**
 * As dnsb_pdns_rrsets_parse, also keeping the disabled records. PowerDNS
 * does not serve them, but a REPLACE of their RRset removes them: they are
 * data someone keeps. With `disabled`, every disabled record is added there
 * (RRsets by owner and type); with `disabled_held` too, an RRset whose
 * records are all disabled is added to `out` as well, so that it is held (a
 * create there conflicts: cause exists, naming them). With disabled NULL,
 * exactly dnsb_pdns_rrsets_parse.
 * @return as dnsb_pdns_rrsets_parse
 */
int dnsb_pdns_zone_parse(dnsb_rrset_list *out, dnsb_rrset_list *disabled, int disabled_held, json_object *zone,
			 const dnsb_rrkey *keys, size_t n, dnsb_error *err);

/** A listing leaves disabled records out (they are not served): one warning line names each, so none is hidden silently. */
void dnsb_pdns_tell_disabled(const char *zone, const dnsb_rrset_list *disabled);

/**
 * The zones of a GET .../zones reply ([{"name", "id"}, ...]), appended.
 * @return 0; DNSB_EPARSE; DNSB_ENOMEM
 */
int dnsb_pdns_zones_parse(dnsb_pdns_zone **zones, size_t *count, json_object *list, dnsb_error *err);

/* ---- replies (reply.c) ---- */

/**
 * The class of a PATCH reply: 2xx ok; 422 conflict when it says "Conflicts
 * with pre-existing RRset" or "Duplicate", else invalid (content that does
 * not parse, a name not canonical or out of zone); other 400 invalid; 409
 * conflict; 429 rate_limited and 408, 5xx transient (with Retry-After); 401,
 * 403, 404 (the zone) and anything else fatal. The error text comes from
 * the JSON {"error"} when the Content-Type says JSON, else the body's first
 * line. A 422 names its RRset: the changes that write or delete it are the
 * culprits (by owner alone for a name that is not canonical).
 */
void dnsb_pdns_classify(dnsb_result *res, const dnsb_http_response *resp, dnsb_change *const *changes, size_t n);

/**
 * Name as culprits the changes whose old or new RRset is the one a PowerDNS
 * error text names ("RRset NAME IN TYPE", "Record NAME/TYPE '...'", "Record NAME IN TYPE",
 * "Duplicate RRset NAME IN TYPE", "DNS Name 'NAME'").
 * @return how many were named
 */
size_t dnsb_pdns_culprits(dnsb_result *res, const char *message, dnsb_change *const *changes, size_t n);

/**
 * The code of a failed read or lookup reply: DNSB_ERATELIMIT (429),
 * DNSB_ETRANSIENT (408, 5xx), DNSB_EFATAL (401, 403, 404, other), with err
 * naming `what`, the status and the server's text.
 */
int dnsb_pdns_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err);

/* ---- the provider (pdns.c) ---- */

typedef struct dnsb_pdns {
	dnsb_hb base;              /**< first: the skeleton's part (client; zones: cfg's, or from GET .../zones) */
	dnsb_pdns_config cfg;
	char *key_header;          /**< "X-API-Key: ..." (a secret: wiped when freed); owned */
} dnsb_pdns;

/**
 * probe.c: check the URL, the API key and the server id by one GET of
 * .../servers/ID before anything is sent (a 404 costs one more GET, to say
 * which of server id, URL or api=yes is wrong).
 * @return 0 (200, or no answer: left to the batches' retries); DNSB_EINVAL
 *         for 401/403/404, the message naming the fix; DNSB_ENOMEM
 */
int dnsb_pdns_probe(dnsb_pdns *p, dnsb_error *err);

#endif
