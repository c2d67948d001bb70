/* interval.c - a provider's own submission interval (providers/interval.h). */
#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "providers/interval.h"

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
	double now, slot;

	if (!(iv->every > 0))
		return 0;
	pthread_mutex_lock(&iv->lock);
	now = dnsb_monotonic();
	slot = iv->next > now ? iv->next : now;
	if (give_up > 0 && slot >= give_up) {
		pthread_mutex_unlock(&iv->lock);
		return dnsb_error_set(err, DNSB_ETRANSIENT, "no time left before the next submission slot (--%s %g s)",
				      iv->flag, iv->every);
	}
	iv->next = slot + iv->every;
	pthread_mutex_unlock(&iv->lock);
	if (dnsb_stop_sleep(slot - now)) /* a stop (a signal) ends the wait: not sent */
		return dnsb_error_set(err, DNSB_ERATELIMIT, "not sent: the apply was stopped while it waited for the "
				      "next submission slot (--%s %g s)", iv->flag, iv->every);
	return 0;
}
