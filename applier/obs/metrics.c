/* metrics.c - the docs/design.md §6.1 series, kept in memory and written in the Prometheus text format. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L  /* open_memstream, mkstemp, fsync, fchmod */
#endif

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnsbatch/metrics.h"
#include "applier/core/array.h"
#include "applier/core/atomic.h"

#define MAX_LABELS 4

/* Upper bounds of dnsbatch_provider_request_duration_seconds, seconds.
 * client_golang's DefBuckets: provider calls range from a local file write
 * (milliseconds) to a Cloud DNS change (seconds). */
static const double duration_bounds[] = {
	0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
};

/* dnsbatch_webhook_request_duration_seconds: wide enough for a GET / (microseconds) and an apply at its deadline. */
static const double webhook_bounds[] = {
	0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30, 60
};
#define MAX_BUCKETS 13
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

enum family_id {
	F_CHANGES,
	F_DROPPED,
	F_FAILED,
	F_BATCHES,
	F_REQUESTS,
	F_DURATION,
	F_RETRIES,
	F_BISECTIONS,
	F_BACKOFF,
	F_QUARANTINED,
	F_LAST_APPLY,
	F_LAST_SUCCESS,
	F_LAST_EXIT,
	F_OVERWRITES,
	F_HELD,
	F_WH_REQUESTS,
	F_WH_DURATION,
	F_WH_READY,
	F_WH_INFLIGHT,
	F_WH_APPLIES,
	F_WH_ADJUSTED,
	F_WH_OWNERS,
	F_WH_OVERSIZED,
	F_BUDGET_TOKENS,
	F_BUDGET_WAIT,
	F_BUDGET_FALLBACKS,
	F_BUDGET_THROTTLES,
	F_BUDGET_RATE,
	F_BUDGET_SHARED,
	F_EVENTS,
	F_COUNT
};

struct family {
	const char *name;
	const char *help;
	const char *type;
	size_t label_count;
	const char *labels[MAX_LABELS];
	const double *bounds;   /* histograms: bucket upper bounds */
	size_t bound_count;
	int sidecar;            /* printed only once the sidecar has recorded one (not in one-shot files) */
	int budget;             /* printed only where a rate budget is in use (--rate-budget) */
	int once_set;           /* printed only once set (a one-shot apply's end: not in the sidecar's /metrics) */
};

