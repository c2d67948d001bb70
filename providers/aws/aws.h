/*
 * providers/aws/aws.h - internals of the aws provider (Route53), shared by
 * its files and its unit tests. Not installed; users see the backend only as
 * dnsb_backend_aws.
 *
 *   config.c   flags (--aws-zone-type, --aws-zone-id, --aws-batch-change-size,
 *              --aws-batch-change-interval, --aws-profile, --aws-wait-insync)
 *              and the SDK's endpoint variables
 *   creds.c    the credential chain, in the AWS SDKs' order: environment,
 *              web identity (STS), container credentials, the shared
 *              credentials file, IMDSv2; temporary ones refreshed before expiry
 *   alias.c    which hosted zone an alias target lies in (AWS services'
 *              canonical zones, else the account's own)
 *   xml.c      the ChangeResourceRecordSets body (libxml2) and its layout,
 *              RRsets (aliases included) and zones from list replies, \ooo
 *              name escapes
 *   reply.c    a reply as one class, with every change its messages name
 *   insync.c   --aws-wait-insync: GetChange polled until the change is INSYNC
 *   aws.c      signed calls, pagination, the methods on the HTTP backend
 *              skeleton (providers/common/backend.h), open, flags
 *
 * No key, secret or token ever appears in a message, a log line or argv.
 */
#ifndef DNSBATCH_PROVIDERS_AWS_H
#define DNSBATCH_PROVIDERS_AWS_H

#include <pthread.h>
#include <time.h>

#include "dnsbatch/sys/provider.h"
#include "providers/common/backend.h"

#define DNSB_AWS_ENDPOINT_DEFAULT "https://route53.amazonaws.com"
#define DNSB_AWS_STS_DEFAULT "https://sts.amazonaws.com"
#define DNSB_AWS_IMDS_DEFAULT "http://169.254.169.254"
/** The ECS agent that $AWS_CONTAINER_CREDENTIALS_RELATIVE_URI is a path on. */
#define DNSB_AWS_ECS_AGENT "http://169.254.170.2"
/** Route53's global endpoint signs as us-east-1. */
#define DNSB_AWS_SIGV4 "aws:amz:us-east-1:route53"
#define DNSB_AWS_XMLNS "https://route53.amazonaws.com/doc/2013-04-01/"
#define DNSB_AWS_API "/2013-04-01"
/** --aws-batch-change-size default (external-dns's) and Route53's per-request limits. */
#define DNSB_AWS_BATCH_DEFAULT 1000
#define DNSB_AWS_MAX_RECORDS 1000
#define DNSB_AWS_MAX_VALUE_CHARS 32000
#define DNSB_AWS_INTERVAL_DEFAULT 1.0
#define DNSB_AWS_TIMEOUT 30.0
/** ListResourceRecordSets page size asked for (Route53 gives at most 300). */
#define DNSB_AWS_PAGE_SIZE 300
#define DNSB_AWS_PAGES_MAX 100000
/** Temporary credentials are fetched anew this many seconds before they expire. */
#define DNSB_AWS_REFRESH_MARGIN 300
/** --aws-wait-insync: seconds before the first GetChange, the cap of the doubling wait between two, and the
 *  longest wait when the engine gives the submission no deadline (Route53 is usually INSYNC within 60 s). */
#define DNSB_AWS_INSYNC_FIRST 1.0
#define DNSB_AWS_INSYNC_CAP 10.0
#define DNSB_AWS_INSYNC_MAX 300.0

typedef enum dnsb_aws_zone_type { DNSB_AWS_ZONES_ANY = 0, DNSB_AWS_ZONES_PUBLIC, DNSB_AWS_ZONES_PRIVATE } dnsb_aws_zone_type;

/** A hosted zone: its apex ("example.com.") and id ("Z0123", without "/hostedzone/"). */
typedef dnsb_hb_zone dnsb_aws_zone;

/** Settings of one aws provider, from its flags and the environment. */
/** The aws flags (config.c): the one table of their names, kinds, defaults and help. */
extern const dnsb_flag dnsb_aws_flags[];

