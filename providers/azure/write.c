/*
 * write.c - one submission to Azure DNS: the batch's record sets read with
 * their ETags, the batch replayed over them (a mismatch is a conflict found
 * without writing), then one conditional write per record set (deletions
 * first: a CNAME must be gone before another type takes its name), and,
 * when any write is refused, those already written undone with conditional
 * writes on the ETags they returned (a write whose reply was lost is read
 * back first: undone when it landed). The answer is OK only when every write
 * landed; the refusal's class only when everything written was undone;
 * FATAL ("rollback") otherwise: part of the batch may be in the zone, and
 * no later answer may then call its changes applied or dropped. A send that
 * cannot go out after some writes landed (no token) is settled the same way.
 * A change at a record set this library cannot represent (rrset.c: an alias,
 * ...) is a conflict named before anything is written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "providers/azure/internal.h"
#include "providers/common/precheck.h"

/* The (owner, type) keys of every RRset the batch names. @return a malloc'd array (2 per change) or NULL */
static dnsb_rrkey *batch_keys(dnsb_change *const *changes, size_t n, size_t *count)
{
	dnsb_rrkey *keys = malloc(2 * n * sizeof(*keys));

	*count = 0;
	for (size_t i = 0; keys && i < n; i++) {
		if (changes[i]->kind != DNSB_CHANGE_CREATE)
			keys[(*count)++] = (dnsb_rrkey){ changes[i]->old.owner, changes[i]->old.type };
		if (changes[i]->kind != DNSB_CHANGE_DELETE)
			keys[(*count)++] = (dnsb_rrkey){ changes[i]->new_set.owner, changes[i]->new_set.type };
	}
	return keys;
}

static int set_condition(char **out, const char *etag)
{
	int rc = etag ? asprintf(out, "If-Match: %s", etag) : asprintf(out, "If-None-Match: *");

	if (rc < 0)
		*out = NULL;
	return rc < 0 ? DNSB_ENOMEM : 0;
}

/* The write of one RRset towards `to` (NULL: deleted) from what held it under `etag` (NULL: nothing). */
static int write_make(dnsb_azure_write *w, dnsb_azure *a, const dnsb_hb_zone *zone, const char *owner, uint16_t type,
		      const dnsb_rrset *to, const char *etag, dnsb_error *err)
{
	int rc;

	memset(w, 0, sizeof(*w));
	w->rc = 1; /* not sent yet */
	w->method = to ? "PUT" : "DELETE";
	if ((w->url = dnsb_azure_rrset_url(a, zone, owner, type)) == NULL || set_condition(&w->condition, etag) != 0)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if (to && (rc = dnsb_azure_rrset_body(&w->body, to, a->cfg.private_zones, err)) != 0)
		return rc;
	return 0;
}

/* Does change c touch the RRset (owner, type)? */
static int touches(const dnsb_change *c, const char *owner, uint16_t type)
{
	return (c->kind != DNSB_CHANGE_CREATE && c->old.type == type && strcmp(c->old.owner, owner) == 0) ||
	       (c->kind != DNSB_CHANGE_DELETE && c->new_set.type == type && strcmp(c->new_set.owner, owner) == 0);
}

/* How bad a refusal is, to choose the batch's answer among several. */
static int severity(dnsb_class cls)
{
	static const int rank[] = { [DNSB_CLASS_OK] = 0, [DNSB_CLASS_INVALID] = 1, [DNSB_CLASS_CONFLICT] = 2,
				    [DNSB_CLASS_TOO_LARGE] = 1, [DNSB_CLASS_RATE_LIMITED] = 3,
				    [DNSB_CLASS_TRANSIENT] = 4, [DNSB_CLASS_FATAL] = 5 };
	return rank[cls];
}

/* The submission's state: the plan of writes and their undos. */
typedef struct sub {
	dnsb_azure *a;
	const dnsb_hb_zone *zone;
	dnsb_precheck patch;   /* the RRsets to write (held -> final) */
	dnsb_hb_tags tags;       /* ETags read */
	dnsb_azure_write *w;     /* w[i] writes patch.entries[order[i]] */
	size_t *order;
	size_t count;
} sub;

