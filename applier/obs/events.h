/*
 * events.h - internal: Kubernetes Events on the object that asked for a record
 * (docs/design.md §Events). When the sidecar drops, quarantines, holds back or
 * fails a change, an events.k8s.io/v1 Event goes to the object named by the
 * endpoint's labels.resource ("ingress/NS/NAME", "service/NS/NAME",
 * "gateway-httproute/NS/NAME", "crd/NS/NAME", ...), so that `kubectl describe`
 * shows what external-dns's own Events cannot: which record was given up, why,
 * and whose record is in the way.
 *
 * The apply thread only queues (dnsb_events_on_outcome, the engine's
 * on_outcome observer: no I/O, no wait; a full queue drops and counts). One background thread aggregates as client-go's
 * events.k8s.io EventRecorder does (the same reason on the same object and
 * record: one Event, its series.count patched), limits each object's new
 * Events (a token bucket: 25, then one per 5 minutes), reads each object's uid
 * (cached), and posts through applier/net/http.h. The API failing never reaches
 * an outcome or an answer: it is logged once per kind, counted in
 * dnsbatch_events_total{result} and retried within bounds.
 */
#ifndef DNSBATCH_OBS_EVENTS_H
#define DNSBATCH_OBS_EVENTS_H

#include <stddef.h>

#include "dnsbatch/common.h"
#include "dnsbatch/metrics.h"
#include "dnsbatch/plan.h"

/* The four reasons, as bits of dnsb_events_options.reasons. */
enum {
	DNSB_EVENT_DROPPED = 1,      /* RecordDropped: dropped, nothing held back (invalid, no_zone) */
	DNSB_EVENT_QUARANTINED = 2,  /* RecordQuarantined: dropped for a conflict; its group is now held back */
	DNSB_EVENT_HELD = 4,         /* RecordHeld: held back without a request, its group still quarantined */
	DNSB_EVENT_FAILED = 8,       /* RecordFailed: not applied for a retryable reason */
	DNSB_EVENT_ALL = 15
};

/* Where the API server is and how to reach it. Every string borrowed during dnsb_events_start (copied). */
typedef struct dnsb_events_options {
	unsigned reasons;           /* DNSB_EVENT_* bits; 0 = off (dnsb_events_start is not to be called) */
	const char *api_url;        /* "https://HOST:PORT"; NULL = in-cluster (KUBERNETES_SERVICE_HOST/PORT) */
	const char *ca_file;        /* PEM CA bundle; NULL = in-cluster's ca.crt (with api_url NULL) or the system's */
	const char *token_file;     /* bearer token, re-read when it changes; NULL = in-cluster's token */
	const char *instance;       /* reportingInstance; NULL = $POD_NAME, else the host name */
	double refresh;             /* seconds between patches of a running series' count (client-go: 1800) */
	size_t queue_max;           /* occurrences waiting for the thread at most (0 = 1024) */
} dnsb_events_options;

#define DNSB_EVENTS_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"
#define DNSB_EVENTS_OPTIONS_INIT { 0, NULL, NULL, NULL, NULL, 1800.0, 0 }

/* The recorder. Opaque. */
typedef struct dnsb_events dnsb_events;

/*
 * Parse an --events-emit list ("RecordDropped,RecordHeld").
 * @param out  receives the DNSB_EVENT_* bits
 * @return 0; DNSB_EINVAL naming the unknown reason
 */
int dnsb_events_parse_reasons(unsigned *out, const char *list, dnsb_error *err);

/*
 * Check the connection settings and start the background thread.
 * @param out      receives the recorder (the caller's; dnsb_events_stop)
 * @param metrics  borrowed for the recorder's life (dnsbatch_events_total), may be NULL
 * @return 0; DNSB_EINVAL when no API is named and the process is not in a
 *         cluster, or a file cannot be read (the message names it, never the
 *         token); DNSB_ENOMEM; DNSB_ERROR when the thread cannot start
 */
int dnsb_events_start(dnsb_events **out, const dnsb_events_options *opts, dnsb_metrics *metrics, dnsb_error *err);

/*
 * Post what is still owed (each series' latest count), for at most `seconds`,
 * then stop the thread and free. NULL is a no-op.
 */
void dnsb_events_stop(dnsb_events *ev, double seconds);

/*
 * The engine's observer of outcomes (dnsb_engine_options.on_outcome, with the
 * recorder as outcome_payload): queue an Event for `change` when the reasons
 * ask for its outcome and its endpoint names an object (labels.resource).
 * The engine calls it once per settled change of each apply (the sidecar sets
 * it on every apply's options; no global). Never blocks on the API: a full
 * queue leaves the Event out and counts it. `zone` is not used. A NULL
 * recorder is a no-op. Thread-safe.
 */
void dnsb_events_on_outcome(void *recorder, const char *zone, const dnsb_change *change);

/* metrics.c: count one recorder step in dnsbatch_events_total{result} (a static string). m may be NULL. */
void dnsb_metrics_event(dnsb_metrics *m, const char *result);

#endif
