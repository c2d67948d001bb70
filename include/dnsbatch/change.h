/*
 * dnsbatch/change.h - RRsets, changes and their outcomes.
 *
 * An RRset (RFC 2181 §5) is identified by owner name, class IN and type.
 * Owner names here are always absolute, lower-cased, with the trailing dot
 * ("www.example.com."). RDATA is kept in canonical presentation format:
 * parsed by ldns, domain names in RDATA lower-cased (RFC 4034 §6.2), and
 * printed back by ldns, so that two RRsets compare equal exactly when
 * they hold the same data whatever the spelling in the input.
 */
#ifndef DNSBATCH_CHANGE_H
#define DNSBATCH_CHANGE_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_object;

/** The largest TTL allowed: 2^31 - 1 seconds (RFC 2181 §8). */
#define DNSB_TTL_MAX 2147483647u
/** The TTL given to an endpoint that has none (external-dns sends 0). */
#define DNSB_TTL_DEFAULT 300u

/**
 * The TTL of an old RRset (updateOld, delete) that did not say one: external-dns
 * sends recordTTL 0 or none for "not set" (its TXT registry does so for the
 * ownership records it deletes or updates). It matches any TTL held.
 */
#define DNSB_TTL_UNSET 0u

/**
 * An alias: an A or AAAA RRset that holds no RDATA of its own but answers
 * with the addresses of another name (Route53's AliasTarget, written by
 * external-dns for endpoints with providerSpecific `alias` = "true"; see the
 * Route53 API reference, AliasTarget). Only a provider declaring `aliases`
 * in its limits stores one; the engine drops it as invalid elsewhere.
 */
typedef enum dnsb_alias {
	DNSB_ALIAS_NONE = 0,    /**< an ordinary RRset: rdata holds its records */
	DNSB_ALIAS_PLAIN = 1,   /**< an alias; the target's health is not evaluated */
	DNSB_ALIAS_HEALTH = 2,  /**< an alias that evaluates the target's health
				     (providerSpecific aws/evaluate-target-health = "true") */
	DNSB_ALIAS_DEFAULT = 3  /**< an alias whose endpoint does not say: the provider's default
				     (dnsb_provider_limits.alias_health) makes it PLAIN or HEALTH
				     before anything is compared or sent (the engine does so) */
} dnsb_alias;

/**
 * An RRset. Every pointer is owned by the struct; free with
 * dnsb_rrset_clear(). A zeroed struct is an empty, valid RRset.
 */
typedef struct dnsb_rrset {
	char *owner;         /**< absolute, lower-case, trailing dot */
	uint16_t type;       /**< RR type code (ldns_rr_type / IANA value) */
	uint32_t ttl;        /**< seconds; DNSB_TTL_UNSET (0) in a change's old RRset: any TTL.
				  An alias has no TTL of its own: its ttl is not compared */
	char **rdata;        /**< canonical presentation format, sorted, no duplicates; for an
				  alias, one item: the target's name, absolute, lower-case */
	size_t rdata_count;
	dnsb_alias alias;    /**< DNSB_ALIAS_NONE, or what kind of alias this is */
	char *set_id;        /**< the set identifier of a routing policy (external-dns's setIdentifier,
				  Route53's SetIdentifier), or NULL: none ("" is read as none). An RRset
				  is keyed by (owner, type, set_id); only a provider declaring
				  `set_ids` in its limits stores one */
	char *routing;       /**< the routing properties of a set and the provider properties of any
				  RRset (DNSB_ROUTING_PROPERTIES, as external-dns's providerSpecific names
				  them): "name=value" lines sorted by name, each ending in '\n', or
				  NULL: none. Compared like RDATA */
} dnsb_rrset;

/** providerSpecific name: whether Cloudflare proxies the record ("true"/"false"; external-dns's source/cloudflare). */
#define DNSB_PROPERTY_CF_PROXIED "external-dns.alpha.kubernetes.io/cloudflare-proxied"
/** providerSpecific name: the comment Cloudflare keeps on the record. */
#define DNSB_PROPERTY_CF_COMMENT "external-dns.alpha.kubernetes.io/cloudflare-record-comment"

/**
 * The providerSpecific names dnsb_rrset.routing carries, in the order it
 * sorts them: first Route53's routing properties (external-dns's
 * provider/aws names), read only on a set with an identifier; then the
 * DNSB_ROUTING_SET_PROPERTY_COUNT.. ones any RRset may carry (Cloudflare's),
 * which only a provider declaring `properties` in its limits stores.
 */
