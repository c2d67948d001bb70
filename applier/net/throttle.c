/* throttle.c - the transport's throttle chain: the header pacer, then the rate budget (applier/net/throttle.h). */
#include "applier/net/ratelimit.h"
#include "applier/net/throttle.h"

int dnsb_throttle_pace(dnsb_throttle *t, const char *method, double now, double give_up, double *wait,
		       dnsb_error *err)
{
	double paced = t->pacer.reserve ? t->pacer.reserve(t->pacer.state, method, now, give_up) : 0;

	*wait = paced;
	if (paced > DNSB_THROTTLE_CAP || (paced > 0 && give_up > 0 && now + paced > give_up))
		return dnsb_error_set(err, DNSB_ERATELIMIT, "%s: not sent: %s %.1f s%s", method, t->pacer.held[0], paced,
				      t->pacer.held[1]);
	return 0;
}

int dnsb_throttle_budget(dnsb_throttle *t, const char *method, const char *url, double budget_left, double *wait,
			 dnsb_error *err)
{
	*wait = 0;
	if (t->budget && dnsb_budget_reserve(t->budget, budget_left, wait) != 0)
		return dnsb_error_set(err, DNSB_ERATELIMIT, "%s %s: not sent: the account's rate budget has no request "
				      "slot within the %.3g s left", method, url, budget_left > 0 ? budget_left : DNSB_THROTTLE_CAP);
	return 0;
}

void dnsb_throttle_note(dnsb_throttle *t, const char *method, const dnsb_http_response *resp, double now)
{
	int fell = t->pacer.note ? t->pacer.note(t->pacer.state, method, resp, now) : 0;

	if (t->budget && fell)
		dnsb_budget_throttled(t->budget);
	if (t->budget && resp->status == 429)
		dnsb_budget_throttled(t->budget);
}

void dnsb_throttle_throttled(dnsb_throttle *t)
{
	if (t->budget)
		dnsb_budget_throttled(t->budget);
}
