/*
 * test_droplog.c - drop log lines: exact fields, plan form, whole lines under
 * threads, the quarantine's keys, rotation at a size, reopen after a move.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L  /* mkdtemp */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "applier/core/secret.h"
#include "dnsbatch/droplog.h"
#include "dnsbatch/plan.h"

/* 2026-11-20T23:59:59Z */
#define NOW 1795219199.75

static const char app_endpoint[] =
	"{\"dnsName\":\"app.example.com\",\"targets\":[\"203.0.113.10\"],\"recordType\":\"A\","
	"\"recordTTL\":300,\"labels\":{\"owner\":\"default\",\"resource\":\"ingress/default/app\"}}";
static const char app_endpoint_new[] =
	"{\"dnsName\":\"app.example.com\",\"targets\":[\"203.0.113.11\"],\"recordType\":\"A\","
	"\"recordTTL\":300,\"labels\":{\"owner\":\"default\",\"resource\":\"ingress/default/app\"}}";

struct fixture {
	char dir[64];
	char path[128];
	char rotated[136];  /* path.1 */
	char moved[136];    /* where a test moves path, as logrotate does */
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/dnsb-droplog-XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	snprintf(fx->path, sizeof(fx->path), "%s/drops.jsonl", fx->dir);
	snprintf(fx->rotated, sizeof(fx->rotated), "%s.1", fx->path);
	snprintf(fx->moved, sizeof(fx->moved), "%s.moved", fx->path);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	unlink(fx->path);
	unlink(fx->rotated);
	unlink(fx->moved);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

/* A change as the parser leaves it: endpoints held, RRsets filled. The
 * strings are borrowed literals, so the change is never cleared. */
static dnsb_change make_change(dnsb_change_kind kind, const char *old_ep, const char *new_ep)
{
	static char owner[] = "app.example.com.";
	static char old_rdata[] = "203.0.113.10", new_rdata[] = "203.0.113.11";
	static char *old_list[] = { old_rdata }, *new_list[] = { new_rdata };
	dnsb_change c;

	memset(&c, 0, sizeof(c));
	c.kind = kind;
	if (old_ep) {
		c.endpoint_old = json_tokener_parse(old_ep);
		assert_non_null(c.endpoint_old);
		c.old = (dnsb_rrset){ owner, 1, 300, old_list, 1, DNSB_ALIAS_NONE, NULL, NULL };
	}
	if (new_ep) {
		c.endpoint_new = json_tokener_parse(new_ep);
		assert_non_null(c.endpoint_new);
		c.new_set = (dnsb_rrset){ owner, 1, 300, kind == DNSB_CHANGE_CREATE ? old_list : new_list, 1, DNSB_ALIAS_NONE, NULL, NULL };
	}
	return c;
}

static void drop_change(dnsb_change *c)
{
	json_object_put(c->endpoint_old);
	json_object_put(c->endpoint_new);
}

static char *slurp(const char *path)
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

static size_t count_lines(const char *text)
{
	size_t n = 0;

	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

/* Parse one line as a whole JSON object (nothing after it). */
static json_object *parse_line(const char *line, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *obj;

	assert_non_null(tok);
	obj = json_tokener_parse_ex(tok, line, (int)len);
	assert_int_equal(json_tokener_get_error(tok), json_tokener_success);
	assert_int_equal(json_tokener_get_parse_end(tok), len);
	json_tokener_free(tok);
	assert_true(json_object_is_type(obj, json_type_object));
	return obj;
}

static void assert_json_equal(json_object *got, const char *expected_text)
{
	json_object *expected = json_tokener_parse(expected_text);

	assert_non_null(expected);
	if (!json_object_equal(got, expected))
		fail_msg("got %s\nexpected %s", json_object_to_json_string(got), expected_text);
	json_object_put(expected);
}

static void test_line_fields_exact(void **state)
{
	static char code[] = "alreadyExists";
	static char message[] = "The resource 'entity.change.additions[app.example.com.][A]' named \"app\"\nalready exists";
	struct fixture *fx = *state;
	dnsb_change c = make_change(DNSB_CHANGE_CREATE, NULL, app_endpoint);
	static const char *const keys[] = { "time", "zone", "outcome", "reason", "status", "code", "message", "cause",
					    "change" };
	dnsb_droplog *log;
	dnsb_error err;
	json_object *line;
	char *text;
	size_t k = 0;

	c.outcome = DNSB_OUTCOME_DROPPED;
	c.reason = DNSB_REASON_CONFLICT;
	c.status = 409;
	c.code = code;
	c.message = message;
	assert_int_equal(dnsb_droplog_open(&log, fx->path, &err), 0);
	assert_int_equal(dnsb_droplog_write(log, "example.com.", &c, NOW), 0);
	assert_int_equal(dnsb_droplog_lines(log), 1);
	assert_int_equal(dnsb_droplog_flush(log), 0);
	dnsb_droplog_free(log);

	text = slurp(fx->path);
	/* One line, and nothing but it: a newline in the message is escaped. */
	assert_int_equal(count_lines(text), 1);
	assert_int_equal(text[strlen(text) - 1], '\n');
	/* Slashes are written as they are, so grep finds "ingress/default/app". */
	assert_non_null(strstr(text, "\"resource\":\"ingress/default/app\""));
	line = parse_line(text, strlen(text) - 1);

	/* The keys, in the order docs/design.md §6.2 gives them. */
	json_object_object_foreach(line, key, val) {
		(void)val;
		assert_true(k < sizeof(keys) / sizeof(keys[0]));
		assert_string_equal(key, keys[k]);
		k++;
	}
	assert_int_equal(k, sizeof(keys) / sizeof(keys[0]));
	assert_json_equal(line,
		"{\"time\":\"2026-11-20T23:59:59Z\",\"zone\":\"example.com.\",\"outcome\":\"dropped\","
		"\"reason\":\"conflict\",\"status\":409,\"code\":\"alreadyExists\","
		"\"message\":\"The resource 'entity.change.additions[app.example.com.][A]' named \\\"app\\\"\\nalready exists\","
		"\"cause\":\"other\",\"change\":{\"create\":[{\"dnsName\":\"app.example.com\",\"targets\":[\"203.0.113.10\"],"
		"\"recordType\":\"A\",\"recordTTL\":300,"
		"\"labels\":{\"owner\":\"default\",\"resource\":\"ingress/default/app\"}}]}}");
	json_object_put(line);
	free(text);
	drop_change(&c);
}

/*
 * Issue 38 §4's leftover: a provider's message and a culprit's note were copied into the drop log without
 * redaction; an endpoint echoing a credential put it there. Every secret this process holds (registered,
 * applier/core/secret.h) is replaced in every field, the line still one JSON object.
 */
static void test_secrets_redacted(void **state)
{
	static char code[] = "echo-dnsb-secret-Zk31qa";
	static char message[] = "bad request; headers were: Authorization: Bearer dnsb-secret-Zk31qa; "
				"X-Auth-Key: dnsb-secret-Zk31qa";
	struct fixture *fx = *state;
	dnsb_change c = make_change(DNSB_CHANGE_CREATE, NULL, app_endpoint);
	dnsb_droplog *log;
	dnsb_error err;
	json_object *line, *v;
	char *text;

	dnsb_secret_register("dnsb-secret-Zk31qa");
	c.outcome = DNSB_OUTCOME_FAILED;
	c.reason = DNSB_REASON_TRANSIENT;
	c.status = 500;
	c.code = code;
	c.message = message;
	assert_int_equal(dnsb_droplog_open(&log, fx->path, &err), 0);
	assert_int_equal(dnsb_droplog_write(log, "example.com.", &c, NOW), 0);
	dnsb_droplog_free(log);
	text = slurp(fx->path);
	assert_null(strstr(text, "Zk31qa"));
	line = parse_line(text, strlen(text) - 1);
	assert_true(json_object_object_get_ex(line, "message", &v));
	assert_string_equal(json_object_get_string(v),
			    "bad request; headers were: Authorization: Bearer ***; X-Auth-Key: ***");
	assert_true(json_object_object_get_ex(line, "code", &v));
	assert_string_equal(json_object_get_string(v), "echo-***");
	json_object_put(line);
	free(text);
	drop_change(&c);
}

static void test_absent_detail_is_null(void **state)
{
	struct fixture *fx = *state;
	dnsb_change c = make_change(DNSB_CHANGE_DELETE, app_endpoint, NULL);
	dnsb_droplog *log;
	dnsb_error err;
	json_object *line;
	char *text;

	c.outcome = DNSB_OUTCOME_FAILED;
	c.reason = DNSB_REASON_DEADLINE;
	assert_int_equal(dnsb_droplog_open(&log, fx->path, &err), 0);
	assert_int_equal(dnsb_droplog_write(log, "", &c, 0), 0);
	dnsb_droplog_free(log);

	text = slurp(fx->path);
	line = parse_line(text, strlen(text) - 1);
	assert_json_equal(line,
		"{\"time\":\"1970-01-01T00:00:00Z\",\"zone\":\"\",\"outcome\":\"failed\",\"reason\":\"deadline\","
		"\"status\":0,\"code\":null,\"message\":null,"
		"\"change\":{\"delete\":[{\"dnsName\":\"app.example.com\",\"targets\":[\"203.0.113.10\"],"
		"\"recordType\":\"A\",\"recordTTL\":300,"
		"\"labels\":{\"owner\":\"default\",\"resource\":\"ingress/default/app\"}}]}}");
	json_object_put(line);
	free(text);
	drop_change(&c);
}

static void test_update_plan_form(void **state)
{
	static char code[] = "conditionNotMet";
	struct fixture *fx = *state;
	dnsb_change c = make_change(DNSB_CHANGE_UPDATE, app_endpoint, app_endpoint_new);
	dnsb_droplog *log;
	dnsb_error err;
	json_object *line, *change;
	char *text, expected[1024];

	c.outcome = DNSB_OUTCOME_DROPPED;
	c.reason = DNSB_REASON_CONFLICT;
	c.status = 412;
	c.code = code;
	assert_int_equal(dnsb_droplog_open(&log, fx->path, &err), 0);
	assert_int_equal(dnsb_droplog_write(log, "example.com.", &c, NOW), 0);
	dnsb_droplog_free(log);

	text = slurp(fx->path);
	line = parse_line(text, strlen(text) - 1);
	assert_true(json_object_object_get_ex(line, "change", &change));
	snprintf(expected, sizeof(expected), "{\"updateOld\":[%s],\"updateNew\":[%s]}", app_endpoint, app_endpoint_new);
	assert_json_equal(change, expected);
	json_object_put(line);
	free(text);
	drop_change(&c);
}

/* `jq -c .change` of the drop log is a plan `dnsbatch apply` takes back. */
static void test_change_feeds_back(void **state)
{
	struct fixture *fx = *state;
	static const char plan_text[] =
		"{\"create\":[{\"dnsName\":\"App.Example.com\",\"targets\":[\"203.0.113.10\",\"203.0.113.9\"],"
		"\"recordType\":\"A\",\"recordTTL\":60,\"labels\":{\"owner\":\"default\"}}],"
		"\"updateOld\":[{\"dnsName\":\"api.example.com\",\"targets\":[\"198.51.100.1\"],\"recordType\":\"A\"}],"
		"\"updateNew\":[{\"dnsName\":\"api.example.com\",\"targets\":[\"198.51.100.2\"],\"recordType\":\"A\"}],"
		"\"delete\":[{\"dnsName\":\"a-old.example.com\",\"recordType\":\"TXT\","
		"\"targets\":[\"\\\"heritage=external-dns,external-dns/owner=default\\\"\"],"
		"\"labels\":{\"ownedRecord\":\"old.example.com\"}}]}";
	dnsb_plan *plan, *again;
	dnsb_droplog *log;
	dnsb_error err;
	char *text, *line, *save = NULL;
	size_t n = 0;

	assert_int_equal(dnsb_plan_parse(&plan, plan_text, strlen(plan_text), "test", &err), 0);
	assert_int_equal(dnsb_plan_count(plan), 3);
	assert_int_equal(dnsb_droplog_open(&log, fx->path, &err), 0);
	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);

		c->outcome = DNSB_OUTCOME_DROPPED;
		c->reason = DNSB_REASON_CONFLICT;
		assert_int_equal(dnsb_droplog_write(log, "example.com.", c, NOW), 0);
	}
	assert_int_equal(dnsb_droplog_lines(log), 3);
	dnsb_droplog_free(log);

