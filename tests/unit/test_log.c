/* test_log.c - stderr lines: format, level filter, escaping, truncation, whole lines under threads. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L  /* mkstemp, dup2 */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "applier/core/secret.h"
#include "dnsbatch/common.h"
#include "dnsbatch/log.h"

/* stderr captured into a temporary file for the length of one test. */
struct capture {
	char path[64];
	int file;
	int saved;
};

static int setup(void **state)
{
	struct capture *cap = calloc(1, sizeof(*cap));

	if (!cap)
		return -1;
	snprintf(cap->path, sizeof(cap->path), "/tmp/dnsb-log-XXXXXX");
	cap->file = mkstemp(cap->path);
	cap->saved = dup(STDERR_FILENO);
	if (cap->file < 0 || cap->saved < 0 || dup2(cap->file, STDERR_FILENO) < 0)
		return -1;
	dnsb_log_set_format(DNSB_LOG_TEXT);
	dnsb_log_set_level(DNSB_LOG_INFO);
	*state = cap;
	return 0;
}

static int teardown(void **state)
{
	struct capture *cap = *state;

	dup2(cap->saved, STDERR_FILENO);
	close(cap->saved);
	close(cap->file);
	unlink(cap->path);
	free(cap);
	dnsb_log_set_format(DNSB_LOG_TEXT);
	dnsb_log_set_level(DNSB_LOG_INFO);
	return 0;
}

/* Everything written to stderr so far (the caller's). */
static char *captured(const struct capture *cap)
{
	FILE *f = fopen(cap->path, "r");
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

/* "2026-11-20T23:59:59Z" for t. */
static void format_utc(char *buf, size_t size, time_t t)
{
	struct tm tm;

	assert_non_null(gmtime_r(&t, &tm));
	assert_int_not_equal(strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm), 0);
}

/* Is `s` an RFC 3339 UTC time to the second, within the last minute? The
 * strings have a fixed width, so they compare as the times do. */
static void assert_time_now(const char *s)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
	char earliest[32], latest[32], got[32];
	time_t now = time(NULL);

	for (size_t i = 0; i < sizeof(shape) - 1; i++) {
		if (shape[i] == 'd')
			assert_true(isdigit((unsigned char)s[i]));
		else
			assert_int_equal(s[i], shape[i]);
	}
	snprintf(got, sizeof(got), "%.20s", s);
	format_utc(earliest, sizeof(earliest), now - 60);
	format_utc(latest, sizeof(latest), now + 1);
	assert_true(strcmp(got, earliest) >= 0);
	assert_true(strcmp(got, latest) <= 0);
}

static void test_text_line(void **state)
{
	struct capture *cap = *state;
	char *out;

	dnsb_log(DNSB_LOG_WARN, "zone %s: %d changes dropped", "example.com.", 3);
	out = captured(cap);
	assert_int_equal(strlen(out), 20 + strlen(" warn zone example.com.: 3 changes dropped\n"));
	assert_time_now(out);
	assert_string_equal(out + 20, " warn zone example.com.: 3 changes dropped\n");
	free(out);
}

static void test_level_filter(void **state)
{
	struct capture *cap = *state;
	char *out;

	/* Default: info and above. */
	dnsb_log(DNSB_LOG_DEBUG, "d1");
	dnsb_log(DNSB_LOG_INFO, "i1");
	dnsb_log_set_level(DNSB_LOG_ERROR);
	dnsb_log(DNSB_LOG_INFO, "i2");
	dnsb_log(DNSB_LOG_WARN, "w2");
	dnsb_log(DNSB_LOG_ERROR, "e2");
	dnsb_log_set_level(DNSB_LOG_DEBUG);
	dnsb_log(DNSB_LOG_DEBUG, "d3");
	out = captured(cap);
	assert_null(strstr(out, "d1"));
	assert_non_null(strstr(out, " info i1\n"));
	assert_null(strstr(out, "i2"));
	assert_null(strstr(out, "w2"));
	assert_non_null(strstr(out, " error e2\n"));
	assert_non_null(strstr(out, " debug d3\n"));
	free(out);
}

