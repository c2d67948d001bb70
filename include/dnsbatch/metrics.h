/*
 * dnsbatch/metrics.h - counters and gauges in the Prometheus text format.
 *
 * Series (docs/design.md §6.1), all thread-safe:
 *   dnsbatch_changes_total{zone,outcome}                         counter
 *   dnsbatch_dropped_changes_total{zone,record_type,reason,cause} counter
 *   dnsbatch_failed_changes_total{zone,record_type,reason}       counter
 *   dnsbatch_batches_total{zone,class}                           counter
 *   dnsbatch_provider_requests_total{provider,operation,class}   counter
 *   dnsbatch_provider_request_duration_seconds{provider,operation} histogram
 *   dnsbatch_retries_total{reason}                               counter
 *   dnsbatch_bisections_total{zone}                              counter
 *   dnsbatch_backoff_seconds_total                               counter
 *   dnsbatch_quarantined_groups                                  gauge
 *   dnsbatch_last_apply_timestamp_seconds                        gauge
 *   dnsbatch_last_apply_success, dnsbatch_last_apply_exit_code   gauge (once dnsb_metrics_set_exit is called)
 *   dnsbatch_overwrites_detected_total{zone}                     counter
 *   dnsbatch_held_changes{zone,kind}                             gauge
 * and the sidecar's own, printed only once it has recorded one (so a
 * one-shot --metrics-file holds none of them):
 *   dnsbatch_webhook_requests_total{route,method,code}           counter
 *   dnsbatch_webhook_request_duration_seconds{route}             histogram
 *   dnsbatch_webhook_ready                                       gauge
 *   dnsbatch_webhook_requests_in_flight                          gauge
 *   dnsbatch_webhook_applies_in_flight                           gauge
 * One renderer prints them all, for the one-shot file and for the sidecar's
 * /metrics. Series of a family come out sorted by label values; a family
 * without labels and without a sample prints 0. Output follows the text
 * exposition format 0.0.4 and passes `promtool check metrics`.
 */
#ifndef DNSBATCH_METRICS_H
#define DNSBATCH_METRICS_H

#include <stdio.h>

#include "change.h"
#include "provider.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The series above, in memory, behind one mutex. Opaque. */
typedef struct dnsb_metrics dnsb_metrics;

/**
 * A new, empty set of series.
 * @param out  receives it (the caller's; dnsb_metrics_free)
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_metrics_new(dnsb_metrics **out);
/** NULL is a no-op. */
void dnsb_metrics_free(dnsb_metrics *m);

/*
 * Recorders. Label values are copied. A NULL metrics handle is a no-op, so
 * callers need not check. Out of memory loses the sample, never crashes.
 */

/**
 * One change ended: counts changes_total{zone,outcome} and, when dropped or
 * failed, dropped/failed_changes_total{zone,record_type,reason}, in one
 * critical section (a scrape never sees one without the other).
 * @param zone    the zone apex, "" for a change in no zone (borrowed, copied)
 * @param change  its outcome, reason and RR type are read (borrowed)
 */
void dnsb_metrics_change(dnsb_metrics *m, const char *zone, const dnsb_change *change);
/** One batch submission answered with `cls` (a dnsb_class name). */
void dnsb_metrics_batch(dnsb_metrics *m, const char *zone, const char *cls);
/** One provider request: operation "submit", "read" or "list"; class name; seconds taken. */
void dnsb_metrics_request(dnsb_metrics *m, const char *provider, const char *operation,
			  const char *cls, double seconds);
/** One retry, reason "transient" or "rate_limited". */
void dnsb_metrics_retry(dnsb_metrics *m, const char *reason);
/** One refused part split while the engine isolates its culprits (dnsb_report.bisections). */
void dnsb_metrics_bisection(dnsb_metrics *m, const char *zone);
/** Time spent waiting before a resubmission, seconds; values <= 0 are ignored (a counter never goes down). */
void dnsb_metrics_backoff(dnsb_metrics *m, double seconds);
/** Set the held-changes gauge of one zone and kind ("create", "update", "delete"): the changes a safety
 *  threshold held in the zone's last apply (dnsbatch/threshold.h); 0 when none. Out of memory loses it. */
