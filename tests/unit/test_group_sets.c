/*
 * test_group_sets.c - change groups keyed by (owner name, set identifier)
 * (applier/engine/group.c): routing sets at one name are groups apart, each
 * registry TXT record joins the set whose identifier it carries, a change
 * without identifier at the name joins every set there, and an update that
 * moves a set to another identifier joins both.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dnsbatch/dnsbatch.h"
#include "applier/engine/internal.h"

#define SET(name, type, sid, target) \
	"{\"dnsName\":\"" name "\",\"recordType\":\"" type "\",\"setIdentifier\":\"" sid "\",\"recordTTL\":60," \
	"\"targets\":[\"" target "\"],\"providerSpecific\":[{\"name\":\"aws/weight\",\"value\":\"1\"}]}"
#define TXT(name, sid, owned) \
	"{\"dnsName\":\"" name "\",\"recordType\":\"TXT\",\"setIdentifier\":\"" sid "\",\"recordTTL\":60," \
	"\"targets\":[\"\\\"heritage=external-dns\\\"\"],\"labels\":{\"ownedRecord\":\"" owned "\"}}"
#define PLAIN(name, target) \
	"{\"dnsName\":\"" name "\",\"recordType\":\"A\",\"recordTTL\":60,\"targets\":[\"" target "\"]}"

typedef struct grouped {
	dnsb_plan *plan;
	group *groups;
	size_t n;
} grouped;

static void make(grouped *g, const char *json)
{
	dnsb_error err = { 0 };

	assert_int_equal(dnsb_plan_parse(&g->plan, json, strlen(json), "test", &err), 0);
	for (size_t i = 0; i < dnsb_plan_count(g->plan); i++) {
		assert_int_equal(dnsb_plan_change(g->plan, i)->outcome, DNSB_OUTCOME_PENDING);
		dnsb_plan_change(g->plan, i)->zone = 0;
	}
	assert_int_equal(dnsb_engine_make_groups(g->plan, 1, &g->groups, &g->n), 0);
}

static void drop(grouped *g)
{
	dnsb_engine_free_groups(g->groups, g->n);
	dnsb_plan_free(g->plan);
}

/* The group of the one change of `kind` at (owner, set identifier; "" none). */
static size_t gid(grouped *g, dnsb_change_kind kind, const char *owner, const char *sid)
{
	size_t found = (size_t)-1;

	for (size_t i = 0; i < dnsb_plan_count(g->plan); i++) {
		const dnsb_change *c = dnsb_plan_change(g->plan, i);
		const dnsb_rrset *r = kind == DNSB_CHANGE_DELETE ? &c->old : &c->new_set;
		if (c->kind == kind && strcmp(r->owner, owner) == 0 && strcmp(r->set_id ? r->set_id : "", sid) == 0) {
			assert_true(found == (size_t)-1);
			found = c->group;
		}
	}
	assert_true(found != (size_t)-1);
	return found;
}

#define C DNSB_CHANGE_CREATE

/* Two weighted sets at one name, each with its registry TXT record: two groups, each TXT with its own set. */
static void test_sets_apart_with_their_txt(void **state)
{
	grouped g;

	(void)state;
	make(&g, "{\"create\":[" SET("w.example.com", "A", "eu", "192.0.2.1") "," TXT("a-w.example.com", "eu",
	     "w.example.com") "," SET("w.example.com", "A", "us", "192.0.2.2") "," TXT("a-w.example.com", "us",
	     "w.example.com") "]}");
	assert_int_equal(g.n, 2);
	assert_int_equal(gid(&g, C, "w.example.com.", "eu"), gid(&g, C, "a-w.example.com.", "eu"));
	assert_int_equal(gid(&g, C, "w.example.com.", "us"), gid(&g, C, "a-w.example.com.", "us"));
	assert_int_not_equal(gid(&g, C, "w.example.com.", "eu"), gid(&g, C, "w.example.com.", "us"));
	drop(&g);
}

/* A change without identifier at the name (a plain A deleted as the sets come) joins every set there. */
static void test_plain_change_joins_the_sets(void **state)
{
	grouped g;

	(void)state;
	make(&g, "{\"create\":[" SET("w.example.com", "A", "eu", "192.0.2.1") "," SET("w.example.com", "A", "us",
	     "192.0.2.2") "," PLAIN("other.example.com", "192.0.2.9") "],\"delete\":[" PLAIN("w.example.com",
	     "192.0.2.5") "]}");
	assert_int_equal(g.n, 2);
	assert_int_equal(gid(&g, C, "w.example.com.", "eu"), gid(&g, C, "w.example.com.", "us"));
	assert_int_equal(gid(&g, C, "w.example.com.", "eu"), gid(&g, DNSB_CHANGE_DELETE, "w.example.com.", ""));
	assert_int_not_equal(gid(&g, C, "w.example.com.", "eu"), gid(&g, C, "other.example.com.", ""));
	drop(&g);
}

/* An update whose new set has another identifier than its old one joins the groups of both. */
static void test_update_moving_a_set_joins_both(void **state)
{
	grouped g;

	(void)state;
	make(&g, "{\"updateOld\":[" SET("w.example.com", "A", "eu", "192.0.2.1") "],\"updateNew\":[" SET(
	     "w.example.com", "A", "europe", "192.0.2.1") "],\"create\":[" TXT("a-w.example.com", "eu",
	     "w.example.com") "," TXT("a-w.example.com", "europe", "w.example.com") "," SET("w.example.com", "A",
	     "us", "192.0.2.2") "]}");
	size_t moved;

	assert_int_equal(g.n, 2);
	moved = gid(&g, DNSB_CHANGE_UPDATE, "w.example.com.", "europe");
	assert_int_equal(gid(&g, C, "a-w.example.com.", "eu"), moved);
	assert_int_equal(gid(&g, C, "a-w.example.com.", "europe"), moved);
	assert_int_not_equal(gid(&g, C, "w.example.com.", "us"), moved);
	drop(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sets_apart_with_their_txt),
		cmocka_unit_test(test_plain_change_joins_the_sets),
		cmocka_unit_test(test_update_moving_a_set_joins_both),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
