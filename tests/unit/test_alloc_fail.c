/*
 * test_alloc_fail.c - every allocation of a representative apply failed in
 * turn, as curl's torture mode and libgit2's failing allocator do: a plan parsed (groups, an update, a
 * delete, an invalid record, one in no zone, an RRset written twice, a
 * conflict), a drop log opened, metrics, the engine run in batches of 2 (the
 * conflict isolated, read back, dropped; the drop summary and the drop log
 * written), on the memory provider. Run N fails the Nth allocation (counted
 * from the plan's parse) and only it; for every N each step either succeeds or returns
 * DNSB_ENOMEM with its dnsb_error filled (code and message), every change
 * leaves with an outcome and a dropped or failed one with its message, the
 * report adds up, and nothing crashes; under AddressSanitizer
 * (`make sanitize`) nothing leaks either.
 *
 * The allocator is wrapped at link time (Makefile: -Wl,--wrap=malloc,...), so
 * the allocations failed are those libdnsbatch.a's objects make themselves
 * (malloc, calloc, realloc, strdup, strndup, asprintf, vasprintf), not those
 * json-c, ldns or libc make inside a call: it works under AddressSanitizer.
 * Every N is run with ALLOC_FAIL_FULL=1 (`make soak` sets it); else every
 * ALLOC_FAIL_STRIDE-th (default 1: all of them while the count stays small).
 * The runs' log lines go to $TMPDIR/dnsb-alloc-fail.stderr (the last run's),
 * where a sanitizer report would be too.
 */
#include "engine_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <unistd.h>

#include "dnsbatch/droplog.h"
#include "dnsbatch/metrics.h"

/* The allocator under the wrap: the libc's (or the sanitizer's). */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
int __real_vasprintf(char **out, const char *fmt, va_list ap);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
int __wrap_vasprintf(char **out, const char *fmt, va_list ap);
int __wrap_asprintf(char **out, const char *fmt, ...);

static atomic_long counted;      /* allocations since armed */
static atomic_long fail_at;      /* the one to fail (1-based); 0: none */
static atomic_int failed;        /* it was failed */
static char problem[1024];       /* the first thing found wrong in a run (told once stderr is back) */

#define PROBLEM(...) (problem[0] ? (void)0 : (void)snprintf(problem, sizeof(problem), __VA_ARGS__))

/* Fail this allocation? */
static int fail_now(void)
{
	long n;

	if (atomic_load(&fail_at) == 0)
		return 0;
	n = atomic_fetch_add(&counted, 1) + 1;
	if (n != atomic_load(&fail_at))
		return 0;
	atomic_store(&failed, 1);
	errno = ENOMEM;
	return 1;
}

void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return fail_now() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }
char *__wrap_strdup(const char *s) { return fail_now() ? NULL : __real_strdup(s); }
char *__wrap_strndup(const char *s, size_t n) { return fail_now() ? NULL : __real_strndup(s, n); }

int __wrap_vasprintf(char **out, const char *fmt, va_list ap)
{
	if (fail_now()) {
		*out = NULL; /* glibc leaves it undefined; callers here test the return */
		return -1;
	}
	return __real_vasprintf(out, fmt, ap);
}

int __wrap_asprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = __wrap_vasprintf(out, fmt, ap);
	va_end(ap);
	return rc;
}

