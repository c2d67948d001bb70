/*
 * test_quarantine.c - the quarantine's store: holds, doubling backoff,
 * release, noted drops, and the end of an apply; and through the engine, what
 * it lets into the logs: a held group's lines when its hold starts and ends,
 * drops decided before sending once per backoff and summed up per reason.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L  /* mkdtemp */
#endif

#include <fcntl.h>
#include <unistd.h>

#include "engine_fixture.h"
#include "applier/engine/quarantine.h"
#include "applier/obs/droplog_read.h"

static void test_hold_doubles_then_release(void **state)
{
	dnsb_quarantine *q = NULL, *bad = NULL;
	unsigned long t;
	double held = 0;

	(void)state;
	assert_int_equal(dnsb_quarantine_new(&q, 60, 150), 0);
	t = dnsb_quarantine_begin(q);
	assert_int_equal(dnsb_quarantine_check(q, "g", t, 0), 0);
	assert_int_equal(dnsb_quarantine_hold(q, "g", "example.com.", t, 0, &held), 0); /* it starts */
	assert_true(held == 60);
	assert_int_equal(dnsb_quarantine_check(q, "g", t, 59), 1);
	assert_int_equal(dnsb_quarantine_check(q, "g", t, 60), 0);
	assert_int_equal(dnsb_quarantine_hold(q, "g", "example.com.", t, 60, &held), 1);  /* again: 120 s now */
	assert_true(held == 120);
	assert_int_equal(dnsb_quarantine_check(q, "g", t, 179), 1);
	assert_int_equal(dnsb_quarantine_hold(q, "g", "example.com.", t, 180, NULL), 1); /* 240, capped at 150 */
	assert_int_equal(dnsb_quarantine_check(q, "g", t, 329), 1);
	assert_int_equal(dnsb_quarantine_check(q, "g", t, 330), 0);
	assert_int_equal(dnsb_quarantine_release(q, "g"), 1); /* it ends */
	assert_int_equal(dnsb_quarantine_release(q, "g"), 0);
	assert_int_equal(dnsb_quarantine_count(q, 0), 0);
	assert_int_equal(dnsb_quarantine_new(&bad, 0, 1), DNSB_EINVAL);
	assert_null(bad);
	dnsb_quarantine_free(q);
	dnsb_quarantine_free(NULL);
}

/* The end of an apply forgets, in one pass, every unseen entry of its own zones, and only those. */
static void test_end_forgets_unseen_of_its_zones(void **state)
{
	dnsb_quarantine *q = NULL;
	const char *zones[] = { "a.test." };
	unsigned long t1, t2;
	char key[32];

	(void)state;
	assert_int_equal(dnsb_quarantine_new(&q, 60, 3600), 0);
	t1 = dnsb_quarantine_begin(q);
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "a%d", i);
		assert_int_equal(dnsb_quarantine_hold(q, key, "a.test.", t1, 0, NULL), 0);
	}
	for (int i = 0; i < 10; i++) {
		snprintf(key, sizeof(key), "b%d", i);
		assert_int_equal(dnsb_quarantine_hold(q, key, "b.test.", t1, 0, NULL), 0);
	}
	dnsb_quarantine_end(q, t1, zones, 1);
	assert_int_equal(dnsb_quarantine_count(q, 1), 5010); /* all seen by t1 */
	t2 = dnsb_quarantine_begin(q);
	for (int i = 0; i < 100; i++) {
		snprintf(key, sizeof(key), "a%d", i * 7);
		assert_int_equal(dnsb_quarantine_check(q, key, t2, 1), 1);
	}
	dnsb_quarantine_end(q, t2, zones, 1);
	assert_int_equal(dnsb_quarantine_count(q, 1), 110); /* 100 seen in a.test., b.test. untouched */
	assert_int_equal(dnsb_quarantine_check(q, "a7", t2, 1), 1);
	assert_int_equal(dnsb_quarantine_check(q, "a8", t2, 1), 0);
	assert_int_equal(dnsb_quarantine_check(q, "b3", t2, 1), 1);
	dnsb_quarantine_free(q);
}

