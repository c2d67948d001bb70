/*
 * test_engine_lost_reply.c - a lost reply followed by another client's write
 * (issue 31 §1, the engine): a batch commits, its reply is lost, another
 * client writes at one of the group's names before the retry, and the
 * resubmission is refused. The group is then partly in effect, and the part
 * in effect is this run's own commit: it is already_applied when the group's
 * whole desired state holds, otherwise failed (transient, unknown), never
 * dropped. Then the randomized fault schedules that combine the two, with the
 * invariants checked against what the memory provider holds: no false
 * outcome, a group whole, the drop log matching the outcomes.
 */
#include <unistd.h>

#include "engine_fixture.h"

/* A drop log in a fresh temporary file; its path in path[] (unlinked by droplog_done). */
static dnsb_droplog *droplog_tmp(char *path, size_t size)
{
	dnsb_droplog *log = NULL;
	int fd;

	snprintf(path, size, "/tmp/dnsb-lost-reply-XXXXXX");
	assert_true((fd = mkstemp(path)) >= 0);
	close(fd);
	assert_int_equal(dnsb_droplog_open(&log, path, NULL), 0);
	return log;
}

/* The drop log's lines, as parsed JSON objects in an array (the caller's reference). */
static json_object *droplog_lines(dnsb_droplog *log, const char *path)
{
	json_object *lines = json_object_new_array();
	char buf[65536];
	FILE *f;

	assert_int_equal(dnsb_droplog_flush(log), 0);
	assert_non_null(f = fopen(path, "r"));
	while (fgets(buf, sizeof(buf), f)) {
		json_object *o = json_tokener_parse(buf);
		assert_non_null(o);
		json_object_array_add(lines, o);
	}
	fclose(f);
	return lines;
}

static void droplog_done(dnsb_droplog *log, const char *path)
{
	dnsb_droplog_free(log);
	unlink(path);
}

