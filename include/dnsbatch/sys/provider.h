/*
 * dnsbatch/sys/provider.h - the operations a provider backend implements.
 *
 * A backend (a folder or file in providers/, listed in providers/registry.c) turns a change batch into one atomic request to
 * its DNS service and turns the reply into one class (dnsb_class). The engine
 * acts on the class alone, never on a raw status code, so every
 * provider-specific rule (which HTTP status or DNS rcode is a conflict) lives
 * in the backend. Like libgit2's include/git2/sys/, this header is for
 * backend writers; users see dnsb_provider only through dnsbatch/provider.h.
 */
#ifndef DNSBATCH_SYS_PROVIDER_H
#define DNSBATCH_SYS_PROVIDER_H

#include <ldns/ldns.h>

#include "../change.h"
#include "../config.h"
#include "../provider.h"
#include "flag.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a submission's reply means to the engine (docs/design.md §3.1). */
typedef enum dnsb_class {
	DNSB_CLASS_OK = 0,            /**< the whole batch was committed */
	DNSB_CLASS_CONFLICT = 1,      /**< a change conflicts with current data; nothing committed */
	DNSB_CLASS_INVALID = 2,       /**< a record is invalid; nothing committed */
	DNSB_CLASS_TOO_LARGE = 3,     /**< the batch exceeds a provider limit; nothing committed */
	DNSB_CLASS_RATE_LIMITED = 4,  /**< slow down and resubmit the same batch */
	DNSB_CLASS_TRANSIENT = 5,     /**< may or may not have been committed; retry */
	DNSB_CLASS_FATAL = 6          /**< auth/authority failure: stop the zone */
} dnsb_class;

/** Name of a class as in metrics labels ("rate_limited"). */
const char *dnsb_class_name(dnsb_class cls);

/** At most this many culprits are kept per reply; later ones are not named (the engine splits instead). */
#define DNSB_RESULT_CULPRITS_MAX 256
/** Bytes of a reply's notes on its culprits (dnsb_result_add_culprit_note); later notes are left out. */
#define DNSB_RESULT_NOTES_SIZE 8192

/**
 * The provider's answer to one submission; written by the backend. A plain
 * value: it owns no memory, so it needs no freeing.
 */
typedef struct dnsb_result {
	dnsb_class cls;
	int status;          /**< HTTP status or DNS rcode (incl. TSIG error as rcode), 0 if none */
	char code[64];       /**< provider error code: "alreadyExists", "YXRRSET", "BADSIG"; "" if none */
	char message[512];   /**< provider message, one line, no secrets; "" if none */
	/** CONFLICT/INVALID: indexes into the submitted batch's changes (0-based, ascending
	 *  order not required, duplicates allowed) of the changes the reply names as failing:
	 *  Cloud DNS errors[] entries naming entity.change.additions[i], Route53's
	 *  "[name='...', type='...']" messages, an RFC 2136 prerequisite probe. Empty when
	 *  the reply names none. Only read when the provider declares names_culprit. */
	size_t culprits[DNSB_RESULT_CULPRITS_MAX];
	size_t culprit_count;
	/** What the reply says of culprits[i] alone, when it says something of each (a Route53
	 *  message, a Cloud DNS error, PowerDNS's pre-check finding): 1 + its offset in `notes`,
	 *  0 when none. Written by dnsb_result_add_culprit_note, read by dnsb_result_note; the
	 *  engine gives it, not `message`, to the change it drops. */
	uint16_t culprit_note[DNSB_RESULT_CULPRITS_MAX];
	char notes[DNSB_RESULT_NOTES_SIZE];  /**< NUL-terminated notes, one after another */
	size_t notes_used;
	double retry_after;  /**< RATE_LIMITED/TRANSIENT: seconds the provider asked to wait, < 0 if none */
	/** OK from an `unconditional` backend: RRsets the read-back after the write found holding a
	 *  value neither the batch wrote nor the pre-check read (another client wrote in the window
	 *  between them). The backend logs a `race` warning naming each; the engine counts them
	 *  (dnsbatch_overwrites_detected_total). 0 when none, or when the backend makes no read-back. */
	unsigned races;
} dnsb_result;

