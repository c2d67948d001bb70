/*
 * engine_fixture.h - shared by the engine tests: a fake clock, plan
 * builders, a scripted provider and the outcome invariant.
 */
#ifndef DNSB_ENGINE_FIXTURE_H
#define DNSB_ENGINE_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "dnsbatch/dnsbatch.h"
#include "dnsbatch/sys/provider.h"

/* A clock that only moves when the engine sleeps. */
typedef struct fake_clock {
	double t;
	double slept[64];
	size_t sleeps;
	dnsb_clock clock;
} fake_clock;

static double fake_now(void *payload)
{
	return ((fake_clock *)payload)->t;
}

static void fake_sleep(void *payload, double s)
{
	fake_clock *c = payload;

	if (c->sleeps < 64)
		c->slept[c->sleeps] = s;
	c->sleeps++;
	c->t += s;
}

static void fake_clock_init(fake_clock *c)
{
	memset(c, 0, sizeof(*c));
	c->t = 1000.0;
	c->clock.now = fake_now;
	c->clock.sleep = fake_sleep;
	c->clock.payload = c;
}

/* A plan of n A-record creations h0..h(n-1).example.com, optionally with ownership TXT records. */
static dnsb_plan *plan_of_creates(size_t n, int with_txt)
{
	json_object *root = json_object_new_object(), *list = json_object_new_array();
	dnsb_plan *plan = NULL;
	dnsb_error err = { 0 };
	char name[64], target[32];

	for (size_t i = 0; i < n; i++) {
		json_object *ep = json_object_new_object(), *t = json_object_new_array();
		snprintf(name, sizeof(name), "h%zu.example.com", i);
		snprintf(target, sizeof(target), "192.0.2.%zu", i % 250 + 1);
		json_object_array_add(t, json_object_new_string(target));
		json_object_object_add(ep, "dnsName", json_object_new_string(name));
		json_object_object_add(ep, "recordType", json_object_new_string("A"));
		json_object_object_add(ep, "targets", t);
		json_object_array_add(list, ep);
		if (with_txt) {
			json_object *txt = json_object_new_object(), *tt = json_object_new_array(), *labels = json_object_new_object();
			char owner[72];
			snprintf(owner, sizeof(owner), "a-h%zu.example.com", i);
			json_object_array_add(tt, json_object_new_string("\"heritage=external-dns,external-dns/owner=default\""));
			json_object_object_add(txt, "dnsName", json_object_new_string(owner));
			json_object_object_add(txt, "recordType", json_object_new_string("TXT"));
			json_object_object_add(txt, "targets", tt);
			json_object_object_add(labels, "ownedRecord", json_object_new_string(name));
			json_object_object_add(txt, "labels", labels);
			json_object_array_add(list, txt);
		}
	}
	json_object_object_add(root, "create", list);
	const char *s = json_object_to_json_string(root);
	assert_int_equal(dnsb_plan_parse(&plan, s, strlen(s), "test", &err), 0);
	json_object_put(root);
	return plan;
}

static dnsb_provider *memory_zone(const char *faults)
{
	const char *zones[] = { "example.com." };
	dnsb_provider *p = NULL;
	dnsb_error err = { 0 };

	assert_int_equal(dnsb_memory_new(&p, zones, 1, faults, &err), 0);
	return p;
}

/* Put an RRset "owner A rdata" (TTL 300) into the memory provider. */
static void put_a(dnsb_provider *p, const char *owner, const char *rdata)
{
	dnsb_rrset r = { 0 };

	r.owner = strdup(owner);
	r.type = 1;
	r.ttl = 300;
	assert_int_equal(dnsb_rrset_add_rdata(&r, rdata), 0);
	assert_int_equal(dnsb_memory_put(p, &r), 0);
	dnsb_rrset_clear(&r);
}

/* Every change has exactly one outcome and the report adds up. */
static void assert_invariant(dnsb_plan *plan, const dnsb_report *rep)
{
	size_t n[5] = { 0 };

	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		assert_true(c->outcome > DNSB_OUTCOME_PENDING && c->outcome <= DNSB_OUTCOME_FAILED);
		n[c->outcome]++;
		if (c->outcome == DNSB_OUTCOME_DROPPED || c->outcome == DNSB_OUTCOME_FAILED)
			assert_int_not_equal(c->reason, DNSB_REASON_NONE);
		else
			assert_int_equal(c->reason, DNSB_REASON_NONE);
	}
	assert_int_equal(rep->changes, dnsb_plan_count(plan));
	assert_int_equal(rep->applied, n[DNSB_OUTCOME_APPLIED]);
	assert_int_equal(rep->already_applied, n[DNSB_OUTCOME_ALREADY_APPLIED]);
	assert_int_equal(rep->dropped, n[DNSB_OUTCOME_DROPPED]);
	assert_int_equal(rep->failed, n[DNSB_OUTCOME_FAILED]);
	assert_int_equal(rep->changes, rep->applied + rep->already_applied + rep->dropped + rep->failed);
}

/*
 * A scripted provider: each submission's class is decided by a callback
 * over the batch. It applies nothing; read answers from `held`.
 */
typedef struct scripted {
	dnsb_class (*decide)(struct scripted *s, dnsb_change *const *changes, size_t n, dnsb_result *out);
	const char *bad_owner;      /* the owner that conflicts */
	long wrong_hint;            /* hint to give instead of the true one, -2 = true one */
	size_t max_n;               /* TOO_LARGE above this */
	unsigned long calls;
	size_t sizes[256];
	dnsb_rrset_list held;
} scripted;

static int scripted_submit(void *state, const char *zone, dnsb_change *const *changes, size_t n,
			   dnsb_result *out, dnsb_error *err)
{
	scripted *s = state;

	(void)zone;
	(void)err;
	if (s->calls < 256)
		s->sizes[s->calls] = n;
	s->calls++;
	out->cls = s->decide(s, changes, n, out);
	return 0;
}

static int scripted_read(void *state, const char *zone, const dnsb_rrkey *keys, size_t n, dnsb_rrset_list *out,
			 dnsb_error *err)
{
	scripted *s = state;

	(void)zone;
	(void)err;
	for (size_t i = 0; i < n; i++) {
		const dnsb_rrset *r = dnsb_rrset_list_find(&s->held, keys[i].owner, keys[i].type);
		dnsb_rrset copy;
		if (r && dnsb_rrset_copy(&copy, r) == 0)
			dnsb_rrset_list_push(out, &copy);
	}
	return 0;
}

static int scripted_list(void *state, const char *zone, dnsb_rrset_list *out, dnsb_error *err)
{
	(void)state;
	(void)zone;
	(void)out;
	(void)err;
	return 0;
}

static void scripted_close(void *state)
{
	dnsb_rrset_list_clear(&((scripted *)state)->held);
}

static const dnsb_provider_ops scripted_ops = {
	DNSB_PROVIDER_OPS_VERSION, "scripted", scripted_submit, scripted_read, scripted_list, scripted_close
};

static dnsb_provider *scripted_provider(scripted *s)
{
	dnsb_provider *p = NULL;

	assert_int_equal(dnsb_provider_alloc(&p, &scripted_ops, s), 0);
	assert_int_equal(dnsb_provider_add_zone(p, "example.com", NULL), 0);
	return p;
}

#endif