typedef struct dnsb_aws_config {
	dnsb_aws_zone_type zone_type;  /**< --aws-zone-type */
	char **zone_ids;               /**< --aws-zone-id (repeatable); owned */
	size_t zone_id_count;
	size_t batch_size;             /**< --aws-batch-change-size */
	double interval;               /**< --aws-batch-change-interval, seconds */
	char *profile;                 /**< --aws-profile or $AWS_PROFILE, or NULL (= "default"); owned */
	char *endpoint;                /**< $AWS_ENDPOINT_URL_ROUTE_53 / $AWS_ENDPOINT_URL, no trailing '/'; owned */
	char *sts_endpoint;            /**< $AWS_ENDPOINT_URL_STS / $AWS_ENDPOINT_URL; owned */
	char *ca_file;                 /**< $AWS_CA_BUNDLE, or NULL; owned */
	int wait_insync;               /**< --aws-wait-insync: 1 to poll GetChange after each accepted batch */
	int prefer_cname;              /**< --aws-prefer-cname: 1 to keep CNAMEs to AWS services as CNAMEs */
	int no_health;                 /**< --no-aws-evaluate-target-health: aliases that do not say evaluate none */
} dnsb_aws_config;

/** @return 0; DNSB_EINVAL naming the flag or variable; DNSB_ENOMEM. `out` is the caller's (dnsb_aws_config_clear). */
int dnsb_aws_config_parse(dnsb_aws_config *out, const dnsb_config *cfg, dnsb_error *err);
void dnsb_aws_config_clear(dnsb_aws_config *cfg);

/* ---- credentials (creds.c) ---- */

typedef enum dnsb_aws_source {
	DNSB_AWS_CREDS_ENV = 0,      /**< $AWS_ACCESS_KEY_ID, $AWS_SECRET_ACCESS_KEY, $AWS_SESSION_TOKEN */
	DNSB_AWS_CREDS_WEB_IDENTITY, /**< $AWS_ROLE_ARN + $AWS_WEB_IDENTITY_TOKEN_FILE: STS AssumeRoleWithWebIdentity */
	DNSB_AWS_CREDS_CONTAINER,    /**< $AWS_CONTAINER_CREDENTIALS_FULL_URI or _RELATIVE_URI (+ authorization token, file or value) */
	DNSB_AWS_CREDS_FILE,         /**< the shared credentials file's profile */
	DNSB_AWS_CREDS_IMDS          /**< the EC2 instance metadata service, v2 (session token) */
} dnsb_aws_source;

/** One set of credentials. Secrets: wiped by dnsb_aws_keys_clear. */
typedef struct dnsb_aws_keys {
	char *access_key;
	char *secret;
	char *token;       /**< session token, or NULL */
	time_t expires;    /**< wall clock; 0 = never */
} dnsb_aws_keys;

void dnsb_aws_keys_clear(dnsb_aws_keys *k);

/** Where credentials come from, and the current ones. Thread-safe once initialised. */
typedef struct dnsb_aws_creds {
	dnsb_aws_source source;
	char describe[256];        /**< for messages: "environment", "shared credentials file F [profile P]" */
	char *role_arn, *token_file, *session_name;  /**< web identity; owned */
	char *container_url, *container_auth_file;   /**< container; owned */
	char *container_auth;      /**< $AWS_CONTAINER_AUTHORIZATION_TOKEN when no file names one; a secret; owned */
	char *sts_endpoint, *imds_endpoint;          /**< owned */
	pthread_mutex_t lock;
	dnsb_aws_keys keys;        /**< guarded by lock */
	unsigned long fetches;     /**< credentials obtained from a remote source so far */
	const struct dnsb_clock *clock; /**< whose wall reading times keys.expires; NULL = the system's (borrowed) */
} dnsb_aws_creds;

