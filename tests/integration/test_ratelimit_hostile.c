/*
 * test_ratelimit_hostile.c - the rate budget against Redis servers that lie
 * (issue 38 §1), served by tests/fakes/fake_redis.py on a free loopback port:
 * a wait of days taken is the budget's fault (the local share takes over,
 * said once, counted); a wait past the caller's time or past the cap is
 * rate_limited at once, nothing taken; replies negative or not numbers are
 * nonsense; a reply trickled a byte at a time is cut at the call's 100 ms,
 * not per recv; absurd sizes (*2147483647, $1073741824) are refused before
 * they are allocated; and a stop (a signal) ends a wait at once.
 * Run from the repository's root (scripts/run-tests.sh does).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "applier/net/ratelimit.h"

extern char **environ;

static struct {
	pid_t pid;
	char dir[64];
	char url[64];
	char log[96];   /* the budget's log lines (stderr) of the test in progress */
	int saved_stderr;
} fk;

/* fake_redis.py with these flags (NULL-ended), its URL in fk.url. @return 0 or -1 */
static int start_fake(const char *flag, ...)
{
	char portfile[96];
	const char *argv[12] = { "python3", "tests/fakes/fake_redis.py", portfile };
	int argc = 3, port = 0;
	va_list ap;

	snprintf(portfile, sizeof(portfile), "%s/port", fk.dir);
	unlink(portfile);
	va_start(ap, flag);
	for (const char *f = flag; f && argc < 11; f = va_arg(ap, const char *))
		argv[argc++] = f;
	va_end(ap);
	argv[argc] = NULL;
	if (posix_spawnp(&fk.pid, "python3", NULL, NULL, (char *const *)argv, environ) != 0)
		return -1;
	for (int i = 0; i < 200 && port == 0; i++) {
		FILE *f = fopen(portfile, "r");
		if (f == NULL || fscanf(f, "%d", &port) != 1)
			dnsb_sleep(0.05);
		if (f)
			fclose(f);
	}
	snprintf(fk.url, sizeof(fk.url), "redis://127.0.0.1:%d", port);
	return port > 0 ? 0 : -1;
}

static void stop_fake(void)
{
	if (fk.pid > 0) {
		kill(fk.pid, SIGTERM);
		waitpid(fk.pid, NULL, 0);
		fk.pid = 0;
	}
}

