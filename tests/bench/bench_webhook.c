/*
 * bench_webhook.c - load generator for `dnsbatch serve`: N clients speaking
 * as external-dns does (tests/integration/extdns_client.c) send one kind of
 * request for a fixed time; prints requests per second and latency
 * percentiles. The server runs in its own process (bench_webhook.sh starts
 * it) so that its peak RSS can be read from /proc.
 *
 *   bench_webhook --url http://127.0.0.1:PORT --mode post|get|loop [--clients 8]
 *                 [--seconds 10] [--changes 100] [--zone bench.test] [--loops N]
 *
 * post: each client alternates a plan creating `changes` A records (with
 *       names of its own) and the plan deleting them again, so the zone keeps
 *       its size and every change really applies.
 * get:  GET /records (the reply checked, not decoded).
 * loop: one external-dns sync loop: GET /records (decoded, as external-dns
 *       does), POST /adjustendpoints with the `changes` desired endpoints,
 *       POST /records with them (created, then deleted on the next loop);
 *       with --loops N each client stops after N loops.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "integration/extdns_client.c"

typedef struct bench {
	const char *url, *mode, *zone;
	int clients;
	double seconds;
	int changes;
	double deadline;
	long loops;           /* loop mode: loops per client, 0 = until --seconds */
} bench;

typedef struct client {
	const bench *b;
	int id;
	double *lat;          /* seconds per request */
	size_t count, cap;
	unsigned long errors;
	unsigned long changes; /* changes sent in answered plans */
	char first_error[600];
} client;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The `changes` endpoints of a client's round. */
static struct json_object *make_list(const client *c, unsigned long round)
{
	struct json_object *list = json_object_new_array();

	for (int i = 0; i < c->b->changes; i++) {
		char name[128], ip[32];
		const char *t[1] = { ip };
		snprintf(name, sizeof(name), "c%d-r%lu-%d.%s", c->id, round, i, c->b->zone);
		snprintf(ip, sizeof(ip), "10.%d.%d.%d", c->id, (i >> 8) & 255, i & 255);
		json_object_array_add(list, extdns_endpoint(name, "A", 300, t, 1, NULL, NULL));
	}
	return list;
}

static struct json_object *make_plan(const client *c, unsigned long round, int del)
{
	struct json_object *list = make_list(c, round), *plan;

	plan = del ? extdns_changes(NULL, NULL, NULL, list, 0) : extdns_changes(list, NULL, NULL, NULL, 0);
	json_object_put(list);
	return plan;
}

/* One sync loop as external-dns runs it. @return 1 when every step answered as external-dns expects */
static int sync_loop(client *c, extdns_client *http, unsigned long round)
{
	struct json_object *desired = make_list(c, round / 2), *plan = make_plan(c, round / 2, (int)(round % 2));
	struct json_object *current = NULL, *adjusted = NULL;
	long status = 0;
	int ok;

	ok = extdns_records(http, &current, &status) == 0 &&
	     extdns_adjust(http, desired, &adjusted, &status) == 0 &&
	     extdns_apply(http, plan, 0, &status) == EXTDNS_OK;
	json_object_put(current);
	json_object_put(adjusted);
	json_object_put(desired);
	json_object_put(plan);
	return ok;
}

static void record(client *c, double seconds)
{
	if (c->count == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 4096;
		double *l = realloc(c->lat, cap * sizeof(*l));
		if (l == NULL)
			return;
		c->lat = l;
		c->cap = cap;
	}
	c->lat[c->count++] = seconds;
}

