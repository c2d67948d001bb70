/*
 * dnsbatch/plan.h - a plan: the changes external-dns asks for.
 *
 * The input is the body of the external-dns webhook POST /records request
 * (external-dns provider/webhook/api/httpapi.go, plan.Changes): a JSON
 * object with the lists `create`, `updateOld`, `updateNew` and `delete`
 * (older releases spell them `Create`, `UpdateOld`, `UpdateNew`, `Delete`;
 * both are accepted), each a list of Endpoints. updateOld[i] pairs with
 * updateNew[i].
 *
 * Endpoint to RRset: dnsName made absolute and lower-case; all targets of
 * one endpoint form one RRset; recordTTL 0 or absent means 300 seconds;
 * every target is parsed as RDATA of recordType by ldns. An endpoint that
 * is well formed JSON but fails those checks becomes a change dropped with
 * reason `invalid` (its message says why); the rest of the plan goes on.
 *
 * Aliases: an A or AAAA endpoint with the providerSpecific property
 * `alias` = "true" (external-dns's aws provider) becomes an alias RRset
 * (dnsb_alias) whose one target is a host name; `aws/evaluate-target-health`
 * "true" makes it DNSB_ALIAS_HEALTH, any other value DNSB_ALIAS_PLAIN, and
 * none DNSB_ALIAS_DEFAULT (the provider's default decides, as external-dns's
 * --aws-evaluate-target-health does). Other providerSpecific properties are
 * ignored.
 */
#ifndef DNSBATCH_PLAN_H
#define DNSBATCH_PLAN_H

#include <stdio.h>

#include "change.h"

