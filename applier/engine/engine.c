/*
 * engine.c - plan -> zones -> change groups -> batches -> submissions, and
 * the class table of DESIGN §3. Every change leaves with one outcome.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ldns/ldns.h>

#include "dnsbatch/engine.h"
#include "dnsbatch/log.h"
#include "dnsbatch/sys/provider.h"
#include "applier/core/clock.h"
#include "applier/core/hmap.h"
#include "applier/engine/quarantine.h"

/* A change group: changes that land or drop together (DESIGN §2). */
typedef struct group {
	dnsb_change **changes;
	size_t count;
	size_t zone;
	char *key;           /* content key, for the quarantine; NULL without one */
} group;

typedef struct engine {
	dnsb_provider *p;
	const dnsb_engine_options *o;
	const dnsb_clock *clock;
	uint64_t rng;
	double deadline;             /* clock seconds; 0 = none */
	dnsb_report *rep;
	long *zone_slot;             /* provider zone index -> rep->zones index, -1 unseen */
	int *zone_stopped;           /* a fatal answer stopped the zone */
	char **zone_stop_message;
	unsigned long batch_no;
	dnsb_error *err;
	int rc;                      /* first local error (ENOMEM), kept to return */
	unsigned long qtoken;        /* this apply's quarantine token */
} engine;

/* What became of one submission path, for the first-half shortcut. */
enum { RUN_WHOLE_OK = 1, RUN_OTHER = 0 };

static double uniform01(engine *e)
{
	return dnsb_uniform01(&e->rng);
}

static double now(engine *e)
{
	return e->clock->now(e->clock->payload);
}

static const char *zone_name(engine *e, size_t zone)
{
	return zone < e->p->zone_count ? e->p->zones[zone] : "";
}

static dnsb_zone_report *zone_report(engine *e, size_t zone)
{
	size_t idx = zone < e->p->zone_count ? zone : e->p->zone_count;

	if (e->zone_slot[idx] < 0) {
		dnsb_zone_report *z = &e->rep->zones[e->rep->zone_count];
		memset(z, 0, sizeof(*z));
		z->zone = strdup(zone_name(e, zone));
		if (z->zone == NULL)
			e->rc = DNSB_ENOMEM;
		e->zone_slot[idx] = (long)e->rep->zone_count++;
	}
	return &e->rep->zones[e->zone_slot[idx]];
}

static void set_detail(dnsb_change *c, int status, const char *code, const char *message)
{
	c->status = status;
	free(c->code);
	free(c->message);
	c->code = code && *code ? strdup(code) : NULL;
	c->message = message && *message ? strdup(message) : NULL;
}

static void finish_group(group *g, dnsb_outcome outcome, dnsb_reason reason, const dnsb_result *res,
			 const char *message)
{
	for (size_t i = 0; i < g->count; i++) {
		dnsb_change *c = g->changes[i];
		c->outcome = outcome;
		c->reason = reason;
		set_detail(c, res ? res->status : 0, res ? res->code : NULL, message ? message : res ? res->message : NULL);
	}
}

static void finish_groups(group **gs, size_t n, dnsb_outcome outcome, dnsb_reason reason, const dnsb_result *res,
			  const char *message)
{
	for (size_t i = 0; i < n; i++)
		finish_group(gs[i], outcome, reason, res, message);
}

/* ---- verification: does the provider already hold the desired state? ---- */

static int add_key(dnsb_rrkey **keys, size_t *n, size_t *cap, const dnsb_rrset *r)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		dnsb_rrkey *grown = realloc(*keys, c * sizeof(*grown));
		if (grown == NULL)
			return DNSB_ENOMEM;
		*keys = grown;
		*cap = c;
	}
	(*keys)[*n].owner = r->owner;
	(*keys)[(*n)++].type = r->type;
	return 0;
}

/* Does the provider hold what this change asks for: new RRset present exactly, old one gone? */
static int change_in_effect(const dnsb_change *c, const dnsb_rrset_list *held)
{
	if (c->kind != DNSB_CHANGE_DELETE) {
		const dnsb_rrset *cur = dnsb_rrset_list_find(held, c->new_set.owner, c->new_set.type);
		if (cur == NULL || !dnsb_rrset_equal(cur, &c->new_set))
			return 0;
	}
	if (c->kind != DNSB_CHANGE_CREATE && (c->kind == DNSB_CHANGE_DELETE || c->old.type != c->new_set.type) &&
	    dnsb_rrset_list_find(held, c->old.owner, c->old.type) != NULL)
		return 0;
	return 1;
}

static int group_in_effect(const group *g, const dnsb_rrset_list *held)
{
	for (size_t i = 0; i < g->count; i++)
		if (!change_in_effect(g->changes[i], held))
			return 0;
	return 1;
}

/*
 * Read back every RRset the groups touch, in one read.
 * @return 0 with `held` filled, or the read's error (detail in rerr)
 */