static void test_text_keeps_one_line(void **state)
{
	struct capture *cap = *state;
	char *out;

	dnsb_log(DNSB_LOG_ERROR, "ldns said:\nline two\r\nline three");
	out = captured(cap);
	assert_string_equal(out + 20, " error ldns said: line two  line three\n");
	free(out);
}

static void test_json_line(void **state)
{
	struct capture *cap = *state;
	json_object *obj, *v;
	char *out, *nl;
	size_t keys = 0;

	dnsb_log_set_format(DNSB_LOG_JSON);
	dnsb_log(DNSB_LOG_WARN, "owner \"%s\" in %s\nsecond line", "a-app.example.com", "ingress/default/app");
	out = captured(cap);
	nl = strchr(out, '\n');
	assert_non_null(nl);
	assert_int_equal(nl[1], '\0');
	/* Slashes stay as they are, for grep. */
	assert_non_null(strstr(out, "ingress/default/app"));
	obj = json_tokener_parse(out);
	assert_non_null(obj);
	json_object_object_foreach(obj, key, val) {
		(void)key;
		(void)val;
		keys++;
	}
	assert_int_equal(keys, 3);
	assert_true(json_object_object_get_ex(obj, "time", &v));
	assert_time_now(json_object_get_string(v));
	assert_true(json_object_object_get_ex(obj, "level", &v));
	assert_string_equal(json_object_get_string(v), "warn");
	assert_true(json_object_object_get_ex(obj, "msg", &v));
	/* JSON escapes, so the message is kept exactly. */
	assert_string_equal(json_object_get_string(v), "owner \"a-app.example.com\" in ingress/default/app\nsecond line");
	json_object_put(obj);
	free(out);
}

static void test_truncated_to_4k(void **state)
{
	struct capture *cap = *state;
	char *big = malloc(10000), *out;

	assert_non_null(big);
	memset(big, 'x', 9999);
	big[9999] = '\0';
	dnsb_log(DNSB_LOG_INFO, "%s", big);
	out = captured(cap);
	/* 4 KiB with its NUL: 4095 bytes of message. */
	assert_int_equal(strlen(out), 20 + strlen(" info ") + 4095 + 1);
	free(out);
	free(big);
}

/* With stderr closed the write fails (EBADF): the caller's errno must survive that, text and JSON. */
static void test_errno_preserved(void **state)
{
	int keep = dup(STDERR_FILENO), text_errno, json_errno;

	(void)state;
	assert_true(keep >= 0);
	close(STDERR_FILENO);
	errno = ENOENT;
	dnsb_log(DNSB_LOG_INFO, "reading %s", "plan.json");
	text_errno = errno;
	dnsb_log_set_format(DNSB_LOG_JSON);
	errno = ENOENT;
	dnsb_log(DNSB_LOG_INFO, "reading %s", "plan.json");
	json_errno = errno;
	dnsb_log_set_format(DNSB_LOG_TEXT);
	assert_int_equal(dup2(keep, STDERR_FILENO), STDERR_FILENO);
	close(keep);
	assert_int_equal(text_errno, ENOENT);
	assert_int_equal(json_errno, ENOENT);
}

static void test_parse_format(void **state)
{
	dnsb_log_format f = DNSB_LOG_TEXT;

	(void)state;
	assert_int_equal(dnsb_log_parse_format(&f, "json"), 0);
	assert_int_equal(f, DNSB_LOG_JSON);
	assert_int_equal(dnsb_log_parse_format(&f, "text"), 0);
	assert_int_equal(f, DNSB_LOG_TEXT);
	assert_int_equal(dnsb_log_parse_format(&f, "JSON"), DNSB_EINVAL);
	assert_int_equal(dnsb_log_parse_format(&f, "xml"), DNSB_EINVAL);
	assert_int_equal(dnsb_log_parse_format(&f, ""), DNSB_EINVAL);
	assert_int_equal(dnsb_log_parse_format(&f, NULL), DNSB_EINVAL);
	assert_int_equal(f, DNSB_LOG_TEXT);
}