#ifdef __cplusplus
extern "C" {
#endif

/** providerSpecific property names external-dns gives aliases (provider/aws/aws.go). */
#define DNSB_PROPERTY_ALIAS "alias"
#define DNSB_PROPERTY_EVALUATE_TARGET_HEALTH "aws/evaluate-target-health"

/** A parsed plan: an ordered array of changes. Opaque. */
typedef struct dnsb_plan dnsb_plan;

/**
 * Parse a plan from memory.
 *
 * @param out     receives the plan (the caller's; free with dnsb_plan_free)
 * @param json    the document (borrowed; need not be NUL-terminated)
 * @param len     its length in bytes
 * @param source  a name for messages, e.g. the file name (borrowed; may be NULL)
 * @param err     detail on failure: names the source and the JSON path
 *                ("plan.json: $.updateNew[3].targets: expected an array of
 *                strings") or the byte offset of a JSON syntax error
 * @return 0; DNSB_EPARSE when the document is not JSON or not a plan (not
 *         an object, a list that is not an array, an endpoint that is not an
 *         object, a field of the wrong JSON type, a list given in both
 *         spellings,
 *         updateOld and updateNew of different lengths); DNSB_ENOMEM.
 *         Invalid records are not an error: see dnsb_change.outcome. The
 *         document `null` is an empty plan, as Go decodes it into plan.Changes.
 */
int dnsb_plan_parse(dnsb_plan **out, const char *json, size_t len, const char *source, dnsb_error *err);

/**
 * Read and parse a plan file. As dnsb_plan_parse, plus DNSB_EIO when the
 * file cannot be read (the message names the file and the system error).
 */
int dnsb_plan_load(dnsb_plan **out, const char *path, dnsb_error *err);

/** Free a plan and its changes. NULL is a no-op. */
void dnsb_plan_free(dnsb_plan *plan);

/** Number of changes in the plan. */
size_t dnsb_plan_count(const dnsb_plan *plan);

/** The i-th change (0 <= i < count). @return a pointer borrowed from the plan */
dnsb_change *dnsb_plan_change(dnsb_plan *plan, size_t i);

/**
 * The change in plan form, ready to be fed back as a plan:
 * {"create":[ep]}, {"updateOld":[ep],"updateNew":[ep]} or {"delete":[ep]},
 * using the endpoints exactly as the plan gave them.
 *
 * @return a new json-c object (the caller's reference; json_object_put it),
 *         or NULL when out of memory
 */
struct json_object *dnsb_change_to_plan_json(const dnsb_change *change);

/**
 * One side of the change as the plan gave it: `old` the updateOld or delete
 * endpoint, else the create or updateNew one. The plan keeps an endpoint only
 * where its RRset would not print it again (labels, its own spelling); else it
 * is printed from the RRset (without a TTL where the plan gave none).
 * @return a new json-c object (the caller's reference), or NULL when the
 *         change has no such side or out of memory
 */
struct json_object *dnsb_change_endpoint(const dnsb_change *change, int old);

/**
 * A writer of changes in plan form, one after another: what a dry run prints
 * for 100,000 changes. It keeps one Endpoint tree that each RRset of the
 * common shape (no set identifier, alias or routing property) is set into,
 * so a change costs json-c's serialisation and no tree of its own.
 */
typedef struct dnsb_plan_writer dnsb_plan_writer;

/**
 * A writer to `out` (borrowed; it must outlive the writer).
 * @return a new writer (free with dnsb_plan_writer_free), or NULL (ENOMEM)
 */
dnsb_plan_writer *dnsb_plan_writer_new(FILE *out);

/**
 * Write `change` (borrowed) in plan form: the same text as
 * json_object_to_json_string_ext(dnsb_change_to_plan_json(change),
 * JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), with no newline.
 * @return 0, DNSB_ENOMEM, or DNSB_EIO when the stream refuses the text
 *         (then part of the change may have been written)
 */
int dnsb_plan_writer_change(dnsb_plan_writer *w, const dnsb_change *change);

/**
 * Write changes[0..n) (borrowed) as dnsb_plan_writer_change does, separated
 * by commas, with no newline; a change that cannot be serialised (out of
 * memory) is written `null`, so the text stays a JSON list's members. From
 * 64 changes on, the second half is serialised by a second thread.
 * @return 0, DNSB_ENOMEM when a change was written `null` (or, memory short
 *         even for that, left out), or DNSB_EIO when the stream refuses the
 *         text (then part of it may have been written)
 */
int dnsb_plan_writer_changes(dnsb_plan_writer *w, dnsb_change *const *changes, size_t n);

/** Free a writer (not its stream). NULL is a no-op. */
void dnsb_plan_writer_free(dnsb_plan_writer *w);

/**
 * An RRset as the Endpoint external-dns expects from a provider's Records
 * (endpoint.NewEndpointWithTTL): dnsName without the trailing dot, every
 * RDATA of the RRset as one target, recordType, recordTTL (left out when
 * 0). Targets of name-valued types (CNAME, NS, PTR, MX, DNAME, ...) lose
 * their trailing dot; TXT, SRV and NAPTR targets are kept as is, TXT in
 * quoted presentation form as the TXT registry reads it, a value stored as
 * 255-octet character-strings (it was longer) joined back into one string.
 * An alias lists its target and, as external-dns's aws provider does, the
 * providerSpecific `alias` "true" and `aws/evaluate-target-health`.
 * The one Endpoint serializer: GET /records, `dnsbatch records --output json`
 * and the drop log (for changes the plan gave no endpoint for) all use it.
 * @param rrset  borrowed
 * @return a new json-c object (the caller's reference), or NULL (ENOMEM)
 */
struct json_object *dnsb_rrset_to_endpoint(const dnsb_rrset *rrset);

/**
 * The value of an Endpoint's providerSpecific property (external-dns's list
 * of {"name","value"} pairs), by name.
 * @param ep    an Endpoint object (borrowed)
 * @param name  the property's name, e.g. DNSB_PROPERTY_ALIAS (borrowed)
 * @return the value, borrowed from ep ("" when the pair has no value), or
 *         NULL when ep has no such property
 */
const char *dnsb_endpoint_property(struct json_object *ep, const char *name);

/**
 * Find the first string of a parsed JSON document (member names included)
 * that is not valid UTF-8 (RFC 3629: no overlong forms, surrogates or code
 * points past U+10FFFF). dnsb_plan_parse refuses such a plan with DNSB_EPARSE.
 * @param where receives, when one is found, "PATH: not valid UTF-8 (octet 0xff
 *              at offset 0)" with PATH as "$.create[0].dnsName" (truncated
 *              to size; a path past 500 octets is cut)
 * @param size  the size of where, in octets
 * @param doc   the document (borrowed); NULL is valid
 * @return 1 when one was found, 0 when every string is UTF-8
 */
int dnsb_json_check_utf8(char *where, size_t size, struct json_object *doc);

/** dnsb_endpoint_adjust flags: the provider stores aliases (dnsb_provider_limits.aliases); an alias
 *  that does not say evaluates its target's health unless DNSB_ADJUST_NO_HEALTH (alias_health 0). */
#define DNSB_ADJUST_ALIASES 1u
#define DNSB_ADJUST_NO_HEALTH 2u
/** dnsb_endpoint_adjust flag: the provider stores set identifiers (dnsb_provider_limits.set_ids). */
#define DNSB_ADJUST_SET_IDS 4u

/**
 * external-dns's AdjustEndpoints for one desired Endpoint (provider.go): the
 * form GET /records will list it in once a provider here stored it, so that
 * external-dns's next plan finds nothing to change. dnsName and targets
 * become what dnsb_rrset_to_endpoint prints for the RRset (lower case, no
 * trailing dot; canonical RDATA, sorted, without duplicates; a bare TXT value
 * quoted, a long one joined); providerSpecific is removed (external-dns
 * compares it) except the routing properties of a set with an identifier
 * (DNSB_ROUTING_PROPERTIES, as the provider lists them back) and on an alias, which
 * gets the two properties it is listed with (the health one added when
 * absent, "true" unless DNSB_ADJUST_NO_HEALTH); recordTTL (0 = not set, which
 * external-dns does not compare), labels and other members are kept, but an
 * alias's recordTTL, when set, becomes 300 (DNSB_TTL_DEFAULT), the TTL
 * aliases are listed with (as external-dns's aws provider does).
 * @param out   receives a new object (the caller's reference): the adjusted
 *              endpoint, or an unchanged copy when *why is set
 * @param why   receives a malloc'd reason (the caller's) when the provider
 *              cannot apply the endpoint (a setIdentifier without DNSB_ADJUST_SET_IDS, an unknown record
 *              type, a TTL over 2^31-1, a CNAME with two targets, bad RDATA;
 *              an alias without DNSB_ADJUST_ALIASES), naming `path` and the
 *              record; else NULL
 * @param ep    a JSON value (borrowed; anything but an object is unsupported)
 * @param path  prefix of messages, e.g. "$[3]" (borrowed)
 * @param flags 0, or DNSB_ADJUST_ALIASES and maybe DNSB_ADJUST_NO_HEALTH
 * @return 0, or DNSB_ENOMEM
 */
int dnsb_endpoint_adjust(struct json_object **out, char **why, struct json_object *ep, const char *path,
			 unsigned flags);

/**
 * dnsb_endpoint_adjust for a provider that stores provider properties
 * (dnsb_provider_limits.properties): the endpoint's provider properties
 * (DNSB_PROPERTY_CF_PROXIED, ...) are put in the provider's canonical form
 * by `props` and kept as it lists them, and recordTTL becomes the TTL
 * `props` fixes (a proxied record's automatic 1). With props NULL, as
 * dnsb_endpoint_adjust: provider properties are removed like the others.
 * @param ctx  given to props (borrowed)
 * @return 0; DNSB_EINVAL when props refuses the endpoint's type (nothing in
 *         *out); DNSB_ENOMEM
 */
int dnsb_endpoint_adjust_props(struct json_object **out, char **why, struct json_object *ep, const char *path,
			       unsigned flags, dnsb_rrset_props_fn props, const void *ctx);

#ifdef __cplusplus
}
#endif
#endif
