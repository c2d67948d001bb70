/* test_metrics.c - the Prometheus text output of applier/metrics.c, exactly. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L  /* mkdtemp, popen */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnsbatch/metrics.h"

/* What a handle with nothing recorded prints: every family's HELP and
 * TYPE, and 0 for the three unlabelled ones. */
static const char fresh_text[] =
	"# HELP dnsbatch_changes_total Changes that ended, by zone and outcome.\n"
	"# TYPE dnsbatch_changes_total counter\n"
	"# HELP dnsbatch_dropped_changes_total Changes dropped (never to apply as they are), by zone, record type, reason and what is in the way.\n"
	"# TYPE dnsbatch_dropped_changes_total counter\n"
	"# HELP dnsbatch_failed_changes_total Changes that failed for a retryable reason, by zone, record type and reason.\n"
	"# TYPE dnsbatch_failed_changes_total counter\n"
	"# HELP dnsbatch_batches_total Batch submissions, by zone and the class of the provider's answer.\n"
	"# TYPE dnsbatch_batches_total counter\n"
	"# HELP dnsbatch_provider_requests_total Requests to providers, by provider, operation and answer class.\n"
	"# TYPE dnsbatch_provider_requests_total counter\n"
	"# HELP dnsbatch_provider_request_duration_seconds Time taken by provider requests, seconds.\n"
	"# TYPE dnsbatch_provider_request_duration_seconds histogram\n"
	"# HELP dnsbatch_retries_total Batch resubmissions, by reason.\n"
	"# TYPE dnsbatch_retries_total counter\n"
	"# HELP dnsbatch_bisections_total Batches halved to isolate conflicting or invalid change groups, by zone.\n"
	"# TYPE dnsbatch_bisections_total counter\n"
	"# HELP dnsbatch_backoff_seconds_total Time spent waiting before resubmissions, seconds.\n"
	"# TYPE dnsbatch_backoff_seconds_total counter\n"
	"dnsbatch_backoff_seconds_total 0\n"
	"# HELP dnsbatch_quarantined_groups Change groups held back after a conflict while their backoff runs.\n"
	"# TYPE dnsbatch_quarantined_groups gauge\n"
	"dnsbatch_quarantined_groups 0\n"
	"# HELP dnsbatch_last_apply_timestamp_seconds Time of the last apply, Unix seconds.\n"
	"# TYPE dnsbatch_last_apply_timestamp_seconds gauge\n"
	"dnsbatch_last_apply_timestamp_seconds 0\n"
	"# HELP dnsbatch_overwrites_detected_total RRsets that a read-back after an accepted write to an unconditional provider found holding what neither the batch nor the read before it held: another client wrote in the window, by zone.\n"
	"# TYPE dnsbatch_overwrites_detected_total counter\n"
	"# HELP dnsbatch_held_changes Changes held by a safety threshold in the last apply of the zone (failed, reason held; released by POST /release with the digest logged, or --force), by zone and kind.\n"
	"# TYPE dnsbatch_held_changes gauge\n";

static char *render(dnsb_metrics *m)
{
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(dnsb_metrics_render(&text, &len, m), 0);
	assert_non_null(text);
	assert_int_equal(len, strlen(text));
	return text;
}

/* Does `text` hold `line` as a whole line? */
static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return 1;
	return 0;
}

static void assert_line(const char *text, const char *line)
{
	if (!has_line(text, line))
		fail_msg("missing line: %s\n--- output ---\n%s", line, text);
}

static dnsb_change make_change(dnsb_change_kind kind, uint16_t type, dnsb_outcome outcome, dnsb_reason reason)
{
	dnsb_change c;

	memset(&c, 0, sizeof(c));
	c.kind = kind;
	if (kind == DNSB_CHANGE_DELETE)
		c.old.type = type;
	else
		c.new_set.type = type;
	if (kind == DNSB_CHANGE_UPDATE)
		c.old.type = type;
	c.outcome = outcome;
	c.reason = reason;
	return c;
}

static void test_fresh_prints_every_family(void **state)
{
	dnsb_metrics *m;
	char *text;

	(void)state;
	assert_int_equal(dnsb_metrics_new(&m), 0);
	text = render(m);
	assert_string_equal(text, fresh_text);
	free(text);
	dnsb_metrics_free(m);
}

