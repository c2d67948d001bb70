/*
 * quarantine.c - per-group backoff for groups dropped for conflict (docs/design.md §5.3),
 * and with the same backoff the memory of drops already logged (noted entries).
 */
#include <pthread.h>
#include <stdio.h>
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
	unsigned long noted; /* a noted drop (dnsb_quarantine_note): the generation that last logged it; 0 = a held group */
	dnsb_held_record *desc; /* what the group is and what is in its way (dnsb_quarantine_describe), or NULL */
	double first, last; /* wall clock seconds it was first and last held */
	unsigned attempts;  /* times it was held: tried and refused */
} entry;

struct dnsb_quarantine {
	pthread_mutex_t lock;
	dnsb_hmap map;
	double initial, max;
	unsigned long generation;
	size_t notes;       /* noted entries in map */
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
	dnsb_held_record_free(e->desc);
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
		n += ((entry *)value)->noted == 0 && ((entry *)value)->until > now;
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

/* A new entry for key in zone, backoff initial. Under the lock. @return it, or NULL (ENOMEM) */
static entry *entry_add(dnsb_quarantine *q, const char *key, const char *zone)
{
	entry *e;

	if ((e = calloc(1, sizeof(*e))) == NULL || (e->key = strdup(key)) == NULL ||
	    (e->zone = strdup(zone)) == NULL || dnsb_hmap_put(&q->map, e->key, e) < 0) {
		if (e)
			entry_free(e);
		return NULL;
	}
	e->backoff = q->initial;
	return e;
}

static void entry_double(dnsb_quarantine *q, entry *e)
{
	e->backoff = e->backoff * 2 > q->max ? q->max : e->backoff * 2;
}

int dnsb_quarantine_hold(dnsb_quarantine *q, const char *key, const char *zone, unsigned long token, double now,
			 double *held_for)
{
	entry *e;
	int rc = 1;

	pthread_mutex_lock(&q->lock);
	if ((e = dnsb_hmap_get(&q->map, key)) != NULL) {
		entry_double(q, e);
	} else if ((e = entry_add(q, key, zone)) == NULL) {
		pthread_mutex_unlock(&q->lock);
		return DNSB_ENOMEM;
	} else {
		rc = 0;
	}
	e->until = now + e->backoff;
	e->seen = token;
	if (held_for)
		*held_for = e->backoff;
	pthread_mutex_unlock(&q->lock);
	return rc;
}

int dnsb_quarantine_release(dnsb_quarantine *q, const char *key)
{
	entry *e;

	pthread_mutex_lock(&q->lock);
	if ((e = dnsb_hmap_remove(&q->map, key)) != NULL) {
		q->notes -= e->noted != 0;
		entry_free(e);
	}
	pthread_mutex_unlock(&q->lock);
	return e != NULL;
}

int dnsb_quarantine_note(dnsb_quarantine *q, const char *key, const char *zone, unsigned long token, double now)
{
	entry *e;
	int news = 1;

	pthread_mutex_lock(&q->lock);
	if ((e = dnsb_hmap_get(&q->map, key)) != NULL) {
		e->seen = token;
		if (e->noted == token) {
			news = 1;       /* another change of the apply that noted it: each is logged */
		} else if (e->until > now) {
			news = 0;
		} else {
			entry_double(q, e);
			e->until = now + e->backoff;
			e->noted = token;
		}
	} else if (q->notes < QUARANTINE_NOTES_MAX) {
		if ((e = entry_add(q, key, zone)) == NULL) {
			pthread_mutex_unlock(&q->lock);
			return DNSB_ENOMEM;
		}
		e->until = now + e->backoff;
		e->seen = e->noted = token;
		q->notes++;
	}
	pthread_mutex_unlock(&q->lock);
	return news;
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
		q->notes -= gone[i]->noted != 0;
		entry_free(gone[i]);
	}
	free(gone); /* out of memory: nothing is forgotten this time, the next end does it */
	pthread_mutex_unlock(&q->lock);
}

void dnsb_quarantine_describe(dnsb_quarantine *q, const char *key, dnsb_held_record *desc, double wall)
{
	entry *e;

	pthread_mutex_lock(&q->lock);
	if ((e = dnsb_hmap_get(&q->map, key)) != NULL && e->noted == 0) {
		dnsb_held_record_free(e->desc);
		e->desc = desc;
		desc = NULL;
		if (e->attempts++ == 0)
			e->first = wall;
		e->last = wall;
	}
	pthread_mutex_unlock(&q->lock);
	dnsb_held_record_free(desc);
}

/* Newest first: by last seen, descending. */
static int by_last(const void *a, const void *b)
{
	const entry *x = *(const entry *const *)a, *y = *(const entry *const *)b;

	return (x->last < y->last) - (x->last > y->last);
}

int dnsb_quarantine_each(dnsb_quarantine *q, double now, int (*fn)(const dnsb_quarantine_view *v, void *payload),
			 void *payload)
{
	size_t it = 0, n = 0;
	const char *key;
	void *value;
	entry **held;
	int rc = 0;

	pthread_mutex_lock(&q->lock);
	held = malloc((q->map.count ? q->map.count : 1) * sizeof(*held));
	while (held && dnsb_hmap_next(&q->map, &it, &key, &value))
		if (((entry *)value)->noted == 0 && ((entry *)value)->until > now)
			held[n++] = value;
	if (held) {
		qsort(held, n, sizeof(*held), by_last);
		for (size_t i = 0; rc == 0 && i < n; i++) {
			const entry *e = held[i];
			dnsb_quarantine_view v = { e->zone, e->desc, e->first, e->last, e->attempts, e->until - now, e->backoff };
			rc = fn(&v, payload);
		}
	} else {
		rc = DNSB_ENOMEM;
	}
	pthread_mutex_unlock(&q->lock);
	free(held);
	return rc;
}