/**
 * Pick the source in the SDKs' order and, for the environment and the
 * shared file, read the keys now (a bad file stops the provider before
 * anything is sent).
 * @return 0; DNSB_EINVAL (no source: the message lists what was tried;
 *         a profile without keys); DNSB_EIO; DNSB_ENOMEM
 */
int dnsb_aws_creds_init(dnsb_aws_creds *c, const dnsb_aws_config *cfg, dnsb_error *err);
void dnsb_aws_creds_clear(dnsb_aws_creds *c);

/**
 * The "ACCESSKEY:SECRET" pair and session token header for the next
 * request: the current keys, fetched anew when missing, within
 * DNSB_AWS_REFRESH_MARGIN of expiry, or `refused` (after an ExpiredToken).
 * @param userpwd  receives "KEY:SECRET" (the caller's; wipe and free)
 * @param token_header  receives "X-Amz-Security-Token: T" or NULL (likewise)
 * @return 0; DNSB_EFATAL (the source refused, a static key refused);
 *         DNSB_ETRANSIENT; DNSB_ENOMEM
 */
int dnsb_aws_creds_get(char **userpwd, char **token_header, dnsb_aws_creds *c, dnsb_http *http, int refused,
		       double give_up, dnsb_error *err);

/**
 * Read a profile's keys from a shared credentials file (INI).
 * @return 0; DNSB_ENOTFOUND (no such profile or file); DNSB_EINVAL (a key
 *         missing: named, never shown); DNSB_ENOMEM
 */
int dnsb_aws_creds_file(dnsb_aws_keys *out, const char *path, const char *profile, dnsb_error *err);

/** Parse an ISO 8601 UTC time ("2026-11-23T10:00:00Z"). @return seconds since the epoch, or 0 */
time_t dnsb_aws_time(const char *text);
/**
 * Read the keys of a container-credentials or IMDS reply ({"AccessKeyId",
 * "SecretAccessKey", "Token", "Expiration"}) into *out (creds.c; apart for the fuzzer).
 * @param what  the source, for messages
 * @return 0; DNSB_ETRANSIENT (no keys in the reply, err names `what`); DNSB_ENOMEM
 */
int dnsb_aws_keys_from_json(dnsb_aws_keys *out, const dnsb_http_response *resp, const char *what, dnsb_error *err);

/* ---- alias targets (alias.c) ---- */

/**
 * The canonical hosted zone of the AWS service whose names hold an alias
 * target, by suffix, as AWS's General Reference lists them: Application and
 * Classic Load Balancers (<region>.elb.amazonaws.com), Network Load
 * Balancers (elb.<region>.amazonaws.com), both also under amazonaws.com.cn
 * in China, CloudFront (cloudfront.net), Global Accelerator
 * (awsglobalaccelerator.com). "dualstack." names lie below the same suffixes.
 * @param target  absolute, lower-case ("my-lb-1.us-east-1.elb.amazonaws.com.")
 * @return the zone id (a static string), or NULL when no service's suffix holds it
 */
const char *dnsb_aws_service_zone(const char *target);

/**
 * The hosted zone an alias target lies in: the service zone of
 * dnsb_aws_service_zone, else the zone of `zones` with the longest apex
 * holding the target (an alias to another record of the account); of zones
 * sharing that apex, the one whose id is `current`, else the first.
 * @param target   absolute, lower-case
 * @param zones    the provider's hosted zones (borrowed)
 * @param current  id of the zone the batch goes to, or NULL
 * @return the zone id (static, or borrowed from zones), or NULL when neither holds it
 */
const char *dnsb_aws_alias_zone(const char *target, const dnsb_aws_zone *zones, size_t count, const char *current);

/**
 * Does some alias of a batch (an old or a new RRset) lie in no zone
 * dnsb_aws_alias_zone finds? Such a batch cannot be sent: `res` is set to
 * class INVALID (status 0, no code), every such change named a culprit, and
 * a message naming the first one's record and target.
 * @return 1 when the batch cannot be sent (`res` filled); 0 when every alias
 *         has a zone (`res` untouched)
 */