/*
 * A noted drop is news the first time, for every change of the apply that
 * noted it, and again once its backoff (doubling) has run out; it holds
 * nothing, is not counted, and leaves with the plan like a held group.
 */
static void test_note_once_per_backoff(void **state)
{
	dnsb_quarantine *q = NULL;
	const char *zones[] = { "" };
	unsigned long t1, t2, t3, t4;
	char key[32];

	(void)state;
	assert_int_equal(dnsb_quarantine_new(&q, 60, 3600), 0);
	t1 = dnsb_quarantine_begin(q);
	assert_int_equal(dnsb_quarantine_note(q, "!invalid|x", "", t1, 0), 1);
	assert_int_equal(dnsb_quarantine_note(q, "!invalid|x", "", t1, 1), 1); /* the same apply: each change told */
	assert_int_equal(dnsb_quarantine_count(q, 1), 0);                       /* nothing held */
	t2 = dnsb_quarantine_begin(q);
	assert_int_equal(dnsb_quarantine_note(q, "!invalid|x", "", t2, 59), 0);
	t3 = dnsb_quarantine_begin(q);
	assert_int_equal(dnsb_quarantine_note(q, "!invalid|x", "", t3, 60), 1); /* ran out: told, 120 s now */
	t4 = dnsb_quarantine_begin(q);
	assert_int_equal(dnsb_quarantine_note(q, "!invalid|x", "", t4, 179), 0);
	assert_int_equal(dnsb_quarantine_note(q, "!no_zone|y", "", t4, 179), 1);
	dnsb_quarantine_end(q, t4, zones, 1);
	/* Left the plan: forgotten, news again. */
	t1 = dnsb_quarantine_begin(q);
	dnsb_quarantine_end(q, t1, zones, 1);
	t2 = dnsb_quarantine_begin(q);
	assert_int_equal(dnsb_quarantine_note(q, "!invalid|x", "", t2, 180), 1);
	/* Memory stays bounded: past QUARANTINE_NOTES_MAX, every drop is news, every time. */
	for (int i = 0; i < QUARANTINE_NOTES_MAX + 10; i++) {
		snprintf(key, sizeof(key), "!invalid|%d", i);
		assert_int_equal(dnsb_quarantine_note(q, key, "", t2, 180), 1);
	}
	t3 = dnsb_quarantine_begin(q);
	assert_int_equal(dnsb_quarantine_note(q, "!invalid|5", "", t3, 181), 0);
	snprintf(key, sizeof(key), "!invalid|%d", QUARANTINE_NOTES_MAX + 5);
	assert_int_equal(dnsb_quarantine_note(q, key, "", t3, 181), 1);
	dnsb_quarantine_free(q);
}

/* The engine's logs: a temporary drop log, stderr captured in a file, metrics. */
typedef struct logs {
	char dir[64], droplog_path[128], stderr_path[128];
	dnsb_droplog *droplog;
	dnsb_metrics *metrics;
	int saved_stderr;
} logs;

static void logs_open(logs *l, run *r)
{
	dnsb_error err = { 0 };

	snprintf(l->dir, sizeof(l->dir), "/tmp/dnsb-quarantine-XXXXXX");
	assert_non_null(mkdtemp(l->dir));
	snprintf(l->droplog_path, sizeof(l->droplog_path), "%s/drops.jsonl", l->dir);
	snprintf(l->stderr_path, sizeof(l->stderr_path), "%s/stderr", l->dir);
	assert_int_equal(dnsb_droplog_open(&l->droplog, l->droplog_path, &err), 0);
	assert_int_equal(dnsb_metrics_new(&l->metrics), 0);
	r->o.droplog = l->droplog;
	r->o.metrics = l->metrics;
	l->saved_stderr = -1;
}

