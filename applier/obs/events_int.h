/*
 * events_int.h - internal to the Events recorder (events*.c): the API client,
 * the object references and their uid cache, the Event an outcome makes.
 */
#ifndef DNSBATCH_OBS_EVENTS_INT_H
#define DNSBATCH_OBS_EVENTS_INT_H

#include <pthread.h>
#include <stddef.h>

#include <json-c/json.h>

#include "applier/obs/events.h"
#include "dnsbatch/change.h"

/* ---- events_client.c ---- */

/* A connection to the API server (thread-compatible: one thread uses it). Opaque. */
typedef struct dnsb_k8s_client dnsb_k8s_client;

/*
 * From the options (api_url NULL = in-cluster). The token file is read once
 * here to check it, then before every request.
 * @return 0; DNSB_EINVAL (not in a cluster and no URL; a URL not http(s); an
 *         unreadable or empty token file: named, its content never shown);
 *         DNSB_ENOMEM; what dnsb_http_new returns (an unreadable CA file)
 */
int dnsb_k8s_client_new(dnsb_k8s_client **out, const dnsb_events_options *o, dnsb_error *err);
/* NULL is a no-op. */
void dnsb_k8s_client_free(dnsb_k8s_client *c);

/*
 * One request: METHOD base+PATH with BODY (borrowed; NULL = none) as
 * CONTENT_TYPE (NULL = application/json), within TIME_LEFT seconds (0 = the
 * client's 5 s).
 * @param status  the HTTP status (0 when none came)
 * @param reply   receives the reply's JSON body, or NULL (the caller's); may be NULL
 * @return 0 when an answer came, whatever its status; DNSB_EFATAL the token
 *         file is unreadable now or TLS does not verify; DNSB_ETRANSIENT no
 *         answer (unreachable, timed out); DNSB_EINVAL; DNSB_ENOMEM
 */
int dnsb_k8s_request(dnsb_k8s_client *c, const char *method, const char *path, json_object *body,
		     const char *content_type, double time_left, long *status, json_object **reply, dnsb_error *err);

/* ---- events_ref.c ---- */

/* The object an Event is about, from labels.resource; every member NUL-terminated. */
typedef struct dnsb_k8s_ref {
	const char *api_version;  /* "networking.k8s.io/v1" (static) */
	const char *kind;         /* "Ingress" (static) */
	const char *plural;       /* "ingresses" (static): the path's resource */
	char ns[64];              /* a namespace is a DNS label: 63 at most */
	char name[254];           /* a name: 253 at most */
	char uid[64];             /* "" until read */
} dnsb_k8s_ref;

/*
 * Parse "KIND/NAMESPACE/NAME" as external-dns's sources write labels.resource
 * (ingress, service, pod, crd, gateway-httproute, gateway-grpcroute,
 * gateway-tlsroute, gateway-tcproute, gateway-udproute, gateway (Istio),
 * virtualservice).
 * @return 0; DNSB_EINVAL for another kind or shape
 */
int dnsb_k8s_ref_parse(dnsb_k8s_ref *out, const char *resource);

/* The object's path on the API server ("/apis/networking.k8s.io/v1/namespaces/NS/ingresses/NAME"). */
void dnsb_k8s_ref_path(char *buf, size_t size, const dnsb_k8s_ref *ref);

/* Object uids by reference, each read once per DNSB_K8S_UID_TTL seconds. One thread's. Opaque. */
typedef struct dnsb_k8s_uids dnsb_k8s_uids;
#define DNSB_K8S_UID_TTL 600.0
#define DNSB_K8S_UID_GONE_TTL 60.0  /* an object found absent is not asked for again sooner */

/* @return a new cache, or NULL (ENOMEM) */
dnsb_k8s_uids *dnsb_k8s_uids_new(void);
void dnsb_k8s_uids_free(dnsb_k8s_uids *u);

/*
 * Fill ref->uid from the cache or a GET of the object.
 * @param now     monotonic seconds
 * @param status  receives the GET's HTTP status (0: none came, or the cache answered)
 * @return 0 (uid set); DNSB_ENOTFOUND the object does not exist (404);
 *         DNSB_EFATAL the API refused the read (401, 403: ref->uid stays "",
 *         the Event goes without it); DNSB_ETRANSIENT no answer or 5xx;
 *         DNSB_ENOMEM
 */
