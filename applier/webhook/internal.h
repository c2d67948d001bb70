/* webhook_internal.h - pieces of the webhook server shared between its files (not installed). */
#ifndef DNSBATCH_WEBHOOK_INTERNAL_H
#define DNSBATCH_WEBHOOK_INTERNAL_H

#include <pthread.h>
#include <stddef.h>

/** The routes the server knows, as labels of its own metrics. */
enum dnsb_webhook_route {
	DNSB_ROUTE_NEGOTIATE = 0,  /* GET / */
	DNSB_ROUTE_RECORDS,        /* GET and POST /records */
	DNSB_ROUTE_ADJUST,         /* POST /adjustendpoints */
	DNSB_ROUTE_HEALTHZ,
	DNSB_ROUTE_METRICS,
	DNSB_ROUTE_OTHER,
	DNSB_ROUTE_COUNT
};

/** Upper bounds of the request-duration histogram, seconds. */
#define DNSB_WEBHOOK_BUCKETS 13

/** One (route, method, status) counter. */
typedef struct dnsb_webhook_counter {
	enum dnsb_webhook_route route;
	const char *method;  /* static string */
	unsigned status;
	unsigned long count;
} dnsb_webhook_counter;

/** The server's own request metrics. Thread-safe through `lock`. */
typedef struct dnsb_webhook_stats {
	pthread_mutex_t lock;
	dnsb_webhook_counter *counters;
	size_t counter_count;
	unsigned long buckets[DNSB_ROUTE_COUNT][DNSB_WEBHOOK_BUCKETS];
	unsigned long observations[DNSB_ROUTE_COUNT];
	double seconds[DNSB_ROUTE_COUNT];
} dnsb_webhook_stats;

void dnsb_webhook_stats_init(dnsb_webhook_stats *s);
void dnsb_webhook_stats_clear(dnsb_webhook_stats *s);

/** Count one answered request; `seconds` from its first byte to its reply. */
void dnsb_webhook_stats_count(dnsb_webhook_stats *s, enum dnsb_webhook_route route,
			      const char *method, unsigned status, double seconds);

/**
 * Render the server's series in the Prometheus text format:
 * dnsbatch_webhook_requests_total{route,method,code},
 * dnsbatch_webhook_request_duration_seconds{route} (histogram),
 * dnsbatch_webhook_ready, dnsbatch_webhook_requests_in_flight,
 * dnsbatch_webhook_applies_in_flight (gauges).
 * @param out  receives a malloc'd string (the caller's)
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_webhook_stats_render(char **out, size_t *len, dnsb_webhook_stats *s,
			      int ready, unsigned inflight, unsigned applies);


#endif