static int read_back(engine *e, group **gs, size_t n, dnsb_rrset_list *held, dnsb_error *rerr)
{
	dnsb_rrkey *keys = NULL;
	size_t nkeys = 0, cap = 0;
	const char *zone = zone_name(e, gs[0]->zone);
	double secs = 0;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		for (size_t j = 0; rc == 0 && j < gs[i]->count; j++) {
			const dnsb_change *c = gs[i]->changes[j];
			if (c->kind != DNSB_CHANGE_CREATE)
				rc = add_key(&keys, &nkeys, &cap, &c->old);
			if (rc == 0 && c->kind != DNSB_CHANGE_DELETE)
				rc = add_key(&keys, &nkeys, &cap, &c->new_set);
		}
	}
	if (rc == 0)
		rc = dnsb_provider_read(e->p, zone, keys, nkeys, held, &secs, rerr);
	free(keys);
	e->rep->reads++;
	zone_report(e, gs[0]->zone)->reads++;
	dnsb_metrics_request(e->o->metrics, dnsb_provider_name(e->p), "read",
			     rc == 0 ? "ok" : rc == DNSB_ETRANSIENT ? "transient" : "fatal", secs);
	return rc;
}

static int run_batch(engine *e, group **gs, size_t n, const dnsb_result *known_bad);

/*
 * Part of a group is in effect (a record made out of band, its ownership
 * record not): calling those changes dropped would be false. They end
 * already_applied and the rest is submitted once more on its own; the
 * rest is strictly smaller, so this ends.
 * @return 1 when it settled the group, 0 when no change is in effect
 */
static int settle_partial(engine *e, group *g, const dnsb_rrset_list *held)
{
	group rest = { NULL, 0, g->zone, NULL };
	group *one = &rest;

	for (size_t i = 0; i < g->count; i++)
		if (!change_in_effect(g->changes[i], held))
			rest.count++;
	if (rest.count == g->count)
		return 0;
	if ((rest.changes = malloc(rest.count * sizeof(dnsb_change *))) == NULL) {
		e->rc = DNSB_ENOMEM;
		return 0;
	}
	rest.count = 0;
	for (size_t i = 0; i < g->count; i++) {
		dnsb_change *c = g->changes[i];
		if (change_in_effect(c, held)) {
			c->outcome = DNSB_OUTCOME_ALREADY_APPLIED;
			c->reason = DNSB_REASON_NONE;
		} else {
			rest.changes[rest.count++] = c;
		}
	}
	run_batch(e, &one, 1, NULL);
	free(rest.changes);
	return 1;
}

/* A single group still conflicts: already in effect, or dropped. */
static void verify_or_drop(engine *e, group *g, dnsb_reason reason, const dnsb_result *res)
{
	dnsb_rrset_list held = { 0 };
	dnsb_error rerr = { 0 };
	char msg[DNSB_ERROR_MESSAGE_MAX * 2 + 64];
	int rc = read_back(e, &g, 1, &held, &rerr);

	if (rc == DNSB_ENOMEM) {
		e->rc = rc;
		finish_group(g, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, res, "out of memory while verifying");
	} else if (rc < 0) {
		/* Unverified: dropping could lose a change that is in fact applied. */
		snprintf(msg, sizeof(msg), "%s; verifying it failed: %s", res->message, rerr.message);
		finish_group(g, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, res, msg);
	} else if (group_in_effect(g, &held)) {
		finish_group(g, DNSB_OUTCOME_ALREADY_APPLIED, DNSB_REASON_NONE, res, NULL);
	} else if (!settle_partial(e, g, &held)) {
		finish_group(g, DNSB_OUTCOME_DROPPED, reason, res, NULL);
	}
	dnsb_rrset_list_clear(&held);
}

/* After transient then conflict: was the lost reply a success? @return 1 when all is in effect */
static int verify_whole(engine *e, group **gs, size_t n, const dnsb_result *res)
{
	dnsb_rrset_list held = { 0 };
	dnsb_error rerr = { 0 };
	int all = read_back(e, gs, n, &held, &rerr) == 0;

	for (size_t i = 0; all && i < n; i++)
		all = group_in_effect(gs[i], &held);
	dnsb_rrset_list_clear(&held);
	if (all) {
		finish_groups(gs, n, DNSB_OUTCOME_ALREADY_APPLIED, DNSB_REASON_NONE, res, NULL);
		dnsb_log(DNSB_LOG_INFO, "zone %s: a batch of %zu groups answered %d %s after a transient error "
			 "is already in effect: the earlier reply was lost", zone_name(e, gs[0]->zone), n,
			 res->status, res->code);
	}
	return all;
}

/* ---- waiting ---- */

static int past_deadline(engine *e, double wait)
{
	return e->deadline > 0 && now(e) + wait >= e->deadline;
}

static void wait_for(engine *e, double seconds)
{
	if (!(seconds > 0))
		return;
	e->clock->sleep(e->clock->payload, seconds);
	e->rep->backoff_seconds += seconds;
	dnsb_metrics_backoff(e->o->metrics, seconds);
}