	text = slurp(fx->path);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		json_object *obj = parse_line(line, strlen(line)), *change;
		const char *change_text;
		dnsb_change *orig = dnsb_plan_change(plan, n), *back;

		assert_true(json_object_object_get_ex(obj, "change", &change));
		change_text = json_object_to_json_string(change);
		assert_int_equal(dnsb_plan_parse(&again, change_text, strlen(change_text), "drop log", &err), 0);
		assert_int_equal(dnsb_plan_count(again), 1);
		back = dnsb_plan_change(again, 0);
		assert_int_equal(back->kind, orig->kind);
		assert_true(dnsb_rrset_equal(&back->old, &orig->old));
		assert_true(dnsb_rrset_equal(&back->new_set, &orig->new_set));
		if (orig->owned_record) {
			assert_non_null(back->owned_record);
			assert_string_equal(back->owned_record, orig->owned_record);
		}
		dnsb_plan_free(again);
		json_object_put(obj);
	}
	assert_int_equal(n, 3);
	free(text);
	dnsb_plan_free(plan);
}

static void test_appends_across_opens(void **state)
{
	struct fixture *fx = *state;
	dnsb_change c = make_change(DNSB_CHANGE_CREATE, NULL, app_endpoint);
	dnsb_droplog *log;
	dnsb_error err;
	char *text;

	c.outcome = DNSB_OUTCOME_DROPPED;
	c.reason = DNSB_REASON_NO_ZONE;
	assert_int_equal(dnsb_droplog_open(&log, fx->path, &err), 0);
	assert_int_equal(dnsb_droplog_write(log, "", &c, NOW), 0);
	assert_int_equal(dnsb_droplog_write(log, "", &c, NOW), 0);
	dnsb_droplog_free(log);
	assert_int_equal(dnsb_droplog_open(&log, fx->path, &err), 0);
	assert_int_equal(dnsb_droplog_lines(log), 0);
	assert_int_equal(dnsb_droplog_write(log, "", &c, NOW), 0);
	assert_int_equal(dnsb_droplog_lines(log), 1);
	/* Lines are on disk before flush or free: a crash loses none. */
	text = slurp(fx->path);
	assert_int_equal(count_lines(text), 3);
	free(text);
	dnsb_droplog_free(log);
	drop_change(&c);
}