static void test_null_handle(void **state)
{
	dnsb_change c = make_change(DNSB_CHANGE_CREATE, 1, DNSB_OUTCOME_APPLIED, DNSB_REASON_NONE);
	char *text;

	(void)state;
	/* Recorders on NULL are no-ops; rendering NULL gives the empty families. */
	dnsb_metrics_change(NULL, "example.com.", &c);
	dnsb_metrics_batch(NULL, "example.com.", "ok");
	dnsb_metrics_request(NULL, "memory", "submit", "ok", 0.1);
	dnsb_metrics_retry(NULL, "transient");
	dnsb_metrics_bisection(NULL, "example.com.");
	dnsb_metrics_backoff(NULL, 1);
	dnsb_metrics_set_quarantined(NULL, 3);
	dnsb_metrics_set_last_apply(NULL, 5);
	dnsb_metrics_free(NULL);
	text = render(NULL);
	assert_string_equal(text, fresh_text);
	free(text);
}

static void test_every_series_exact(void **state)
{
	dnsb_metrics *m;
	dnsb_change applied = make_change(DNSB_CHANGE_CREATE, 1, DNSB_OUTCOME_APPLIED, DNSB_REASON_NONE);
	dnsb_change already = make_change(DNSB_CHANGE_UPDATE, 16, DNSB_OUTCOME_ALREADY_APPLIED, DNSB_REASON_NONE);
	dnsb_change conflict = make_change(DNSB_CHANGE_DELETE, 5, DNSB_OUTCOME_DROPPED, DNSB_REASON_CONFLICT);
	dnsb_change invalid = make_change(DNSB_CHANGE_CREATE, 0, DNSB_OUTCOME_DROPPED, DNSB_REASON_INVALID);
	dnsb_change failed = make_change(DNSB_CHANGE_CREATE, 28, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT);
	char *text;

	(void)state;
	assert_int_equal(dnsb_metrics_new(&m), 0);
	dnsb_metrics_change(m, "example.com.", &applied);
	dnsb_metrics_change(m, "example.com.", &applied);
	dnsb_metrics_change(m, "example.com.", &already);
	dnsb_metrics_change(m, "example.com.", &conflict);
	dnsb_metrics_change(m, "example.com.", &invalid);
	dnsb_metrics_change(m, "", &failed);
	dnsb_metrics_batch(m, "example.com.", "conflict");
	dnsb_metrics_batch(m, "example.com.", "ok");
	dnsb_metrics_batch(m, "example.com.", "ok");
	dnsb_metrics_request(m, "zonefile", "submit", "ok", 0.002);
	dnsb_metrics_request(m, "zonefile", "submit", "conflict", 0.2);
	dnsb_metrics_request(m, "zonefile", "read", "ok", 0.001);
	dnsb_metrics_retry(m, "transient");
	dnsb_metrics_retry(m, "rate_limited");
	dnsb_metrics_retry(m, "transient");
	dnsb_metrics_bisection(m, "example.com.");
	dnsb_metrics_backoff(m, 1.5);
	dnsb_metrics_backoff(m, 0.25);
	dnsb_metrics_backoff(m, -4);  /* ignored: a counter never goes down */
	dnsb_metrics_set_quarantined(m, 7);
	dnsb_metrics_set_quarantined(m, 2);
	dnsb_metrics_set_last_apply(m, 1795305599);
	dnsb_metrics_set_held(m, "example.com.", "delete", 4);
	dnsb_metrics_set_held(m, "example.com.", "delete", 17); /* a gauge: the last value */
	dnsb_metrics_overwrites(m, "example.com.", 2);
	dnsb_metrics_overwrites(m, "example.com.", 0); /* none: nothing counted, no series made */
	dnsb_metrics_overwrites(m, "example.com.", 1);

	text = render(m);
	assert_string_equal(text,
		"# HELP dnsbatch_changes_total Changes that ended, by zone and outcome.\n"
		"# TYPE dnsbatch_changes_total counter\n"
		"dnsbatch_changes_total{zone=\"\",outcome=\"failed\"} 1\n"
		"dnsbatch_changes_total{zone=\"example.com.\",outcome=\"already_applied\"} 1\n"
		"dnsbatch_changes_total{zone=\"example.com.\",outcome=\"applied\"} 2\n"
		"dnsbatch_changes_total{zone=\"example.com.\",outcome=\"dropped\"} 2\n"
		"# HELP dnsbatch_dropped_changes_total Changes dropped (never to apply as they are), by zone, record type, reason and what is in the way.\n"
		"# TYPE dnsbatch_dropped_changes_total counter\n"
		"dnsbatch_dropped_changes_total{zone=\"example.com.\",record_type=\"CNAME\",reason=\"conflict\",cause=\"other\"} 1\n"
		"dnsbatch_dropped_changes_total{zone=\"example.com.\",record_type=\"unknown\",reason=\"invalid\",cause=\"invalid\"} 1\n"
		"# HELP dnsbatch_failed_changes_total Changes that failed for a retryable reason, by zone, record type and reason.\n"
		"# TYPE dnsbatch_failed_changes_total counter\n"
		"dnsbatch_failed_changes_total{zone=\"\",record_type=\"AAAA\",reason=\"transient\"} 1\n"
		"# HELP dnsbatch_batches_total Batch submissions, by zone and the class of the provider's answer.\n"
		"# TYPE dnsbatch_batches_total counter\n"
		"dnsbatch_batches_total{zone=\"example.com.\",class=\"conflict\"} 1\n"
		"dnsbatch_batches_total{zone=\"example.com.\",class=\"ok\"} 2\n"
		"# HELP dnsbatch_provider_requests_total Requests to providers, by provider, operation and answer class.\n"
		"# TYPE dnsbatch_provider_requests_total counter\n"
		"dnsbatch_provider_requests_total{provider=\"zonefile\",operation=\"read\",class=\"ok\"} 1\n"
		"dnsbatch_provider_requests_total{provider=\"zonefile\",operation=\"submit\",class=\"conflict\"} 1\n"
		"dnsbatch_provider_requests_total{provider=\"zonefile\",operation=\"submit\",class=\"ok\"} 1\n"
		"# HELP dnsbatch_provider_request_duration_seconds Time taken by provider requests, seconds.\n"
		"# TYPE dnsbatch_provider_request_duration_seconds histogram\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"read\",le=\"0.005\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"read\",le=\"0.01\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"read\",le=\"0.025\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"read\",le=\"0.05\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"read\",le=\"0.1\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"read\",le=\"0.25\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"read\",le=\"0.5\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"read\",le=\"1\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"read\",le=\"2.5\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"read\",le=\"5\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"read\",le=\"10\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"read\",le=\"+Inf\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_sum{provider=\"zonefile\",operation=\"read\"} 0.001\n"
		"dnsbatch_provider_request_duration_seconds_count{provider=\"zonefile\",operation=\"read\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"submit\",le=\"0.005\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"submit\",le=\"0.01\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"submit\",le=\"0.025\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"submit\",le=\"0.05\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"submit\",le=\"0.1\"} 1\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"submit\",le=\"0.25\"} 2\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"submit\",le=\"0.5\"} 2\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"submit\",le=\"1\"} 2\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"submit\",le=\"2.5\"} 2\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"submit\",le=\"5\"} 2\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"submit\",le=\"10\"} 2\n"
		"dnsbatch_provider_request_duration_seconds_bucket{provider=\"zonefile\",operation=\"submit\",le=\"+Inf\"} 2\n"
		"dnsbatch_provider_request_duration_seconds_sum{provider=\"zonefile\",operation=\"submit\"} 0.202\n"
		"dnsbatch_provider_request_duration_seconds_count{provider=\"zonefile\",operation=\"submit\"} 2\n"
		"# HELP dnsbatch_retries_total Batch resubmissions, by reason.\n"
		"# TYPE dnsbatch_retries_total counter\n"
		"dnsbatch_retries_total{reason=\"rate_limited\"} 1\n"
		"dnsbatch_retries_total{reason=\"transient\"} 2\n"
		"# HELP dnsbatch_bisections_total Batches halved to isolate conflicting or invalid change groups, by zone.\n"
		"# TYPE dnsbatch_bisections_total counter\n"
		"dnsbatch_bisections_total{zone=\"example.com.\"} 1\n"
		"# HELP dnsbatch_backoff_seconds_total Time spent waiting before resubmissions, seconds.\n"
		"# TYPE dnsbatch_backoff_seconds_total counter\n"
		"dnsbatch_backoff_seconds_total 1.75\n"
		"# HELP dnsbatch_quarantined_groups Change groups held back after a conflict while their backoff runs.\n"
		"# TYPE dnsbatch_quarantined_groups gauge\n"
		"dnsbatch_quarantined_groups 2\n"
		"# HELP dnsbatch_last_apply_timestamp_seconds Time of the last apply, Unix seconds.\n"
		"# TYPE dnsbatch_last_apply_timestamp_seconds gauge\n"
		"dnsbatch_last_apply_timestamp_seconds 1795305599\n"
		"# HELP dnsbatch_overwrites_detected_total RRsets that a read-back after an accepted write to an unconditional provider found holding what neither the batch nor the read before it held: another client wrote in the window, by zone.\n"
		"# TYPE dnsbatch_overwrites_detected_total counter\n"
		"dnsbatch_overwrites_detected_total{zone=\"example.com.\"} 3\n"
		"# HELP dnsbatch_held_changes Changes held by a safety threshold in the last apply of the zone (failed, reason held; released by POST /release with the digest logged, or --force), by zone and kind.\n"
		"# TYPE dnsbatch_held_changes gauge\n"
		"dnsbatch_held_changes{zone=\"example.com.\",kind=\"delete\"} 17\n");
	free(text);
	dnsb_metrics_free(m);
}

