/*
 * threshold.c - the safety thresholds (dnsbatch/threshold.h, issue 33 §2):
 * before anything is sent, each zone's pending updates that change something
 * and deletes are counted against the RRsets the zone holds (one list, only
 * for a zone that has such changes, or the count of a listing the caller
 * made moments before: dnsb_engine_options.recent_count); a zone over its threshold, or a change
 * to its apex NS RRset, has its changes held: failed, reason held, with the
 * digest of the held set, unless an operator released that very set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ldns/ldns.h>
#include <openssl/evp.h>

#include "applier/core/clock.h"
#include "applier/engine/internal.h"

static const char *const kind_names[3] = { "create", "update", "delete" };

/* What one zone's pending changes come to. */
typedef struct zone_tally {
	size_t updates, deletes;   /* counted: updates that change something, deletes */
	int apex_ns;               /* some change writes the apex NS RRset */
	int any;                   /* some change is pending */
} zone_tally;

/* The limits that apply to one zone. */
typedef struct limits {
	double update, del;
	size_t min;
} limits;

static char counted(const dnsb_change *c)
{
	if (c->outcome != DNSB_OUTCOME_PENDING)
		return 0;
	if (c->kind == DNSB_CHANGE_DELETE)
		return 'd';
	return c->kind == DNSB_CHANGE_UPDATE && !dnsb_engine_change_noop(c, 0) ? 'u' : 0;
}

static int apex_ns(const engine *e, const dnsb_change *c)
{
	const dnsb_rrset *r = c->kind == DNSB_CHANGE_DELETE ? &c->old : &c->new_set;

	return c->outcome == DNSB_OUTCOME_PENDING && r->type == LDNS_RR_TYPE_NS && r->owner &&
	       strcasecmp(r->owner, dnsb_engine_zone_name(e, c->zone)) == 0;
}

static limits limits_of(const dnsb_thresholds *t, const char *zone)
{
	limits l = { t->max_update_percent, t->max_delete_percent, t->min_existing };

	for (size_t i = 0; i < t->nzones; i++) {
		const dnsb_threshold_zone *z = &t->zones[i];
		if (strcasecmp(z->zone, zone) != 0)
			continue;
		l.update = z->max_update_percent >= 0 ? z->max_update_percent : l.update;
		l.del = z->max_delete_percent >= 0 ? z->max_delete_percent : l.del;
		l.min = z->min_existing >= 0 ? (size_t)z->min_existing : l.min;
	}
	return l;
}

/* Must g be held: any change of it of a kind over its threshold, or the apex NS? */
static int holds(const engine *e, const group *g, int over_u, int over_d)
{
	if (e->o->thresholds->whole_zone)
		return 1;
	for (size_t i = 0; i < g->count; i++) {
		char k = counted(g->changes[i]);
		if ((over_u && k == 'u') || (over_d && k == 'd') || apex_ns(e, g->changes[i]))
			return 1;
	}
	return 0;
}

/* The hex SHA-256 of the zone and the content keys of the marked groups, in plan order. @return 0 or DNSB_ENOMEM */
static int digest_of(const char *zone, group **gs, size_t n, char out[65])
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char sum[32];
	unsigned len = 0;
	int rc = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 ? 0 : DNSB_ENOMEM;

	if (rc == 0)
		EVP_DigestUpdate(md, zone, strlen(zone) + 1);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char *saved = gs[i]->key;
		if ((rc = dnsb_engine_group_key(gs[i])) == 0)
			EVP_DigestUpdate(md, gs[i]->key, strlen(gs[i]->key) + 1);
		free(gs[i]->key);
		gs[i]->key = saved;
	}
	if (rc == 0 && EVP_DigestFinal_ex(md, sum, &len) != 1)
		rc = DNSB_ENOMEM;
	EVP_MD_CTX_free(md);
	for (unsigned i = 0; rc == 0 && i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", sum[i]);
	return rc;
}