static void test_open_error(void **state)
{
	dnsb_droplog *log = NULL;
	dnsb_error err;

	(void)state;
	memset(&err, 0, sizeof(err));
	assert_int_equal(dnsb_droplog_open(&log, "/nonexistent-dnsb-dir/drops.jsonl", &err), DNSB_EIO);
	assert_null(log);
	assert_int_equal(err.code, DNSB_EIO);
	assert_string_equal(err.message, "/nonexistent-dnsb-dir/drops.jsonl: No such file or directory");
	/* NULL handles are no-ops. */
	dnsb_droplog_free(NULL);
	assert_int_equal(dnsb_droplog_flush(NULL), 0);
	assert_int_equal(dnsb_droplog_lines(NULL), 0);
}

static void test_write_error(void **state)
{
	dnsb_change c = make_change(DNSB_CHANGE_CREATE, NULL, app_endpoint);
	dnsb_droplog *log;
	dnsb_error err;

	(void)state;
	if (access("/dev/full", W_OK) != 0) {
		drop_change(&c);
		skip();
		return;
	}
	c.outcome = DNSB_OUTCOME_DROPPED;
	c.reason = DNSB_REASON_CONFLICT;
	/* Every write to /dev/full fails with ENOSPC: a full disk is reported, not counted. */
	assert_int_equal(dnsb_droplog_open(&log, "/dev/full", &err), 0);
	assert_int_equal(dnsb_droplog_write(log, "example.com.", &c, NOW), DNSB_EIO);
	assert_int_equal(dnsb_droplog_lines(log), 0);
	dnsb_droplog_free(log);
	drop_change(&c);
}

