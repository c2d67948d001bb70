/*
 * write.c - one submission to DigitalOcean: the batch's names read (records
 * and ids), the batch replayed over them (providers/precheck.h, and no CNAME
 * at the apex: diff.c), then its requests (diff.c) one at a time. The answer
 * is OK only when every request landed. When one is refused, the requests
 * that landed are undone, last first (a POST deleted by its new id, a PUT
 * put back, a DELETE posted again), and the answer is the refusal's class,
 * the changes at its RRset named. A request whose reply was lost (no reply,
 * 408, 5xx) is settled by reading its RRset back before anything else: it
 * landed (go on), it did not (undo the rest), or nobody can tell. An undo
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

/* What is known of one request: not sent (or surely refused), landed, or nobody can tell. */
enum { NOT_LANDED = 0, LANDED = 1, UNKNOWN = -1 };

typedef struct sub {
	dnsb_do *d;
	const dnsb_hb_zone *zone;
	dnsb_precheck patch;
	dnsb_hb_tags ids;      /* the records read before writing */
	dnsb_do_op *ops;
	size_t count;
	signed char *state;    /* per op */
} sub;

/* The URL of an op: .../records for a POST, .../records/{id} otherwise. @return malloc'd or NULL */
static char *op_url(const sub *s, const dnsb_do_op *op)
{
	char rest[64];

	snprintf(rest, sizeof(rest), "/records%s%s", op->kind == DNSB_DO_POST ? "" : "/", op->kind == DNSB_DO_POST ? "" : op->id);
	return dnsb_do_url(s->d, s->zone->id, rest);
}

static const char *op_method(const dnsb_do_op *op)
{
	static const char *const m[] = { "DELETE", "PUT", "POST" };

	return m[op->kind];
}

/* The id of the record a POST's reply holds ({"domain_record": {"id"}}). @return 1 when found */
static int reply_id(char *id, size_t size, const dnsb_http_response *resp)
{
	json_object *doc = NULL, *rec, *v;
	int ok = dnsb_http_json(&doc, resp, NULL) == 0 && json_object_object_get_ex(doc, "domain_record", &rec) &&
		 json_object_object_get_ex(rec, "id", &v) && json_object_is_type(v, json_type_int) &&
		 json_object_get_int64(v) >= 0;

	if (ok)
		snprintf(id, size, "%lld", (long long)json_object_get_int64(v));
	json_object_put(doc);
	return ok;
}