void dnsb_metrics_set_held(dnsb_metrics *m, const char *zone, const char *kind, size_t changes);
/** Set the quarantined-groups gauge. */
void dnsb_metrics_set_quarantined(dnsb_metrics *m, size_t groups);
/** Set the last-apply gauge, Unix seconds (wall clock). */
void dnsb_metrics_set_last_apply(dnsb_metrics *m, double unix_seconds);
/** A one-shot apply's end: its exit code (0-4, as `dnsbatch apply`), and success, 1 for 0 or 3 (nothing to fix or
 *  retry), else 0. The two series are printed only once this is called: the sidecar never calls it. */
void dnsb_metrics_set_exit(dnsb_metrics *m, int exit_code);
/**
 * The provider's rate budget figures (dnsb_provider_budget_stats), as they are
 * now: the dnsbatch_rate_budget_* series, printed only once this is called.
 * @param st  borrowed for the call
 */
void dnsb_metrics_set_budget(dnsb_metrics *m, const dnsb_budget_stats *st);
/**
 * RRsets of `zone` that the read-back after an accepted write to an
 * unconditional provider found holding what neither the batch wrote nor the
 * read before it showed (dnsb_result.races): another client wrote in the
 * window. 0 is a no-op.
 */
void dnsb_metrics_overwrites(dnsb_metrics *m, const char *zone, unsigned rrsets);

/**
 * The sidecar's own series, rendered by the same renderer as the engine's
 * (and only once the sidecar has recorded one, so one-shot metrics files
 * hold none of them): one answered request, counted in
 * dnsbatch_webhook_requests_total{route,method,code} and observed in the
 * histogram dnsbatch_webhook_request_duration_seconds{route}.
 * @param route    "/", "/records", "/adjustendpoints", "/healthz", "/metrics" or "other" (copied)
 * @param method   "GET", "POST" or "other" (copied)
 * @param code     the HTTP status answered
 * @param seconds  from the request's first byte to its reply
 */
void dnsb_metrics_webhook_request(dnsb_metrics *m, const char *route, const char *method, unsigned code,
				  double seconds);

/**
 * Set dnsbatch_conflicting_owner_groups{zone,foreign_owner} to the groups held
 * now: one per (zones[i], owners[i]) pair, counted; the family is replaced
 * whole. As external-dns's registry_skipped_records_owner_mismatch_per_sync.
 * @param zones   the zone of each held group (borrowed, copied)
 * @param owners  the external-dns owner of what is in its way, NULL = "none"
 * @param n       held groups
 */
void dnsb_metrics_set_owner_groups(dnsb_metrics *m, const char *const *zones, const char *const *owners, size_t n);

/**
 * Count endpoints of POST /adjustendpoints in
 * dnsbatch_webhook_adjusted_endpoints_total{reason}.
 * @param reason     "normalised" (rewritten to the form GET /records lists) or
 *                   "unsupported" (the provider cannot apply it: returned
 *                   unchanged, logged once per name) (copied)
 * @param endpoints  how many; 0 records nothing
 */
void dnsb_metrics_webhook_adjusted(dnsb_metrics *m, const char *reason, size_t endpoints);

/**
 * Count one GET /records answer larger than --max-body-size in
 * dnsbatch_webhook_oversized_replies_total: external-dns after v0.22 refuses
 * a body over its --webhook-provider-max-body-size (32 MiB by default).
 */
void dnsb_metrics_webhook_oversized(dnsb_metrics *m);

/** Set the sidecar's gauges: dnsbatch_webhook_ready (0/1), _requests_in_flight, _applies_in_flight. */
void dnsb_metrics_webhook_state(dnsb_metrics *m, int ready, unsigned inflight, unsigned applies);

/**
 * Write every series in the text format to `f` (borrowed) and flush it.
 * @param m  may be NULL: the families print with no series
 * @return 0 or DNSB_EIO
 */
int dnsb_metrics_write(dnsb_metrics *m, FILE *f);

/**
 * Render every series into a malloc'd NUL-terminated string.
 * @param out  receives the text (the caller's; free)
 * @param len  receives its length without the NUL; may be NULL
 * @param m    may be NULL, as for dnsb_metrics_write
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_metrics_render(char **out, size_t *len, dnsb_metrics *m);

/**
 * Write to `path` atomically (a temporary file beside it, fsync, rename),
 * as node_exporter's textfile collector expects.
 * @return 0 or DNSB_EIO (the message names the file)
 */
int dnsb_metrics_write_file(dnsb_metrics *m, const char *path, dnsb_error *err);

#ifdef __cplusplus
}
#endif
#endif