/* /dev/null is a character device: fsync refuses it (EINVAL), so it is written and flushed, not synced. */
static void test_device_flushes(void **state)
{
	dnsb_change c = make_change(DNSB_CHANGE_CREATE, NULL, app_endpoint);
	dnsb_droplog *log;
	dnsb_error err;

	(void)state;
	c.outcome = DNSB_OUTCOME_DROPPED;
	c.reason = DNSB_REASON_CONFLICT;
	assert_int_equal(dnsb_droplog_open(&log, "/dev/null", &err), 0);
	assert_int_equal(dnsb_droplog_write(log, "example.com.", &c, NOW), 0);
	assert_int_equal(dnsb_droplog_lines(log), 1);
	assert_int_equal(dnsb_droplog_flush(log), 0);
	assert_int_equal(dnsb_droplog_reopen(log, &err), 0);
	assert_int_equal(dnsb_droplog_flush(log), 0);
	dnsb_droplog_free(log);
	drop_change(&c);
}

#define THREADS 8
#define ROUNDS 300

struct worker {
	dnsb_droplog *log;
	int id;
};

static void *writer(void *arg)
{
	struct worker *w = arg;
	dnsb_change c = make_change(DNSB_CHANGE_CREATE, NULL, app_endpoint);
	char message[600];

	c.outcome = DNSB_OUTCOME_DROPPED;
	c.reason = DNSB_REASON_CONFLICT;
	/* Long lines, so that a torn write would show. */
	memset(message, 'a' + w->id, sizeof(message) - 1);
	message[sizeof(message) - 1] = '\0';
	c.message = message;
	for (int i = 0; i < ROUNDS; i++)
		assert_int_equal(dnsb_droplog_write(w->log, "example.com.", &c, NOW + i), 0);
	drop_change(&c);
	return NULL;
}

