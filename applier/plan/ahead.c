/*
 * ahead.c - a second thread reading a long list of the plan from halfway.
 *
 * A create or delete list with at least 256 KiB of text left (some 3,000
 * endpoints) is read by two threads (the machine's second core): a second reader
 * starts at a guessed endpoint boundary halfway through the text (`}`, `,`,
 * `{`) and reads on to the first `]` after an endpoint, while the first
 * reads from the list's start. The guess may be wrong (the three octets inside
 * a string, between providerSpecific entries, in a later list): only when the
 * first reader, going endpoint by endpoint, lands exactly on the guessed offset
 * at the start of one of the list's endpoints are the second reader's changes
 * taken, renumbered; otherwise it is stopped, what it read is thrown away and
 * the first reads on. Reading an endpoint depends on its text alone, so the
 * changes are always those one thread reads.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/plan.h"
#include "applier/core/array.h"
#include "applier/plan/internal.h"
#include "applier/plan/reader.h"

/* A list with less text left (octets) is read by one thread: a thread would cost more than it saves. */
static const size_t split_min = 256 * 1024;

static void *ahead_run(void *arg)
{
	ahead *a = arg;

	a->r.off = a->start;
	a->rc = a->items(&a->r, a->which, 0, NULL);
	return NULL;
}

/*
 * A boundary between two endpoints at or after `from`: the offset of the `{` of `}` `,` `{` (whitespace allowed
 * between), or SIZE_MAX. Only a guess: json-c's reading of the list decides whether it is one.
 */
static size_t guess_boundary(const reader *r, size_t from)
{
	const char *p = r->json + from, *end = r->json + r->len;

	while (p < end && (p = memchr(p, '}', (size_t)(end - p))) != NULL) {
		const char *q = p + 1;
		while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
			q++;
		if (q < end && *q++ == ',') {
			while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
				q++;
			if (q < end && *q == '{')
				return (size_t)(q - r->json);
		}
		p++;
	}
	return SIZE_MAX;
}

void dnsb_plan_list_clear(change_list *l)
{
	for (size_t i = 0; i < l->count; i++)
		dnsb_plan_change_clear(&l->items[i]);
	free(l->items);
}

int dnsb_plan_ahead_start(reader *r, int which, ahead *a, dnsb_plan_items_fn items)
{
	size_t from = r->split_from != 0 ? r->split_from :
		      r->len - r->off >= split_min ? r->off + (r->len - r->off) / 2 : SIZE_MAX;

	if ((which != L_CREATE && which != L_DELETE) || from == SIZE_MAX || from <= r->off ||
	    (a->start = guess_boundary(r, from)) == SIZE_MAX)
		return 0;
	memset(&a->r, 0, sizeof(a->r));
	a->r.json = r->json;
	a->r.len = r->len;
	a->r.source = r->source;
	a->r.split_from = SIZE_MAX;
	a->r.stop = &a->stop;
	a->items = items;
	a->which = which;
	atomic_init(&a->stop, 0);
	if ((a->r.tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH)) == NULL)
		return 0;
	json_tokener_set_flags(a->r.tok, DNSB_PLAN_JSON_FLAGS);
	if (pthread_create(&a->thread, NULL, ahead_run, a) != 0) {
		json_tokener_free(a->r.tok);
		return 0;
	}
	r->split.started++;
	return 1;
}

void dnsb_plan_ahead_end(ahead *a)
{
	atomic_store(&a->stop, 1);
	pthread_join(a->thread, NULL);
	dnsb_plan_list_clear(&a->r.lists[a->which]);
	json_tokener_free(a->r.tok);
}

/*
 * A change the second reader found invalid names its JSON path with the index it counted from its start: read it
 * again at its place in the list. @return 0 or DNSB_ENOMEM
 */
static int renumber(dnsb_change *c, size_t base)
{
	int old = c->kind == DNSB_CHANGE_DELETE;
	json_object *ep = json_object_get(old ? c->endpoint_old : c->endpoint_new);
	dnsb_change_kind kind = c->kind;
	size_t index = c->plan_index + base;
	int rc;

	dnsb_plan_change_clear(c);
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->plan_index = index;
	rc = dnsb_plan_read_side(c, ep, old);
	json_object_put(ep);
	return rc < 0 ? rc : dnsb_plan_finish_change(c);
}

int dnsb_plan_ahead_take(reader *r, ahead *a, size_t i)
{
	change_list *mine = &r->lists[a->which], *theirs = &a->r.lists[a->which];
	int rc = 0;

	pthread_join(a->thread, NULL);
	json_tokener_free(a->r.tok);
	if (a->rc != 0 || DNSB_ARRAY_RESERVE(mine->items, mine->capacity, mine->count + theirs->count, 1) < 0) {
		rc = a->rc == DNSB_ENOMEM || a->rc == 0 ? DNSB_ENOMEM : 1;
		dnsb_plan_list_clear(theirs);
		return rc;
	}
	for (size_t k = 0; k < theirs->count; k++) {
		dnsb_change *c = &theirs->items[k];
		if (rc == 0 && c->message != NULL)
			rc = renumber(c, i);
		else
			c->plan_index += i;
	}
	memcpy(mine->items + mine->count, theirs->items, theirs->count * sizeof(*theirs->items));
	mine->count += theirs->count;
	free(theirs->items);
	r->read[a->which] += a->r.read[a->which];
	r->split.taken += a->r.read[a->which];
	r->off = a->r.off;
	return rc;
}