#define THREADS 8
#define ROUNDS 200

static void *logger(void *arg)
{
	int id = *(const int *)arg;
	char body[1001];

	/* Long lines (under PIPE_BUF), so that interleaved writes would show. */
	memset(body, 'a' + id, sizeof(body) - 1);
	body[sizeof(body) - 1] = '\0';
	for (int i = 0; i < ROUNDS; i++)
		dnsb_log(DNSB_LOG_INFO, "%s", body);
	return NULL;
}

static void test_threads_whole_lines(void **state)
{
	struct capture *cap = *state;
	pthread_t threads[THREADS];
	int ids[THREADS];
	size_t per_thread[THREADS] = { 0 }, lines = 0;
	char *out, *line, *save = NULL;

	for (int t = 0; t < THREADS; t++) {
		ids[t] = t;
		assert_int_equal(pthread_create(&threads[t], NULL, logger, &ids[t]), 0);
	}
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(pthread_join(threads[t], NULL), 0);
	out = captured(cap);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save), lines++) {
		const char *body = line + 20 + strlen(" info ");

		assert_int_equal(strlen(line), 20 + strlen(" info ") + 1000);
		assert_true(body[0] >= 'a' && body[0] < 'a' + THREADS);
		assert_int_equal(strspn(body, (char[]){ body[0], '\0' }), 1000);
		per_thread[body[0] - 'a']++;
	}
	assert_int_equal(lines, THREADS * ROUNDS);
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(per_thread[t], ROUNDS);
	free(out);
}

/*
 * Issue 38 §4: a secret the process holds is printed by no log line, whatever
 * quotes it (an error body echoing X-API-Key), in text or in JSON (message and
 * fields), nor kept in an error message or a provider result.
 */
static void test_secrets_redacted(void **state)
{
	struct capture *cap = *state;
	json_object *fields = json_object_new_object();
	dnsb_error err = { 0 };
	char *out;

	dnsb_secret_register("k3y-0f-the-api");
	dnsb_secret_register("pw-of-redis");
	dnsb_secret_register("short"); /* under DNSB_SECRET_MIN_LEN: not registered, "short" stays */
	dnsb_log(DNSB_LOG_WARN, "HTTP 500: headers were: X-API-Key: k3y-0f-the-api; AUTH pw-of-redis pw-of-redis short");
	dnsb_log_set_format(DNSB_LOG_JSON);
	json_object_object_add(fields, "body", json_object_new_string("{\"key\":\"k3y-0f-the-api\"}"));
	dnsb_log_fields(DNSB_LOG_WARN, fields, "echo: k3y-0f-the-api");
	json_object_put(fields);
	out = captured(cap);
	assert_null(strstr(out, "k3y-0f-the-api"));
	assert_null(strstr(out, "pw-of-redis"));
	assert_non_null(strstr(out, " warn HTTP 500: headers were: X-API-Key: ***; AUTH *** *** short\n"));
	assert_non_null(strstr(out, "\"msg\":\"echo: ***\""));
	assert_non_null(strstr(out, "\"body\":\"{\\\"key\\\":\\\"***\\\"}\""));
	free(out);
	dnsb_error_set(&err, DNSB_EFATAL, "refused: %s", "X-API-Key: k3y-0f-the-api");
	assert_string_equal(err.message, "refused: X-API-Key: ***");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_text_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_level_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_keeps_one_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_to_4k, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errno_preserved, setup, teardown),
		cmocka_unit_test(test_parse_format),
		cmocka_unit_test_setup_teardown(test_threads_whole_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_secrets_redacted, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
