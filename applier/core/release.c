/* release.c - the held sets an operator may release by digest (dnsbatch/threshold.h), for the sidecar. */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/common.h"
#include "dnsbatch/threshold.h"
#include "applier/core/array.h"

typedef struct held_set {
	char digest[65];
	char zone[256];
	double noted;     /* Unix seconds it was last held */
	double released;  /* Unix seconds a grant ends; 0 = none */
} held_set;

struct dnsb_release {
	pthread_mutex_t lock;
	double ttl;
	held_set *sets;
	size_t count, cap;
};

int dnsb_release_new(dnsb_release **out, double ttl)
{
	dnsb_release *r;

	*out = NULL;
	if (!(ttl > 0))
		return DNSB_EINVAL;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return DNSB_ENOMEM;
	pthread_mutex_init(&r->lock, NULL);
	r->ttl = ttl;
	*out = r;
	return 0;
}

void dnsb_release_free(dnsb_release *r)
{
	if (r == NULL)
		return;
	pthread_mutex_destroy(&r->lock);
	free(r->sets);
	free(r);
}

/* The entry of `digest`, after forgetting those neither held nor released within ttl. Lock held. */
static held_set *find(dnsb_release *r, const char *digest, double now)
{
	size_t k = 0;
	held_set *hit = NULL;

	for (size_t i = 0; i < r->count; i++)
		if (now - r->sets[i].noted <= r->ttl || r->sets[i].released > now)
			r->sets[k++] = r->sets[i];
	r->count = k;
	for (size_t i = 0; i < r->count && hit == NULL; i++)
		if (strcmp(r->sets[i].digest, digest) == 0)
			hit = &r->sets[i];
	return hit;
}

static int hex64(const char *s)
{
	size_t n = 0;

	while (s && isxdigit((unsigned char)s[n]))
		n++;
	return s && n == 64 && s[n] == '\0';
}

int dnsb_release_note(dnsb_release *r, const char *digest, const char *zone, double now)
{
	held_set *h;
	int rc = 0;

	if (r == NULL || !hex64(digest))
		return 0;
	pthread_mutex_lock(&r->lock);
	if ((h = find(r, digest, now)) == NULL) {
		if (DNSB_ARRAY_RESERVE(r->sets, r->cap, r->count + 1, 8) < 0) {
			rc = DNSB_ENOMEM;
		} else {
			h = &r->sets[r->count++];
			memset(h, 0, sizeof(*h));
			memcpy(h->digest, digest, 65);
			strncpy(h->zone, zone ? zone : "", sizeof(h->zone) - 1);
		}
	}
	if (h != NULL)
		h->noted = now;
	pthread_mutex_unlock(&r->lock);
	return rc;
}

int dnsb_release_grant(dnsb_release *r, const char *digest, double now, char *zone, size_t zone_size)
{
	held_set *h;

	if (!hex64(digest))
		return DNSB_EINVAL;
	pthread_mutex_lock(&r->lock);
	h = find(r, digest, now);
	if (h != NULL) {
		h->released = now + r->ttl;
		if (zone && zone_size > 0) {
			strncpy(zone, h->zone, zone_size - 1);
			zone[zone_size - 1] = '\0';
		}
	}
	pthread_mutex_unlock(&r->lock);
	return h ? 0 : DNSB_ENOTFOUND;
}

int dnsb_release_take(dnsb_release *r, const char *digest, double now)
{
	held_set *h;
	int granted = 0;

	if (r == NULL || !hex64(digest))
		return 0;
	pthread_mutex_lock(&r->lock);
	h = find(r, digest, now);
	if (h != NULL && h->released > now) {
		granted = 1;
		*h = r->sets[--r->count]; /* used once */
	}
	pthread_mutex_unlock(&r->lock);
	return granted;
}