/* Printed in this order, which is the order of metrics.h. */
static const struct family families[F_COUNT] = {
	[F_CHANGES] = { "dnsbatch_changes_total",
		"Changes that ended, by zone and outcome.",
		"counter", 2, { "zone", "outcome" } },
	[F_DROPPED] = { "dnsbatch_dropped_changes_total",
		"Changes dropped (never to apply as they are), by zone, record type, reason and what is in the way.",
		"counter", 4, { "zone", "record_type", "reason", "cause" } },
	[F_FAILED] = { "dnsbatch_failed_changes_total",
		"Changes that failed for a retryable reason, by zone, record type and reason.",
		"counter", 3, { "zone", "record_type", "reason" } },
	[F_BATCHES] = { "dnsbatch_batches_total",
		"Batch submissions, by zone and the class of the provider's answer.",
		"counter", 2, { "zone", "class" } },
	[F_REQUESTS] = { "dnsbatch_provider_requests_total",
		"Requests to providers, by provider, operation and answer class.",
		"counter", 3, { "provider", "operation", "class" } },
	[F_DURATION] = { "dnsbatch_provider_request_duration_seconds",
		"Time taken by provider requests, seconds.",
		"histogram", 2, { "provider", "operation" }, duration_bounds, COUNT_OF(duration_bounds), 0 },
	[F_RETRIES] = { "dnsbatch_retries_total",
		"Batch resubmissions, by reason.",
		"counter", 1, { "reason" } },
	[F_BISECTIONS] = { "dnsbatch_bisections_total",
		"Batches halved to isolate conflicting or invalid change groups, by zone.",
		"counter", 1, { "zone" } },
	[F_BACKOFF] = { "dnsbatch_backoff_seconds_total",
		"Time spent waiting before resubmissions, seconds.",
		"counter", 0, { NULL } },
	[F_QUARANTINED] = { "dnsbatch_quarantined_groups",
		"Change groups held back after a conflict while their backoff runs.",
		"gauge", 0, { NULL } },
	[F_LAST_APPLY] = { "dnsbatch_last_apply_timestamp_seconds",
		"Time of the last apply, Unix seconds.",
		"gauge", 0, { NULL } },
	[F_LAST_SUCCESS] = { "dnsbatch_last_apply_success",
		"1 when the last one-shot apply finished with nothing left to fix or retry (exit 0, or 3: some changes "
		"dropped and logged), 0 when it did not (exit 1, 2 or 4).",
		"gauge", 0, { NULL }, NULL, 0, 0, 0, 1 },
	[F_LAST_EXIT] = { "dnsbatch_last_apply_exit_code",
		"Exit code of the last one-shot apply: 0 all in effect, 1 internal error, 2 nothing sent (usage, plan, "
		"setup fault), 3 some dropped, 4 some failed (retry later).",
		"gauge", 0, { NULL }, NULL, 0, 0, 0, 1 },
	[F_OVERWRITES] = { "dnsbatch_overwrites_detected_total",
		"RRsets that a read-back after an accepted write to an unconditional provider found holding what "
		"neither the batch nor the read before it held: another client wrote in the window, by zone.",
		"counter", 1, { "zone" } },
	[F_HELD] = { "dnsbatch_held_changes",
		"Changes held by a safety threshold in the last apply of the zone (failed, reason held; released by "
		"POST /release with the digest logged, or --force), by zone and kind.",
		"gauge", 2, { "zone", "kind" } },
	[F_WH_REQUESTS] = { "dnsbatch_webhook_requests_total",
		"HTTP requests answered by the webhook server.",
		"counter", 3, { "route", "method", "code" }, NULL, 0, 1 },
	[F_WH_DURATION] = { "dnsbatch_webhook_request_duration_seconds",
		"Time from a request's arrival to its reply.",
		"histogram", 1, { "route" }, webhook_bounds, COUNT_OF(webhook_bounds), 1 },
	[F_WH_READY] = { "dnsbatch_webhook_ready",
		"1 once the provider has answered, else 0.",
		"gauge", 0, { NULL }, NULL, 0, 1 },
	[F_WH_INFLIGHT] = { "dnsbatch_webhook_requests_in_flight",
		"Requests being read, handled or answered.",
		"gauge", 0, { NULL }, NULL, 0, 1 },
	[F_WH_APPLIES] = { "dnsbatch_webhook_applies_in_flight",
		"POST /records requests being applied.",
		"gauge", 0, { NULL }, NULL, 0, 1 },
	[F_WH_ADJUSTED] = { "dnsbatch_webhook_adjusted_endpoints_total",
		"Endpoints POST /adjustendpoints changed to the form GET /records lists (normalised) or found "
		"the provider cannot apply (unsupported), by reason.",
		"counter", 1, { "reason" }, NULL, 0, 1 },
	[F_WH_OWNERS] = { "dnsbatch_conflicting_owner_groups",
		"Change groups quarantined now, by zone and the external-dns owner of what is in their way "
		"(none: no ownership record).",
		"gauge", 2, { "zone", "foreign_owner" }, NULL, 0, 1 },
	[F_WH_OVERSIZED] = { "dnsbatch_webhook_oversized_replies_total",
		"GET /records answers larger than --max-body-size: external-dns (after v0.22) refuses a body over "
		"its --webhook-provider-max-body-size, 32 MiB by default.",
		"counter", 0, { NULL }, NULL, 0, 1 },
	[F_BUDGET_TOKENS] = { "dnsbatch_rate_budget_tokens_total",
		"Provider requests that took a token of the account's rate budget, by bucket (shared: Redis; "
		"local: this instance's share while Redis is away).",
		"counter", 1, { "bucket" }, NULL, 0, 0, 1 },
	[F_BUDGET_WAIT] = { "dnsbatch_rate_budget_wait_seconds_total",
		"Time provider requests waited for a token of the rate budget, seconds.",
		"counter", 0, { NULL }, NULL, 0, 0, 1 },
	[F_BUDGET_FALLBACKS] = { "dnsbatch_rate_budget_fallbacks_total",
		"Times Redis was found away and this instance took its local share of the rate.",
		"counter", 0, { NULL }, NULL, 0, 0, 1 },
	[F_BUDGET_THROTTLES] = { "dnsbatch_rate_budget_throttles_total",
		"Throttling answers that came despite the budget and lowered the shared rate for a while.",
		"counter", 0, { NULL }, NULL, 0, 0, 1 },
	[F_BUDGET_RATE] = { "dnsbatch_rate_budget_rate",
		"Requests per second the last token was taken at (the shared rate, lowered after a throttle, or "
		"the local share).",
		"gauge", 0, { NULL }, NULL, 0, 0, 1 },
	[F_BUDGET_SHARED] = { "dnsbatch_rate_budget_shared",
		"1 while the shared bucket in Redis answers, 0 in fallback.",
		"gauge", 0, { NULL }, NULL, 0, 0, 1 },
	[F_EVENTS] = { "dnsbatch_events_total",
		"Steps of the Kubernetes Events recorder (serve --events), by result: created, patched, aggregated "
		"into a series, or left out (rate_limited, queue_full, unresolved) or refused (forbidden, rejected, "
		"error, unreachable).",
		"counter", 1, { "result" }, NULL, 0, 1 },
};

