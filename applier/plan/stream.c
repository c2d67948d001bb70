/*
 * stream.c - a plan read one endpoint at a time.
 *
 * json-c parses each endpoint (and each key) on its own; what is read here is
 * only the plan's outline: `{`, `"list": [`, `,`, `]`, `}`. Each endpoint
 * becomes its change and is let go of at once, so the tree of the whole plan
 * (about 15 times the text) is never held. A text that is not a well-formed
 * plan object is left to parse.c, which reads the whole tree and names the
 * fault with its place.
 *
 * A long create or delete list is read by two threads: ahead.c.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "dnsbatch/log.h"
#include "dnsbatch/plan.h"
#include "applier/core/array.h"
#include "applier/plan/internal.h"
#include "applier/plan/reader.h"

/* Step over JSON whitespace (RFC 8259 §2). */
static void skip_space(reader *r)
{
	while (r->off < r->len && (r->json[r->off] == ' ' || r->json[r->off] == '\t' || r->json[r->off] == '\n' ||
				   r->json[r->off] == '\r'))
		r->off++;
}

/* After whitespace, whether the next octet is `c`, taken when it is. */
static int take(reader *r, char c)
{
	skip_space(r);
	if (r->off < r->len && r->json[r->off] == c) {
		r->off++;
		return 1;
	}
	return 0;
}

/* One JSON value by json-c from the current offset: 0 with *v (NULL for `null`), or NEED_TREE. */
static int value(reader *r, json_object **v)
{
	json_tokener_reset(r->tok);
	*v = json_tokener_parse_ex(r->tok, r->json + r->off, (int)(r->len - r->off));
	if (json_tokener_get_error(r->tok) != json_tokener_success) {
		json_object_put(*v);
		*v = NULL;
		return NEED_TREE;
	}
	r->off += json_tokener_get_parse_end(r->tok);
	return 0;
}

static dnsb_change *append(change_list *l, dnsb_change_kind kind, size_t index)
{
	dnsb_change *c;

	if (DNSB_ARRAY_RESERVE(l->items, l->capacity, l->count + 1, 256) < 0)
		return NULL;
	c = memset(&l->items[l->count++], 0, sizeof(*c));
	c->kind = kind;
	c->plan_index = index;
	return c;
}

/* Endpoint i of list `which` into its change. @return 0, NEED_TREE or DNSB_ENOMEM */
static int endpoint(reader *r, int which, size_t i, json_object *ep)
{
	change_list *updates = &r->lists[L_UPDATE_OLD];
	dnsb_change *c;
	int rc;

	if (dnsb_plan_check_shape(r->source, NULL, dnsb_plan_list_names[which], i, ep) != 0)
		return NEED_TREE;
	switch (which) {
	case L_CREATE:
	case L_DELETE:
		if ((c = append(&r->lists[which], which == L_CREATE ? DNSB_CHANGE_CREATE : DNSB_CHANGE_DELETE, i)) == NULL)
			return DNSB_ENOMEM;
		if ((rc = dnsb_plan_read_side(c, ep, which == L_DELETE)) < 0)
			return rc;
		return dnsb_plan_finish_change(c);
	case L_UPDATE_OLD:
		if (r->seen[L_UPDATE_NEW] && i >= r->news_count)
			return NEED_TREE; /* more old endpoints than new ones */
		if ((c = append(updates, DNSB_CHANGE_UPDATE, i)) == NULL)
			return DNSB_ENOMEM;
		if ((rc = dnsb_plan_read_side(c, ep, 1)) < 0 || !r->seen[L_UPDATE_NEW])
			return rc;
		if ((rc = dnsb_plan_read_side(c, r->news[i], 0)) < 0)
			return rc;
		json_object_put(r->news[i]);
		r->news[i] = NULL;
		return dnsb_plan_finish_change(c);
	default: /* L_UPDATE_NEW */
		if (!r->seen[L_UPDATE_OLD]) {
			if (DNSB_ARRAY_RESERVE(r->news, r->news_capacity, r->news_count + 1, 256) < 0)
				return DNSB_ENOMEM;
			r->news[r->news_count++] = json_object_get(ep);
			return 0;
		}
		if (i >= updates->count)
			return NEED_TREE; /* more new endpoints than old ones */
		c = &updates->items[i];
		if ((rc = dnsb_plan_read_side(c, ep, 0)) < 0)
			return rc;
		return dnsb_plan_finish_change(c);
	}
}

int dnsb_plan_items(reader *r, int which, size_t i, ahead *a)
{
	json_object *ep;
	int rc;

	for (;; i++) {
		if (r->stop != NULL && atomic_load_explicit(r->stop, memory_order_relaxed))
			return 1 + NEED_TREE;
		if (a != NULL && (skip_space(r), r->off >= a->start)) {
			if (r->off == a->start && (rc = dnsb_plan_ahead_take(r, a, i)) != 1)
				return rc;
			if (r->off > a->start)
				dnsb_plan_ahead_end(a);
			a = NULL;
		}
		if ((rc = value(r, &ep)) == 0) {
			rc = endpoint(r, which, i, ep);
			json_object_put(ep);
			r->read[which]++;
		}
		if (rc == 0 && take(r, ']'))
			break;
		if (rc == 0 && !take(r, ','))
			rc = NEED_TREE;
		if (rc != 0)
			break;
	}
	if (a != NULL)
		dnsb_plan_ahead_end(a);
	return rc;
}

