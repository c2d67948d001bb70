/*
 * backend.c - the skeleton of the HTTP backends: the provider ops with their
 * opening, the open sequence, state and close, requests within the time
 * left, GET of a 200, pagination, reads by owner name, the shared opening
 * and end of a reply's classification, and the list of service handles.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/array.h"
#include "applier/core/backoff.h"
#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "providers/common/backend.h"
#include "applier/net/ratelimit.h"

static double give_up_of(double timeout)
{
	return timeout > 0 ? dnsb_monotonic() + timeout : 0;
}

/* ---- the ops ---- */

int dnsb_hb_submit(void *state, const char *zone, dnsb_change *const *changes, size_t n, double timeout,
		   dnsb_result *out, dnsb_error *err)
{
	dnsb_hb *b = state;
	const dnsb_hb_zone *z = dnsb_hb_zone_find(b, zone);
	int rc;

	dnsb_result_init(out);
	if (z == NULL) {
		dnsb_result_set(out, DNSB_CLASS_FATAL, 0, "", "no %s serves %s", b->m->zone_noun, zone);
		return 0;
	}
	rc = b->m->submit(b, z, changes, n, give_up_of(timeout), out, err);
	/* A request of the submission refused, or not sent, for a throttle past the time left: the engine waits
	 * the hold the client keeps (dnsb_http_held), not less. */
	if (rc == 0 && out->cls == DNSB_CLASS_RATE_LIMITED && out->retry_after < 0)
		out->retry_after = dnsb_http_held(b->http);
	return rc;
}

int dnsb_hb_read(void *state, const char *zone, const dnsb_rrkey *keys, size_t n, double timeout,
		 dnsb_rrset_list *out, dnsb_error *err)
{
	dnsb_hb *b = state;
	const dnsb_hb_zone *z = dnsb_hb_zone_find(b, zone);

	if (z == NULL)
		return dnsb_error_set(err, DNSB_EFATAL, "no %s serves %s", b->m->zone_noun, zone);
	if (n == 0)
		return 0;
	return b->m->read(b, z, keys, n, give_up_of(timeout), out, err);
}

int dnsb_hb_list(void *state, const char *zone, double timeout, dnsb_rrset_list *out, dnsb_error *err)
{
	dnsb_hb *b = state;
	const dnsb_hb_zone *z = dnsb_hb_zone_find(b, zone);

	if (z == NULL)
		return dnsb_error_set(err, DNSB_EFATAL, "no %s serves %s", b->m->zone_noun, zone);
	return b->m->read(b, z, NULL, 0, give_up_of(timeout), out, err);
}

void dnsb_hb_close(void *state)
{
	dnsb_hb *b = state;

	if (b == NULL)
		return;
	if (b->m && b->m->close)
		b->m->close(b);
	if (b->http)
		dnsb_log(DNSB_LOG_DEBUG, "%s: %lu requests, %lu connections opened", b->m->ops.name, dnsb_http_requests(b->http),
			 dnsb_http_connections(b->http));
	dnsb_http_free(b->http);
	dnsb_budget_free(b->budget);
	dnsb_hb_zones_free(b->zones, b->zone_count);
	dnsb_interval_clear(&b->pace);
	free(b); /* the backend's state, of which b is the first member */
}

int dnsb_hb_budget(void *state, dnsb_budget_stats *out)
{
	dnsb_hb *b = state;

	if (b->budget == NULL)
		return DNSB_ENOTFOUND;
	dnsb_budget_stats_get(b->budget, out);
	return 0;
}

/* ---- open ---- */