/* Shared pacing: no request to this provider before pacer.not_before. */
static double pacer_wait(engine *e)
{
	double nb;

	pthread_mutex_lock(&e->p->pacer.lock);
	nb = e->p->pacer.not_before;
	pthread_mutex_unlock(&e->p->pacer.lock);
	return nb - now(e);
}

static void pacer_slow_down(engine *e, double wait)
{
	double until = now(e) + wait;

	pthread_mutex_lock(&e->p->pacer.lock);
	if (until > e->p->pacer.not_before)
		e->p->pacer.not_before = until;
	pthread_mutex_unlock(&e->p->pacer.lock);
}

/* ---- submitting ---- */

static size_t flatten(group **gs, size_t n, dnsb_change ***out)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < n; i++)
		total += gs[i]->count;
	if ((*out = malloc((total ? total : 1) * sizeof(dnsb_change *))) == NULL)
		return 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < gs[i]->count; j++)
			(*out)[k++] = gs[i]->changes[j];
	return total;
}

/* Which group of gs holds the hint-th change of the flattened batch? -1 if none. */
static long hint_group(group **gs, size_t n, long hint)
{
	for (size_t i = 0; hint >= 0 && i < n; i++) {
		if ((size_t)hint < gs[i]->count)
			return (long)i;
		hint -= (long)gs[i]->count;
	}
	return -1;
}

/*
 * Split a batch that failed with conflict or invalid. `res` is its answer.
 * With a culprit hint, first try the batch without that group; else halve.
 * When the part tried first applies whole, the rest is known to hold the
 * culprit and is split without being sent again.
 */
static void bisect(engine *e, group **gs, size_t n, const dnsb_result *res)
{
	long h = e->p->limits.names_culprit ? hint_group(gs, n, res->hint) : -1;
	group **rest;

	e->rep->bisections++;
	zone_report(e, gs[0]->zone)->bisections++;
	dnsb_metrics_bisection(e->o->metrics, zone_name(e, gs[0]->zone));
	if (h < 0) {
		size_t half = n / 2;
		int first = run_batch(e, gs, half, NULL);
		run_batch(e, gs + half, n - half, first == RUN_WHOLE_OK ? res : NULL);
		return;
	}
	if ((rest = malloc(n * sizeof(group *))) == NULL) {
		e->rc = DNSB_ENOMEM;
		finish_groups(gs, n, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, res, "out of memory");
		return;
	}
	for (size_t i = 0, k = 0; i < n; i++)
		if ((long)i != h)
			rest[k++] = gs[i];
	int first = run_batch(e, rest, n - 1, NULL);
	free(rest);
	/* A wrong hint costs one request: the named group is then tried alone. */
	run_batch(e, &gs[h], 1, first == RUN_WHOLE_OK ? res : NULL);
}

static void fail_zone(engine *e, group **gs, size_t n)
{
	char *msg = e->zone_stop_message[gs[0]->zone];

	finish_groups(gs, n, DNSB_OUTCOME_FAILED, DNSB_REASON_FATAL, NULL, msg ? msg : "the zone was stopped");
}

/* Refused for its content: one group is verified (conflict) or dropped (invalid); more are split. */
static void settle_rejected(engine *e, group **gs, size_t n, const dnsb_result *res)
{
	if (n > 1)
		bisect(e, gs, n, res);
	else if (res->cls == DNSB_CLASS_CONFLICT)
		verify_or_drop(e, gs[0], DNSB_REASON_CONFLICT, res);
	else
		finish_group(gs[0], DNSB_OUTCOME_DROPPED, DNSB_REASON_INVALID, res, NULL);
}

/* A fatal answer: this batch and every later one of the zone fail, naming the cause. */
static void stop_zone(engine *e, group **gs, size_t n, const dnsb_result *res)
{
	size_t zone = gs[0]->zone;
	char msg[DNSB_ERROR_MESSAGE_MAX + 96];

	snprintf(msg, sizeof(msg), "zone %s stopped: %d %s: %s", zone_name(e, zone), res->status, res->code,
		 res->message);
	dnsb_log(DNSB_LOG_ERROR, "%s", msg);
	e->zone_stopped[zone] = 1;
	free(e->zone_stop_message[zone]);
	e->zone_stop_message[zone] = strdup(msg);
	finish_groups(gs, n, DNSB_OUTCOME_FAILED, DNSB_REASON_FATAL, res, msg);
}

/* The retry state of one batch. */
typedef struct attempts {
	unsigned transient, limited;
	int saw_transient;   /* a transient answer may have hidden a commit */
} attempts;

/*
 * After a transient or rate-limited answer: wait and return 1 to resubmit,
 * or settle the batch and return 0 when the retries or the deadline ran out.
 */
