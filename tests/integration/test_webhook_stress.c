/*
 * test_webhook_stress.c - 1,000 mixed requests from 8 concurrent clients
 * speaking as external-dns does, against an in-process server with the
 * memory provider. Every reply must carry a status the protocol allows for
 * that request; under `make sanitize` AddressSanitizer and LeakSanitizer
 * watch the server's threads too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "dnsbatch/dnsbatch.h"
#include "dnsbatch/memory.h"
#include "dnsbatch/webhook.h"

#include "extdns_client.c"

#define CLIENTS 8
#define REQUESTS 1000

typedef struct worker {
	char base[64];
	unsigned seed;
	int id;
	unsigned done, bad;
	unsigned long changes;  /* changes sent in plans the server took */
	char first_error[256];
} worker;

static unsigned next_rand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 16) & 0x7fff;
}

static void note(worker *w, const char *what, long status)
{
	w->bad++;
	if (w->first_error[0] == '\0')
		snprintf(w->first_error, sizeof(w->first_error), "client %d: %s -> %ld", w->id, what, status);
}

/* A plan over a small name space, so clients collide: creates that
 * conflict, deletes of what another client made, updates of stale data. */
static struct json_object *random_plan(worker *w)
{
	struct json_object *create = json_object_new_array(), *del = json_object_new_array();
	struct json_object *plan;
	int n = 1 + (int)(next_rand(&w->seed) % 6);

	for (int i = 0; i < n; i++) {
		char name[64], ip[32];
		const char *t[1] = { ip };
		snprintf(name, sizeof(name), "h%u.%s", next_rand(&w->seed) % 40,
			 next_rand(&w->seed) % 2 ? "example.com" : "example.org");
		snprintf(ip, sizeof(ip), "192.0.2.%u", next_rand(&w->seed) % 4);
		json_object_array_add(next_rand(&w->seed) % 3 ? create : del,
				      extdns_endpoint(name, "A", 300, t, 1, "default", "ingress/default/app"));
	}
	plan = extdns_changes(create, NULL, NULL, del, 1);
	json_object_put(create);
	json_object_put(del);
	return plan;
}

static unsigned long plan_changes(struct json_object *plan)
{
	unsigned long n = 0;
	json_object_object_foreach(plan, key, list)
	{
		(void)key;
		n += json_object_array_length(list);
	}
	return n;
}

/* Sum of every dnsbatch_changes_total series: each change counted once. */
static double changes_counted(dnsb_metrics *m)
{
	char *text = NULL;
	size_t len = 0;
	double sum = 0;

	assert_int_equal(dnsb_metrics_render(&text, &len, m), 0);
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "dnsbatch_changes_total{", 23) == 0)
			sum += strtod(strrchr(line, ' ') + 1, NULL);
	free(text);
	return sum;
}

