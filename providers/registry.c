/* registry.c - provider handles: allocation, zones, counters, the backend table. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dnsbatch/sys/provider.h"
#include "applier/core/clock.h"

static const dnsb_backend *const backends[] = {
	&dnsb_backend_zonefile,
	&dnsb_backend_memory,
	&dnsb_backend_rfc2136,
	NULL
};

const dnsb_backend *const *dnsb_backends(void)
{
	return backends;
}

const dnsb_backend *dnsb_backend_find(const char *name)
{
	for (size_t i = 0; backends[i]; i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}

int dnsb_provider_open(dnsb_provider **out, const char *name, const dnsb_config *cfg, dnsb_error *err)
{
	const dnsb_backend *b = dnsb_backend_find(name);

	*out = NULL;
	if (b == NULL)
		return dnsb_error_set(err, DNSB_ENOTFOUND, "unknown provider '%s' (known: zonefile, memory, rfc2136)",
				      name);
	return b->open(out, cfg, err);
}

int dnsb_provider_alloc(dnsb_provider **out, const dnsb_provider_ops *ops, void *state)
{
	dnsb_provider *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (p == NULL) {
		ops->close(state);
		return DNSB_ENOMEM;
	}
	p->ops = ops;
	p->state = state;
	pthread_mutex_init(&p->pacer.lock, NULL);
	pthread_mutex_init(&p->stats_lock, NULL);
	*out = p;
	return 0;
}

void dnsb_provider_free(dnsb_provider *p)
{
	if (p == NULL)
		return;
	if (p->ops && p->ops->close)
		p->ops->close(p->state);
	for (size_t i = 0; i < p->zone_count; i++)
		free(p->zones[i]);
	free(p->zones);
	pthread_mutex_destroy(&p->pacer.lock);
	pthread_mutex_destroy(&p->stats_lock);
	free(p);
}

int dnsb_provider_add_zone(dnsb_provider *p, const char *zone, dnsb_error *err)
{
	char *apex, **grown;
	int rc;

	if ((rc = dnsb_name_canonical(&apex, zone, err)) < 0)
		return rc;
	for (size_t i = 0; i < p->zone_count; i++) {
		if (strcmp(p->zones[i], apex) == 0) {
			free(apex);
			return dnsb_error_set(err, DNSB_EINVAL, "zone %s is configured twice", zone);
		}
	}
	if ((grown = realloc(p->zones, (p->zone_count + 1) * sizeof(char *))) == NULL) {
		free(apex);
		return DNSB_ENOMEM;
	}
	p->zones = grown;
	p->zones[p->zone_count++] = apex;
	return 0;
}

const char *dnsb_provider_name(const dnsb_provider *p)
{
	return p->ops->name;
}

size_t dnsb_provider_zone_count(const dnsb_provider *p)
{
	return p->zone_count;
}

const char *dnsb_provider_zone(const dnsb_provider *p, size_t i)
{
	return i < p->zone_count ? p->zones[i] : NULL;
}

long dnsb_provider_zone_for(const dnsb_provider *p, const char *owner)
{
	long best = -1;
	size_t best_len = 0;

	for (size_t i = 0; i < p->zone_count; i++) {
		size_t len = strlen(p->zones[i]);
		if ((best < 0 || len > best_len) && dnsb_name_in_zone(owner, p->zones[i])) {
			best = (long)i;
			best_len = len;
		}
	}
	return best;
}


static void count(dnsb_provider *p, unsigned long *counter)
{
	pthread_mutex_lock(&p->stats_lock);
	(*counter)++;
	pthread_mutex_unlock(&p->stats_lock);
}

int dnsb_provider_submit(dnsb_provider *p, const char *zone, dnsb_change *const *changes, size_t n,
			 dnsb_result *out, double *seconds, dnsb_error *err)
{
	double start = dnsb_monotonic();
	int rc;

	dnsb_result_init(out);
	count(p, &p->submissions);
	rc = p->ops->submit(p->state, zone, changes, n, out, err);
	if (seconds)
		*seconds = dnsb_monotonic() - start;
	return rc;
}

int dnsb_provider_read(dnsb_provider *p, const char *zone, const dnsb_rrkey *keys, size_t n,
		       dnsb_rrset_list *out, double *seconds, dnsb_error *err)
{
	double start = dnsb_monotonic();
	int rc;

	count(p, &p->reads);
	rc = p->ops->read(p->state, zone, keys, n, out, err);
	if (seconds)
		*seconds = dnsb_monotonic() - start;
	return rc;
}

int dnsb_provider_list(dnsb_provider *p, const char *zone, dnsb_rrset_list *out, dnsb_error *err)
{
	char *apex;
	int rc, known = 0;

	if ((rc = dnsb_name_canonical(&apex, zone, err)) < 0)
		return rc;
	for (size_t i = 0; i < p->zone_count; i++)
		known |= strcmp(p->zones[i], apex) == 0;
	if (!known) {
		free(apex);
		return dnsb_error_set(err, DNSB_ENOTFOUND, "zone %s is not configured for provider %s", zone,
				      p->ops->name);
	}
	count(p, &p->reads);
	rc = p->ops->list(p->state, apex, out, err);
	free(apex);
	return rc;
}

static unsigned long read_counter(dnsb_provider *p, unsigned long *counter)
{
	unsigned long v;

	pthread_mutex_lock(&p->stats_lock);
	v = *counter;
	pthread_mutex_unlock(&p->stats_lock);
	return v;
}

unsigned long dnsb_provider_submissions(dnsb_provider *p)
{
	return read_counter(p, &p->submissions);
}

unsigned long dnsb_provider_reads(dnsb_provider *p)
{
	return read_counter(p, &p->reads);
}
