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
#include "dnsbatch/memory.h"
#include "dnsbatch/sys/provider.h"
#include "applier/core/pacing.h"
#include "applier/core/provider.h"

/* A clock that only moves when the engine sleeps. */
typedef struct fake_clock {
	double t;
	double slept[64];
	size_t sleeps;
	dnsb_clock clock;
} fake_clock;

static inline double fake_now(void *payload)
{
	return ((fake_clock *)payload)->t;
}

static inline void fake_sleep(void *payload, double s)
{
	fake_clock *c = payload;

	if (c->sleeps < 64)
		c->slept[c->sleeps] = s;
	c->sleeps++;
	c->t += s;
}

static inline void fake_clock_init(fake_clock *c)
{
	memset(c, 0, sizeof(*c));
	c->t = 1000.0;
	c->clock.version = DNSB_CLOCK_VERSION;
	c->clock.now = fake_now;
	c->clock.sleep = fake_sleep;
	c->clock.payload = c;
}

/* A plan of n A-record creations h0..h(n-1).example.com, optionally with ownership TXT records. */
static inline dnsb_plan *plan_of_creates(size_t n, int with_txt)
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

static inline dnsb_provider *memory_zone(const char *faults)
{
	const char *zones[] = { "example.com." };
	dnsb_provider *p = NULL;
	dnsb_error err = { 0 };

	assert_int_equal(dnsb_memory_new(&p, zones, 1, faults, &err), 0);
	return p;
}

/* Put an RRset "owner A rdata" (TTL 300) into the memory provider. */
static inline void put_a(dnsb_provider *p, const char *owner, const char *rdata)
{
	dnsb_rrset r = { 0 };

	r.owner = strdup(owner);
	r.type = 1;
	r.ttl = 300;
	assert_int_equal(dnsb_rrset_add_rdata(&r, rdata), 0);
	assert_int_equal(dnsb_memory_put(p, &r), 0);
	dnsb_rrset_clear(&r);
}

/* Is the A RRset owner -> rdata held by the provider right now (one RDATA, that one)? */
static inline int holds_a(dnsb_provider *p, const char *owner, const char *rdata)
{
	dnsb_rrkey key = { owner, 1 };
	dnsb_rrset_list held = { 0 };
	int yes;

	assert_int_equal(dnsb_provider_read(p, "example.com.", &key, 1, 0, &held, NULL, NULL), 0);
	yes = held.count == 1 && held.items[0].rdata_count == 1 && strcmp(held.items[0].rdata[0], rdata) == 0;
	dnsb_rrset_list_clear(&held);
	return yes;
}

/* Every change has exactly one outcome and the report adds up. */
static inline void assert_invariant(dnsb_plan *plan, const dnsb_report *rep)
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

static inline int scripted_submit(void *state, const char *zone, dnsb_change *const *changes, size_t n,
			   double timeout, dnsb_result *out, dnsb_error *err)
{
	scripted *s = state;

	(void)zone;
	(void)timeout;
	(void)err;
	if (s->calls < 256)
		s->sizes[s->calls] = n;
	s->calls++;
	out->cls = s->decide(s, changes, n, out);
	return 0;
}

static inline int scripted_read(void *state, const char *zone, const dnsb_rrkey *keys, size_t n, double timeout,
			 dnsb_rrset_list *out, dnsb_error *err)
{
	scripted *s = state;

	(void)zone;
	(void)timeout;
	(void)err;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < s->held.count; k++) {
			const dnsb_rrset *r = &s->held.items[k];
			dnsb_rrset copy;
			if (strcmp(r->owner, keys[i].owner) != 0 || (keys[i].type != DNSB_RRKEY_ANY && r->type != keys[i].type) ||
			    dnsb_rrset_list_find(out, r->owner, r->type))
				continue;
			if (dnsb_rrset_copy(&copy, r) == 0)
				dnsb_rrset_list_push(out, &copy);
		}
	}
	return 0;
}

static inline int scripted_list(void *state, const char *zone, double timeout, dnsb_rrset_list *out,
				dnsb_error *err)
{
	(void)state;
	(void)zone;
	(void)timeout;
	(void)out;
	(void)err;
	return 0;
}

static inline void scripted_close(void *state)
{
	dnsb_rrset_list_clear(&((scripted *)state)->held);
}

__attribute__((unused)) static const dnsb_provider_ops scripted_ops =
	DNSB_PROVIDER_OPS_INIT("scripted", scripted_submit, scripted_read, scripted_list, scripted_close);

static inline dnsb_provider *scripted_provider(scripted *s)
{
	dnsb_provider *p = NULL;

	assert_int_equal(dnsb_provider_alloc(&p, &scripted_ops, s), 0);
	assert_int_equal(dnsb_provider_add_zone(p, "example.com", NULL), 0);
	return p;
}

static inline void set_names_culprit(dnsb_provider *p, int on)
{
	dnsb_provider_limits l = *dnsb_provider_get_limits(p);

	l.names_culprit = on;
	dnsb_provider_set_limits(p, &l);
}

/* One engine run: a fake clock, a provider, a plan, options and the report. */
typedef struct run {
	fake_clock c;
	dnsb_provider *p;
	dnsb_plan *plan;
	dnsb_engine_options o;
	dnsb_report rep;
} run;

/* A memory zone with `faults`, a plan of n creations (with ownership TXT records when txt). */
static inline void run_init(run *r, const char *faults, size_t n, int txt)
{
	memset(r, 0, sizeof(*r));
	fake_clock_init(&r->c);
	r->o = (dnsb_engine_options)DNSB_ENGINE_OPTIONS_INIT;
	r->o.clock = &r->c.clock;
	r->o.seed = 42;
	r->p = memory_zone(faults);
	r->plan = n ? plan_of_creates(n, txt) : NULL;
}

/* The same with a scripted provider. */
static inline void run_init_scripted(run *r, scripted *s, size_t n)
{
	run_init(r, NULL, n, 0);
	dnsb_provider_free(r->p);
	r->p = scripted_provider(s);
}

/* Apply, check the outcome invariant; a second apply clears the first report. */
static inline void run_apply(run *r)
{
	dnsb_error err = { 0 };

	dnsb_report_clear(&r->rep);
	assert_int_equal(dnsb_engine_apply(&r->rep, r->p, r->plan, &r->o, &err), 0);
	assert_invariant(r->plan, &r->rep);
}

/* Replace the plan (the old one is freed). */
static inline void run_plan(run *r, dnsb_plan *plan)
{
	dnsb_plan_free(r->plan);
	r->plan = plan;
}

static inline dnsb_change *run_change(run *r, size_t i)
{
	return dnsb_plan_change(r->plan, i);
}

static inline void run_free(run *r)
{
	dnsb_report_clear(&r->rep);
	dnsb_plan_free(r->plan);
	dnsb_provider_free(r->p);
}

static inline dnsb_plan *parse_plan(const char *json)
{
	dnsb_plan *plan = NULL;

	assert_int_equal(dnsb_plan_parse(&plan, json, strlen(json), "t", NULL), 0);
	return plan;
}

#endif
