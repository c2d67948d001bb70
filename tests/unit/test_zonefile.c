/*
 * test_zonefile.c - the zone-file provider: Cloud DNS-like conflict classes,
 * atomic batches (a failed batch leaves the file byte-identical), one SOA
 * serial bump per applied batch, output accepted by named-checkzone, and
 * other processes' writes picked up.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L  /* mkdtemp */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnsbatch/plan.h"
#include "dnsbatch/provider.h"
#include "dnsbatch/sys/provider.h"
#include "applier/core/provider.h"
#include "providers/common/store.h"
#include "providers/zonefile/zonefile_text.h"

#define EXAMPLE_ZONE "examples/zones/example.com.zone"

static const char small_zone[] =
	"$TTL 3600\n"
	"example.com.\t3600\tIN\tSOA\tns1.example.com. hostmaster.example.com. 2026112001 7200 3600 1209600 300\n"
	"example.com.\t3600\tIN\tNS\tns1.example.com.\n"
	"ns1.example.com.\t3600\tIN\tA\t192.0.2.53\n"
	"www.example.com.\t300\tIN\tA\t192.0.2.1\n"
	"www.example.com.\t300\tIN\tA\t192.0.2.2\n"
	"a-www.example.com.\t300\tIN\tTXT\t\"heritage=external-dns,external-dns/owner=default\"\n"
	"mail.example.com.\t300\tIN\tCNAME\tmx.example.net.\n";

typedef struct fixture {
	char dir[64];
	char path[128];
} fixture;

/* ---- helpers ---- */

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Whole file; *len set. The caller frees. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static int fixture_setup(void **state)
{
	fixture *fx = calloc(1, sizeof(*fx));

	if (fx == NULL)
		return -1;
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/dnsb-zonefile-XXXXXX");
	if (mkdtemp(fx->dir) == NULL)
		return -1;
	snprintf(fx->path, sizeof(fx->path), "%s/example.com.zone", fx->dir);
	write_file(fx->path, small_zone, strlen(small_zone));
	*state = fx;
	return 0;
}

