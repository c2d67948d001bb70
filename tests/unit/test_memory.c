/*
 * test_memory.c - the memory provider: its fault script (every action, N,
 * N-M, *, pX with a seed, bad scripts), commit-transient that really
 * commits, rate limits with Retry-After, and the request counters.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L  /* mkdtemp */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dnsbatch/memory.h"
#include "applier/core/clock.h"
#include "applier/core/provider.h"
#include "dnsbatch/plan.h"
#include "dnsbatch/sys/provider.h"

#define BAD_RULE_TAIL \
	" is not WHEN:ACTION[=SECONDS] (WHEN: N, N-M, * or pX; ACTION: latency=S, transient, commit-transient, " \
	"rate-limit[=S], fatal, conflict, wrong-hint, read-transient, write=RECORD) or seed=N"

/* ---- helpers ---- */

static dnsb_provider *memory_with(const char *faults)
{
	static const char *const zones[] = { "example.com", "Example.ORG." };
	dnsb_provider *p = NULL;
	dnsb_error err = { 0 };
	int rc = dnsb_memory_new(&p, zones, 2, faults, &err);

	if (rc != 0)
		print_error("memory_new(%s): %s\n", faults ? faults : "NULL", err.message);
	assert_int_equal(rc, 0);
	assert_non_null(p);
	assert_string_equal(dnsb_provider_name(p), "memory");
	assert_int_equal(dnsb_provider_zone_count(p), 2);
	assert_string_equal(dnsb_provider_zone(p, 1), "example.org.");
	return p;
}

static void bad_script(const char *faults, const char *message)
{
	static const char *const zones[] = { "example.com" };
	dnsb_provider *p = (dnsb_provider *)&p;
	dnsb_error err = { 0 };
	int rc = dnsb_memory_new(&p, zones, 1, faults, &err);

	if (rc != DNSB_EINVAL) {
		print_error("script accepted: '%s'\n", faults);
		if (rc == 0)
			dnsb_provider_free(p);
	}
	assert_int_equal(rc, DNSB_EINVAL);
	assert_int_equal(err.code, DNSB_EINVAL);
	assert_null(p);
	assert_string_equal(err.message, message);
}

/* A plan of one create of `owner` A 192.0.2.N; kept alive by the caller. */
static dnsb_plan *create_plan(const char *owner, int n)
{
	char json[256];
	dnsb_plan *plan = NULL;
	dnsb_error err = { 0 };

	snprintf(json, sizeof(json), "{\"create\":[{\"dnsName\":\"%s\",\"recordType\":\"A\",\"targets\":[\"192.0.2.%d\"]}]}",
		 owner, n);
	assert_int_equal(dnsb_plan_parse(&plan, json, strlen(json), "test", &err), 0);
	assert_int_equal(dnsb_plan_count(plan), 1);
	return plan;
}

static dnsb_class submit_change(dnsb_provider *p, dnsb_change *c, dnsb_result *res)
{
	dnsb_error err = { 0 };

	dnsb_result_init(res);
	assert_int_equal(dnsb_provider_submit(p, "example.com.", &c, 1, 0, res, NULL, &err), 0);
	return res->cls;
}

/* Submit a fresh create of www<i>.example.com; returns the class. */
static dnsb_class submit_nth(dnsb_provider *p, int i, dnsb_result *res)
{
	char owner[64];
	dnsb_plan *plan;
	dnsb_class cls;

	snprintf(owner, sizeof(owner), "www%d.example.com", i);
	plan = create_plan(owner, i % 250 + 1);
	cls = submit_change(p, dnsb_plan_change(plan, 0), res);
	dnsb_plan_free(plan);
	return cls;
}