static void test_label_escaping(void **state)
{
	dnsb_metrics *m;
	char *text;

	(void)state;
	assert_int_equal(dnsb_metrics_new(&m), 0);
	dnsb_metrics_bisection(m, "we\"ird\\zone\nname.");
	dnsb_metrics_retry(m, NULL);  /* a NULL label value is "" */
	text = render(m);
	assert_line(text, "dnsbatch_bisections_total{zone=\"we\\\"ird\\\\zone\\nname.\"} 1");
	assert_line(text, "dnsbatch_retries_total{reason=\"\"} 1");
	free(text);
	dnsb_metrics_free(m);
}

static void test_histogram_buckets(void **state)
{
	static const double observations[] = { 0.003, 0.01, 0.3, 7, 20, -1 };
	dnsb_metrics *m;
	char *text;

	(void)state;
	assert_int_equal(dnsb_metrics_new(&m), 0);
	for (size_t i = 0; i < sizeof(observations) / sizeof(observations[0]); i++)
		dnsb_metrics_request(m, "memory", "submit", "ok", observations[i]);
	text = render(m);
	/* Buckets are cumulative and bounds inclusive (0.01 lands in le="0.01");
	 * a negative duration (a clock stepping back) is counted as 0. */
#define B(le, n) "dnsbatch_provider_request_duration_seconds_bucket{provider=\"memory\",operation=\"submit\",le=\"" le "\"} " #n
	assert_line(text, B("0.005", 2));
	assert_line(text, B("0.01", 3));
	assert_line(text, B("0.025", 3));
	assert_line(text, B("0.05", 3));
	assert_line(text, B("0.1", 3));
	assert_line(text, B("0.25", 3));
	assert_line(text, B("0.5", 4));
	assert_line(text, B("1", 4));
	assert_line(text, B("2.5", 4));
	assert_line(text, B("5", 4));
	assert_line(text, B("10", 5));
	assert_line(text, B("+Inf", 6));
#undef B
	assert_line(text, "dnsbatch_provider_request_duration_seconds_sum{provider=\"memory\",operation=\"submit\"} 27.313");
	assert_line(text, "dnsbatch_provider_request_duration_seconds_count{provider=\"memory\",operation=\"submit\"} 6");
	assert_line(text, "dnsbatch_provider_requests_total{provider=\"memory\",operation=\"submit\",class=\"ok\"} 6");
	free(text);
	dnsb_metrics_free(m);
}

