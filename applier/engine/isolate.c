/*
 * isolate.c - running one batch: apply every group that can be applied and
 * isolate the ones the provider refuses (DESIGN §3, bisection).
 *
 * Adaptive group testing without knowing how many groups conflict: the batch
 * is sent in parts of `chunk` groups (the whole batch first); a part that
 * applies doubles the chunk, a refused part is binary-searched for its first
 * culprit, the groups after it go back into the stream, and the chunk halves.
 * A reply that names culprits is followed first, until one proves wrong.
 * Iterative: the work is the batch's own list of groups, never the C stack.
 *
 * A group refused on its own is not read back at once: the groups refused
 * so are settled together, by one read (verify before drop, and what is in
 * their way), when the batch is done or REFUSED_BATCH of them wait.
 */
#include <stdio.h>
#include <stdlib.h>

#include "applier/engine/diagnose.h"
#include "applier/engine/internal.h"

/* At most this many refused groups wait for their read. */
#define REFUSED_BATCH 256

static void settle_lone(batch_run *br, group *g, const dnsb_result *res, int alone);
static void settle_refused(batch_run *br);

/* Still to be sent in this batch: open, and not waiting for the read of the refused. */
static int open_here(const group *g)
{
	return !g->deferred && dnsb_engine_group_open(g);
}

static void finish_all(group **gs, size_t n, dnsb_outcome outcome, dnsb_reason reason, const dnsb_result *res)
{
	for (size_t i = 0; i < n; i++)
		dnsb_engine_finish(gs[i], outcome, reason, res, NULL);
}

/* Send g on its own. @return 1 when it applied */
static int try_alone(batch_run *br, group *g)
{
	dnsb_result r;

	switch (dnsb_engine_send(br, &g, 1, &r)) {
	case SENT_OK:
		dnsb_engine_finish(g, DNSB_OUTCOME_APPLIED, DNSB_REASON_NONE, NULL, NULL);
		return 1;
	case SENT_REFUSED:
		settle_lone(br, g, &r, 1);
		break;
	case SENT_TOO_LARGE:
		dnsb_engine_finish(g, DNSB_OUTCOME_DROPPED, DNSB_REASON_INVALID, &r, NULL);
		break;
	case SENT_OVER:
		break;
	}
	return 0;
}

/*
 * Part of the group is in effect (a record made out of band, its ownership
 * record not): calling those changes dropped would be false. They end
 * already_applied and the rest is sent once more on its own.
 * @return 1 when it settled the group, 0 when no change is in effect
 */
static int settle_partial(batch_run *br, group *g, const dnsb_rrset_list *held)
{
	group rest = *g;
	size_t marked = 0;

	if ((rest.changes = malloc(g->count * sizeof(dnsb_change *))) == NULL) {
		br->e->rc = DNSB_ENOMEM;
		return 0;
	}
	rest.count = 0;
	for (size_t i = 0; i < g->count; i++) {
		dnsb_change *c = g->changes[i];
		if (c->outcome == DNSB_OUTCOME_PENDING && dnsb_engine_change_in_effect(br->e, g, c, held))
			marked++;
		else if (c->outcome == DNSB_OUTCOME_PENDING)
			rest.changes[rest.count++] = c;
	}
	if (marked > 0) {
		for (size_t i = 0; i < g->count; i++)
			if (g->changes[i]->outcome == DNSB_OUTCOME_PENDING &&
			    dnsb_engine_change_in_effect(br->e, g, g->changes[i], held))
				g->changes[i]->outcome = DNSB_OUTCOME_ALREADY_APPLIED;
		if (rest.count > 0) {
			int was = br->no_defer;
			br->no_defer = 1; /* `rest` lives on this stack frame */
			try_alone(br, &rest);
			br->no_defer = was;
		}
	}
	free(rest.changes);
	return marked > 0;
}

/*
 * Keep g, refused on its own (`alone`) or found by elimination, for the
 * batched read; its refusal's detail is kept on its changes meanwhile.
 * @return 1 when kept
 */
static int defer(batch_run *br, group *g, const dnsb_result *res, int alone)
{
	if (br->nrefused == br->refused_cap) {
		size_t cap = br->refused_cap ? br->refused_cap * 2 : 16;
		group **grown = realloc(br->refused, cap * sizeof(*grown));
		if (grown == NULL)
			return 0; /* read it now, alone */
		br->refused = grown;
		br->refused_cap = cap;
	}
	for (size_t i = 0; i < g->count; i++)
		if (g->changes[i]->outcome == DNSB_OUTCOME_PENDING)
			dnsb_engine_set_detail(g->changes[i], res->status, res->code, res->message);
	g->deferred = alone ? 1 : 2;
	br->refused[br->nrefused++] = g;
	if (br->nrefused >= REFUSED_BATCH)
		settle_refused(br);
	return 1;
}

