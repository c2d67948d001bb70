/*
 * test_engine_record_first.c - a drop is on disk before the commit that
 * settles its zone (issue 38 §2): with a provider that defers its commits (a
 * zone file writes a zone once, at the end of its batches), the zone's
 * drop-log lines are written and synced before that write, and the tally
 * does not write them again. With the quarantine (the sidecar), the lines
 * wait for the quarantine's decisions, after every zone ran: that window is
 * said in the README.
 */
#include <unistd.h>

#include "engine_fixture.h"

/* What the deferred commit saw of the drop log when the engine ended its hold. */
typedef struct commit_watch {
	const char *path;
	long lines_at_commit;   /* -1: no commit seen */
	unsigned holds, commits;
} commit_watch;

static commit_watch *watch;

static long count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = 0;
	int ch;

	assert_non_null(f);
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

/* The memory provider commits each submission at once; this flush only notes when the engine commits a zone. */
static int watch_flush(void *state, const char *zone, int hold, double timeout, dnsb_error *err)
{
	(void)state;
	(void)zone;
	(void)timeout;
	(void)err;
	if (hold) {
		watch->holds++;
	} else {
		watch->commits++;
		watch->lines_at_commit = count_lines(watch->path);
	}
	return 0;
}

/* Three creations, h1 in the way of another client's record: one drop, in a zone whose commit is deferred. */
static void apply_with_watch(int quarantine, commit_watch *w, long *lines_after)
{
	dnsb_quarantine *q = NULL;
	dnsb_droplog *log = NULL;
	char path[] = "/tmp/dnsb-record-first-XXXXXX";
	int fd = mkstemp(path);
	run r;

	assert_true(fd >= 0);
	close(fd);
	memset(w, 0, sizeof(*w));
	w->path = path;
	w->lines_at_commit = -1;
	watch = w;
	run_init(&r, NULL, 3, 0);
	dnsb_memory_set_flush(r.p, watch_flush);
	put_a(r.p, "h1.example.com.", "198.51.100.1");
	assert_int_equal(dnsb_droplog_open(&log, path, NULL), 0);
	r.o.droplog = log;
	if (quarantine) {
		assert_int_equal(dnsb_quarantine_new(&q, 60, 3600), 0);
		r.o.quarantine = q;
	}
	run_apply(&r);
	assert_int_equal(r.rep.applied, 2);
	assert_int_equal(r.rep.dropped, 1);
	assert_int_equal(dnsb_droplog_flush(log), 0);
	*lines_after = count_lines(path);
	dnsb_droplog_free(log);
	dnsb_quarantine_free(q);
	unlink(path);
	run_free(&r);
	watch = NULL;
}

static void test_drop_on_disk_before_commit(void **state)
{
	commit_watch w;
	long after;

	(void)state;
	apply_with_watch(0, &w, &after);
	assert_int_equal(w.holds, 1);
	assert_int_equal(w.commits, 1);
	assert_int_equal(w.lines_at_commit, 1); /* the drop's line was there when the zone was committed */
	assert_int_equal(after, 1);             /* and the tally did not write it twice */
}

/* With the quarantine the line comes with the tally, after the commit: the window the README names. */
static void test_quarantine_writes_at_the_tally(void **state)
{
	commit_watch w;
	long after;

	(void)state;
	apply_with_watch(1, &w, &after);
	assert_int_equal(w.commits, 1);
	assert_int_equal(w.lines_at_commit, 0);
	assert_int_equal(after, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop_on_disk_before_commit),
		cmocka_unit_test(test_quarantine_writes_at_the_tally),
	};

	dnsb_log_set_level(DNSB_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
