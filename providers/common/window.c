/* window.c - a provider's announced request window and its pace (window.h). */
#include <string.h>

#include "applier/core/backoff.h"
#include "providers/common/backend.h"
#include "providers/common/window.h"

void dnsb_window_init(dnsb_window *w, double low_share)
{
	memset(w, 0, sizeof(*w));
	pthread_mutex_init(&w->lock, NULL);
	w->low_share = low_share;
	w->remaining = -1;
	w->ready = 1;
}

void dnsb_window_clear(dnsb_window *w)
{
	if (w->ready)
		pthread_mutex_destroy(&w->lock);
	w->ready = 0;
}

/* Fewer than this many left: spread what is left (the share of the limit, at least 1; 10 when unknown). */
static double low_water(const dnsb_window *w)
{
	double lw = w->limit * w->low_share;

	return w->limit > 0 ? (lw > 1 ? lw : 1) : 10;
}

double dnsb_window_reserve(dnsb_window *w, double now, double give_up, double cap)
{
	double start = now;
	int known;

	pthread_mutex_lock(&w->lock);
	if ((known = w->remaining >= 0 && now < w->reset_at)) {
		if (w->remaining < 1)
			start = w->reset_at;
		else if (w->remaining < low_water(w))
			start = w->last + (w->reset_at - now) / w->remaining;
		if (start < now)
			start = now;
	}
	/* Not sent (the caller's test, on the same numbers): nothing spent, nobody held back. */
	if (start - now > cap || (give_up > 0 && start > give_up)) {
		pthread_mutex_unlock(&w->lock);
		return start - now;
	}
	if (known && w->remaining >= 1)
		w->remaining -= 1; /* this one (none left stays none, not unknown); the reply says again */
	if (start > now) {
		w->slowed++;
		w->waited += start - now;
	}
	w->last = start;
	pthread_mutex_unlock(&w->lock);
	return start - now;
}

double dnsb_window_room(dnsb_window *w, double need, double now)
{
	double wait = 0;

	pthread_mutex_lock(&w->lock);
	if (w->limit > 0 && need > w->limit / 2)
		need = w->limit / 2; /* more than half the window waits for nothing it could ever have */
	if (w->remaining >= 0 && now < w->reset_at && w->remaining < need)
		wait = w->reset_at - now;
	pthread_mutex_unlock(&w->lock);
	return wait;
}

int dnsb_window_note(dnsb_window *w, double remaining, double reset_in, double limit, double hold, double now)
{
	int fell = 0;

	pthread_mutex_lock(&w->lock);
	if (limit > 0)
		w->limit = limit;
	if (remaining >= 0) {
		fell = !w->low && remaining < low_water(w);
		w->low = remaining < low_water(w);
		w->remaining = remaining;
		w->reset_at = now + (reset_in > 1 ? reset_in : 1);
	}
	if (hold > 0) { /* nothing more until it has passed, reads and writes alike */
		w->throttled++;
		w->remaining = 0;
		w->reset_at = now + dnsb_retry_after_wait(0, hold, DNSB_HB_THROTTLE_CAP);
	}
	pthread_mutex_unlock(&w->lock);
	return fell;
}