/* One labelled series. Counters and gauges use `value`; the histogram uses
 * the cumulative `buckets`, `sum` and `count`. One shape for all keeps the
 * lookup code single; the few wasted bytes do not matter at this scale. */
struct series {
	char *labels[MAX_LABELS];
	double value;
	uint64_t buckets[MAX_BUCKETS];
	double sum;
	uint64_t count;
};

/* Series of one family, kept sorted by label values so that output order
 * is stable whatever the order of recording. */
struct table {
	struct series *items;
	size_t count;
	size_t capacity;
};

struct dnsb_metrics {
	pthread_mutex_t lock;
	struct table tables[F_COUNT];
	int sidecar;   /* the sidecar has recorded its own series */
	int budget;    /* a rate budget's figures were recorded */
};

int dnsb_metrics_new(dnsb_metrics **out)
{
	dnsb_metrics *m = calloc(1, sizeof(*m));

	if (!m)
		return DNSB_ENOMEM;
	if (pthread_mutex_init(&m->lock, NULL) != 0) {
		free(m);
		return DNSB_ENOMEM;
	}
	*out = m;
	return 0;
}

void dnsb_metrics_free(dnsb_metrics *m)
{
	if (!m)
		return;
	for (size_t f = 0; f < F_COUNT; f++) {
		struct table *t = &m->tables[f];

		for (size_t i = 0; i < t->count; i++)
			for (size_t l = 0; l < MAX_LABELS; l++)
				free(t->items[i].labels[l]);
		free(t->items);
	}
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static int labels_cmp(const char *const *a, const char *const *b, size_t n)
{
	for (size_t l = 0; l < n; l++) {
		int c = strcmp(a[l], b[l]);

		if (c)
			return c;
	}
	return 0;
}

/*
 * The series of family `f` with these label values, created (zeroed) when
 * missing. Call with the lock held. NULL values count as "".
 * @return a pointer into the table, or NULL when out of memory
 */
static struct series *series_get(dnsb_metrics *m, enum family_id f, const char *const *values)
{
	struct table *t = &m->tables[f];
	size_t n = families[f].label_count;
	const char *key[MAX_LABELS] = { "", "", "", "" };
	size_t lo = 0, hi = t->count;
	struct series fresh;

	for (size_t l = 0; l < n; l++)
		key[l] = values[l] ? values[l] : "";
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = labels_cmp((const char *const *)t->items[mid].labels, key, n);

		if (c == 0)
			return &t->items[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}

	memset(&fresh, 0, sizeof(fresh));
	for (size_t l = 0; l < n; l++) {
		fresh.labels[l] = strdup(key[l]);
		if (!fresh.labels[l]) {
			while (l--)
				free(fresh.labels[l]);
			return NULL;
		}
	}
	if (DNSB_ARRAY_RESERVE(t->items, t->capacity, t->count + 1, 8) < 0) {
		for (size_t l = 0; l < n; l++)
			free(fresh.labels[l]);
		return NULL;
	}
	memmove(&t->items[lo + 1], &t->items[lo], (t->count - lo) * sizeof(*t->items));
	t->items[lo] = fresh;
	t->count++;
	return &t->items[lo];
}

/* Add to a counter. Out of memory loses the sample (metrics.h). */
static void counter_add(dnsb_metrics *m, enum family_id f, const char *const *values, double delta)
{
	struct series *s;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	s = series_get(m, f, values);
	if (s)
		s->value += delta;
	pthread_mutex_unlock(&m->lock);
}

static void gauge_set(dnsb_metrics *m, enum family_id f, double value)
{
	struct series *s;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	s = series_get(m, f, NULL);
	if (s)
		s->value = value;
	pthread_mutex_unlock(&m->lock);
}

void dnsb_metrics_change(dnsb_metrics *m, const char *zone, const dnsb_change *change)
{
	uint16_t type;
	const char *type_name, *outcome, *reason;
	struct series *s;

	if (!m || !change)
		return;
	type = change->new_set.type ? change->new_set.type : change->old.type;
	/* An endpoint whose recordType the parser could not read has no type
	 * code; "TYPE0" would suggest a real type. */
	type_name = type ? dnsb_type_name(type) : "unknown";
	outcome = dnsb_outcome_name(change->outcome);
	reason = dnsb_reason_name(change->reason);

	/* One critical section, so that a scrape never sees the change counted
	 * in changes_total but not yet in dropped/failed_changes_total. */
	pthread_mutex_lock(&m->lock);
	s = series_get(m, F_CHANGES, (const char *const[]){ zone, outcome });
	if (s)
		s->value += 1;
	if (change->outcome == DNSB_OUTCOME_DROPPED || change->outcome == DNSB_OUTCOME_FAILED) {
		enum family_id f = change->outcome == DNSB_OUTCOME_DROPPED ? F_DROPPED : F_FAILED;

		s = series_get(m, f, (const char *const[]){ zone, type_name, reason, dnsb_cause_name(dnsb_change_cause(change)) });
		if (s)
			s->value += 1;
	}
	pthread_mutex_unlock(&m->lock);
}

void dnsb_metrics_batch(dnsb_metrics *m, const char *zone, const char *cls)
{
	counter_add(m, F_BATCHES, (const char *const[]){ zone, cls }, 1);
}

/* One histogram observation. Call with the lock held; s may be NULL (out of memory: the sample is lost). */
static void observe(struct series *s, enum family_id f, double seconds)
{
	if (s == NULL)
		return;
	for (size_t b = 0; b < families[f].bound_count; b++)
		if (seconds <= families[f].bounds[b])
			s->buckets[b]++;
	s->sum += seconds;
	s->count++;
}

void dnsb_metrics_request(dnsb_metrics *m, const char *provider, const char *operation,
			  const char *cls, double seconds)
{
	struct series *s;

	if (!m)
		return;
	/* A clock stepping back must not make a negative observation, and a
	 * NaN would poison _sum for the life of the process. */
	if (!(seconds > 0))
		seconds = 0;
	pthread_mutex_lock(&m->lock);
	s = series_get(m, F_REQUESTS, (const char *const[]){ provider, operation, cls });
	if (s)
		s->value += 1;
	observe(series_get(m, F_DURATION, (const char *const[]){ provider, operation }), F_DURATION, seconds);
	pthread_mutex_unlock(&m->lock);
}

void dnsb_metrics_retry(dnsb_metrics *m, const char *reason)
{
	counter_add(m, F_RETRIES, (const char *const[]){ reason }, 1);
}

void dnsb_metrics_bisection(dnsb_metrics *m, const char *zone)
{
	counter_add(m, F_BISECTIONS, (const char *const[]){ zone }, 1);
}

void dnsb_metrics_backoff(dnsb_metrics *m, double seconds)
{
	/* A counter never goes down. */
	if (seconds > 0)
		counter_add(m, F_BACKOFF, NULL, seconds);
}

void dnsb_metrics_overwrites(dnsb_metrics *m, const char *zone, unsigned rrsets)
{
	if (rrsets > 0)
		counter_add(m, F_OVERWRITES, (const char *const[]){ zone }, (double)rrsets);
}

void dnsb_metrics_set_held(dnsb_metrics *m, const char *zone, const char *kind, size_t changes)
{
	struct series *s;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	s = series_get(m, F_HELD, (const char *const[]){ zone, kind });
	if (s)
		s->value = (double)changes;
	pthread_mutex_unlock(&m->lock);
}

void dnsb_metrics_set_quarantined(dnsb_metrics *m, size_t groups)
{
	gauge_set(m, F_QUARANTINED, (double)groups);
}

void dnsb_metrics_set_owner_groups(dnsb_metrics *m, const char *const *zones, const char *const *owners, size_t n)
{
	struct table *t;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->sidecar = 1;
	t = &m->tables[F_WH_OWNERS];
	/* The family is replaced whole: an owner whose groups all left has no series. */
	for (size_t i = 0; i < t->count; i++)
		for (size_t l = 0; l < MAX_LABELS; l++)
			free(t->items[i].labels[l]);
	t->count = 0;
	for (size_t i = 0; i < n; i++) {
		struct series *s = series_get(m, F_WH_OWNERS, (const char *const[]){ zones[i], owners[i] ? owners[i] : "none" });
		if (s)
			s->value += 1;
	}
	pthread_mutex_unlock(&m->lock);
}

void dnsb_metrics_set_last_apply(dnsb_metrics *m, double unix_seconds)
{
	gauge_set(m, F_LAST_APPLY, unix_seconds);
}

void dnsb_metrics_set_exit(dnsb_metrics *m, int exit_code)
{
	gauge_set(m, F_LAST_SUCCESS, exit_code == 0 || exit_code == 3 ? 1 : 0);
	gauge_set(m, F_LAST_EXIT, exit_code);
}

void dnsb_metrics_set_budget(dnsb_metrics *m, const dnsb_budget_stats *st)
{
	struct series *s;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->budget = 1;
	if ((s = series_get(m, F_BUDGET_TOKENS, (const char *const[]){ "shared" })) != NULL)
		s->value = (double)st->shared_tokens;
	if ((s = series_get(m, F_BUDGET_TOKENS, (const char *const[]){ "local" })) != NULL)
		s->value = (double)st->local_tokens;
	if ((s = series_get(m, F_BUDGET_WAIT, NULL)) != NULL)
		s->value = st->wait_seconds;
	if ((s = series_get(m, F_BUDGET_FALLBACKS, NULL)) != NULL)
		s->value = (double)st->fallbacks;
	if ((s = series_get(m, F_BUDGET_THROTTLES, NULL)) != NULL)
		s->value = (double)st->throttles;
	if ((s = series_get(m, F_BUDGET_RATE, NULL)) != NULL)
		s->value = st->rate;
	if ((s = series_get(m, F_BUDGET_SHARED, NULL)) != NULL)
		s->value = st->shared;
	pthread_mutex_unlock(&m->lock);
}

void dnsb_metrics_webhook_request(dnsb_metrics *m, const char *route, const char *method, unsigned code,
				  double seconds)
{
	char status[16];
	struct series *s;

	if (!m)
		return;
	if (!(seconds > 0))
		seconds = 0;
	snprintf(status, sizeof(status), "%u", code);
	pthread_mutex_lock(&m->lock);
	m->sidecar = 1;
	s = series_get(m, F_WH_REQUESTS, (const char *const[]){ route, method, status });
	if (s)
		s->value += 1;
	observe(series_get(m, F_WH_DURATION, (const char *const[]){ route }), F_WH_DURATION, seconds);
	pthread_mutex_unlock(&m->lock);
}

void dnsb_metrics_webhook_adjusted(dnsb_metrics *m, const char *reason, size_t endpoints)
{
	if (!m || endpoints == 0)
		return;
	pthread_mutex_lock(&m->lock);
	m->sidecar = 1;
	pthread_mutex_unlock(&m->lock);
	counter_add(m, F_WH_ADJUSTED, (const char *const[]){ reason }, (double)endpoints);
}

void dnsb_metrics_webhook_oversized(dnsb_metrics *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->sidecar = 1;
	pthread_mutex_unlock(&m->lock);
	counter_add(m, F_WH_OVERSIZED, (const char *const[]){ NULL }, 1);
}

/* Declared in applier/obs/events.h: the recorder is the only caller. */
void dnsb_metrics_event(dnsb_metrics *m, const char *result);
void dnsb_metrics_event(dnsb_metrics *m, const char *result)
{
	counter_add(m, F_EVENTS, (const char *const[]){ result }, 1.0);
}

void dnsb_metrics_webhook_state(dnsb_metrics *m, int ready, unsigned inflight, unsigned applies)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->sidecar = 1;
	pthread_mutex_unlock(&m->lock);
	gauge_set(m, F_WH_READY, ready ? 1 : 0);
	gauge_set(m, F_WH_INFLIGHT, inflight);
	gauge_set(m, F_WH_APPLIES, applies);
}

