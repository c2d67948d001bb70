/*
 * internal.h - the engine's state, shared by the files of applier/engine/.
 *
 * The pipeline, one file a stage: zones.c maps changes to zones, group.c
 * forms change groups, batch.c cuts batches, isolate.c runs a batch and
 * isolates the groups it refuses, submit.c sends one submission, retry.c
 * decides waits, verify.c reads back and judges, outcome.c settles changes
 * and tallies, held.c applies the quarantine; engine.c orchestrates and
 * state.c holds the accessors of the engine's state. unopened.c is the
 * other door: a plan whose provider could not be opened, settled and told
 * by the same group, outcome and tally stages without a provider.
 *
 * Calls run one way, down the pipeline: unopened.c calls engine.c (its
 * options check) and the stages it needs; engine.c calls the stages; zones,
 * group, held, batch, isolate, settle, submit, verify (with retry and
 * diagnose), outcome (with summary) each call only stages after them, and
 * all of them read the engine's state through state.c, which calls none.
 * scripts/engine-calls.sh checks it.
 */
#ifndef DNSBATCH_ENGINE_INTERNAL_H
#define DNSBATCH_ENGINE_INTERNAL_H

#include "dnsbatch/engine.h"
#include "dnsbatch/log.h"
#include "dnsbatch/sys/provider.h"

/* A change group: changes that land or drop together (docs/design.md §2.1). */
typedef struct group {
	dnsb_change **changes;   /* deletions, then updates, then creations; a slice of one block that holds every
				  * group's list (dnsb_engine_make_groups), freed whole by dnsb_engine_free_groups */
	size_t count;
	size_t zone;
	size_t id;               /* its index in the engine's group array */
	char *key;               /* content key, for the quarantine; NULL without one */
	dnsb_droplog_quarantine qevent; /* what the quarantine did to it in this apply (held.c), for the logs */
	unsigned long qmask;     /* the changes qevent concerns, as held.c masks them */
	double held_for;         /* seconds: the hold set, with qevent start or again */
	int lost_reply;          /* submit.c: a submission holding it met a transient answer, which may have
				  * hidden a commit of it (settle.c: part of it in effect may be this run's own) */
	int deferred;            /* settle.c: waiting for the batched read that settles it: 1 refused on its own,
				  * 2 found by elimination, 3 named by a reply (a culprit list not yet proven) */
	const dnsb_change *refused;  /* diagnose.c: the change whose refusal drops the group, NULL when none is known */
	unsigned long with_group;    /* diagnose.c: changes (bit k: changes[k], k < 64) with nothing in their own way,
				      * dropped only with their group: their message names `refused` */
} group;

typedef struct engine {
	dnsb_provider *p;
	const dnsb_engine_options *o;
	const dnsb_provider_limits *limits;
	const dnsb_clock *clock;
	uint64_t rng;
	double deadline;             /* clock seconds; 0 = none */
	dnsb_report *rep;
	size_t zone_count;           /* the provider's zones; index zone_count = no zone */
	long *zone_slot;             /* zone index -> rep->zones index, -1 unseen */
	int *zone_stopped;           /* a fatal answer stopped the zone */
	char **zone_stop_message;
	unsigned long batch_no;
	dnsb_error *err;
	int rc;                      /* first local error (ENOMEM), kept to return */
	unsigned long qtoken;        /* this apply's quarantine token */
	group *groups;               /* the change groups (c->group indexes them), NULL before they are formed */
	size_t ngroups;
	unsigned char *quiet;        /* per plan change: a drop logged by an earlier apply (held.c); may be NULL */
	dnsb_plan *plan;             /* the plan being applied (borrowed) */
	int quarantine_on;           /* the quarantine decides this apply's drop-log lines after every zone ran */
	unsigned char *recorded;     /* outcome.c, per plan change: its drop-log line written before its zone's
				      * commit (dnsb_engine_record_zone); NULL when none was */
	size_t unsent;               /* outcome.c: changes failed unsent after a stop, told in one line */
	double started;              /* clock seconds when the apply began */
	dnsb_progress progress;      /* progress.c: what on_progress is told */
	size_t hint_trust;           /* settle.c: groups a culprit list may name before a read proves them (0: read
				      * the first at once; doubles each time a read proves every name right) */
} engine;