static int retry_or_settle(engine *e, group **gs, size_t n, size_t count, const dnsb_result *res, attempts *a)
{
	int limit = res->cls == DNSB_CLASS_RATE_LIMITED;
	unsigned attempt = limit ? a->limited++ : a->transient++;
	double wait;

	a->saw_transient |= !limit;
	if (attempt >= (limit ? e->o->max_rate_limit_waits : e->o->max_retries)) {
		/* A transient answer may hide a commit: look before calling it failed. */
		if (limit || !verify_whole(e, gs, n, res))
			finish_groups(gs, n, DNSB_OUTCOME_FAILED, limit ? DNSB_REASON_RATE_LIMITED : DNSB_REASON_TRANSIENT,
				      res, NULL);
		return 0;
	}
	wait = dnsb_backoff_delay(attempt, e->o->backoff_base, e->o->backoff_cap, uniform01(e));
	if (res->retry_after > wait)
		wait = res->retry_after;
	if (past_deadline(e, wait)) {
		finish_groups(gs, n, DNSB_OUTCOME_FAILED, DNSB_REASON_DEADLINE, res, NULL);
		return 0;
	}
	e->rep->retries++;
	dnsb_metrics_retry(e->o->metrics, limit ? "rate_limited" : "transient");
	dnsb_log(DNSB_LOG_INFO, "zone %s: batch of %zu changes: %s (%d %s: %s), retrying in %.3f s",
		 zone_name(e, gs[0]->zone), count, dnsb_class_name(res->cls), res->status, res->code, res->message, wait);
	if (limit)
		pacer_slow_down(e, wait); /* waited out before the next submission, by every batch */
	else
		wait_for(e, wait);
	return 1;
}

/*
 * Wait for the provider's pacing, then submit once, counting it.
 * @return 1 with `res` filled; 0 when the batch was settled instead
 *         (the deadline passed, or a local error such as ENOMEM)
 */
static int submit_once(engine *e, group **gs, size_t n, dnsb_change **changes, size_t count, dnsb_result *res)
{
	const char *zone = zone_name(e, gs[0]->zone);
	double secs = 0, wait = pacer_wait(e);
	dnsb_error serr = { 0 };
	int rc;

	if (past_deadline(e, wait > 0 ? wait : 0)) {
		finish_groups(gs, n, DNSB_OUTCOME_FAILED, DNSB_REASON_DEADLINE, NULL,
			      "the apply deadline passed before this change was applied");
		return 0;
	}
	wait_for(e, wait);
	if (e->o->on_batch)
		e->o->on_batch(e->o->payload, zone, ++e->batch_no, changes, count);
	rc = dnsb_provider_submit(e->p, zone, changes, count, res, &secs, &serr);
	e->rep->submissions++;
	zone_report(e, gs[0]->zone)->submissions++;
	if (rc < 0) {
		e->rc = dnsb_error_set(e->err, rc, "zone %s: %s", zone, serr.message);
		finish_groups(gs, n, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, NULL, serr.message);
		return 0;
	}
	dnsb_metrics_batch(e->o->metrics, zone, dnsb_class_name(res->cls));
	dnsb_metrics_request(e->o->metrics, dnsb_provider_name(e->p), "submit", dnsb_class_name(res->cls), secs);
	return 1;
}

/*
 * Submit a batch and act on the answer's class (DESIGN §3). `known_bad`,
 * when not NULL, is the answer of a larger batch that this one is known to
 * have caused: it is not sent again but split (or verified, for one group).
 * @return RUN_WHOLE_OK when the batch applied in one submission
 */
static int run_batch(engine *e, group **gs, size_t n, const dnsb_result *known_bad)
{
	dnsb_change **changes = NULL;
	attempts tries = { 0, 0, 0 };
	dnsb_result res;
	size_t count;
	int ret = RUN_OTHER;

	if (n == 0)
		return RUN_WHOLE_OK;
	if (e->zone_stopped[gs[0]->zone]) {
		fail_zone(e, gs, n);
		return RUN_OTHER;
	}
	if (known_bad) {
		settle_rejected(e, gs, n, known_bad);
		return RUN_OTHER;
	}
	if ((count = flatten(gs, n, &changes)) == 0) {
		e->rc = DNSB_ENOMEM;
		finish_groups(gs, n, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, NULL, "out of memory");
		free(changes);
		return RUN_OTHER;
	}
	while (submit_once(e, gs, n, changes, count, &res)) {
		if (res.cls == DNSB_CLASS_OK) {
			finish_groups(gs, n, DNSB_OUTCOME_APPLIED, DNSB_REASON_NONE, NULL, NULL);
			ret = tries.saw_transient ? RUN_OTHER : RUN_WHOLE_OK;
			break;
		}
		if (res.cls == DNSB_CLASS_RATE_LIMITED || res.cls == DNSB_CLASS_TRANSIENT) {
			if (retry_or_settle(e, gs, n, count, &res, &tries))
				continue;
			break;
		}
		if (res.cls == DNSB_CLASS_FATAL) {
			stop_zone(e, gs, n, &res);
			break;
		}
		/* The halves below build their own lists: free this one before recursing. */
		free(changes);
		changes = NULL;
		if (res.cls == DNSB_CLASS_TOO_LARGE && n > 1) {
			run_batch(e, gs, n / 2, NULL);
			run_batch(e, gs + n / 2, n - n / 2, NULL);
		} else if (res.cls == DNSB_CLASS_TOO_LARGE) {
			finish_group(gs[0], DNSB_OUTCOME_DROPPED, DNSB_REASON_INVALID, &res, NULL);
		} else if (!(tries.saw_transient && verify_whole(e, gs, n, &res))) {
			settle_rejected(e, gs, n, &res);
		}
		break;
	}
	free(changes);
	return ret;
}