/** Reset a result to "ok, no detail" (no culprits, retry_after -1, no races). */
void dnsb_result_init(dnsb_result *res);

/**
 * Fill a result: class, status, code (copied, may be NULL) and a printf-style
 * message (truncated). The culprit list is left as it is. Returns nothing: a
 * backend calls it and returns 0.
 */
void dnsb_result_set(dnsb_result *res, dnsb_class cls, int status, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/**
 * For backends: a local failure met while submitting (a read made first, or
 * the request itself, that got no reply to classify) as the submission's
 * answer: DNSB_ETRANSIENT is class TRANSIENT, DNSB_ERATELIMIT RATE_LIMITED
 * (the rate budget had no slot: nothing was sent), DNSB_EFATAL and DNSB_EINVAL
 * FATAL, with the message "WHAT: e->message" and `status` (an HTTP status
 * when one came, else 0). Any other code (DNSB_ENOMEM) is a local error.
 * @return 0 when `out` holds the answer; else rc, with err set from e
 */
int dnsb_result_from_error(dnsb_result *out, int rc, int status, const char *what, const dnsb_error *e,
			   dnsb_error *err);

/**
 * Name the change at `index` of the submitted batch as a culprit. Past
 * DNSB_RESULT_CULPRITS_MAX names the call does nothing (the engine then finds
 * the rest by splitting).
 */
void dnsb_result_add_culprit(dnsb_result *res, size_t index);

/**
 * Name a culprit (as dnsb_result_add_culprit) with what the reply says of it
 * alone: one line (copied; control characters made spaces), so that its drop
 * says why it, not another change of the batch, was refused. A note that no
 * longer fits DNSB_RESULT_NOTES_SIZE is left out (the culprit is named).
 */
void dnsb_result_add_culprit_note(dnsb_result *res, size_t index, const char *note);

/**
 * The note on the change at `index` of the submitted batch (the first, when
 * it is named twice), or NULL when the reply gave none.
 * @return a string borrowed from res
 */
const char *dnsb_result_note(const dnsb_result *res, size_t index);

/**
 * Limits of one submission and what the backend's answers can prove, declared
 * by the backend with dnsb_provider_set_limits. 0 means no limit.
 * The engine never builds a batch beyond them (a single change group larger
 * than a limit is sent alone; an answer TOO_LARGE or INVALID to it drops the
 * group with reason invalid).
 */
typedef struct dnsb_provider_limits {
	size_t max_changes;      /**< changes per submission (rfc2136: --rfc2136-batch-change-size) */
	size_t max_additions;    /**< RRsets added per submission (Cloud DNS: 1000) */
	size_t max_deletions;    /**< RRsets deleted per submission (Cloud DNS: 1000) */
	size_t max_rdata_bytes;  /**< RDATA bytes per submission (Cloud DNS: 100000; RFC 2136: ~64 KiB message) */
	int names_culprit;       /**< 1 when refusals may fill dnsb_result.culprits */
	int ttl_inexact;         /**< 1 when the provider may store a TTL other than the one asked
				      (a minimum, a default): read-backs then compare RDATA only */
	int unconditional;       /**< 1 when the service's own writes are unconditional (PowerDNS: a
				      REPLACE overwrites, a DELETE of nothing succeeds) and the backend
				      checks the old data itself, in a read before the write: the two
				      are two requests, so only a later read proves what a write did.
				      The engine reads back after every transient answer whatever this
				      says; a verification after an OK is the caller's choice */
	int aliases;             /**< 1 when the service stores aliases (dnsb_alias: Route53's
				      AliasTarget); without it a change holding one is dropped
				      as invalid before anything is sent */
	/** With aliases, or NULL: would the service rather answer a CNAME to `target` (absolute,
	 *  lower-case) with an alias (Route53: an AWS load balancer, CloudFront)? The sidecar's
	 *  AdjustEndpoints then makes a desired CNAME without an `alias` property an A and an
	 *  AAAA alias, as external-dns's aws provider does (unless --aws-prefer-cname). */
	int (*alias_preferred)(const char *target);
	int alias_health;        /**< with aliases: 1 when an alias whose endpoint does not say
				      evaluates its target's health (DNSB_ALIAS_DEFAULT; external-dns's
				      --aws-evaluate-target-health, its default) */
	int set_ids;             /**< 1 when the service stores RRsets with a set identifier and
				      routing properties (dnsb_rrset.set_id, .routing: Route53's
				      routing policies); without it a change holding one is dropped
				      as invalid before anything is sent */
	size_t max_records;      /**< resource records (RDATA items) per submission, an update's old
				      and new ones both counted (Route53: 1000 ResourceRecord elements,
				      a DELETE and a CREATE each counted) */
	/** Or NULL: the service stores the provider properties of an RRset (the last ones of
	 *  DNSB_ROUTING_PROPERTIES: Cloudflare's proxied flag and comment), and this puts them in
	 *  its canonical form (defaults resolved). The engine applies it to every change's RRsets
	 *  before anything is compared or sent, the sidecar's AdjustEndpoints to every desired
	 *  endpoint; without it a change holding one is dropped as invalid */
	dnsb_rrset_props_fn properties;
	const void *properties_ctx;  /**< given to properties (the provider's state: it lives as long) */
} dnsb_provider_limits;

/** A dnsb_rrkey type asking for every RRset at the owner name (the QTYPE ANY of RFC 1035 §3.2.3). */
#define DNSB_RRKEY_ANY 255

/** The (owner, type) of an RRset to read back. Borrowed strings. */
typedef struct dnsb_rrkey {
	const char *owner;   /**< absolute, lower-case */
	uint16_t type;       /**< an RR type, or DNSB_RRKEY_ANY for every RRset at the owner */
} dnsb_rrkey;

/**
 * For backends that list and keep what a read asked for: do `keys` ask for
 * the RRset (owner, type), by its type or DNSB_RRKEY_ANY? With n == 0 every
 * RRset is wanted (a whole-zone listing).
 * @return 1 or 0
 */
int dnsb_rrkeys_want(const dnsb_rrkey *keys, size_t n, const char *owner, uint16_t type);

/**
 * For backends that read by listing one owner name at a time (Cloud DNS,
 * Route53): the distinct owner names of `keys`, in order, when there are at
 * most `max` of them (else the backend lists the whole zone).
 * @param owners  receives up to `max` owners, borrowed from keys
 * @return how many, or max + 1 when there are more
 */
size_t dnsb_rrkeys_owners(const dnsb_rrkey *keys, size_t n, const char **owners, size_t max);

/**
 * The one RR type `keys` ask for at `owner` (a listing can then be narrowed
 * to it), or 0 when they ask for several, or for DNSB_RRKEY_ANY.
 */
uint16_t dnsb_rrkeys_only_type(const dnsb_rrkey *keys, size_t n, const char *owner);

/**
 * For backends whose deletions must match the held RRset exactly, TTL
 * included (Cloud DNS, Route53): the keys of the batch's old RRsets sent
 * without a TTL (DNSB_TTL_UNSET), to read before sending; aliases, which have
 * no TTL, are left out.
 * @param keys   receives a malloc'd array (the caller frees it) whose owners
 *               are borrowed from the changes; NULL when *count is 0
 * @param count  receives how many
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_unset_ttl_keys(dnsb_rrkey **keys, size_t *count, dnsb_change *const *changes, size_t n);

/**
 * For the same backends: the TTL to send for an old RRset, its own or, when
 * it has none (DNSB_TTL_UNSET), the one `held` (what those keys read, may be
 * NULL) shows for it; DNSB_TTL_UNSET when neither says.
 * @return seconds
 */
uint32_t dnsb_old_ttl(const dnsb_rrset *old, const dnsb_rrset_list *held);

/** For backends: zero a string that holds a secret (a key, a token, a TSIG secret), then free it. NULL is a no-op. */
void dnsb_secret_free(char *secret);

/**
 * The one size limit of a secret or small credential file (a token, a
 * password, a TSIG secret or BIND key file, a service-account key, azure.json,
 * a web-identity token): 64 KiB. A larger file is refused by name, never cut.
 */
#define DNSB_SECRET_FILE_MAX (64u << 10)

/**
 * For backends: the one reader of a secret or small credential file (a
 * token, a password, a key file: DNSB_FLAG_SECRET_FILE flags read theirs
 * with it), its trailing
 * white space (the newline editors and `echo` leave) removed. The message of
 * an error names `what` and the path, never the content.
 * @param out   receives the secret (the caller's; dnsb_secret_free)
 * @param what  the flag or variable that named the file, for messages (borrowed)
 * @return 0; DNSB_ENOTFOUND (no such file), DNSB_EIO (unreadable, empty, or
 *         over DNSB_SECRET_FILE_MAX), DNSB_ENOMEM
 */
int dnsb_secret_read_file(char **out, const char *path, const char *what, dnsb_error *err);

/**
 * A backend's flush: start (`hold` 1) or end (`hold` 0) holding the commits
 * of `zone`. While held, OK batches of the zone may be kept in memory (reads
 * see them) until the matching call with `hold` 0, which writes what is held
 * before it returns. Holds nest: each hold 1 is matched by one hold 0, and
 * every hold 0 writes what is held so far.
 * @param timeout  seconds, as for submit (0 = none)
 * @return 0; for hold 0, when what was held could not be written, a negative
 *         code (DNSB_EIO, DNSB_ETRANSIENT) and none of it is committed (the
 *         zone reads as before the hold); for hold 1, a negative code (the
 *         zone busy: DNSB_ETRANSIENT) and nothing is held: each batch is then
 *         committed as it is answered; DNSB_ENOTFOUND for a zone the backend
 *         does not hold; DNSB_ENOMEM
 */
typedef int (*dnsb_provider_flush_fn)(void *state, const char *zone, int hold, double timeout, dnsb_error *err);

/**
 * The operations table. `state` is the backend's own handle
 * (dnsb_provider.state). Every op returns 0 when it obtained an answer (even
 * a failing one, for submit) and a negative DNSB_E* code, with `err` filled,
 * when it could not.
 */
typedef struct dnsb_provider_ops {
	unsigned version;   /**< DNSB_PROVIDER_OPS_VERSION */
	const char *name;   /**< the backend's name (dnsb_backend.name): "pdns" */

	/**
	 * Submit one batch to `zone` atomically: all changes or none.
	 * @param zone     absolute, lower-case zone apex (one of dnsb_provider.zones)
	 * @param changes  the batch, in order (borrowed; read only old/new_set/kind)
	 * @param n        number of changes, >= 1
	 * @param timeout  seconds this call may take, > 0, or 0 for no limit but the
	 *                 backend's own: the engine passes what is left before its
	 *                 deadline. When it runs out the backend stops waiting and
	 *                 answers TRANSIENT (the request may have been committed).
	 * @param out      the class and detail of the reply
	 * @return 0 when `out` holds the answer (any class); a negative code only
	 *         for a local failure that is not the provider's answer (ENOMEM).
	 *         Network failures are answers: class TRANSIENT.
	 */
	int (*submit)(void *state, const char *zone, dnsb_change *const *changes, size_t n, double timeout,
		      dnsb_result *out, dnsb_error *err);

	/**
	 * Read back the RRsets with the given keys that exist now. Missing ones
	 * are simply absent from `out`.
	 * @param timeout  seconds, as for submit; when it runs out: DNSB_ETRANSIENT
	 * @param out  RRsets appended (the list stays the caller's)
	 * @return 0; DNSB_ETRANSIENT (retryable), DNSB_EFATAL, DNSB_ENOMEM
	 */
	int (*read)(void *state, const char *zone, const dnsb_rrkey *keys, size_t n, double timeout,
		    dnsb_rrset_list *out, dnsb_error *err);

	/**
	 * List every RRset of the zone (AXFR, rrsets.list, ...).
	 * @param timeout  seconds, as for read (0 = none but the backend's own); when it runs out, or a
	 *                 throttle's wait does not fit in it: DNSB_ETRANSIENT or DNSB_ERATELIMIT
	 * @return as read
	 */
	int (*list)(void *state, const char *zone, double timeout, dnsb_rrset_list *out, dnsb_error *err);

	/** Release the backend state. Called once, by dnsb_provider_free. */
	void (*close)(void *state);

	/* ---- optional (version 4): NULL when the backend has none ---- */

	/**
	 * For backends whose commit is dear and cheap to defer (a zone file is
	 * rewritten whole per commit): the flush that writes what is held
	 * (dnsb_provider_flush_fn). The engine holds each zone while it runs the
	 * zone's batches and flushes it before it reports any outcome, so a
	 * change reported applied is committed. NULL: each commit is made as it
	 * is answered.
	 */
	dnsb_provider_flush_fn flush;

	/**
	 * The figures of the provider's rate budget (--rate-budget), for
	 * dnsb_provider_budget_stats.
	 * @param out  filled on 0
	 * @return 0, or DNSB_ENOTFOUND when this provider runs without one
	 */
	int (*budget)(void *state, dnsb_budget_stats *out);
} dnsb_provider_ops;

/* 2: dnsb_result carries a culprit list (was one hint); limits are declared with dnsb_provider_set_limits.
 * 3: submit and read take the time the engine has left (`timeout`).
 * 4: the optional flush and budget ops (were the setters dnsb_provider_set_deferred_commit and
 *    dnsb_provider_set_budget).
 * 5: list takes the time left (`timeout`), as read does. */
#define DNSB_PROVIDER_OPS_VERSION 5

/**
 * An ops table of this version, as libgit2's sys/ headers give each backend
 * struct an _INIT: the version stamped, then the name and the four
 * required operations; the optional ones (flush, budget) are left NULL (a
 * backend that has one names it after: DNSB_PROVIDER_OPS_INIT_ALL). An
 * operation a later version adds will be optional and left NULL by this
 * macro, so a backend that writes its table with it builds unchanged
 * against a newer header:
 *
 *     static const dnsb_provider_ops mine_ops =
 *             DNSB_PROVIDER_OPS_INIT("mine", mine_submit, mine_read, mine_list, mine_close);
 */
#define DNSB_PROVIDER_OPS_INIT(name, submit, read, list, close) \
	{ DNSB_PROVIDER_OPS_VERSION, (name), (submit), (read), (list), (close), NULL, NULL }

/** The same with the optional operations (each may be NULL). */
#define DNSB_PROVIDER_OPS_INIT_ALL(name, submit, read, list, close, flush, budget) \
	{ DNSB_PROVIDER_OPS_VERSION, (name), (submit), (read), (list), (close), (flush), (budget) }

/**
 * For backends: allocate a provider with the given ops and state; zones are
 * added with dnsb_provider_add_zone.
 * @param out  receives the provider (the caller's; free with dnsb_provider_free,
 *             which calls ops->close(state))
 * @return 0; DNSB_EINVAL when ops->version is not DNSB_PROVIDER_OPS_VERSION (a
 *         backend built against another version of this header); DNSB_ENOMEM.
 *         On an error ops->close is called on state.
 */
int dnsb_provider_alloc(dnsb_provider **out, const dnsb_provider_ops *ops, void *state);

/** For backends: declare the limits and capabilities (copied). Call before the provider is used. */
void dnsb_provider_set_limits(dnsb_provider *p, const dnsb_provider_limits *limits);



/**
 * For the engine: start (`hold` 1) or end (`hold` 0) holding the commits of
 * `zone` (dnsb_provider_flush_fn). A no-op answering 0 for a backend that
 * did not declare deferred commits.
 */
int dnsb_provider_flush(dnsb_provider *p, const char *zone, int hold, double timeout, dnsb_error *err);

/** What the backend declared (borrowed, valid while `p` lives). */
const dnsb_provider_limits *dnsb_provider_get_limits(const dnsb_provider *p);

/** The backend's own state given to dnsb_provider_alloc, when `p` runs on `ops`; else NULL. */
void *dnsb_provider_state(const dnsb_provider *p, const dnsb_provider_ops *ops);

/**
 * Add a zone apex (copied, made absolute and lower-case).
 * @return 0, DNSB_EINVAL for an illegal name, DNSB_ENOMEM
 */
int dnsb_provider_add_zone(dnsb_provider *p, const char *zone, dnsb_error *err);

/**
 * A backend's descriptor: all that the program and the library know of it.
 * The table of providers/registry.c lists every built-in backend's
 * descriptor, and nothing else lists backends: adding one is its folder and
 * one line there. Its flags (for the command line, --help, `dnsbatch help
 * --json` and its own parse) are one typed table (dnsbatch/sys/flag.h).
 */
typedef struct dnsb_backend {
	unsigned version;           /**< DNSB_BACKEND_VERSION */
	const char *name;           /**< "pdns": the --provider value and the flags' prefix */
	const char *summary;        /**< one line for --help */
	const dnsb_flag *flags;     /**< its own flags, ended by DNSB_FLAG_END */
	/** Flags it reads beside its own (the HTTP backends: the account's rate budget, dnsb_backend_shared_flags),
	 *  or NULL */
	const dnsb_flag *shared_flags;
	/**
	 * Build a provider from its configuration (on its ops, with its limits
	 * declared by dnsb_provider_set_limits).
	 * @return 0; DNSB_EINVAL for a missing or bad setting (the message names
	 *         the flag); DNSB_EIO, DNSB_ENOTFOUND for unreadable files;
	 *         DNSB_ENOMEM
	 */
	int (*open)(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err);
	/** The ops open builds its providers on (submit, read, list, close; the optional flush and budget):
	 *  dnsb_provider_open checks their version, and that the provider open returns runs on them */
	const dnsb_provider_ops *ops;
} dnsb_backend;

/* 1: the first versioned descriptor (typed flags, shared flags, ops). */
#define DNSB_BACKEND_VERSION 1

/**
 * A descriptor of this version: the version stamped, then name, summary,
 * flags, shared flags (or NULL), open and ops.
 */
#define DNSB_BACKEND_INIT(name, summary, flags, shared, open, ops) \
	{ DNSB_BACKEND_VERSION, (name), (summary), (flags), (shared), (open), (ops) }

/**
 * For backends: add one resource record read from the provider (an AXFR
 * answer, a zone file) to a list, merging it into the RRset of the same owner
 * and type when the list has one (the TTL of the last record wins). The owner
 * is lower-cased and the RDATA made canonical.
 * @param list  the list (the caller's)
 * @param rr    the record (borrowed; not modified)
 * @return 0, DNSB_EINVAL when ldns cannot print it back, DNSB_ENOMEM
 */
int dnsb_rrset_list_add_ldns_rr(dnsb_rrset_list *list, const ldns_rr *rr, dnsb_error *err);

/**
 * For backends whose API gives records as text (Cloud DNS rrdatas, PowerDNS
 * content, Route53 values): add one record "owner ttl IN type rdata", parsed
 * by ldns, to a list as dnsb_rrset_list_add_ldns_rr does.
 * @param ttl  seconds
 * @return 0; 1 when ldns cannot read the record (the caller skips it, a
 *         type this library does not model); DNSB_ENOMEM
 */
int dnsb_rrset_list_add_text(dnsb_rrset_list *list, const char *owner, long long ttl, const char *type,
			     const char *rdata);

/**
 * For backends: the records of an RRset as ldns records (owner, TTL, class IN,
 * type, each RDATA), appended to `out`.
 * @param out  an ldns list (the caller's; the new records are owned by it)
 * @return 0, DNSB_EINVAL when an RDATA does not parse, DNSB_ENOMEM
 */
int dnsb_rrset_to_ldns(ldns_rr_list *out, const dnsb_rrset *rrset, dnsb_error *err);

#ifdef __cplusplus
}
#endif
#endif