static void test_order_is_stable(void **state)
{
	static const char *const zones[] = { "c.example.", "a.example.", "b.example.", "a.example.", "aa.example." };
	dnsb_metrics *m1, *m2;
	char *t1, *t2;
	const char *a, *aa, *b, *c;

	(void)state;
	assert_int_equal(dnsb_metrics_new(&m1), 0);
	assert_int_equal(dnsb_metrics_new(&m2), 0);
	for (size_t i = 0; i < 5; i++) {
		dnsb_metrics_bisection(m1, zones[i]);
		dnsb_metrics_bisection(m2, zones[4 - i]);
	}
	t1 = render(m1);
	t2 = render(m2);
	assert_string_equal(t1, t2);
	a = strstr(t1, "{zone=\"a.example.\"} 2\n");
	aa = strstr(t1, "{zone=\"aa.example.\"} 1\n");
	b = strstr(t1, "{zone=\"b.example.\"} 1\n");
	c = strstr(t1, "{zone=\"c.example.\"} 1\n");
	assert_non_null(a);
	assert_true(a < aa && aa < b && b < c);
	free(t1);
	free(t2);
	dnsb_metrics_free(m1);
	dnsb_metrics_free(m2);
}

static void test_value_formatting(void **state)
{
	dnsb_metrics *m;
	char *text;

	(void)state;
	assert_int_equal(dnsb_metrics_new(&m), 0);
	/* The shortest decimal that reads back as the same double, as Prometheus prints it. */
	dnsb_metrics_backoff(m, 0.1);
	dnsb_metrics_backoff(m, 0.2);
	dnsb_metrics_set_last_apply(m, 1795305599.25);
	text = render(m);
	assert_line(text, "dnsbatch_backoff_seconds_total 0.30000000000000004");
	assert_line(text, "dnsbatch_last_apply_timestamp_seconds 1795305599.25");
	free(text);
	dnsb_metrics_free(m);
}