/* ---- grouping and batching ---- */

static size_t uf_find(size_t *parent, size_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

static int uf_join(dnsb_hmap *names, size_t *parent, const char *name, size_t i)
{
	void *seen = dnsb_hmap_get(names, name);

	if (seen == NULL)
		return dnsb_hmap_put(names, name, (void *)(i + 1));
	size_t a = uf_find(parent, (size_t)seen - 1), b = uf_find(parent, i);
	if (a != b)
		parent[a > b ? a : b] = a > b ? b : a;
	return 0;
}

static const char *owner_of(const dnsb_change *c)
{
	return c->kind == DNSB_CHANGE_DELETE ? c->old.owner : c->new_set.owner;
}

/* Inside a group: deletions, then updates, then creations, so a name can change type. */
static int kind_rank(const dnsb_change *c)
{
	return c->kind == DNSB_CHANGE_DELETE ? 0 : c->kind == DNSB_CHANGE_UPDATE ? 1 : 2;
}

static int append_rrset_key(char **buf, size_t *len, size_t *cap, const char *tag, const dnsb_rrset *r)
{
	size_t need = strlen(tag) + strlen(r->owner) + 32 + dnsb_rrset_rdata_bytes(r) + r->rdata_count;

	if (*len + need + 1 > *cap) {
		size_t c = (*len + need + 1) * 2;
		char *grown = realloc(*buf, c);
		if (grown == NULL)
			return DNSB_ENOMEM;
		*buf = grown;
		*cap = c;
	}
	*len += (size_t)sprintf(*buf + *len, "%s %s %u %u", tag, r->owner, (unsigned)r->type, r->ttl);
	for (size_t i = 0; i < r->rdata_count; i++)
		*len += (size_t)sprintf(*buf + *len, "\x1f%s", r->rdata[i]);
	*len += (size_t)sprintf(*buf + *len, "\x1e");
	return 0;
}

static int group_key(group *g)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < g->count; i++) {
		const dnsb_change *c = g->changes[i];
		if (c->kind != DNSB_CHANGE_CREATE)
			rc = append_rrset_key(&buf, &len, &cap, "-", &c->old);
		if (rc == 0 && c->kind != DNSB_CHANGE_DELETE)
			rc = append_rrset_key(&buf, &len, &cap, "+", &c->new_set);
	}
	g->key = buf;
	return rc;
}

/*
 * Pending changes form groups; so do changes the parser found invalid, when
 * their owner name is known, so that their group is dropped with them.
 */
static int groupable(const dnsb_change *c, size_t zone_count)
{
	if (c->outcome == DNSB_OUTCOME_PENDING)
		return 1;
	return c->outcome == DNSB_OUTCOME_DROPPED && c->reason == DNSB_REASON_INVALID && c->zone < zone_count &&
	       owner_of(c) != NULL;
}

/* A group with an invalid member is dropped whole: half of a pair misleads the registry. */
static void drop_invalid_groups(group *groups, size_t n)
{
	for (size_t g = 0; g < n; g++) {
		const dnsb_change *bad = NULL;
		char msg[DNSB_ERROR_MESSAGE_MAX];

		for (size_t i = 0; i < groups[g].count && bad == NULL; i++)
			if (groups[g].changes[i]->outcome != DNSB_OUTCOME_PENDING)
				bad = groups[g].changes[i];
		if (bad == NULL)
			continue;
		snprintf(msg, sizeof(msg), "dropped with its group: %s", bad->message ? bad->message : "invalid record");
		for (size_t i = 0; i < groups[g].count; i++) {
			dnsb_change *c = groups[g].changes[i];
			if (c->outcome != DNSB_OUTCOME_PENDING)
				continue;
			c->outcome = DNSB_OUTCOME_DROPPED;
			c->reason = DNSB_REASON_INVALID;
			set_detail(c, 0, NULL, msg);
		}
	}
}

