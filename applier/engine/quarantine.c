/* quarantine.c - per-group backoff for groups dropped for conflict (DESIGN §5). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/hmap.h"
#include "applier/engine/quarantine.h"

typedef struct entry {
	char *key;
	char *zone;
	double backoff;     /* seconds, the current hold */
	double until;       /* clock seconds */
	unsigned long seen; /* generation it was last seen in */
} entry;

struct dnsb_quarantine {
	pthread_mutex_t lock;
	dnsb_hmap map;
	double initial, max;
	unsigned long generation;
};

int dnsb_quarantine_new(dnsb_quarantine **out, double initial, double max)
{
	dnsb_quarantine *q;

	*out = NULL;
	if (!(initial > 0) || !(max >= initial))
		return DNSB_EINVAL;
	if ((q = calloc(1, sizeof(*q))) == NULL)
		return DNSB_ENOMEM;
	pthread_mutex_init(&q->lock, NULL);
	q->initial = initial;
	q->max = max;
	*out = q;
	return 0;
}

static void entry_free(entry *e)
{
	free(e->key);
	free(e->zone);
	free(e);
}

void dnsb_quarantine_free(dnsb_quarantine *q)
{
	size_t it = 0;
	const char *key;
	void *value;

	if (q == NULL)
		return;
	while (dnsb_hmap_next(&q->map, &it, &key, &value))
		entry_free(value);
	dnsb_hmap_clear(&q->map);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

size_t dnsb_quarantine_count(dnsb_quarantine *q, double now)
{
	size_t it = 0, n = 0;
	const char *key;
	void *value;

	pthread_mutex_lock(&q->lock);
	while (dnsb_hmap_next(&q->map, &it, &key, &value))
		n += ((entry *)value)->until > now;
	pthread_mutex_unlock(&q->lock);
	return n;
}

unsigned long dnsb_quarantine_begin(dnsb_quarantine *q)
{
	unsigned long token;

	pthread_mutex_lock(&q->lock);
	token = ++q->generation;
	pthread_mutex_unlock(&q->lock);
	return token;
}

int dnsb_quarantine_check(dnsb_quarantine *q, const char *key, unsigned long token, double now)
{
	entry *e;
	int held = 0;

	pthread_mutex_lock(&q->lock);
	if ((e = dnsb_hmap_get(&q->map, key)) != NULL) {
		e->seen = token;
		held = e->until > now;
	}
	pthread_mutex_unlock(&q->lock);
	return held;
}

int dnsb_quarantine_hold(dnsb_quarantine *q, const char *key, const char *zone, unsigned long token, double now)
{
	entry *e;
	int rc = 0;

	pthread_mutex_lock(&q->lock);
	if ((e = dnsb_hmap_get(&q->map, key)) != NULL) {
		e->backoff = e->backoff * 2 > q->max ? q->max : e->backoff * 2;
	} else if ((e = calloc(1, sizeof(*e))) == NULL || (e->key = strdup(key)) == NULL ||
		   (e->zone = strdup(zone)) == NULL || dnsb_hmap_put(&q->map, e->key, e) < 0) {
		if (e)
			entry_free(e);
		rc = DNSB_ENOMEM;
		goto done;
	} else {
		e->backoff = q->initial;
	}
	e->until = now + e->backoff;
	e->seen = token;
done:
	pthread_mutex_unlock(&q->lock);
	return rc;
}

void dnsb_quarantine_release(dnsb_quarantine *q, const char *key)
{
	entry *e;

	pthread_mutex_lock(&q->lock);
	if ((e = dnsb_hmap_remove(&q->map, key)) != NULL)
		entry_free(e);
	pthread_mutex_unlock(&q->lock);
}

static int zone_listed(const char *zone, const char *const *zones, size_t nzones)
{
	for (size_t i = 0; i < nzones; i++)
		if (strcmp(zones[i], zone) == 0)
			return 1;
	return 0;
}

void dnsb_quarantine_end(dnsb_quarantine *q, unsigned long token, const char *const *zones, size_t nzones)
{
	size_t it = 0, n = 0;
	const char *key;
	void *value;
	entry **gone;

	pthread_mutex_lock(&q->lock);
	/* Collect first, then remove: a removal shifts slots under the iterator. One pass, not one per removal. */
	gone = malloc((q->map.count ? q->map.count : 1) * sizeof(*gone));
	while (gone && dnsb_hmap_next(&q->map, &it, &key, &value)) {
		entry *e = value;
		if (e->seen != token && zone_listed(e->zone, zones, nzones))
			gone[n++] = e;
	}
	for (size_t i = 0; i < n; i++) {
		dnsb_hmap_remove(&q->map, gone[i]->key);
		entry_free(gone[i]);
	}
	free(gone); /* out of memory: nothing is forgotten this time, the next end does it */
	pthread_mutex_unlock(&q->lock);
}