int dnsb_hb_client(dnsb_hb *b, double timeout, const char *ca_file, dnsb_error *err)
{
	dnsb_http_options http = DNSB_HTTP_OPTIONS_INIT;
	dnsb_budget_options budget = DNSB_BUDGET_OPTIONS_INIT;
	int rc;

	http.timeout = timeout;
	http.ca_file = ca_file;
	budget.key = b->m->ops.name;
	if (b->m->budget_rate > 0)
		budget.rate = b->m->budget_rate;
	if (b->m->budget_burst >= 1)
		budget.burst = b->m->budget_burst;
	if ((rc = dnsb_http_new(&b->http, &http, err)) != 0 ||
	    (b->cfg && (rc = dnsb_budget_from_config(&b->budget, b->cfg, &budget, err)) != 0))
		return rc;
	dnsb_http_set_budget(b->http, b->budget);
	return 0;
}

int dnsb_hb_open(dnsb_provider **out, const dnsb_hb_methods *m, const dnsb_config *cfg, dnsb_error *err)
{
	dnsb_provider_limits limits = { 0 };
	dnsb_hb *b = calloc(1, m->state_size);
	dnsb_provider *p;
	int rc;

	*out = NULL;
	if (b == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	b->m = m;
	b->cfg = cfg;
	b->rng = (uint64_t)(dnsb_monotonic() * 1e9) ^ (uint64_t)(uintptr_t)b;
	dnsb_interval_init(&b->pace, 0, m->interval_flag ? m->interval_flag : "");
	rc = m->open(b, cfg, &limits, err);
	b->cfg = NULL;
	if (rc != 0) {
		dnsb_hb_close(b);
		return rc;
	}
	if ((rc = dnsb_provider_alloc(&p, &m->ops, b)) != 0) /* closes b on an error */
		return dnsb_error_set(err, rc, "out of memory");
	for (size_t i = 0; i < b->zone_count; i++) {
		if ((rc = dnsb_provider_add_zone(p, b->zones[i].apex, err)) != 0) {
			dnsb_provider_free(p);
			return rc;
		}
	}
	dnsb_provider_set_limits(p, &limits);
	*out = p;
	return 0;
}

int dnsb_hb_config_parse(void *settings, size_t size, dnsb_hb_settings_fn read, void (*clear)(void *settings),
			 const dnsb_config *cfg, dnsb_error *err)
{
	int rc;

	memset(settings, 0, size);
	if ((rc = read(settings, cfg, err)) != 0) {
		if (rc == DNSB_ENOMEM)
			dnsb_error_set(err, rc, "out of memory");
		clear(settings);
	}
	return rc;
}

int dnsb_hb_zones_push(dnsb_hb_zone **zones, size_t *count, char *apex, const char *id)
{
	dnsb_hb_zone add = { apex, strdup(id) }, *grown;

	if (add.id == NULL || (grown = realloc(*zones, (*count + 1) * sizeof(*grown))) == NULL) {
		free(add.apex);
		free(add.id);
		return DNSB_ENOMEM;
	}
	*zones = grown;
	(*zones)[(*count)++] = add;
	return 0;
}

void dnsb_hb_zones_take(dnsb_hb *b, dnsb_hb_zone **zones, size_t *count)
{
	dnsb_hb_zones_free(b->zones, b->zone_count);
	b->zones = *zones;
	b->zone_count = *count;
	*zones = NULL;
	*count = 0;
}

void dnsb_hb_zones_free(dnsb_hb_zone *zones, size_t count)
{
	for (size_t i = 0; zones && i < count; i++) {
		free(zones[i].apex);
		free(zones[i].id);
	}
	free(zones);
}

const dnsb_hb_zone *dnsb_hb_zone_find(const dnsb_hb *b, const char *apex)
{
	for (size_t i = 0; i < b->zone_count; i++)
		if (strcmp(b->zones[i].apex, apex) == 0)
			return &b->zones[i];
	return NULL;
}

/* ---- requests ---- */

int dnsb_hb_send(dnsb_hb *b, const char *method, const char *url, const char *const *headers, const char *body,
		 const dnsb_http_sigv4 *sign, double give_up, dnsb_http_response *out, dnsb_error *err)
{
	dnsb_http_request req = { method, url, headers, body, body ? strlen(body) : 0, 0 };

	memset(out, 0, sizeof(*out));
	if (give_up > 0 && (req.time_left = give_up - dnsb_monotonic()) <= 0)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s %s: no time left", method, url);
	return sign ? dnsb_http_do_sigv4(b->http, &req, sign, out, err) : dnsb_http_do(b->http, &req, out, err);
}

/* A throttle's Retry-After past give_up: DNSB_ERATELIMIT at once, its message (err's, the refusal) naming it. */
static int past_time_left(dnsb_error *err, double retry_after)
{
	char refusal[sizeof(err->message)];

	memcpy(refusal, err->message, sizeof(refusal));
	return dnsb_error_set(err, DNSB_ERATELIMIT, "%s; its Retry-After (%.1f s) is past the time left", refusal, retry_after);
}

/*
 * A throttle (the account's limit, shared by every client of it) is waited
 * out with full-jitter backoff while give_up allows, at zone discovery as on
 * any read: only an answer that cannot change with time ends the call. A
 * Retry-After is the wait's floor, as for the engine's batches (backoff.h);
 * one that does not fit before give_up ends the call at once.
 */
int dnsb_hb_get(dnsb_hb *b, const char *url, const char *what, double give_up, dnsb_http_response *out, long *status,
		dnsb_error *err)
{
	for (unsigned attempt = 0;; attempt++) {
		int rc = b->m->call(b, "GET", url, NULL, give_up, out, err);
		double wait, retry_after;

		if (status)
			*status = rc == 0 ? out->status : 0;
		if (rc != 0 || out->status == 200)
			return rc;
		rc = b->m->reply_error(out, what, err);
		retry_after = out->retry_after;
		dnsb_http_response_clear(out);
		if (rc != DNSB_ERATELIMIT)
			return rc;
		dnsb_http_throttled(b->http);
		if (attempt + 1 >= DNSB_HB_THROTTLE_TRIES) {
			dnsb_http_hold(b->http, retry_after);
			return dnsb_error_set(err, DNSB_ERATELIMIT, "%.*s; throttled %u times, given up", 400, err->message,
					      DNSB_HB_THROTTLE_TRIES);
		}
		wait = dnsb_backoff_delay(attempt, DNSB_HB_THROTTLE_BASE, DNSB_HB_THROTTLE_CAP, dnsb_uniform01(&b->rng));
		wait = dnsb_retry_after_wait(wait, retry_after, DNSB_HB_THROTTLE_CAP);
		if (give_up > 0 && dnsb_monotonic() + wait >= give_up) {
			if (retry_after > 0 && retry_after >= wait)
				rc = past_time_left(err, retry_after);
			dnsb_http_hold(b->http, retry_after); /* the engine waits it, not less */
			return rc;
		}
		dnsb_log(DNSB_LOG_INFO, "%s: %s throttled; retrying in %.2f s", b->m->ops.name, what, wait);
		if (dnsb_stop_sleep(wait)) /* a signal ends the wait at once: the read stays throttled */
			return rc;
	}
}

int dnsb_hb_get_json(dnsb_hb *b, const char *url, const char *what, double give_up, json_object **doc, long *status,
		     dnsb_error *err)
{
	dnsb_http_response resp;
	dnsb_error e;
	int rc;

	*doc = NULL;
	if ((rc = dnsb_hb_get(b, url, what, give_up, &resp, status, err)) != 0)
		return rc;
	if ((rc = dnsb_http_json(doc, &resp, &e)) != 0)
		rc = dnsb_error_set(err, rc == DNSB_ENOMEM ? rc : DNSB_ETRANSIENT, "%s: %s", what, e.message);
	dnsb_http_response_clear(&resp);
	return rc;
}

int dnsb_hb_pages(const char *what, unsigned long max_pages, dnsb_hb_page_fn page, void *payload, dnsb_error *err)
{
	char *token = NULL, *next;
	unsigned long pages = 0;
	int rc;

	do {
		next = NULL;
		rc = page(payload, token, &next, err);
		free(token);
		token = next;
		if (rc == 0 && token && ++pages >= max_pages)
			rc = dnsb_error_set(err, DNSB_ETRANSIENT, "%s: more than %lu pages", what, max_pages);
	} while (rc == 0 && token);
	free(token);
	return rc;
}

/* ---- reads ---- */

/* The keys as an indexed list of empty RRsets (type DNSB_RRKEY_ANY kept as is), for lookups. */
static int key_index(dnsb_rrset_list *out, const dnsb_rrkey *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		dnsb_rrset k = { 0 };
		if (dnsb_rrset_list_find(out, keys[i].owner, keys[i].type) != NULL)
			continue;
		k.type = keys[i].type;
		if ((k.owner = strdup(keys[i].owner)) == NULL || dnsb_rrset_list_push(out, &k) != 0) {
			free(k.owner);
			return DNSB_ENOMEM;
		}
	}
	return 0;
}

