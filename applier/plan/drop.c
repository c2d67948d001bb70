/*
 * drop.c - the one writer of a change's outcome in the plan stage (issue 32
 * §4): a change the plan itself condemns (an endpoint that cannot be applied,
 * an update that renames, an RRset written twice) is dropped as `invalid`
 * here before the engine sees it. The engine keeps such an outcome and tells
 * it as it tells its own (dnsb_engine_tally: the report, the metrics, the
 * logs, the drop log and dnsb_engine_options.on_outcome).
 */
#include <stdlib.h>

#include "applier/plan/internal.h"

void dnsb_plan_drop_invalid(dnsb_change *c, char *message)
{
	if (message != NULL) {
		free(c->message);
		c->message = message;
	}
	c->outcome = DNSB_OUTCOME_DROPPED;
	c->reason = DNSB_REASON_INVALID;
}