static const char PLAN[] = "{"
	"\"create\":["
	"{\"dnsName\":\"web.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.1\",\"192.0.2.2\"],\"recordTTL\":60},"
	"{\"dnsName\":\"a-web.example.com\",\"recordType\":\"TXT\",\"targets\":[\"\\\"heritage=external-dns,external-dns/owner=default\\\"\"],"
	" \"labels\":{\"ownedRecord\":\"web.example.com\"}},"
	"{\"dnsName\":\"mail.example.com\",\"recordType\":\"MX\",\"targets\":[\"10 mx.example.com\"]},"
	"{\"dnsName\":\"taken.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.9\"]},"
	"{\"dnsName\":\"bad.example.com\",\"recordType\":\"A\",\"targets\":[\"not-an-address\"]},"
	"{\"dnsName\":\"twice.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.3\"]},"
	"{\"dnsName\":\"twice.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.4\"]},"
	"{\"dnsName\":\"far.example.net\",\"recordType\":\"A\",\"targets\":[\"192.0.2.5\"]},"
	"{\"dnsName\":\"txt.example.org\",\"recordType\":\"TXT\",\"targets\":[\"hello world\"]}],"
	"\"updateOld\":[{\"dnsName\":\"old.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.7\"],\"recordTTL\":300}],"
	"\"updateNew\":[{\"dnsName\":\"old.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.8\"],\"recordTTL\":300}],"
	"\"delete\":[{\"dnsName\":\"gone.example.org\",\"recordType\":\"CNAME\",\"targets\":[\"web.example.com\"]}]"
	"}";

/* One step's return: 0, or DNSB_ENOMEM with its error filled. */
static void check_step(const char *step, long n, int rc, const dnsb_error *err)
{
	if (rc == 0)
		return;
	if (rc != DNSB_ENOMEM || err->code != rc || err->message[0] == '\0')
		PROBLEM("allocation %ld failed: %s returned %d (error %d \"%s\"), not a clean DNSB_ENOMEM", n, step, rc,
			 err->code, err->message);
}

/* After an apply (rc 0 or DNSB_ENOMEM): every change has an outcome; after a clean one (`whole`) a dropped or failed
 * one has its message (after DNSB_ENOMEM the apply's error says why a message may be missing). */
static void check_outcomes(long n, dnsb_plan *plan, const dnsb_report *rep, int whole)
{
	size_t count[5] = { 0 };

	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		const dnsb_change *c = dnsb_plan_change(plan, i);
		if (c->outcome == DNSB_OUTCOME_PENDING)
			PROBLEM("allocation %ld failed: change %zu left pending", n, i);
		if (whole && (c->outcome == DNSB_OUTCOME_DROPPED || c->outcome == DNSB_OUTCOME_FAILED) && c->message == NULL)
			PROBLEM("allocation %ld failed: change %zu %s (%s) with no message", n, i,
				 dnsb_outcome_name(c->outcome), dnsb_reason_name(c->reason));
		count[c->outcome]++;
	}
	if (rep->changes != dnsb_plan_count(plan) || rep->applied != count[DNSB_OUTCOME_APPLIED] ||
	    rep->already_applied != count[DNSB_OUTCOME_ALREADY_APPLIED] || rep->dropped != count[DNSB_OUTCOME_DROPPED] ||
	    rep->failed != count[DNSB_OUTCOME_FAILED])
		PROBLEM("allocation %ld failed: the report (%zu changes) does not add up", n, rep->changes);
}

/* Put "owner A rdata" (or another type) into the provider. @return 0 or DNSB_ENOMEM */
static int put(dnsb_provider *p, const char *owner, uint16_t type, const char *rdata)
{
	dnsb_rrset r = { 0 };
	int rc;

	if ((r.owner = strdup(owner)) == NULL)
		return DNSB_ENOMEM;
	r.type = type;
	r.ttl = 300;
	rc = dnsb_rrset_add_rdata(&r, rdata);
	if (rc == 0)
		rc = dnsb_memory_put(p, &r);
	dnsb_rrset_clear(&r);
	return rc < 0 ? DNSB_ENOMEM : 0;
}

/* The provider and its records. @return 0 or DNSB_ENOMEM (err filled) */
static int provider(dnsb_provider **p, dnsb_error *err)
{
	const char *zones[] = { "example.com.", "example.org." };
	int rc = dnsb_memory_new(p, zones, 2, NULL, err);

	if (rc == 0 && ((rc = put(*p, "taken.example.com.", 1, "192.0.2.99")) != 0 ||
			(rc = put(*p, "old.example.com.", 1, "192.0.2.7")) != 0 ||
			(rc = put(*p, "gone.example.org.", 5, "web.example.com.")) != 0))
		dnsb_error_set(err, rc, "out of memory putting the provider's records");
	return rc;
}