int dnsb_hb_pick(dnsb_rrset_list *out, const dnsb_rrset_list *all, const dnsb_rrkey *keys, size_t n)
{
	dnsb_rrset_list want = { 0 };
	int rc = key_index(&want, keys, n);

	for (size_t i = 0; rc == 0 && i < all->count; i++) {
		const dnsb_rrset *r = &all->items[i];
		dnsb_rrset copy;
		if (dnsb_rrset_list_find(&want, r->owner, r->type) == NULL &&
		    dnsb_rrset_list_find(&want, r->owner, DNSB_RRKEY_ANY) == NULL)
			continue;
		if ((rc = dnsb_rrset_copy(&copy, r)) == 0 && (rc = dnsb_rrset_list_push(out, &copy)) != 0)
			dnsb_rrset_clear(&copy);
	}
	dnsb_rrset_list_clear(&want);
	return rc;
}

/* At most this many owners are read by name at once (a bigger by_name_max is cut to it). */
#define BY_NAME_MAX 64

int dnsb_hb_read_by_owner(dnsb_hb *b, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n,
			  size_t by_name_max, dnsb_hb_list_fn list, double give_up, dnsb_rrset_list *out,
			  dnsb_hb_tags *tags, dnsb_error *err)
{
	const char *owners[BY_NAME_MAX];
	size_t max = by_name_max < BY_NAME_MAX ? by_name_max : BY_NAME_MAX, k;
	dnsb_rrset_list all = { 0 };
	int rc = 0;

	if (n == 0)
		return list(b, zone, NULL, 0, NULL, 0, give_up, out, tags, err);
	if ((k = dnsb_rrkeys_owners(keys, n, owners, max)) <= max) {
		for (size_t i = 0; rc == 0 && i < k; i++)
			rc = list(b, zone, owners[i], dnsb_rrkeys_only_type(keys, n, owners[i]), keys, n, give_up, out, tags,
				  err);
		return rc;
	}
	rc = list(b, zone, NULL, 0, NULL, 0, give_up, &all, tags, err);
	if (rc == 0 && (rc = dnsb_hb_pick(out, &all, keys, n)) != 0)
		dnsb_error_set(err, rc, "out of memory");
	dnsb_rrset_list_clear(&all);
	return rc;
}

