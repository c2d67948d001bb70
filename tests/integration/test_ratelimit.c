/*
 * test_ratelimit.c - the rate budget against a real redis-server, started on
 * a free loopback port in a temp dir and stopped by PID: one bucket per key
 * across instances, the script reloaded after SCRIPT FLUSH, a throttle
 * lowering the rate for everyone, Redis away and back, AUTH, and the
 * configuration's errors (no password in any message).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "applier/core/clock.h"
#include "applier/net/ratelimit.h"

extern char **environ;

static struct {
	pid_t pid;
	int port;
	char dir[64];
	char url[64];
} rs;

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(s, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	close(s);
	return port;
}

/* A redis-server answering PING, or 0 after 10 s. */
static redisContext *connect_when_up(void)
{
	for (int i = 0; i < 200; i++) {
		redisContext *c = redisConnect("127.0.0.1", rs.port);
		if (c && !c->err) {
			redisReply *r = redisCommand(c, "PING");
			int up = r && (r->type == REDIS_REPLY_STATUS || r->type == REDIS_REPLY_ERROR);
			if (r)
				freeReplyObject(r);
			if (up)
				return c;
		}
		if (c)
			redisFree(c);
		dnsb_sleep(0.05);
	}
	return NULL;
}

static int start_redis(const char *password)
{
	char port[16];
	const char *argv[] = { "redis-server", "--port", port, "--bind", "127.0.0.1", "--dir", rs.dir, "--logfile", "redis.log",
			       "--save", "", "--appendonly", "no", password ? "--requirepass" : NULL, password, NULL };
	redisContext *c;

	snprintf(port, sizeof(port), "%d", rs.port);
	if (posix_spawnp(&rs.pid, "redis-server", NULL, NULL, (char **)argv, environ) != 0)
		return -1;
	if ((c = connect_when_up()) == NULL)
		return -1;
	redisFree(c);
	return 0;
}

static void stop_redis(void)
{
	if (rs.pid > 0) {
		kill(rs.pid, SIGTERM);
		waitpid(rs.pid, NULL, 0);
		rs.pid = 0;
	}
}

static int setup(void **state)
{
	(void)state;
	strcpy(rs.dir, "/tmp/dnsb-redis-XXXXXX");
	if (mkdtemp(rs.dir) == NULL || (rs.port = free_port()) < 0)
		return -1;
	snprintf(rs.url, sizeof(rs.url), "redis://127.0.0.1:%d", rs.port);
	unsetenv("DNSBATCH_REDIS_PASSWORD");
	return start_redis(NULL);
}

static int teardown(void **state)
{
	char cmd[96];

	(void)state;
	stop_redis();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", rs.dir);
	return system(cmd) == 0 ? 0 : -1;
}

static dnsb_budget *budget(const char *key, double rate, double burst)
{
	dnsb_budget_options o = DNSB_BUDGET_OPTIONS_INIT;
	dnsb_budget *b = NULL;
	dnsb_error err = { 0 };

	o.url = rs.url;
	o.key = key;
	o.rate = rate;
	o.burst = burst;
	assert_int_equal(dnsb_budget_new(&b, &o, &err), 0);
	return b;
}

/* Two instances with one key share one bucket: the second cannot take what the first took. */
static void test_one_bucket_per_key(void **state)
{
	dnsb_budget *a = budget("acct-1", 0.1, 1), *b = budget("acct-1", 0.1, 1), *c = budget("acct-2", 0.1, 1);
	dnsb_budget_stats st;
	double waited = -1;

	(void)state;
	assert_int_equal(dnsb_budget_take(a, 1.0, &waited), 0);
	assert_true(waited == 0);
	/* The next token of acct-1 is 10 s away: more than the 1 s the caller has, so nothing is taken. */
	assert_int_equal(dnsb_budget_take(b, 1.0, &waited), DNSB_ERATELIMIT);
	assert_int_equal(dnsb_budget_take(a, 1.0, &waited), DNSB_ERATELIMIT);
	/* Another account has its own bucket. */
	assert_int_equal(dnsb_budget_take(c, 1.0, &waited), 0);
	dnsb_budget_stats_get(b, &st);
	assert_int_equal(st.shared, 1);
	assert_int_equal(st.shared_tokens, 0);
	assert_int_equal(st.local_tokens, 0);
	dnsb_budget_free(a);
	dnsb_budget_free(b);
	dnsb_budget_free(c);
}