/* One batch as cut from a zone, while it is being run: its budget is the batch's, not a part's. */
typedef struct batch_run {
	engine *e;
	group **gs;
	size_t n;
	unsigned transient;      /* transient answers so far */
	unsigned limited;        /* rate-limit waits so far */
	int saw_transient;       /* a transient answer may have hidden a commit */
	int suspect;             /* the part last sent met a transient answer */
	int hints_on;            /* culprit lists are followed until one proves wrong */
	int over;                /* settled whole: retries, waits or the deadline ran out, or the zone stopped */
	size_t chunk;            /* groups in the next submission (adaptive) */
	size_t chunk_cap;        /* after too_large: never grow past it; 0 = none */
	group **refused;         /* refused on their own, settled together by one read (isolate.c) */
	size_t nrefused, refused_cap;
	size_t nnamed;           /* of them, named by a reply and not yet proven (deferred 3) */
	int no_defer;            /* the group being settled is a temporary one: settle it at once */
	dnsb_change **upgraded;  /* registry format upgrades sent as creates (noop.c), made updates again at the end */
	size_t nupgraded, upgraded_cap;
} batch_run;

/* What a submission came to, for the isolation loop. */
typedef enum sent {
	SENT_OK,          /* applied */
	SENT_REFUSED,     /* conflict or invalid: nothing committed, `res` says which changes */
	SENT_TOO_LARGE,   /* split it */
	SENT_OVER         /* the run is over (br->over): every unsettled group of the batch has an outcome */
} sent;

/* What a read-back says (docs/design.md §3.3: three values). */
typedef enum verdict { NOT_IN_EFFECT = 0, IN_EFFECT = 1, UNKNOWN = -1 } verdict;

/* Groups up to this size are held by the quarantine under every subset of conflicting changes; larger ones
 * only whole (held.c). */
#define DNSB_ENGINE_MASK_BITS 6

/* engine.c: are these options good (version, clock, batch size, backoff, timeout)? @return 0 or DNSB_EINVAL, err
 * filled */
int dnsb_engine_check_options(const dnsb_engine_options *o, dnsb_error *err);

/* state.c: the engine's state, read by every stage; it calls no other engine file. */
/* The engine's clock, in seconds. */
double dnsb_engine_now(engine *e);
/* Seconds left before the deadline for one provider call (> 0), or 0 without a deadline. */
double dnsb_engine_time_left(engine *e);
/* The apex of zone index `zone`, or "" for the slot of changes in no zone (borrowed from the provider). */
const char *dnsb_engine_zone_name(const engine *e, size_t zone);
/* The report's entry for `zone`, added on first use (e->rc = DNSB_ENOMEM when its name cannot be copied). */
dnsb_zone_report *dnsb_engine_zone_report(engine *e, size_t zone);
/* Set c's provider detail: status, code and message (copied; NULL or "" = none).
 * @return 0, or DNSB_ENOMEM when a copy failed (that part is NULL) */
int dnsb_engine_set_detail(dnsb_change *c, int status, const char *code, const char *message);
/* The owner name a change concerns (its old RRset's for a deletion), borrowed; may be NULL. */
const char *dnsb_change_owner(const dnsb_change *c);
/* @return 1 when some change of g is still pending, else 0 */
int dnsb_engine_group_open(const group *g);
/* Is change k of g among those `mask` names (a mask of held.c)? @return 1 or 0 */
int dnsb_engine_in_mask(const group *g, size_t k, unsigned long mask);

/*
 * outcome.c: the one writer of a change's outcome (issue 32 §4; tests/integration/test_outcome_writer.sh fails on
 * another). Every settlement of the engine comes here: c gets `outcome`, `reason` and the detail (status, code,
 * message: copied, NULL or "" = none). DNSB_OUTCOME_PENDING takes a settlement back, for a caller that settles c
 * again at once (settle.c). A rule for every outcome goes here; what is told of an outcome (report, metrics, logs,
 * the drop log, dnsb_engine_options.on_outcome) is told once per change by dnsb_engine_tally, from the final one.
 * `e` may be NULL (a parallel pass, which keeps the error itself).
 * @return 0, or DNSB_ENOMEM when the detail could not be copied (e->rc set and e->err filled when e is given)
 */