static void test_concurrent_whole_lines(void **state)
{
	struct fixture *fx = *state;
	pthread_t threads[THREADS];
	struct worker workers[THREADS];
	size_t per_writer[THREADS] = { 0 };
	dnsb_droplog *log;
	dnsb_error err;
	char *text, *line, *save = NULL;
	size_t n = 0;

	assert_int_equal(dnsb_droplog_open(&log, fx->path, &err), 0);
	for (int t = 0; t < THREADS; t++) {
		workers[t] = (struct worker){ log, t };
		assert_int_equal(pthread_create(&threads[t], NULL, writer, &workers[t]), 0);
	}
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(pthread_join(threads[t], NULL), 0);
	assert_int_equal(dnsb_droplog_lines(log), THREADS * ROUNDS);
	assert_int_equal(dnsb_droplog_flush(log), 0);
	dnsb_droplog_free(log);

	text = slurp(fx->path);
	assert_int_equal(count_lines(text), THREADS * ROUNDS);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		json_object *obj = parse_line(line, strlen(line)), *msg;
		const char *s;

		assert_true(json_object_object_get_ex(obj, "message", &msg));
		s = json_object_get_string(msg);
		assert_int_equal(strlen(s), 599);
		assert_true(s[0] >= 'a' && s[0] < 'a' + THREADS);
		assert_int_equal(strspn(s, (char[]){ s[0], '\0' }), 599);
		per_writer[s[0] - 'a']++;
		json_object_put(obj);
	}
	assert_int_equal(n, THREADS * ROUNDS);
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(per_writer[t], ROUNDS);
	free(text);
}