/* A burst is taken at once; past it, each token waits its turn (the script answers the wait, no polling). */
static void test_burst_then_paced(void **state)
{
	dnsb_budget *a = budget("acct-burst", 20, 6); /* 5 at once: the budget keeps one of the burst */
	double start = dnsb_monotonic(), waited, total = 0;

	(void)state;
	for (int i = 0; i < 5; i++) {
		assert_int_equal(dnsb_budget_take(a, 0, &waited), 0);
		total += waited;
	}
	assert_true(total < 1e-9);
	for (int i = 0; i < 10; i++)
		assert_int_equal(dnsb_budget_take(a, 0, NULL), 0);
	/* 10 tokens past the burst at 20/s take at least 0.45 s however loaded the machine is. */
	assert_true(dnsb_monotonic() - start >= 0.45);
	dnsb_budget_free(a);
}

/* Redis lost the script (restart, SCRIPT FLUSH): EVALSHA answers NOSCRIPT, the script is loaded again. */
static void test_script_reloaded(void **state)
{
	dnsb_budget *a = budget("acct-flush", 100, 10);
	redisContext *c;
	redisReply *r;
	dnsb_budget_stats st;

	(void)state;
	assert_int_equal(dnsb_budget_take(a, 0, NULL), 0);
	assert_non_null(c = connect_when_up());
	assert_non_null(r = redisCommand(c, "SCRIPT FLUSH"));
	freeReplyObject(r);
	assert_int_equal(dnsb_budget_take(a, 0, NULL), 0);
	dnsb_budget_stats_get(a, &st);
	assert_int_equal(st.shared_tokens, 2);
	assert_int_equal(st.fallbacks, 0);
	/* Both keys carry the hash tag: one slot in Redis Cluster. */
	assert_non_null(r = redisCommand(c, "EXISTS dnsbatch:{acct-flush}:tat"));
	assert_int_equal(r->integer, 1);
	freeReplyObject(r);
	redisFree(c);
	dnsb_budget_free(a);
}

/* A throttle seen by one instance lowers the rate every instance of the key takes at. */
static void test_throttle_lowers_for_everyone(void **state)
{
	dnsb_budget *a = budget("acct-slow", 100, 100), *b = budget("acct-slow", 100, 100);
	dnsb_budget_stats st;

	(void)state;
	assert_int_equal(dnsb_budget_take(b, 0, NULL), 0);
	dnsb_budget_stats_get(b, &st);
	assert_true(st.rate > 96.9 && st.rate < 97.1);
	assert_int_equal(dnsb_budget_take(a, 0, NULL), 0);
	dnsb_budget_throttled(a);
	assert_int_equal(dnsb_budget_take(b, 0, NULL), 0);
	dnsb_budget_stats_get(b, &st);
	assert_true(st.rate > 72.7 && st.rate < 72.8);
	dnsb_budget_throttled(b);
	assert_int_equal(dnsb_budget_take(a, 0, NULL), 0);
	dnsb_budget_stats_get(a, &st);
	assert_true(st.rate > 54.5 && st.rate < 54.6);
	assert_int_equal(st.throttles, 1);
	dnsb_budget_free(a);
	dnsb_budget_free(b);
}