static int fixture_teardown(void **state)
{
	fixture *fx = *state;
	DIR *d = opendir(fx->dir);
	struct dirent *e;
	char p[512];

	while (d && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", fx->dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

/* Replace the fixture's zone with a copy of the example zone; skip when it cannot be found. */
static void use_example_zone(fixture *fx)
{
	size_t len;
	char *text;

	if (access(EXAMPLE_ZONE, R_OK) != 0) {
		print_message("%s not found (run from the repository root)\n", EXAMPLE_ZONE);
		skip();
	}
	text = slurp(EXAMPLE_ZONE, &len);
	write_file(fx->path, text, len);
	free(text);
}

static dnsb_provider *open_zone(const char *path)
{
	dnsb_config *cfg;
	dnsb_provider *p = NULL;
	dnsb_error err = { 0 };
	char spec[256];
	int rc;

	snprintf(spec, sizeof(spec), "example.com=%s", path);
	assert_int_equal(dnsb_config_new(&cfg), 0);
	assert_int_equal(dnsb_config_add(cfg, "zonefile", spec), 0);
	rc = dnsb_provider_open(&p, "zonefile", cfg, &err);
	if (rc != 0)
		print_error("open: %s\n", err.message);
	assert_int_equal(rc, 0);
	assert_non_null(p);
	dnsb_config_free(cfg);
	assert_string_equal(dnsb_provider_name(p), "zonefile");
	assert_int_equal(dnsb_provider_zone_count(p), 1);
	assert_string_equal(dnsb_provider_zone(p, 0), "example.com.");
	return p;
}

static dnsb_plan *plan_of(const char *json)
{
	dnsb_plan *plan = NULL;
	dnsb_error err = { 0 };
	int rc = dnsb_plan_parse(&plan, json, strlen(json), "test", &err);

	if (rc != 0)
		print_error("plan: %s\n", err.message);
	assert_int_equal(rc, 0);
	for (size_t i = 0; i < dnsb_plan_count(plan); i++)
		assert_int_equal(dnsb_plan_change(plan, i)->outcome, DNSB_OUTCOME_PENDING);
	return plan;
}

/* Submit the whole plan as one batch to example.com. */
static void submit_plan(dnsb_provider *p, dnsb_plan *plan, dnsb_result *res)
{
	dnsb_change *batch[64];
	dnsb_error err = { 0 };
	size_t n = dnsb_plan_count(plan);

	assert_true(n > 0 && n <= 64);
	for (size_t i = 0; i < n; i++)
		batch[i] = dnsb_plan_change(plan, i);
	dnsb_result_init(res);
	assert_int_equal(dnsb_provider_submit(p, "example.com.", batch, n, 0, res, NULL, &err), 0);
}

static void submit_json(dnsb_provider *p, const char *json, dnsb_result *res)
{
	dnsb_plan *plan = plan_of(json);

	submit_plan(p, plan, res);
	dnsb_plan_free(plan);
}

static void assert_ok(const dnsb_result *res)
{
	if (res->cls != DNSB_CLASS_OK)
		print_error("class %d status %d %s: %s\n", res->cls, res->status, res->code, res->message);
	assert_int_equal(res->cls, DNSB_CLASS_OK);
}

static void assert_result(const dnsb_result *res, dnsb_class cls, int status, const char *code, long hint,
			  const char *message)
{
	assert_int_equal(res->cls, cls);
	assert_int_equal(res->status, status);
	assert_string_equal(res->code, code);
	/* hint: the one culprit the reply names, or -1 for none */
	assert_int_equal(res->culprit_count, hint < 0 ? 0 : 1);
	if (hint >= 0)
		assert_int_equal(res->culprits[0], (size_t)hint);
	assert_string_equal(res->message, message);
}

/* The RRset at owner/type now, read through the provider; NULL rdata_count 0 when absent. */
static int read_rrset(dnsb_provider *p, const char *owner, uint16_t type, dnsb_rrset *out)
{
	dnsb_rrkey key = { owner, type };
	dnsb_rrset_list list = { 0 };
	dnsb_error err = { 0 };
	int found;

	assert_int_equal(dnsb_provider_read(p, "example.com.", &key, 1, 0, &list, NULL, &err), 0);
	assert_true(list.count <= 1);
	found = list.count == 1;
	memset(out, 0, sizeof(*out));
	if (found) {
		assert_string_equal(list.items[0].owner, owner);
		assert_int_equal(list.items[0].type, type);
		assert_int_equal(dnsb_rrset_copy(out, &list.items[0]), 0);
	}
	dnsb_rrset_list_clear(&list);
	return found;
}

/* Assert the RRset holds exactly this TTL and RDATA (sorted), or is absent when n == 0. */
static void expect_rrset(dnsb_provider *p, const char *owner, uint16_t type, uint32_t ttl, size_t n, ...)
{
	dnsb_rrset r;
	va_list ap;
	int found = read_rrset(p, owner, type, &r);

	if (n == 0) {
		if (found)
			print_error("%s %u should be absent\n", owner, (unsigned)type);
		assert_false(found);
		return;
	}
	if (!found)
		print_error("%s %u is missing\n", owner, (unsigned)type);
	assert_true(found);
	assert_int_equal(r.ttl, ttl);
	assert_int_equal(r.rdata_count, n);
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(r.rdata[i], va_arg(ap, const char *));
	va_end(ap);
	dnsb_rrset_clear(&r);
}

static unsigned long soa_serial(dnsb_provider *p)
{
	dnsb_rrset soa;
	unsigned long serial = 0;
	char mname[256], rname[256];

	assert_true(read_rrset(p, "example.com.", LDNS_RR_TYPE_SOA, &soa));
	assert_int_equal(soa.rdata_count, 1);
	assert_int_equal(sscanf(soa.rdata[0], "%255s %255s %lu", mname, rname, &serial), 3);
	dnsb_rrset_clear(&soa);
	return serial;
}

/* Files in dir other than the zone and its lock: temporary files left behind. */
static int stray_files(const fixture *fx)
{
	DIR *d = opendir(fx->dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    strcmp(e->d_name, "example.com.zone") == 0 || strcmp(e->d_name, "example.com.zone.lock") == 0)
			continue;
		print_message("stray file: %s\n", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static int have_named_checkzone(void)
{
	return system("command -v named-checkzone >/dev/null 2>&1") == 0;
}

static int named_checkzone(const char *path)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "named-checkzone -q example.com '%s'", path);
	return system(cmd);
}

#define A_EP(name, ttl, ...) \
	"{\"dnsName\":\"" name "\",\"recordType\":\"A\",\"recordTTL\":" #ttl ",\"targets\":[" __VA_ARGS__ "]}"

/* ---- conflicts ---- */

static void test_create_existing_is_409(void **state)
{
	fixture *fx = *state;
	dnsb_provider *p = open_zone(fx->path);
	dnsb_result res;

	submit_json(p, "{\"create\":[" A_EP("new.example.com", 300, "\"192.0.2.9\"") ","
		    A_EP("www.example.com", 300, "\"192.0.2.7\"") "]}", &res);
	assert_result(&res, DNSB_CLASS_CONFLICT, 409, "alreadyExists", 1,
		      "The resource 'entity.rrset' named 'www.example.com. (A)' already exists");
	/* the same data does not help: a create needs the RRset absent */
	submit_json(p, "{\"create\":[" A_EP("www.example.com", 300, "\"192.0.2.1\",\"192.0.2.2\"") "]}", &res);
	assert_result(&res, DNSB_CLASS_CONFLICT, 409, "alreadyExists", 0,
		      "The resource 'entity.rrset' named 'www.example.com. (A)' already exists");
	/* a create that repeats one earlier in the same batch (a plan refuses that itself, dnsb_plan_parse:
	 * the batch is made of two plans' changes, as a library caller could) */
	{
		dnsb_plan *first = plan_of("{\"create\":[" A_EP("new.example.com", 300, "\"192.0.2.9\"") "]}");
		dnsb_plan *second = plan_of("{\"create\":[" A_EP("new.example.com", 60, "\"192.0.2.10\"") "]}");
		dnsb_change *batch[2] = { dnsb_plan_change(first, 0), dnsb_plan_change(second, 0) };
		dnsb_error err = { 0 };
		dnsb_result_init(&res);
		assert_int_equal(dnsb_provider_submit(p, "example.com.", batch, 2, 0, &res, NULL, &err), 0);
		dnsb_plan_free(first);
		dnsb_plan_free(second);
	}
	assert_result(&res, DNSB_CLASS_CONFLICT, 409, "alreadyExists", 1,
		      "The resource 'entity.rrset' named 'new.example.com. (A)' already exists");
	expect_rrset(p, "new.example.com.", LDNS_RR_TYPE_A, 0, 0);
	assert_int_equal(dnsb_provider_submissions(p), 3);
	dnsb_provider_free(p);
}

static void test_stale_delete_and_update_are_412(void **state)
{
	fixture *fx = *state;
	dnsb_provider *p = open_zone(fx->path);
	dnsb_result res;

	/* stale RDATA: one of the two addresses */
	submit_json(p, "{\"delete\":[" A_EP("www.example.com", 300, "\"192.0.2.1\"") "]}", &res);
	assert_result(&res, DNSB_CLASS_CONFLICT, 412, "conditionNotMet", 0,
		      "Precondition not met for 'entity.change.deletions[0]': 'www.example.com. (A)' holds other "
		      "data or TTL");
	/* stale TTL, right RDATA */
	submit_json(p, "{\"delete\":[" A_EP("ns1.example.com", 3600, "\"192.0.2.53\"") ","
		    A_EP("www.example.com", 60, "\"192.0.2.1\",\"192.0.2.2\"") "]}", &res);
	assert_result(&res, DNSB_CLASS_CONFLICT, 412, "conditionNotMet", 1,
		      "Precondition not met for 'entity.change.deletions[1]': 'www.example.com. (A)' holds other "
		      "data or TTL");
	/* an update whose old side is stale */
	submit_json(p, "{\"updateOld\":[" A_EP("www.example.com", 300, "\"192.0.2.1\",\"192.0.2.3\"") "],"
		    "\"updateNew\":[" A_EP("www.example.com", 300, "\"192.0.2.4\"") "]}", &res);
	assert_result(&res, DNSB_CLASS_CONFLICT, 412, "conditionNotMet", 0,
		      "Precondition not met for 'entity.change.deletions[0]': 'www.example.com. (A)' holds other "
		      "data or TTL");
	submit_json(p, "{\"updateOld\":[" A_EP("www.example.com", 600, "\"192.0.2.1\",\"192.0.2.2\"") "],"
		    "\"updateNew\":[" A_EP("www.example.com", 300, "\"192.0.2.4\"") "]}", &res);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.status, 412);
	/* nothing moved; the ns1 delete before the failing change was undone */
	expect_rrset(p, "www.example.com.", LDNS_RR_TYPE_A, 300, 2, "192.0.2.1", "192.0.2.2");
	expect_rrset(p, "ns1.example.com.", LDNS_RR_TYPE_A, 3600, 1, "192.0.2.53");
	assert_int_equal(soa_serial(p), 2026112001);
	dnsb_provider_free(p);
}

static void test_delete_missing_is_404(void **state)
{
	fixture *fx = *state;
	dnsb_provider *p = open_zone(fx->path);
	dnsb_result res;

	submit_json(p, "{\"delete\":[" A_EP("gone.example.com", 300, "\"192.0.2.77\"") "]}", &res);
	assert_result(&res, DNSB_CLASS_CONFLICT, 404, "notFound", 0,
		      "The 'entity.change.deletions[0]' resource named 'gone.example.com. (A)' does not exist.");
	/* right name, wrong type */
	submit_json(p, "{\"updateOld\":[{\"dnsName\":\"www.example.com\",\"recordType\":\"AAAA\",\"recordTTL\":300,"
		    "\"targets\":[\"2001:db8::1\"]}],\"updateNew\":[{\"dnsName\":\"www.example.com\",\"recordType\":\"AAAA\","
		    "\"recordTTL\":300,\"targets\":[\"2001:db8::2\"]}]}", &res);
	assert_result(&res, DNSB_CLASS_CONFLICT, 404, "notFound", 0,
		      "The 'entity.change.deletions[0]' resource named 'www.example.com. (AAAA)' does not exist.");
	dnsb_provider_free(p);
}

static void test_cname_beside_other_data(void **state)
{
	fixture *fx = *state;
	dnsb_provider *p = open_zone(fx->path);
	dnsb_result res;

	/* CNAME beside A */
	submit_json(p, "{\"create\":[{\"dnsName\":\"www.example.com\",\"recordType\":\"CNAME\",\"targets\":"
		    "[\"lb.example.net\"]}]}", &res);
	assert_result(&res, DNSB_CLASS_CONFLICT, 400, "cnameResourceRecordSetConflict", 0,
		      "The resource 'www.example.com. (CNAME)' cannot share its name with a A record set");
	/* A beside CNAME */
	submit_json(p, "{\"create\":[" A_EP("ok.example.com", 300, "\"192.0.2.5\"") ","
		    A_EP("mail.example.com", 300, "\"192.0.2.25\"") "]}", &res);
	assert_result(&res, DNSB_CLASS_CONFLICT, 400, "cnameResourceRecordSetConflict", 1,
		      "The resource 'mail.example.com. (A)' cannot share its name with a CNAME record set");
	/* TXT beside CNAME too */
	submit_json(p, "{\"create\":[{\"dnsName\":\"mail.example.com\",\"recordType\":\"TXT\",\"targets\":[\"x\"]}]}",
		    &res);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_string_equal(res.code, "cnameResourceRecordSetConflict");
	expect_rrset(p, "ok.example.com.", LDNS_RR_TYPE_A, 0, 0);
	expect_rrset(p, "www.example.com.", LDNS_RR_TYPE_CNAME, 0, 0);

	/* replacing the A by a CNAME in one batch is fine: delete first, then create */
	submit_json(p, "{\"create\":[{\"dnsName\":\"www.example.com\",\"recordType\":\"CNAME\",\"targets\":"
		    "[\"LB.example.net\"]}],\"delete\":[" A_EP("www.example.com", 300, "\"192.0.2.1\",\"192.0.2.2\"") "]}",
		    &res);
	/* the plan order is create, then delete: the provider applies in batch order, so this conflicts */
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	{
		dnsb_plan *plan = plan_of("{\"delete\":[" A_EP("www.example.com", 300, "\"192.0.2.1\",\"192.0.2.2\"") "],"
					  "\"create\":[{\"dnsName\":\"www.example.com\",\"recordType\":\"CNAME\","
					  "\"targets\":[\"LB.example.net\"]}]}");
		dnsb_change *batch[2] = { dnsb_plan_change(plan, 1), dnsb_plan_change(plan, 0) };
		dnsb_error err = { 0 };

		assert_int_equal(batch[0]->kind, DNSB_CHANGE_DELETE);
		dnsb_result_init(&res);
		assert_int_equal(dnsb_provider_submit(p, "example.com.", batch, 2, 0, &res, NULL, &err), 0);
		assert_ok(&res);
		dnsb_plan_free(plan);
	}
	expect_rrset(p, "www.example.com.", LDNS_RR_TYPE_A, 0, 0);
	expect_rrset(p, "www.example.com.", LDNS_RR_TYPE_CNAME, 300, 1, "lb.example.net.");
	dnsb_provider_free(p);
}

/*
 * Plans cannot carry an SOA (the parser refuses the type), so the changes are
 * built by hand: the provider must refuse them on its own all the same.
 * The strings are static and never freed.
 */
static dnsb_change soa_change(dnsb_change_kind kind, char *owner, char **old_rdata, char **new_rdata)
{
	dnsb_change c;

	memset(&c, 0, sizeof(c));
	c.kind = kind;
	if (kind != DNSB_CHANGE_CREATE)
		c.old = (dnsb_rrset){ owner, LDNS_RR_TYPE_SOA, 3600, old_rdata, 1, DNSB_ALIAS_NONE, NULL, NULL };
	if (kind != DNSB_CHANGE_DELETE)
		c.new_set = (dnsb_rrset){ owner, LDNS_RR_TYPE_SOA, 3600, new_rdata, 1, DNSB_ALIAS_NONE, NULL, NULL };
	return c;
}

/*
 * Held commits (dnsb_provider_flush): OK batches are applied in memory and
 * read back, the file and its lock stay as they were for other writers
 * (another handle, as another process, waits), and ending the hold writes
 * every held batch at once (the serial bumped once per batch, as always).
 */
static void test_held_commits_written_at_flush(void **state)
{
	fixture *fx = *state;
	dnsb_provider *p = open_zone(fx->path), *other = open_zone(fx->path);
	dnsb_plan *plan = plan_of("{\"create\":[" A_EP("late.example.com", 300, "\"192.0.2.40\"") "]}");
	dnsb_change *batch[1] = { dnsb_plan_change(plan, 0) };
	size_t before_len, now_len;
	char *before = slurp(fx->path, &before_len), *now;
	dnsb_error err = { 0 };
	dnsb_result res;

	assert_int_equal(dnsb_provider_flush(p, "example.com.", 1, 1, &err), 0);
	submit_json(p, "{\"create\":[" A_EP("new1.example.com", 300, "\"192.0.2.31\"") "]}", &res);
	assert_ok(&res);
	submit_json(p, "{\"delete\":[" A_EP("www.example.com", 300, "\"192.0.2.1\",\"192.0.2.2\"") "]}", &res);
	assert_ok(&res);
	expect_rrset(p, "new1.example.com.", LDNS_RR_TYPE_A, 300, 1, "192.0.2.31");
	expect_rrset(p, "www.example.com.", LDNS_RR_TYPE_A, 0, 0);
	now = slurp(fx->path, &now_len);
	assert_int_equal(now_len, before_len);
	assert_memory_equal(now, before, before_len);
	free(now);
	/* Another writer waits for the hold to end. */
	dnsb_result_init(&res);
	assert_int_equal(dnsb_provider_submit(other, "example.com.", batch, 1, 0.05, &res, NULL, &err), 0);
	assert_int_equal(res.cls, DNSB_CLASS_TRANSIENT);
	assert_int_equal(dnsb_provider_flush(p, "example.com.", 0, 1, &err), 0);
	dnsb_provider_free(p);
	p = open_zone(fx->path);
	expect_rrset(p, "new1.example.com.", LDNS_RR_TYPE_A, 300, 1, "192.0.2.31");
	expect_rrset(p, "www.example.com.", LDNS_RR_TYPE_A, 0, 0);
	assert_int_equal(soa_serial(p), 2026112003);
	dnsb_result_init(&res);
	assert_int_equal(dnsb_provider_submit(other, "example.com.", batch, 1, 1, &res, NULL, &err), 0);
	assert_ok(&res);
	assert_int_equal(stray_files(fx), 0);
	free(before);
	dnsb_plan_free(plan);
	dnsb_provider_free(other);
	dnsb_provider_free(p);
}

static void test_soa_change_is_invalid(void **state)
{
	static char apex[] = "example.com.", sub[] = "sub.example.com.";
	static char soa_now[] = "ns1.example.com. hostmaster.example.com. 2026112001 7200 3600 1209600 300";
	static char soa_new[] = "ns1.example.com. hostmaster.example.com. 2026112099 7200 3600 1209600 300";
	static char *now_list[] = { soa_now }, *new_list[] = { soa_new };
	fixture *fx = *state;
	dnsb_provider *p = open_zone(fx->path);
	size_t before_len, after_len;
	char *before = slurp(fx->path, &before_len), *after;
	dnsb_plan *plan = plan_of("{\"create\":[" A_EP("ok.example.com", 300, "\"192.0.2.5\"") "]}");
	dnsb_change update = soa_change(DNSB_CHANGE_UPDATE, apex, now_list, new_list);
	dnsb_change create = soa_change(DNSB_CHANGE_CREATE, sub, NULL, new_list);
	dnsb_change del = soa_change(DNSB_CHANGE_DELETE, apex, now_list, NULL);
	dnsb_change *batch[2];
	dnsb_error err = { 0 };
	dnsb_result res;

	batch[0] = &update;
	dnsb_result_init(&res);
	assert_int_equal(dnsb_provider_submit(p, "example.com.", batch, 1, 0, &res, NULL, &err), 0);
	assert_result(&res, DNSB_CLASS_INVALID, 400, "invalid", 0,
		      "'example.com. (SOA)': the SOA record is managed by the provider");
	batch[0] = dnsb_plan_change(plan, 0);
	batch[1] = &create;
	dnsb_result_init(&res);
	assert_int_equal(dnsb_provider_submit(p, "example.com.", batch, 2, 0, &res, NULL, &err), 0);
	assert_result(&res, DNSB_CLASS_INVALID, 400, "invalid", 1,
		      "'sub.example.com. (SOA)': the SOA record is managed by the provider");
	batch[0] = &del;
	dnsb_result_init(&res);
	assert_int_equal(dnsb_provider_submit(p, "example.com.", batch, 1, 0, &res, NULL, &err), 0);
	assert_int_equal(res.cls, DNSB_CLASS_INVALID);
	assert_int_equal(soa_serial(p), 2026112001);
	expect_rrset(p, "ok.example.com.", LDNS_RR_TYPE_A, 0, 0);
	after = slurp(fx->path, &after_len);
	assert_int_equal(after_len, before_len);
	assert_memory_equal(after, before, before_len);
	free(before);
	free(after);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_outside_the_zone_is_invalid(void **state)
{
	fixture *fx = *state;
	dnsb_provider *p = open_zone(fx->path);
	dnsb_result res;

	submit_json(p, "{\"create\":[" A_EP("www.example.org", 300, "\"192.0.2.5\"") "]}", &res);
	assert_result(&res, DNSB_CLASS_INVALID, 400, "invalid", 0, "'www.example.org. (A)' is not in zone example.com.");
	/* a suffix that is not a label boundary */
	submit_json(p, "{\"create\":[" A_EP("badexample.com", 300, "\"192.0.2.5\"") "]}", &res);
	assert_int_equal(res.cls, DNSB_CLASS_INVALID);
	dnsb_provider_free(p);
}

/* ---- atomicity, serial, named-checkzone ---- */

static void test_failed_batch_leaves_file_byte_identical(void **state)
{
	fixture *fx = *state;
	dnsb_provider *p;
	size_t before_len, after_len;
	char *before, *after;
	dnsb_result res;

	use_example_zone(fx);
	p = open_zone(fx->path);
	before = slurp(fx->path, &before_len);
	/* five good changes, then a stale update */
	submit_json(p, "{\"create\":[" A_EP("new1.example.com", 300, "\"203.0.113.201\"") ","
		    A_EP("new2.example.com", 60, "\"203.0.113.202\",\"203.0.113.203\"") "],"
		    "\"updateOld\":[" A_EP("app.example.com", 300, "\"203.0.113.10\"") ","
		    A_EP("shop.example.com", 300, "\"203.0.113.99\"") "],"
		    "\"updateNew\":[" A_EP("app.example.com", 300, "\"203.0.113.13\"") ","
		    A_EP("shop.example.com", 300, "\"203.0.113.35\"") "],"
		    "\"delete\":[" A_EP("old-promo.example.com", 300, "\"203.0.113.50\"") ","
		    "{\"dnsName\":\"beta.example.com\",\"recordType\":\"CNAME\",\"recordTTL\":300,"
		    "\"targets\":[\"beta.lb.example.net\"]}]}", &res);
	/* plan order: create 0-1, update 2-3, delete 4-5: the stale update is the 4th change */
	assert_result(&res, DNSB_CLASS_CONFLICT, 412, "conditionNotMet", 3,
		      "Precondition not met for 'entity.change.deletions[3]': 'shop.example.com. (A)' holds other "
		      "data or TTL");
	after = slurp(fx->path, &after_len);
	assert_int_equal(after_len, before_len);
	assert_memory_equal(after, before, before_len);
	free(after);
	assert_int_equal(stray_files(fx), 0);
	/* and the provider's view is the file's */
	expect_rrset(p, "new1.example.com.", LDNS_RR_TYPE_A, 0, 0);
	expect_rrset(p, "app.example.com.", LDNS_RR_TYPE_A, 300, 1, "203.0.113.10");
	expect_rrset(p, "shop.example.com.", LDNS_RR_TYPE_A, 300, 1, "203.0.113.30");

	/* a failing create at the end of a batch of deletes */
	submit_json(p, "{\"create\":[" A_EP("legacy.example.com", 300, "\"203.0.113.200\"") "],"
		    "\"delete\":[" A_EP("old-promo.example.com", 300, "\"203.0.113.50\"") "]}", &res);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 0);
	after = slurp(fx->path, &after_len);
	assert_int_equal(after_len, before_len);
	assert_memory_equal(after, before, before_len);
	free(after);
	assert_int_equal(stray_files(fx), 0);

	/* the same good changes alone apply */
	submit_json(p, "{\"create\":[" A_EP("new1.example.com", 300, "\"203.0.113.201\"") "],"
		    "\"updateOld\":[" A_EP("app.example.com", 300, "\"203.0.113.10\"") "],"
		    "\"updateNew\":[" A_EP("app.example.com", 300, "\"203.0.113.13\"") "],"
		    "\"delete\":[" A_EP("old-promo.example.com", 300, "\"203.0.113.50\"") "]}", &res);
	assert_ok(&res);
	assert_int_equal(stray_files(fx), 0);
	expect_rrset(p, "new1.example.com.", LDNS_RR_TYPE_A, 300, 1, "203.0.113.201");
	expect_rrset(p, "app.example.com.", LDNS_RR_TYPE_A, 300, 1, "203.0.113.13");
	expect_rrset(p, "old-promo.example.com.", LDNS_RR_TYPE_A, 0, 0);
	free(before);
	dnsb_provider_free(p);
}

static void test_applied_batch_bumps_serial_once(void **state)
{
	fixture *fx = *state;
	dnsb_provider *p;
	dnsb_result res;
	struct stat st;

	use_example_zone(fx);
	assert_int_equal(chmod(fx->path, 0640), 0);
	p = open_zone(fx->path);
	assert_int_equal(soa_serial(p), 2026112001);
	submit_json(p, "{\"create\":[" A_EP("new1.example.com", 300, "\"203.0.113.201\"") ","
		    "{\"dnsName\":\"a-new1.example.com\",\"recordType\":\"TXT\",\"targets\":"
		    "[\"\\\"heritage=external-dns,external-dns/owner=default\\\"\"]},"
		    "{\"dnsName\":\"v6.example.com\",\"recordType\":\"AAAA\",\"recordTTL\":60,\"targets\":[\"2001:DB8::0:1\"]}],"
		    "\"updateOld\":[" A_EP("cart.example.com", 60, "\"203.0.113.31\"") "],"
		    "\"updateNew\":[" A_EP("cart.example.com", 120, "\"203.0.113.31\"") "],"
		    "\"delete\":[{\"dnsName\":\"beta.example.com\",\"recordType\":\"CNAME\",\"recordTTL\":300,"
		    "\"targets\":[\"beta.lb.example.net\"]}]}", &res);
	assert_ok(&res);
	assert_int_equal(soa_serial(p), 2026112002);
	assert_int_equal(stray_files(fx), 0);
	/* the file keeps its mode */
	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);

	submit_json(p, "{\"create\":[" A_EP("new2.example.com", 300, "\"203.0.113.202\"") "]}", &res);
	assert_ok(&res);
	assert_int_equal(soa_serial(p), 2026112003);
	/* a failed batch does not move it */
	submit_json(p, "{\"create\":[" A_EP("new2.example.com", 300, "\"203.0.113.202\"") "]}", &res);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(soa_serial(p), 2026112003);
	dnsb_provider_free(p);

	/* what was written reads back the same from a fresh open */
	p = open_zone(fx->path);
	assert_int_equal(soa_serial(p), 2026112003);
	expect_rrset(p, "new1.example.com.", LDNS_RR_TYPE_A, 300, 1, "203.0.113.201");
	expect_rrset(p, "a-new1.example.com.", LDNS_RR_TYPE_TXT, 300, 1,
		     "\"heritage=external-dns,external-dns/owner=default\"");
	expect_rrset(p, "v6.example.com.", LDNS_RR_TYPE_AAAA, 60, 1, "2001:db8::1");
	expect_rrset(p, "cart.example.com.", LDNS_RR_TYPE_A, 120, 1, "203.0.113.31");
	expect_rrset(p, "beta.example.com.", LDNS_RR_TYPE_CNAME, 0, 0);
	expect_rrset(p, "new2.example.com.", LDNS_RR_TYPE_A, 300, 1, "203.0.113.202");
	/* untouched records: still there, TTLs kept */
	expect_rrset(p, "legacy.example.com.", LDNS_RR_TYPE_A, 3600, 1, "192.0.2.100");
	expect_rrset(p, "example.com.", LDNS_RR_TYPE_MX, 3600, 2, "10 mx1.example.com.", "20 mx2.example.com.");
	{
		dnsb_rrset_list all = { 0 };
		dnsb_error err = { 0 };
		size_t records = 0;

		assert_int_equal(dnsb_provider_list(p, "example.com.", &all, &err), 0);
		for (size_t i = 0; i < all.count; i++)
			records += all.items[i].rdata_count;
		/* 297 records, + new1, a-new1, v6, new2, - beta */
		assert_int_equal(records, 297 + 4 - 1);
		dnsb_rrset_list_clear(&all);
	}
	dnsb_provider_free(p);

	if (!have_named_checkzone()) {
		print_message("named-checkzone not on PATH\n");
		skip();
	}
	assert_int_equal(named_checkzone(fx->path), 0);
}