static int held(dnsb_provider *p, const char *owner)
{
	dnsb_rrkey key = { owner, LDNS_RR_TYPE_A };
	dnsb_rrset_list list = { 0 };
	dnsb_error err = { 0 };
	int found;

	assert_int_equal(dnsb_provider_read(p, "example.com.", &key, 1, 0, &list, NULL, &err), 0);
	found = list.count == 1;
	dnsb_rrset_list_clear(&list);
	return found;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The classes of `n` submissions, as a string: '.' ok, 'T' transient, 'F' fatal, 'R' rate limited, 'C' conflict. */
static void pattern(dnsb_provider *p, int n, char *out)
{
	for (int i = 0; i < n; i++) {
		dnsb_result res;
		switch (submit_nth(p, i, &res)) {
		case DNSB_CLASS_OK: out[i] = '.'; break;
		case DNSB_CLASS_TRANSIENT: out[i] = 'T'; break;
		case DNSB_CLASS_FATAL: out[i] = 'F'; break;
		case DNSB_CLASS_RATE_LIMITED: out[i] = 'R'; break;
		case DNSB_CLASS_CONFLICT: out[i] = 'C'; break;
		default: out[i] = '?'; break;
		}
	}
	out[n] = '\0';
}

static void expect_pattern(const char *faults, const char *want)
{
	dnsb_provider *p = memory_with(faults);
	char got[128];

	pattern(p, (int)strlen(want), got);
	if (strcmp(got, want) != 0)
		print_error("script '%s'\n", faults);
	assert_string_equal(got, want);
	assert_int_equal(dnsb_provider_submissions(p), strlen(want));
	dnsb_provider_free(p);
}

/* ---- no faults: Cloud DNS-like semantics ---- */

static void test_no_faults(void **state)
{
	dnsb_provider *p = memory_with(NULL);
	dnsb_plan *plan = create_plan("www.example.com", 1);
	dnsb_result res;

	(void)state;
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_OK);
	assert_int_equal(res.status, 0);
	assert_int_equal(res.culprit_count, 0);
	assert_true(held(p, "www.example.com."));
	assert_int_equal(dnsb_memory_rrset_count(p), 1);
	/* a second create of the same RRset: 409, and no hint unless asked for */
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_CONFLICT);
	assert_int_equal(res.status, 409);
	assert_string_equal(res.code, "alreadyExists");
	assert_int_equal(res.culprit_count, 0);
	assert_int_equal(dnsb_provider_get_limits(p)->max_additions, 1000);
	assert_int_equal(dnsb_provider_get_limits(p)->names_culprit, 0);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
	/* an empty script is no script */
	expect_pattern("", "....");
	expect_pattern(" , ;", "....");
}

static void test_hints(void **state)
{
	dnsb_provider *p = memory_with(NULL);
	dnsb_plan *a = create_plan("a.example.com", 1), *b = create_plan("b.example.com", 2);
	dnsb_change *batch[2] = { dnsb_plan_change(a, 0), dnsb_plan_change(b, 0) };
	dnsb_error err = { 0 };
	dnsb_result res;

	(void)state;
	assert_int_equal(submit_change(p, batch[1], &res), DNSB_CLASS_OK);
	dnsb_memory_set_hints(p, 1);
	assert_int_equal(dnsb_provider_get_limits(p)->names_culprit, 1);
	dnsb_result_init(&res);
	assert_int_equal(dnsb_provider_submit(p, "example.com.", batch, 2, 0, &res, NULL, &err), 0);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 1);
	/* atomic: a.example.com, before the failing change, was not kept */
	assert_false(held(p, "a.example.com."));
	dnsb_memory_set_hints(p, 0);
	assert_int_equal(dnsb_provider_get_limits(p)->names_culprit, 0);
	dnsb_result_init(&res);
	assert_int_equal(dnsb_provider_submit(p, "example.com.", batch, 2, 0, &res, NULL, &err), 0);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.culprit_count, 0);
	dnsb_plan_free(a);
	dnsb_plan_free(b);
	dnsb_provider_free(p);
}

/* ---- each action ---- */

