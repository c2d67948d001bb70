/*
 * write.c - one submission to DigitalOcean: the batch's names read (records
 * and ids), the batch replayed over them (providers/common/precheck.h, and no CNAME
 * at the apex: diff.c), room checked in the token's hour, then its requests
 * (diff.c) in three runs, each side by side (send.c): the DELETEs, the PUTs,
 * the POSTs (a CNAME leaves a name before an A takes it). The answer is OK
 * only when every request landed. When one is refused, no later run starts,
 * and what landed is undone, the last run first (a POST deleted by its new
 * id, a PUT put back, a DELETE posted again); the answer is the refusal's
 * class, the changes at its RRset named. A request whose reply was lost is
 * settled by reading its RRset back before anything else (send.c). An undo
 * that fails, or a request nobody can tell of beside others that landed,
 * ends FATAL "rollback": part of the batch may be in the zone, named in the
 * message, and no later answer may call its changes applied or dropped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/clock.h"
#include "providers/digitalocean/digitalocean.h"

/* Seconds the undo of a batch may take at most, whatever time the engine had left (a half-written group is worse
 * than a late answer). */
#define UNDO_SECONDS 60.0

typedef struct sub {
	dnsb_do *d;
	const dnsb_hb_zone *zone;
	dnsb_rrset_list held;  /* the RRsets read before writing (the patch's entries point into it) */
	dnsb_precheck patch;
	dnsb_hb_tags ids;      /* the records read before writing */
	dnsb_do_op *ops;       /* DELETEs, then PUTs, then POSTs (dnsb_do_diff) */
	size_t count;
} sub;

static const char *op_method(const dnsb_do_op *op)
{
	static const char *const m[] = { "DELETE", "PUT", "POST" };

	return m[op->kind];
}

/* The op that undoes a landed one: a POST deleted, a PUT put back, a DELETE posted again. */
static dnsb_do_op reverse(const dnsb_do_op *op)
{
	dnsb_do_op u = *op;

	u.kind = op->kind == DNSB_DO_POST ? DNSB_DO_DELETE : op->kind == DNSB_DO_DELETE ? DNSB_DO_POST : DNSB_DO_PUT;
	u.rdata = op->old_rdata;
	u.ttl = op->old_ttl;
	u.old_rdata = op->rdata;
	u.old_ttl = op->ttl;
	if (u.kind == DNSB_DO_POST)
		u.id[0] = '\0';
	return u;
}

/* The end of the run of ops of one kind starting at `from`. */
static size_t run_end(const dnsb_do_op *ops, size_t count, size_t from)
{
	size_t to = from;

	while (to < count && ops[to].kind == ops[from].kind)
		to++;
	return to;
}

/* Name an op that could not be undone in `left` (three at most) and the log. */
static void left_behind(const dnsb_do_op *op, int failed, char *left, size_t left_size)
{
	if (failed <= 3)
		snprintf(left + strlen(left), left_size - strlen(left), "%s%s %s %s %s%s", failed > 1 ? "; " : "",
			 op_method(op), op->owner, dnsb_type_name(op->type), op->rdata ? op->rdata : op->old_rdata,
			 op->theirs ? ", refused as a duplicate: maybe another client's" : "");
	dnsb_log(DNSB_LOG_WARN, "digitalocean: undo of %s %s %s failed", op_method(op), op->owner, dnsb_type_name(op->type));
}

/*
 * Undo the ops that landed, the last kind first (POSTs deleted, PUTs put back, DELETEs posted again), each kind side by
 * side, an undo whose reply was lost read back as any write is; an op whose fate is unknown cannot be undone, nor a POST refused as a duplicate whose record the read-back
 * found (op->theirs): deleting it would delete another client's record when it was one. @return how many were not undone (named in `left`), or < 0
 */
static int undo(sub *s, const signed char *state, char *left, size_t left_size, dnsb_error *err)
{
	dnsb_do_op *u = calloc(s->count + 1, sizeof(*u));
	signed char *ust = calloc(s->count + 1, 1);
	dnsb_result *ures = calloc(s->count + 1, sizeof(*ures));
	dnsb_do_batch ub = { s->d, s->zone, NULL, u, 0, ust, ures };
	int failed = 0, rc = u && ust && ures ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");

	for (size_t k = s->count; rc == 0 && k-- > 0;) {
		if (state[k] == DNSB_DO_LANDED && !s->ops[k].theirs)
			u[ub.count++] = reverse(&s->ops[k]);
		else if (state[k] != DNSB_DO_NOT_LANDED) /* unknown; or a record that may be another client's: kept */
			left_behind(&s->ops[k], ++failed, left, left_size);
	}
	for (size_t from = 0, to; rc == 0 && from < ub.count; from = to) {
		to = run_end(u, ub.count, from);
		rc = dnsb_do_send(&ub, from, to, dnsb_monotonic() + UNDO_SECONDS, 1, err); /* a lost reply read back */
	}
	for (size_t k = 0; rc == 0 && k < ub.count; k++) {
		if (ust[k] != DNSB_DO_LANDED)
			left_behind(&u[k], ++failed, left, left_size);
		else
			__atomic_add_fetch(&s->d->undone, 1, __ATOMIC_RELAXED);
	}
	free(u);
	free(ust);
	free(ures);
	return rc < 0 ? rc : failed;
}

