/* test_par.c - two halves of a pass (applier/core/par.h): both run, at once from DNSB_PAR_MIN items on. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>

#include "applier/core/par.h"

typedef struct seen {
	pthread_t caller, thread[2];
	int runs[2];
	size_t from[2], to[2], n;
} seen;

static void note(void *ctx, int part)
{
	seen *s = ctx;

	s->thread[part] = pthread_self();
	s->runs[part]++;
	dnsb_par_range(s->n, part, &s->from[part], &s->to[part]);
}

static void pass(seen *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->caller = pthread_self();
	s->n = n;
	dnsb_par2(note, s, n >= DNSB_PAR_MIN);
	assert_int_equal(s->runs[0], 1);
	assert_int_equal(s->runs[1], 1);
	/* The halves cover the items once, in order. */
	assert_int_equal(s->from[0], 0);
	assert_int_equal(s->to[0], s->from[1]);
	assert_int_equal(s->to[1], n);
	assert_true(pthread_equal(s->thread[0], s->caller));
}

static void test_small_pass_runs_in_the_caller(void **state)
{
	seen s;

	(void)state;
	pass(&s, DNSB_PAR_MIN - 1);
	assert_true(pthread_equal(s.thread[1], s.caller));
	pass(&s, 0);
	assert_int_equal(s.to[0], 0);
}

static void test_long_pass_takes_a_second_thread(void **state)
{
	seen s;

	(void)state;
	pass(&s, DNSB_PAR_MIN);
	assert_false(pthread_equal(s.thread[1], s.caller));
	pass(&s, 100001);
	assert_int_equal(s.to[0], 50000);
}

static void count_item(void *ctx, size_t i)
{
	unsigned char *hits = ctx;

	hits[i]++;
}

/* Every item stepped once, below and above DNSB_PAR_MIN. */
static void test_for_steps_each_item_once(void **state)
{
	static unsigned char hits[3 * DNSB_PAR_MIN + 1];
	const size_t sizes[] = { 0, 1, DNSB_PAR_MIN - 1, DNSB_PAR_MIN, sizeof(hits) };

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		memset(hits, 0, sizeof(hits));
		dnsb_par_for(sizes[k], count_item, hits);
		for (size_t i = 0; i < sizeof(hits); i++)
			assert_int_equal(hits[i], i < sizes[k] ? 1 : 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_pass_runs_in_the_caller),
		cmocka_unit_test(test_long_pass_takes_a_second_thread),
		cmocka_unit_test(test_for_steps_each_item_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