int dnsb_aws_alias_unplaced(dnsb_result *res, dnsb_change *const *changes, size_t n, const dnsb_aws_zone *zones,
			    size_t count, const char *current);

/* ---- XML (xml.c) ---- */

/** A ChangeResourceRecordSets body and which batch change each Change element came from. */
typedef struct dnsb_aws_body {
	char *xml;        /**< owned */
	size_t xml_len;
	size_t *origin;   /**< origin[i] = batch index of the i-th Change element; owned */
	size_t count;
	size_t records;   /**< ResourceRecord elements */
} dnsb_aws_body;

/** Where the aliases of a batch point: the provider's hosted zones and the batch's own (dnsb_aws_alias_zone). Borrowed. */
typedef struct dnsb_aws_targets {
	const dnsb_aws_zone *zones;
	size_t count;
	const char *current;  /**< id of the zone the batch goes to, or NULL */
} dnsb_aws_targets;

/**
 * Build the body: each change's DELETE (old RRset, its TTL from `held` when
 * DNSB_TTL_UNSET) before its CREATE, in batch order; never UPSERT. An alias
 * is an AliasTarget (HostedZoneId from dnsb_aws_alias_zone, DNSName,
 * EvaluateTargetHealth) without TTL or records; a DELETE repeats it as the
 * change's old RRset says, since Route53 deletes only an exact match.
 * @param targets  NULL when the batch holds no alias
 * @return 0; DNSB_EINVAL when an alias lies in no zone (dnsb_aws_alias_unplaced
 *         tells first); DNSB_ENOMEM
 */
int dnsb_aws_body_build(dnsb_aws_body *out, dnsb_change *const *changes, size_t n, const dnsb_rrset_list *held,
			const dnsb_aws_targets *targets, dnsb_error *err);
void dnsb_aws_body_clear(dnsb_aws_body *b);

/**
 * Decode Route53's escapes in a name (\ooo octal, "\052" = '*') and make it
 * canonical (absolute, lower-case).
 * @return a malloc'd name (the caller's), or NULL for an illegal name or ENOMEM
 */
char *dnsb_aws_name_decode(const char *name);

/**
 * Append the RRsets of a ListResourceRecordSets page to `out` (those at
 * `owner` when not NULL, of the types `keys` asks for when n > 0). An A or
 * AAAA set with an AliasTarget becomes an alias RRset: TTL DNSB_TTL_DEFAULT
 * (Route53 gives none; external-dns lists aliases with 300), rdata[0] the
 * DNSName made canonical, DNSB_ALIAS_HEALTH when EvaluateTargetHealth is
 * true. A set with a SetIdentifier (a routing policy) keeps it and its
 * routing elements (dnsb_aws_routing_read); aliases of other types are skipped.
 * @param next_name, next_type, next_id  receive the next page's start
 *        (malloc'd) or NULL when this was the last page
 * @param past  set to 1 when the page reached a name after `owner`
 * @return 0; DNSB_EPARSE; DNSB_ENOMEM
 */
int dnsb_aws_rrsets_parse(dnsb_rrset_list *out, const char *xml, size_t len, const char *owner, const dnsb_rrkey *keys,
			  size_t n, char **next_name, char **next_type, char **next_id, int *past, dnsb_error *err);

struct _xmlNode;

/**
 * routing.c: a set's SetIdentifier and its routing elements before TTL
 * (Weight, Region, GeoLocation, Failover, MultiValueAnswer: the model's
 * order) appended to a ResourceRecordSet element; nothing for a set without
 * identifier. @return 0 or DNSB_ENOMEM
 */
int dnsb_aws_routing_head(struct _xmlNode *set, const dnsb_rrset *r);

/**
 * routing.c: a set's HealthCheckId and GeoProximityLocation (AWSRegion,
 * LocalZoneGroup, Coordinates from "LATITUDE,LONGITUDE", Bias), after
 * ResourceRecords and AliasTarget. @return 0 or DNSB_ENOMEM
 */
int dnsb_aws_routing_tail(struct _xmlNode *set, const dnsb_rrset *r);

