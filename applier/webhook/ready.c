/*
 * ready.c - what the provider's answers tell the server: it is ready once the
 * provider answered (a read, a list or an apply; /healthz turns 200), and the
 * class of an answer as a metrics label. The floor under apply.c, records.c
 * and health.c, which each call it and which it calls none of.
 */
#include <pthread.h>

#include "dnsbatch/log.h"
#include "dnsbatch/sys/provider.h"
#include "dnsbatch/webhook.h"
#include "applier/webhook/internal.h"

void dnsb_webhook_set_ready(dnsb_webhook *wh, const char *why)
{
	int was;
	pthread_mutex_lock(&wh->lock);
	was = wh->ready;
	wh->ready = 1;
	pthread_mutex_unlock(&wh->lock);
	if (!was)
		dnsb_log(DNSB_LOG_INFO, "provider %s answered (%s): ready", dnsb_provider_name(wh->provider), why);
}

int dnsb_webhook_ready(dnsb_webhook *wh)
{
	int r;
	pthread_mutex_lock(&wh->lock);
	r = wh->ready;
	pthread_mutex_unlock(&wh->lock);
	return r;
}

const char *dnsb_webhook_class_of(int rc)
{
	switch (rc) {
	case 0: return "ok";
	case DNSB_ETRANSIENT: return "transient";
	case DNSB_ERATELIMIT: return "rate_limited";
	case DNSB_EFATAL: return "fatal";
	default: return "error";
	}
}