/* Build the change groups. @return 0 or DNSB_ENOMEM */
static int make_groups(dnsb_plan *plan, size_t zone_count, group **out, size_t *ngroups)
{
	size_t n = dnsb_plan_count(plan), *parent, *slot, count = 0;
	dnsb_hmap names = DNSB_HMAP_INIT;
	group *groups = NULL;
	int rc = 0;

	parent = malloc((n ? n : 1) * sizeof(size_t));
	slot = malloc((n ? n : 1) * sizeof(size_t));
	if (parent == NULL || slot == NULL) {
		rc = DNSB_ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		parent[i] = i;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		if (!groupable(c, zone_count))
			continue;
		/* An update's pair shares its owner (the parser checks), so one name per change. */
		rc = uf_join(&names, parent, owner_of(c), i);
		if (rc == 0 && c->owned_record)
			rc = uf_join(&names, parent, c->owned_record, i);
	}
	if (rc < 0)
		goto done;
	/* Count the groups and their sizes, in order of first appearance. */
	for (size_t i = 0; i < n; i++)
		slot[i] = (size_t)-1;
	size_t *sizes = calloc(n ? n : 1, sizeof(size_t));
	if (sizes == NULL) {
		rc = DNSB_ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		if (!groupable(c, zone_count))
			continue;
		size_t r = uf_find(parent, i);
		if (slot[r] == (size_t)-1)
			slot[r] = count++;
		sizes[slot[r]]++;
	}
	if ((groups = calloc(count ? count : 1, sizeof(group))) == NULL) {
		free(sizes);
		rc = DNSB_ENOMEM;
		goto done;
	}
	for (size_t g = 0; g < count && rc == 0; g++)
		if ((groups[g].changes = malloc(sizes[g] * sizeof(dnsb_change *))) == NULL)
			rc = DNSB_ENOMEM;
	free(sizes);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		if (!groupable(c, zone_count))
			continue;
		group *g = &groups[slot[uf_find(parent, i)]];
		size_t k = g->count++;
		/* Insertion by kind rank, stable: groups are small. */
		while (k > 0 && kind_rank(g->changes[k - 1]) > kind_rank(c)) {
			g->changes[k] = g->changes[k - 1];
			k--;
		}
		g->changes[k] = c;
		g->zone = c->zone;
	}
done:
	dnsb_hmap_clear(&names);
	free(parent);
	free(slot);
	*out = groups;
	*ngroups = count;
	return rc;
}

/* Would adding g overflow the batch under the provider's limits? */
typedef struct batch_fill {
	size_t groups, changes, additions, deletions, rdata;
} batch_fill;

static int fits(const engine *e, const batch_fill *f, const group *g, batch_fill *after)
{
	const dnsb_provider_limits *l = &e->p->limits;

	*after = *f;
	after->groups++;
	for (size_t i = 0; i < g->count; i++) {
		const dnsb_change *c = g->changes[i];
		after->changes++;
		if (c->kind != DNSB_CHANGE_DELETE) {
			after->additions++;
			after->rdata += dnsb_rrset_rdata_bytes(&c->new_set);
		}
		if (c->kind != DNSB_CHANGE_CREATE) {
			after->deletions++;
			after->rdata += dnsb_rrset_rdata_bytes(&c->old);
		}
	}
	if (f->groups == 0)
		return 1; /* a group always fits an empty batch; the provider judges it */
	return after->groups <= e->o->batch_size &&
	       (!l->max_changes || after->changes <= l->max_changes) &&
	       (!l->max_additions || after->additions <= l->max_additions) &&
	       (!l->max_deletions || after->deletions <= l->max_deletions) &&
	       (!l->max_rdata_bytes || after->rdata <= l->max_rdata_bytes);
}

/* One batch cut from a zone: counted, then submitted, or in a dry run only shown. */
static void take_batch(engine *e, group **gs, size_t n)
{
	dnsb_change **changes;
	size_t count;

	zone_report(e, gs[0]->zone)->batches++;
	e->rep->batches++;
	if (!e->o->dry_run) {
		run_batch(e, gs, n, NULL);
		return;
	}
	if ((count = flatten(gs, n, &changes)) == 0)
		e->rc = DNSB_ENOMEM;
	else if (e->o->on_batch)
		e->o->on_batch(e->o->payload, zone_name(e, gs[0]->zone), ++e->batch_no, changes, count);
	free(changes);
}

/* Cut a zone's groups, in order, into batches within batch_size and the provider's limits. */
static void run_zone(engine *e, group **gs, size_t n)
{
	size_t start = 0;
	batch_fill fill = { 0 }, after;

	for (size_t i = 0; i < n; i++) {
		if (!fits(e, &fill, gs[i], &after)) {
			take_batch(e, gs + start, i - start);
			start = i;
			memset(&fill, 0, sizeof(fill));
			fits(e, &fill, gs[i], &after);
		}
		fill = after;
	}
	if (start < n)
		take_batch(e, gs + start, n - start);
}

/* ---- the apply ---- */

static void map_zones(engine *e, dnsb_plan *plan)
{
	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		const char *owner = owner_of(c);
		long z = owner ? dnsb_provider_zone_for(e->p, owner) : -1;

		c->zone = z < 0 ? e->p->zone_count : (size_t)z;
		if (c->outcome != DNSB_OUTCOME_PENDING)
			continue;
		if (z < 0) {
			char msg[512];
			snprintf(msg, sizeof(msg), "no configured zone holds %s", owner);
			c->outcome = DNSB_OUTCOME_DROPPED;
			c->reason = DNSB_REASON_NO_ZONE;
			set_detail(c, 0, NULL, msg);
			continue;
		}
		/* An ownership record joins its owner's group only inside one zone. */
		if (c->owned_record && dnsb_provider_zone_for(e->p, c->owned_record) != z) {
			free(c->owned_record);
			c->owned_record = NULL;
		}
	}
}