/*
 * A sample value as Prometheus writes it: the shortest decimal that reads
 * back as the same double ("3", "0.1", not "0.10000000000000001"), and
 * +Inf, -Inf, NaN spelt as the format requires.
 */
static void format_value(char *buf, size_t size, double v)
{
	if (isnan(v)) {
		snprintf(buf, size, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, size, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	for (int precision = 15; precision <= 17; precision++) {
		snprintf(buf, size, "%.*g", precision, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* A label value escaped as the text format requires: \\, \" and \n. */
static void put_label_value(FILE *f, const char *value)
{
	for (const char *c = value; *c; c++) {
		if (*c == '\\')
			fputs("\\\\", f);
		else if (*c == '"')
			fputs("\\\"", f);
		else if (*c == '\n')
			fputs("\\n", f);
		else
			putc(*c, f);
	}
}

/* `{a="x",b="y"` plus an optional extra le label, then `}`; nothing at all when there are no labels. */
static void put_labels(FILE *f, const struct family *fam, const struct series *s, const char *le)
{
	size_t n = fam->label_count;

	if (n == 0 && !le)
		return;
	putc('{', f);
	for (size_t l = 0; l < n; l++) {
		fprintf(f, "%s%s=\"", l ? "," : "", fam->labels[l]);
		put_label_value(f, s->labels[l]);
		putc('"', f);
	}
	if (le)
		fprintf(f, "%sle=\"%s\"", n ? "," : "", le);
	putc('}', f);
}

static void put_histogram(FILE *f, const struct family *fam, const struct series *s)
{
	char num[32], le[32];

	for (size_t b = 0; b < fam->bound_count; b++) {
		format_value(le, sizeof(le), fam->bounds[b]);
		fprintf(f, "%s_bucket", fam->name);
		put_labels(f, fam, s, le);
		fprintf(f, " %llu\n", (unsigned long long)s->buckets[b]);
	}
	fprintf(f, "%s_bucket", fam->name);
	put_labels(f, fam, s, "+Inf");
	fprintf(f, " %llu\n", (unsigned long long)s->count);

	format_value(num, sizeof(num), s->sum);
	fprintf(f, "%s_sum", fam->name);
	put_labels(f, fam, s, NULL);
	fprintf(f, " %s\n", num);
	fprintf(f, "%s_count", fam->name);
	put_labels(f, fam, s, NULL);
	fprintf(f, " %llu\n", (unsigned long long)s->count);
}

/*
 * Every family, in the fixed order, to `f`. Call with the lock held (or m
 * NULL: then every family is empty). An unlabelled family always has its
 * one sample, 0 until set, so that a scrape tells "nothing yet" from
 * "missing".
 * @return 0 or DNSB_EIO
 */
static int emit(const dnsb_metrics *m, FILE *f)
{
	char num[32];

	for (size_t id = 0; id < F_COUNT; id++) {
		const struct family *fam = &families[id];
		const struct table *t = m ? &m->tables[id] : NULL;
		size_t count = t ? t->count : 0;

		if ((fam->sidecar && !(m && m->sidecar)) || (fam->budget && !(m && m->budget)) || (fam->once_set && count == 0))
			continue;
		if (id == F_EVENTS && count == 0) /* only where --events is on */
			continue;
		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", fam->name, fam->help, fam->name, fam->type);
		if (fam->label_count == 0 && count == 0) {
			fprintf(f, "%s 0\n", fam->name);
			continue;
		}
		for (size_t i = 0; i < count; i++) {
			const struct series *s = &t->items[i];

			if (fam->bounds != NULL) {
				put_histogram(f, fam, s);
				continue;
			}
			format_value(num, sizeof(num), s->value);
			fputs(fam->name, f);
			put_labels(f, fam, s, NULL);
			fprintf(f, " %s\n", num);
		}
	}
	return ferror(f) ? DNSB_EIO : 0;
}

int dnsb_metrics_render(char **out, size_t *len, dnsb_metrics *m)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	int rc;

	if (!f)
		return DNSB_ENOMEM;
	if (m)
		pthread_mutex_lock(&m->lock);
	rc = emit(m, f);
	if (m)
		pthread_mutex_unlock(&m->lock);
	/* open_memstream's buffer is only complete once the stream is closed. */
	if (fclose(f) != 0 || rc != 0 || !buf) {
		free(buf);
		return DNSB_ENOMEM;
	}
	*out = buf;
	if (len)
		*len = size;
	return 0;
}

int dnsb_metrics_write(dnsb_metrics *m, FILE *f)
{
	char *text;
	size_t len;

	/* Render first so the lock is not held while a slow file or pipe drains. */
	if (dnsb_metrics_render(&text, &len, m) == 0) {
		size_t written = fwrite(text, 1, len, f);

		free(text);
		return written == len && fflush(f) == 0 ? 0 : DNSB_EIO;
	}
	if (m)
		pthread_mutex_lock(&m->lock);
	if (emit(m, f) != 0 || fflush(f) != 0) {
		if (m)
			pthread_mutex_unlock(&m->lock);
		return DNSB_EIO;
	}
	if (m)
		pthread_mutex_unlock(&m->lock);
	return 0;
}

static int fill_metrics(FILE *f, void *payload, dnsb_error *err)
{
	if (dnsb_metrics_write(payload, f) != 0)
		return dnsb_error_set(err, DNSB_EIO, "writing metrics: %s", strerror(errno ? errno : EIO));
	return 0;
}

int dnsb_metrics_write_file(dnsb_metrics *m, const char *path, dnsb_error *err)
{
	/* The temporary file starts with a dot and does not end in .prom, so node_exporter's textfile
	 * collector never reads it half written; 0644, as node_exporter usually runs as another user. */
	static const dnsb_atomic_options o = { ".", ".tmp.", 0644, 0 };
	int rc = dnsb_atomic_write(path, &o, fill_metrics, m, err);

	return rc == DNSB_ENOMEM ? dnsb_error_set(err, DNSB_EIO, "%s: out of memory", path) : rc;
}