#define DNSB_ROUTING_PROPERTIES                                                                 \
	{ "aws/failover", "aws/geolocation-continent-code", "aws/geolocation-country-code",     \
	  "aws/geolocation-subdivision-code", "aws/geoproximity-bias", "aws/geoproximity-coordinates", \
	  "aws/geoproximity-local-zone-group", "aws/geoproximity-region", "aws/health-check-id", \
	  "aws/multi-value-answer", "aws/region", "aws/weight", DNSB_PROPERTY_CF_PROXIED, DNSB_PROPERTY_CF_COMMENT }
/** How many names DNSB_ROUTING_PROPERTIES holds. */
#define DNSB_ROUTING_PROPERTY_COUNT 14
/** How many of them (the first) are routing properties of a set with an identifier. */
#define DNSB_ROUTING_SET_PROPERTY_COUNT 12

/**
 * A provider's canonical form of the properties of an RRset (declared in
 * dnsb_provider_limits.properties): defaults resolved so that an RRset as
 * asked and the same RRset as the provider reads it back compare equal
 * (routing rewritten; ttl changed where the property fixes it).
 * @param ctx  the provider's (dnsb_provider_limits.properties_ctx)
 * @return 0; DNSB_EINVAL when the provider writes no RRset of its type (the
 *         engine drops such a change as invalid before sending, AdjustEndpoints
 *         reports the endpoint unsupported); DNSB_ENOMEM
 */
typedef int (*dnsb_rrset_props_fn)(const void *ctx, struct dnsb_rrset *rrset);

/**
 * One routing property of dnsb_rrset.routing.
 * @param routing  the RRset's routing text, or NULL (borrowed)
 * @param name     e.g. "aws/weight" (borrowed)
 * @param len      receives the value's length
 * @return the value, borrowed from `routing` and not NUL-terminated at len, or NULL when absent
 */
const char *dnsb_routing_get(const char *routing, const char *name, size_t *len);

/**
 * A growable array of RRsets. Owns its items. Zeroed = empty. Grow it only
 * with dnsb_rrset_list_push (or dnsb_rrset_list_add_ldns_rr): past a few
 * dozen items the list keeps an index by owner name, so that finding an
 * RRset, and merging a zone transfer record by record, cost O(1) each.
 */
typedef struct dnsb_rrset_list {
	dnsb_rrset *items;
	size_t count;
	size_t capacity;
	struct dnsb_rrset_index *index;  /**< private: owned; NULL while the list is short */
} dnsb_rrset_list;

/** What a change does to the zone. */
typedef enum dnsb_change_kind {
	DNSB_CHANGE_CREATE = 0,  /**< add an RRset that must not exist */
	DNSB_CHANGE_UPDATE = 1,  /**< replace the RRset `old` (which must match exactly) by `new_set` */
	DNSB_CHANGE_DELETE = 2   /**< remove the RRset `old` (which must match exactly) */
} dnsb_change_kind;

/** How a change ended. Every change ends with exactly one. */
typedef enum dnsb_outcome {
	DNSB_OUTCOME_PENDING = 0,          /**< not decided yet */
	DNSB_OUTCOME_APPLIED = 1,          /**< the provider accepted it */
	DNSB_OUTCOME_ALREADY_APPLIED = 2,  /**< the provider already held the desired state */
	DNSB_OUTCOME_DROPPED = 3,          /**< will never apply as is: logged and given up */
	DNSB_OUTCOME_FAILED = 4            /**< not applied for a retryable reason */
} dnsb_outcome;

/** Why a change was dropped or failed. */
typedef enum dnsb_reason {
	DNSB_REASON_NONE = 0,
	DNSB_REASON_CONFLICT = 1,      /**< dropped: conflicts with the provider's data */
	DNSB_REASON_INVALID = 2,       /**< dropped: the record itself is invalid */
	DNSB_REASON_NO_ZONE = 3,       /**< dropped: no configured zone holds the owner name */
	DNSB_REASON_QUARANTINED = 4,   /**< dropped: the same conflict is backing off (sidecar) */
	DNSB_REASON_TRANSIENT = 5,     /**< failed: retries exhausted on transient errors */
	DNSB_REASON_RATE_LIMITED = 6,  /**< failed: still rate limited after the allowed waits */
	DNSB_REASON_FATAL = 7,         /**< failed: authentication or authority error */
	DNSB_REASON_DEADLINE = 8,      /**< failed: the deadline passed before it was tried */
	DNSB_REASON_HELD = 9           /**< failed: held by a safety threshold, nothing sent (dnsbatch/threshold.h) */
} dnsb_reason;