/* One run of the whole apply with allocation `n` failed (0: none). @return whether an allocation was failed */
static int run_once(long n, const char *droplog_path)
{
	dnsb_provider *p = NULL;
	dnsb_plan *plan = NULL;
	dnsb_droplog *dl = NULL;
	dnsb_metrics *m = NULL;
	dnsb_report rep = { 0 };
	dnsb_error err = { 0 };
	fake_clock clock;
	dnsb_engine_options o = DNSB_ENGINE_OPTIONS_INIT;
	int rc;

	fake_clock_init(&clock);
	o.clock = &clock.clock;
	o.seed = 7;
	o.batch_size = 2;
	atomic_store(&counted, 0);
	atomic_store(&failed, 0);
	atomic_store(&fail_at, n);
	/* The provider too: dnsb_memory_new and its records, then its submissions and reads during the apply. */
	rc = provider(&p, &err);
	check_step("dnsb_memory_new", n, rc, &err);
	if (rc == 0) {
		rc = dnsb_plan_parse(&plan, PLAN, sizeof(PLAN) - 1, "plan.json", &err);
		check_step("dnsb_plan_parse", n, rc, &err);
	}
	if (rc == 0) {
		rc = dnsb_droplog_open(&dl, droplog_path, &err);
		check_step("dnsb_droplog_open", n, rc, &err);
	}
	if (rc == 0 && (rc = dnsb_metrics_new(&m)) != 0 && rc != DNSB_ENOMEM)
		PROBLEM("allocation %ld failed: dnsb_metrics_new returned %d", n, rc);
	if (rc == 0) {
		o.droplog = dl;
		o.metrics = m;
		rc = dnsb_engine_apply(&rep, p, plan, &o, &err);
		check_step("dnsb_engine_apply", n, rc, &err);
		if (rep.zones != NULL) /* the report was made: the outcomes are told */
			check_outcomes(n, plan, &rep, rc == 0);
	}
	atomic_store(&fail_at, 0);
	dnsb_report_clear(&rep);
	dnsb_metrics_free(m);
	dnsb_droplog_free(dl);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
	return atomic_load(&failed);
}

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 10) : dflt;
}

static void test_every_allocation(void **state)
{
	char dir[] = "/tmp/dnsb-alloc-XXXXXX", path[64], errpath[128];
	long stride = env_long("ALLOC_FAIL_FULL", 0) ? 1 : env_long("ALLOC_FAIL_STRIDE", 1), total, runs = 0;
	long only = env_long("ALLOC_FAIL_ONLY", 0); /* one N alone, to debug it */
	int saved = dup(2), fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/drops.jsonl", dir);
	snprintf(errpath, sizeof(errpath), "%s/dnsb-alloc-fail.stderr", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	/* The count of a clean run, failing nothing, then each one failed in turn. */
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	dup2(fd, 2);
	close(fd);
	assert_int_equal(run_once(LONG_MAX, path), 0);
	dup2(saved, 2);
	if (problem[0])
		fail_msg("with no allocation failed: %s", problem);
	total = atomic_load(&counted);
	print_message("a clean apply makes %ld allocations; failing every %ld-th (ALLOC_FAIL_FULL=1: all); "
		      "log lines in %s\n", total, stride < 1 ? 1 : stride, errpath);
	assert_true(total > 100);
	for (long n = only ? only : 1; n <= (only ? only : total + 1); n += stride < 1 ? 1 : stride) {
		fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		assert_true(fd >= 0);
		dup2(fd, 2);
		close(fd);
		unlink(path);
		fprintf(stderr, "== allocation %ld of %ld failed\n", n, total);
		if (!run_once(n, path) && n <= total)
			print_message("allocation %ld of %ld was not reached (a path that allocates less)\n", n, total);
		dup2(saved, 2);
		if (problem[0])
			fail_msg("%s (its log lines: %s)", problem, errpath);
		runs++;
	}
	print_message("%ld runs, each with one allocation failed: clean\n", runs);
	close(saved);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_allocation),
	};
	dnsb_log_set_level(DNSB_LOG_DEBUG);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