/* One change's refusal as it was kept (defer). */
static dnsb_result kept_result(const group *g)
{
	dnsb_result r;

	dnsb_result_init(&r);
	r.cls = DNSB_CLASS_CONFLICT;
	for (size_t i = 0; i < g->count; i++) {
		const dnsb_change *c = g->changes[i];
		if (c->outcome != DNSB_OUTCOME_PENDING)
			continue;
		r.status = c->status;
		snprintf(r.code, sizeof(r.code), "%s", c->code ? c->code : "");
		snprintf(r.message, sizeof(r.message), "%s", c->message ? c->message : "");
		break;
	}
	return r;
}

/*
 * The groups refused, settled by one read: in effect (a lost commit of
 * ours), in part, or dropped with what is in their way when refused on their
 * own or the read shows it; else sent on their own. When the read fails, a
 * group refused on its own is failed/transient (the truth is unknown) and
 * one found by elimination is sent on its own.
 */
static void settle_refused(batch_run *br)
{
	size_t n = 0;
	group **gs = br->refused;
	dnsb_rrset_list held = { 0 };
	dnsb_error rerr = { 0, "" };
	char msg[DNSB_ERROR_MESSAGE_MAX * 2 + 64];
	int read;

	int alone[REFUSED_BATCH];

	for (size_t i = 0; i < br->nrefused; i++) {
		int was_alone = br->refused[i]->deferred == 1;
		br->refused[i]->deferred = 0;
		if (dnsb_engine_group_open(br->refused[i])) {
			alone[n] = was_alone;
			gs[n++] = br->refused[i]; /* the run's end may have settled some */
		}
	}
	br->refused = NULL;
	br->nrefused = br->refused_cap = 0;
	read = n > 0 && dnsb_engine_read_back(br->e, gs, n, 1, &held, &rerr) == 0;
	br->no_defer = 1; /* a part settled alone again is read at once */
	for (size_t i = 0; i < n; i++) {
		group *g = gs[i];
		dnsb_result res = kept_result(g);

		if (br->over) {
			break; /* the run ended: its end settled what was open */
		} else if (!read && alone[i]) {
			snprintf(msg, sizeof(msg), "%s; verifying it failed: %s", res.message, rerr.message);
			dnsb_engine_finish(g, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, &res, msg);
		} else if (!read) {
			try_alone(br, g);
		} else if (dnsb_engine_group_in_effect(br->e, g, &held)) {
			dnsb_engine_finish(g, DNSB_OUTCOME_ALREADY_APPLIED, DNSB_REASON_NONE, &res, NULL);
		} else if (settle_partial(br, g, &held)) {
			continue;
		} else if (alone[i] || dnsb_engine_cause_shown(br->e, g, &held)) {
			dnsb_engine_diagnose(br->e, g, &held);
			dnsb_engine_finish(g, DNSB_OUTCOME_DROPPED, DNSB_REASON_CONFLICT, &res, NULL);
		} else {
			try_alone(br, g);
		}
	}
	br->no_defer = 0;
	dnsb_rrset_list_clear(&held);
	free(gs);
}

/*
 * One group that a refusal points at: refused on its own (`alone`), named by a
 * reply, or the last suspect of a search. Read back first: in effect ends
 * already_applied; a group refused on its own, or whose refusal the read
 * explains, is dropped; any other is sent on its own (DESIGN §3).
 */
static void settle_lone(batch_run *br, group *g, const dnsb_result *res, int alone)
{
	dnsb_rrset_list held = { 0 };
	dnsb_error rerr = { 0, "" };
	char msg[DNSB_ERROR_MESSAGE_MAX * 2 + 64];

	if (res->cls == DNSB_CLASS_INVALID) {
		if (alone)
			dnsb_engine_finish(g, DNSB_OUTCOME_DROPPED, DNSB_REASON_INVALID, res, NULL);
		else
			try_alone(br, g);
		return;
	}
	if (res->cls == DNSB_CLASS_CONFLICT && !br->no_defer && defer(br, g, res, alone))
		return; /* settled with the other refused groups, by one read */
	if (dnsb_engine_read_back(br->e, &g, 1, 1, &held, &rerr) < 0) {
		/* Unverified: dropping could lose a change that is in fact applied. */
		snprintf(msg, sizeof(msg), "%s; verifying it failed: %s", res->message, rerr.message);
		if (alone)
			dnsb_engine_finish(g, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, res, msg);
		else
			try_alone(br, g);
	} else if (dnsb_engine_group_in_effect(br->e, g, &held)) {
		dnsb_engine_finish(g, DNSB_OUTCOME_ALREADY_APPLIED, DNSB_REASON_NONE, res, NULL);
	} else if (settle_partial(br, g, &held)) {
		/* settled change by change */
	} else if (alone || dnsb_engine_cause_shown(br->e, g, &held)) {
		dnsb_engine_diagnose(br->e, g, &held);
		dnsb_engine_finish(g, DNSB_OUTCOME_DROPPED, DNSB_REASON_CONFLICT, res, NULL);
	} else {
		try_alone(br, g);
	}
	dnsb_rrset_list_clear(&held);
}