#define THREADS 8
#define ROUNDS 5000

static void *hammer(void *arg)
{
	dnsb_metrics *m = arg;
	dnsb_change c = make_change(DNSB_CHANGE_CREATE, 1, DNSB_OUTCOME_DROPPED, DNSB_REASON_CONFLICT);
	char zone[32];

	for (int i = 0; i < ROUNDS; i++) {
		/* Several zones so that inserts (which move the table) race with increments. */
		snprintf(zone, sizeof(zone), "z%d.example.", i % 4);
		dnsb_metrics_change(m, zone, &c);
		dnsb_metrics_request(m, "memory", "submit", "ok", 0.02);
		dnsb_metrics_backoff(m, 0.5);
		dnsb_metrics_retry(m, "transient");
	}
	return NULL;
}

static void test_concurrent_totals(void **state)
{
	pthread_t threads[THREADS];
	dnsb_metrics *m;
	char *text, line[256];

	(void)state;
	assert_int_equal(dnsb_metrics_new(&m), 0);
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(pthread_create(&threads[t], NULL, hammer, m), 0);
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(pthread_join(threads[t], NULL), 0);
	text = render(m);
	for (int z = 0; z < 4; z++) {
		snprintf(line, sizeof(line), "dnsbatch_changes_total{zone=\"z%d.example.\",outcome=\"dropped\"} %d",
			 z, THREADS * ROUNDS / 4);
		assert_line(text, line);
		snprintf(line, sizeof(line),
			 "dnsbatch_dropped_changes_total{zone=\"z%d.example.\",record_type=\"A\",reason=\"conflict\",cause=\"other\"} %d",
			 z, THREADS * ROUNDS / 4);
		assert_line(text, line);
	}
	snprintf(line, sizeof(line), "dnsbatch_retries_total{reason=\"transient\"} %d", THREADS * ROUNDS);
	assert_line(text, line);
	snprintf(line, sizeof(line), "dnsbatch_provider_request_duration_seconds_count{provider=\"memory\",operation=\"submit\"} %d",
		 THREADS * ROUNDS);
	assert_line(text, line);
	snprintf(line, sizeof(line),
		 "dnsbatch_provider_request_duration_seconds_bucket{provider=\"memory\",operation=\"submit\",le=\"0.025\"} %d",
		 THREADS * ROUNDS);
	assert_line(text, line);
	/* 0.5 is exact in binary, so the sum is exact too. */
	snprintf(line, sizeof(line), "dnsbatch_backoff_seconds_total %d", THREADS * ROUNDS / 2);
	assert_line(text, line);
	free(text);
	dnsb_metrics_free(m);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long size;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	rewind(f);
	buf = malloc((size_t)size + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	buf[size] = '\0';
	fclose(f);
	return buf;
}

static size_t dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_write_file_atomic(void **state)
{
	char dir[] = "/tmp/dnsb-metrics-XXXXXX";
	char path[128], *expected, *got;
	dnsb_metrics *m;
	dnsb_error err;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/dnsbatch.prom", dir);
	assert_int_equal(dnsb_metrics_new(&m), 0);

	/* An older file is replaced whole. */
	got = NULL;
	{
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs("stale content that is longer than nothing\n", f);
		fclose(f);
	}
	dnsb_metrics_bisection(m, "example.com.");
	assert_int_equal(dnsb_metrics_write_file(m, path, &err), 0);
	expected = render(m);
	got = read_file(path);
	assert_string_equal(got, expected);
	/* No temporary file is left beside it, and the collector can read it. */
	assert_int_equal(dir_entries(dir), 1);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	free(expected);
	free(got);

	/* Written again with more data: still complete, still one file. */
	dnsb_metrics_retry(m, "transient");
	assert_int_equal(dnsb_metrics_write_file(m, path, &err), 0);
	expected = render(m);
	got = read_file(path);
	assert_string_equal(got, expected);
	assert_int_equal(dir_entries(dir), 1);
	free(expected);
	free(got);

	unlink(path);
	rmdir(dir);
	dnsb_metrics_free(m);
}

static void test_write_file_relative(void **state)
{
	char dir[] = "/tmp/dnsb-metrics-XXXXXX";
	char cwd[512], *expected, *got;
	dnsb_metrics *m;
	dnsb_error err;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(dnsb_metrics_new(&m), 0);
	assert_int_equal(dnsb_metrics_write_file(m, "plain.prom", &err), 0);
	expected = render(m);
	got = read_file("plain.prom");
	assert_string_equal(got, expected);
	assert_int_equal(dir_entries("."), 1);
	free(expected);
	free(got);
	unlink("plain.prom");
	assert_int_equal(chdir(cwd), 0);
	rmdir(dir);
	dnsb_metrics_free(m);
}

static void test_write_file_error(void **state)
{
	dnsb_metrics *m;
	dnsb_error err;

	(void)state;
	assert_int_equal(dnsb_metrics_new(&m), 0);
	memset(&err, 0, sizeof(err));
	assert_int_equal(dnsb_metrics_write_file(m, "/nonexistent-dnsb-dir/metrics.prom", &err), DNSB_EIO);
	assert_int_equal(err.code, DNSB_EIO);
	assert_non_null(strstr(err.message, "/nonexistent-dnsb-dir/metrics.prom"));
	assert_non_null(strstr(err.message, "No such file or directory"));
	dnsb_metrics_free(m);
}

static void test_write_to_stream(void **state)
{
	dnsb_metrics *m;
	char *buf = NULL, *expected;
	size_t size = 0;
	FILE *f;

	(void)state;
	assert_int_equal(dnsb_metrics_new(&m), 0);
	dnsb_metrics_batch(m, "example.com.", "ok");
	f = open_memstream(&buf, &size);
	assert_non_null(f);
	assert_int_equal(dnsb_metrics_write(m, f), 0);
	fclose(f);
	expected = render(m);
	assert_string_equal(buf, expected);
	free(buf);
	free(expected);
	dnsb_metrics_free(m);
}

static void test_write_error(void **state)
{
	dnsb_metrics *m;
	FILE *f;

	(void)state;
	f = fopen("/dev/full", "w");
	if (!f) {
		skip();
		return;
	}
	assert_int_equal(dnsb_metrics_new(&m), 0);
	/* Every write to /dev/full fails with ENOSPC. */
	assert_int_equal(dnsb_metrics_write(m, f), DNSB_EIO);
	fclose(f);
	dnsb_metrics_free(m);
}

static int on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, full[1024];
	int found = 0;

	if (!path)
		return 0;
	copy = strdup(path);
	assert_non_null(copy);
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		snprintf(full, sizeof(full), "%s/%s", *dir ? dir : ".", prog);
		found = access(full, X_OK) == 0;
	}
	free(copy);
	return found;
}

