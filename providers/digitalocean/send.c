/*
 * send.c - a batch's requests side by side through the transport's
 * dnsb_http_many (applier/net/http.h): at most DNSB_DO_IN_FLIGHT at a time,
 * each through the throttle chain (the shared budget, the ratelimit pacer),
 * each keeping its own reply whatever order they come in. One refused with
 * 429 did nothing and is sent again after the pacer's hold; one whose reply
 * was lost is settled by reading its RRset back: its record there as
 * written (landed), as it was (not), or anything else (nobody can tell).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "providers/digitalocean/digitalocean.h"

static const char *const methods[] = { "DELETE", "PUT", "POST" };

/* The URL of an op: .../records for a POST, .../records/{id} otherwise. @return malloc'd or NULL */
static char *op_url(const dnsb_do_batch *b, const dnsb_do_op *op)
{
	char rest[64];

	snprintf(rest, sizeof(rest), "/records%s%s", op->kind == DNSB_DO_POST ? "" : "/",
		 op->kind == DNSB_DO_POST ? "" : op->id);
	return dnsb_do_url(b->d, b->zone->id, rest);
}

/* What became of op k, from its item: its state, its class in res[k]. */
static void take_item(dnsb_do_batch *b, size_t k, dnsb_http_item *item)
{
	dnsb_do_op *op = &b->ops[k];
	dnsb_result *res = &b->res[k];

	dnsb_result_init(res);
	if (item->rc == DNSB_ERATELIMIT) { /* the throttle chain held it past the time left: not sent */
		dnsb_result_set(res, DNSB_CLASS_RATE_LIMITED, 0, "ratelimit", "%s", item->err.message);
		res->retry_after = item->resp.retry_after >= 0 ? item->resp.retry_after : dnsb_http_held(b->d->base.http);
		b->state[k] = DNSB_DO_NOT_LANDED;
		return;
	}
	if (item->rc != 0) { /* no reply: maybe sent */
		if (dnsb_result_from_error(res, item->rc, 0, methods[op->kind], &item->err, NULL) != 0)
			dnsb_result_set(res, DNSB_CLASS_TRANSIENT, 0, "", "%s: %s", methods[op->kind], item->err.message);
		b->state[k] = DNSB_DO_UNKNOWN;
		return;
	}
	b->state[k] = (signed char)dnsb_do_write_state(res, op, &item->resp);
}

/* One run of ops idx[0..m). @return 0 or DNSB_ENOMEM */
static int run(dnsb_do_batch *b, const size_t *idx, size_t m, double give_up, dnsb_error *err)
{
	const char *with_body[] = { "Accept: application/json", b->d->cfg.auth, "Content-Type: application/json", NULL };
	const char *without[] = { "Accept: application/json", b->d->cfg.auth, NULL };
	dnsb_http_item *items = calloc(m, sizeof(*items));
	char **urls = calloc(m, sizeof(*urls)), **bodies = calloc(m, sizeof(*bodies));
	int rc = items && urls && bodies ? 0 : DNSB_ENOMEM;

	for (size_t i = 0; rc == 0 && i < m; i++) {
		dnsb_do_op *op = &b->ops[idx[i]];
		if ((urls[i] = op_url(b, op)) == NULL)
			rc = DNSB_ENOMEM;
		else if (op->kind != DNSB_DO_DELETE && (rc = dnsb_do_record_body(&bodies[i], b->zone->apex, op->owner,
									       op->type, op->rdata, op->ttl, err)) != 0)
			break; /* checked before anything was sent (write.c's check_bodies): memory */
		else
			items[i].req = (dnsb_http_request){ methods[op->kind], urls[i], bodies[i] ? with_body : without,
							    bodies[i], bodies[i] ? strlen(bodies[i]) : 0, 0 };
	}
	if (rc == 0 && (rc = dnsb_http_many(b->d->base.http, items, m, DNSB_DO_IN_FLIGHT, give_up, NULL, err)) == 0)
		for (size_t i = 0; i < m; i++)
			take_item(b, idx[i], &items[i]);
	if (rc == 0)
		__atomic_add_fetch(&b->d->writes, m, __ATOMIC_RELAXED);
	for (size_t i = 0; i < m; i++) {
		if (items)
			dnsb_http_response_clear(&items[i].resp);
		if (urls)
			free(urls[i]);
		if (bodies)
			free(bodies[i]);
	}
	free(items);
	free(urls);
	free(bodies);
	return rc == DNSB_ENOMEM ? dnsb_error_set(err, rc, "out of memory") : rc;
}