static int plan_writes(sub *s, dnsb_error *err)
{
	size_t k = 0;
	int rc = 0;

	s->w = calloc(s->patch.count ? s->patch.count : 1, sizeof(*s->w));
	s->order = calloc(s->patch.count ? s->patch.count : 1, sizeof(*s->order));
	if (s->w == NULL || s->order == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < s->patch.count; i++)
			if ((s->patch.entries[i].final == NULL) == (pass == 0))
				s->order[k++] = i;
	for (size_t i = 0; rc == 0 && i < k; i++) {
		const dnsb_precheck_entry *e = &s->patch.entries[s->order[i]];
		const dnsb_hb_tag *t = e->held ? dnsb_hb_tags_find(&s->tags, e->owner, e->type, NULL, NULL) : NULL;
		if (e->held && t == NULL)
			return dnsb_error_set(err, DNSB_ETRANSIENT, "%s %s: listed without an etag", e->owner,
					      dnsb_type_name(e->type));
		rc = write_make(&s->w[i], s->a, s->zone, e->owner, e->type, e->final, t ? t->tag : NULL, err);
		s->count = i + 1;
	}
	return rc;
}

/* Did the write land (1), not land (0), or nobody knows (-1: a transient answer, maybe after the commit)? */
static int landed(const dnsb_azure_write *w)
{
	if (w->rc == 1)
		return 0;
	if (w->rc != 0 || w->res.cls == DNSB_CLASS_TRANSIENT)
		return -1;
	return w->res.cls == DNSB_CLASS_OK;
}

/*
 * The ETag to undo write i on: the one its reply returned; for a write whose
 * fate is unknown, the one read now when the record set holds what it wrote
 * (held by `now`); NULL with *skip set when it did not land after all.
 * @return 0, or -1 when nothing can be undone safely (another writer came)
 */
static int undo_tag(const sub *s, size_t i, const dnsb_rrset_list *now, const dnsb_hb_tags *now_tags, const char **etag,
		    int *skip)
{
	const dnsb_precheck_entry *e = &s->patch.entries[s->order[i]];
	const dnsb_rrset *cur = dnsb_rrset_list_find(now, e->owner, e->type);
	const dnsb_hb_tag *t = cur ? dnsb_hb_tags_find(now_tags, e->owner, e->type, NULL, NULL) : NULL;

	*skip = 0;
	*etag = s->w[i].etag;
	if (landed(&s->w[i]) == 1)
		return e->final != NULL && *etag == NULL ? -1 : 0;
	if ((cur == NULL && e->held == NULL) || (cur && e->held && dnsb_rrset_equal(cur, e->held))) {
		*skip = 1; /* it did not land */
		return 0;
	}
	if ((cur == NULL) != (e->final == NULL) || (cur && !dnsb_rrset_equal(cur, e->final)))
		return -1;
	*etag = t ? t->tag : NULL;
	return cur && *etag == NULL ? -1 : 0;
}

/* Read the batch's record sets again, for the writes whose fate is unknown. */
static int read_unknown(sub *s, double give_up, dnsb_rrset_list *now, dnsb_hb_tags *now_tags, dnsb_error *err)
{
	dnsb_rrkey *keys = malloc((s->count ? s->count : 1) * sizeof(*keys));
	size_t k = 0;
	int rc = 0;

	if (keys == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	for (size_t i = 0; i < s->count; i++)
		if (landed(&s->w[i]) < 0)
			keys[k++] = (dnsb_rrkey){ s->patch.entries[s->order[i]].owner, s->patch.entries[s->order[i]].type };
	if (k > 0)
		rc = dnsb_azure_read_keys(s->a, s->zone, keys, k, give_up, now, now_tags, err);
	free(keys);
	return rc;
}

/*
 * Undo the writes that landed, each conditional on the ETag it returned (or,
 * for a write whose reply was lost, on the one read back when the record set
 * holds what it wrote). @return how many could not be undone, or DNSB_ENOMEM
 */
static int undo(sub *s, double give_up, dnsb_error *err)
{
	dnsb_azure_write *u = calloc(s->count ? s->count : 1, sizeof(*u));
	dnsb_rrset_list now = { 0 };
	dnsb_hb_tags now_tags = { 0 };
	size_t m = 0;
	int failed = 0, rc, read_ok = 1;

	if (u == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = read_unknown(s, give_up, &now, &now_tags, err)) != 0 && rc != DNSB_ENOMEM)
		read_ok = 0, rc = 0; /* no read: the unknown writes stay unknown */
	for (size_t i = 0; rc == 0 && i < s->count; i++) {
		const dnsb_precheck_entry *e = &s->patch.entries[s->order[i]];
		const char *etag;
		int skip;
		if (landed(&s->w[i]) == 0)
			continue;
		if ((landed(&s->w[i]) < 0 && !read_ok) || undo_tag(s, i, &now, &now_tags, &etag, &skip) != 0) {
			failed++;
			continue;
		}
		if (!skip)
			rc = write_make(&u[m++], s->a, s->zone, e->owner, e->type, e->held, e->final ? etag : NULL, err);
	}
	if (rc == 0 && m > 0)
		rc = dnsb_azure_send(s->a, u, m, give_up, err);
	for (size_t i = 0; i < m; i++) {
		if (rc != 0 || u[i].rc != 0 || u[i].res.cls != DNSB_CLASS_OK) {
			failed++;
			dnsb_log(DNSB_LOG_WARN, "azure: undo %s %s: %s %s", u[i].method, u[i].url,
				 rc ? "not sent" : dnsb_class_name(u[i].res.cls), rc ? "" : u[i].res.message);
		}
		dnsb_azure_write_clear(&u[i]);
	}
	free(u);
	dnsb_rrset_list_clear(&now);
	dnsb_hb_tags_clear(&now_tags);
	return rc == DNSB_ENOMEM ? rc : failed;
}