static void test_small_zone_output_passes_named_checkzone(void **state)
{
	fixture *fx = *state;
	dnsb_provider *p = open_zone(fx->path);
	dnsb_result res;

	/* TXT with quotes, semicolons and a long string; SRV; MX; CAA; wildcard */
	submit_json(p, "{\"create\":["
		    "{\"dnsName\":\"_dmarc.example.com\",\"recordType\":\"TXT\",\"targets\":[\"v=DMARC1; p=reject; x=\\\"q\\\"\"]},"
		    "{\"dnsName\":\"long.example.com\",\"recordType\":\"TXT\",\"targets\":[\""
		    "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"
		    "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"
		    "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"
		    "\"]},"
		    "{\"dnsName\":\"_sip._tcp.example.com\",\"recordType\":\"SRV\",\"targets\":[\"10 60 5060 sip.example.com\"]},"
		    "{\"dnsName\":\"sub.example.com\",\"recordType\":\"MX\",\"targets\":[\"10 mx.example.net\"]},"
		    "{\"dnsName\":\"sub.example.com\",\"recordType\":\"CAA\",\"targets\":[\"0 issue \\\"letsencrypt.org\\\"\"]},"
		    "{\"dnsName\":\"*.apps.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.80\"]}]}", &res);
	assert_ok(&res);
	assert_int_equal(soa_serial(p), 2026112002);
	dnsb_provider_free(p);
	p = open_zone(fx->path);
	expect_rrset(p, "_dmarc.example.com.", LDNS_RR_TYPE_TXT, 300, 1, "\"v=DMARC1; p=reject; x=\\\"q\\\"\"");
	expect_rrset(p, "*.apps.example.com.", LDNS_RR_TYPE_A, 300, 1, "192.0.2.80");
	expect_rrset(p, "sub.example.com.", LDNS_RR_TYPE_CAA, 300, 1, "0 issue \"letsencrypt.org\"");
	dnsb_provider_free(p);
	if (!have_named_checkzone())
		skip();
	assert_int_equal(named_checkzone(fx->path), 0);
}