int dnsb_k8s_uid(dnsb_k8s_uids *u, dnsb_k8s_client *c, dnsb_k8s_ref *ref, double now, double time_left,
		 long *status, dnsb_error *err);

/* ---- events_note.c ---- */

/* Kubernetes' bound on an Event's note (events.k8s.io validation: NoteLengthLimit). */
#define DNSB_EVENT_NOTE_MAX 1024

/* What one settled change asks to be told. */
typedef struct dnsb_event_occ {
	unsigned reason;              /* one DNSB_EVENT_* bit */
	char resource[330];           /* labels.resource */
	char record[300];             /* "create www.example.com. A": with reason and resource, the series key */
	char note[DNSB_EVENT_NOTE_MAX + 1];
} dnsb_event_occ;

/*
 * The Event a settled change makes, if `reasons` asks for it and its
 * endpoint names an object.
 * @return 1 (out filled), 0 none
 */
int dnsb_event_of_change(dnsb_event_occ *out, const dnsb_change *c, unsigned reasons);

/* "RecordDropped", ... for one DNSB_EVENT_* bit; the action ("Drop", "Quarantine", "Hold", "Apply") likewise. */
const char *dnsb_event_reason_name(unsigned reason);
const char *dnsb_event_action(unsigned reason);

/* ---- events.c (the queue and the thread) and events_series.c (aggregation and posting) ---- */

/* One Event as the recorder keeps it: what the API holds of it, and what was seen since. */
typedef struct dnsb_event_series {
	dnsb_event_occ occ;          /* the first occurrence: its note is the Event's */
	dnsb_k8s_ref ref;            /* the object, its uid once read */
	char name[300];              /* metadata.name, "" until first tried */
	char first_time[40];         /* eventTime (MicroTime) of the first occurrence */
	char last_time[40];          /* series.lastObservedTime: the latest occurrence */
	unsigned long count;         /* occurrences seen */
	unsigned long posted;        /* the count the API holds: 0 = not created yet */
	double last_seen, last_post; /* monotonic seconds */
	double next_try;             /* monotonic: not sent again before */
	unsigned tries;              /* failed sends in a row */
} dnsb_event_series;

/* An object's budget of new Events (client-go's spam filter: 25, then one per 5 minutes). */
typedef struct dnsb_event_bucket {
	char resource[330];
	double tokens, at;
} dnsb_event_bucket;

#define DNSB_EVENTS_BURST 25.0
#define DNSB_EVENTS_REFILL 300.0    /* seconds a token takes to come back */
#define DNSB_EVENTS_FINISH 360.0    /* a series not seen for this long ends (client-go's finishTime) */
#define DNSB_EVENTS_GIVE_UP 3600.0  /* a series the API has not taken after this long is given up */
#define DNSB_EVENTS_SERIES_MAX 2048
#define DNSB_EVENTS_BUCKETS_MAX 2048

struct dnsb_events {
	dnsb_events_options o;
	char instance[129];
	dnsb_metrics *metrics;
	dnsb_k8s_client *client;
	dnsb_k8s_uids *uids;
	pthread_t thread;
	pthread_mutex_t lock;       /* guards queue, qlen, full, stopping, stop_by */
	pthread_cond_t cond;
	dnsb_event_occ *queue, *batch;
	size_t qlen;
	int full;                   /* an occurrence was left out since the queue last drained (logged once) */
	int stopping;
	double stop_by;             /* monotonic: the last moment to post while stopping */
	/* The thread's own. */
	dnsb_event_series *series;
	size_t nseries, series_cap;
	dnsb_event_bucket *buckets;
	size_t nbuckets;
	double api_down_until;      /* monotonic: no request before (after an API without answer) */
	unsigned api_fails;
	unsigned long names;        /* Events named so far: makes each name unique */
	unsigned logged;            /* the kinds of trouble already logged (log once each) */
};

/* Fold one occurrence into its series, or start one within the object's budget. */
void dnsb_events_aggregate(dnsb_events *ev, const dnsb_event_occ *occ, double now);
/* Send what the API lacks: new Events, and each series' count when due (FORCE: now). */
void dnsb_events_sync(dnsb_events *ev, double now, int force);
/* Forget the series that ended or were given up. */
void dnsb_events_finish(dnsb_events *ev, double now);
/* Count one step in dnsbatch_events_total{result}; log the first of a kind of trouble (bit) once. */
void dnsb_events_count(dnsb_events *ev, const char *result, unsigned log_bit, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