/*
 * After an undo every request of which DigitalOcean answered: the batch's RRsets read back, each as the pre-check read
 * it. A write libcurl sent twice (a reused connection closed before the reply) may have made a record the undo never
 * heard of: DigitalOcean may hold the same record twice. Each RRset that differs is named in `left`. A read that fails
 * proves nothing either way: the answers stand, logged. @return how many differ
 */
static int verify_undo(sub *s, char *left, size_t left_size, int failed)
{
	dnsb_rrkey *keys = calloc(s->patch.count + 1, sizeof(*keys));
	dnsb_rrset_list after = { 0 };
	dnsb_error e = { 0, "out of memory" };
	int differ = 0;

	for (size_t i = 0; keys && i < s->patch.count; i++)
		keys[i] = (dnsb_rrkey){ s->patch.entries[i].owner, s->patch.entries[i].type };
	if (keys == NULL || dnsb_do_read_ids(s->d, s->zone, keys, s->patch.count, dnsb_monotonic() + UNDO_SECONDS, &after,
					     NULL, &e) != 0) {
		dnsb_log(DNSB_LOG_INFO, "digitalocean: %s: reading back after the undo failed (%s): its answers stand",
			 s->zone->id, e.message);
	} else {
		for (size_t i = 0; i < s->patch.count; i++) {
			const dnsb_precheck_entry *en = &s->patch.entries[i];
			const dnsb_rrset *cur = dnsb_rrset_list_find(&after, en->owner, en->type);
			if ((cur == NULL) == (en->held == NULL) && (cur == NULL || dnsb_rrset_equal(cur, en->held)))
				continue;
			if (++differ + failed <= 3)
				snprintf(left + strlen(left), left_size - strlen(left), "%s%s %s holds %s%s after the undo",
					 differ + failed > 1 ? "; " : "", en->owner, dnsb_type_name(en->type),
					 cur ? cur->rdata[0] : "nothing", cur && cur->rdata_count > 1 ? " (and more)" : "");
			dnsb_log(DNSB_LOG_WARN, "digitalocean: %s %s is not as it was after the undo", en->owner,
				 dnsb_type_name(en->type));
		}
	}
	dnsb_rrset_list_clear(&after);
	free(keys);
	return differ;
}

/* The changes at op's RRset named culprits of its refusal (res), with what DigitalOcean said. */
static void name_culprits(const dnsb_do_op *op, const dnsb_result *res, dnsb_change *const *changes, size_t n,
			  dnsb_result *out)
{
	char note[600];

	if (res->cls != DNSB_CLASS_CONFLICT && res->cls != DNSB_CLASS_INVALID)
		return;
	snprintf(note, sizeof(note), "%s %s %s: HTTP %d %s: %s", op_method(op), op->owner, dnsb_type_name(op->type),
		 res->status, res->code, res->message);
	for (size_t c = 0; c < n; c++) {
		const dnsb_change *ch = changes[c];
		if ((ch->kind != DNSB_CHANGE_CREATE && ch->old.type == op->type && strcmp(ch->old.owner, op->owner) == 0) ||
		    (ch->kind != DNSB_CHANGE_DELETE && ch->new_set.type == op->type && strcmp(ch->new_set.owner, op->owner) == 0))
			dnsb_result_add_culprit_note(out, c, note);
	}
}

/* Part of the batch may be in the zone: FATAL, naming what may remain. */
static void rollback(dnsb_result *out, int left, size_t landed, const char *names)
{
	char was[32];

	snprintf(was, sizeof(was), "%s", dnsb_class_name(out->cls));
	out->culprit_count = 0;
	dnsb_result_set(out, DNSB_CLASS_FATAL, out->status, "rollback",
			"a request was refused or its reply lost (%s) and %d of the %zu records written may remain (%s): "
			"the zone needs a look before the next run", was, left, landed, names);
}