/* The author's file stays as written: comments, $ORIGIN/$TTL, relative names, layout; only what changed moves. */
static void test_rewrite_keeps_the_authors_text(void **state)
{
	static const char before[] =
		"; example.com, written by hand\n"
		"$ORIGIN example.com.\n"
		"$TTL 300\n"
		"@   IN SOA ns1 hostmaster (\n"
		"        2026010101 ; serial\n"
		"        3600 600 86400 300 )\n"
		"    IN NS ns1\n"
		"ns1 IN A 192.0.2.53   ; the name server\n"
		"\n"
		"; web tier\n"
		"www IN A 192.0.2.10\n"
		"    IN A 192.0.2.11\n"
		"old IN A 192.0.2.99   ; to be deleted\n"
		"    IN TXT \"keep me\"\n"
		"api 60 IN CNAME www\n"
		"; trailing comment\n";
	static const char after[] =
		"; example.com, written by hand\n"
		"$ORIGIN example.com.\n"
		"$TTL 300\n"
		"@   IN SOA ns1 hostmaster (\n"
		"        2026010102 ; serial\n"
		"        3600 600 86400 300 )\n"
		"    IN NS ns1\n"
		"ns1 IN A 192.0.2.53   ; the name server\n"
		"\n"
		"; web tier\n"
		"www IN A 192.0.2.10\n"
		"    IN A 192.0.2.11\n"
		"www.example.com.\t300\tIN\tAAAA\t2001:db8::10\n"
		"old.example.com.\t300\tIN\tTXT\t\"keep me\"\n"
		"api 60 IN CNAME www\n"
		"; trailing comment\n"
		"new.example.com.\t300\tIN\tA\t192.0.2.20\n";
	fixture *fx = *state;
	dnsb_provider *p;
	dnsb_result res;
	size_t len;
	char *text;

	write_file(fx->path, before, strlen(before));
	p = open_zone(fx->path);
	submit_json(p, "{\"create\":[" A_EP("new.example.com", 300, "\"192.0.2.20\"") ","
		    "{\"dnsName\":\"www.example.com\",\"recordType\":\"AAAA\",\"targets\":[\"2001:db8::10\"]}],"
		    "\"delete\":[" A_EP("old.example.com", 300, "\"192.0.2.99\"") "]}", &res);
	assert_ok(&res);
	dnsb_provider_free(p);
	text = slurp(fx->path, &len);
	assert_string_equal(text, after);
	free(text);
	assert_int_equal(stray_files(fx), 0);
	if (!have_named_checkzone())
		skip();
	assert_int_equal(named_checkzone(fx->path), 0);
}

