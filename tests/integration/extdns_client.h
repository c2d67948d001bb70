/*
 * extdns_client.h - a test client that speaks to a webhook provider exactly
 * as external-dns does (provider/webhook/webhook.go, registry/txt):
 *   GET /                 Accept: application/external.dns.webhook+json;version=1,
 *                         retried up to 5 times on 5xx or no connection,
 *                         Content-Type of the reply compared byte for byte
 *   GET /records          same Accept; anything but 200 is an error
 *   POST /records         Content-Type: the media type; success is exactly 204
 *   POST /adjustendpoints both headers; success is exactly 200
 * with Go's default client headers (User-Agent Go-http-client/1.1,
 * Accept-Encoding gzip, a Content-Length and no Expect: 100-continue) and
 * plan bodies as Go's encoder writes plan.Changes: the lower-case keys of
 * v0.17+ with empty lists left out, or the capitalised keys of older
 * releases with empty lists as null.
 *
 * The TXT registry helpers build the ownership records external-dns adds
 * next to each record: name "<type>-<name>" (the default affix mapper),
 * target "\"heritage=external-dns,external-dns/owner=..,external-dns/resource=..\"",
 * labels {"ownedRecord": name}.
 *
 * Test code: errors go to a per-client message, never to a global.
 */
#ifndef DNSB_EXTDNS_CLIENT_H
#define DNSB_EXTDNS_CLIENT_H

#include <stddef.h>

#include <json-c/json.h>

#define EXTDNS_MEDIA_TYPE "application/external.dns.webhook+json;version=1"

typedef struct extdns_client extdns_client;

/** A reply: status, Content-Type (or NULL) and body, all owned by the reply. */
typedef struct extdns_reply {
	long status;
	char *content_type;
	char *body;
	size_t len;
} extdns_reply;

void extdns_reply_clear(extdns_reply *r);

/**
 * @param base_url  "http://127.0.0.1:PORT" (copied)
 * @param timeout   seconds for one request (external-dns: read + write timeout, 15 s)
 * @return NULL when out of memory
 */
extdns_client *extdns_client_new(const char *base_url, double timeout);
void extdns_client_free(extdns_client *c);

/** The last error of this client, "" if none. Borrowed. */
const char *extdns_client_error(const extdns_client *c);

/**
 * One raw request, for tests of edge cases (wrong methods, odd bodies).
 * @param headers  NULL-terminated "Name: value" strings, or NULL
 * @return 0 when a reply arrived (any status), -1 for a transport error
 */
int extdns_request(extdns_client *c, const char *method, const char *path, const char *const *headers,
		   const char *body, size_t len, extdns_reply *out);

/**
 * Negotiate: GET / as external-dns does at start-up.
 * @param filter  receives the decoded domain filter (the caller's reference)
 * @return 0; -1 when external-dns would refuse to start (transport error or
 *         5xx five times, 3xx/4xx, a Content-Type other than the media type,
 *         a body that is not a domain filter object)
 */
int extdns_negotiate(extdns_client *c, struct json_object **filter);

/**
 * GET /records.
 * @param endpoints  receives the array (the caller's reference) on 200
 * @param status     receives the HTTP status (may be NULL)
 * @return 0 on 200 with a JSON array; -1 otherwise
 */
int extdns_records(extdns_client *c, struct json_object **endpoints, long *status);

/** How external-dns would take a status of POST /records. */
enum extdns_outcome { EXTDNS_OK = 0, EXTDNS_SOFT_ERROR = 1, EXTDNS_FATAL = 2 };

/**
 * POST /records with a plan.Changes body.
 * @param changes  {"create":[...],"updateOld":[...],"updateNew":[...],"delete":[...]} (borrowed);
 *                 any list may be missing
 * @param legacy   1: encode with the pre-0.17 keys Create/UpdateOld/UpdateNew/Delete, empty lists null
 * @param status   receives the HTTP status (may be NULL)
 * @return EXTDNS_OK on 204; EXTDNS_SOFT_ERROR on 500..510 (retried next
 *         interval); EXTDNS_FATAL on anything else (external-dns exits)
 */
int extdns_apply(extdns_client *c, struct json_object *changes, int legacy, long *status);

/**
 * POST /adjustendpoints.
 * @param out  receives the returned array (the caller's reference) on 200
 * @return 0 on 200 with the media type and a JSON array; -1 otherwise
 */
int extdns_adjust(extdns_client *c, struct json_object *endpoints, struct json_object **out, long *status);

/**
 * An Endpoint as external-dns sources make it.
 * @param ttl       0 to leave recordTTL out
 * @param owner     registry owner id ("default"), or NULL for no labels
 * @param resource  "ingress/default/app", or NULL
 * @return a new object (the caller's reference)
 */
struct json_object *extdns_endpoint(const char *name, const char *type, long ttl,
				    const char *const *targets, size_t n, const char *owner, const char *resource);

/** The TXT registry's ownership record for an endpoint made by extdns_endpoint. */
struct json_object *extdns_ownership_txt(struct json_object *endpoint, const char *owner, const char *resource);

/**
 * A plan.Changes object. Each list argument is borrowed and may be NULL;
 * when `registry` is set, every endpoint is followed by its ownership TXT
 * record (owner "default"), as the TXT registry does.
 * @return a new object (the caller's reference)
 */
struct json_object *extdns_changes(struct json_object *create, struct json_object *update_old,
				   struct json_object *update_new, struct json_object *delete_, int registry);

#endif
