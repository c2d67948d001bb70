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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_pass_runs_in_the_caller),
		cmocka_unit_test(test_long_pass_takes_a_second_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
