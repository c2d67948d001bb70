/*
 * setup_fault.c - a one-shot apply whose first request was refused for its
 * key or its zone (a DNS server's TSIG error or NOTAUTH), before anything was
 * applied: a setup fault, exit 2, as PowerDNS's wrong key and Cloud DNS's
 * missing credentials are found at open. Retrying later (exit 4) would meet
 * the same refusal.
 */
#include <string.h>

#include "cli.h"

/* The DNS answers that refuse the sender rather than a record: RFC 8945 §5.2 (TSIG), RFC 2136 §2.2 (NOTAUTH; REFUSED
 * for an update policy that admits nobody). */
static const char *const setup_codes[] = { "BADSIG", "BADKEY", "BADTIME", "NOTAUTH", "REFUSED" };

static int is_setup_code(const char *code)
{
	for (size_t i = 0; code && i < sizeof(setup_codes) / sizeof(setup_codes[0]); i++)
		if (strcmp(code, setup_codes[i]) == 0)
			return 1;
	return 0;
}

const dnsb_change *dnsb_cli_setup_fault(dnsb_plan *plan, const dnsb_report *report)
{
	const dnsb_change *first = NULL;

	if (report->failed == 0 || report->applied > 0 || report->already_applied > 0)
		return NULL;
	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		const dnsb_change *c = dnsb_plan_change(plan, i);
		if (c->outcome == DNSB_OUTCOME_DROPPED && c->reason == DNSB_REASON_CONFLICT)
			return NULL; /* the provider answered for a record: it took the key */
		if (c->outcome != DNSB_OUTCOME_FAILED)
			continue;
		if (c->reason != DNSB_REASON_FATAL || !is_setup_code(c->code))
			return NULL;
		if (first == NULL)
			first = c;
	}
	return first;
}
