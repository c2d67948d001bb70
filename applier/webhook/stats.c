/* webhook_stats.c - the sidecar's own request counters, in the Prometheus text format. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/common.h"
#include "applier/webhook/internal.h"

static const char *const route_names[DNSB_ROUTE_COUNT] = {
	"/", "/records", "/adjustendpoints", "/healthz", "/metrics", "other"
};

/* Wide enough for a GET / (microseconds) and an apply at its 50 s deadline. */
static const double bounds[DNSB_WEBHOOK_BUCKETS] = {
	0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30, 60
};

void dnsb_webhook_stats_init(dnsb_webhook_stats *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
}

void dnsb_webhook_stats_clear(dnsb_webhook_stats *s)
{
	free(s->counters);
	s->counters = NULL;
	s->counter_count = 0;
	pthread_mutex_destroy(&s->lock);
}

void dnsb_webhook_stats_count(dnsb_webhook_stats *s, enum dnsb_webhook_route route,
			      const char *method, unsigned status, double seconds)
{
	size_t i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->counter_count; i++) {
		dnsb_webhook_counter *c = &s->counters[i];
		if (c->route == route && c->status == status && strcmp(c->method, method) == 0)
			break;
	}
	if (i == s->counter_count) {
		dnsb_webhook_counter *n = realloc(s->counters, (i + 1) * sizeof(*n));
		if (n == NULL) {
			pthread_mutex_unlock(&s->lock); /* the sample is lost, never the process */
			return;
		}
		s->counters = n;
		n[i].route = route;
		n[i].method = method;
		n[i].status = status;
		n[i].count = 0;
		s->counter_count++;
	}
	s->counters[i].count++;
	for (size_t b = 0; b < DNSB_WEBHOOK_BUCKETS; b++)
		if (seconds <= bounds[b])
			s->buckets[route][b]++;
	s->observations[route]++;
	s->seconds[route] += seconds;
	pthread_mutex_unlock(&s->lock);
}

struct buf {
	char *p;
	size_t len, cap;
	int oom;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if ((size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap * 2 + (size_t)n + 1;
		char *p = realloc(b->p, cap);
		if (p == NULL) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
}

int dnsb_webhook_stats_render(char **out, size_t *len, dnsb_webhook_stats *s,
			      int ready, unsigned inflight, unsigned applies)
{
	struct buf b = { malloc(4096), 0, 4096, 0 };

	*out = NULL;
	*len = 0;
	if (b.p == NULL)
		return DNSB_ENOMEM;
	b.p[0] = '\0';
	pthread_mutex_lock(&s->lock);
	put(&b, "# HELP dnsbatch_webhook_requests_total HTTP requests answered by the webhook server.\n"
		"# TYPE dnsbatch_webhook_requests_total counter\n");
	for (size_t i = 0; i < s->counter_count; i++) {
		const dnsb_webhook_counter *c = &s->counters[i];
		put(&b, "dnsbatch_webhook_requests_total{route=\"%s\",method=\"%s\",code=\"%u\"} %lu\n",
		    route_names[c->route], c->method, c->status, c->count);
	}
	put(&b, "# HELP dnsbatch_webhook_request_duration_seconds Time from a request's arrival to its reply.\n"
		"# TYPE dnsbatch_webhook_request_duration_seconds histogram\n");
	for (int r = 0; r < DNSB_ROUTE_COUNT; r++) {
		if (s->observations[r] == 0)
			continue;
		for (size_t k = 0; k < DNSB_WEBHOOK_BUCKETS; k++)
			put(&b, "dnsbatch_webhook_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %lu\n",
			    route_names[r], bounds[k], s->buckets[r][k]);
		put(&b, "dnsbatch_webhook_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %lu\n",
		    route_names[r], s->observations[r]);
		put(&b, "dnsbatch_webhook_request_duration_seconds_sum{route=\"%s\"} %.6f\n", route_names[r], s->seconds[r]);
		put(&b, "dnsbatch_webhook_request_duration_seconds_count{route=\"%s\"} %lu\n", route_names[r],
		    s->observations[r]);
	}
	pthread_mutex_unlock(&s->lock);
	put(&b, "# HELP dnsbatch_webhook_ready 1 once the provider has answered, else 0.\n"
		"# TYPE dnsbatch_webhook_ready gauge\ndnsbatch_webhook_ready %d\n", ready ? 1 : 0);
	put(&b, "# HELP dnsbatch_webhook_requests_in_flight Requests being read, handled or answered.\n"
		"# TYPE dnsbatch_webhook_requests_in_flight gauge\ndnsbatch_webhook_requests_in_flight %u\n", inflight);
	put(&b, "# HELP dnsbatch_webhook_applies_in_flight POST /records requests being applied.\n"
		"# TYPE dnsbatch_webhook_applies_in_flight gauge\ndnsbatch_webhook_applies_in_flight %u\n", applies);
	if (b.oom) {
		free(b.p);
		return DNSB_ENOMEM;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}
