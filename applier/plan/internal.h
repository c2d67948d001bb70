/* internal.h - the plan stage's pieces shared between its files (not installed). */
#ifndef DNSB_PLAN_INTERNAL_H
#define DNSB_PLAN_INTERNAL_H

#include <json-c/json.h>

#include "dnsbatch/change.h"
#include "dnsbatch/common.h"

/*
 * drop.c: the plan stage's one writer of an outcome: c is dropped, reason invalid, before anything is sent.
 * `message` (malloc'd, owned by c from here; NULL keeps c's own) says why, naming the JSON path.
 */
void dnsb_plan_drop_invalid(dnsb_change *c, char *message);

/*
 * endpoint_read.c: an Endpoint's members, found in one walk of the object rather than one hash lookup per use
 * (a plan of 100,000 endpoints asked about thirty each). Each is borrowed from the endpoint, NULL when absent or a JSON
 * null; `has` tells which keys are present (DNSB_EP_* bits), `others` counts keys outside the seven.
 */
enum {
	DNSB_EP_DNS_NAME = 1 << 0, DNSB_EP_TARGETS = 1 << 1, DNSB_EP_RECORD_TYPE = 1 << 2, DNSB_EP_SET_IDENTIFIER = 1 << 3,
	DNSB_EP_RECORD_TTL = 1 << 4, DNSB_EP_LABELS = 1 << 5, DNSB_EP_PROVIDER_SPECIFIC = 1 << 6
};
typedef struct dnsb_endpoint_fields {
	json_object *dns_name, *targets, *record_type, *set_identifier, *record_ttl, *labels, *provider_specific;
	unsigned has;
	size_t others;
} dnsb_endpoint_fields;

/* endpoint_fields.c: fill *f from `ep` (any JSON value: a non-object has no members). */
void dnsb_endpoint_fields_read(json_object *ep, dnsb_endpoint_fields *f);

/* endpoint_fields.c: the string member `key` of a JSON object (any JSON value as json-c prints it), or NULL when
 * absent. Borrowed. */
const char *dnsb_endpoint_string(json_object *ep, const char *key);

/*
 * Read an Endpoint (any JSON object: shapes are checked here too) into *out.
 * `old`: an updateOld or delete endpoint, whose TTL 0 or none stays
 * DNSB_TTL_UNSET; a new one gets DNSB_TTL_DEFAULT. `path` ("$.create[3]")
 * prefixes messages. When the endpoint cannot be applied, *why receives a
 * malloc'd message naming the path and the record, and *out is partly filled
 * (clear it either way).
 * @return 0, or DNSB_ENOMEM
 */
int dnsb_endpoint_rrset(dnsb_rrset *out, json_object *ep, int old, const char *path, char **why);

/*
 * Would dnsb_rrset_to_endpoint(rrset) print `ep` again, member for member
 * (dnsName, targets in order, recordType, recordTTL and nothing else)? The
 * plan then need not keep the endpoint: its RRset says all of it.
 * @return 1 or 0 (also when out of memory)
 */
int dnsb_endpoint_reproduced(json_object *ep, const dnsb_rrset *rrset);

/*
 * endpoint.c: the target dnsb_rrset_to_endpoint prints for one RDATA of an RRset of `type`: the text (borrowed from
 * `rdata`, or *joined) and its length in *len. A TXT value split into 255-octet character-strings is joined into
 * *joined (malloc'd, the caller frees it; NULL otherwise, also when out of memory, when the text is rdata's).
 */
const char *dnsb_endpoint_target_text(uint16_t type, const char *rdata, size_t *len, char **joined);

/**
 * routing.c: the endpoint's setIdentifier (when not "") into out->set_id and
 * its routing properties (the aws ones of DNSB_ROUTING_PROPERTIES on a set
 * with an identifier, the provider ones on any; non-empty values) into
 * out->routing. A value no line can hold sets *why. out->owner names the
 * record in messages. @return 0, or DNSB_ENOMEM
 */
int dnsb_endpoint_routing(dnsb_rrset *out, json_object *ep, const char *path, char **why);

/** routing.c: keep only the routing properties of a set in *routing (NULL when none is left). @return 0 or DNSB_ENOMEM */
int dnsb_routing_strip_provider(char **routing);

/* routing.c: append out's routing properties to a providerSpecific array, in DNSB_ROUTING_PROPERTIES order.
 * @return 0 or DNSB_ENOMEM */
int dnsb_routing_to_properties(json_object *list, const char *routing);

/**
 * `name` (borrowed) with its non-ASCII labels in ASCII (punycode), as
 * external-dns's idna.NormalizeDNSName makes them (UTS #46, transitional):
 * *out receives a malloc'd copy, or NULL when the name is all ASCII (use it
 * as it is). A label libidn2 refuses is kept as given, as external-dns keeps it.
 * @return 0, or DNSB_ENOMEM
 */