int dnsb_hb_read_unset_ttls(dnsb_hb *b, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n,
			    double give_up, dnsb_rrset_list *held, dnsb_error *err)
{
	dnsb_rrkey *keys;
	size_t k;
	int rc = dnsb_unset_ttl_keys(&keys, &k, changes, n);

	if (rc != 0)
		return dnsb_error_set(err, rc, "out of memory");
	rc = k ? b->m->read(b, zone, keys, k, give_up, held, err) : 0;
	free(keys);
	return rc;
}

/* ---- classification ---- */

int dnsb_hb_status_class(long status)
{
	if (status >= 200 && status < 300)
		return DNSB_CLASS_OK;
	if (status >= 500 || status == 408)
		return DNSB_CLASS_TRANSIENT;
	if (status == 413)
		return DNSB_CLASS_TOO_LARGE;
	if (status == 429)
		return DNSB_CLASS_RATE_LIMITED;
	return DNSB_HB_CLASS_OWN;
}

int dnsb_hb_class_code(dnsb_class cls)
{
	return cls == DNSB_CLASS_RATE_LIMITED ? DNSB_ERATELIMIT : cls == DNSB_CLASS_TRANSIENT ? DNSB_ETRANSIENT : DNSB_EFATAL;
}

void dnsb_hb_result(dnsb_result *res, dnsb_class cls, const dnsb_http_response *resp, const char *code,
		    const char *message)
{
	if (cls == DNSB_CLASS_OK)
		message = "";
	else if (message == NULL || message[0] == '\0')
		message = "(no message)";
	dnsb_result_set(res, cls, (int)resp->status, code ? code : "", "%s", message);
	if (cls == DNSB_CLASS_RATE_LIMITED || cls == DNSB_CLASS_TRANSIENT)
		res->retry_after = resp->retry_after;
}