/* The open groups of gs, in order, moved to its front. @return how many */
static size_t compact(group **gs, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (open_here(gs[i]))
			gs[k++] = gs[i];
	return k;
}

/*
 * A part that met a transient answer was then refused: the refusal may be
 * our own lost commit (502, then 409). Read it back: what is in effect is
 * already_applied; when the read fails the truth is unknown and the batch
 * ends failed/transient at once, never bisected.
 * @return the open groups left in part (compacted), 0 when none or the run is over
 */
static size_t check_suspect(batch_run *br, group **part, size_t m, const dnsb_result *res)
{
	verdict *each = calloc(m, sizeof(verdict));
	dnsb_error rerr = { 0, "" };
	char msg[DNSB_ERROR_MESSAGE_MAX * 2 + 96];

	if (each == NULL || dnsb_engine_verify(br->e, part, m, each, &rerr) == UNKNOWN) {
		if (each == NULL)
			br->e->rc = DNSB_ENOMEM;
		snprintf(msg, sizeof(msg), "%s after a transient error, and reading back failed: %s", res->message,
			 each ? rerr.message : "out of memory");
		br->over = 1;
		for (size_t i = 0; i < br->n; i++)
			dnsb_engine_finish(br->gs[i], DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, res, msg);
		free(each);
		return 0;
	}
	dnsb_engine_settle_verified(br->e, part, m, each, res);
	free(each);
	return compact(part, m);
}

/* The groups of part that res's culprit list names (indexes into part's changes, flattened). @return how many */
static size_t pending_changes(const group *g)
{
	size_t n = 0;

	for (size_t i = 0; i < g->count; i++)
		n += g->changes[i]->outcome == DNSB_OUTCOME_PENDING;
	return n;
}

static size_t named_groups(group **part, size_t m, const dnsb_result *res, group **named)
{
	size_t k = 0;

	for (size_t c = 0; c < res->culprit_count; c++) {
		size_t idx = res->culprits[c], i = 0;
		while (i < m && idx >= pending_changes(part[i]))
			idx -= pending_changes(part[i++]);
		if (i == m)
			continue;
		size_t j = 0;
		while (j < k && named[j] != part[i])
			j++;
		if (j == k)
			named[k++] = part[i];
	}
	return k;
}

/*
 * Follow a reply's culprit list: the named groups are settled one by one
 * (read back once for all of them), and the rest is sent next as one part.
 * A named group that applies on its own proves the list wrong: culprit lists
 * are ignored for the rest of the batch, so a wrong one costs one request.
 * @return 0 when the list names nothing in part; 1 when it was followed; 2
 *         when every named group applied (all wrong): the rest, compacted at
 *         the front of part, is known to hold the culprit
 */
static int follow_culprits(batch_run *br, group **part, size_t m, const dnsb_result *res, size_t *left)
{
	group **named = malloc(m * sizeof(group *));
	dnsb_rrset_list held = { 0 };
	dnsb_error rerr = { 0, "" };
	size_t k = named ? named_groups(part, m, res, named) : 0, applied = 0;
	int have_read;

	if (k == 0) {
		br->hints_on = 0;
		free(named);
		return 0;
	}
	have_read = res->cls == DNSB_CLASS_CONFLICT && dnsb_engine_read_back(br->e, named, k, 1, &held, &rerr) == 0;
	for (size_t i = 0; i < k && !br->over; i++) {
		group *g = named[i];
		if (have_read && dnsb_engine_group_in_effect(br->e, g, &held))
			dnsb_engine_finish(g, DNSB_OUTCOME_ALREADY_APPLIED, DNSB_REASON_NONE, res, NULL);
		else if (have_read && settle_partial(br, g, &held))
			continue;
		else if (have_read && dnsb_engine_cause_shown(br->e, g, &held)) {
			dnsb_engine_diagnose(br->e, g, &held);
			dnsb_engine_finish(g, DNSB_OUTCOME_DROPPED, DNSB_REASON_CONFLICT, res, NULL);
		}
		else if (try_alone(br, g))
			applied++;
	}
	if (applied > 0)
		br->hints_on = 0;
	dnsb_rrset_list_clear(&held);
	free(named);
	*left = compact(part, m);
	return applied == k && *left > 0 ? 2 : 1;
}