/*
 * Multi-line records keep their parentheses and comments; an update puts the
 * new RDATA after its owner's last line; a conflict leaves the file as it
 * was; each applied batch moves the serial, in its own line, by one.
 */
static void test_multiline_update_and_conflict_keep_layout(void **state)
{
	static const char before[] =
		"$TTL 300\n"
		"@ IN SOA ns1.example.com. hostmaster.example.com. ( 7 ; serial\n"
		"  3600 600 86400 300 )\n"
		"  IN NS ns1.example.com.\n"
		"ns1 IN A 192.0.2.53\n"
		"txt IN TXT ( \"part one\" ; first\n"
		"             \"part two\" )\n"
		"www IN A 192.0.2.10 ; old address\n"
		"    IN MX ( 10 ; preference\n"
		"            mail )\n";
	static const char after[] =
		"$TTL 300\n"
		"@ IN SOA ns1.example.com. hostmaster.example.com. ( 8 ; serial\n"
		"  3600 600 86400 300 )\n"
		"  IN NS ns1.example.com.\n"
		"ns1 IN A 192.0.2.53\n"
		"txt IN TXT ( \"part one\" ; first\n"
		"             \"part two\" )\n"
		"www.example.com.\t300\tIN\tMX\t10 mail.example.com.\n"
		"www.example.com.\t300\tIN\tA\t192.0.2.11\n";
	fixture *fx = *state;
	dnsb_provider *p;
	dnsb_result res;
	size_t len;
	char *text;

	write_file(fx->path, before, strlen(before));
	p = open_zone(fx->path);
	submit_json(p, "{\"updateOld\":[" A_EP("www.example.com", 300, "\"192.0.2.10\"") "],"
		    "\"updateNew\":[" A_EP("www.example.com", 300, "\"192.0.2.11\"") "]}", &res);
	assert_ok(&res);
	text = slurp(fx->path, &len);
	assert_string_equal(text, after);
	free(text);
	submit_json(p, "{\"create\":[" A_EP("www.example.com", 300, "\"192.0.2.12\"") "]}", &res);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	dnsb_provider_free(p);
	text = slurp(fx->path, &len);
	assert_string_equal(text, after);
	free(text);
	if (!have_named_checkzone())
		skip();
	assert_int_equal(named_checkzone(fx->path), 0);
}

/* A writer killed mid-write leaves its temporary file; the next batch removes it under the lock. */
static void test_stale_temporary_file_removed(void **state)
{
	fixture *fx = *state;
	dnsb_provider *p = open_zone(fx->path);
	dnsb_result res;
	char stale[600];

	snprintf(stale, sizeof(stale), "%s.dnsbatch.AbC123", fx->path);
	write_file(stale, "half a zone", 11);
	assert_int_equal(stray_files(fx), 1);
	submit_json(p, "{\"create\":[" A_EP("fresh.example.com", 300, "\"192.0.2.77\"") "]}", &res);
	assert_ok(&res);
	assert_int_equal(stray_files(fx), 0);
	dnsb_provider_free(p);
	p = open_zone(fx->path);
	expect_rrset(p, "fresh.example.com.", LDNS_RR_TYPE_A, 300, 1, "192.0.2.77");
	dnsb_provider_free(p);
}