/* ---- service handles ---- */

int dnsb_hb_tags_add(dnsb_hb_tags *tags, const char *owner, uint16_t type, const char *rdata, const char *tag,
		     uint32_t ttl)
{
	dnsb_hb_tag add = { strdup(owner), type, rdata ? strdup(rdata) : NULL, strdup(tag), ttl };

	if (add.owner == NULL || add.tag == NULL || (rdata && add.rdata == NULL))
		goto oom;
	if (DNSB_ARRAY_RESERVE(tags->items, tags->cap, tags->count + 1, 16) < 0)
		goto oom;
	tags->items[tags->count++] = add;
	return 0;
oom:
	free(add.owner);
	free(add.rdata);
	free(add.tag);
	return DNSB_ENOMEM;
}

const dnsb_hb_tag *dnsb_hb_tags_find(const dnsb_hb_tags *tags, const char *owner, uint16_t type, const char *rdata,
				     const unsigned char *skip)
{
	for (size_t i = 0; i < tags->count; i++) {
		const dnsb_hb_tag *t = &tags->items[i];
		if (t->type != type || strcmp(t->owner, owner) != 0 || (skip && skip[i]))
			continue;
		if (rdata == NULL ? t->rdata == NULL : t->rdata != NULL && strcmp(t->rdata, rdata) == 0)
			return t;
	}
	return NULL;
}

void dnsb_hb_tags_clear(dnsb_hb_tags *tags)
{
	if (tags == NULL)
		return;
	for (size_t i = 0; i < tags->count; i++) {
		free(tags->items[i].owner);
		free(tags->items[i].rdata);
		free(tags->items[i].tag);
	}
	free(tags->items);
	memset(tags, 0, sizeof(*tags));
}

int dnsb_hb_owner_query(char **out, const char *owner, const char *name_param, uint16_t type, const char *type_param,
			dnsb_error *err)
{
	char name[300], *e_name = NULL;

	*out = NULL;
	if (owner) {
		snprintf(name, sizeof(name), "%.*s", (int)strlen(owner) - 1, owner); /* without the trailing dot */
		if ((e_name = dnsb_http_escape(name)) == NULL)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	if (asprintf(out, "%s%s%s%s%s%s%s%s", e_name ? "&" : "", e_name ? name_param : "", e_name ? "=" : "",
		     e_name ? e_name : "", type ? "&" : "", type ? type_param : "", type ? "=" : "",
		     type ? dnsb_type_name(type) : "") < 0)
		*out = NULL;
	free(e_name);
	return *out ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}
