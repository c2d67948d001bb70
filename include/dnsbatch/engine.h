/*
 * dnsbatch/engine.h - the batch engine.
 *
 * dnsb_engine_apply takes a parsed plan and a provider and gives every
 * change exactly one outcome (docs/design.md §3):
 *   map each change to the zone with the longest matching apex (none:
 *   dropped, reason no_zone); form change groups (same owner name, plus the
 *   ownership TXT records of the external-dns registry, labels.ownedRecord);
 *   cut each zone's groups into batches of at most batch_size groups and
 *   within the provider's declared limits; send each batch, in parts, and act
 *   on the class of each answer:
 *     ok            the part's changes are applied
 *     conflict,     the part is isolated: a culprit list in the reply is
 *     invalid       followed (until one proves wrong: then it costs one
 *                   request and lists are ignored for the rest of the batch);
 *                   else the part is binary-searched for its first culprit
 *                   and the rest goes back to the stream. Parts grow after a
 *                   success and shrink after a refusal (adaptive group
 *                   testing). A group is dropped only after its own refusal
 *                   or when a read-back shows why it was refused, and always
 *                   after a read-back: already in effect -> already_applied
 *     too_large     the part is split, no retry counted, and parts never grow
 *                   past that size again; a single group too large alone is
 *                   dropped with reason invalid
 *     rate_limited  wait (Retry-After as a floor, capped at 10 x backoff_cap
 *                   and by the deadline; else full-jitter backoff), the wait
 *                   shared by every batch and read to this provider; resubmit
 *     transient     resubmit, up to max_retries for the whole batch
 *     fatal         the zone stops: its remaining changes fail
 * After a transient answer a lost success reply may have committed the part,
 * so every exit that would call its changes dropped or failed reads them
 * back first; a read that fails leaves the truth unknown: failed, reason
 * transient, never a bisection. Whether a group is in effect is judged over
 * its whole desired final state, per owner name and type.
 * Backoff is full jitter: wait = U(0, min(cap, base * 2^attempt)) seconds.
 */
#ifndef DNSBATCH_ENGINE_H
#define DNSBATCH_ENGINE_H

#include <signal.h>

#include "clock.h"
#include "droplog.h"
#include "metrics.h"
#include "plan.h"
#include "provider.h"
#include "threshold.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Quarantine of change groups dropped for conflict (the sidecar's memory
 * across requests, docs/design.md §5.3): the changes of a group that conflicted are
 * not resubmitted while its backoff runs (initial, doubling up to max) and
 * end dropped/quarantined; changes of the group that were in effect beside
 * them are sent and proved again. It is reset when the group applies or
 * leaves the plan. Thread-safe. Opaque. A group is held by its content, so a
 * changed group is a new one.
 */
typedef struct dnsb_quarantine dnsb_quarantine;

/**
 * Create an empty quarantine.
 * @param out      receives it (the caller's; dnsb_quarantine_free)
 * @param initial  first backoff in seconds (DESIGN: 60)
 * @param max      cap in seconds (DESIGN: 3600)
 * @return 0, DNSB_EINVAL (initial <= 0 or max < initial), DNSB_ENOMEM
 */
int dnsb_quarantine_new(dnsb_quarantine **out, double initial, double max);
/** Free it and every entry. NULL is a no-op. */
void dnsb_quarantine_free(dnsb_quarantine *q);
/** Number of entries whose backoff has not run out at `now` (seconds on the engine's clock). */
size_t dnsb_quarantine_count(dnsb_quarantine *q, double now);

/**
 * The groups held now, newest first, as the sidecar's GET /quarantine shows
 * them: a JSON array of objects with "zone", "changes" (each {"kind",
 * "dnsName", "recordType"}), "cause", "owner" and "owner_resource" (when an
 * ownership record names one), "message" (the provider's), "first_seen",
 * "last_seen" and "next_retry" (RFC 3339, UTC), "attempts" and
 * "held_seconds" (the current hold).
 * @param now       the engine's clock (dnsb_engine_options.clock), seconds
 * @param wall_now  Unix seconds at `now`, to turn the hold's end into a date
 * @param out       receives the array (the caller's reference)
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_quarantine_list(dnsb_quarantine *q, double now, double wall_now, struct json_object **out);

/**
 * Where an apply is, for a progress display (dnsb_engine_options.on_progress).
 * Changes count as done once they have their outcome: those settled before
 * sending (no_zone, invalid, quarantined) at the start, the others batch by
 * batch.
 */