/* Apply with stderr going to a fresh file. @return the lines written to stderr */
static size_t logs_apply(logs *l, run *r)
{
	int fd = open(l->stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FILE *f;
	size_t n = 0;
	int ch;

	assert_true(fd >= 0);
	fflush(stderr);
	l->saved_stderr = dup(STDERR_FILENO);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	close(fd);
	run_apply(r);
	assert_true(dup2(l->saved_stderr, STDERR_FILENO) >= 0);
	close(l->saved_stderr);
	assert_non_null(f = fopen(l->stderr_path, "r"));
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

/* Lines of the drop log holding `needle` (all of them when NULL). */
static size_t droplog_lines(const logs *l, const char *needle)
{
	FILE *f = fopen(l->droplog_path, "r");
	char line[8192];
	size_t n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += needle == NULL || strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

/* The sum of the series whose name and labels start with `prefix` (more labels may follow). */
static double metric(const logs *l, const char *prefix)
{
	char *text = NULL, *save = NULL;
	size_t len = 0;
	double v = 0;

	assert_int_equal(dnsb_metrics_render(&text, &len, l->metrics), 0);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, prefix, strlen(prefix)) == 0 && strrchr(line, ' '))
			v += strtod(strrchr(line, ' ') + 1, NULL);
	free(text);
	return v;
}

static void logs_close(logs *l)
{
	dnsb_droplog_free(l->droplog);
	dnsb_metrics_free(l->metrics);
	unlink(l->droplog_path);
	unlink(l->stderr_path);
	rmdir(l->dir);
}

#define DROPPED "dnsbatch_dropped_changes_total{zone="
#define H1_QUARANTINED DROPPED "\"example.com.\",record_type=\"A\",reason=\"quarantined\""

/*
 * The same conflicting plan, loop after loop: the group's two changes are
 * written (and logged) when the hold starts, not while it lasts, again when
 * it ran out and conflicted again, and once more when it ran out and applied.
 * The metrics count every loop; the caller sees every change dropped.
 */
static void test_engine_logs_hold_start_and_end(void **state)
{
	dnsb_quarantine *q = NULL;
	dnsb_drops drops;
	dnsb_error err = { 0 };
	json_object *creates;
	FILE *f;
	logs l;
	run r;

	(void)state;
	run_init(&r, NULL, 3, 1);
	logs_open(&l, &r);
	assert_int_equal(dnsb_quarantine_new(&q, 60, 3600), 0);
	r.o.quarantine = q;
	put_a(r.p, "h1.example.com.", "198.51.100.1");

	assert_int_equal(logs_apply(&l, &r), 2);
	assert_int_equal(droplog_lines(&l, NULL), 2);
	assert_int_equal(droplog_lines(&l, "\"reason\":\"conflict\",\"status\":409,\"code\":\"alreadyExists\""), 2);
	assert_int_equal(droplog_lines(&l, "\"quarantine\":\"start\",\"quarantine_seconds\":60,\"cause\":\"exists\""), 2);
	for (int loop = 2; loop <= 3; loop++) {
		r.c.t += 10;
		run_plan(&r, plan_of_creates(3, 1));
		assert_int_equal(logs_apply(&l, &r), 0);
		assert_int_equal(droplog_lines(&l, NULL), 2);
		assert_int_equal(r.rep.dropped, 2);
		assert_int_equal(run_change(&r, 2)->outcome, DNSB_OUTCOME_DROPPED);
		assert_int_equal(run_change(&r, 2)->reason, DNSB_REASON_QUARANTINED);
		assert_int_equal(run_change(&r, 3)->reason, DNSB_REASON_QUARANTINED);
		assert_true(metric(&l, H1_QUARANTINED) == loop - 1);
	}

	/* The minute is over: tried again, conflicts again, held for 120 s. */
	r.c.t += 41;
	run_plan(&r, plan_of_creates(3, 1));
	assert_int_equal(logs_apply(&l, &r), 2);
	assert_int_equal(droplog_lines(&l, NULL), 4);
	assert_int_equal(droplog_lines(&l, "\"quarantine\":\"again\",\"quarantine_seconds\":120,"), 2);
	r.c.t += 119;
	run_plan(&r, plan_of_creates(3, 1));
	assert_int_equal(logs_apply(&l, &r), 0);
	assert_int_equal(droplog_lines(&l, NULL), 4);

	/* Someone puts what the plan wants: when the hold ends the group is in effect. */
	put_a(r.p, "h1.example.com.", "192.0.2.2");
	r.c.t += 1;
	run_plan(&r, plan_of_creates(3, 1));
	assert_int_equal(logs_apply(&l, &r), 2);
	assert_int_equal(droplog_lines(&l, NULL), 6);
	assert_int_equal(droplog_lines(&l, "\"outcome\":\"already_applied\",\"reason\":\"\""), 1);
	assert_int_equal(droplog_lines(&l, "\"outcome\":\"applied\",\"reason\":\"\""), 1);
	assert_int_equal(droplog_lines(&l, "\"quarantine\":\"end\",\"change\""), 2);
	assert_int_equal(dnsb_quarantine_count(q, r.c.t), 0);
	run_plan(&r, plan_of_creates(3, 1));
	assert_int_equal(logs_apply(&l, &r), 0);
	assert_int_equal(droplog_lines(&l, NULL), 6);

	/* Replayed, the log is the group's two changes once: the end lines are no drops. */
	assert_non_null(f = fopen(l.droplog_path, "r"));
	assert_int_equal(dnsb_drops_read(&drops, f, l.droplog_path, NULL, &err), 0);
	fclose(f);
	assert_int_equal(drops.selected, 6);
	assert_true(json_object_object_get_ex(drops.plan, "create", &creates));
	assert_int_equal(json_object_array_length(creates), 2);
	dnsb_drops_clear(&drops);

	logs_close(&l);
	dnsb_quarantine_free(q);
	run_free(&r);
}

/*
 * 1000 endpoints without a name and two in no zone: one stderr line per
 * reason, one drop log line per change; the same plan on the next loop logs
 * nothing and writes nothing, and once the backoff ran out all of it again.
 */
static void test_engine_sums_up_drops_before_sending(void **state)
{
	json_object *root = json_object_new_object(), *list = json_object_new_array();
	const char *text;
	dnsb_quarantine *q = NULL;
	char *body;
	logs l;
	run r;

	(void)state;
	for (int i = 0; i < 1000; i++)
		json_object_array_add(list, json_object_new_object());
	json_object_array_add(list, json_tokener_parse("{\"dnsName\":\"app.other.org\",\"targets\":[\"192.0.2.1\"],"
						       "\"recordType\":\"A\"}"));
	json_object_array_add(list, json_tokener_parse("{\"dnsName\":\"a-app.other.org\",\"targets\":[\"\\\"x\\\"\"],"
						       "\"recordType\":\"TXT\",\"labels\":{\"ownedRecord\":\"app.other.org\"}}"));
	json_object_object_add(root, "create", list);
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	assert_non_null(body = strdup(text));
	json_object_put(root);

	run_init(&r, NULL, 0, 0);
	logs_open(&l, &r);
	assert_int_equal(dnsb_quarantine_new(&q, 60, 3600), 0);
	r.o.quarantine = q;
	run_plan(&r, parse_plan(body));
	assert_int_equal(logs_apply(&l, &r), 2);
	assert_int_equal(r.rep.dropped, 1002);
	assert_int_equal(droplog_lines(&l, "\"reason\":\"invalid\""), 1000);
	assert_int_equal(droplog_lines(&l, "\"reason\":\"no_zone\""), 2);
	assert_int_equal(dnsb_quarantine_count(q, r.c.t), 0); /* nothing held */

	r.c.t += 30;
	run_plan(&r, parse_plan(body));
	assert_int_equal(logs_apply(&l, &r), 0);
	assert_int_equal(droplog_lines(&l, NULL), 1002);
	assert_int_equal(r.rep.dropped, 1002);
	assert_int_equal(run_change(&r, 0)->reason, DNSB_REASON_INVALID);
	assert_int_equal(run_change(&r, 1000)->reason, DNSB_REASON_NO_ZONE);
	assert_true(metric(&l, DROPPED "\"\",record_type=\"unknown\",reason=\"invalid\"") == 2000);

	r.c.t += 30;
	run_plan(&r, parse_plan(body));
	assert_int_equal(logs_apply(&l, &r), 2);
	assert_int_equal(droplog_lines(&l, NULL), 2004);

	free(body);
	logs_close(&l);
	dnsb_quarantine_free(q);
	run_free(&r);
}

/* Without a quarantine (one-shot apply) every drop is written; invalid ones are still summed up on stderr. */
static void test_engine_without_quarantine_writes_every_drop(void **state)
{
	logs l;
	run r;

	(void)state;
	run_init(&r, NULL, 0, 0);
	logs_open(&l, &r);
	for (int loop = 1; loop <= 2; loop++) {
		run_plan(&r, parse_plan("{\"create\":[{},{},{\"dnsName\":\"x.example.com\",\"recordType\":\"A\","
					"\"targets\":[\"999.1.1.1\"]}]}"));
		assert_int_equal(logs_apply(&l, &r), 1);
		assert_int_equal(droplog_lines(&l, "\"reason\":\"invalid\""), 3 * (size_t)loop);
	}
	logs_close(&l);
	run_free(&r);
}


/* 2001-09-09T01:46:40Z and a half: a wall time no test run meets. */
static double fixed_wall(void *payload)
{
	(void)payload;
	return 1000000000.5;
}

/* The engine's clock stamps the drop log's lines and the quarantine's entries: a test fixes both. */
static void test_engine_wall_time_from_clock(void **state)
{
	dnsb_quarantine *q = NULL;
	json_object *held = NULL, *entry, *v;
	logs l;
	run r;

	(void)state;
	run_init(&r, NULL, 3, 1);
	r.c.clock.wall = fixed_wall;
	logs_open(&l, &r);
	assert_int_equal(dnsb_quarantine_new(&q, 60, 3600), 0);
	r.o.quarantine = q;
	put_a(r.p, "h1.example.com.", "198.51.100.1");

	assert_int_equal(logs_apply(&l, &r), 2);
	assert_int_equal(droplog_lines(&l, NULL), 2);
	assert_int_equal(droplog_lines(&l, "{\"time\":\"2001-09-09T01:46:40Z\",\"zone\":\"example.com.\""), 2);
	assert_int_equal(dnsb_quarantine_list(q, r.c.t, fixed_wall(NULL), &held), 0);
	assert_int_equal(json_object_array_length(held), 1);
	entry = json_object_array_get_idx(held, 0);
	assert_true(json_object_object_get_ex(entry, "first_seen", &v));
	assert_string_equal(json_object_get_string(v), "2001-09-09T01:46:40Z");
	assert_true(json_object_object_get_ex(entry, "next_retry", &v));
	assert_string_equal(json_object_get_string(v), "2001-09-09T01:47:40Z");
	json_object_put(held);

	logs_close(&l);
	dnsb_quarantine_free(q);
	run_free(&r);
}

/* A clock of another version is refused before anything is looked at. */
static void test_engine_refuses_clock_version(void **state)
{
	dnsb_error err = { 0 };
	run r;

	(void)state;
	run_init(&r, NULL, 1, 0);
	r.c.clock.version = DNSB_CLOCK_VERSION + 1;
	assert_int_equal(dnsb_engine_apply(&r.rep, r.p, r.plan, &r.o, &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "clock version"));
	assert_int_equal(run_change(&r, 0)->outcome, DNSB_OUTCOME_PENDING);
	run_free(&r);
}

/* The first line of `path` that parses as an object whose `key` starts with `prefix`, or NULL. @return a new reference */
static json_object *find_line(const char *path, const char *key, const char *prefix)
{
	FILE *f = fopen(path, "r");
	char line[16384];
	json_object *found = NULL;

	assert_non_null(f);
	while (found == NULL && fgets(line, sizeof(line), f)) {
		json_object *o = json_tokener_parse(line), *v;
		if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string) &&
		    strncmp(json_object_get_string(v), prefix, strlen(prefix)) == 0)
			found = o;
		else
			json_object_put(o);
	}
	fclose(f);
	return found;
}

