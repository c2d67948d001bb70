/* test_events.c - the Events recorder's pure parts: which change makes which Event, the note's bound,
 * labels.resource read as external-dns writes it, --events-emit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/obs/events_int.h"
#include "dnsbatch/plan.h"

static const char PLAN[] =
	"{\"create\":[{\"dnsName\":\"www.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.1\"],"
	"\"labels\":{\"owner\":\"default\",\"resource\":\"ingress/shop/web\"}},"
	"{\"dnsName\":\"txt.example.com\",\"recordType\":\"TXT\",\"targets\":[\"x\"],\"labels\":{\"ownedRecord\":\"a\"}}]}";

static dnsb_plan *parse(void)
{
	dnsb_plan *plan = NULL;
	dnsb_error err = { 0 };

	assert_int_equal(dnsb_plan_parse(&plan, PLAN, sizeof(PLAN) - 1, "test", &err), 0);
	return plan;
}

static void settle(dnsb_change *c, dnsb_outcome outcome, dnsb_reason reason, const char *message)
{
	c->outcome = outcome;
	c->reason = reason;
	free(c->message);
	c->message = message ? strdup(message) : NULL;
}

/* Each outcome to its reason; an applied one and one without labels.resource make none. */
static void test_reasons(void **state)
{
	dnsb_plan *plan = parse();
	dnsb_change *c = dnsb_plan_change(plan, 0), *txt = dnsb_plan_change(plan, 1);
	dnsb_event_occ occ;

	(void)state;
	settle(c, DNSB_OUTCOME_APPLIED, DNSB_REASON_NONE, NULL);
	assert_int_equal(dnsb_event_of_change(&occ, c, DNSB_EVENT_ALL), 0);
	settle(c, DNSB_OUTCOME_DROPPED, DNSB_REASON_INVALID, "bad");
	assert_int_equal(dnsb_event_of_change(&occ, c, DNSB_EVENT_ALL), 1);
	assert_int_equal(occ.reason, DNSB_EVENT_DROPPED);
	assert_string_equal(occ.resource, "ingress/shop/web");
	assert_string_equal(occ.record, "create www.example.com. A");
	assert_string_equal(occ.note, "create www.example.com. A dropped (invalid). dnsbatch said: bad");
	assert_int_equal(dnsb_event_of_change(&occ, c, DNSB_EVENT_FAILED), 0); /* not asked for */
	settle(c, DNSB_OUTCOME_DROPPED, DNSB_REASON_QUARANTINED, NULL);
	assert_int_equal(dnsb_event_of_change(&occ, c, DNSB_EVENT_ALL), 1);
	assert_int_equal(occ.reason, DNSB_EVENT_HELD);
	settle(c, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, NULL);
	assert_int_equal(dnsb_event_of_change(&occ, c, DNSB_EVENT_ALL), 1);
	assert_int_equal(occ.reason, DNSB_EVENT_FAILED);
	settle(txt, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, NULL);
	assert_int_equal(dnsb_event_of_change(&occ, txt, DNSB_EVENT_ALL), 0);
	dnsb_plan_free(plan);
}

/* A provider message of 3000 bytes of two-byte characters: the note stays within Kubernetes' 1024 bytes,
 * cut between characters. */
static void test_note_bound(void **state)
{
	dnsb_plan *plan = parse();
	dnsb_change *c = dnsb_plan_change(plan, 0);
	char *msg = malloc(3001);
	dnsb_event_occ occ;
	size_t len;

	(void)state;
	for (size_t i = 0; i < 3000; i += 2)
		memcpy(msg + i, "\xc3\xa9", 2);
	msg[3000] = '\0';
	settle(c, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, msg);
	c->status = 500;
	assert_int_equal(dnsb_event_of_change(&occ, c, DNSB_EVENT_ALL), 1);
	len = strlen(occ.note);
	assert_true(len <= DNSB_EVENT_NOTE_MAX);
	assert_true(len >= DNSB_EVENT_NOTE_MAX - 1);
	assert_true(((unsigned char)occ.note[len - 1] & 0xC0) == 0x80); /* ends on a whole é */
	assert_non_null(strstr(occ.note, "The provider said: \xc3\xa9"));
	free(msg);
	dnsb_plan_free(plan);
}

static void test_refs(void **state)
{
	dnsb_k8s_ref r;
	char path[400];

	(void)state;
	assert_int_equal(dnsb_k8s_ref_parse(&r, "gateway-httproute/web/sip-route"), 0);
	assert_string_equal(r.kind, "HTTPRoute");
	dnsb_k8s_ref_path(path, sizeof(path), &r);
	assert_string_equal(path, "/apis/gateway.networking.k8s.io/v1/namespaces/web/httproutes/sip-route");
	assert_int_equal(dnsb_k8s_ref_parse(&r, "service/default/mail"), 0);
	dnsb_k8s_ref_path(path, sizeof(path), &r);
	assert_string_equal(path, "/api/v1/namespaces/default/services/mail");
	assert_int_equal(dnsb_k8s_ref_parse(&r, "crd/dns/static"), 0);
	assert_string_equal(r.api_version, "externaldns.k8s.io/v1alpha1");
	assert_int_equal(dnsb_k8s_ref_parse(&r, "ingress/default"), DNSB_EINVAL);
	assert_int_equal(dnsb_k8s_ref_parse(&r, "ingress/default/a/b"), DNSB_EINVAL); /* '/' is not in a name */
	assert_int_equal(dnsb_k8s_ref_parse(&r, "ingress/Default/web"), DNSB_EINVAL);
	assert_int_equal(dnsb_k8s_ref_parse(&r, "node//web"), DNSB_EINVAL);
	assert_int_equal(dnsb_k8s_ref_parse(&r, "ingress/default/../../secrets"), DNSB_EINVAL);
	assert_int_equal(dnsb_k8s_ref_parse(&r, "ingress/default/.."), DNSB_EINVAL);
	assert_int_equal(dnsb_k8s_ref_parse(&r, "ingress/../web"), DNSB_EINVAL);
}

static void test_emit(void **state)
{
	dnsb_error err = { 0 };
	unsigned bits = 0;

	(void)state;
	assert_int_equal(dnsb_events_parse_reasons(&bits, "RecordDropped,RecordHeld", &err), 0);
	assert_int_equal(bits, DNSB_EVENT_DROPPED | DNSB_EVENT_HELD);
	assert_int_equal(dnsb_events_parse_reasons(&bits, "RecordReady", &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "RecordReady"));
	assert_int_equal(dnsb_events_parse_reasons(&bits, "", &err), DNSB_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_note_bound),
		cmocka_unit_test(test_refs),
		cmocka_unit_test(test_emit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
