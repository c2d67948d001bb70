/*
 * create_delete.c - a plan that writes an RRset and deletes it too is refused
 * before anything is sent.
 *
 * An update and a delete of one owner name, type and set identifier say
 * opposite things about one RRset (changed, and gone); a create and a delete
 * of the same records say it is there and is not. Whichever ran last would
 * win, and the other would be reported against the zone. Both are dropped as
 * `invalid`, each naming the other's JSON path, as duplicate.c does for an
 * RRset written twice. A delete and a create of other records at one RRset
 * is a replacement (docs/design.md §3.3: "the new RRset is there"), and stays.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/change.h"
#include "applier/core/hmap.h"
#include "applier/plan/internal.h"

/* Mark `c` invalid: `writer` ($.create[i] or $.updateNew[i]) and `del` ($.delete[j]) are about one RRset.
 * @return 0 or DNSB_ENOMEM */
static int mark(dnsb_change *c, const dnsb_change *writer, const dnsb_change *del)
{
	int create = writer->kind == DNSB_CHANGE_CREATE;
	char *why;

	if (c->outcome != DNSB_OUTCOME_PENDING)
		return 0; /* already refused: its own message stands */
	if (asprintf(&why, "$.%s[%zu] and $.delete[%zu] (%s %s): the plan both %s and deletes this RRset%s; neither is sent",
		     create ? "create" : "updateNew", writer->plan_index, del->plan_index, del->old.owner,
		     dnsb_type_name(del->old.type), create ? "creates" : "updates", create ? ", with the same records" : "") < 0)
		return DNSB_ENOMEM;
	dnsb_plan_drop_invalid(c, why);
	return 0;
}

static int same_rrset(const dnsb_rrset *a, const dnsb_rrset *b)
{
	return a->type == b->type && strcmp(a->set_id ? a->set_id : "", b->set_id ? b->set_id : "") == 0;
}

int dnsb_plan_mark_create_delete(dnsb_change *changes, size_t count)
{
	dnsb_hmap writers = DNSB_HMAP_INIT; /* owner name -> the index + 1 of the last change writing there */
	size_t *prev = malloc((count ? count : 1) * sizeof(*prev));
	int rc = prev ? 0 : DNSB_ENOMEM;
	void *last;

	for (size_t i = 0; rc == 0 && i < count; i++) {
		if (changes[i].kind == DNSB_CHANGE_DELETE || changes[i].new_set.owner == NULL)
			continue;
		if ((rc = dnsb_hmap_swap(&writers, changes[i].new_set.owner, (void *)(uintptr_t)(i + 1), &last)) == 0)
			prev[i] = (size_t)(uintptr_t)last;
	}
	for (size_t i = 0; rc == 0 && i < count; i++) {
		dnsb_change *d = &changes[i];

		if (d->kind != DNSB_CHANGE_DELETE || d->old.owner == NULL ||
		    (last = dnsb_hmap_get(&writers, d->old.owner)) == NULL)
			continue;
		for (size_t j = (size_t)(uintptr_t)last; rc == 0 && j != 0; j = prev[j - 1]) {
			dnsb_change *w = &changes[j - 1];
			if (!same_rrset(&w->new_set, &d->old) ||
			    (w->kind == DNSB_CHANGE_CREATE && !dnsb_rrset_same_data(&w->new_set, &d->old)))
				continue; /* another RRset, or a replacement */
			if ((rc = mark(w, w, d)) == 0)
				rc = mark(d, w, d);
		}
	}
	dnsb_hmap_clear(&writers);
	free(prev);
	return rc;
}