static void *run_worker(void *arg)
{
	worker *w = arg;
	extdns_client *c = extdns_client_new(w->base, 30);
	static const char *const ct[] = { "Content-Type: " EXTDNS_MEDIA_TYPE, NULL };

	for (unsigned i = 0; i < REQUESTS / CLIENTS; i++) {
		unsigned kind = next_rand(&w->seed) % 10;
		struct json_object *obj = NULL;
		extdns_reply r;
		long status = 0;

		switch (kind) {
		case 0:
			if (extdns_negotiate(c, &obj) != 0)
				note(w, "GET /", 0);
			break;
		case 1: case 2:
			if (extdns_records(c, &obj, &status) != 0)
				note(w, "GET /records", status);
			break;
		case 3: case 4: case 5: {
			struct json_object *plan = random_plan(w);
			int rc = extdns_apply(c, plan, next_rand(&w->seed) % 2, &status);
			/* Conflicts are absorbed: 204; the fault script's transient
			 * failures past the retries: 503. Never a 4xx. */
			if (rc == EXTDNS_FATAL || (status != 204 && status != 503))
				note(w, "POST /records", status);
			else
				w->changes += plan_changes(plan);
			json_object_put(plan);
			break;
		}
		case 6: {
			struct json_object *eps = json_object_new_array(), *out = NULL;
			const char *t[1] = { "192.0.2.1" };
			json_object_array_add(eps, extdns_endpoint("x.example.com", "A", 0, t, 1, NULL, NULL));
			if (extdns_adjust(c, eps, &out, &status) != 0)
				note(w, "POST /adjustendpoints", status);
			json_object_put(out);
			json_object_put(eps);
			break;
		}
		case 7:
			if (extdns_request(c, "POST", "/records", ct, "{\"create\":", 10, &r) != 0 || r.status != 400)
				note(w, "POST /records (malformed)", r.status);
			extdns_reply_clear(&r);
			break;
		case 8:
			if (extdns_request(c, "GET", "/metrics", NULL, NULL, 0, &r) != 0 || r.status != 200)
				note(w, "GET /metrics", r.status);
			extdns_reply_clear(&r);
			break;
		default:
			if (extdns_request(c, "GET", "/healthz", NULL, NULL, 0, &r) != 0 || r.status != 200)
				note(w, "GET /healthz", r.status);
			extdns_reply_clear(&r);
			break;
		}
		json_object_put(obj);
		w->done++;
	}
	extdns_client_free(c);
	return NULL;
}

static void test_mixed_load(void **state)
{
	static const char *const zones[] = { "example.com", "example.org" };
	dnsb_webhook_options wo = DNSB_WEBHOOK_OPTIONS_INIT;
	dnsb_engine_options eo = DNSB_ENGINE_OPTIONS_INIT;
	dnsb_provider *p = NULL;
	dnsb_webhook *wh = NULL;
	dnsb_error err = { 0 };
	worker workers[CLIENTS];
	pthread_t th[CLIENTS];
	dnsb_metrics *metrics = NULL;
	unsigned done = 0, bad = 0;
	unsigned long changes = 0;
	(void)state;

	/* Some submissions fail transiently, some after committing: every
	 * engine path runs, concurrently, in the server's threads. */
	assert_int_equal(dnsb_memory_new(&p, zones, 2, "p0.05:transient,p0.03:commit-transient,seed=3", &err), 0);
	eo.max_retries = 1;
	eo.backoff_base = 0.0005;
	eo.backoff_cap = 0.001;
	wo.listen = "127.0.0.1:0";
	wo.metrics_listen = "";
	wo.engine = &eo;
	wo.probe_interval = 0.05;
	assert_int_equal(dnsb_metrics_new(&metrics), 0);
	wo.metrics = metrics;
	assert_int_equal(dnsb_webhook_start(&wh, p, &wo, &err), 0);
	for (int i = 0; i < 100 && !dnsb_webhook_ready(wh); i++)
		usleep(10 * 1000);
	for (int i = 0; i < CLIENTS; i++) {
		memset(&workers[i], 0, sizeof(workers[i]));
		snprintf(workers[i].base, sizeof(workers[i].base), "http://127.0.0.1:%u", dnsb_webhook_port(wh, 0));
		workers[i].seed = 17u + (unsigned)i * 7919u;
		workers[i].id = i;
		assert_int_equal(pthread_create(&th[i], NULL, run_worker, &workers[i]), 0);
	}
	for (int i = 0; i < CLIENTS; i++) {
		pthread_join(th[i], NULL);
		done += workers[i].done;
		bad += workers[i].bad;
		changes += workers[i].changes;
		if (workers[i].first_error[0])
			print_error("%s\n", workers[i].first_error);
	}
	assert_int_equal(done, REQUESTS);
	assert_int_equal(bad, 0);
	assert_true(changes > 0);
	assert_true(changes_counted(metrics) == (double)changes);
	dnsb_webhook_free(wh);
	dnsb_metrics_free(metrics);
	dnsb_provider_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mixed_load),
	};
	int rc;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	dnsb_log_set_level(DNSB_LOG_ERROR);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