/**
 * One change of a plan. Owned by its dnsb_plan; all pointers are owned by
 * the change. The engine writes outcome, reason and the provider detail.
 */
/**
 * What is in a dropped change's way, for operators: from the read-back that
 * verify-before-drop makes anyway (docs/design.md §3.3, §7), at no extra request.
 */
typedef enum dnsb_cause {
	DNSB_CAUSE_NONE = 0,     /**< not dropped */
	DNSB_CAUSE_EXISTS,       /**< a create whose RRset exists */
	DNSB_CAUSE_DIFFERS,      /**< an update or delete whose old RRset holds other RDATA or TTL */
	DNSB_CAUSE_MISSING,      /**< an update or delete whose old RRset does not exist */
	DNSB_CAUSE_CNAME,        /**< a CNAME beside other data at one owner name, either way round */
	DNSB_CAUSE_INVALID,      /**< refused by validation or by the provider as malformed */
	DNSB_CAUSE_NO_ZONE,      /**< in no zone of the provider */
	DNSB_CAUSE_QUARANTINED,  /**< held back: its group conflicted on an earlier apply */
	DNSB_CAUSE_OTHER         /**< the provider refused and the read-back explains nothing */
} dnsb_cause;

typedef struct dnsb_change {
	dnsb_change_kind kind;
	dnsb_rrset old;            /**< UPDATE, DELETE: the RRset expected now */
	dnsb_rrset new_set;        /**< CREATE, UPDATE: the RRset wanted */
	char *owned_record;        /**< labels.ownedRecord, absolute lower-case; NULL if none */
	struct json_object *endpoint_old;  /**< the plan's endpoint (a reference held), or NULL */
	struct json_object *endpoint_new;  /**< the plan's endpoint (a reference held), or NULL */
	size_t plan_index;         /**< position in its plan list, for messages */

	size_t zone;               /**< index into the provider's zones; set by the engine */
	size_t group;              /**< change group id; set by the engine */

	dnsb_outcome outcome;
	dnsb_reason reason;
	int status;                /**< provider status: HTTP status or DNS rcode, 0 if none */
	char *code;                /**< provider error code ("alreadyExists", "YXRRSET"), or NULL */
	char *message;             /**< provider or validation message, or NULL */

	/* Set by the engine on a change it drops (dnsbatch/droplog.h writes them). */
	dnsb_cause cause;          /**< what is in the way; DNSB_CAUSE_NONE when not dropped */
	dnsb_rrset_list current;   /**< conflicts: every RRset the provider holds at the change's
				        owner name, from the read that proved the drop (owned) */
	char *txt_owner;           /**< the external-dns owner ID (external-dns/owner=X) of the
				        ownership TXT record held for that name, or NULL (owned) */
	char *txt_resource;        /**< its external-dns/resource, or NULL (owned) */
	int new_ttl_unset;         /**< the plan's new endpoint gave no TTL (none, or 0): new_set.ttl
				        is DNSB_TTL_DEFAULT, and the endpoint is printed back without one */
} dnsb_change;

/**
 * Turn RDATA in presentation format into canonical form with ldns.
 *
 * @param out     receives a malloc'd string (the caller's), on success
 * @param type    RR type code
 * @param rdata   presentation format, as in a zone file (borrowed)
 * @param err     detail on failure (may be NULL)
 * @return 0, DNSB_EINVAL when the type is not one a plan may carry (A, AAAA,
 *         CAA, CNAME, DS, HTTPS, MX, NAPTR, NS, PTR, SPF, SRV, SSHFP, SVCB, TLSA,
 *         TXT) or ldns cannot parse the RDATA for that type (the message names
 *         the type and ldns's reason), DNSB_ENOMEM
 */
int dnsb_rdata_canonical(char **out, uint16_t type, const char *rdata, dnsb_error *err);