static void tally(engine *e, dnsb_plan *plan)
{
	double wall = (double)time(NULL);

	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		dnsb_zone_report *z = zone_report(e, c->zone);
		const char *zone = zone_name(e, c->zone);

		e->rep->changes++;
		z->changes++;
		switch (c->outcome) {
		case DNSB_OUTCOME_APPLIED: e->rep->applied++; z->applied++; break;
		case DNSB_OUTCOME_ALREADY_APPLIED: e->rep->already_applied++; z->already_applied++; break;
		case DNSB_OUTCOME_DROPPED: e->rep->dropped++; z->dropped++; break;
		case DNSB_OUTCOME_FAILED: e->rep->failed++; z->failed++; break;
		case DNSB_OUTCOME_PENDING: continue; /* dry run */
		}
		dnsb_metrics_change(e->o->metrics, zone, c);
		if (c->outcome == DNSB_OUTCOME_DROPPED || c->outcome == DNSB_OUTCOME_FAILED) {
			dnsb_log(DNSB_LOG_WARN, "%s %s %s %s: %s%s%s", dnsb_outcome_name(c->outcome),
				 c->kind == DNSB_CHANGE_CREATE ? "create" : c->kind == DNSB_CHANGE_UPDATE ? "update" : "delete",
				 owner_of(c) ? owner_of(c) : "(no name)",
				 dnsb_type_name(c->kind == DNSB_CHANGE_DELETE ? c->old.type : c->new_set.type),
				 dnsb_reason_name(c->reason), c->message ? ": " : "", c->message ? c->message : "");
			if (e->o->droplog && dnsb_droplog_write(e->o->droplog, zone, c, wall) < 0 && e->rc == 0)
				e->rc = dnsb_error_set(e->err, DNSB_EIO, "the drop log could not be written");
		}
	}
}

/* Before sending: groups still in quarantine are dropped without a request. */
static void quarantine_hold_back(engine *e, group *groups, size_t n)
{
	dnsb_quarantine *q = e->o->quarantine;
	double t = now(e);

	for (size_t i = 0; i < n; i++) {
		group *g = &groups[i];
		if (group_key(g) < 0)
			e->rc = DNSB_ENOMEM;
		else if (dnsb_quarantine_check(q, g->key, e->qtoken, t))
			finish_group(g, DNSB_OUTCOME_DROPPED, DNSB_REASON_QUARANTINED, NULL,
				     "conflicted before; held back until its quarantine ends");
	}
}

/*
 * After: a group that conflicted is held (longer each time); one that is
 * in effect is released; groups of this plan's zones not seen are forgotten.
 */
static void quarantine_finish(engine *e, dnsb_plan *plan, group *groups, size_t n)
{
	dnsb_quarantine *q = e->o->quarantine;
	const dnsb_provider *p = e->p;
	const char **zones = malloc((p->zone_count ? p->zone_count : 1) * sizeof(char *));
	char *in_plan = calloc(p->zone_count + 1, 1);
	double t = now(e);
	size_t nzones = 0;

	for (size_t i = 0; i < n; i++) {
		group *g = &groups[i];
		int conflict = 0, done = 1;
		for (size_t k = 0; k < g->count; k++) {
			const dnsb_change *c = g->changes[k];
			conflict |= c->outcome == DNSB_OUTCOME_DROPPED && c->reason == DNSB_REASON_CONFLICT;
			done &= c->outcome == DNSB_OUTCOME_APPLIED || c->outcome == DNSB_OUTCOME_ALREADY_APPLIED;
		}
		if (g->key == NULL)
			continue;
		if (conflict && dnsb_quarantine_hold(q, g->key, zone_name(e, g->zone), e->qtoken, t) < 0)
			e->rc = DNSB_ENOMEM;
		else if (done)
			dnsb_quarantine_release(q, g->key);
	}
	/* Only this plan's zones: a plan for other zones may be running at the same time. */
	for (size_t i = 0; in_plan && i < dnsb_plan_count(plan); i++)
		in_plan[dnsb_plan_change(plan, i)->zone] = 1;
	for (size_t z = 0; zones && in_plan && z < p->zone_count; z++)
		if (in_plan[z])
			zones[nzones++] = p->zones[z];
	if (zones && in_plan)
		dnsb_quarantine_end(q, e->qtoken, zones, nzones);
	else
		e->rc = DNSB_ENOMEM;
	free(in_plan);
	free(zones);
	dnsb_metrics_set_quarantined(e->o->metrics, dnsb_quarantine_count(q, t));
}

static int check_options(const dnsb_engine_options *o, dnsb_error *err)
{
	if (o->version != DNSB_ENGINE_OPTIONS_VERSION)
		return dnsb_error_set(err, DNSB_EINVAL, "engine options version %u, expected %u", o->version,
				      DNSB_ENGINE_OPTIONS_VERSION);
	if (o->batch_size == 0)
		return dnsb_error_set(err, DNSB_EINVAL, "--batch-size must be at least 1");
	if (!(o->backoff_base > 0) || !(o->backoff_cap >= o->backoff_base))
		return dnsb_error_set(err, DNSB_EINVAL, "backoff: need 0 < base (%g s) <= cap (%g s)",
				      o->backoff_base, o->backoff_cap);
	if (!(o->timeout >= 0))
		return dnsb_error_set(err, DNSB_EINVAL, "the timeout must be >= 0 seconds");
	return 0;
}