/* `key` is the same in both objects: equal values, or absent (or null) in both. */
static void assert_same_key(json_object *a, json_object *b, const char *key)
{
	json_object *x = NULL, *y = NULL;

	json_object_object_get_ex(a, key, &x);
	json_object_object_get_ex(b, key, &y);
	if (!json_object_equal(x, y)) {
		print_error("key %s: %s vs %s\n", key, x ? json_object_to_json_string(x) : "(absent)",
			    y ? json_object_to_json_string(y) : "(absent)");
		fail();
	}
}

/* Put "owner TXT text" (TTL 300) into the memory provider. */
static void put_txt(dnsb_provider *p, const char *owner, const char *text)
{
	dnsb_rrset r = { 0 };

	r.owner = strdup(owner);
	r.type = 16;
	r.ttl = 300;
	assert_int_equal(dnsb_rrset_add_rdata(&r, text), 0);
	assert_int_equal(dnsb_memory_put(p, &r), 0);
	dnsb_rrset_clear(&r);
}

/*
 * One conflicting change as the drop log, the JSON log and GET /quarantine
 * show it: one writer, so each key they share is the same in all three, and
 * the quarantine's changes are the drop log's changes by name and type.
 */
static void test_drop_records_agree(void **state)
{
	static const char *const logged[] = { "zone", "outcome", "reason", "message", "cause", "current", "owner",
					      "owner_resource" };
	static const char *const held_keys[] = { "zone", "message", "cause", "owner", "owner_resource" };
	dnsb_quarantine *q = NULL;
	json_object *line, *log_line, *list = NULL, *entry, *changes, *v, *plan_ep;
	logs l;
	run r;

	(void)state;
	run_init(&r, NULL, 3, 1);
	logs_open(&l, &r);
	assert_int_equal(dnsb_quarantine_new(&q, 60, 3600), 0);
	r.o.quarantine = q;
	put_a(r.p, "h1.example.com.", "198.51.100.1");
	put_txt(r.p, "a-h1.example.com.", "\"heritage=external-dns,external-dns/owner=other,external-dns/resource=ingress/default/x\"");
	dnsb_log_set_format(DNSB_LOG_JSON);
	assert_int_equal(logs_apply(&l, &r), 2);
	dnsb_log_set_format(DNSB_LOG_TEXT);

	assert_non_null(line = find_line(l.droplog_path, "time", ""));
	assert_non_null(log_line = find_line(l.stderr_path, "msg", "dropped create h1.example.com. A: "));
	assert_int_equal(dnsb_quarantine_list(q, r.c.t, 0, &list), 0);
	assert_int_equal(json_object_array_length(list), 1);
	entry = json_object_array_get_idx(list, 0);
	/* The drop log's first line is the change that conflicted first: the quarantine's cause and words. */
	assert_true(json_object_object_get_ex(line, "change", &v) && json_object_object_get_ex(v, "create", &v));
	plan_ep = json_object_array_get_idx(v, 0);
	assert_true(json_object_object_get_ex(entry, "changes", &changes));
	assert_int_equal(json_object_array_length(changes), 2);
	assert_same_key(json_object_array_get_idx(changes, 0), plan_ep, "dnsName");
	assert_same_key(json_object_array_get_idx(changes, 0), plan_ep, "recordType");
	assert_string_equal(json_object_get_string(json_object_object_get(json_object_array_get_idx(changes, 0), "kind")),
			    "create");
	/* The keys are there, so that agreeing means something. */
	assert_string_equal(json_object_get_string(json_object_object_get(line, "cause")), "exists");
	assert_non_null(json_object_object_get(line, "current"));
	assert_non_null(json_object_object_get(line, "message"));
	assert_string_equal(json_object_get_string(json_object_object_get(line, "owner")), "other");
	for (size_t i = 0; i < sizeof(logged) / sizeof(*logged); i++)
		assert_same_key(line, log_line, logged[i]);
	for (size_t i = 0; i < sizeof(held_keys) / sizeof(*held_keys); i++)
		assert_same_key(line, entry, held_keys[i]);

	json_object_put(list);
	json_object_put(log_line);
	json_object_put(line);
	logs_close(&l);
	dnsb_quarantine_free(q);
	run_free(&r);
}