static void test_rewrite_keeps_owner(void **state)
{
	/*
	 * The zone file belongs to the name server's user (bind:bind, mode 0640);
	 * a rewrite by another user allowed to (root, from cron) must leave it
	 * readable by the server: same owner, group and mode.
	 */
	fixture *fx = *state;
	dnsb_provider *p;
	dnsb_result res;
	struct stat st;

	if (geteuid() != 0) {
		print_message("needs root to chown\n");
		skip();
	}
	assert_int_equal(chown(fx->path, 65534, 65534), 0);
	assert_int_equal(chmod(fx->path, 0640), 0);
	p = open_zone(fx->path);
	submit_json(p, "{\"create\":[" A_EP("new.example.com", 300, "\"192.0.2.9\"") "]}", &res);
	assert_ok(&res);
	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_gid, 65534);
	dnsb_provider_free(p);
}

static void test_symlinked_zone_file(void **state)
{
	/*
	 * PATH may be a symbolic link to the real zone file (a shared zones
	 * directory, a configuration-managed link): the update must reach the
	 * file the link points to, and the link must stay a link.
	 */
	fixture *fx = *state;
	char real[192], *text;
	size_t len;
	dnsb_provider *p;
	dnsb_result res;
	struct stat st;

	snprintf(real, sizeof(real), "%s/real.zone", fx->dir);
	assert_int_equal(rename(fx->path, real), 0);
	assert_int_equal(symlink("real.zone", fx->path), 0);
	p = open_zone(fx->path);
	submit_json(p, "{\"create\":[" A_EP("new.example.com", 300, "\"192.0.2.9\"") "]}", &res);
	assert_ok(&res);
	dnsb_provider_free(p);
	assert_int_equal(lstat(fx->path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	text = slurp(real, &len);
	assert_non_null(strstr(text, "new.example.com.\t300\tIN\tA\t192.0.2.9"));
	free(text);
	unlink(real);
}

/* ---- other writers ---- */

static void test_second_instance_sees_changes(void **state)
{
	fixture *fx = *state;
	dnsb_provider *p1 = open_zone(fx->path), *p2 = open_zone(fx->path);
	dnsb_result res;

	submit_json(p1, "{\"create\":[" A_EP("new.example.com", 300, "\"192.0.2.9\"") "]}", &res);
	assert_ok(&res);
	/* p2 was opened before the write: it re-reads the file */
	expect_rrset(p2, "new.example.com.", LDNS_RR_TYPE_A, 300, 1, "192.0.2.9");
	assert_int_equal(soa_serial(p2), 2026112002);
	/* and its own submissions are judged against the new data */
	submit_json(p2, "{\"create\":[" A_EP("new.example.com", 300, "\"192.0.2.9\"") "]}", &res);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.status, 409);
	submit_json(p2, "{\"updateOld\":[" A_EP("new.example.com", 300, "\"192.0.2.9\"") "],"
		    "\"updateNew\":[" A_EP("new.example.com", 300, "\"192.0.2.10\"") "]}", &res);
	assert_ok(&res);
	/* p1 sees p2's write, serial bumped on top of its own */
	expect_rrset(p1, "new.example.com.", LDNS_RR_TYPE_A, 300, 1, "192.0.2.10");
	assert_int_equal(soa_serial(p1), 2026112003);
	submit_json(p1, "{\"delete\":[" A_EP("new.example.com", 300, "\"192.0.2.9\"") "]}", &res);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.status, 412);
	submit_json(p1, "{\"delete\":[" A_EP("new.example.com", 300, "\"192.0.2.10\"") "]}", &res);
	assert_ok(&res);
	expect_rrset(p2, "new.example.com.", LDNS_RR_TYPE_A, 0, 0);
	assert_int_equal(soa_serial(p2), 2026112004);
	dnsb_provider_free(p1);
	dnsb_provider_free(p2);
}

static void test_file_edited_behind_its_back(void **state)
{
	fixture *fx = *state;
	dnsb_provider *p = open_zone(fx->path);
	char tmp[192], *text;
	dnsb_result res;
	FILE *f;

	expect_rrset(p, "www.example.com.", LDNS_RR_TYPE_A, 300, 2, "192.0.2.1", "192.0.2.2");
	/* an editor's save: a new file renamed over the old one */
	snprintf(tmp, sizeof(tmp), "%s.edit", fx->path);
	assert_int_equal(asprintf(&text, "%s%s", small_zone, "extra.example.com.\t300\tIN\tA\t192.0.2.99\n"), (int)
			 (strlen(small_zone) + strlen("extra.example.com.\t300\tIN\tA\t192.0.2.99\n")));
	write_file(tmp, text, strlen(text));
	free(text);
	assert_int_equal(rename(tmp, fx->path), 0);
	expect_rrset(p, "extra.example.com.", LDNS_RR_TYPE_A, 300, 1, "192.0.2.99");

	/* an in-place append (same inode, new size) */
	assert_non_null(f = fopen(fx->path, "a"));
	fputs("extra2.example.com.\t300\tIN\tA\t192.0.2.98\n", f);
	fclose(f);
	expect_rrset(p, "extra2.example.com.", LDNS_RR_TYPE_A, 300, 1, "192.0.2.98");

	/* an in-place rewrite that removes www: a submission is judged on the new data */
	{
		static const char rewritten[] =
			"$TTL 3600\n"
			"example.com.\t3600\tIN\tSOA\tns1.example.com. hostmaster.example.com. 2026112010 7200 3600 1209600 300\n"
			"example.com.\t3600\tIN\tNS\tns1.example.com.\n"
			"ns1.example.com.\t3600\tIN\tA\t192.0.2.53\n";
		write_file(fx->path, rewritten, strlen(rewritten));
	}
	submit_json(p, "{\"delete\":[" A_EP("www.example.com", 300, "\"192.0.2.1\",\"192.0.2.2\"") "]}", &res);
	assert_result(&res, DNSB_CLASS_CONFLICT, 404, "notFound", 0,
		      "The 'entity.change.deletions[0]' resource named 'www.example.com. (A)' does not exist.");
	submit_json(p, "{\"create\":[" A_EP("www.example.com", 300, "\"192.0.2.3\"") "]}", &res);
	assert_ok(&res);
	/* the serial continues from the edited file's */
	assert_int_equal(soa_serial(p), 2026112011);
	expect_rrset(p, "extra.example.com.", LDNS_RR_TYPE_A, 0, 0);
	dnsb_provider_free(p);
}

static void test_file_broken_behind_its_back(void **state)
{
	fixture *fx = *state;
	dnsb_provider *p = open_zone(fx->path);
	static const char broken[] =
		"$TTL 3600\n"
		"example.com.\t3600\tIN\tSOA\tns1.example.com. hostmaster.example.com. 2026112010 7200 3600 1209600 300\n"
		"www.example.com.\t300\tIN\tA\t192.0.2.300\n";
	dnsb_rrset_list list = { 0 };
	dnsb_error err = { 0 };
	size_t len;
	char *after, want[256];
	dnsb_result res;

	write_file(fx->path, broken, strlen(broken));
	submit_json(p, "{\"create\":[" A_EP("new.example.com", 300, "\"192.0.2.9\"") "]}", &res);
	/* not retryable: the same file will not parse on the next try */
	assert_int_equal(res.cls, DNSB_CLASS_FATAL);
	assert_string_equal(res.code, "badZoneFile");
	snprintf(want, sizeof(want), "%s:3: Syntax error, could not parse the RR's rdata", fx->path);
	assert_string_equal(res.message, want);
	after = slurp(fx->path, &len);
	assert_int_equal(len, strlen(broken));
	assert_memory_equal(after, broken, len);
	free(after);
	assert_int_equal(dnsb_provider_list(p, "example.com.", &list, &err), DNSB_EPARSE);
	assert_string_equal(err.message, want);
	dnsb_rrset_list_clear(&list);
	dnsb_provider_free(p);
}