static void *run(void *arg)
{
	client *c = arg;
	extdns_client *http = extdns_client_new(c->b->url, 60);
	unsigned long round = 0;

	while (now() < c->b->deadline && (c->b->loops == 0 || (long)round < c->b->loops)) {
		double t0;
		int ok;

		if (strcmp(c->b->mode, "loop") == 0) {
			t0 = now();
			ok = sync_loop(c, http, round++);
			if (ok)
				c->changes += (unsigned long)c->b->changes;
		} else if (strcmp(c->b->mode, "post") == 0) {
			/* Build the body outside the timed part: external-dns has it ready. */
			struct json_object *plan = make_plan(c, round / 2, (int)(round % 2));
			long status = 0;
			t0 = now();
			ok = extdns_apply(http, plan, 0, &status) == EXTDNS_OK;
			if (ok)
				c->changes += (unsigned long)c->b->changes;
			json_object_put(plan);
			round++;
		} else {
			/* external-dns's headers, but the body is not decoded: decoding
			 * 10,000 endpoints is external-dns's cost, and on a small
			 * machine it would take the CPU the server is measured on. */
			extdns_reply r;
			t0 = now();
			ok = extdns_request(http, "GET", "/records", accept_hdr, NULL, 0, &r) == 0 && r.status == 200 &&
			     r.content_type && strcmp(r.content_type, EXTDNS_MEDIA_TYPE) == 0 && r.len > 2;
			if (!ok)
				snprintf(http->error, sizeof(http->error), "GET /records: status %ld", r.status);
			extdns_reply_clear(&r);
		}
		record(c, now() - t0);
		if (!ok && c->errors++ == 0)
			snprintf(c->first_error, sizeof(c->first_error), "%s", extdns_client_error(http));
	}
	extdns_client_free(http);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int usage(void)
{
	fprintf(stderr, "usage: bench_webhook --url URL --mode post|get|loop [--clients N] [--seconds S] "
			"[--changes N] [--zone APEX] [--loops N]\n");
	return 2;
}

int main(int argc, char **argv)
{
	bench b = { NULL, NULL, "bench.test", 8, 10.0, 100, 0, 0 };
	client *clients;
	pthread_t *th;
	double *all, start, took;
	size_t n = 0;
	unsigned long errors = 0, changes = 0;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--url") == 0)
			b.url = argv[i + 1];
		else if (strcmp(argv[i], "--mode") == 0)
			b.mode = argv[i + 1];
		else if (strcmp(argv[i], "--clients") == 0)
			b.clients = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--seconds") == 0)
			b.seconds = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--changes") == 0)
			b.changes = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--zone") == 0)
			b.zone = argv[i + 1];
		else if (strcmp(argv[i], "--loops") == 0)
			b.loops = atol(argv[i + 1]);
		else
			return usage();
	}
	if (b.url == NULL || b.mode == NULL || b.clients < 1 || !(b.seconds > 0) || b.changes < 1 ||
	    (strcmp(b.mode, "post") != 0 && strcmp(b.mode, "get") != 0 && strcmp(b.mode, "loop") != 0))
		return usage();

	curl_global_init(CURL_GLOBAL_DEFAULT);
	clients = calloc((size_t)b.clients, sizeof(*clients));
	th = calloc((size_t)b.clients, sizeof(*th));
	if (clients == NULL || th == NULL)
		return 1;
	start = now();
	b.deadline = start + b.seconds;
	for (int i = 0; i < b.clients; i++) {
		clients[i].b = &b;
		clients[i].id = i;
		if (pthread_create(&th[i], NULL, run, &clients[i]) != 0)
			return 1;
	}
	for (int i = 0; i < b.clients; i++) {
		pthread_join(th[i], NULL);
		n += clients[i].count;
		errors += clients[i].errors;
		changes += clients[i].changes;
	}
	took = now() - start;
	all = malloc((n ? n : 1) * sizeof(*all));
	if (all == NULL)
		return 1;
	n = 0;
	for (int i = 0; i < b.clients; i++) {
		memcpy(all + n, clients[i].lat, clients[i].count * sizeof(*all));
		n += clients[i].count;
	}
	qsort(all, n, sizeof(*all), cmp_double);
	printf("mode=%s clients=%d seconds=%.1f requests=%zu errors=%lu req_per_s=%.1f "
	       "p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f",
	       b.mode, b.clients, took, n, errors, (double)n / took,
	       n ? all[n / 2] * 1000 : 0, n ? all[n * 9 / 10] * 1000 : 0,
	       n ? all[n * 99 / 100] * 1000 : 0, n ? all[n - 1] * 1000 : 0);
	if (strcmp(b.mode, "get") != 0)
		printf(" changes_per_s=%.0f", (double)changes / took);
	printf("\n");
	for (int i = 0; i < b.clients; i++) {
		if (clients[i].first_error[0])
			fprintf(stderr, "client %d: first error: %s\n", i, clients[i].first_error);
		free(clients[i].lat);
	}
	free(all);
	free(clients);
	free(th);
	curl_global_cleanup();
	return errors ? 1 : 0;
}