/* "updates 8 of 20 RRsets (40%), over --max-update-percent 30" and the like, into why. @return 1 when over */
static int judge(char *why, size_t size, const char *what, size_t n, size_t existing, double max, size_t min)
{
	size_t used = strlen(why);
	int over = existing >= min && existing > 0 && (double)n * 100.0 > max * (double)existing;

	if (over)
		snprintf(why + used, size - used, "%s%s %zu of %zu RRsets (%.0f%%), over --max-%s-percent %g",
			 used ? "; " : "", what, n, existing, 100.0 * (double)n / (double)existing,
			 strcmp(what, "updates") == 0 ? "update" : "delete", max);
	return over;
}

/* The zone's RRsets: a recent listing's count when the caller knows one (options.recent_count: the sidecar's
 * GET /records of the same loop), else one list within the time left (counted as a read).
 * @return 0, or the list's error (lerr filled) */
static int count_rrsets(engine *e, size_t z, size_t *out, dnsb_error *lerr)
{
	const char *zone = dnsb_engine_zone_name(e, z);
	dnsb_rrset_list list = { 0 };
	int rc;

	if (e->o->recent_count && e->o->recent_count(e->o->recent_payload, zone, dnsb_engine_now(e), out))
		return 0;
	dnsb_engine_zone_report(e, z)->reads++;
	rc = dnsb_provider_list_within(e->p, zone, dnsb_engine_time_left(e), &list, lerr);
	*out = list.count;
	dnsb_rrset_list_clear(&list);
	return rc < 0 ? rc : 0;
}

/* Count the zone's RRsets (count_rrsets) and judge its tally into why. A count that fails leaves the share
 * unknown: the changes that count fail (*unknown: DNSB_REASON_TRANSIENT or _FATAL), lerr's message in why.
 * @return 1 when something must be held or failed */
static int over_threshold(engine *e, size_t z, const zone_tally *t, int *over_u, int *over_d, dnsb_reason *unknown,
			  char *why, size_t size)
{
	limits l = limits_of(e->o->thresholds, dnsb_engine_zone_name(e, z));
	dnsb_error lerr = { 0, "" };
	size_t existing = 0;
	int rc;

	why[0] = '\0';
	if (t->updates + t->deletes > 0) {
		if ((rc = count_rrsets(e, z, &existing, &lerr)) < 0) {
			snprintf(why, size, "not sent: the safety thresholds could not count the zone's RRsets (--force "
				 "sends without counting): %.300s", lerr.message[0] ? lerr.message : dnsb_strerror(rc));
			*unknown = rc == DNSB_EFATAL ? DNSB_REASON_FATAL : DNSB_REASON_TRANSIENT;
			*over_u = t->updates > 0;
			*over_d = t->deletes > 0;
			return 1;
		}
		*over_u = judge(why, size, "updates", t->updates, existing, l.update, l.min);
		*over_d = judge(why, size, "deletes", t->deletes, existing, l.del, l.min);
	}
	if (t->apex_ns)
		snprintf(why + strlen(why), size - strlen(why), "%sit changes the NS RRset at the apex", why[0] ? "; " : "");
	return *over_u || *over_d || t->apex_ns;
}

/* Settle the held groups failed/held, note the set for release and count it. */
static void hold(engine *e, size_t z, group **gs, size_t n, const char *why, const char *digest)
{
	const dnsb_thresholds *t = e->o->thresholds;
	const char *zone = dnsb_engine_zone_name(e, z);
	size_t kinds[3] = { 0 }, total = 0;
	char msg[1024];

	if (t->whole_zone)
		snprintf(msg, sizeof(msg), "held: zone %s: %.400s: nothing sent for this zone (digest %s); pass --force to "
			 "apply it, or raise the threshold", zone, why, digest);
	else
		snprintf(msg, sizeof(msg), "held: zone %s: %.400s (digest %s); release this set with POST "
			 "/release?digest=%s on the webhook port, or raise the threshold", zone, why, digest, digest);
	for (size_t g = 0; g < n; g++)
		for (size_t i = 0; i < gs[g]->count; i++)
			if (gs[g]->changes[i]->outcome == DNSB_OUTCOME_PENDING) {
				kinds[gs[g]->changes[i]->kind]++;
				total++;
			}
	for (size_t g = 0; g < n; g++)
		dnsb_engine_finish(e, gs[g], DNSB_OUTCOME_FAILED, DNSB_REASON_HELD, NULL, msg);
	dnsb_log(DNSB_LOG_WARN, "%zu changes %s", total, msg);
	if (dnsb_release_note(t->release, digest, zone, dnsb_clock_wall(e->clock)) < 0 && e->rc == 0)
		e->rc = dnsb_error_set(e->err, DNSB_ENOMEM, "out of memory noting a held set");
	for (int k = 0; k < 3; k++)
		dnsb_metrics_set_held(e->o->metrics, zone, kind_names[k], kinds[k]);
}

