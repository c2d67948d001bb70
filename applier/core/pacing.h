/*
 * pacing.h - the pacing shared by every batch sent to one provider
 * (docs/design.md §3.6: "a rate limit slows the whole provider, not one
 * batch"). The engine's own hold, on batches, after a rate_limited answer;
 * times are on the engine's clock. Below it, on each HTTP request, sits
 * the transport's one throttle chain (applier/net/throttle.h: the rate
 * budget, the submission interval, the service's header pacer), whose
 * refusals come back as rate_limited answers with their hold as the
 * Retry-After. A backend keeps no pacer of its own beside those two.
 */
#ifndef DNSBATCH_CORE_PACING_H
#define DNSBATCH_CORE_PACING_H

#include "dnsbatch/provider.h"

/** The time before which no request may leave for `p` (0 when never held). Thread-safe. */
double dnsb_pacing_not_before(dnsb_provider *p);

/** Hold every request to `p` until `until` (a later hold wins; an earlier one is ignored). Thread-safe. */
void dnsb_pacing_hold(dnsb_provider *p, double until);

#endif