/* How bad a refusal is, to choose the batch's answer among several. */
static int severity(dnsb_class cls)
{
	static const int rank[] = { [DNSB_CLASS_OK] = 0, [DNSB_CLASS_INVALID] = 1, [DNSB_CLASS_CONFLICT] = 2,
				    [DNSB_CLASS_TOO_LARGE] = 1, [DNSB_CLASS_RATE_LIMITED] = 3,
				    [DNSB_CLASS_TRANSIENT] = 4, [DNSB_CLASS_FATAL] = 5 };
	return rank[cls];
}

/* The batch's answer from the ops of the run that failed: the worst class; every refused op's changes named. */
static void refusal(const dnsb_do_batch *b, size_t from, size_t to, dnsb_change *const *changes, size_t n,
		    dnsb_result *out)
{
	const dnsb_result *worst = NULL;

	for (size_t k = from; k < to; k++) {
		if (b->state[k] == DNSB_DO_LANDED)
			continue;
		if (worst == NULL || severity(b->res[k].cls) > severity(worst->cls))
			worst = &b->res[k];
		name_culprits(&b->ops[k], &b->res[k], changes, n, out);
	}
	if (worst) {
		dnsb_result_set(out, worst->cls, worst->status, worst->code, "%s", worst->message);
		out->retry_after = worst->retry_after;
	}
}

/*
 * Send the ops, each kind a run side by side (DELETEs, PUTs, POSTs), and settle the answer: OK when every one
 * landed; else what landed undone and the refusal's class, or FATAL "rollback" when not all could be.
 */
static int write_all(sub *s, dnsb_change *const *changes, size_t n, double give_up, dnsb_result *out, dnsb_error *err)
{
	signed char *state = calloc(s->count, 1);
	dnsb_result *res = calloc(s->count, sizeof(*res));
	dnsb_do_batch b = { s->d, s->zone, &s->ids, s->ops, s->count, state, res };
	char left[600] = "";
	size_t from = 0, to = 0, landed = 0;
	int rc = state && res ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory"), failed = 0;

	for (; rc == 0 && from < s->count; from = to) {
		size_t ok = 0;
		to = run_end(s->ops, s->count, from);
		if ((rc = dnsb_do_send(&b, from, to, give_up, 1, err)) != 0)
			break;
		for (size_t k = from; k < to; k++)
			ok += state[k] == DNSB_DO_LANDED;
		if (ok < to - from)
			break;
	}
	if (rc == 0 && from < s->count) { /* the run [from, to) failed: undo */
		for (size_t k = 0; k < to; k++)
			landed += state[k] != DNSB_DO_NOT_LANDED;
		refusal(&b, from, to, changes, n, out);
		if (s->count == 1 && state[0] == DNSB_DO_UNKNOWN)
			failed = 0; /* one request, landed or not: the batch is whole either way, the engine reads it back */
		else if ((rc = failed = undo(s, state, left, sizeof(left), err)) >= 0 &&
			 (failed += verify_undo(s, left, sizeof(left), failed)) > 0) {
			rollback(out, failed, landed, left);
			rc = 0;
		}
		dnsb_log(DNSB_LOG_DEBUG, "digitalocean: %s: %zu requests, %s at the %s run, %zu landed, %s", s->zone->id,
			 s->count, dnsb_class_name(out->cls), op_method(&s->ops[from]), landed,
			 failed ? "not all undone" : "undone");
	}
	free(state);
	free(res);
	return rc;
}

/* Every PUT and POST body built before anything is sent: a record DigitalOcean cannot hold is invalid, named. */
static int check_bodies(sub *s, dnsb_change *const *changes, size_t n, dnsb_result *out, dnsb_error *err)
{
	for (size_t k = 0; k < s->count; k++) {
		const dnsb_do_op *op = &s->ops[k];
		dnsb_error e = { 0, "" };
		char *body = NULL;
		int rc = op->kind == DNSB_DO_DELETE ? 0 :
			 dnsb_do_record_body(&body, s->zone->apex, op->owner, op->type, op->rdata, op->ttl, &e);
		free(body);
		if (rc == DNSB_ENOMEM)
			return dnsb_error_set(err, rc, "out of memory");
		if (rc != 0) {
			dnsb_result_set(out, DNSB_CLASS_INVALID, 0, "record", "%s", e.message);
			for (size_t c = 0; c < n; c++)
				if (changes[c]->kind != DNSB_CHANGE_DELETE && changes[c]->new_set.type == op->type &&
				    strcmp(changes[c]->new_set.owner, op->owner) == 0)
					dnsb_result_add_culprit_note(out, c, e.message);
			return 0;
		}
	}
	return 0;
}

