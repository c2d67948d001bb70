/*
 * unopened.c - the engine's other door (dnsbatch/engine.h,
 * dnsb_engine_fail_unopened): a plan whose provider could not be opened for a
 * transient reason. Nothing was sent, so every change ends failed (transient,
 * retryable; docs/design.md §5.1: exit 4), but a group with an invalid member
 * is dropped whole first, as dnsb_engine_apply drops it; then the same tally
 * tells each change once (report, metrics, drop log, on_outcome, the log).
 * Without a provider there is no zone: the engine runs with none, so every
 * change sits in the slot of changes in no zone (its name "").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/clock.h"
#include "applier/engine/internal.h"

/* Drop the groups holding a change the parser found invalid, grouping every change as one zone's (index 0; the
 * engine has no zone, so 0 is also the slot of changes in no zone). @return 0 or DNSB_ENOMEM */
static int drop_invalid(engine *e, dnsb_plan *plan)
{
	group *groups = NULL;
	size_t ngroups = 0;
	int rc;

	for (size_t i = 0; i < dnsb_plan_count(plan); i++)
		dnsb_plan_change(plan, i)->zone = 0;
	if ((rc = dnsb_engine_make_groups(plan, 1, &groups, &ngroups)) == 0)
		dnsb_engine_drop_invalid_groups(e, groups, ngroups);
	dnsb_engine_free_groups(groups, ngroups);
	return rc;
}

int dnsb_engine_fail_unopened(dnsb_report *out, dnsb_plan *plan, const char *why,
			      const dnsb_engine_options *opts, dnsb_error *err)
{
	static const dnsb_engine_options defaults = DNSB_ENGINE_OPTIONS_INIT;
	const dnsb_engine_options *o = opts ? opts : &defaults;
	char msg[DNSB_ERROR_MESSAGE_MAX];
	long slot = -1;   /* the one zone slot: changes in no zone */
	engine e = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = dnsb_engine_check_options(o, err)) < 0)
		return rc;
	if (o->dry_run || o->preview)
		return dnsb_error_set(err, DNSB_EINVAL, "a dry run or a preview needs the provider: nothing to settle");
	e.o = o;
	e.rep = out;
	e.err = err;
	e.plan = plan;
	e.clock = o->clock ? o->clock : dnsb_clock_system();
	e.zone_slot = &slot;
	if ((out->zones = calloc(1, sizeof(dnsb_zone_report))) == NULL)
		e.rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory starting the apply");
	if (e.rc == 0 && (rc = drop_invalid(&e, plan)) < 0)
		e.rc = dnsb_error_set(err, rc, "out of memory grouping the plan's changes");
	snprintf(msg, sizeof(msg), "not sent: the provider could not be opened: %s", why && *why ? why : "unknown");
	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		if (c->outcome == DNSB_OUTCOME_PENDING)
			dnsb_engine_settle_change(&e, c, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, 0, NULL, msg);
	}
	if (out->zones)
		dnsb_engine_tally(&e, plan);
	dnsb_metrics_set_last_apply(o->metrics, floor(dnsb_clock_wall(e.clock)));
	free(e.quiet);
	free(e.recorded);
	if (e.rc < 0 && err && err->code != e.rc)
		dnsb_error_set(err, e.rc, "%s", dnsb_strerror(e.rc));
	return e.rc;
}
