/*
 * provider.c - the provider handle: backend ops and state, zone apexes,
 * declared limits, request counters and the pacing shared by every batch
 * sent to one provider (the struct is private to this file); and the small
 * helpers backends share (sys/provider.h): read-key planning, old TTLs,
 * secrets freed.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/provider.h"
#include "applier/core/clock.h"
#include "applier/core/provider.h"
#include "applier/core/pacing.h"

struct dnsb_provider {
	const dnsb_provider_ops *ops;
	void *state;              /* owned by the backend, released by ops->close */
	char **zones;             /* zone apexes, absolute lower-case; owned */
	size_t zone_count;
	dnsb_provider_limits limits;
	pthread_mutex_t lock;     /* guards the counters and the pacing */
	unsigned long submissions;
	unsigned long reads;      /* read and list calls */
	double not_before;        /* pacing, on the clock of the engine that set it */
};

int dnsb_provider_alloc(dnsb_provider **out, const dnsb_provider_ops *ops, void *state)
{
	dnsb_provider *p;

	*out = NULL;
	if (ops->version != DNSB_PROVIDER_OPS_VERSION) {
		ops->close(state);
		return DNSB_EINVAL;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		ops->close(state);
		return DNSB_ENOMEM;
	}
	p->ops = ops;
	p->state = state;
	pthread_mutex_init(&p->lock, NULL);
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
	pthread_mutex_destroy(&p->lock);
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
		return dnsb_error_set(err, DNSB_ENOMEM, "zone %s: out of memory", zone);
	}
	p->zones = grown;
	p->zones[p->zone_count++] = apex;
	return 0;
}

size_t dnsb_provider_retain_zones(dnsb_provider *p, int (*keep)(void *ctx, const char *apex), void *ctx)
{
	size_t kept = 0;

	for (size_t i = 0; i < p->zone_count; i++) {
		if (keep(ctx, p->zones[i]))
			p->zones[kept++] = p->zones[i];
		else
			free(p->zones[i]);
	}
	p->zone_count = kept;
	return kept;
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
	pthread_mutex_lock(&p->lock);
	(*counter)++;
	pthread_mutex_unlock(&p->lock);
}

int dnsb_provider_submit(dnsb_provider *p, const char *zone, dnsb_change *const *changes, size_t n,
			 double timeout, dnsb_result *out, double *seconds, dnsb_error *err)
{
	double start = dnsb_monotonic();
	int rc;

	dnsb_result_init(out);
	count(p, &p->submissions);
	rc = p->ops->submit(p->state, zone, changes, n, timeout > 0 ? timeout : 0, out, err);
	if (seconds)
		*seconds = dnsb_monotonic() - start;
	return rc;
}

int dnsb_provider_flush(dnsb_provider *p, const char *zone, int hold, double timeout, dnsb_error *err)
{
	if (p->ops->flush == NULL)
		return 0;
	return p->ops->flush(p->state, zone, hold, timeout > 0 ? timeout : 0, err);
}

int dnsb_provider_read(dnsb_provider *p, const char *zone, const dnsb_rrkey *keys, size_t n,
		       double timeout, dnsb_rrset_list *out, double *seconds, dnsb_error *err)
{
	double start = dnsb_monotonic();
	int rc;

	count(p, &p->reads);
	rc = p->ops->read(p->state, zone, keys, n, timeout > 0 ? timeout : 0, out, err);
	if (seconds)
		*seconds = dnsb_monotonic() - start;
	return rc;
}

int dnsb_provider_list(dnsb_provider *p, const char *zone, dnsb_rrset_list *out, dnsb_error *err)
{
	return dnsb_provider_list_within(p, zone, 0, out, err);
}

int dnsb_provider_list_within(dnsb_provider *p, const char *zone, double timeout, dnsb_rrset_list *out,
			      dnsb_error *err)
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
	rc = p->ops->list(p->state, apex, timeout, out, err);
	free(apex);
	return rc;
}

static unsigned long read_counter(dnsb_provider *p, unsigned long *counter)
{
	unsigned long v;

	pthread_mutex_lock(&p->lock);
	v = *counter;
	pthread_mutex_unlock(&p->lock);
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

void dnsb_provider_set_limits(dnsb_provider *p, const dnsb_provider_limits *limits)
{
	p->limits = *limits;
}

const dnsb_provider_limits *dnsb_provider_get_limits(const dnsb_provider *p)
{
	return &p->limits;
}

void *dnsb_provider_state(const dnsb_provider *p, const dnsb_provider_ops *ops)
{
	return p != NULL && p->ops == ops ? p->state : NULL;
}

double dnsb_pacing_not_before(dnsb_provider *p)
{
	double t;

	pthread_mutex_lock(&p->lock);
	t = p->not_before;
	pthread_mutex_unlock(&p->lock);
	return t;
}

void dnsb_pacing_hold(dnsb_provider *p, double until)
{
	pthread_mutex_lock(&p->lock);
	if (until > p->not_before)
		p->not_before = until;
	pthread_mutex_unlock(&p->lock);
}

int dnsb_rrkeys_want(const dnsb_rrkey *keys, size_t n, const char *owner, uint16_t type)
{
	for (size_t i = 0; i < n; i++)
		if ((keys[i].type == type || keys[i].type == DNSB_RRKEY_ANY) && strcmp(keys[i].owner, owner) == 0)
			return 1;
	return n == 0;
}

size_t dnsb_rrkeys_owners(const dnsb_rrkey *keys, size_t n, const char **owners, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < k && strcmp(owners[j], keys[i].owner) != 0)
			j++;
		if (j < k)
			continue;
		if (k == max)
			return max + 1;
		owners[k++] = keys[i].owner;
	}
	return k;
}

uint16_t dnsb_rrkeys_only_type(const dnsb_rrkey *keys, size_t n, const char *owner)
{
	uint16_t type = 0;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(keys[i].owner, owner) != 0)
			continue;
		if (keys[i].type == DNSB_RRKEY_ANY || (type && keys[i].type != type))
			return 0;
		type = keys[i].type;
	}
	return type;
}

uint32_t dnsb_old_ttl(const dnsb_rrset *old, const dnsb_rrset_list *held)
{
	const dnsb_rrset *cur;

	if (old->ttl != DNSB_TTL_UNSET || held == NULL)
		return old->ttl;
	cur = dnsb_rrset_list_find_set(held, old->owner, old->type, old->set_id);
	return cur ? cur->ttl : old->ttl;
}

int dnsb_unset_ttl_keys(dnsb_rrkey **keys, size_t *count, dnsb_change *const *changes, size_t n)
{
	*keys = NULL;
	*count = 0;
	for (size_t i = 0; i < n; i++) {
		if (changes[i]->kind == DNSB_CHANGE_CREATE || changes[i]->old.ttl != DNSB_TTL_UNSET ||
		    changes[i]->old.alias != DNSB_ALIAS_NONE)
			continue;
		if (*keys == NULL && (*keys = malloc(n * sizeof(**keys))) == NULL)
			return DNSB_ENOMEM;
		(*keys)[(*count)++] = (dnsb_rrkey){ changes[i]->old.owner, changes[i]->old.type };
	}
	return 0;
}

int dnsb_provider_budget_stats(dnsb_provider *p, dnsb_budget_stats *out)
{
	if (p->ops->budget == NULL)
		return DNSB_ENOTFOUND;
	return p->ops->budget(p->state, out);
}