typedef struct dnsb_progress {
	size_t total;             /**< changes in the plan */
	size_t done;              /**< changes with an outcome */
	size_t applied;           /**< applied or already applied, so far */
	size_t dropped, failed;   /**< so far */
	unsigned long batches;    /**< batches started */
	unsigned long submissions;/**< requests sent (parts and resubmissions) */
	double elapsed;           /**< seconds since the apply began, on the engine's clock */
	int final;                /**< 1 on the last call of the apply (every change done, or stopped) */
} dnsb_progress;

/** Engine settings. Initialise with DNSB_ENGINE_OPTIONS_INIT. */
typedef struct dnsb_engine_options {
	unsigned version;
	size_t batch_size;             /**< change groups per batch (default 1000) */
	unsigned max_retries;          /**< resubmissions after transient errors, per batch (all its parts
					    together; default 5) */
	unsigned max_rate_limit_waits; /**< waits after rate limits, per batch (default 20) */
	double backoff_base;           /**< seconds (default 1) */
	double backoff_cap;            /**< seconds (default 60); a Retry-After is capped at 10 x this */
	double timeout;                /**< seconds for the whole apply, 0 = none; changes not
					    reached end failed with reason deadline */
	uint64_t seed;                 /**< jitter seed; 0 = seeded from the clock */
	const dnsb_clock *clock;       /**< borrowed; NULL = dnsb_clock_system(); its wall reading
					    stamps the drop log and the quarantine; another
					    DNSB_CLOCK_VERSION is bad options */
	int dry_run;                   /**< group and batch only: nothing sent, outcomes stay pending */
	dnsb_metrics *metrics;         /**< borrowed, may be NULL */
	dnsb_droplog *droplog;         /**< borrowed, may be NULL: dropped and failed changes */
	dnsb_quarantine *quarantine;   /**< borrowed, may be NULL (one-shot runs) */
	/** Called before each submission (every part and every resubmission of a batch, so
	 *  batch_no counts submissions), and in a dry run once per batch instead of sending.
	 *  `changes` are borrowed for the call. May be NULL. */
	void (*on_batch)(void *payload, const char *zone, unsigned long batch_no,
			 dnsb_change *const *changes, size_t n);
	void *payload;
	/** Absolute deadline on `clock` (seconds, as clock->now returns), 0 = none. With
	 *  `timeout` too, the earlier wins. One already past settles every pending change
	 *  failed/deadline without a request (the sidecar, when its zones stay busy). */
	double deadline;
	/** Called at the start, after each submission, after each batch and once at the end
	 *  (progress->final), with progress_payload; the progress is borrowed for the call. It
	 *  decides itself how often to show anything (progress->elapsed is on `clock`). Not
	 *  called in a dry run. May be NULL. */
	void (*on_progress)(void *progress_payload, const dnsb_progress *progress);
	void *progress_payload;
	/** Borrowed, may be NULL. Once *stop is non-zero (a signal handler sets it), no new
	 *  batch starts: the batch in flight is finished (its retries and read-backs too),
	 *  and every change not yet sent ends failed, reason deadline, its message saying the
	 *  apply was stopped. */
	const volatile sig_atomic_t *stop;
	/** Called once for each settled change, with its final outcome: after every zone ran,
	 *  before dnsb_engine_apply returns, in plan order, alongside the report, metrics and
	 *  drop log (a change the plan itself dropped as invalid too). `zone` is its zone's
	 *  apex ("" for none); both are borrowed for the call. Not called for a change still
	 *  pending (a dry run). The one place to hang a notification on outcomes (the
	 *  sidecar's Kubernetes Events). May be NULL. */
	void (*on_outcome)(void *outcome_payload, const char *zone, const dnsb_change *change);
	void *outcome_payload;
	/** Borrowed, may be NULL (no thresholds): the safety thresholds (dnsbatch/threshold.h), judged per zone
	 *  before anything is sent; held changes end failed, reason held. Not in a dry run. */
	const dnsb_thresholds *thresholds;
	/** 1: a preview (`dnsbatch plan`, issue 33 §1): nothing is written. The thresholds are judged, then each
	 *  zone's groups are read back, one read per batch of batch_size groups, and each change gets the outcome
	 *  apply would give it now: applied (it would apply), already_applied, dropped/conflict with its diagnosis
	 *  (cause, what is held), failed/held, failed/transient when the read failed; invalid and no_zone as
	 *  apply. No log line per change, no drop log, no quarantine. */
	int preview;
	/** With preview: receives the hex SHA-256 of the RRsets the preview read (65 bytes, the caller's; "" when
	 *  nothing was read or on error), the live state the prediction rests on. May be NULL. */
	char *live_digest;
	/** For the safety thresholds' count (before a zone's RRsets are listed to count them): returns 1 with
	 *  *rrsets set when a listing recent enough to stand for that count is known, else 0 and the zone is listed
	 *  (the sidecar: the listing GET /records made earlier in the same external-dns loop, docs/sidecar.md).
	 *  `zone` is the apex (borrowed for the call), `now` on `clock`. Only that count comes from it, never an
	 *  outcome: every read-back still asks the provider. May be NULL (the zone is listed). */
	int (*recent_count)(void *recent_payload, const char *zone, double now, size_t *rrsets);
	void *recent_payload;
} dnsb_engine_options;