/**
 * routing.c: read a listed ResourceRecordSet element's SetIdentifier and
 * routing elements as dnsb_rrset.set_id and .routing (both malloc'd, the
 * caller's; NULL when the set has no identifier).
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_aws_routing_read(char **set_id, char **routing, const struct _xmlNode *set);

/**
 * Append the zones of a ListHostedZones page (filtered by type) to `zones`.
 * @param marker  receives NextMarker (malloc'd) or NULL
 * @return 0; DNSB_EPARSE; DNSB_ENOMEM
 */
int dnsb_aws_zones_parse(dnsb_aws_zone **zones, size_t *count, const char *xml, size_t len, dnsb_aws_zone_type type,
			 char **marker, dnsb_error *err);

/**
 * The text of the first element named `name` (local name, any namespace)
 * of an XML document.
 * @return a malloc'd string (the caller's), or NULL when absent, not XML, or ENOMEM
 */
char *dnsb_aws_xml_find(const char *xml, size_t len, const char *name);

/* ---- replies (reply.c) ---- */

/**
 * The class of a ChangeResourceRecordSets reply (docs/design.md §3.1): 2xx ok; 400
 * InvalidChangeBatch conflict when a message says a record exists, is not
 * found, does not match, or meets a CNAME, invalid otherwise, too_large for
 * the 1000-record limit; Throttling and PriorRequestNotComplete
 * rate_limited; 408 and 5xx transient, 413 too_large, 429 rate_limited (the
 * shared status map, dnsb_hb_status_class); AccessDenied, InvalidClientTokenId,
 * SignatureDoesNotMatch, ExpiredToken, NoSuchHostedZone and other
 * statuses fatal. Every message naming [name='...', type='...'] (or "RRSet
 * of type T with DNS name N") names its change, unless that name and type
 * belong to more than one change of the batch; a message about an alias
 * ("Tried to create an alias that targets N, type T in zone Z, but that
 * target was not found": a conflict; "... does not lie within the target
 * zone": invalid) names the one new alias of type T pointing at N.
 */
void dnsb_aws_classify(dnsb_result *res, const dnsb_http_response *resp, dnsb_change *const *changes, size_t n);

/** The error code of an XML error reply (<Code>), or "" (copied into code, `size` bytes). */
void dnsb_aws_error_code(char *code, size_t size, const char *xml, size_t len);

/** A failed read or list reply as a code: Throttling, 429: DNSB_ERATELIMIT; 408, 5xx: DNSB_ETRANSIENT; others DNSB_EFATAL. */
int dnsb_aws_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err);

/* ---- the provider ---- */

typedef struct dnsb_aws {
	dnsb_hb base;              /**< first: the skeleton's part (client, hosted zones; pace:
				        --aws-batch-change-interval between submissions). A signed GET
				        is dnsb_hb_get(&a->base, ...) */
	dnsb_aws_config cfg;
	dnsb_aws_creds creds;
	int creds_ready;
} dnsb_aws;

/**
 * --aws-wait-insync (insync.c): poll GetChange for the change a
 * ChangeResourceRecordSets reply names (ChangeInfo/Id) until Route53 says
 * INSYNC: the first poll after DNSB_AWS_INSYNC_FIRST seconds, then waits
 * doubling up to DNSB_AWS_INSYNC_CAP, as long as the next poll fits before
 * `give_up` (DNSB_AWS_INSYNC_MAX seconds from now when 0). 5xx, throttling
 * and network errors are polled through. When the time runs out, or GetChange
 * is refused (an IAM policy without route53:GetChange), one warning names
 * the change id and the seconds waited. The batch's outcome does not depend
 * on it: Route53 committed the change when it accepted it.
 * @param zone   the zone apex, for messages
 * @param reply  the ChangeResourceRecordSets reply's body (borrowed)
 * @return 1 when INSYNC, 0 when not known to be
 */
int dnsb_aws_wait_insync(dnsb_aws *a, const char *zone, const char *reply, size_t len, double give_up);

#endif