static void test_zone_file_syntax(void **state)
{
	/* what people write by hand: $ORIGIN, @, relative names, parentheses, comments, owner and TTL left out */
	static const char zone[] =
		"$ORIGIN example.com.\n"
		"$TTL 1h\n"
		"@\tIN SOA ns1 hostmaster (\n"
		"\t\t2026112001 ; serial\n"
		"\t\t7200 3600 1209600 300 )\n"
		"\tIN NS ns1\n"
		"\tIN MX 10 Mail.Example.COM.\n"
		"ns1\tIN A 192.0.2.53\n"
		"WWW 300 IN A 192.0.2.2\n"
		"www 300 IN A 192.0.2.1 ; the second address\n"
		"$ORIGIN sub.example.com.\n"
		"api 60 IN CNAME www.example.com.\n"
		"txt IN TXT \"a; b\" \"c\"\n";
	fixture *fx = *state;
	dnsb_provider *p;
	dnsb_result res;

	write_file(fx->path, zone, strlen(zone));
	p = open_zone(fx->path);
	assert_int_equal(soa_serial(p), 2026112001);
	expect_rrset(p, "example.com.", LDNS_RR_TYPE_SOA, 3600, 1,
		     "ns1.example.com. hostmaster.example.com. 2026112001 7200 3600 1209600 300");
	expect_rrset(p, "example.com.", LDNS_RR_TYPE_NS, 3600, 1, "ns1.example.com.");
	expect_rrset(p, "example.com.", LDNS_RR_TYPE_MX, 3600, 1, "10 mail.example.com.");
	expect_rrset(p, "www.example.com.", LDNS_RR_TYPE_A, 300, 2, "192.0.2.1", "192.0.2.2");
	expect_rrset(p, "api.sub.example.com.", LDNS_RR_TYPE_CNAME, 60, 1, "www.example.com.");
	expect_rrset(p, "txt.sub.example.com.", LDNS_RR_TYPE_TXT, 3600, 1, "\"a; b\" \"c\"");
	/* the canonical data is what a plan must match */
	submit_json(p, "{\"delete\":[" A_EP("WWW.example.com", 300, "\"192.0.2.2\",\"192.0.2.1\"") "]}", &res);
	assert_ok(&res);
	dnsb_provider_free(p);
	p = open_zone(fx->path);
	assert_int_equal(soa_serial(p), 2026112002);
	expect_rrset(p, "www.example.com.", LDNS_RR_TYPE_A, 0, 0);
	expect_rrset(p, "txt.sub.example.com.", LDNS_RR_TYPE_TXT, 3600, 1, "\"a; b\" \"c\"");
	dnsb_provider_free(p);
	if (!have_named_checkzone())
		skip();
	assert_int_equal(named_checkzone(fx->path), 0);
}

static void test_include_is_refused(void **state)
{
	fixture *fx = *state;
	dnsb_config *cfg;
	dnsb_provider *p = NULL;
	dnsb_error err = { 0 };
	char spec[256], want[512], *zone;

	assert_true(asprintf(&zone, "%s$INCLUDE %s/other.zone\n", small_zone, fx->dir) > 0);
	write_file(fx->path, zone, strlen(zone));
	free(zone);
	snprintf(spec, sizeof(spec), "example.com=%s", fx->path);
	assert_int_equal(dnsb_config_new(&cfg), 0);
	assert_int_equal(dnsb_config_add(cfg, "zonefile", spec), 0);
	assert_int_equal(dnsb_provider_open(&p, "zonefile", cfg, &err), DNSB_EPARSE);
	assert_null(p);
	/* small_zone has 8 lines: $INCLUDE is the 9th */
	snprintf(want, sizeof(want), "%s:9: $INCLUDE is not supported", fx->path);
	assert_string_equal(err.message, want);
	dnsb_config_free(cfg);
}

/* ---- open ---- */

static void test_open_broken_zone(void **state)
{
	fixture *fx = *state;
	dnsb_config *cfg;
	dnsb_provider *p = NULL;
	dnsb_error err = { 0 };
	char spec[256], want[512];
	static const char broken[] =
		"$TTL 3600\n"
		"example.com.\t3600\tIN\tSOA\tns1.example.com. hostmaster.example.com. 2026112001 7200 3600 1209600 300\n"
		"\n"
		"; hand edit\n"
		"example.com.\t3600\tIN\tNS\tns1.example.com.\n"
		"www\tIN\tA\t999.1.1.1\n"
		"ok\tIN\tA\t192.0.2.1\n";

	write_file(fx->path, broken, strlen(broken));
	snprintf(spec, sizeof(spec), "example.com=%s", fx->path);
	assert_int_equal(dnsb_config_new(&cfg), 0);
	assert_int_equal(dnsb_config_add(cfg, "zonefile", spec), 0);
	assert_int_equal(dnsb_provider_open(&p, "zonefile", cfg, &err), DNSB_EPARSE);
	assert_null(p);
	snprintf(want, sizeof(want), "%s:6: Syntax error, could not parse the RR's rdata", fx->path);
	assert_string_equal(err.message, want);

	/* a zone without its SOA */
	write_file(fx->path, "example.com. 3600 IN NS ns1.example.com.\n", 41);
	assert_int_equal(dnsb_provider_open(&p, "zonefile", cfg, &err), DNSB_EPARSE);
	snprintf(want, sizeof(want), "%s: no SOA record at the zone apex example.com.", fx->path);
	assert_string_equal(err.message, want);

	/* records outside the zone */
	snprintf(want, sizeof(want), "%s\nwww.example.org. 300 IN A 192.0.2.1\n", small_zone);
	write_file(fx->path, want, strlen(want));
	assert_int_equal(dnsb_provider_open(&p, "zonefile", cfg, &err), DNSB_EPARSE);
	snprintf(want, sizeof(want), "%s:10: record www.example.org. is outside the zone example.com.", fx->path);
	assert_string_equal(err.message, want);
	dnsb_config_free(cfg);

	/* missing file, bad spec, no spec */
	assert_int_equal(dnsb_config_new(&cfg), 0);
	assert_int_equal(dnsb_provider_open(&p, "zonefile", cfg, &err), DNSB_EINVAL);
	assert_string_equal(err.message, "--provider zonefile needs --zonefile ZONE=PATH (repeatable)");
	assert_int_equal(dnsb_config_add(cfg, "zonefile", "example.com"), 0);
	assert_int_equal(dnsb_provider_open(&p, "zonefile", cfg, &err), DNSB_EINVAL);
	assert_string_equal(err.message, "--zonefile: expected ZONE=PATH, got 'example.com'");
	dnsb_config_free(cfg);
	assert_int_equal(dnsb_config_new(&cfg), 0);
	snprintf(spec, sizeof(spec), "example.com=%s/missing.zone", fx->dir);
	assert_int_equal(dnsb_config_add(cfg, "zonefile", spec), 0);
	assert_int_equal(dnsb_provider_open(&p, "zonefile", cfg, &err), DNSB_EIO);
	snprintf(want, sizeof(want), "%s/missing.zone: No such file or directory", fx->dir);
	assert_string_equal(err.message, want);
	dnsb_config_free(cfg);
	assert_null(p);
}

/*
 * Write `before`, create new.example.com A through the provider, and open
 * the written file afresh: it must load, with the new record and www's.
 * @return the written file (the caller frees)
 */
static char *create_and_reload(fixture *fx, const char *before, size_t len)
{
	dnsb_provider *p;
	dnsb_result res;
	size_t out_len;

	write_file(fx->path, before, len);
	p = open_zone(fx->path);
	submit_json(p, "{\"create\":[" A_EP("new.example.com", 300, "\"192.0.2.20\"") "]}", &res);
	assert_ok(&res);
	dnsb_provider_free(p);
	p = open_zone(fx->path);
	expect_rrset(p, "new.example.com.", LDNS_RR_TYPE_A, 300, 1, "192.0.2.20");
	expect_rrset(p, "www.example.com.", LDNS_RR_TYPE_A, 300, 1, "192.0.2.1");
	dnsb_provider_free(p);
	assert_int_equal(stray_files(fx), 0);
	return slurp(fx->path, &out_len);
}