/* The value of plan key `which`: `null` or an array of endpoints. @return 0, NEED_TREE or DNSB_ENOMEM */
static int list(reader *r, int which)
{
	json_object *ep;
	ahead a;

	if (r->seen[which])
		return NEED_TREE; /* given twice */
	r->seen[which] = 1;
	if (!take(r, '['))
		return value(r, &ep) == 0 && ep == NULL ? 0 : (json_object_put(ep), NEED_TREE);
	if (take(r, ']'))
		return 0;
	skip_space(r);
	return dnsb_plan_items(r, which, 0, dnsb_plan_ahead_start(r, which, &a, dnsb_plan_items) ? &a : NULL);
}

/* A key that names no list: its value is read and let go of, the key kept for a warning. */
static int unknown(reader *r, const char *key)
{
	json_object *v;
	char *copy;

	if (value(r, &v) != 0)
		return NEED_TREE;
	json_object_put(v);
	if (DNSB_ARRAY_RESERVE(r->unknown, r->unknown_capacity, r->unknown_count + 1, 4) < 0 ||
	    (copy = strdup(key)) == NULL)
		return DNSB_ENOMEM;
	r->unknown[r->unknown_count++] = copy;
	return 0;
}

static int outline(reader *r)
{
	json_object *key;
	int rc;

	if (!take(r, '{'))
		return NEED_TREE;
	if (!take(r, '}')) {
		do {
			int which = -1;
			if (value(r, &key) != 0 || !json_object_is_type(key, json_type_string) || !take(r, ':')) {
				json_object_put(key);
				return NEED_TREE;
			}
			for (int l = 0; l < L_COUNT; l++)
				if (strcasecmp(json_object_get_string(key), dnsb_plan_list_names[l]) == 0)
					which = l;
			rc = which < 0 ? unknown(r, json_object_get_string(key)) : list(r, which);
			json_object_put(key);
			if (rc != 0)
				return rc;
		} while (take(r, ','));
		if (!take(r, '}'))
			return NEED_TREE;
	}
	skip_space(r); /* after the document */
	if (r->off != r->len || r->read[L_UPDATE_OLD] != r->read[L_UPDATE_NEW])
		return NEED_TREE;
	if (r->unknown_count > 0 && !r->seen[L_CREATE] && !r->seen[L_UPDATE_OLD] && !r->seen[L_UPDATE_NEW] &&
	    !r->seen[L_DELETE])
		return NEED_TREE; /* no plan: the whole tree says what it looks like */
	return 0;
}

/* The three lists as one array, in the order the whole-tree reader builds them. @return 0 or DNSB_ENOMEM */
static int join(reader *r, dnsb_change **changes, size_t *count)
{
	change_list *c = &r->lists[L_CREATE], *u = &r->lists[L_UPDATE_OLD], *d = &r->lists[L_DELETE];
	size_t n = c->count + u->count + d->count;

	if (DNSB_ARRAY_RESERVE(c->items, c->capacity, n ? n : 1, 1) < 0)
		return DNSB_ENOMEM;
	if (u->count > 0)
		memcpy(c->items + c->count, u->items, u->count * sizeof(*u->items));
	if (d->count > 0)
		memcpy(c->items + c->count + u->count, d->items, d->count * sizeof(*d->items));
	*changes = c->items;
	*count = n;
	free(u->items);
	free(d->items);
	memset(r->lists, 0, sizeof(r->lists));
	return 0;
}

int dnsb_plan_stream_split(dnsb_change **changes, size_t *count, const char *json, size_t len, const char *source,
			   size_t split_from, dnsb_plan_split *split)
{
	reader r = { .json = json, .len = len, .source = source, .split_from = split_from };
	int rc;

	*changes = NULL;
	*count = 0;
	if (len > INT_MAX || !dnsb_json_text_plainly_utf8(json, len))
		return NEED_TREE;
	if ((r.tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH)) == NULL)
		return DNSB_ENOMEM;
	json_tokener_set_flags(r.tok, DNSB_PLAN_JSON_FLAGS);
	rc = outline(&r);
	if (rc == 0)
		rc = join(&r, changes, count);
	if (split != NULL)
		*split = r.split;
	for (size_t i = 0; i < r.unknown_count; i++) {
		/* external-dns's Go decoder ignores unknown fields; so do we, loudly. */
		if (rc == 0)
			dnsb_log(DNSB_LOG_WARN, "%s: $.%s: unknown key ignored", source, r.unknown[i]);
		free(r.unknown[i]);
	}
	for (size_t i = 0; i < r.news_count; i++)
		json_object_put(r.news[i]);
	for (int l = 0; l < L_COUNT; l++)
		dnsb_plan_list_clear(&r.lists[l]);
	free(r.unknown);
	free(r.news);
	json_tokener_free(r.tok);
	return rc;
}

int dnsb_plan_stream(dnsb_change **changes, size_t *count, const char *json, size_t len, const char *source)
{
	return dnsb_plan_stream_split(changes, count, json, len, source, 0, NULL);
}