/* Read the batch's names and pre-check it: out says when it is refused before anything is sent. */
static int prepare(sub *s, dnsb_change *const *changes, size_t n, double give_up, dnsb_result *out, dnsb_error *err)
{
	dnsb_rrkey *keys;
	dnsb_error e = { 0, "" };
	int k = dnsb_precheck_keys(&keys, changes, n), rc;

	if (k < 0)
		return dnsb_error_set(err, k, "out of memory");
	if (dnsb_do_apex_cname(out, changes, n, s->zone->apex) > 0) {
		free(keys);
		return 0;
	}
	rc = dnsb_do_read_ids(s->d, s->zone, keys, (size_t)k, give_up, &s->held, &s->ids, &e);
	free(keys);
	if (rc != 0)
		rc = dnsb_result_from_error(out, rc, 0, "read before writing", &e, err);
	else if ((rc = dnsb_precheck_run(&s->patch, out, changes, n, &s->held, NULL)) != 0)
		rc = dnsb_error_set(err, rc, "out of memory");
	else if (out->cls == DNSB_CLASS_OK && (rc = dnsb_do_diff(&s->ops, &s->count, &s->patch, &s->ids, &e)) != 0)
		rc = dnsb_result_from_error(out, rc == DNSB_EINVAL ? DNSB_ETRANSIENT : rc, 0, "read before writing", &e, err);
	if (rc == 0 && out->cls == DNSB_CLASS_OK)
		rc = check_bodies(s, changes, n, out, err);
	return rc;
}

/* Too few requests left in the token's hour for the writes and their undos: rate_limited until the reset, nothing
 * sent (a group cut by the limit mid-way could not be undone). @return 1 when so (out says it) */
static int no_room(sub *s, dnsb_result *out)
{
	double wait = dnsb_do_pace_room(&s->d->pace, 2.0 * (double)s->count, dnsb_monotonic());

	if (wait <= 0)
		return 0;
	dnsb_result_set(out, DNSB_CLASS_RATE_LIMITED, 0, "ratelimit", "%zu requests and their undos: the token's "
			"ratelimit-remaining has fewer until its reset in %.0f s", s->count, wait);
	out->retry_after = wait;
	return 1;
}

/*
 * After a batch that landed whole: its RRsets read back, and those another client wrote between the pre-check's read
 * and the writes counted (dnsb_precheck_races: a `race` warning names each). DigitalOcean writes unconditionally: a
 * value another client added beside a PUT stays. A failed read proves nothing either way: the batch stays applied,
 * and the failure is logged.
 */
static void check_races(sub *s, double give_up, dnsb_result *out)
{
	dnsb_rrkey *keys = calloc(s->patch.count + 1, sizeof(*keys));
	dnsb_rrset_list after = { 0 };
	dnsb_error e = { 0, "out of memory" };
	int rc = keys ? 0 : DNSB_ENOMEM;

	for (size_t i = 0; keys && i < s->patch.count; i++)
		keys[i] = (dnsb_rrkey){ s->patch.entries[i].owner, s->patch.entries[i].type };
	if (rc == 0)
		rc = dnsb_do_read_ids(s->d, s->zone, keys, s->patch.count, give_up, &after, NULL, &e);
	if (rc == 0)
		out->races = dnsb_precheck_races(&s->patch, &after, s->zone->apex);
	else
		dnsb_log(DNSB_LOG_INFO, "digitalocean: %s: reading back after the batch failed (%s): a write by another "
			 "client in the window would go unnoticed", s->zone->id, e.message);
	dnsb_rrset_list_clear(&after);
	free(keys);
}

int dnsb_do_submit(dnsb_hb *b, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n, double give_up,
		   dnsb_result *out, dnsb_error *err)
{
	sub s = { (dnsb_do *)b, zone, { 0 }, { 0 }, { 0 }, NULL, 0 };
	int rc = prepare(&s, changes, n, give_up, out, err);

	if (rc == 0 && out->cls == DNSB_CLASS_OK && s.count > 0 && no_room(&s, out))
		dnsb_log(DNSB_LOG_DEBUG, "digitalocean: %s: %zu requests wait for the token's limit (%.0f s)", zone->id,
			 s.count, out->retry_after);
	else if (rc == 0 && out->cls == DNSB_CLASS_OK && s.count > 0 &&
		 (rc = write_all(&s, changes, n, give_up, out, err)) == 0 && out->cls == DNSB_CLASS_OK)
		check_races(&s, give_up, out);
	free(s.ops);
	dnsb_precheck_clear(&s.patch);
	dnsb_rrset_list_clear(&s.held);
	dnsb_hb_tags_clear(&s.ids);
	return rc;
}
