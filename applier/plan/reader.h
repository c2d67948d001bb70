/*
 * reader.h - the plan reader's state, shared by stream.c (the outline and
 * the lists) and ahead.c (a second thread reading a long list from halfway).
 * Private to applier/plan.
 */
#ifndef DNSBATCH_PLAN_READER_H
#define DNSBATCH_PLAN_READER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include <json-c/json.h>

#include "dnsbatch/change.h"
#include "applier/plan/internal.h"

enum { NEED_TREE = 1 };

typedef struct change_list {
	dnsb_change *items;
	size_t count, capacity;
} change_list;

typedef struct reader {
	const char *json;
	size_t len, off;
	json_tokener *tok;
	const char *source;
	change_list lists[L_COUNT];     /* L_UPDATE_OLD holds the updates; L_UPDATE_NEW stays empty */
	json_object **news;             /* updateNew endpoints read before updateOld, waiting for their pair */
	size_t news_count, news_capacity;
	int seen[L_COUNT];
	size_t read[L_COUNT];           /* endpoints read of each list */
	char **unknown;                 /* unknown keys, warned about once the plan is read */
	size_t unknown_count, unknown_capacity;
	size_t split_from;              /* where to look for a second reader's start; SIZE_MAX: nowhere; 0: halfway
					 * through each long list */
	dnsb_plan_split split;          /* second readers started, endpoints they read that were taken */
	atomic_int *stop;               /* a second reader's: set when its result is no longer wanted */
} reader;

struct ahead;
/* How a reader reads a list's endpoints (stream.c's dnsb_plan_items), given to ahead.c, which runs it on a second
 * thread: ahead.c sits below stream.c and calls it only through this. */
typedef int (*dnsb_plan_items_fn)(reader *r, int which, size_t i, struct ahead *a);

/* A second reader: list `which` read from `start` (an endpoint's first octet, guessed) to the `]` after an endpoint. */
typedef struct ahead {
	reader r;
	dnsb_plan_items_fn items;   /* what the second thread runs */
	int which;
	size_t start;
	int rc;             /* 0: read to a `]` (r.off past it), NEED_TREE, DNSB_ENOMEM, or 1 + NEED_TREE: stopped */
	atomic_int stop;
	pthread_t thread;
} ahead;

/* ahead.c: free the changes of a list and its array. */
void dnsb_plan_list_clear(change_list *l);

/*
 * stream.c: the endpoints of list `which` from r->off (whitespace skipped), the first numbered i, to the `]` after
 * one; `a` a second reader started further on the same list (taken or ended here), or NULL.
 * @return 0 (r->off past the `]`), NEED_TREE, DNSB_ENOMEM, or 1 + NEED_TREE when r->stop was set
 */
int dnsb_plan_items(reader *r, int which, size_t i, ahead *a);

/* ahead.c: start a second reader on list `which`, whose first endpoint begins at r->off, when the list is long; it
 * reads with `items` (dnsb_plan_items). @return 1 when started (end it with dnsb_plan_ahead_take or
 * dnsb_plan_ahead_end), 0 when not */
int dnsb_plan_ahead_start(reader *r, int which, ahead *a, dnsb_plan_items_fn items);

/*
 * ahead.c: the first reader is at the second's start, endpoint `i` of the list: the second reader's changes become
 * the list's from i on, renumbered. @return 0 (the list read, r->off past its `]`), 1 (the second reader found
 * what only the whole tree names: read on from here) or DNSB_ENOMEM
 */
int dnsb_plan_ahead_take(reader *r, ahead *a, size_t i);

/* ahead.c: the second reader is not wanted: stop it, wait for it, free what it read. */
void dnsb_plan_ahead_end(ahead *a);

#endif