/**
 * Make an owner name absolute and lower-case, and check it with ldns
 * (labels of at most 63 octets, at most 255 octets in all).
 *
 * @param out   receives a malloc'd string with the trailing dot (the caller's)
 * @param name  a domain name, relative or absolute (borrowed)
 * @return 0, DNSB_EINVAL for an illegal name, DNSB_ENOMEM
 */
int dnsb_name_canonical(char **out, const char *name, dnsb_error *err);

/**
 * Is `name` equal to `zone` or below it? Both absolute and lower-case.
 * @return 1 or 0
 */
int dnsb_name_in_zone(const char *name, const char *zone);

/** Free what an RRset owns and zero it. NULL is a no-op. */
void dnsb_rrset_clear(dnsb_rrset *rrset);

/**
 * Deep-copy an RRset.
 * @param out  receives the copy (the caller's; clear with dnsb_rrset_clear)
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_rrset_copy(dnsb_rrset *out, const dnsb_rrset *src);

/**
 * Append one RDATA string (copied) to an RRset, keeping the list sorted and
 * free of duplicates. The string must already be canonical.
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_rrset_add_rdata(dnsb_rrset *rrset, const char *rdata);

/**
 * Do two RRsets hold the same owner, type, TTL and RDATA set (for aliases:
 * the same target and alias kind; their TTL is not compared)?
 * @return 1 or 0
 */
int dnsb_rrset_equal(const dnsb_rrset *a, const dnsb_rrset *b);

/** Same as dnsb_rrset_equal, but ignoring the TTL (alias kind compared). @return 1 or 0 */
int dnsb_rrset_same_data(const dnsb_rrset *a, const dnsb_rrset *b);

/**
 * Does the held RRset satisfy a change's old RRset: same owner, type, RDATA
 * set and alias kind, and the same TTL unless the old one's is
 * DNSB_TTL_UNSET or the two are aliases?
 * @return 1 or 0
 */
int dnsb_rrset_matches_old(const dnsb_rrset *held, const dnsb_rrset *old);

/**
 * Total bytes of RDATA in presentation format (an estimate of the size the
 * providers limit, e.g. Cloud DNS's 100000 bytes per change).
 */
size_t dnsb_rrset_rdata_bytes(const dnsb_rrset *rrset);

/** Move an RRset into a list: the list takes ownership, *rrset is zeroed; on DNSB_ENOMEM *rrset is freed and
 *  zeroed (taken either way). @return 0 or DNSB_ENOMEM */
int dnsb_rrset_list_push(dnsb_rrset_list *list, dnsb_rrset *rrset);

/** Find an RRset without set identifier by owner and type. @return a borrowed pointer, or NULL */
const dnsb_rrset *dnsb_rrset_list_find(const dnsb_rrset_list *list, const char *owner, uint16_t type);

/**
 * Find the RRset keyed (owner, type, set_id) in a list, as
 * dnsb_rrset_list_find does for a set without identifier (set_id NULL or "").
 * @return the item (borrowed from the list) or NULL
 */
const dnsb_rrset *dnsb_rrset_list_find_set(const dnsb_rrset_list *list, const char *owner, uint16_t type,
					   const char *set_id);

/** Free every item and the array; the list is left empty and reusable. NULL is a no-op. */
void dnsb_rrset_list_clear(dnsb_rrset_list *list);

/**
 * Is this RR type the server's own rather than data a controller manages:
 * SOA, and the DNSSEC types RRSIG, NSEC, DNSKEY, NSEC3, NSEC3PARAM?
 * @return 1 or 0
 */
int dnsb_type_is_server(uint16_t type);

/** Type code to mnemonic ("A", "TXT", "TYPE65280"). @return a static or thread-local string */
const char *dnsb_type_name(uint16_t type);

/** Outcome and reason names as used in metrics labels and logs ("already_applied", "no_zone"). */
const char *dnsb_outcome_name(dnsb_outcome outcome);
const char *dnsb_reason_name(dnsb_reason reason);
/**
 * A dropped change's cause: the engine's diagnosis (c->cause) or, where it
 * made none, the one its reason implies (invalid, no_zone, quarantined;
 * other for a conflict). DNSB_CAUSE_NONE when the change is not dropped.
 */
dnsb_cause dnsb_change_cause(const dnsb_change *c);

/** Cause names as in the drop log and the `cause` metrics label ("exists", "no_zone"); "" for NONE. */
const char *dnsb_cause_name(dnsb_cause cause);

#ifdef __cplusplus
}
#endif
#endif