/* One try of an op: its reply classified into res. @return LANDED, NOT_LANDED or UNKNOWN; < -1 a local error */
static int send_once(sub *s, dnsb_do_op *op, const char *body, double give_up, dnsb_result *res, dnsb_error *err)
{
	char *url = op_url(s, op);
	dnsb_http_response resp;
	dnsb_error e = { 0, "" };
	int rc, st;

	if (url == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	dnsb_result_init(res);
	rc = dnsb_do_call(&s->d->base, op_method(op), url, body, give_up, &resp, &e);
	__atomic_add_fetch(&s->d->writes, 1, __ATOMIC_RELAXED);
	free(url);
	if (rc == DNSB_ERATELIMIT) { /* the throttle chain held it: not sent */
		dnsb_result_set(res, DNSB_CLASS_RATE_LIMITED, 0, "ratelimit", "%s", e.message);
		res->retry_after = resp.retry_after >= 0 ? resp.retry_after : dnsb_http_held(s->d->base.http);
		dnsb_http_response_clear(&resp);
		return NOT_LANDED;
	}
	if (rc != 0) { /* no reply: maybe sent */
		dnsb_http_response_clear(&resp);
		return dnsb_result_from_error(res, rc, 0, op_method(op), &e, err) == 0 ? UNKNOWN : rc;
	}
	dnsb_do_classify(res, &resp, op->kind != DNSB_DO_POST);
	st = res->cls == DNSB_CLASS_OK ? LANDED : res->cls == DNSB_CLASS_TRANSIENT ? UNKNOWN : NOT_LANDED;
	/* libcurl sends a request again on a new connection when the old one closed before the reply: a POST that
	 * landed then meets itself (422, a duplicate), a DELETE its own work (404). The read-back says which. */
	if ((op->kind == DNSB_DO_POST && resp.status == 422 && res->cls == DNSB_CLASS_CONFLICT) ||
	    (op->kind == DNSB_DO_DELETE && resp.status == 404))
		st = UNKNOWN;
	if (st == LANDED && op->kind == DNSB_DO_POST && !reply_id(op->id, sizeof(op->id), &resp))
		st = UNKNOWN; /* landed, but which record is it? the read-back says */
	dnsb_http_response_clear(&resp);
	return st;
}

/* An op, sent again after a 429 (the pacer holds the next try until the reset) a few times. */
static int send_op(sub *s, dnsb_do_op *op, double give_up, dnsb_result *res, dnsb_error *err)
{
	char *body = NULL;
	int st = NOT_LANDED, rc;

	if (op->kind != DNSB_DO_DELETE &&
	    (rc = dnsb_do_record_body(&body, s->zone->apex, op->owner, op->type, op->rdata, op->ttl, err)) != 0)
		return rc; /* checked before anything was sent (check_bodies): memory */
	for (int i = 0; i < DNSB_DO_429_TRIES; i++) {
		st = send_once(s, op, body, give_up, res, err);
		if (st != NOT_LANDED || res->status != 429 || (give_up > 0 && dnsb_monotonic() >= give_up))
			break;
	}
	free(body);
	return st;
}

/* Is `id` one of the records read before writing, or one a POST of this batch made before op k? */
static int known_id(const sub *s, size_t k, const char *id)
{
	for (size_t i = 0; i < s->ids.count; i++)
		if (strcmp(s->ids.items[i].tag, id) == 0)
			return 1;
	for (size_t j = 0; j < k; j++)
		if (s->ops[j].kind == DNSB_DO_POST && s->state[j] == LANDED && strcmp(s->ops[j].id, id) == 0)
			return 1;
	return 0;
}

/* What the read-back `now` shows of op k. */
static int judge(sub *s, size_t k, const dnsb_hb_tags *now)
{
	dnsb_do_op *op = &s->ops[k];
	const dnsb_hb_tag *t = NULL;

	for (size_t i = 0; i < now->count && t == NULL; i++) {
		const dnsb_hb_tag *x = &now->items[i];
		if (x->type != op->type || strcmp(x->owner, op->owner) != 0)
			continue;
		if (op->kind == DNSB_DO_POST ? strcmp(x->rdata, op->rdata) == 0 && !known_id(s, k, x->tag)
					     : strcmp(x->tag, op->id) == 0)
			t = x;
	}
	if (op->kind == DNSB_DO_POST) {
		if (t)
			snprintf(op->id, sizeof(op->id), "%s", t->tag);
		return t ? LANDED : NOT_LANDED;
	}
	if (op->kind == DNSB_DO_DELETE)
		return t ? NOT_LANDED : LANDED;
	if (t && strcmp(t->rdata, op->rdata) == 0 && t->ttl == op->ttl)
		return LANDED;
	return t && strcmp(t->rdata, op->old_rdata) == 0 && t->ttl == op->old_ttl ? NOT_LANDED : UNKNOWN;
}

/* A lost reply settled: op k's RRset read back. @return LANDED, NOT_LANDED or UNKNOWN (no read) */
static int settle(sub *s, size_t k, double give_up)
{
	dnsb_rrkey key = { s->ops[k].owner, s->ops[k].type };
	dnsb_rrset_list now = { 0 };
	dnsb_hb_tags now_ids = { 0 };
	dnsb_error e = { 0, "" };
	int st = UNKNOWN;

	__atomic_add_fetch(&s->d->settled, 1, __ATOMIC_RELAXED);
	if (dnsb_do_read_ids(s->d, s->zone, &key, 1, give_up, &now, &now_ids, &e) == 0)
		st = judge(s, k, &now_ids);
	else
		dnsb_log(DNSB_LOG_INFO, "digitalocean: %s %s %s: the reply was lost and the read-back failed (%s)",
			 op_method(&s->ops[k]), s->ops[k].owner, dnsb_type_name(s->ops[k].type), e.message);
	dnsb_rrset_list_clear(&now);
	dnsb_hb_tags_clear(&now_ids);
	return st;
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

/* Undo ops [0, upto) that landed, last first. @return how many could not be undone (named in `left`), or < 0 */
static int undo(sub *s, size_t upto, char *left, size_t left_size, dnsb_error *err)
{
	double by = dnsb_monotonic() + UNDO_SECONDS;
	int failed = 0;

	for (size_t k = upto; k-- > 0;) {
		dnsb_do_op u;
		dnsb_result res;
		int st = UNKNOWN;
		if (s->state[k] == NOT_LANDED)
			continue;
		u = reverse(&s->ops[k]);
		if (s->state[k] == UNKNOWN || (st = send_op(s, &u, by, &res, err)) != LANDED) {
			if (s->state[k] != UNKNOWN && st < UNKNOWN)
				return st; /* memory */
			if (failed++ < 3)
				snprintf(left + strlen(left), left_size - strlen(left), "%s%s %s %s %s", failed > 1 ? "; " : "",
					 op_method(&s->ops[k]), s->ops[k].owner, dnsb_type_name(s->ops[k].type),
					 s->ops[k].rdata ? s->ops[k].rdata : s->ops[k].old_rdata);
			dnsb_log(DNSB_LOG_WARN, "digitalocean: undo of %s %s %s failed", op_method(&s->ops[k]),
				 s->ops[k].owner, dnsb_type_name(s->ops[k].type));
			continue;
		}
		__atomic_add_fetch(&s->d->undone, 1, __ATOMIC_RELAXED);
	}
	return failed;
}

/* The changes at op's RRset named culprits of a refusal, with what DigitalOcean said. */
static void name_culprits(const dnsb_do_op *op, dnsb_change *const *changes, size_t n, dnsb_result *out)
{
	char note[600];

	if (out->cls != DNSB_CLASS_CONFLICT && out->cls != DNSB_CLASS_INVALID)
		return;
	snprintf(note, sizeof(note), "%s %s %s: HTTP %d %s: %s", op_method(op), op->owner, dnsb_type_name(op->type),
		 out->status, out->code, out->message);
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

/* Send the ops one at a time. @return the index of the one that failed (count: none), or < 0 a local error */
static long send_all(sub *s, double give_up, dnsb_result *out, dnsb_error *err)
{
	for (size_t k = 0; k < s->count; k++) {
		int st = send_op(s, &s->ops[k], give_up, out, err);
		if (st < UNKNOWN)
			return st;
		if (st == UNKNOWN)
			st = settle(s, k, give_up);
		s->state[k] = (signed char)st;
		if (st != LANDED)
			return (long)k;
		dnsb_result_init(out);
	}
	return (long)s->count;
}

/* Write the ops and settle the answer: OK, the refusal's class with everything undone, or FATAL "rollback". */
static int write_all(sub *s, dnsb_change *const *changes, size_t n, double give_up, dnsb_result *out, dnsb_error *err)
{
	char left[600] = "";
	size_t landed = 0;
	long fail = send_all(s, give_up, out, err);
	int failed;

	if (fail < 0)
		return (int)fail;
	if ((size_t)fail == s->count)
		return 0;
	for (size_t k = 0; k <= (size_t)fail; k++)
		landed += s->state[k] != NOT_LANDED;
	if (out->cls == DNSB_CLASS_OK) /* a lost reply that turned out not to land: say so */
		dnsb_result_set(out, DNSB_CLASS_TRANSIENT, 0, "lost", "%s %s %s: the reply was lost",
				op_method(&s->ops[fail]), s->ops[fail].owner, dnsb_type_name(s->ops[fail].type));
	name_culprits(&s->ops[fail], changes, n, out);
	if ((failed = undo(s, (size_t)fail + 1, left, sizeof(left), err)) < 0)
		return failed;
	if (failed > 0)
		rollback(out, failed, landed, left);
	dnsb_log(DNSB_LOG_DEBUG, "digitalocean: %s: %zu requests, the %ld-th %s, %zu landed, %s", s->zone->id, s->count,
		 fail + 1, dnsb_class_name(out->cls), landed, failed ? "not all undone" : "undone");
	return 0;
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
	dnsb_rrset_list held = { 0 };
	dnsb_rrkey *keys;
	dnsb_error e = { 0, "" };
	int k = dnsb_precheck_keys(&keys, changes, n), rc;

	if (k < 0)
		return dnsb_error_set(err, k, "out of memory");
	if (dnsb_do_apex_cname(out, changes, n, s->zone->apex) > 0) {
		free(keys);
		return 0;
	}
	rc = dnsb_do_read_ids(s->d, s->zone, keys, (size_t)k, give_up, &held, &s->ids, &e);
	free(keys);
	if (rc != 0)
		rc = dnsb_result_from_error(out, rc, 0, "read before writing", &e, err);
	else if ((rc = dnsb_precheck_run(&s->patch, out, changes, n, &held, NULL)) != 0)
		rc = dnsb_error_set(err, rc, "out of memory");
	else if (out->cls == DNSB_CLASS_OK && (rc = dnsb_do_diff(&s->ops, &s->count, &s->patch, &s->ids, &e)) != 0)
		rc = dnsb_result_from_error(out, rc == DNSB_EINVAL ? DNSB_ETRANSIENT : rc, 0, "read before writing", &e, err);
	if (rc == 0 && out->cls == DNSB_CLASS_OK)
		rc = check_bodies(s, changes, n, out, err);
	dnsb_rrset_list_clear(&held);
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

int dnsb_do_submit(dnsb_hb *b, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n, double give_up,
		   dnsb_result *out, dnsb_error *err)
{
	sub s = { (dnsb_do *)b, zone, { 0 }, { 0 }, NULL, 0, NULL };
	int rc = prepare(&s, changes, n, give_up, out, err);

	if (rc == 0 && out->cls == DNSB_CLASS_OK && s.count > 0 && no_room(&s, out))
		dnsb_log(DNSB_LOG_DEBUG, "digitalocean: %s: %zu requests wait for the token's limit (%.0f s)", zone->id,
			 s.count, out->retry_after);
	else if (rc == 0 && out->cls == DNSB_CLASS_OK && s.count > 0) {
		if ((s.state = calloc(s.count, 1)) == NULL)
			rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		else
			rc = write_all(&s, changes, n, give_up, out, err);
	}
	free(s.state);
	free(s.ops);
	dnsb_precheck_clear(&s.patch);
	dnsb_hb_tags_clear(&s.ids);
	return rc;
}