/* The quarantine's keys come before `change`; the end of a hold has no seconds; an unknown event writes nothing. */
static void test_quarantine_keys(void **state)
{
	struct fixture *fx = *state;
	dnsb_change c = make_change(DNSB_CHANGE_CREATE, NULL, app_endpoint);
	dnsb_droplog *log;
	dnsb_error err;
	json_object *line, *v;
	char *text, *save = NULL, *l;
	int n = 0;

	c.outcome = DNSB_OUTCOME_DROPPED;
	c.reason = DNSB_REASON_CONFLICT;
	assert_int_equal(dnsb_droplog_open(&log, fx->path, &err), 0);
	assert_int_equal(dnsb_droplog_write_quarantine(log, "example.com.", &c, NOW, DNSB_DROPLOG_QUARANTINE_START, 60), 0);
	assert_int_equal(dnsb_droplog_write_quarantine(log, "example.com.", &c, NOW, DNSB_DROPLOG_QUARANTINE_AGAIN, 1.5), 0);
	c.outcome = DNSB_OUTCOME_APPLIED;
	c.reason = DNSB_REASON_NONE;
	assert_int_equal(dnsb_droplog_write_quarantine(log, "example.com.", &c, NOW, DNSB_DROPLOG_QUARANTINE_END, 0), 0);
	assert_int_equal(dnsb_droplog_write_quarantine(log, "example.com.", &c, NOW, (dnsb_droplog_quarantine)7, 0),
			 DNSB_EINVAL);
	assert_int_equal(dnsb_droplog_lines(log), 3);
	dnsb_droplog_free(log);

	text = slurp(fx->path);
	assert_non_null(strstr(text, "\"message\":null,\"quarantine\":\"start\",\"quarantine_seconds\":60,\"cause\":\"other\",\"change\":{"));
	for (l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save), n++) {
		line = parse_line(l, strlen(l));
		assert_true(json_object_object_get_ex(line, "quarantine", &v));
		assert_string_equal(json_object_get_string(v), n == 0 ? "start" : n == 1 ? "again" : "end");
		if (n == 1) {
			assert_true(json_object_object_get_ex(line, "quarantine_seconds", &v));
			assert_true(json_object_get_double(v) == 1.5);
		}
		assert_int_equal(json_object_object_get_ex(line, "quarantine_seconds", NULL), n < 2);
		json_object_put(line);
	}
	assert_int_equal(n, 3);
	free(text);
	drop_change(&c);
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* FILE is rotated to FILE.1 before a line would take it past the size: two files, each within it. */
static void test_rotates_at_max_size(void **state)
{
	struct fixture *fx = *state;
	dnsb_change c = make_change(DNSB_CHANGE_CREATE, NULL, app_endpoint);
	dnsb_droplog_options opts = DNSB_DROPLOG_OPTIONS_INIT;
	dnsb_droplog *log;
	dnsb_error err;
	off_t line_len;
	char *text;
	size_t in_file, in_rotated;

	c.outcome = DNSB_OUTCOME_DROPPED;
	c.reason = DNSB_REASON_NO_ZONE;
	/* One line's length first, without a limit. */
	assert_int_equal(dnsb_droplog_open(&log, fx->path, &err), 0);
	assert_int_equal(dnsb_droplog_write(log, "", &c, NOW), 0);
	dnsb_droplog_free(log);
	line_len = file_size(fx->path);
	assert_true(line_len > 100);
	unlink(fx->path);

	opts.max_size = (uint64_t)(line_len * 3 + line_len / 2); /* three lines and a half */
	assert_int_equal(dnsb_droplog_open_ext(&log, fx->path, &opts, &err), 0);
	for (int i = 0; i < 20; i++) {
		assert_int_equal(dnsb_droplog_write(log, "", &c, NOW), 0);
		assert_true(file_size(fx->path) <= (off_t)opts.max_size);
		assert_true(file_size(fx->rotated) <= (off_t)opts.max_size);
	}
	assert_int_equal(dnsb_droplog_lines(log), 20);
	dnsb_droplog_free(log);
	/* 20 lines, 3 a file: the last 2 in FILE, the 3 before them in FILE.1, the rest gone. */
	text = slurp(fx->path);
	in_file = count_lines(text);
	free(text);
	text = slurp(fx->rotated);
	in_rotated = count_lines(text);
	free(text);
	assert_int_equal(in_file, 2);
	assert_int_equal(in_rotated, 3);

	/* A line longer than the size alone is written whole, to a file of its own. */
	opts.max_size = 10;
	assert_int_equal(dnsb_droplog_open_ext(&log, fx->path, &opts, &err), 0);
	assert_int_equal(dnsb_droplog_write(log, "", &c, NOW), 0);
	assert_int_equal(dnsb_droplog_write(log, "", &c, NOW), 0);
	dnsb_droplog_free(log);
	assert_int_equal(file_size(fx->path), line_len);
	assert_int_equal(file_size(fx->rotated), line_len);

	opts.version = 99;
	assert_int_equal(dnsb_droplog_open_ext(&log, fx->path, &opts, &err), DNSB_EINVAL);
	drop_change(&c);
}