static const char *field(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/* The owner of a line's change (its first endpoint's dnsName, any kind), or NULL for a line without one. */
static const char *line_owner(json_object *line, const char **type)
{
	json_object *change, *list, *ep;

	if (!json_object_object_get_ex(line, "change", &change))
		return NULL;
	json_object_object_foreach(change, kind, v)
	{
		(void)kind;
		list = v;
		if (json_object_array_length(list) == 0)
			continue;
		ep = json_object_array_get_idx(list, 0);
		*type = field(ep, "recordType");
		return field(ep, "dnsName");
	}
	return NULL;
}

/* Does the drop log's "current" of any line hold rdata `value`? */
static int current_shows(json_object *lines, const char *value)
{
	for (size_t i = 0; i < json_object_array_length(lines); i++) {
		json_object *cur;
		if (!json_object_object_get_ex(json_object_array_get_idx(lines, i), "current", &cur))
			continue;
		if (strstr(json_object_to_json_string(cur), value))
			return 1;
	}
	return 0;
}

/*
 * The steps with the memory provider: submission 1 commits the
 * group (h0 A + its ownership TXT) and its reply is lost; before submission
 * 2 another client writes `other` at one of the group's names; submission 2
 * is refused. Neither change may be dropped: the truth of the group is
 * unknown (failed, transient), and the drop log shows no conflict.
 */
static void lost_reply_then_other_writer(const char *other, const char *ours_in_effect_owner)
{
	char faults[256], path[64];
	dnsb_droplog *log;
	json_object *lines;
	run r;

	snprintf(faults, sizeof(faults), "1:commit-transient,2:write=%s", other);
	run_init(&r, faults, 1, 1);
	log = droplog_tmp(path, sizeof(path));
	r.o.droplog = log;
	run_apply(&r);
	assert_int_equal(r.rep.submissions >= 2, 1);
	/* what this run wrote is still held at one name */
	if (strcmp(ours_in_effect_owner, "h0.example.com.") == 0)
		assert_true(holds_a(r.p, "h0.example.com.", "192.0.2.1"));
	for (size_t i = 0; i < 2; i++) {
		dnsb_change *c = run_change(&r, i);
		if (c->outcome != DNSB_OUTCOME_FAILED || c->reason != DNSB_REASON_TRANSIENT)
			fail_msg("%s %s: %s/%s (%s), expected failed/transient", c->new_set.owner,
				 dnsb_type_name(c->new_set.type), dnsb_outcome_name(c->outcome),
				 dnsb_reason_name(c->reason), c->message ? c->message : "");
		assert_int_equal(c->cause, DNSB_CAUSE_NONE);
		assert_int_equal(c->current.count, 0);
	}
	assert_int_equal(r.rep.dropped, 0);
	assert_int_equal(r.rep.failed, 2);
	lines = droplog_lines(log, path);
	assert_int_equal(json_object_array_length(lines), 2);
	for (size_t i = 0; i < 2; i++) {
		json_object *line = json_object_array_get_idx(lines, i);
		assert_string_equal(field(line, "outcome"), "failed");
		assert_string_equal(field(line, "reason"), "transient");
		assert_null(field(line, "current"));
	}
	/* the value this run wrote is shown nowhere as what is in the way */
	assert_false(current_shows(lines, "192.0.2.1"));
	assert_false(current_shows(lines, "external-dns/owner=default"));
	json_object_put(lines);
	droplog_done(log, path);
	run_free(&r);
}

/* Another client writes at the record's name: the ownership TXT this run wrote stays in effect. */
static void test_lost_reply_then_write_at_record(void **state)
{
	(void)state;
	lost_reply_then_other_writer("h0.example.com. 300 A 198.51.100.9", "a-h0.example.com.");
}

/* Another client writes at the ownership record's name: the A this run wrote stays in effect. */
static void test_lost_reply_then_write_at_ownership_record(void **state)
{
	(void)state;
	lost_reply_then_other_writer("a-h0.example.com. 300 TXT \"heritage=external-dns external-dns/owner=other\"",
				     "h0.example.com.");
}

/*
 * A transient answer before anything committed (503), a part of the group
 * made out of band before the run (the ownership TXT, as the group wants it)
 * and the rest free: the rest is sent on its own and lands; the part in
 * effect is already_applied. The lost-reply rule takes nothing from a group
 * whose whole desired state can be made to hold.
 */
static void test_transient_then_partial_rest_lands(void **state)
{
	dnsb_rrset txt = { 0 };
	run r;

	(void)state;
	run_init(&r, "1:transient", 1, 1);
	txt.owner = strdup("a-h0.example.com.");
	txt.type = 16;
	txt.ttl = 300;
	assert_int_equal(dnsb_rrset_add_rdata(&txt, "\"heritage=external-dns,external-dns/owner=default\""), 0);
	assert_int_equal(dnsb_memory_put(r.p, &txt), 0);
	dnsb_rrset_clear(&txt);
	run_apply(&r);
	assert_int_equal(run_change(&r, 0)->outcome, DNSB_OUTCOME_APPLIED);
	assert_int_equal(run_change(&r, 1)->outcome, DNSB_OUTCOME_ALREADY_APPLIED);
	assert_true(holds_a(r.p, "h0.example.com.", "192.0.2.1"));
	run_free(&r);
}

/*
 * After a transient answer the engine cannot tell its own lost commit from
 * another client's write: a group partly in effect whose rest is refused is
 * failed (retryable), not dropped. The next apply, without the transient
 * answer, proves the conflict and drops the group whole.
 */
static void test_transient_then_partial_conflict_fails_then_drops(void **state)
{
	dnsb_rrset txt = { 0 };
	run r;

	(void)state;
	run_init(&r, "1:transient", 1, 1);
	put_a(r.p, "h0.example.com.", "198.51.100.1");
	txt.owner = strdup("a-h0.example.com.");
	txt.type = 16;
	txt.ttl = 300;
	assert_int_equal(dnsb_rrset_add_rdata(&txt, "\"heritage=external-dns,external-dns/owner=default\""), 0);
	assert_int_equal(dnsb_memory_put(r.p, &txt), 0);
	dnsb_rrset_clear(&txt);
	run_apply(&r);
	assert_int_equal(r.rep.failed, 2);
	assert_int_equal(run_change(&r, 0)->reason, DNSB_REASON_TRANSIENT);
	assert_int_equal(run_change(&r, 1)->reason, DNSB_REASON_TRANSIENT);

	run_plan(&r, plan_of_creates(1, 1));
	run_apply(&r);
	assert_int_equal(r.rep.dropped, 2);
	assert_int_equal(run_change(&r, 0)->reason, DNSB_REASON_CONFLICT);
	run_free(&r);
}

/* A write= rule names a record in one of the zones, in zone-file form; anything else is refused, named. */
static void test_write_rule_parsed(void **state)
{
	const char *zones[] = { "example.com." };
	dnsb_provider *p = NULL;
	dnsb_error err = { 0 };

	(void)state;
	assert_int_equal(dnsb_memory_new(&p, zones, 1, "1:write=h0.example.com. 300 IN A", &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "rule 1"));
	assert_int_equal(dnsb_memory_new(&p, zones, 1, "1:write", &err), DNSB_EINVAL);
	assert_int_equal(dnsb_memory_new(&p, zones, 1, "1:write=h0.example.org. 300 A 192.0.2.1", &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "h0.example.org."));
	assert_int_equal(dnsb_memory_new(&p, zones, 1, "2-3:write=H0.Example.COM. 60 A 192.0.2.1", &err), 0);
	dnsb_provider_free(p);
}

/* The write comes before the submission it is numbered with, whatever that submission is. */
static void test_write_rule_before_submission(void **state)
{
	run r;

	(void)state;
	run_init(&r, "2:write=h1.example.com. 60 A 198.51.100.1", 1, 0);
	run_apply(&r);
	assert_false(holds_a(r.p, "h1.example.com.", "198.51.100.1")); /* one submission: rule 2 never fired */
	run_plan(&r, plan_of_creates(2, 0));
	run_apply(&r);
	assert_true(holds_a(r.p, "h1.example.com.", "198.51.100.1"));
	/* the apply's batch was submission 2: h0 is in effect from the first apply, h1 held by the other client */
	assert_int_equal(r.rep.already_applied, 1);
	assert_int_equal(r.rep.dropped, 1);
	assert_int_equal(run_change(&r, 1)->outcome, DNSB_OUTCOME_DROPPED);
	run_free(&r);
}

/*
 * The randomized schedules. What the memory provider holds is sampled before
 * every submission (on_batch) and at the end: a change is this run's own
 * write when its desired RRset appears where it was not (another client only
 * ever writes other values). The invariants, checked for every change:
 *   applied is this run's write; applied or already_applied is in effect at
 *   the end unless another client wrote at its name since;
 *   a group dropped holds no member in effect that this run wrote, and a
 *   dropped change in effect was so before the run began;
 *   a group's changes all landed (applied, already_applied), all dropped, or
 *   all failed;
 *   the drop log has one line for each dropped or failed change, with its
 *   outcome and reason, and none for the others.
 */
#define SCHED_MAX 24

typedef struct oracle {
	run *r;
	size_t n;                       /* plan changes */
	dnsb_rrkey keys[SCHED_MAX];
	int start[SCHED_MAX], now[SCHED_MAX], ours[SCHED_MAX];
	int sampled;
} oracle;

/* Which changes' desired RRsets are held now, into in[]. */
static void sample_into(oracle *o, int *in)
{
	dnsb_rrset_list held = { 0 };

	assert_int_equal(dnsb_provider_read(o->r->p, "example.com.", o->keys, o->n, 0, &held, NULL, NULL), 0);
	for (size_t i = 0; i < o->n; i++) {
		const dnsb_change *c = run_change(o->r, i);
		const dnsb_rrset *h = dnsb_rrset_list_find(&held, c->new_set.owner, c->new_set.type);
		in[i] = h != NULL && dnsb_rrset_equal(h, &c->new_set);
	}
	dnsb_rrset_list_clear(&held);
}

static void sample(oracle *o)
{
	int in[SCHED_MAX];

	sample_into(o, in);
	for (size_t i = 0; i < o->n; i++) {
		if (in[i] && !o->now[i])
			o->ours[i] = 1;
		o->now[i] = in[i];
	}
}

static void on_submission(void *payload, const char *zone, unsigned long batch_no, dnsb_change *const *changes,
			  size_t n)
{
	(void)zone;
	(void)batch_no;
	(void)changes;
	(void)n;
	sample(payload);
}

static uint64_t next_rand(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

/* The name of group k's record (0) or ownership record (1), and another client's value there. */
static void other_record(char *buf, size_t size, size_t k, int txt)
{
	if (txt)
		snprintf(buf, size, "a-h%zu.example.com. 300 TXT \"heritage=external-dns external-dns/owner=other\"", k);
	else
		snprintf(buf, size, "h%zu.example.com. 300 A 198.51.100.%zu", k, k + 1);
}

/* A schedule: lost replies, another client's writes at the groups' names, other faults. */
static void schedule(char *faults, size_t size, uint64_t *x, size_t groups, int txt, unsigned seed)
{
	size_t len = 0, lost = 1 + next_rand(x) % 2, writes = 1 + next_rand(x) % 3;
	char rec[128];

	for (size_t i = 0; i < lost; i++)
		len += (size_t)snprintf(faults + len, size - len, "%lu:commit-transient,", 1 + next_rand(x) % 4);
	for (size_t i = 0; i < writes; i++) {
		other_record(rec, sizeof(rec), next_rand(x) % groups, txt && next_rand(x) % 2);
		len += (size_t)snprintf(faults + len, size - len, "%lu:write=%s,", 1 + next_rand(x) % 6, rec);
	}
	snprintf(faults + len, size - len, "%s%sp0.1:transient,p0.05:rate-limit=0.1,seed=%u",
		 seed % 3 == 0 ? "p0.1:commit-transient," : "", seed % 5 == 0 ? "p0.05:conflict," : "", seed);
}

/* Changes out of band before the run: another client's value, or the one the plan wants. */
static void before_run(run *r, uint64_t *x, size_t groups, int txt)
{
	size_t puts = next_rand(x) % 3;
	char rec[128], owner[64];

	for (size_t i = 0; i < puts; i++) {
		size_t k = next_rand(x) % groups;
		int at_txt = txt && next_rand(x) % 2, desired = next_rand(x) % 2;
		dnsb_rrset_list list = { 0 };

		if (desired) {
			const dnsb_change *c = run_change(r, txt ? 2 * k + at_txt : k);
			assert_int_equal(dnsb_memory_put(r->p, &c->new_set), 0);
			continue;
		}
		other_record(rec, sizeof(rec), k, at_txt);
		snprintf(owner, sizeof(owner), "%.*s", (int)strcspn(rec, " "), rec);
		assert_int_equal(dnsb_rrset_list_add_text(&list, owner, 300, at_txt ? "TXT" : "A",
							  strchr(strchr(strchr(rec, ' ') + 1, ' ') + 1, ' ') + 1), 0);
		assert_int_equal(dnsb_memory_put(r->p, &list.items[0]), 0);
		dnsb_rrset_list_clear(&list);
	}
}

/* Did a write= rule that fired target change i's name? (Rules numbered past the last submission never fired.) */
static int touched(const char *faults, const dnsb_change *c, unsigned long submissions)
{
	const char *at = faults;
	char name[80];

	snprintf(name, sizeof(name), "write=%s ", c->new_set.owner);
	while ((at = strstr(at, name)) != NULL) {
		const char *rule = at;
		while (rule > faults && rule[-1] != ',')
			rule--;
		if (strtoul(rule, NULL, 10) <= submissions)
			return 1;
		at++;
	}
	return 0;
}

static int landed(const dnsb_change *c)
{
	return c->outcome == DNSB_OUTCOME_APPLIED || c->outcome == DNSB_OUTCOME_ALREADY_APPLIED;
}

/* The group's changes: plan_of_creates puts a record and its ownership record side by side. */
static void check_groups(const oracle *o, int txt, unsigned seed, const char *faults)
{
	size_t per = txt ? 2 : 1;

	for (size_t g = 0; g < o->n; g += per) {
		int dropped = 0, ours_in_effect = 0;
		for (size_t k = g; k < g + per; k++) {
			const dnsb_change *c = run_change(o->r, k), *first = run_change(o->r, g);
			if (landed(c) != landed(first) || (!landed(c) && c->outcome != first->outcome))
				fail_msg("seed %u (%s): group of %s split: %s and %s", seed, faults, c->new_set.owner,
					 dnsb_outcome_name(first->outcome), dnsb_outcome_name(c->outcome));
			dropped |= c->outcome == DNSB_OUTCOME_DROPPED;
			ours_in_effect |= o->ours[k] && o->now[k];
		}
		if (dropped && ours_in_effect)
			fail_msg("seed %u (%s): group of %s dropped while what this run wrote of it is in effect", seed,
				 faults, run_change(o->r, g)->new_set.owner);
	}
}

static void check_changes(const oracle *o, unsigned seed, const char *faults)
{
	unsigned long subs = o->r->rep.submissions;

	for (size_t i = 0; i < o->n; i++) {
		const dnsb_change *c = run_change(o->r, i);
		const char *why = NULL;

		if (c->outcome == DNSB_OUTCOME_APPLIED && !o->ours[i])
			why = "applied, but this run never wrote it";
		else if (landed(c) && !o->now[i] && !touched(faults, c, subs))
			why = "reported in effect, but it is not";
		else if (c->outcome == DNSB_OUTCOME_DROPPED && o->now[i] && !o->start[i])
			why = "dropped, but this run wrote it and it is in effect";
		if (why)
			fail_msg("seed %u (%s): %s %s: %s/%s: %s (%s)", seed, faults, c->new_set.owner,
				 dnsb_type_name(c->new_set.type), dnsb_outcome_name(c->outcome),
				 dnsb_reason_name(c->reason), why, c->message ? c->message : "");
	}
}

/* One drop-log line per dropped or failed change, saying its outcome and reason. */
static void check_droplog(const oracle *o, json_object *lines, unsigned seed)
{
	size_t expected = 0;

	for (size_t i = 0; i < o->n; i++)
		expected += !landed(run_change(o->r, i));
	if (json_object_array_length(lines) != expected)
		fail_msg("seed %u: %zu drop-log lines for %zu changes dropped or failed", seed,
			 json_object_array_length(lines), expected);
	for (size_t l = 0; l < json_object_array_length(lines); l++) {
		json_object *line = json_object_array_get_idx(lines, l);
		const char *type = NULL, *owner = line_owner(line, &type);
		size_t i;

		assert_non_null(owner);
		for (i = 0; i < o->n; i++) {
			const dnsb_change *c = run_change(o->r, i);
			if (strncmp(c->new_set.owner, owner, strlen(owner)) == 0 &&
			    strcmp(dnsb_type_name(c->new_set.type), type) == 0)
				break;
		}
		if (i == o->n)
			fail_msg("seed %u: a drop-log line for %s %s, which is no change of the plan", seed, owner, type);
		assert_string_equal(field(line, "outcome"), dnsb_outcome_name(run_change(o->r, i)->outcome));
		assert_string_equal(field(line, "reason"), dnsb_reason_name(run_change(o->r, i)->reason));
	}
}

/* One schedule. @return 1 when it combined a lost reply with another writer: a name this run wrote was taken */
static int one_schedule(unsigned seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
	size_t groups = 3 + next_rand(&x) % 6;
	int txt = seed % 3 != 0, combined = 0;
	char faults[1024], path[64];
	dnsb_droplog *log;
	json_object *lines;
	oracle o = { 0 };
	run r;

	schedule(faults, sizeof(faults), &x, groups, txt, seed);
	run_init(&r, faults, groups, txt);
	before_run(&r, &x, groups, txt);
	dnsb_memory_set_hints(r.p, seed % 4 == 0);
	log = droplog_tmp(path, sizeof(path));
	o.r = &r;
	o.n = dnsb_plan_count(r.plan);
	for (size_t i = 0; i < o.n; i++) {
		o.keys[i].owner = run_change(&r, i)->new_set.owner;
		o.keys[i].type = run_change(&r, i)->new_set.type;
	}
	sample_into(&o, o.start);
	memcpy(o.now, o.start, sizeof(o.now));
	r.o.droplog = log;
	r.o.on_batch = on_submission;
	r.o.payload = &o;
	r.o.seed = seed;
	r.o.batch_size = 1 + seed % 7;
	r.o.max_retries = 3;
	r.o.max_rate_limit_waits = 3;
	run_apply(&r);
	sample(&o);
	check_changes(&o, seed, faults);
	check_groups(&o, txt, seed, faults);
	lines = droplog_lines(log, path);
	check_droplog(&o, lines, seed);
	for (size_t i = 0; i < o.n; i++)
		combined |= o.ours[i] && touched(faults, run_change(&r, i), r.rep.submissions) && !o.now[i];
	json_object_put(lines);
	droplog_done(log, path);
	run_free(&r);
	return combined;
}

/* `make test` runs a few hundred schedules (about a second); DNSB_SOAK_SCHEDULES=N runs N (`make soak`). */
static void test_lost_reply_and_other_writer_schedules(void **state)
{
	const char *env = getenv("DNSB_SOAK_SCHEDULES");
	unsigned long count = env && *env ? strtoul(env, NULL, 10) : 300, combined = 0;

	(void)state;
	for (unsigned long seed = 1; seed <= count; seed++)
		combined += one_schedule((unsigned)seed);
	print_message("lost reply and another writer: %lu schedules, %lu where this run's write was taken by "
		      "another client, 0 false outcomes\n", count, combined);
	assert_true(count < 50 || combined > 0); /* the schedules do meet the case */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_reply_then_write_at_record),
		cmocka_unit_test(test_lost_reply_then_write_at_ownership_record),
		cmocka_unit_test(test_transient_then_partial_rest_lands),
		cmocka_unit_test(test_transient_then_partial_conflict_fails_then_drops),
		cmocka_unit_test(test_write_rule_parsed),
		cmocka_unit_test(test_write_rule_before_submission),
		cmocka_unit_test(test_lost_reply_and_other_writer_schedules),
	};

	dnsb_log_set_level(DNSB_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
