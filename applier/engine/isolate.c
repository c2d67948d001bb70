/*
 * isolate.c - running one batch: apply every group that can be applied and
 * isolate the ones the provider refuses (docs/design.md §3.2, culprit isolation).
 *
 * Adaptive group testing without knowing how many groups conflict: the batch
 * is sent in parts of `chunk` groups (the whole batch first); a part that
 * applies doubles the chunk, a refused part is binary-searched for its first
 * culprit, the groups after it go back into the stream, and the chunk halves.
 * A reply that names culprits is followed first, until one proves wrong.
 * Iterative: the work is the batch's own list of groups, never the C stack.
 *
 * The groups a refusal points at are settled in settle.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "applier/engine/diagnose.h"
#include "applier/engine/internal.h"

/* Still to be sent in this batch: open, and not waiting for the read of the refused. */
static int open_here(const group *g)
{
	return !g->deferred && dnsb_engine_group_open(g);
}

static void finish_all(engine *e, group **gs, size_t n, dnsb_outcome outcome, dnsb_reason reason, const dnsb_result *res)
{
	for (size_t i = 0; i < n; i++)
		dnsb_engine_finish(e, gs[i], outcome, reason, res, NULL);
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
			dnsb_engine_finish(br->e, br->gs[i], DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, res, msg);
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

/*
 * The groups of part the reply names (each once), with what the reply says
 * of each (the note on its first named change, or NULL) in notes.
 */
static size_t named_groups(group **part, size_t m, const dnsb_result *res, group **named, const char **notes)
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
		if (j == k) {
			notes[k] = NULL;
			named[k++] = part[i];
		}
		if (notes[j] == NULL)
			notes[j] = dnsb_result_note(res, res->culprits[c]);
	}
	return k;
}

/* Did g, named by a culprit list, apply on its own (the list was wrong about it)? */
static int applied_alone(const group *g)
{
	for (size_t i = 0; i < g->count; i++)
		if (g->changes[i]->outcome != DNSB_OUTCOME_APPLIED)
			return 0;
	return g->count > 0;
}

/*
 * Follow a reply's culprit list: the named groups wait for the batch's read of
 * the refused groups (settle.c; read at once while the provider's lists are
 * not yet proven: e->hint_trust), and the rest is sent next as one part. A
 * named group that applies on its own proves the list wrong: culprit lists
 * are ignored for the rest of the batch, so a wrong one costs one request.
 * @return 0 when the list names nothing in part; 1 when it was followed; 2
 *         when every named group applied (all wrong): the rest, compacted at
 *         the front of part, is known to hold the culprit
 */
static int follow_culprits(batch_run *br, group **part, size_t m, const dnsb_result *res, size_t *left)
{
	group **named = malloc(m * sizeof(group *));
	const char **notes = malloc(m * sizeof(char *));
	size_t k = named && notes ? named_groups(part, m, res, named, notes) : 0, applied = 0;

	if (k == 0) {
		br->hints_on = 0;
		free(named);
		free(notes);
		return 0;
	}
	for (size_t i = 0; i < k && !br->over; i++) {
		group *g = named[i];
		/* Each named group keeps what the reply says of it, not of the batch's first culprit. */
		if (res->cls != DNSB_CLASS_CONFLICT || br->no_defer || !dnsb_engine_defer_named(br, g, res, notes[i]))
			dnsb_engine_try_alone(br, g);
	}
	if (br->nnamed > br->e->hint_trust && !br->over)
		dnsb_engine_settle_refused(br); /* not yet proven: read now, while one wrong list costs one request */
	for (size_t i = 0; i < k; i++)
		applied += !br->over && applied_alone(named[i]);
	if (applied > 0)
		br->hints_on = 0;
	free(named);
	free(notes);
	*left = compact(part, m);
	return applied >= k && *left > 0 ? 2 : 1;
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
			finish_all(br->e, part + lo, mid - lo, DNSB_OUTCOME_APPLIED, DNSB_REASON_NONE, NULL);
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
	dnsb_engine_settle_lone(br, part[lo], &last, rlo == lo && rhi == lo + 1);
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
		dnsb_engine_settle_lone(br, part[0], res, 1);
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
		finish_all(br->e, part, m, DNSB_OUTCOME_APPLIED, DNSB_REASON_NONE, NULL);
		grow(br);
		break;
	case SENT_OVER:
		break;
	case SENT_TOO_LARGE:
		/* Split: no retry counted, nothing dropped, and never grown past it again. */
		if (m == 1)
			dnsb_engine_finish(br->e, part[0], DNSB_OUTCOME_DROPPED, DNSB_REASON_INVALID, &res, NULL);
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
	dnsb_engine_prove_noops(&br);
	while (!br.over && (m = take(&br, &front, part)) > 0)
		run_part(&br, part, m);
	dnsb_engine_settle_refused(&br);
	dnsb_engine_restore_upgraded(&br);
	free(part);
}