int dnsb_engine_settle_change(engine *e, dnsb_change *c, dnsb_outcome outcome, dnsb_reason reason, int status,
			      const char *code, const char *message);
/* Settle every change of g still pending (dnsb_engine_settle_change); changes settled apart keep their outcome. */
void dnsb_engine_finish(engine *e, group *g, dnsb_outcome outcome, dnsb_reason reason, const dnsb_result *res,
			const char *message);
void dnsb_engine_tally(engine *e, dnsb_plan *plan);
/* The drop-log lines of the changes of `zone` dropped so far, written and synced before the commit that settles
 * the zone (a provider that defers its commits): on disk before the zone changes, and not written again by the
 * tally. Not with the quarantine, which decides the lines after every zone ran. @return 0, or DNSB_EIO or
 * DNSB_ENOMEM (e->rc set, dnsb_engine_droplog_failed) when the drop log could not be written or synced */
int dnsb_engine_record_zone(engine *e, size_t zone);
/* A drop-log write returned rc < 0: the apply's error (the first kept), DNSB_ENOMEM when the line could not be made,
 * else DNSB_EIO. */
void dnsb_engine_droplog_failed(engine *e, int rc);
void dnsb_engine_fail_pending(engine *e, dnsb_plan *plan, int rc);

/* zones.c */
void dnsb_engine_map_zones(engine *e, dnsb_plan *plan);

/* threshold.c: the safety thresholds (dnsbatch/threshold.h) of every zone with pending changes, once the groups
 * are formed and before anything is sent: the groups to hold end failed/held, unless released (e->rc set out of
 * memory). Nothing without e->o->thresholds, nor in a dry run. */
void dnsb_engine_hold_thresholds(engine *e, group *groups, size_t ngroups);

/* group.c: the plan's change groups (docs/design.md §2.1), in order of first appearance, into *out (*ngroups of
 * them; free with dnsb_engine_free_groups, also after an error). @return 0 or DNSB_ENOMEM */
int dnsb_engine_make_groups(dnsb_plan *plan, size_t zone_count, group **out, size_t *ngroups);
void dnsb_engine_drop_invalid_groups(engine *e, group *groups, size_t n);
/* g->key, g's content key for the quarantine. @return 0, or DNSB_ENOMEM (g->key NULL) */
int dnsb_engine_group_key(group *g);
/* The content key of each group (dnsb_engine_group_key), before the quarantine is asked.
 * @return 0, or DNSB_ENOMEM (a group without a key is neither held nor released) */
int dnsb_engine_group_keys(group *groups, size_t n);
/* Free the groups, their keys and the block of their change lists (not the changes). */
void dnsb_engine_free_groups(group *groups, size_t n);

/* preview.c: with options.preview, every pending group gets the outcome apply would give it now, by one read per
 * batch (dnsb_engine_options.preview); options.live_digest receives the digest of what was read. */
void dnsb_engine_preview(engine *e, group *groups, size_t ngroups);

/* batch.c */
void dnsb_engine_run_zone(engine *e, group **gs, size_t n);

/* isolate.c */
void dnsb_engine_run_batch(engine *e, group **gs, size_t n);

/* submit.c */
sent dnsb_engine_send(batch_run *br, group **gs, size_t n, dnsb_result *res);
size_t dnsb_engine_flatten(group **gs, size_t n, dnsb_change ***out);
void dnsb_engine_end_run(batch_run *br, dnsb_reason reason, const dnsb_result *res, const char *message);

/* retry.c */
double dnsb_engine_retry_wait(batch_run *br, const dnsb_result *res, dnsb_reason *give_up);
/* Sleep on the engine's clock (counted as backoff). @return 1 when a stop was asked by its end, of the apply
 * (options.stop) or of the process (dnsb_stop_request: the system clock's sleep ends at once then), so the
 * caller sends nothing more; else 0; 0 when there was nothing to wait */