static void test_promtool_accepts(void **state)
{
	dnsb_metrics *m;
	dnsb_change c = make_change(DNSB_CHANGE_CREATE, 1, DNSB_OUTCOME_DROPPED, DNSB_REASON_CONFLICT);
	char *text;
	FILE *p;
	int status;

	(void)state;
	if (!on_path("promtool")) {
		skip();
		return;
	}
	assert_int_equal(dnsb_metrics_new(&m), 0);
	dnsb_metrics_change(m, "example.com.", &c);
	dnsb_metrics_change(m, "we\"ird\\zone\nname.", &c);
	dnsb_metrics_batch(m, "example.com.", "conflict");
	dnsb_metrics_request(m, "zonefile", "submit", "ok", 0.03);
	dnsb_metrics_retry(m, "transient");
	dnsb_metrics_bisection(m, "example.com.");
	dnsb_metrics_backoff(m, 2.5);
	dnsb_metrics_set_quarantined(m, 1);
	dnsb_metrics_set_last_apply(m, 1795305599);
	text = render(m);

	/* promtool prints lint problems and exits 1 when it finds any. */
	p = popen("promtool check metrics", "w");
	assert_non_null(p);
	fputs(text, p);
	status = pclose(p);
	assert_int_equal(status, 0);

	/* An empty registry must be clean as well. */
	free(text);
	text = render(NULL);
	p = popen("promtool check metrics", "w");
	assert_non_null(p);
	fputs(text, p);
	assert_int_equal(pclose(p), 0);
	free(text);
	dnsb_metrics_free(m);
}