/* Redis stopped: the local share takes over (nothing fails), counted once; Redis back: the shared bucket again. */
static void test_redis_away_and_back(void **state)
{
	dnsb_budget *a = budget("acct-away", 1000, 1000);
	dnsb_budget_stats st;
	double give_up;

	(void)state;
	assert_int_equal(dnsb_budget_take(a, 0, NULL), 0);
	stop_redis();
	for (int i = 0; i < 5; i++)
		assert_int_equal(dnsb_budget_take(a, 0, NULL), 0);
	dnsb_budget_stats_get(a, &st);
	assert_int_equal(st.shared, 0);
	assert_int_equal(st.fallbacks, 1);
	assert_int_equal(st.local_tokens, 5);
	assert_true(st.rate > 242.4 && st.rate < 242.6); /* 1000 less the margin (97%) / the default 4 instances */
	assert_int_equal(start_redis(NULL), 0);
	give_up = dnsb_monotonic() + 10;
	do {
		assert_int_equal(dnsb_budget_take(a, 0, NULL), 0);
		dnsb_budget_stats_get(a, &st);
		if (!st.shared)
			dnsb_sleep(0.05);
	} while (!st.shared && dnsb_monotonic() < give_up);
	assert_int_equal(st.shared, 1);
	assert_int_equal(st.fallbacks, 1);
	assert_int_equal(st.shared_tokens, 2);
	dnsb_budget_free(a);
}

/* A password from DNSBATCH_REDIS_PASSWORD; a wrong one is the fallback, and no message holds it. */
static void test_password(void **state)
{
	dnsb_budget *a;
	dnsb_budget_stats st;

	(void)state;
	stop_redis();
	assert_int_equal(start_redis("s3cret-pw"), 0);
	setenv("DNSBATCH_REDIS_PASSWORD", "s3cret-pw", 1);
	{
		dnsb_config *cfg;
		dnsb_error err = { 0 };
		dnsb_budget_options dflt = DNSB_BUDGET_OPTIONS_INIT;
		assert_int_equal(dnsb_config_new(&cfg), 0);
		assert_int_equal(dnsb_config_add(cfg, "rate-budget", rs.url), 0);
		assert_int_equal(dnsb_config_add(cfg, "rate-budget-rate", "50/s"), 0);
		assert_int_equal(dnsb_budget_from_config(&a, cfg, &dflt, &err), 0);
		dnsb_config_free(cfg);
	}
	assert_int_equal(dnsb_budget_take(a, 0, NULL), 0);
	dnsb_budget_stats_get(a, &st);
	assert_int_equal(st.shared, 1);
	assert_true(st.rate > 48.4 && st.rate < 48.6);
	dnsb_budget_free(a);
	unsetenv("DNSBATCH_REDIS_PASSWORD");
	a = budget("acct-nopw", 100, 10); /* no password: AUTH missing, so the script is refused: fallback */
	assert_int_equal(dnsb_budget_take(a, 0, NULL), 0);
	dnsb_budget_stats_get(a, &st);
	assert_int_equal(st.shared, 0);
	assert_int_equal(st.fallbacks, 1);
	dnsb_budget_free(a);
	stop_redis();
	assert_int_equal(start_redis(NULL), 0);
}

/* The bucket's key set far ahead (anyone who can write to that Redis can): never a wait of that length. */
static void test_tat_in_the_future(void **state)
{
	dnsb_budget *a = budget("acct-future", 100, 10), *b = budget("acct-soon", 100, 10);
	dnsb_budget_stats st;
	redisContext *c;
	redisReply *r;
	double start;

	(void)state;
	assert_non_null(c = connect_when_up());
	/* ten years ahead (µs of Redis's clock): nonsense, the local share takes over; it stalled apply 35 min */
	assert_non_null(r = redisCommand(c, "SET dnsbatch:{acct-future}:tat %.0f", (dnsb_wall_clock() + 3.2e8) * 1e6));
	freeReplyObject(r);
	/* five minutes ahead: a real wait, past the cap (no deadline given): rate_limited at once */
	assert_non_null(r = redisCommand(c, "SET dnsbatch:{acct-soon}:tat %.0f", (dnsb_wall_clock() + 300) * 1e6));
	freeReplyObject(r);
	redisFree(c);
	start = dnsb_monotonic();
	assert_int_equal(dnsb_budget_take(a, 0, NULL), 0);
	dnsb_budget_stats_get(a, &st);
	assert_int_equal(st.fallbacks, 1);
	assert_int_equal(st.local_tokens, 1);
	assert_int_equal(dnsb_budget_take(b, 0, NULL), DNSB_ERATELIMIT);
	assert_int_equal(dnsb_budget_take(b, 10, NULL), DNSB_ERATELIMIT);
	dnsb_budget_stats_get(b, &st);
	assert_int_equal(st.fallbacks, 0);
	assert_int_equal(st.shared_tokens + st.local_tokens, 0);
	assert_true(dnsb_monotonic() - start < 1.0);
	dnsb_budget_free(a);
	dnsb_budget_free(b);
}