int dnsb_engine_wait(engine *e, double seconds);
double dnsb_engine_pacing_wait(engine *e);
void dnsb_engine_pacing_hold(engine *e, double seconds);

/* settle.c: send g on its own. @return 1 when it applied */
int dnsb_engine_try_alone(batch_run *br, group *g);
/* settle.c: the changes of g in effect per `held` end already_applied, the rest is sent on its own. @return 1 when
 * some were in effect (g is settled), 0 when none */
int dnsb_engine_settle_partial(batch_run *br, group *g, const dnsb_rrset_list *held);
/* settle.c: g holds registry format upgrades by `held` (noop.c): sent on its own with them as creates.
 * @return 1 when it did (g is settled), 0 when it holds none */
int dnsb_engine_settle_upgrade(batch_run *br, group *g, const dnsb_rrset_list *held);
/* settle.c: one group a refusal points at, refused on its own (`alone`) or found by elimination: kept for the
 * batch's read of the refused groups, or settled at once when that cannot wait (br->no_defer, an invalid answer) */
void dnsb_engine_settle_lone(batch_run *br, group *g, const dnsb_result *res, int alone);
/* settle.c: settle the groups kept by dnsb_engine_settle_lone, by one read. */
void dnsb_engine_settle_refused(batch_run *br);
/* settle.c: g, named by a conflict's culprit list (what the reply says of it: `note`, or NULL), kept for the
 * batch's read like a group found by elimination (the caller reads at once when br->nnamed passes
 * e->hint_trust). @return 1 when kept, 0 when it cannot wait (out of memory: the caller settles it) */
int dnsb_engine_defer_named(batch_run *br, group *g, const dnsb_result *res, const char *note);

/* verify.c */
int dnsb_engine_read_back(engine *e, group **gs, size_t n, int diagnose, dnsb_rrset_list *held, dnsb_error *rerr);
int dnsb_engine_group_in_effect(const engine *e, const group *g, const dnsb_rrset_list *held);
int dnsb_engine_change_in_effect(const engine *e, const group *g, const dnsb_change *c, const dnsb_rrset_list *held);
int dnsb_engine_cause_shown(const engine *e, const group *g, const dnsb_rrset_list *held);
verdict dnsb_engine_verify(engine *e, group **gs, size_t n, verdict *each, dnsb_error *rerr);
void dnsb_engine_settle_verified(engine *e, group **gs, size_t n, const verdict *each, const dnsb_result *res);

/* noop.c: is c an update whose old and new RRsets hold the same data? `strict`: the same TTL too (an old
 * TTL left unset matches any, so only a read proves that one). @return 1 or 0 */
int dnsb_engine_change_noop(const dnsb_change *c, int strict);
/* noop.c: is c the TXT registry's format upgrade by `held`: an ownership TXT update whose old RRset is
 * absent while the record it owns is as g expects? @return 1 or 0 */
int dnsb_engine_registry_upgrade(const engine *e, const group *g, const dnsb_change *c, const dnsb_rrset_list *held);
/* noop.c: send g's registry upgrades as creates until the batch ends. @return how many */
size_t dnsb_engine_upgrade_group(batch_run *br, group *g, const dnsb_rrset_list *held);
/* noop.c: at the batch's end, the upgrades are updates again (as the plan and the drop log know them). */
void dnsb_engine_restore_upgraded(batch_run *br);
/* noop.c: before a batch is sent, its groups of no-op updates are proved by one read, not written. */
void dnsb_engine_prove_noops(batch_run *br);

/* held.c; the quarantine's start and end are logged by outcome.c */
/* Drop the held changes of keyed groups (dnsb_engine_group_keys) before sending; groups without a key are sent. */
void dnsb_engine_hold_back(engine *e, group *groups, size_t n);
void dnsb_engine_release_held(engine *e, dnsb_plan *plan, group *groups, size_t n);

