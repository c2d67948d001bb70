/*
 * interval.c - a provider's own submission interval (applier/net/interval.h):
 * the rate budget's local bucket (dnsb_budget_gcra) at one submission per
 * `every` seconds, burst 1.
 */
#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "applier/net/interval.h"
#include "applier/net/ratelimit.h"

void dnsb_interval_init(dnsb_interval *iv, double every, const char *flag)
{
	iv->every = every;
	iv->flag = flag;
	iv->next = 0;
	pthread_mutex_init(&iv->lock, NULL);
}

void dnsb_interval_clear(dnsb_interval *iv)
{
	pthread_mutex_destroy(&iv->lock);
}

int dnsb_interval_wait(dnsb_interval *iv, double give_up, dnsb_error *err)
{
	double now, wait;

	if (!(iv->every > 0))
		return 0;
	pthread_mutex_lock(&iv->lock);
	now = dnsb_monotonic();
	/* A slot at or after give_up takes nothing (the bucket's max_wait, just under what is left). */
	wait = dnsb_budget_gcra(&iv->next, now, 1.0 / iv->every, 1.0, give_up > 0 ? give_up - now : 0);
	if (give_up > 0 && (wait < 0 || now + wait >= give_up)) {
		if (wait >= 0)
			iv->next -= iv->every; /* the slot at give_up itself: given back */
		pthread_mutex_unlock(&iv->lock);
		return dnsb_error_set(err, DNSB_ETRANSIENT, "no time left before the next submission slot (--%s %g s)",
				      iv->flag, iv->every);
	}
	pthread_mutex_unlock(&iv->lock);
	if (dnsb_stop_sleep(wait)) /* a stop (a signal) ends the wait: not sent */
		return dnsb_error_set(err, DNSB_ERATELIMIT, "not sent: the apply was stopped while it waited for the "
				      "next submission slot (--%s %g s)", iv->flag, iv->every);
	return 0;
}