static void test_transient_commits_nothing(void **state)
{
	dnsb_provider *p = memory_with("1:transient");
	dnsb_plan *plan = create_plan("www.example.com", 1);
	dnsb_result res;

	(void)state;
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_TRANSIENT);
	assert_int_equal(res.status, 503);
	assert_string_equal(res.code, "backendError");
	assert_string_equal(res.message, "Service unavailable (submission 1)");
	assert_false(held(p, "www.example.com."));
	assert_int_equal(dnsb_memory_rrset_count(p), 0);
	/* the retry goes through */
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_OK);
	assert_true(held(p, "www.example.com."));
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_commit_transient_really_commits(void **state)
{
	dnsb_provider *p = memory_with("2:commit-transient");
	dnsb_plan *plan = create_plan("www.example.com", 1);
	dnsb_result res;

	(void)state;
	assert_int_equal(submit_nth(p, 100, &res), DNSB_CLASS_OK);
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_TRANSIENT);
	assert_int_equal(res.status, 502);
	assert_string_equal(res.code, "badGateway");
	assert_string_equal(res.message, "Bad Gateway (submission 2 was committed; the reply was lost)");
	/* committed although the reply said otherwise */
	assert_true(held(p, "www.example.com."));
	assert_int_equal(dnsb_memory_rrset_count(p), 2);
	/* so the retry conflicts: the 502-then-409 case */
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_CONFLICT);
	assert_int_equal(res.status, 409);
	assert_string_equal(res.code, "alreadyExists");
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_commit_transient_on_a_conflicting_batch(void **state)
{
	/* a batch that conflicts is answered as such: nothing was committed, so nothing to lose */
	dnsb_provider *p = memory_with("2:commit-transient");
	dnsb_plan *plan = create_plan("www.example.com", 1);
	dnsb_result res;

	(void)state;
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_OK);
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_CONFLICT);
	assert_int_equal(res.status, 409);
	assert_int_equal(dnsb_memory_rrset_count(p), 1);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_rate_limit_sets_retry_after(void **state)
{
	dnsb_provider *p = memory_with("1:rate-limit=2.5,2:rate-limit,3:rate-limit=0");
	dnsb_plan *plan = create_plan("www.example.com", 1);
	dnsb_result res;

	(void)state;
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_RATE_LIMITED);
	assert_int_equal(res.status, 429);
	assert_string_equal(res.code, "rateLimitExceeded");
	assert_true(res.retry_after == 2.5);
	assert_false(held(p, "www.example.com."));
	/* without a value: no Retry-After */
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_RATE_LIMITED);
	assert_true(res.retry_after < 0);
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_RATE_LIMITED);
	assert_true(res.retry_after == 0);
	assert_false(held(p, "www.example.com."));
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_OK);
	/* other answers carry no Retry-After */
	assert_true(res.retry_after < 0);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_fatal_and_conflict(void **state)
{
	dnsb_provider *p = memory_with("1:fatal,2:conflict");
	dnsb_plan *plan = create_plan("www.example.com", 1);
	dnsb_result res;

	(void)state;
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_FATAL);
	assert_int_equal(res.status, 403);
	assert_string_equal(res.code, "forbidden");
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_CONFLICT);
	assert_int_equal(res.status, 409);
	assert_string_equal(res.code, "conflict");
	assert_string_equal(res.message, "Conflict injected by the fault script");
	assert_false(held(p, "www.example.com."));
	assert_int_equal(submit_change(p, dnsb_plan_change(plan, 0), &res), DNSB_CLASS_OK);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_latency(void **state)
{
	dnsb_provider *p = memory_with("1:latency=0.05,2:latency=0.02,2:latency=0.03,2:transient");
	dnsb_plan *plan = create_plan("www.example.com", 1);
	dnsb_error err = { 0 };
	dnsb_change *c = dnsb_plan_change(plan, 0);
	dnsb_result res;
	double t0, seconds = -1;

	(void)state;
	t0 = now_seconds();
	dnsb_result_init(&res);
	assert_int_equal(dnsb_provider_submit(p, "example.com.", &c, 1, 0, &res, &seconds, &err), 0);
	assert_true(now_seconds() - t0 >= 0.05);
	assert_true(seconds >= 0.05);
	/* latency is not a failure */
	assert_int_equal(res.cls, DNSB_CLASS_OK);
	assert_true(held(p, "www.example.com."));
	/* latency rules add up, and a failure rule still applies */
	t0 = now_seconds();
	assert_int_equal(submit_nth(p, 2, &res), DNSB_CLASS_TRANSIENT);
	assert_true(now_seconds() - t0 >= 0.05);
	t0 = now_seconds();
	assert_int_equal(submit_nth(p, 3, &res), DNSB_CLASS_OK);
	assert_true(now_seconds() - t0 < 0.05);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

/* ---- WHEN ---- */

static void test_when_forms(void **state)
{
	(void)state;
	expect_pattern("3:transient", "..T....");
	expect_pattern("2-4:fatal", ".FFF...");
	expect_pattern("5-5:conflict", "....C..");
	expect_pattern("*:transient", "TTTTTT");
	expect_pattern("*:rate-limit=1", "RRRR");
	/* the first matching failure rule wins */
	expect_pattern("2:fatal,1-3:transient", "TFT...");
	expect_pattern("*:conflict,2:fatal", "CCCC");
	/* separators ',' and ';', spaces around rules, empty rules */
	expect_pattern(" 1:transient ; 3:fatal,,6:conflict ", "T.F..C.");
	/* a large N that is never reached */
	expect_pattern("1000000:fatal", ".....");
}

static void test_probability_with_seed(void **state)
{
	dnsb_provider *p;
	char a[101], b[101], c[101], d[101];
	int count = 0;

	(void)state;
	expect_pattern("p0:transient", "..........");
	expect_pattern("p1:fatal", "FFFFFFFFFF");
	expect_pattern("p1.0:conflict", "CCCC");

	/* the same seed gives the same run */
	p = memory_with("p0.5:transient,seed=7");
	pattern(p, 100, a);
	dnsb_provider_free(p);
	p = memory_with("seed=7;p0.5:transient");
	pattern(p, 100, b);
	dnsb_provider_free(p);
	assert_string_equal(a, b);
	/* about half fail */
	for (int i = 0; i < 100; i++)
		count += a[i] == 'T';
	assert_in_range(count, 30, 70);
	for (int i = 0; i < 100; i++)
		assert_true(a[i] == 'T' || a[i] == '.');

	/* another seed, another run */
	p = memory_with("p0.5:transient,seed=8");
	pattern(p, 100, c);
	dnsb_provider_free(p);
	assert_string_not_equal(a, c);

	/* the default seed is 1 */
	p = memory_with("p0.5:transient");
	pattern(p, 100, c);
	dnsb_provider_free(p);
	p = memory_with("p0.5:transient,seed=1");
	pattern(p, 100, d);
	dnsb_provider_free(p);
	assert_string_equal(c, d);

	/* p rules beside numbered ones: the numbered one wins where it is first */
	p = memory_with("1:fatal,p1:transient");
	pattern(p, 3, a);
	assert_string_equal(a, "FTT");
	dnsb_provider_free(p);
}

static void test_probability_frequency(void **state)
{
	dnsb_provider *p = memory_with("p0.1:transient,seed=42");
	char run[1001];
	int count = 0;

	(void)state;
	pattern(p, 1000, run);
	for (int i = 0; i < 1000; i++)
		count += run[i] == 'T';
	/* Exactly the submissions whose draw from splitmix64 seeded 42 is below 0.1: one draw a
	 * submission (binomial(1000, 0.1) has mean 100, and this stream gives the count below). */
	{
		uint64_t state_42 = 42;
		int expect = 0;
		for (int i = 0; i < 1000; i++) {
			int hit = dnsb_uniform01(&state_42) < 0.1;
			expect += hit;
			assert_int_equal(run[i] == 'T', hit);
		}
		assert_int_equal(count, expect);
		assert_in_range(count, 80, 120);
	}
	dnsb_provider_free(p);
}

/* ---- bad scripts ---- */

static void test_bad_scripts(void **state)
{
	(void)state;
	bad_script("1:bogus", "--memory-faults: rule 1 '1:bogus'" BAD_RULE_TAIL);
	bad_script("1:transient,2:bogus", "--memory-faults: rule 2 '2:bogus'" BAD_RULE_TAIL);
	/* seed counts as a rule; empty rules do not */
	bad_script("seed=3,, 1:transient ; nonsense", "--memory-faults: rule 3 'nonsense'" BAD_RULE_TAIL);
	bad_script("0:transient", "--memory-faults: rule 1 '0:transient'" BAD_RULE_TAIL);
	bad_script("3-1:transient", "--memory-faults: rule 1 '3-1:transient'" BAD_RULE_TAIL);
	bad_script("x:transient", "--memory-faults: rule 1 'x:transient'" BAD_RULE_TAIL);
	bad_script("-1:transient", "--memory-faults: rule 1 '-1:transient'" BAD_RULE_TAIL);
	bad_script("1transient", "--memory-faults: rule 1 '1transient'" BAD_RULE_TAIL);
	bad_script(":transient", "--memory-faults: rule 1 ':transient'" BAD_RULE_TAIL);
	bad_script("1:", "--memory-faults: rule 1 '1:'" BAD_RULE_TAIL);
	bad_script("1:latency", "--memory-faults: rule 1 '1:latency'" BAD_RULE_TAIL);
	bad_script("1:latency=", "--memory-faults: rule 1 '1:latency='" BAD_RULE_TAIL);
	bad_script("1:latency=-1", "--memory-faults: rule 1 '1:latency=-1'" BAD_RULE_TAIL);
	bad_script("1:latency=fast", "--memory-faults: rule 1 '1:latency=fast'" BAD_RULE_TAIL);
	bad_script("1:transient=5", "--memory-faults: rule 1 '1:transient=5'" BAD_RULE_TAIL);
	bad_script("1:fatal=1", "--memory-faults: rule 1 '1:fatal=1'" BAD_RULE_TAIL);
	bad_script("1:rate-limit=soon", "--memory-faults: rule 1 '1:rate-limit=soon'" BAD_RULE_TAIL);
	bad_script("1:Transient", "--memory-faults: rule 1 '1:Transient'" BAD_RULE_TAIL);
	bad_script("p1.5:transient", "--memory-faults: rule 1 'p1.5:transient'" BAD_RULE_TAIL);
	bad_script("p-0.1:transient", "--memory-faults: rule 1 'p-0.1:transient'" BAD_RULE_TAIL);
	bad_script("p:transient", "--memory-faults: rule 1 'p:transient'" BAD_RULE_TAIL);
	bad_script("pq:transient", "--memory-faults: rule 1 'pq:transient'" BAD_RULE_TAIL);
	bad_script("seed=", "--memory-faults: rule 1 'seed='" BAD_RULE_TAIL);
	bad_script("seed=x", "--memory-faults: rule 1 'seed=x'" BAD_RULE_TAIL);
	/* the message shows the rule trimmed */
	bad_script("1:transient,   2:oops   ", "--memory-faults: rule 2 '2:oops'" BAD_RULE_TAIL);
}

static void test_bad_submission_numbers(void **state)
{
	/*
	 * N and M are submission numbers: whole numbers. "1.5" is not one, and
	 * "1e30" or "inf" do not fit an unsigned long (the cast is undefined
	 * behaviour). BUG, see .notes/tests-bugs.md: memory.c parses them with
	 * strtod and accepts them.
	 */
	(void)state;
	bad_script("1.5:transient", "--memory-faults: rule 1 '1.5:transient'" BAD_RULE_TAIL);
	bad_script("2-3.5:transient", "--memory-faults: rule 1 '2-3.5:transient'" BAD_RULE_TAIL);
	bad_script("1e30:transient", "--memory-faults: rule 1 '1e30:transient'" BAD_RULE_TAIL);
	bad_script("inf:transient", "--memory-faults: rule 1 'inf:transient'" BAD_RULE_TAIL);
	bad_script("1-inf:transient", "--memory-faults: rule 1 '1-inf:transient'" BAD_RULE_TAIL);
	/* the seed is a whole number too, and (uint64_t)1e30 is as undefined */
	bad_script("seed=1e30", "--memory-faults: rule 1 'seed=1e30'" BAD_RULE_TAIL);
	bad_script("seed=2.5", "--memory-faults: rule 1 'seed=2.5'" BAD_RULE_TAIL);
	/* seconds that do not fit a time_t: (time_t)1e300 in sleep_seconds is undefined */
	bad_script("1:latency=1e300", "--memory-faults: rule 1 '1:latency=1e300'" BAD_RULE_TAIL);
}

static void test_bad_script_through_open(void **state)
{
	dnsb_config *cfg;
	dnsb_provider *p = NULL;
	dnsb_error err = { 0 };

	(void)state;
	assert_int_equal(dnsb_config_new(&cfg), 0);
	assert_int_equal(dnsb_config_add(cfg, "memory-zone", "example.com"), 0);
	assert_int_equal(dnsb_config_add(cfg, "memory-faults", "1:transient;2:later"), 0);
	assert_int_equal(dnsb_provider_open(&p, "memory", cfg, &err), DNSB_EINVAL);
	assert_null(p);
	assert_string_equal(err.message, "--memory-faults: rule 2 '2:later'" BAD_RULE_TAIL);
	dnsb_config_free(cfg);

	assert_int_equal(dnsb_config_new(&cfg), 0);
	assert_int_equal(dnsb_provider_open(&p, "memory", cfg, &err), DNSB_EINVAL);
	assert_string_equal(err.message, "--provider memory needs --memory-zone APEX or --memory-zonefile ZONE=PATH");
	dnsb_config_free(cfg);
}

/* ---- counters, loading, put ---- */

static void test_counts(void **state)
{
	dnsb_provider *p = memory_with("2:transient,3:rate-limit=1,4:fatal");
	dnsb_rrkey keys[2] = { { "www1.example.com.", LDNS_RR_TYPE_A }, { "nope.example.com.", LDNS_RR_TYPE_A } };
	dnsb_rrset_list list = { 0 };
	dnsb_error err = { 0 };
	dnsb_result res;

	(void)state;
	assert_int_equal(dnsb_provider_submissions(p), 0);
	assert_int_equal(dnsb_provider_reads(p), 0);
	for (int i = 1; i <= 5; i++)
		submit_nth(p, i, &res);
	/* every submission counts, failed ones too */
	assert_int_equal(dnsb_provider_submissions(p), 5);
	assert_int_equal(dnsb_provider_reads(p), 0);
	assert_int_equal(dnsb_provider_read(p, "example.com.", keys, 2, 0, &list, NULL, &err), 0);
	assert_int_equal(list.count, 1);
	assert_string_equal(list.items[0].owner, "www1.example.com.");
	dnsb_rrset_list_clear(&list);
	assert_int_equal(dnsb_provider_list(p, "example.com.", &list, &err), 0);
	/* www1 and www5 were committed; 2, 3 and 4 were not */
	assert_int_equal(list.count, 2);
	dnsb_rrset_list_clear(&list);
	assert_int_equal(dnsb_provider_list(p, "example.org.", &list, &err), 0);
	assert_int_equal(list.count, 0);
	/* one read, two lists: a read request each */
	assert_int_equal(dnsb_provider_reads(p), 3);
	assert_int_equal(dnsb_provider_submissions(p), 5);
	assert_int_equal(dnsb_memory_rrset_count(p), 2);
	dnsb_provider_free(p);
}

static void test_unknown_zone_is_fatal(void **state)
{
	dnsb_provider *p = memory_with(NULL);
	dnsb_plan *plan = create_plan("www.example.net", 1);
	dnsb_change *c = dnsb_plan_change(plan, 0);
	dnsb_error err = { 0 };
	dnsb_result res;

	(void)state;
	dnsb_result_init(&res);
	assert_int_equal(dnsb_provider_submit(p, "example.net.", &c, 1, 0, &res, NULL, &err), 0);
	assert_int_equal(res.cls, DNSB_CLASS_FATAL);
	assert_int_equal(res.status, 404);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_load_and_put(void **state)
{
	char dir[] = "/tmp/dnsb-memory-XXXXXX", path[64];
	static const char zone[] =
		"$TTL 3600\n"
		"example.com. IN SOA ns1.example.com. hostmaster.example.com. 7 7200 3600 1209600 300\n"
		"example.com. IN NS ns1.example.com.\n"
		"WWW 300 IN A 192.0.2.2\n"
		"www 300 IN A 192.0.2.1\n";
	static char owner[] = "www.example.com.", other[] = "www.example.net.", r1[] = "192.0.2.1",
		    r2[] = "192.0.2.2", r3[] = "192.0.2.3";
	static char *old_rdata[] = { r1, r2 }, *new_rdata[] = { r3 };
	dnsb_provider *p = memory_with("1:commit-transient");
	dnsb_rrkey key = { owner, LDNS_RR_TYPE_A };
	dnsb_rrset_list list = { 0 };
	dnsb_error err = { 0 };
	dnsb_change c;
	dnsb_change *batch[1] = { &c };
	dnsb_result res;
	dnsb_rrset put = { owner, LDNS_RR_TYPE_A, 60, new_rdata, 1, DNSB_ALIAS_NONE, NULL, NULL };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/z", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs(zone, f);
	fclose(f);
	assert_int_equal(dnsb_memory_load(p, "Example.COM", path, &err), 0);
	/* SOA, NS, www A */
	assert_int_equal(dnsb_memory_rrset_count(p), 3);
	assert_int_equal(dnsb_memory_load(p, "example.net", path, &err), DNSB_ENOTFOUND);
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(dnsb_memory_load(p, "example.com", path, &err), DNSB_EIO);

	/* an update of the loaded RRset: committed, then 502 */
	memset(&c, 0, sizeof(c));
	c.kind = DNSB_CHANGE_UPDATE;
	c.old = (dnsb_rrset){ owner, LDNS_RR_TYPE_A, 300, old_rdata, 2, DNSB_ALIAS_NONE, NULL, NULL };
	c.new_set = (dnsb_rrset){ owner, LDNS_RR_TYPE_A, 300, new_rdata, 1, DNSB_ALIAS_NONE, NULL, NULL };
	dnsb_result_init(&res);
	assert_int_equal(dnsb_provider_submit(p, "example.com.", batch, 1, 0, &res, NULL, &err), 0);
	assert_int_equal(res.cls, DNSB_CLASS_TRANSIENT);
	assert_int_equal(dnsb_provider_read(p, "example.com.", &key, 1, 0, &list, NULL, &err), 0);
	assert_int_equal(list.count, 1);
	assert_int_equal(list.items[0].rdata_count, 1);
	assert_string_equal(list.items[0].rdata[0], "192.0.2.3");
	dnsb_rrset_list_clear(&list);
	/* the SOA serial moved once, as the zone file's does */
	{
		dnsb_rrkey soa = { "example.com.", LDNS_RR_TYPE_SOA };
		assert_int_equal(dnsb_provider_read(p, "example.com.", &soa, 1, 0, &list, NULL, &err), 0);
		assert_int_equal(list.count, 1);
		assert_string_equal(list.items[0].rdata[0], "ns1.example.com. hostmaster.example.com. 8 7200 3600 1209600 300");
		dnsb_rrset_list_clear(&list);
	}

	/* put replaces whatever is there, to arrange a conflict */
	assert_int_equal(dnsb_memory_put(p, &put), 0);
	assert_int_equal(dnsb_provider_read(p, "example.com.", &key, 1, 0, &list, NULL, &err), 0);
	assert_int_equal(list.items[0].ttl, 60);
	dnsb_rrset_list_clear(&list);
	put.owner = other;
	assert_int_equal(dnsb_memory_put(p, &put), DNSB_ENOTFOUND);
	snprintf(path, sizeof(path), "%s/z", dir);
	unlink(path);
	rmdir(dir);
	dnsb_provider_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_faults),
		cmocka_unit_test(test_hints),
		cmocka_unit_test(test_transient_commits_nothing),
		cmocka_unit_test(test_commit_transient_really_commits),
		cmocka_unit_test(test_commit_transient_on_a_conflicting_batch),
		cmocka_unit_test(test_rate_limit_sets_retry_after),
		cmocka_unit_test(test_fatal_and_conflict),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_when_forms),
		cmocka_unit_test(test_probability_with_seed),
		cmocka_unit_test(test_probability_frequency),
		cmocka_unit_test(test_bad_scripts),
		cmocka_unit_test(test_bad_submission_numbers),
		cmocka_unit_test(test_bad_script_through_open),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_unknown_zone_is_fatal),
		cmocka_unit_test(test_load_and_put),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
