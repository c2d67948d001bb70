/*
 * unopened.c - the outcomes of `dnsbatch apply` when its provider could not be
 * opened for a transient reason (a 5xx or a timeout on the first read of the
 * zone): nothing was sent, so every change ends failed (transient, retryable;
 * docs/design.md §5.1: exit 4), told in the summary, the drop log and the
 * metrics file as an apply's outcomes are. A group with an invalid member is
 * dropped whole, as the engine drops it before it sends anything.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "applier/engine/internal.h"
#include "cli.h"

/* Drop every group holding a change the parser found invalid, as the engine does; the zone is unknown (no
 * provider), so every change counts in one. @return 0 or DNSB_ENOMEM */
static int drop_invalid_groups(dnsb_plan *plan)
{
	group *groups = NULL;
	size_t ngroups = 0;
	int rc;

	for (size_t i = 0; i < dnsb_plan_count(plan); i++)
		dnsb_plan_change(plan, i)->zone = 0;
	rc = dnsb_engine_make_groups(plan, 1, &groups, &ngroups);
	if (rc == 0)
		dnsb_engine_drop_invalid_groups(NULL, groups, ngroups); /* no engine: settle_change takes NULL */
	dnsb_engine_free_groups(groups, ngroups);
	return rc;
}

/* Count c in r, in the metrics and (dropped or failed) in the drop log, the failed lines bounded as the engine
 * bounds them. @return 0, or -1 when the drop log could not be written */
static int tell(dnsb_report *r, const dnsb_change *c, dnsb_metrics *m, dnsb_droplog *log, double wall)
{
	r->changes++;
	switch (c->outcome) {
	case DNSB_OUTCOME_APPLIED: r->applied++; break;
	case DNSB_OUTCOME_ALREADY_APPLIED: r->already_applied++; break;
	case DNSB_OUTCOME_DROPPED: r->dropped++; break;
	case DNSB_OUTCOME_FAILED: r->failed++; break;
	case DNSB_OUTCOME_PENDING: break;
	}
	dnsb_metrics_change(m, "", c);
	if (log == NULL || (c->outcome != DNSB_OUTCOME_DROPPED && c->outcome != DNSB_OUTCOME_FAILED) ||
	    (c->outcome == DNSB_OUTCOME_FAILED && r->failed > DNSB_FAILED_DROPLOG_MAX))
		return 0;
	return dnsb_droplog_write(log, "", c, wall) < 0 ? -1 : 0;
}

int dnsb_cli_fail_unopened(dnsb_report *r, dnsb_plan *plan, const char *why, dnsb_metrics *m, dnsb_droplog *log,
			   dnsb_error *err)
{
	char msg[DNSB_ERROR_MESSAGE_MAX];
	double wall = (double)time(NULL);
	int rc = drop_invalid_groups(plan), logrc = 0;

	memset(r, 0, sizeof(*r));
	snprintf(msg, sizeof(msg), "not sent: the provider could not be opened: %s", why);
	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		if (c->outcome == DNSB_OUTCOME_PENDING &&
		    dnsb_engine_settle_change(NULL, c, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, 0, NULL, msg) < 0)
			rc = DNSB_ENOMEM;
		if (tell(r, c, m, log, wall) < 0)
			logrc = -1;
	}
	if (log && r->failed > DNSB_FAILED_DROPLOG_MAX &&
	    dnsb_droplog_write_omitted(log, "", "failed", dnsb_reason_name(DNSB_REASON_TRANSIENT),
				       r->failed - DNSB_FAILED_DROPLOG_MAX, wall) != 0)
		logrc = -1;
	dnsb_metrics_set_last_apply(m, wall);
	if (r->failed > 0)
		dnsb_log(DNSB_LOG_WARN, "%zu changes failed (transient): nothing was sent; apply the same plan again",
			 r->failed);
	if (rc < 0)
		return dnsb_error_set(err, rc, "out of memory while grouping the plan's changes");
	if (logrc < 0)
		return dnsb_error_set(err, DNSB_EIO, "the drop log could not be written");
	return 0;
}