/* stderr to fk.log while a budget talks to the fake; log_back() restores it. */
static void log_to_file(void)
{
	int fd;

	snprintf(fk.log, sizeof(fk.log), "%s/log", fk.dir);
	fflush(stderr);
	fk.saved_stderr = dup(STDERR_FILENO);
	fd = open(fk.log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

/* @return what was logged since log_to_file (static buffer) */
static const char *log_back(void)
{
	static char text[8192];
	FILE *f;
	size_t n = 0;

	fflush(stderr);
	dup2(fk.saved_stderr, STDERR_FILENO);
	close(fk.saved_stderr);
	if ((f = fopen(fk.log, "r")) != NULL) {
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
	}
	text[n] = '\0';
	fputs(text, stderr); /* seen in the test's output too */
	return text;
}

static int setup(void **state)
{
	(void)state;
	strcpy(fk.dir, "/tmp/dnsb-fakeredis-XXXXXX");
	unsetenv("DNSBATCH_REDIS_PASSWORD");
	alarm(getenv("DNSB_TEST_ALARM") ? (unsigned)atoi(getenv("DNSB_TEST_ALARM")) : 120); /* a wait nothing bounds
		hangs the run: killed instead, a failure */
	return mkdtemp(fk.dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[96];

	(void)state;
	stop_fake();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fk.dir);
	return system(cmd) == 0 ? 0 : -1;
}

static dnsb_budget *budget(const char *key)
{
	dnsb_budget_options o = DNSB_BUDGET_OPTIONS_INIT;
	dnsb_budget *b = NULL;
	dnsb_error err = { 0 };

	o.url = fk.url;
	o.key = key;
	o.rate = 100;
	o.burst = 10;
	assert_int_equal(dnsb_budget_new(&b, &o, &err), 0);
	return b;
}

/*
 * One take against a fake answering `reply`: its result, the seconds it took
 * and the figures after it; the log lines in *log.
 */
static int take_once(const char *reply, double time_left, double *seconds, dnsb_budget_stats *st, const char **log)
{
	dnsb_budget *b;
	double start;
	int rc;

	assert_int_equal(start_fake("--take", reply, NULL), 0);
	b = budget("hostile");
	log_to_file();
	start = dnsb_monotonic();
	rc = dnsb_budget_take(b, time_left, NULL);
	*seconds = dnsb_monotonic() - start;
	*log = log_back();
	dnsb_budget_stats_get(b, st);
	dnsb_budget_free(b);
	stop_fake();
	return rc;
}

/* The local share took the token: the reply was the budget's fault, said and counted. */
static void assert_fell_back(const dnsb_budget_stats *st, const char *log, const char *why)
{
	assert_int_equal(st->shared, 0);
	assert_int_equal(st->fallbacks, 1);
	assert_int_equal(st->local_tokens, 1);
	assert_int_equal(st->shared_tokens, 0);
	if (strstr(log, why) == NULL)
		fail_msg("the log does not say \"%s\": %s", why, log);
}

/* {1, 999999999999}: a token taken for a wait of 11.6 days. It kept `apply --timeout 10` asleep 37 minutes. */
static void test_wait_of_days_falls_back(void **state)
{
	dnsb_budget_stats st;
	const char *log;
	double s;

	(void)state;
	assert_int_equal(take_once("*3\\r\\n:1\\r\\n:999999999999\\r\\n:97000\\r\\n", 10, &s, &st, &log), 0);
	assert_true(s < 1.0);
	assert_fell_back(&st, log, "answered nonsense (taken 1, a wait of 999999999999 us");
	/* No deadline at all: the same. */
	assert_int_equal(take_once("*3\\r\\n:1\\r\\n:999999999999\\r\\n:97000\\r\\n", 0, &s, &st, &log), 0);
	assert_true(s < 1.0);
	assert_fell_back(&st, log, "answered nonsense");
}

/* A negative wait, a wait that is not a number, a rate above the configured one: nonsense too. */
static void test_nonsense_falls_back(void **state)
{
	dnsb_budget_stats st;
	const char *log;
	double s;

	(void)state;
	assert_int_equal(take_once("*3\\r\\n:1\\r\\n:-5000000\\r\\n:97000\\r\\n", 0, &s, &st, &log), 0);
	assert_fell_back(&st, log, "a wait of -5000000 us");
	assert_int_equal(take_once("*3\\r\\n:1\\r\\n$5\\r\\nyears\\r\\n:97000\\r\\n", 0, &s, &st, &log), 0);
	assert_fell_back(&st, log, "answered a non-number");
	assert_int_equal(take_once("*3\\r\\n:1\\r\\n:0\\r\\n:-1\\r\\n", 0, &s, &st, &log), 0);
	assert_fell_back(&st, log, "a rate of -1/1000 s");
}

/* A plausible wait past the caller's time, or past the cap when it has no deadline: rate_limited at once. */
static void test_wait_past_deadline_or_cap(void **state)
{
	dnsb_budget_stats st;
	const char *log;
	double s;

	(void)state;
	/* 30 s taken (a server ignoring the max wait it was given) when the caller has 2 s */
	assert_int_equal(take_once("*3\\r\\n:1\\r\\n:30000000\\r\\n:97000\\r\\n", 2, &s, &st, &log), DNSB_ERATELIMIT);
	assert_true(s < 1.0);
	assert_int_equal(st.shared, 1);
	assert_int_equal(st.shared_tokens, 0);
	/* 2 hours, the caller without a deadline: past the cap */
	assert_int_equal(take_once("*3\\r\\n:1\\r\\n:7200000000\\r\\n:97000\\r\\n", 0, &s, &st, &log), DNSB_ERATELIMIT);
	assert_true(s < 1.0);
	assert_int_equal(take_once("*3\\r\\n:0\\r\\n:7200000000\\r\\n:97000\\r\\n", 0, &s, &st, &log), DNSB_ERATELIMIT);
	assert_true(s < 1.0);
	assert_int_equal(st.fallbacks, 0);
}

/* A good reply sent one byte per 90 ms: cut at the call's 100 ms, not 100 ms per recv (2.6 s before). */
static void test_trickled_reply_cut_whole(void **state)
{
	dnsb_budget *b;
	dnsb_budget_stats st;
	double start, s;
	const char *log;

	(void)state;
	assert_int_equal(start_fake("--take", "*3\\r\\n:1\\r\\n:0\\r\\n:97000\\r\\n", "--trickle", "0.09", NULL), 0);
	b = budget("trickle");
	log_to_file();
	start = dnsb_monotonic();
	assert_int_equal(dnsb_budget_take(b, 0, NULL), 0);
	s = dnsb_monotonic() - start;
	log = log_back();
	dnsb_budget_stats_get(b, &st);
	dnsb_budget_free(b);
	stop_fake();
	/* connect, AUTH-less SCRIPT LOAD at once, then the EVALSHA cut at 0.1 s */
	assert_true(s < 0.5);
	assert_fell_back(&st, log, "no whole reply within the call's 0.1 s");
}

/* *2147483647 would be a 16 GiB array; $1073741824 a 1 GiB string: neither is allocated. */
static void test_absurd_sizes_refused(void **state)
{
	dnsb_budget_stats st;
	const char *log;
	double s;

	(void)state;
	assert_int_equal(take_once("*2147483647\\r\\n", 0, &s, &st, &log), 0);
	assert_fell_back(&st, log, "a reply of 2147483647 elements refused");
	assert_int_equal(start_fake("--take", "$1073741824\\r\\n", "--pad", "4194304", NULL), 0);
	{
		dnsb_budget *b = budget("huge");
		log_to_file();
		assert_int_equal(dnsb_budget_take(b, 0, NULL), 0);
		log = log_back();
		dnsb_budget_stats_get(b, &st);
		dnsb_budget_free(b);
	}
	stop_fake();
	assert_fell_back(&st, log, "a reply over 64 KiB refused");
}

static void *stop_soon(void *payload)
{
	(void)payload;
	dnsb_sleep(0.3);
	dnsb_stop_request();
	return NULL;
}

/* A stop (a signal, on any thread) ends a wait at once; nothing is sent. Last: a stop is for good. */
static void test_stop_ends_wait(void **state)
{
	dnsb_budget *b;
	pthread_t t;
	double start, s;

	(void)state;
	assert_int_equal(dnsb_stop_init(), 0);
	assert_int_equal(start_fake("--take", "*3\\r\\n:1\\r\\n:5000000\\r\\n:97000\\r\\n", NULL), 0);
	b = budget("stop");
	pthread_create(&t, NULL, stop_soon, NULL);
	start = dnsb_monotonic();
	assert_int_equal(dnsb_budget_take(b, 0, NULL), DNSB_ERATELIMIT);
	s = dnsb_monotonic() - start;
	pthread_join(t, NULL);
	dnsb_budget_free(b);
	stop_fake();
	assert_true(s > 0.25 && s < 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_of_days_falls_back),
		cmocka_unit_test(test_nonsense_falls_back),
		cmocka_unit_test(test_wait_past_deadline_or_cap),
		cmocka_unit_test(test_trickled_reply_cut_whole),
		cmocka_unit_test(test_absurd_sizes_refused),
		cmocka_unit_test(test_stop_ends_wait),
	};

	signal(SIGPIPE, SIG_IGN);
	if (getenv("DNSB_TEST_FILTER")) /* one test at a time: a hang kills only its own run */
		cmocka_set_test_filter(getenv("DNSB_TEST_FILTER"));
	return cmocka_run_group_tests(tests, setup, teardown);
}
