/*
 * events_series.c - aggregation and posting, as client-go's events.k8s.io
 * EventRecorder does them (k8s.io/client-go/tools/events): the first
 * occurrence of (object, reason, record) creates an Event; the second patches
 * its series (count 2); later ones count in memory and are patched every
 * `refresh` seconds (client-go: 30 minutes) and when the sidecar stops; a
 * series not seen for 6 minutes ends. New Events per object come from a token
 * bucket (client-go's spam filter: 25, then one per 5 minutes).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "applier/core/clock.h"
#include "dnsbatch/log.h"
#include "applier/obs/events_int.h"

enum {
	LOG_FORBIDDEN = 1, LOG_REJECTED = 2, LOG_ERROR = 4, LOG_UNREACHABLE = 8, LOG_LIMITED = 16, LOG_UNRESOLVED = 32,
	LOG_NO_UID = 64
};

void dnsb_events_count(dnsb_events *ev, const char *result, unsigned log_bit, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	dnsb_metrics_event(ev->metrics, result);
	if (log_bit == 0 || (ev->logged & log_bit) || fmt == NULL)
		return;
	ev->logged |= log_bit;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dnsb_log(DNSB_LOG_WARN, "Kubernetes Events: %s (logged once; counted in dnsbatch_events_total{result=\"%s\"})",
		 msg, result);
}

/* Kubernetes' MicroTime: RFC 3339 with microseconds, UTC. */
static void micro_time(char *buf, size_t size, double unix_seconds)
{
	time_t t = (time_t)unix_seconds;
	struct tm tm;
	char base[32];
	long us = (long)((unix_seconds - (double)t) * 1e6);

	gmtime_r(&t, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%06ldZ", base, us < 0 ? 0 : us > 999999 ? 999999 : us);
}

static dnsb_event_series *find(dnsb_events *ev, const dnsb_event_occ *occ)
{
	for (size_t i = 0; i < ev->nseries; i++) {
		dnsb_event_series *s = &ev->series[i];
		if (s->occ.reason == occ->reason && strcmp(s->occ.resource, occ->resource) == 0 &&
		    strcmp(s->occ.record, occ->record) == 0)
			return s;
	}
	return NULL;
}

/* Take a token of the object's budget. @return 1 taken, 0 none left (or no room to keep its bucket) */
static int take_token(dnsb_events *ev, const char *resource, double now)
{
	dnsb_event_bucket *b = NULL;

	for (size_t i = 0; b == NULL && i < ev->nbuckets; i++)
		if (strcmp(ev->buckets[i].resource, resource) == 0)
			b = &ev->buckets[i];
	if (b == NULL) {
		if (ev->nbuckets == DNSB_EVENTS_BUCKETS_MAX)
			return 0;
		b = &ev->buckets[ev->nbuckets++];
		snprintf(b->resource, sizeof(b->resource), "%s", resource);
		b->tokens = DNSB_EVENTS_BURST;
		b->at = now;
	}
	b->tokens = fmin(DNSB_EVENTS_BURST, b->tokens + (now - b->at) / DNSB_EVENTS_REFILL);
	b->at = now;
	if (b->tokens < 1.0)
		return 0;
	b->tokens -= 1.0;
	return 1;
}

static dnsb_event_series *new_series(dnsb_events *ev)
{
	if (ev->nseries == ev->series_cap) {
		size_t cap = ev->series_cap ? ev->series_cap * 2 : 16;
		dnsb_event_series *grown;
		if (cap > DNSB_EVENTS_SERIES_MAX || (grown = realloc(ev->series, cap * sizeof(*grown))) == NULL)
			return NULL;
		ev->series = grown;
		ev->series_cap = cap;
	}
	memset(&ev->series[ev->nseries], 0, sizeof(ev->series[0]));
	return &ev->series[ev->nseries++];
}

void dnsb_events_aggregate(dnsb_events *ev, const dnsb_event_occ *occ, double now)
{
	dnsb_event_series *s = find(ev, occ);
	dnsb_k8s_ref ref;

	if (s) {
		s->count++;
		s->last_seen = now;
		micro_time(s->last_time, sizeof(s->last_time), dnsb_wall_clock());
		dnsb_events_count(ev, "aggregated", 0, NULL);
		return;
	}
	if (dnsb_k8s_ref_parse(&ref, occ->resource) != 0) {
		dnsb_events_count(ev, "unresolved", LOG_UNRESOLVED, "labels.resource \"%s\" names no kind the "
				  "recorder knows: no Event", occ->resource);
		return;
	}
	if (!take_token(ev, occ->resource, now) || (s = new_series(ev)) == NULL) {
		dnsb_events_count(ev, "rate_limited", LOG_LIMITED, "%s: more new Events than its budget (%.0f, then "
				  "one per %.0f s): left out", occ->resource, DNSB_EVENTS_BURST, DNSB_EVENTS_REFILL);
		return;
	}
	s->occ = *occ;
	s->ref = ref;
	s->count = 1;
	s->last_seen = now;
	micro_time(s->first_time, sizeof(s->first_time), dnsb_wall_clock());
	snprintf(s->last_time, sizeof(s->last_time), "%s", s->first_time);
}

static int add(json_object *o, const char *key, json_object *v)
{
	if (v == NULL || json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static int add_str(json_object *o, const char *key, const char *v)
{
	return add(o, key, json_object_new_string(v));
}

static json_object *series_json(const dnsb_event_series *s)
{
	json_object *o = json_object_new_object();

	if (!o || add(o, "count", json_object_new_int64((int64_t)s->count)) ||
	    add_str(o, "lastObservedTime", s->last_time)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *regarding_json(const dnsb_k8s_ref *r)
{
	json_object *o = json_object_new_object();

	if (!o || add_str(o, "apiVersion", r->api_version) || add_str(o, "kind", r->kind) ||
	    add_str(o, "namespace", r->ns) || add_str(o, "name", r->name) || (r->uid[0] && add_str(o, "uid", r->uid))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The events.k8s.io/v1 Event of a series (with its series once counted twice). @return new, or NULL (ENOMEM) */
static json_object *event_json(const dnsb_events *ev, const dnsb_event_series *s)
{
	json_object *o = json_object_new_object(), *meta = json_object_new_object();
	int fail = !o || add(o, "apiVersion", json_object_new_string("events.k8s.io/v1")) ||
		   add_str(o, "kind", "Event") || add(o, "metadata", meta);

	fail = fail || add_str(meta, "name", s->name) || add_str(meta, "namespace", s->ref.ns) ||
	       add_str(o, "eventTime", s->first_time) || add_str(o, "reportingController", "dnsbatch") ||
	       add_str(o, "reportingInstance", ev->instance) || add_str(o, "action", dnsb_event_action(s->occ.reason)) ||
	       add_str(o, "reason", dnsb_event_reason_name(s->occ.reason)) || add_str(o, "type", "Warning") ||
	       add_str(o, "note", s->occ.note) || add(o, "regarding", regarding_json(&s->ref)) ||
	       (s->count >= 2 && add(o, "series", series_json(s)));
	if (meta && !o)
		json_object_put(meta);
	if (fail) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* A failed send: the series waits (the API as a whole too when it did not answer). */
static void failed(dnsb_events *ev, dnsb_event_series *s, double now, double wait, int api_down)
{
	s->tries++;
	s->next_try = now + wait;
	if (api_down) {
		ev->api_fails++;
		ev->api_down_until = now + fmin(60.0, (double)(1u << (ev->api_fails < 6 ? ev->api_fails : 6)));
	}
}

/* What an answer means for the series; counted. */
static void judge(dnsb_events *ev, dnsb_event_series *s, int rc, long status, int patch, double now,
		  const dnsb_error *err)
{
	const char *what = patch ? "PATCH" : "POST";

	if (rc != 0) {
		failed(ev, s, now, 1.0, 1);
		dnsb_events_count(ev, "unreachable", LOG_UNREACHABLE, "the API server did not answer: %s", err->message);
	} else if ((status >= 200 && status < 300) || (!patch && status == 409)) {
		ev->api_fails = 0;
		s->posted = s->count;
		s->last_post = now;
		s->tries = 0;
		dnsb_events_count(ev, status == 409 ? "exists" : patch ? "patched" : "created", 0, NULL);
	} else if (patch && status == 404) { /* the Event expired (the API server's TTL, 1 h): a new one */
		s->posted = 0;
		s->name[0] = '\0';
		dnsb_events_count(ev, "expired", 0, NULL);
	} else if (status == 401 || status == 403) {
		failed(ev, s, now, DNSB_EVENTS_REFILL, 0);
		dnsb_events_count(ev, "forbidden", LOG_FORBIDDEN, "%s of an Event in namespace %s: %ld (may the "
				  "service account create and patch events there?)", what, s->ref.ns, status);
	} else if (status == 429 || status >= 500) {
		failed(ev, s, now, 1.0, 1);
		dnsb_events_count(ev, "error", LOG_ERROR, "%s of an Event: %ld", what, status);
	} else {
		failed(ev, s, now, DNSB_EVENTS_GIVE_UP, 0);
		dnsb_events_count(ev, "rejected", LOG_REJECTED, "%s of an Event for %s: %ld, not retried for an hour",
				  what, s->occ.resource, status);
	}
}

static double time_left(const dnsb_events *ev, int force)
{
	return force ? fmax(0.05, ev->stop_by - dnsb_monotonic()) : 0;
}

/* Create the series' Event: its object's uid first (cached). */
static void create(dnsb_events *ev, dnsb_event_series *s, double now, int force)
{
	dnsb_error err = { 0 };
	json_object *body;
	char path[200];
	long status = 0;
	int rc = s->ref.uid[0] ? 0 : dnsb_k8s_uid(ev->uids, ev->client, &s->ref, now, time_left(ev, force), &status,
						   &err);

	if (rc == DNSB_ENOTFOUND) {
		s->tries = 1;
		s->next_try = INFINITY; /* no object: nothing to post; the series ends unseen */
		dnsb_events_count(ev, "unresolved", LOG_UNRESOLVED, "%s does not exist: no Event", s->occ.resource);
		return;
	}
	if (rc == DNSB_ETRANSIENT || rc == DNSB_ENOMEM) { /* judged by its status when one came (5xx) */
		judge(ev, s, status ? 0 : rc, status, 0, now, &err);
		return;
	}
	if (rc != 0) /* refused the read: the Event goes without the uid (`kubectl get events` shows it) */
		dnsb_events_count(ev, "no_uid", LOG_NO_UID, "%s", err.message);
	if (s->name[0] == '\0')
		snprintf(s->name, sizeof(s->name), "%.200s.%llx", s->ref.name,
			 (unsigned long long)(dnsb_wall_clock() * 1e9) + ev->names++);
	if ((body = event_json(ev, s)) == NULL)
		return;
	snprintf(path, sizeof(path), "/apis/events.k8s.io/v1/namespaces/%s/events", s->ref.ns);
	rc = dnsb_k8s_request(ev->client, "POST", path, body, NULL, time_left(ev, force), &status, NULL, &err);
	json_object_put(body);
	judge(ev, s, rc, status, 0, now, &err);
}

/* Patch the series' count, as client-go does (a strategic merge patch of `series`). */
static void patch(dnsb_events *ev, dnsb_event_series *s, double now, int force)
{
	json_object *body = json_object_new_object();
	dnsb_error err = { 0 };
	char path[600];
	long status = 0;
	int rc;

	if (!body || add(body, "series", series_json(s))) {
		json_object_put(body);
		return;
	}
	snprintf(path, sizeof(path), "/apis/events.k8s.io/v1/namespaces/%s/events/%s", s->ref.ns, s->name);
	rc = dnsb_k8s_request(ev->client, "PATCH", path, body, "application/strategic-merge-patch+json",
			      time_left(ev, force), &status, NULL, &err);
	json_object_put(body);
	judge(ev, s, rc, status, 1, now, &err);
}

void dnsb_events_sync(dnsb_events *ev, double now, int force)
{
	for (size_t i = 0; i < ev->nseries && now >= ev->api_down_until; i++) {
		dnsb_event_series *s = &ev->series[i];
		if (s->posted >= s->count || now < s->next_try)
			continue;
		if (s->posted == 0)
			create(ev, s, now, force);
		else if (force || s->posted == 1 || now - s->last_post >= ev->o.refresh)
			patch(ev, s, now, force);
		now = dnsb_monotonic();
	}
}

void dnsb_events_finish(dnsb_events *ev, double now)
{
	size_t kept = 0;

	for (size_t i = 0; i < ev->nseries; i++) {
		const dnsb_event_series *s = &ev->series[i];
		int ended = s->posted >= s->count && now - s->last_seen > DNSB_EVENTS_FINISH;
		int given_up = now - s->last_seen > DNSB_EVENTS_GIVE_UP;
		if (ended || given_up) {
			if (!ended)
				dnsb_events_count(ev, "given_up", 0, NULL);
			continue;
		}
		if (kept != i)
			ev->series[kept] = ev->series[i];
		kept++;
	}
	ev->nseries = kept;
}