/* The batch's answer from its refused writes: the worst class, with every refused RRset's changes named. */
static void refusal(sub *s, dnsb_change *const *changes, size_t n, dnsb_result *out)
{
	const dnsb_azure_write *worst = NULL;

	for (size_t i = 0; i < s->count; i++) {
		const dnsb_azure_write *w = &s->w[i];
		const dnsb_precheck_entry *e = &s->patch.entries[s->order[i]];
		if (w->res.cls == DNSB_CLASS_OK)
			continue;
		if (worst == NULL || severity(w->res.cls) > severity(worst->res.cls))
			worst = w;
		if (w->res.cls != DNSB_CLASS_CONFLICT && w->res.cls != DNSB_CLASS_INVALID)
			continue;
		for (size_t c = 0; c < n; c++) {
			char note[600];
			if (!touches(changes[c], e->owner, e->type))
				continue;
			snprintf(note, sizeof(note), "%s %s %s: HTTP %d %s: %s", w->method, e->owner, dnsb_type_name(e->type),
				 w->res.status, w->res.code, w->res.message);
			dnsb_result_add_culprit_note(out, c, note);
		}
	}
	if (worst) {
		dnsb_result_set(out, worst->res.cls, worst->res.status, worst->res.code, "%s", worst->res.message);
		out->retry_after = worst->res.retry_after;
	}
}

/* The zone's record-set count (read.c's estimate of its listing) after the writes that surely landed. */
static void count_sets(sub *s)
{
	size_t *sets = &s->a->zone_sets[s->zone - s->a->base.zones];

	for (size_t i = 0; i < s->count; i++) {
		const dnsb_precheck_entry *e = &s->patch.entries[s->order[i]];
		if (landed(&s->w[i]) != 1)
			continue;
		if (e->held == NULL && e->final)
			__atomic_add_fetch(sets, 1, __ATOMIC_RELAXED);
		else if (e->held && e->final == NULL && __atomic_load_n(sets, __ATOMIC_RELAXED) > 0)
			__atomic_sub_fetch(sets, 1, __ATOMIC_RELAXED);
	}
}

/*
 * Send the writes: the deletions, then the rest unless a deletion was
 * refused. @return 0, or the code of a send that could not go out (no token:
 * err says why); what was written before it is still to be settled
 */
static int send_writes(sub *s, double give_up, dnsb_error *err)
{
	size_t deletes = 0;
	int rc, refused = 0;

	while (deletes < s->count && s->patch.entries[s->order[deletes]].final == NULL)
		deletes++;
	rc = dnsb_azure_send(s->a, s->w, deletes, give_up, err);
	for (size_t i = 0; rc == 0 && i < deletes; i++)
		refused |= s->w[i].res.cls != DNSB_CLASS_OK;
	if (rc == 0 && !refused)
		rc = dnsb_azure_send(s->a, s->w + deletes, s->count - deletes, give_up, err);
	return rc;
}

/* Part of the batch may be written: no answer but FATAL keeps the engine from calling a change of it dropped (or
 * applied) on a later read that sees only a part. */
static void rollback(dnsb_result *out, int undone, size_t written)
{
	char was[64];

	snprintf(was, sizeof(was), "%s", dnsb_class_name(out->cls));
	out->culprit_count = 0;
	dnsb_result_set(out, DNSB_CLASS_FATAL, out->status, "rollback",
			"a write was refused or not sent (%s) and %d of the %zu record sets written may remain: "
			"the zone needs a look before the next run", was, undone, written);
}

/*
 * Send the writes and settle the answer. Every way out commits (OK), undoes
 * what was written (the refusal's class), or ends FATAL "rollback": a send
 * that could not go out (the token, memory) between the deletions and the
 * rest is a refusal like any other.
 */