/* A last line that is a comment without its newline swallowed every record written after it. */
static void test_last_comment_without_newline(void **state)
{
	static const char before[] =
		"$ORIGIN example.com.\n"
		"@ 300 IN SOA ns1 hostmaster 1 7200 3600 1209600 300\n"
		"www 300 IN A 192.0.2.1\n"
		"; last line, a comment without a newline";
	static const char after[] =
		"$ORIGIN example.com.\n"
		"@ 300 IN SOA ns1 hostmaster 2 7200 3600 1209600 300\n"
		"www 300 IN A 192.0.2.1\n"
		"; last line, a comment without a newline\n"
		"new.example.com.\t300\tIN\tA\t192.0.2.20\n";
	char *text = create_and_reload(*state, before, strlen(before));

	assert_string_equal(text, after);
	free(text);
}

/*
 * A '(' left open at the end of the file (ldns reads it to the end)
 * swallowed the records written after it, and the file no longer loaded:
 * such a file is written whole by ldns instead. A '"' left open ends with
 * its line in ldns: that file keeps its text.
 */
static void test_open_at_end_written_whole(void **state)
{
	static const struct {
		const char *before;
		int whole;
	} cases[] = {
		{ "$ORIGIN example.com.\n"
		  "www 300 IN A 192.0.2.1\n"
		  "@ 300 IN SOA ns1 hostmaster ( 1 7200 3600 1209600 300\n", 1 },
		{ "$ORIGIN example.com.\n"
		  "@ 300 IN SOA ns1 hostmaster 1 7200 3600 1209600 300\n"
		  "www 300 IN A 192.0.2.1\n"
		  "$TTL 300 (\n", 1 },
		{ "$ORIGIN example.com.\n"
		  "@ 300 IN SOA ns1 hostmaster 1 7200 3600 1209600 300\n"
		  "www 300 IN A 192.0.2.1\n"
		  "txt 300 IN TXT \"left open", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = create_and_reload(*state, cases[i].before, strlen(cases[i].before));

		if (cases[i].whole) {
			/* Written by ldns: absolute names, the serial moved. */
			assert_non_null(strstr(text, "example.com.\t300\tIN\tSOA\tns1.example.com. "
						     "hostmaster.example.com. 2 7200 "));
			assert_null(strstr(text, "$ORIGIN"));
		} else {
			assert_non_null(strstr(text, "txt 300 IN TXT \"left open\nnew.example.com.\t300\tIN\tA\t"));
		}
		free(text);
	}
}

/* A NUL byte, which ldns skips ("mx\0\0 IN CNAME" reads as "mx IN CNAME"), is refused at load, naming the line. */
static void test_nul_byte_refused(void **state)
{
	static const char broken[] =
		"$ORIGIN example.com.\n"
		"@ 300 IN SOA ns1 hostmaster 1 7200 3600 1209600 300\n"
		"\n"
		"www 300 IN A 192.0.2.1\n"
		"mx16\0\0\0\0\tIN CNAME ns1\n";
	fixture *fx = *state;
	dnsb_config *cfg;
	dnsb_provider *p = NULL;
	dnsb_error err = { 0 };
	dnsb_result res;
	char spec[256], want[512];

	write_file(fx->path, broken, sizeof(broken) - 1);
	snprintf(spec, sizeof(spec), "example.com=%s", fx->path);
	assert_int_equal(dnsb_config_new(&cfg), 0);
	assert_int_equal(dnsb_config_add(cfg, "zonefile", spec), 0);
	assert_int_equal(dnsb_provider_open(&p, "zonefile", cfg, &err), DNSB_EPARSE);
	assert_null(p);
	dnsb_config_free(cfg);
	snprintf(want, sizeof(want), "%s:5: a NUL byte: a zone file is text (ldns would skip it where named would "
		 "not; remove it)", fx->path);
	assert_string_equal(err.message, want);

	/* written so behind the provider's back: the batch is refused, the file left as it is */
	write_file(fx->path, broken, strstr(broken, "mx16") - broken);
	p = open_zone(fx->path);
	write_file(fx->path, broken, sizeof(broken) - 1);
	submit_json(p, "{\"create\":[" A_EP("new.example.com", 300, "\"192.0.2.20\"") "]}", &res);
	assert_int_equal(res.cls, DNSB_CLASS_FATAL);
	assert_string_equal(res.code, "badZoneFile");
	assert_string_equal(res.message, want);
	dnsb_provider_free(p);
}

/*
 * The rewrite itself never keeps text with a NUL byte in it (its text, cut
 * at the NUL, lost the rest of the record): it answers DNSB_EPARSE, and the
 * zone is written whole.
 */
static void test_rewrite_refuses_nul_byte(void **state)
{
	static const char zone[] =
		"@ 300 IN SOA ns1 hostmaster 1 7200 3600 1209600 300\n"
		"mx16\0\0\0\tIN CNAME ns1\n";
	fixture *fx = *state;
	dnsb_store *store = NULL;
	dnsb_error err = { 0 };
	FILE *old, *out;

	write_file(fx->path, zone, sizeof(zone) - 1);
	assert_int_equal(dnsb_store_new(&store, "example.com."), 0);
	assert_int_equal(dnsb_store_load(store, fx->path, &err), 0);  /* ldns skips the NUL bytes */
	old = fopen(fx->path, "r");
	out = tmpfile();
	assert_non_null(old);
	assert_non_null(out);
	assert_int_equal(dnsb_zonefile_rewrite(out, old, store, &err), DNSB_EPARSE);
	assert_string_equal(err.message, "a NUL byte in the zone file");
	fclose(old);
	fclose(out);
	dnsb_store_free(store);
}

static void test_counts_and_unknown_zone(void **state)
{
	fixture *fx = *state;
	dnsb_provider *p = open_zone(fx->path);
	dnsb_rrset_list list = { 0 };
	dnsb_error err = { 0 };
	dnsb_result res;
	dnsb_plan *plan = plan_of("{\"create\":[" A_EP("x.example.org", 300, "\"192.0.2.9\"") "]}");
	dnsb_change *c = dnsb_plan_change(plan, 0);

	assert_int_equal(dnsb_provider_zone_for(p, "www.example.com."), 0);
	assert_int_equal(dnsb_provider_zone_for(p, "example.com."), 0);
	assert_int_equal(dnsb_provider_zone_for(p, "example.org."), -1);
	assert_int_equal(dnsb_provider_list(p, "example.com.", &list, &err), 0);
	/* SOA, NS, ns1 A, www A, a-www TXT, mail CNAME */
	assert_int_equal(list.count, 6);
	dnsb_rrset_list_clear(&list);
	/* a zone the provider does not hold: refused before any request, so not counted */
	assert_int_equal(dnsb_provider_list(p, "example.org.", &list, &err), DNSB_ENOTFOUND);
	assert_string_equal(err.message, "zone example.org. is not configured for provider zonefile");
	dnsb_result_init(&res);
	assert_int_equal(dnsb_provider_submit(p, "example.org.", &c, 1, 0, &res, NULL, &err), 0);
	assert_int_equal(res.cls, DNSB_CLASS_FATAL);
	assert_int_equal(dnsb_provider_submissions(p), 1);
	assert_int_equal(dnsb_provider_reads(p), 1);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_existing_is_409, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_stale_delete_and_update_are_412, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_delete_missing_is_404, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_cname_beside_other_data, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_soa_change_is_invalid, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_outside_the_zone_is_invalid, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_failed_batch_leaves_file_byte_identical, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_applied_batch_bumps_serial_once, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_small_zone_output_passes_named_checkzone, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_rewrite_keeps_the_authors_text, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_stale_temporary_file_removed, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_multiline_update_and_conflict_keep_layout, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_rewrite_keeps_owner, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_symlinked_zone_file, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_second_instance_sees_changes, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_file_edited_behind_its_back, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_file_broken_behind_its_back, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_open_broken_zone, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_zone_file_syntax, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_include_is_refused, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_counts_and_unknown_zone, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_last_comment_without_newline, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_open_at_end_written_whole, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_nul_byte_refused, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_rewrite_refuses_nul_byte, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_held_commits_written_at_flush, fixture_setup, fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