/* The sidecar's series come from the same renderer, and only once the sidecar recorded one. */
static void test_webhook_series_one_renderer(void **state)
{
	dnsb_metrics *m = NULL;
	char *text;

	(void)state;
	assert_int_equal(dnsb_metrics_new(&m), 0);
	text = render(m);
	assert_null(strstr(text, "dnsbatch_webhook_"));
	free(text);
	dnsb_metrics_webhook_request(m, "/records", "POST", 204, 0.02);
	dnsb_metrics_webhook_request(m, "/records", "POST", 204, 7);
	dnsb_metrics_webhook_state(m, 1, 3, 1);
	text = render(m);
	assert_non_null(strstr(text, "# TYPE dnsbatch_webhook_requests_total counter\n"
				     "dnsbatch_webhook_requests_total{route=\"/records\",method=\"POST\",code=\"204\"} 2\n"));
	assert_non_null(strstr(text, "dnsbatch_webhook_request_duration_seconds_bucket{route=\"/records\",le=\"0.025\"} 1\n"));
	assert_non_null(strstr(text, "dnsbatch_webhook_request_duration_seconds_bucket{route=\"/records\",le=\"10\"} 2\n"));
	assert_non_null(strstr(text, "dnsbatch_webhook_request_duration_seconds_sum{route=\"/records\"} 7.02\n"));
	assert_non_null(strstr(text, "dnsbatch_webhook_ready 1\n"));
	assert_non_null(strstr(text, "dnsbatch_webhook_requests_in_flight 3\n"));
	assert_non_null(strstr(text, "dnsbatch_webhook_applies_in_flight 1\n"));
	free(text);
	dnsb_metrics_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh_prints_every_family),
		cmocka_unit_test(test_webhook_series_one_renderer),
		cmocka_unit_test(test_null_handle),
		cmocka_unit_test(test_every_series_exact),
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_histogram_buckets),
		cmocka_unit_test(test_order_is_stable),
		cmocka_unit_test(test_value_formatting),
		cmocka_unit_test(test_concurrent_totals),
		cmocka_unit_test(test_write_file_atomic),
		cmocka_unit_test(test_write_file_relative),
		cmocka_unit_test(test_write_file_error),
		cmocka_unit_test(test_write_to_stream),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_promtool_accepts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