void dnsb_report_clear(dnsb_report *report)
{
	if (report == NULL)
		return;
	for (size_t i = 0; i < report->zone_count; i++)
		free(report->zones[i].zone);
	free(report->zones);
	memset(report, 0, sizeof(*report));
}

/* Per-zone state and the report's zone array. @return 0 or DNSB_ENOMEM */
static int engine_init(engine *e, dnsb_report *out, dnsb_provider *p, const dnsb_engine_options *o, dnsb_error *err)
{
	size_t zones = p->zone_count + 1; /* the last slot: changes in no zone */

	e->o = o;
	e->p = p;
	e->rep = out;
	e->err = err;
	e->clock = o->clock ? o->clock : dnsb_clock_system();
	e->rng = o->seed ? o->seed : (uint64_t)(now(e) * 1e9) ^ (uint64_t)time(NULL);
	e->deadline = o->timeout > 0 ? now(e) + o->timeout : 0;
	if (o->deadline > 0 && (e->deadline == 0 || o->deadline < e->deadline))
		e->deadline = o->deadline;
	e->zone_slot = malloc(zones * sizeof(long));
	e->zone_stopped = calloc(zones, sizeof(int));
	e->zone_stop_message = calloc(zones, sizeof(char *));
	out->zones = calloc(zones, sizeof(dnsb_zone_report));
	if (!e->zone_slot || !e->zone_stopped || !e->zone_stop_message || !out->zones)
		return DNSB_ENOMEM;
	for (size_t i = 0; i < zones; i++)
		e->zone_slot[i] = -1;
	return 0;
}

static void engine_release(engine *e)
{
	for (size_t z = 0; e->zone_stop_message && z <= e->p->zone_count; z++)
		free(e->zone_stop_message[z]);
	free(e->zone_stop_message);
	free(e->zone_stopped);
	free(e->zone_slot);
}

/* Zones in the provider's order; each zone's pending groups in plan order. */
static int run_zones(engine *e, group *groups, size_t ngroups)
{
	group **order = malloc((ngroups ? ngroups : 1) * sizeof(group *));

	if (order == NULL)
		return DNSB_ENOMEM;
	for (size_t z = 0; z < e->p->zone_count; z++) {
		size_t n = 0;
		for (size_t g = 0; g < ngroups; g++)
			if (groups[g].zone == z && groups[g].changes[0]->outcome == DNSB_OUTCOME_PENDING)
				order[n++] = &groups[g];
		if (n > 0)
			run_zone(e, order, n);
	}
	free(order);
	return 0;
}

/* After a local error nothing is lost silently: whatever is still pending is reported failed. */
static void fail_pending(dnsb_plan *plan, int rc)
{
	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		if (c->outcome == DNSB_OUTCOME_PENDING) {
			c->outcome = DNSB_OUTCOME_FAILED;
			c->reason = DNSB_REASON_TRANSIENT;
			set_detail(c, 0, NULL, dnsb_strerror(rc));
		}
	}
}

int dnsb_engine_apply(dnsb_report *out, dnsb_provider *p, dnsb_plan *plan,
		      const dnsb_engine_options *opts, dnsb_error *err)
{
	static const dnsb_engine_options defaults = DNSB_ENGINE_OPTIONS_INIT;
	const dnsb_engine_options *o = opts ? opts : &defaults;
	int quarantine = o->quarantine && !o->dry_run;
	engine e = { 0 };
	group *groups = NULL;
	size_t ngroups = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = check_options(o, err)) < 0)
		return rc;
	if ((e.rc = engine_init(&e, out, p, o, err)) < 0)
		goto done;
	map_zones(&e, plan);
	if ((e.rc = make_groups(plan, p->zone_count, &groups, &ngroups)) < 0)
		goto done;
	drop_invalid_groups(groups, ngroups);
	if (quarantine) {
		e.qtoken = dnsb_quarantine_begin(o->quarantine);
		quarantine_hold_back(&e, groups, ngroups);
	}
	if ((rc = run_zones(&e, groups, ngroups)) < 0)
		e.rc = rc;
	if (quarantine)
		quarantine_finish(&e, plan, groups, ngroups);
done:
	if (e.rc < 0 && !o->dry_run)
		fail_pending(plan, e.rc);
	if (out->zones)
		tally(&e, plan);
	if (!o->dry_run)
		dnsb_metrics_set_last_apply(o->metrics, (double)time(NULL));
	for (size_t g = 0; g < ngroups; g++) {
		free(groups[g].changes);
		free(groups[g].key);
	}
	free(groups);
	engine_release(&e);
	if (e.rc < 0 && err && err->code != e.rc)
		dnsb_error_set(err, e.rc, "%s", dnsb_strerror(e.rc));
	return e.rc;
}