/*
 * Binary-search a refused part for its first culprit: the groups before it
 * apply on the way, the culprit is settled, the groups after it go back to
 * the stream. The refused range [rlo, rhi) tells whether the culprit was
 * refused on its own or only found by elimination; `exact` says whether
 * `res` refused exactly this part (not a larger one).
 */
static void search_first(batch_run *br, group **part, size_t m, const dnsb_result *res, int exact)
{
	size_t lo = 0, hi = m, rlo = 0, rhi = exact ? m : m + 1;
	dnsb_result last = *res, r;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		switch (dnsb_engine_send(br, part + lo, mid - lo, &r)) {
		case SENT_OK:
			finish_all(part + lo, mid - lo, DNSB_OUTCOME_APPLIED, DNSB_REASON_NONE, NULL);
			lo = mid;
			break;
		case SENT_REFUSED:
			if (br->suspect) {
				check_suspect(br, part + lo, mid - lo, &r);
				return; /* what is left goes back to the stream */
			}
			hi = rhi = mid;
			rlo = lo;
			last = r;
			break;
		case SENT_TOO_LARGE:
			br->chunk = br->chunk_cap = (mid - lo) / 2 ? (mid - lo) / 2 : 1;
			return;
		case SENT_OVER:
			return;
		}
	}
	settle_lone(br, part[lo], &last, rlo == lo && rhi == lo + 1);
}

/* The next part: up to br->chunk open groups, in order, from *front (which skips settled groups). */
static size_t take(batch_run *br, size_t *front, group **part)
{
	size_t m = 0;

	while (*front < br->n && !open_here(br->gs[*front]))
		(*front)++;
	for (size_t i = *front; i < br->n && m < br->chunk; i++)
		if (open_here(br->gs[i]))
			part[m++] = br->gs[i];
	return m;
}

static void grow(batch_run *br)
{
	size_t cap = br->chunk_cap ? br->chunk_cap : br->n;

	br->chunk = br->chunk > cap / 2 ? cap : br->chunk * 2;
}

static void count_bisection(engine *e, size_t zone)
{
	e->rep->bisections++;
	dnsb_engine_zone_report(e, zone)->bisections++;
	dnsb_metrics_bisection(e->o->metrics, dnsb_engine_zone_name(e, zone));
}

/*
 * A part was refused for its content: our own lost commit (after a transient
 * answer), a lone group to settle, a culprit list to follow, or a search.
 */
static void isolate(batch_run *br, group **part, size_t m, const dnsb_result *res)
{
	size_t sent_m = m, left = 0;

	if (br->suspect && check_suspect(br, part, m, res) < m)
		return; /* some were our own lost commit: what is left is sent again */
	if (m == 1) {
		settle_lone(br, part[0], res, 1);
	} else {
		count_bisection(br->e, part[0]->zone);
		if (br->hints_on && res->culprit_count > 0) {
			int followed = follow_culprits(br, part, m, res, &left);
			if (followed == 1) {
				br->chunk = left ? left : 1; /* the rest goes next, whole */
				return;
			}
			if (followed == 2)
				m = left; /* every name was wrong: the refusal is the rest's */
		}
		if (!br->over)
			search_first(br, part, m, res, m == sent_m);
	}
	br->chunk = br->chunk / 2 ? br->chunk / 2 : 1;
}

/* One part sent: act on what it came to. */
static void run_part(batch_run *br, group **part, size_t m)
{
	dnsb_result res;

	switch (dnsb_engine_send(br, part, m, &res)) {
	case SENT_OK:
		finish_all(part, m, DNSB_OUTCOME_APPLIED, DNSB_REASON_NONE, NULL);
		grow(br);
		break;
	case SENT_OVER:
		break;
	case SENT_TOO_LARGE:
		/* Split: no retry counted, nothing dropped, and never grown past it again. */
		if (m == 1)
			dnsb_engine_finish(part[0], DNSB_OUTCOME_DROPPED, DNSB_REASON_INVALID, &res, NULL);
		else
			br->chunk = br->chunk_cap = m / 2;
		break;
	case SENT_REFUSED:
		isolate(br, part, m, &res);
		break;
	}
}

void dnsb_engine_run_batch(engine *e, group **gs, size_t n)
{
	batch_run br = { 0 };
	group **part = malloc(n * sizeof(group *));
	size_t front = 0, m;

	br.e = e;
	br.gs = gs;
	br.n = n;
	br.hints_on = e->limits->names_culprit;
	br.chunk = n;
	if (part == NULL) {
		e->rc = DNSB_ENOMEM;
		dnsb_engine_end_run(&br, DNSB_REASON_TRANSIENT, NULL, "out of memory");
		return;
	}
	while (!br.over && (m = take(&br, &front, part)) > 0)
		run_part(&br, part, m);
	settle_refused(&br);
	free(part);
}