/* One zone: judged, and its groups to hold held unless released. */
static void guard_zone(engine *e, size_t z, const zone_tally *t, group **gs, size_t ngroups)
{
	int over_u = 0, over_d = 0;
	dnsb_reason unknown = DNSB_REASON_NONE;
	size_t n = 0;
	char why[512], digest[65];

	for (int k = 0; k < 3; k++)
		dnsb_metrics_set_held(e->o->metrics, dnsb_engine_zone_name(e, z), kind_names[k], 0);
	if (e->o->thresholds->force || !over_threshold(e, z, t, &over_u, &over_d, &unknown, why, sizeof(why)))
		return;
	if (unknown != DNSB_REASON_NONE)
		over_u = over_d = 1; /* the share is unknown: what counts is not sent */
	for (size_t g = 0; g < ngroups; g++)
		if (gs[g]->zone == z && dnsb_engine_group_open(gs[g]) && holds(e, gs[g], over_u, over_d))
			gs[n++] = gs[g]; /* gs[n] was looked at already: n <= g */
	if (n == 0)
		return;
	for (size_t g = 0; unknown != DNSB_REASON_NONE && g < n; g++)
		dnsb_engine_finish(e, gs[g], DNSB_OUTCOME_FAILED, unknown, NULL, why);
	if (unknown != DNSB_REASON_NONE)
		return;
	if (digest_of(dnsb_engine_zone_name(e, z), gs, n, digest) < 0) {
		e->rc = dnsb_error_set(e->err, DNSB_ENOMEM, "out of memory taking a held set's digest");
		return;
	}
	if (dnsb_release_take(e->o->thresholds->release, digest, dnsb_clock_wall(e->clock))) {
		dnsb_log(DNSB_LOG_WARN, "zone %s: %s: released by an operator (digest %s): sent",
			 dnsb_engine_zone_name(e, z), why, digest);
		return;
	}
	hold(e, z, gs, n, why, digest);
}

void dnsb_engine_hold_thresholds(engine *e, group *groups, size_t ngroups)
{
	zone_tally *t;
	group **gs;

	if (e->o->thresholds == NULL || e->o->dry_run || e->plan == NULL)
		return;
	t = calloc(e->zone_count + 1, sizeof(*t));
	gs = malloc((ngroups ? ngroups : 1) * sizeof(*gs));
	if (t == NULL || gs == NULL) {
		e->rc = dnsb_error_set(e->err, DNSB_ENOMEM, "out of memory judging the safety thresholds");
	} else {
		for (size_t i = 0; i < dnsb_plan_count(e->plan); i++) {
			const dnsb_change *c = dnsb_plan_change(e->plan, i);
			char k = counted(c);
			if (c->zone >= e->zone_count || c->outcome != DNSB_OUTCOME_PENDING)
				continue;
			t[c->zone].any = 1;
			t[c->zone].updates += k == 'u';
			t[c->zone].deletes += k == 'd';
			t[c->zone].apex_ns |= apex_ns(e, c);
		}
		for (size_t z = 0; z < e->zone_count && e->rc == 0; z++) {
			if (!t[z].any)
				continue;
			for (size_t g = 0; g < ngroups; g++)
				gs[g] = &groups[g];
			guard_zone(e, z, &t[z], gs, ngroups);
		}
	}
	free(gs);
	free(t);
}
