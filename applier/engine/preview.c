/*
 * preview.c - `dnsbatch plan` (issue 33 §1): what apply would do now, with
 * nothing written. Each zone's pending groups are cut into batches of
 * batch_size groups and read back, one read per batch, through the read
 * verify-before-drop makes (verify.c, with the diagnosis's keys); then each
 * group is judged as apply judges it after a refusal: wholly in effect ->
 * already_applied; its changes in effect -> already_applied, and of the rest,
 * a read that shows what is in the way -> dropped, reason conflict, with the
 * diagnosis a drop gets (diagnose.c); else -> applied ("would apply"). A read
 * that fails -> failed, reason transient. The provider may still refuse what
 * no read shows (its own validation): the preview cannot see that.
 * The RRsets read are hashed, sorted, into the live-state digest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>
#include <openssl/evp.h>

#include "applier/engine/diagnose.h"
#include "applier/engine/internal.h"

#define PREVIEW_MESSAGE "preview: the provider holds what is in the way"

static int text_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One RRset as text: owner, type, TTL, set identifier and its sorted records. @return malloc'd or NULL */
static char *rrset_text(const dnsb_rrset *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	fprintf(f, "%s %u %u %s", r->owner ? r->owner : "", (unsigned)r->type, (unsigned)r->ttl, r->set_id ? r->set_id : "");
	for (size_t i = 0; i < r->rdata_count; i++)
		fprintf(f, " %s", r->rdata[i]);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Add what one read held to the live-state digest, in a stable order. */
static void hash_held(engine *e, EVP_MD_CTX *md, const char *zone, const dnsb_rrset_list *held)
{
	char **t = calloc(held->count ? held->count : 1, sizeof(char *));

	if (t == NULL) {
		e->rc = DNSB_ENOMEM;
		return;
	}
	for (size_t i = 0; i < held->count; i++)
		if ((t[i] = rrset_text(&held->items[i])) == NULL)
			e->rc = DNSB_ENOMEM;
	if (e->rc == 0) {
		qsort(t, held->count, sizeof(char *), text_cmp);
		EVP_DigestUpdate(md, zone, strlen(zone) + 1);
		for (size_t i = 0; i < held->count; i++)
			if (i == 0 || strcmp(t[i], t[i - 1]) != 0) /* one RRset asked for twice counts once */
				EVP_DigestUpdate(md, t[i], strlen(t[i]) + 1);
	}
	for (size_t i = 0; i < held->count; i++)
		free(t[i]);
	free(t);
}

/* Does a pending change of g before change `upto` remove (owner, type, set_id)? */
static int removed_before(const group *g, size_t upto, const dnsb_rrset *r)
{
	for (size_t i = 0; i < upto; i++) {
		const dnsb_change *c = g->changes[i];
		if (c->outcome == DNSB_OUTCOME_PENDING && c->kind != DNSB_CHANGE_CREATE && c->old.type == r->type &&
		    strcmp(c->old.owner, r->owner) == 0 && strcmp(c->old.set_id ? c->old.set_id : "",
								  r->set_id ? r->set_id : "") == 0)
			return 1;
	}
	return 0;
}

/* Would the provider refuse g, by the read: an old RRset not held as the change expects it, a created RRset
 * that exists, or a CNAME beside other data? (An update's own RRset existing is its condition, not a cause.) */
static int in_the_way(const group *g, const dnsb_rrset_list *held)
{
	for (size_t i = 0; i < g->count; i++) {
		const dnsb_change *c = g->changes[i];
		const dnsb_rrset *cur, *n = &c->new_set;

		if (c->outcome != DNSB_OUTCOME_PENDING)
			continue;
		if (c->kind != DNSB_CHANGE_CREATE) {
			cur = dnsb_rrset_list_find_set(held, c->old.owner, c->old.type, c->old.set_id);
			if (cur == NULL || !dnsb_rrset_matches_old(cur, &c->old))
				return 1;
		}
		if (c->kind != DNSB_CHANGE_CREATE)
			continue;
		if (dnsb_rrset_list_find_set(held, n->owner, n->type, n->set_id) != NULL && !removed_before(g, i, n))
			return 1;
		for (size_t k = 0; k < held->count; k++) {
			const dnsb_rrset *o = &held->items[k];
			if (strcmp(o->owner, n->owner) != 0 || o->type == n->type || removed_before(g, i, o))
				continue;
			if (o->type == LDNS_RR_TYPE_CNAME || (n->type == LDNS_RR_TYPE_CNAME && o->type != LDNS_RR_TYPE_RRSIG &&
			    o->type != LDNS_RR_TYPE_NSEC && o->type != LDNS_RR_TYPE_NSEC3))
				return 1;
		}
	}
	return 0;
}

/* Judge one group against the read. */
static void judge(engine *e, group *g, const dnsb_rrset_list *held)
{
	if (dnsb_engine_group_in_effect(e, g, held)) {
		dnsb_engine_finish(e, g, DNSB_OUTCOME_ALREADY_APPLIED, DNSB_REASON_NONE, NULL, "the provider holds it already");
		return;
	}
	for (size_t i = 0; i < g->count; i++) {
		dnsb_change *c = g->changes[i];
		if (c->outcome == DNSB_OUTCOME_PENDING && dnsb_engine_change_in_effect(e, g, c, held))
			dnsb_engine_settle_change(e, c, DNSB_OUTCOME_ALREADY_APPLIED, DNSB_REASON_NONE, 0, NULL,
						  "the provider holds it already");
	}
	if (in_the_way(g, held)) {
		dnsb_engine_diagnose(e, g, held);
		dnsb_engine_finish(e, g, DNSB_OUTCOME_DROPPED, DNSB_REASON_CONFLICT, NULL, PREVIEW_MESSAGE);
	} else {
		dnsb_engine_finish(e, g, DNSB_OUTCOME_APPLIED, DNSB_REASON_NONE, NULL, NULL);
	}
}

/* One batch: one read, each group judged. */
static void preview_batch(engine *e, EVP_MD_CTX *md, group **gs, size_t n)
{
	dnsb_rrset_list held = { 0 };
	dnsb_error rerr = { 0, "" };

	e->rep->batches++;
	dnsb_engine_zone_report(e, gs[0]->zone)->batches++;
	/* The diagnosis's keys include registry names, which may fall outside the zone (the apex's "a-example.com."):
	 * a server refuses the read then, and the preview reads again without them (no owner shown). */
	int rc = dnsb_engine_read_back(e, gs, n, 1, &held, &rerr);

	if (rc < 0 && e->rc == 0) {
		dnsb_rrset_list_clear(&held);
		memset(&held, 0, sizeof(held));
		rc = dnsb_engine_read_back(e, gs, n, 0, &held, &rerr);
	}
	if (rc < 0) {
		for (size_t i = 0; i < n; i++)
			dnsb_engine_finish(e, gs[i], DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, NULL, rerr.message);
	} else {
		hash_held(e, md, dnsb_engine_zone_name(e, gs[0]->zone), &held);
		for (size_t i = 0; i < n; i++)
			judge(e, gs[i], &held);
	}
	dnsb_rrset_list_clear(&held);
}

void dnsb_engine_preview(engine *e, group *groups, size_t ngroups)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	group **gs = malloc((ngroups ? ngroups : 1) * sizeof(*gs));
	unsigned char sum[32];
	unsigned len = 0;

	if (md == NULL || gs == NULL || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
		e->rc = dnsb_error_set(e->err, DNSB_ENOMEM, "out of memory starting the preview");
		goto done;
	}
	for (size_t z = 0; z < e->zone_count && e->rc == 0; z++) {
		size_t n = 0;
		for (size_t g = 0; g < ngroups; g++)
			if (groups[g].zone == z && dnsb_engine_group_open(&groups[g]))
				gs[n++] = &groups[g];
		for (size_t at = 0; at < n && e->rc == 0; at += e->o->batch_size)
			preview_batch(e, md, gs + at, n - at < e->o->batch_size ? n - at : e->o->batch_size);
	}
	if (e->rc == 0 && e->o->live_digest && EVP_DigestFinal_ex(md, sum, &len) == 1)
		for (unsigned i = 0; i < 32; i++)
			snprintf(e->o->live_digest + 2 * i, 3, "%02x", sum[i]);
done:
	EVP_MD_CTX_free(md);
	free(gs);
}