/* A group of six changes (held.c's masks stop there) that conflicted is held back whole on the next loop. */
static void test_large_group_is_held(void **state)
{
	const char *plan = "{\"create\":[{\"dnsName\":\"big.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.1\"]}"
			   ",{\"dnsName\":\"t1.example.com\",\"recordType\":\"TXT\",\"targets\":[\"\\\"1\\\"\"],\"labels\":{\"ownedRecord\":\"big.example.com\"}}"
			   ",{\"dnsName\":\"t2.example.com\",\"recordType\":\"TXT\",\"targets\":[\"\\\"2\\\"\"],\"labels\":{\"ownedRecord\":\"big.example.com\"}}"
			   ",{\"dnsName\":\"t3.example.com\",\"recordType\":\"TXT\",\"targets\":[\"\\\"3\\\"\"],\"labels\":{\"ownedRecord\":\"big.example.com\"}}"
			   ",{\"dnsName\":\"t4.example.com\",\"recordType\":\"TXT\",\"targets\":[\"\\\"4\\\"\"],\"labels\":{\"ownedRecord\":\"big.example.com\"}}"
			   ",{\"dnsName\":\"t5.example.com\",\"recordType\":\"TXT\",\"targets\":[\"\\\"5\\\"\"],\"labels\":{\"ownedRecord\":\"big.example.com\"}}"
			   "]}";
	dnsb_quarantine *q = NULL;
	unsigned long subs;
	run r;

	(void)state;
	run_init(&r, NULL, 0, 0);
	assert_int_equal(dnsb_quarantine_new(&q, 60, 3600), 0);
	r.o.quarantine = q;
	put_a(r.p, "big.example.com.", "198.51.100.1");
	run_plan(&r, parse_plan(plan));
	run_apply(&r);
	assert_int_equal(r.rep.dropped, 6);
	assert_int_equal(dnsb_quarantine_count(q, r.c.t), 1);
	subs = r.rep.submissions;
	r.c.t += 10;
	run_plan(&r, parse_plan(plan));
	run_apply(&r);
	assert_int_equal(r.rep.submissions, 0); /* held back: no request */
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(run_change(&r, i)->reason, DNSB_REASON_QUARANTINED);
	(void)subs;
	run_free(&r);
	dnsb_quarantine_free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hold_doubles_then_release),
		cmocka_unit_test(test_end_forgets_unseen_of_its_zones),
		cmocka_unit_test(test_note_once_per_backoff),
		cmocka_unit_test(test_engine_logs_hold_start_and_end),
		cmocka_unit_test(test_engine_sums_up_drops_before_sending),
		cmocka_unit_test(test_engine_without_quarantine_writes_every_drop),
		cmocka_unit_test(test_large_group_is_held),
		cmocka_unit_test(test_engine_wall_time_from_clock),
		cmocka_unit_test(test_engine_refuses_clock_version),
		cmocka_unit_test(test_drop_records_agree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