/* After logrotate moved the file, reopen sends the next line to a new file at the path. */
static void test_reopen_after_move(void **state)
{
	struct fixture *fx = *state;
	dnsb_change c = make_change(DNSB_CHANGE_CREATE, NULL, app_endpoint);
	dnsb_droplog *log;
	dnsb_error err;
	char *text;

	c.outcome = DNSB_OUTCOME_DROPPED;
	c.reason = DNSB_REASON_NO_ZONE;
	assert_int_equal(dnsb_droplog_open(&log, fx->path, &err), 0);
	assert_int_equal(dnsb_droplog_write(log, "", &c, NOW), 0);
	assert_int_equal(rename(fx->path, fx->moved), 0);
	assert_int_equal(dnsb_droplog_write(log, "", &c, NOW), 0); /* still the moved file */
	assert_int_equal(access(fx->path, F_OK), -1);
	assert_int_equal(dnsb_droplog_reopen(log, &err), 0);
	assert_int_equal(dnsb_droplog_write(log, "", &c, NOW), 0);
	assert_int_equal(dnsb_droplog_lines(log), 3);
	dnsb_droplog_free(log);
	text = slurp(fx->moved);
	assert_int_equal(count_lines(text), 2);
	free(text);
	text = slurp(fx->path);
	assert_int_equal(count_lines(text), 1);
	free(text);

	/* A path that cannot be opened: an error naming it, and lines go on to the old file. */
	assert_int_equal(dnsb_droplog_open(&log, fx->path, &err), 0);
	assert_int_equal(rename(fx->path, fx->moved), 0);
	assert_int_equal(mkdir(fx->path, 0700), 0); /* a directory where the file was */
	assert_int_equal(dnsb_droplog_reopen(log, &err), DNSB_EIO);
	assert_non_null(strstr(err.message, fx->path));
	assert_int_equal(dnsb_droplog_write(log, "", &c, NOW), 0);
	dnsb_droplog_free(log);
	assert_int_equal(rmdir(fx->path), 0);
	text = slurp(fx->moved);
	assert_int_equal(count_lines(text), 2);
	free(text);
	assert_int_equal(dnsb_droplog_reopen(NULL, &err), 0);
	drop_change(&c);
}


/* A huge name and message: cut (a name at 253 octets, on a UTF-8 boundary), each cut said; the plan untouched. */
static void test_names_and_values_bounded(void **state)
{
	struct fixture *fx = *state;
	size_t n = 1 << 20;
	char *name = malloc(n + 1), *message = malloc(n + 1), *ep, *text;
	dnsb_droplog *log;
	dnsb_change c;
	dnsb_error err = { 0 };
	json_object *line, *v;

	assert_non_null(name);
	assert_non_null(message);
	memset(name, 'a', n);
	memcpy(name + 252, "\xc3\xa9", 2); /* an é across octet 253: cut before it */
	name[n] = '\0';
	memset(message, 'm', n);
	message[n] = '\0';
	assert_true(asprintf(&ep, "{\"dnsName\":\"%s\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"}", name) > 0);
	c = make_change(DNSB_CHANGE_CREATE, NULL, ep);
	c.outcome = DNSB_OUTCOME_DROPPED;
	c.reason = DNSB_REASON_INVALID;
	c.message = message;
	assert_int_equal(dnsb_droplog_open(&log, fx->path, &err), 0);
	assert_int_equal(dnsb_droplog_write(log, "example.com.", &c, NOW), 0);
	dnsb_droplog_free(log);
	text = slurp(fx->path);
	assert_true(strlen(text) < 8192);
	line = parse_line(text, strlen(text) - 1);
	v = json_object_object_get(json_object_array_get_idx(json_object_object_get(
		json_object_object_get(line, "change"), "create"), 0), "dnsName");
	assert_int_equal(json_object_get_string_len(v), 252);
	assert_int_equal(json_object_get_string_len(json_object_object_get(line, "message")), 4096);
	assert_json_equal(json_object_object_get(line, "truncated"),
			  "[{\"field\":\"$.message\",\"octets\":1048576},"
			  "{\"field\":\"$.change.create[0].dnsName\",\"octets\":1048576}]");
	/* the change's own endpoint keeps the whole name */
	assert_int_equal(json_object_get_string_len(json_object_object_get(c.endpoint_new, "dnsName")), (int)n);
	json_object_put(line);
	drop_change(&c);
	free(text);
	free(ep);
	free(name);
	free(message);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_line_fields_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_and_values_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absent_detail_is_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_secrets_redacted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_update_plan_form, setup, teardown),
		cmocka_unit_test_setup_teardown(test_change_feeds_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_appends_across_opens, setup, teardown),
		cmocka_unit_test(test_open_error),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_device_flushes),
		cmocka_unit_test_setup_teardown(test_concurrent_whole_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quarantine_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rotates_at_max_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reopen_after_move, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