#define DNSB_ENGINE_OPTIONS_VERSION 1
#define DNSB_ENGINE_OPTIONS_INIT \
	{ DNSB_ENGINE_OPTIONS_VERSION, 1000, 5, 20, 1.0, 60.0, 0.0, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0.0, \
	  NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL }

/**
 * Figures of one zone. submissions count every request sent (parts and
 * resubmissions), reads every read-back, bisections every refused part of
 * more than one group that had to be isolated.
 */
typedef struct dnsb_zone_report {
	char *zone;                   /**< apex; owned by the report; "" for changes with no zone */
	size_t changes, applied, already_applied, dropped, failed;
	unsigned long batches, submissions, reads, bisections;
} dnsb_zone_report;

/** Figures of one apply. Owned by the caller; release with dnsb_report_clear. */
typedef struct dnsb_report {
	size_t changes, applied, already_applied, dropped, failed;
	unsigned long batches, submissions, reads, retries, bisections;
	double backoff_seconds;       /**< total time spent waiting, seconds */
	dnsb_zone_report *zones;      /**< one per zone touched, in first-seen order; owned */
	size_t zone_count;
	size_t held;                  /**< of the failed, those held by a safety threshold (reason held) */
} dnsb_report;

/** Free what a report owns and zero it. NULL is a no-op. */
void dnsb_report_clear(dnsb_report *report);

/**
 * Apply a plan.
 *
 * Changes whose outcome is already set (invalid records found by the
 * parser) keep it and are only counted. Every other change leaves with
 * exactly one outcome; dropped and failed ones go to the drop log.
 *
 * @param out   receives the figures (the caller's; dnsb_report_clear)
 * @param p     the provider (borrowed; may be shared between threads)
 * @param plan  the plan (borrowed; its changes' outcomes are written)
 * @param opts  settings (borrowed), NULL for the defaults
 * @param err   detail of a returned error
 * @return 0 when every change got an outcome (even dropped or failed ones);
 *         DNSB_EINVAL for bad options, before anything is looked at (every
 *         change stays pending and `out` is zero); DNSB_ENOMEM; DNSB_EIO when
 *         the drop log cannot be written. On DNSB_ENOMEM or DNSB_EIO, changes
 *         still pending are marked failed so that nothing is silently lost.
 */
int dnsb_engine_apply(dnsb_report *out, dnsb_provider *p, dnsb_plan *plan,
		      const dnsb_engine_options *opts, dnsb_error *err);

/**
 * Settle a plan whose provider could not be opened for a transient reason
 * (dnsb_provider_open returned DNSB_ETRANSIENT: a 5xx, a refused connection
 * or a timeout on the first read), told as dnsb_engine_apply tells an apply.
 *
 * Nothing is sent, so nothing is claimed: a group holding a change the
 * parser found invalid is dropped whole (reason invalid), as the engine drops
 * it before sending; every other change ends failed, reason transient
 * (retryable: the same plan may be applied again), its message "not sent:
 * the provider could not be opened: WHY". No zone is known: every change
 * counts under the zone "". Each change is told once, from its final
 * outcome, as an apply tells it: `out`, opts->metrics, opts->droplog (the
 * failed lines bounded per reason as an apply's), opts->on_outcome and the
 * log; the metrics' last apply time is set. No on_batch, no on_progress.
 *
 * @param out   receives the figures (the caller's; dnsb_report_clear)
 * @param plan  the plan (borrowed; its changes' outcomes are written)
 * @param why   why the provider could not be opened (borrowed; copied into
 *              each change's message); NULL or "" = "unknown"
 * @param opts  settings (borrowed), NULL for the defaults; of them this reads
 *              the clock, metrics, droplog and on_outcome
 * @param err   detail of a returned error
 * @return 0 when every change got its outcome; DNSB_EINVAL for bad options
 *         (as dnsb_engine_apply judges them) or a dry run or preview in them
 *         (they need a provider), before anything is looked at (every change
 *         stays pending and `out` is zero); DNSB_ENOMEM; DNSB_EIO when the
 *         drop log cannot be written. On DNSB_ENOMEM or DNSB_EIO too, every
 *         change has its outcome (failed when no other could be given).
 */
int dnsb_engine_fail_unopened(dnsb_report *out, dnsb_plan *plan, const char *why,
			      const dnsb_engine_options *opts, dnsb_error *err);

#ifdef __cplusplus
}
#endif
#endif