/* The message of a change never sent because a stop was asked (batch.c); outcome.c sums these up in one line. */
#define DNSB_ENGINE_STOPPED_MESSAGE "not sent: the apply was stopped before this change's batch began"
#define DNSB_ENGINE_STOPPED_WAIT_MESSAGE "the apply was stopped (a signal) while this change's batch waited to be sent or retried"

/* progress.c: on_progress at the start (changes settled before sending), around each batch (before: its
 * changes' outcomes taken out, after: put back, told), and at the end from the report; and the stop asked */
void dnsb_engine_progress_start(engine *e, dnsb_plan *plan);
void dnsb_engine_progress_before(engine *e, group **gs, size_t n);
void dnsb_engine_progress_after(engine *e, group **gs, size_t n);
void dnsb_engine_progress_tell(engine *e, int final);
void dnsb_engine_progress_final(engine *e);
/* @return 1 when dnsb_engine_options.stop asks the apply to stop, else 0 */
int dnsb_engine_stop_asked(const engine *e);

/*
 * summary.c: a tally of changes that share a fate, for one log line however many they are: their count, the
 * details that tell them apart (the first DNSB_TALLY_DETAILS named and counted, the rest counted together; each
 * cut to DNSB_TALLY_TEXT bytes) and the first DNSB_TALLY_EXAMPLES examples. Zeroed is empty.
 */
#define DNSB_TALLY_DETAILS 4
#define DNSB_TALLY_EXAMPLES 3
#define DNSB_TALLY_TEXT 200
typedef struct tally {
	size_t count;
	char *details[DNSB_TALLY_DETAILS];     /* owned */
	size_t detail_count[DNSB_TALLY_DETAILS], ndetails;
	size_t other;                          /* changes whose detail is not among details[] */
	char *examples[DNSB_TALLY_EXAMPLES];   /* owned */
	size_t nexamples;
} tally;
/* Count one change: `detail` (copied, cut) and `example` (copied; NULL when the caller has made enough). */
void dnsb_tally_add(tally *t, const char *detail, const char *example);
/* Append "(DETAIL: N; ...; other: N; e.g. A, B, C, ...)" to line[*len..size), *len moved on (past size when cut). */
void dnsb_tally_print(char *line, size_t size, size_t *len, const tally *t);
/* Free what t holds. */
void dnsb_tally_clear(tally *t);

/* summary.c: drops decided before sending (invalid, no_zone), one log line per reason for the whole apply. */
typedef struct drop_summary drop_summary;
/* @return 1 when drops of this reason are summed up rather than logged one by one, else 0 */
int dnsb_engine_summed(dnsb_reason reason);
/* @return an empty summary, or NULL (ENOMEM: the caller logs change by change) */
drop_summary *dnsb_engine_summary_new(void);
/* Count c (dropped, reason summed) under its reason and what was wrong with it. */
void dnsb_engine_summary_add(drop_summary *s, const dnsb_change *c);
/* Log one line per reason counted, then free s. NULL is a no-op. */
void dnsb_engine_summary_log(drop_summary *s);

/* failed_sum.c: failed changes, one log line per zone and reason for the whole apply, and at most this many
 * drop-log lines per zone and reason, then one line counting the rest (dnsb_droplog_write_omitted). */
#define DNSB_FAILED_DROPLOG_MAX 1000
typedef struct failed_sums failed_sums;
/* @return an empty tally, or NULL (ENOMEM: the caller tells change by change) */
failed_sums *dnsb_engine_failed_new(void);
/* Count c (failed) under its zone (borrowed, kept until dnsb_engine_failed_log) and reason.
 * @return 1 when c still gets a drop-log line of its own, 0 when it is only counted */
int dnsb_engine_failed_add(failed_sums *s, const char *zone, const dnsb_change *c);
/* Log one line per zone and reason, write the drop log's line for those left out of it, free s.
 * NULL is a no-op. @return 0, DNSB_EIO when the drop log could not be written, or DNSB_ENOMEM when its line could
 * not be made */
int dnsb_engine_failed_log(failed_sums *s, dnsb_droplog *log, double wall);

#endif