static void expect_config_error(const char *key, const char *value, const char *want)
{
	dnsb_config *cfg;
	dnsb_budget *b = (dnsb_budget *)1;
	dnsb_error err = { 0 };
	dnsb_budget_options dflt = DNSB_BUDGET_OPTIONS_INIT;

	assert_int_equal(dnsb_config_new(&cfg), 0);
	assert_int_equal(dnsb_config_add(cfg, "rate-budget",
					 strcmp(key, "rate-budget") ? "redis://127.0.0.1:1" : value), 0);
	if (strcmp(key, "rate-budget"))
		assert_int_equal(dnsb_config_add(cfg, key, value), 0);
	assert_int_equal(dnsb_budget_from_config(&b, cfg, &dflt, &err), DNSB_EINVAL);
	assert_null(b);
	if (strstr(err.message, want) == NULL)
		fail_msg("%s=%s: \"%s\" does not name %s", key, value, err.message, want);
	assert_null(strstr(err.message, "hunter2"));
	dnsb_config_free(cfg);
}

static void test_config_errors(void **state)
{
	dnsb_config *cfg;
	dnsb_budget *b = (dnsb_budget *)1;
	dnsb_error err = { 0 };
	dnsb_budget_options dflt = DNSB_BUDGET_OPTIONS_INIT;

	(void)state;
	expect_config_error("rate-budget", "rediss://u:hunter2@127.0.0.1:6380", "rediss://");
	expect_config_error("rate-budget", "http://u:hunter2@127.0.0.1:6380", "redis://");
	expect_config_error("rate-budget", "redis://u:hunter2@127.0.0.1:99999", "Port");
	expect_config_error("rate-budget", "redis://u:hunter2@127.0.0.1:6379/x", "database");
	/* a password in the URL would sit in /proc/PID/cmdline: refused, naming where it belongs */
	expect_config_error("rate-budget", "redis://:hunter2@127.0.0.1:6379", "--rate-budget-password-file");
	expect_config_error("rate-budget", "redis://u:hunter2@127.0.0.1:6379/1", "DNSBATCH_REDIS_PASSWORD");
	expect_config_error("rate-budget-rate", "fast", "--rate-budget-rate");
	expect_config_error("rate-budget-rate", "0/s", "--rate-budget-rate");
	expect_config_error("rate-budget-key", "a{b}", "--rate-budget-key");
	expect_config_error("rate-budget-burst", "0", "rate-budget-burst");
	/* No --rate-budget: no budget, no error. */
	assert_int_equal(dnsb_config_new(&cfg), 0);
	assert_int_equal(dnsb_budget_from_config(&b, cfg, &dflt, &err), 0);
	assert_null(b);
	dnsb_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_bucket_per_key),
		cmocka_unit_test(test_burst_then_paced),
		cmocka_unit_test(test_script_reloaded),
		cmocka_unit_test(test_throttle_lowers_for_everyone),
		cmocka_unit_test(test_redis_away_and_back),
		cmocka_unit_test(test_password),
		cmocka_unit_test(test_tat_in_the_future),
		cmocka_unit_test(test_config_errors),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, teardown);
}