/* Is `id` one of the records read before writing, or one a POST of this batch made (but op k)? */
static int known_id(const dnsb_do_batch *b, size_t k, const char *id)
{
	for (size_t i = 0; b->held && i < b->held->count; i++)
		if (strcmp(b->held->items[i].tag, id) == 0)
			return 1;
	for (size_t j = 0; j < b->count; j++)
		if (j != k && b->ops[j].kind == DNSB_DO_POST && b->state[j] == DNSB_DO_LANDED && strcmp(b->ops[j].id, id) == 0)
			return 1;
	return 0;
}

/* What the read-back `now` shows of op k. */
static int judge(dnsb_do_batch *b, size_t k, const dnsb_hb_tags *now)
{
	dnsb_do_op *op = &b->ops[k];
	const dnsb_hb_tag *t = NULL;

	for (size_t i = 0; i < now->count && t == NULL; i++) {
		const dnsb_hb_tag *x = &now->items[i];
		if (x->type != op->type || strcmp(x->owner, op->owner) != 0)
			continue;
		if (op->kind == DNSB_DO_POST ? strcmp(x->rdata, op->rdata) == 0 && !known_id(b, k, x->tag)
					     : strcmp(x->tag, op->id) == 0)
			t = x;
	}
	if (op->kind == DNSB_DO_POST) {
		if (t)
			snprintf(op->id, sizeof(op->id), "%s", t->tag);
		return t ? DNSB_DO_LANDED : DNSB_DO_NOT_LANDED;
	}
	if (op->kind == DNSB_DO_DELETE)
		return t ? DNSB_DO_NOT_LANDED : DNSB_DO_LANDED;
	if (t && strcmp(t->rdata, op->rdata) == 0 && t->ttl == op->ttl)
		return DNSB_DO_LANDED;
	return t && strcmp(t->rdata, op->old_rdata) == 0 && t->ttl == op->old_ttl ? DNSB_DO_NOT_LANDED : DNSB_DO_UNKNOWN;
}

/* A lost reply settled: op k's RRset read back (its state stays unknown when the read fails). */
static void settle(dnsb_do_batch *b, size_t k, double give_up)
{
	dnsb_rrkey key = { b->ops[k].owner, b->ops[k].type };
	dnsb_rrset_list now = { 0 };
	dnsb_hb_tags now_ids = { 0 };
	dnsb_error e = { 0, "" };

	__atomic_add_fetch(&b->d->settled, 1, __ATOMIC_RELAXED);
	if (dnsb_do_read_ids(b->d, b->zone, &key, 1, give_up, &now, &now_ids, &e) == 0)
		b->state[k] = (signed char)judge(b, k, &now_ids);
	else
		dnsb_log(DNSB_LOG_INFO, "digitalocean: %s %s %s: the reply was lost and the read-back failed (%s)",
			 methods[b->ops[k].kind], b->ops[k].owner, dnsb_type_name(b->ops[k].type), e.message);
	if (b->state[k] == DNSB_DO_LANDED)
		dnsb_result_init(&b->res[k]);
	else if (b->state[k] == DNSB_DO_NOT_LANDED && b->res[k].cls == DNSB_CLASS_OK)
		dnsb_result_set(&b->res[k], DNSB_CLASS_TRANSIENT, 0, "lost", "%s %s %s: the reply was lost, and it did "
				"not land", methods[b->ops[k].kind], b->ops[k].owner, dnsb_type_name(b->ops[k].type));
	dnsb_rrset_list_clear(&now);
	dnsb_hb_tags_clear(&now_ids);
}

int dnsb_do_send(dnsb_do_batch *b, size_t from, size_t to, double give_up, int settle_lost, dnsb_error *err)
{
	size_t *idx = malloc((to > from ? to - from : 1) * sizeof(*idx)), m = 0;
	int rc = 0;

	if (idx == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	for (size_t k = from; k < to; k++)
		idx[m++] = k;
	for (int round = 0; rc == 0 && m > 0 && round < DNSB_DO_429_TRIES; round++) {
		size_t again = 0;
		rc = run(b, idx, m, give_up, err);
		for (size_t i = 0; rc == 0 && i < m; i++)
			if (b->state[idx[i]] == DNSB_DO_NOT_LANDED && b->res[idx[i]].status == 429)
				idx[again++] = idx[i]; /* nothing done: the pacer holds the next try until the reset */
		m = (give_up > 0 && dnsb_monotonic() >= give_up) || dnsb_stop_requested() ? 0 : again;
	}
	free(idx);
	for (size_t k = from; rc == 0 && settle_lost && k < to; k++)
		if (b->state[k] == DNSB_DO_UNKNOWN)
			settle(b, k, give_up);
	return rc;
}
