/*
 * listing.c - one listing per zone per external-dns loop. A loop sends GET
 * /records (every zone listed), then POST /adjustendpoints, then POST
 * /records, whose safety thresholds count the zone's RRsets (threshold.c):
 * a second listing of the same zone a moment after the first. The count of
 * the GET's listing is kept here, with its start on the engine's clock, and
 * stands for the POST's count while it is at most listing_max_age old
 * (docs/sidecar.md). It is only a count, for a guard rail: a listing a few
 * seconds old is off by what another writer changed meanwhile, and no
 * outcome is ever judged from it. A POST that applied to the zone makes the
 * listing stale (the generation), even one still running when it ended.
 */
#include <pthread.h>
#include <stdlib.h>

#include "dnsbatch/log.h"
#include "dnsbatch/sys/provider.h"
#include "applier/webhook/internal.h"

int dnsb_webhook_listings_init(dnsb_webhook *wh, const dnsb_webhook_options *opts)
{
	double age = opts->version >= 6 ? opts->listing_max_age : 0;

	wh->listing_max_age = age == 0 ? DNSB_WEBHOOK_LISTING_MAX_AGE_DEFAULT : age;
	wh->listings = calloc(wh->zone_count ? wh->zone_count : 1, sizeof(*wh->listings));
	if (wh->listings == NULL)
		return DNSB_ENOMEM;
	pthread_mutex_init(&wh->listing_lock, NULL);
	if (wh->listing_max_age > 0) {
		wh->engine.recent_count = dnsb_webhook_recent_count;
		wh->engine.recent_payload = wh;
	}
	return 0;
}

void dnsb_webhook_listings_free(dnsb_webhook *wh)
{
	if (wh->listings)
		pthread_mutex_destroy(&wh->listing_lock);
	free(wh->listings);
	wh->listings = NULL;
}

unsigned long dnsb_webhook_listing_begin(dnsb_webhook *wh, size_t z)
{
	unsigned long gen;

	if (z >= wh->zone_count)
		return 0;
	pthread_mutex_lock(&wh->listing_lock);
	gen = wh->listings[z].gen;
	pthread_mutex_unlock(&wh->listing_lock);
	return gen;
}

void dnsb_webhook_listing_note(dnsb_webhook *wh, size_t z, unsigned long gen, double at, size_t rrsets)
{
	struct zone_listing *l;

	if (z >= wh->zone_count)
		return;
	l = &wh->listings[z];
	pthread_mutex_lock(&wh->listing_lock);
	if (l->gen == gen && (!l->known || at >= l->at)) { /* the newest listing wins */
		l->rrsets = rrsets;
		l->at = at;
		l->known = 1;
	}
	pthread_mutex_unlock(&wh->listing_lock);
}

void dnsb_webhook_listing_forget(dnsb_webhook *wh, const unsigned char *touched)
{
	pthread_mutex_lock(&wh->listing_lock);
	for (size_t z = 0; z < wh->zone_count; z++)
		if (touched[z]) {
			wh->listings[z].gen++;
			wh->listings[z].known = 0;
		}
	pthread_mutex_unlock(&wh->listing_lock);
}

int dnsb_webhook_recent_count(void *payload, const char *zone, double now, size_t *rrsets)
{
	dnsb_webhook *wh = payload;
	long z = dnsb_provider_zone_for(wh->provider, zone);
	int fresh = 0;
	double age = 0;

	if (z < 0 || (size_t)z >= wh->zone_count)
		return 0;
	pthread_mutex_lock(&wh->listing_lock);
	age = now - wh->listings[z].at;
	if (wh->listings[z].known && age >= 0 && age <= wh->listing_max_age) {
		*rrsets = wh->listings[z].rrsets;
		fresh = 1;
	}
	pthread_mutex_unlock(&wh->listing_lock);
	if (fresh)
		dnsb_log(DNSB_LOG_DEBUG, "safety thresholds: zone %s counted from GET /records' listing of %.1f s ago "
			 "(%zu RRsets)", zone, age, *rrsets);
	return fresh;
}
