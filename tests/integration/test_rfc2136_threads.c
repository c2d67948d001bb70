/*
 * test_rfc2136_threads.c - one rfc2136 provider used by several threads at
 * once (as the sidecar does), against a real BIND started by servers.sh:
 * submissions, conflicts with their culprit, reads and AXFR interleave on the
 * shared connection pool, and every change lands exactly once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "applier/core/provider.h"
#include "integration/bind_fixture.h"
#include "providers/rfc2136/internal.h"

enum { THREADS = 8, BATCHES = 10, PER_BATCH = 5 };


static dnsb_provider *provider_open(void)
{
	return bind_provider(&bind_group_server, NULL);
}

static void create_change(dnsb_change *c, const char *owner, const char *rdata)
{
	memset(c, 0, sizeof(*c));
	c->kind = DNSB_CHANGE_CREATE;
	c->new_set.owner = strdup(owner);
	c->new_set.type = LDNS_RR_TYPE_A;
	c->new_set.ttl = 300;
	dnsb_rrset_add_rdata(&c->new_set, rdata);
}

typedef struct worker {
	dnsb_provider *p;
	int id;
	int failures;           /* checked by the main thread (cmocka asserts only there) */
	char why[1024];
} worker;

static void worker_fail(worker *w, const char *what, const char *detail)
{
	if (w->failures++ == 0)
		snprintf(w->why, sizeof(w->why), "thread %d: %s: %s", w->id, what, detail);
}

/* BATCHES batches of PER_BATCH creations, then one batch holding a conflict, then a read. */
static void *work(void *arg)
{
	worker *w = arg;
	dnsb_change cs[PER_BATCH + 1], *ptrs[PER_BATCH + 1];
	dnsb_result res;
	dnsb_error err;
	char owner[64], rdata[32];

	for (int b = 0; b < BATCHES; b++) {
		for (int i = 0; i < PER_BATCH; i++) {
			snprintf(owner, sizeof(owner), "t%d-b%d-%d.example.test.", w->id, b, i);
			snprintf(rdata, sizeof(rdata), "10.%d.%d.%d", w->id, b, i);
			create_change(&cs[i], owner, rdata);
			ptrs[i] = &cs[i];
		}
		if (dnsb_provider_submit(w->p, "example.test.", ptrs, PER_BATCH, 0, &res, NULL, &err) != 0)
			worker_fail(w, "submit", err.message);
		else if (res.cls != DNSB_CLASS_OK)
			worker_fail(w, "submit class", res.message);
		for (int i = 0; i < PER_BATCH; i++)
			dnsb_rrset_clear(&cs[i].new_set);
	}
	/* taken.example.test. A exists: in the middle of a batch, it must be named as the culprit. */
	for (int i = 0; i <= PER_BATCH; i++) {
		snprintf(owner, sizeof(owner), i == 3 ? "taken.example.test." : "c%d-%d.example.test.", w->id, i);
		create_change(&cs[i], owner, "192.0.2.99");
		ptrs[i] = &cs[i];
	}
	if (dnsb_provider_submit(w->p, "example.test.", ptrs, PER_BATCH + 1, 0, &res, NULL, &err) != 0)
		worker_fail(w, "conflict submit", err.message);
	else if (res.cls != DNSB_CLASS_CONFLICT || res.culprit_count != 1 || res.culprits[0] != 3 || strcmp(res.code, "YXRRSET") != 0)
		worker_fail(w, "conflict culprit", res.message);
	for (int i = 0; i <= PER_BATCH; i++)
		dnsb_rrset_clear(&cs[i].new_set);
	{
		dnsb_rrset_list out = { 0 };
		dnsb_rrkey key = { owner, LDNS_RR_TYPE_A };
		snprintf(owner, sizeof(owner), "t%d-b0-0.example.test.", w->id);
		if (dnsb_provider_read(w->p, "example.test.", &key, 1, 0, &out, NULL, &err) != 0)
			worker_fail(w, "read", err.message);
		else if (out.count != 1 || out.items[0].rdata_count != 1)
			worker_fail(w, "read", "the RRset is missing");
		dnsb_rrset_list_clear(&out);
	}
	return NULL;
}

static void test_threads_share_one_provider(void **state)
{
	dnsb_provider *p = provider_open();
	pthread_t threads[THREADS];
	worker workers[THREADS];
	dnsb_rrset_list zone = { 0 };
	dnsb_error err = { 0, "" };
	size_t ours = 0;

	(void)state;
	for (int t = 0; t < THREADS; t++) {
		workers[t] = (worker){ p, t, 0, "" };
		assert_int_equal(pthread_create(&threads[t], NULL, work, &workers[t]), 0);
	}
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	for (int t = 0; t < THREADS; t++)
		if (workers[t].failures)
			fail_msg("%d failures; first: %s", workers[t].failures, workers[t].why);
	assert_int_equal(dnsb_provider_list(p, "example.test.", &zone, &err), 0);
	for (size_t i = 0; i < zone.count; i++)
		if (zone.items[i].owner[0] == 't' && zone.items[i].owner[1] != 'a') {
			assert_int_equal(zone.items[i].rdata_count, 1);
			ours++;
		}
	/* Every creation exactly once; none of the conflicting batches' changes. */
	assert_int_equal(ours, THREADS * BATCHES * PER_BATCH);
	assert_null(dnsb_rrset_list_find(&zone, "c0-0.example.test.", LDNS_RR_TYPE_A));
	dnsb_rrset_list_clear(&zone);
	dnsb_provider_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_share_one_provider),
	};

	return cmocka_run_group_tests(tests, bind_group_setup, bind_group_teardown);
}