int dnsb_name_to_ascii(char **out, const char *name);

/*
 * Whether every string json-c would read from the JSON text json[0..len) is UTF-8, decided from the text alone: it is
 * UTF-8 and has no \u escape. When it returns 0 the parsed tree must be walked (dnsb_json_check_utf8) to know.
 */
int dnsb_json_text_plainly_utf8(const char *json, size_t len);

/* How a plan's JSON is read: strictly (RFC 8259: no trailing comma, no comment, no leading zero), each value where the
 * next begins, what follows it checked by the reader. */
#define DNSB_PLAN_JSON_FLAGS (JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS)

/* The plan's lists, by canonical name (build.c); either capitalisation is accepted. */
enum { L_CREATE, L_UPDATE_OLD, L_UPDATE_NEW, L_DELETE, L_COUNT };
extern const char *const dnsb_plan_list_names[L_COUNT];

/* build.c: the JSON types of endpoint `i` of plan list `list` checked; a wrong one makes the text no plan:
 * DNSB_EPARSE with "SOURCE: $.create[3].targets: expected an array of strings" in *err. @return 0 or DNSB_EPARSE */
int dnsb_plan_check_shape(const char *source, dnsb_error *err, const char *list, size_t i, json_object *ep);

/* not_plan.c: a parsed document that is no plan (not an object, or an object whose keys name none of the lists; `{}`
 * is a plan) refused, saying what was expected and what it looks like. @return 0 (a plan) or DNSB_EPARSE */
int dnsb_plan_refuse_not_plan(const char *source, dnsb_error *err, json_object *root);

/*
 * build.c: one side of change `c` (kind and plan_index set) read from endpoint `ep` (a reference is taken): `old`
 * the updateOld or delete side, else the create or updateNew side. The old side of an update is read first. When a
 * side cannot be applied, c->message receives why (naming the JSON path), and a later side is not read.
 * @return 0, or DNSB_ENOMEM
 */
int dnsb_plan_read_side(dnsb_change *c, json_object *ep, int old);

/* build.c: once every side is read: an update that moves its owner name, or any side's message, makes the change
 * `invalid`; otherwise the endpoints its RRsets print again are let go of. @return 0, or DNSB_ENOMEM */
int dnsb_plan_finish_change(dnsb_change *c);

/* build.c: free what a change of the plan owns (not the change itself). */
void dnsb_plan_change_clear(dnsb_change *c);

/*
 * stream.c: read a plan's text one endpoint at a time, never holding the whole tree: *changes receives the creates,
 * then the updates (paired by position), then the deletes, malloc'd (free each with dnsb_plan_change_clear, then the
 * array), *count their number. Unknown keys are warned about (`source` names the text). Only a well-formed plan whose
 * strings are plainly UTF-8 is read here: for anything else it returns 1 and builds nothing, and the caller reads the
 * whole tree, which finds and names the fault.
 * @return 0, 1, or DNSB_ENOMEM
 */
int dnsb_plan_stream(dnsb_change **changes, size_t *count, const char *json, size_t len, const char *source);

/*
 * stream.c: dnsb_plan_stream, which reads a long create or delete list with a second thread started halfway (at the
 * first `}`, `,`, `{` after the middle of the text left, when at least 256 KiB are left: ahead.c), with
 * the second thread's start chosen: the first such boundary at or after offset `split_from` (SIZE_MAX: none; 0: as
 * dnsb_plan_stream does). `split` (when not NULL) receives how many second threads were started, and how many
 * endpoints they read that were kept, for tests: the changes are the same whatever `split_from` is.
 * @return as dnsb_plan_stream
 */
typedef struct dnsb_plan_split {
	size_t started;  /* second threads started */
	size_t taken;    /* endpoints read by them and kept */
} dnsb_plan_split;
int dnsb_plan_stream_split(dnsb_change **changes, size_t *count, const char *json, size_t len, const char *source,
			   size_t split_from, dnsb_plan_split *split);

/*
 * duplicate.c: drop as `invalid` every pending change whose new RRset (owner name and
 * type) another pending change of the plan also writes: both of a pair, each
 * message naming the two JSON paths ("$.create[0] and $.create[3]").
 * `changes` (borrowed) are changed in place. @return 0, or DNSB_ENOMEM
 */
int dnsb_plan_mark_duplicates(dnsb_change *changes, size_t count);

/* create_delete.c: an update and a delete of one RRset (owner name, type, set identifier) in `changes`, or a create
 * and a delete of the same records there: each still pending dropped as `invalid`, naming both JSON paths (a delete
 * and a create of other records is a replacement, kept). @return 0 or DNSB_ENOMEM */
int dnsb_plan_mark_create_delete(dnsb_change *changes, size_t count);

#endif