static int write_all(sub *s, dnsb_change *const *changes, size_t n, double give_up, dnsb_result *out, dnsb_error *err)
{
	dnsb_error sent_err = { 0, "" };
	size_t written = 0;
	int sent = send_writes(s, give_up, &sent_err), undone;

	dnsb_result_init(out);
	for (size_t i = 0; i < s->count; i++)
		written += landed(&s->w[i]) != 0;
	if (sent != 0 && written == 0)
		return dnsb_error_set(err, sent, "%s", sent_err.message); /* nothing went out */
	count_sets(s);
	refusal(s, changes, n, out);
	if (sent != 0 && out->cls == DNSB_CLASS_OK && dnsb_result_from_error(out, sent, 0, "write", &sent_err, NULL) != 0)
		dnsb_result_set(out, DNSB_CLASS_FATAL, 0, "enomem", "write: %s", sent_err.message);
	if (out->cls == DNSB_CLASS_OK)
		return 0;
	if ((undone = written > 0 ? undo(s, give_up, err) : 0) < 0)
		undone = (int)written; /* no memory to undo: nothing is known undone */
	if (undone > 0)
		rollback(out, undone, written);
	dnsb_log(DNSB_LOG_DEBUG, "azure: %s: %zu record sets, %zu written, %s%s", s->zone->id, s->count, written,
		 dnsb_class_name(out->cls), written && !undone ? ", undone" : "");
	return 0;
}

/* A change touching a record set this library cannot represent (an alias, ...) is a conflict, named: nothing is
 * written over it or deletes it. @return 1 when the batch met one (out says which), else 0 */
static int unrepresentable(const sub *s, dnsb_change *const *changes, size_t n, dnsb_result *out)
{
	const char *first = NULL;
	size_t named = 0;

	for (size_t c = 0; c < n; c++) {
		const dnsb_rrset *r = changes[c]->kind == DNSB_CHANGE_CREATE ? &changes[c]->new_set : &changes[c]->old;
		const char *why = dnsb_azure_opaque(&s->tags, r->owner, r->type);
		char note[400];
		if (why == NULL && changes[c]->kind == DNSB_CHANGE_UPDATE) {
			r = &changes[c]->new_set;
			why = dnsb_azure_opaque(&s->tags, r->owner, r->type);
		}
		if (why == NULL)
			continue;
		snprintf(note, sizeof(note), "%s %s: Azure holds %s; dnsbatch never writes over it nor deletes it",
			 r->owner, dnsb_type_name(r->type), why);
		dnsb_result_add_culprit_note(out, c, note);
		if (named++ == 0)
			first = r->owner;
	}
	if (named > 0)
		dnsb_result_set(out, DNSB_CLASS_CONFLICT, 0, "unrepresentable", "%s: a record set dnsbatch cannot "
				"represent is in the way (%zu changes named)", first, named);
	return named > 0;
}

static void sub_clear(sub *s)
{
	for (size_t i = 0; s->w && i < s->count; i++)
		dnsb_azure_write_clear(&s->w[i]);
	free(s->w);
	free(s->order);
	dnsb_precheck_clear(&s->patch);
	dnsb_hb_tags_clear(&s->tags);
}

int dnsb_azure_submit(dnsb_hb *b, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n, double give_up,
		      dnsb_result *out, dnsb_error *err)
{
	sub s = { (dnsb_azure *)b, zone, { 0 }, { 0 }, NULL, NULL, 0 };
	dnsb_rrset_list held = { 0 };
	dnsb_error e = { 0, "" };
	size_t nkeys;
	dnsb_rrkey *keys = batch_keys(changes, n, &nkeys);
	int rc;

	if (keys == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	rc = dnsb_azure_read_keys(s.a, zone, keys, nkeys, give_up, &held, &s.tags, &e);
	free(keys);
	if (rc != 0) {
		rc = dnsb_result_from_error(out, rc, 0, "read before writing", &e, err);
	} else if (unrepresentable(&s, changes, n, out)) {
		rc = 0;
	} else if ((rc = dnsb_precheck_run(&s.patch, out, changes, n, &held, NULL)) != 0) {
		rc = dnsb_error_set(err, rc, "out of memory");
	} else if (out->cls == DNSB_CLASS_OK && s.patch.count > 0) {
		if ((rc = plan_writes(&s, &e)) == 0)
			rc = write_all(&s, changes, n, give_up, out, &e);
		if (rc != 0)
			rc = dnsb_result_from_error(out, rc, 0, "write", &e, err);
	}
	sub_clear(&s);
	dnsb_rrset_list_clear(&held);
	return rc;
}
