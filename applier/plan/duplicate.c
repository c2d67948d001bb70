/*
 * duplicate.c - a plan that writes one RRset twice is refused before anything
 * is sent.
 *
 * Two creates (or a create and an update) of the same owner name and type say
 * two things about one RRset: whichever a provider took, the other would be
 * reported as a conflict with what is in the way ("nothing held at the
 * name"), blaming the zone for the plan's own fault. Both are dropped as
 * `invalid`, each naming the other's JSON path. They share an owner name, so
 * they share a change group: the group drops whole.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/change.h"
#include "applier/core/hmap.h"
#include "applier/plan/internal.h"

/* "$.create[3]" or "$.updateNew[3]": where a change's new RRset was read. */
static void new_path(char *buf, size_t size, const dnsb_change *c)
{
	snprintf(buf, size, "$.%s[%zu]", c->kind == DNSB_CHANGE_UPDATE ? "updateNew" : "create", c->plan_index);
}

/* Mark `a` invalid for writing the same RRset as `b`. @return 0 or DNSB_ENOMEM */
static int mark_twice(dnsb_change *a, const dnsb_change *b)
{
	char here[64], there[64], *why;

	new_path(here, sizeof(here), a);
	new_path(there, sizeof(there), b);
	if (asprintf(&why, "%s and %s (%s %s): the plan writes this RRset twice%s; neither is sent", here, there,
		     a->new_set.owner, dnsb_type_name(a->new_set.type),
		     dnsb_rrset_same_data(&a->new_set, &b->new_set) ? "" : ", with different values") < 0)
		return DNSB_ENOMEM;
	dnsb_plan_drop_invalid(a, why);
	return 0;
}

/* Whether a change's new RRset is still to be checked: it writes one and nothing decided it yet. */
static int writes_new(const dnsb_change *c)
{
	return c->new_set.owner != NULL && c->outcome == DNSB_OUTCOME_PENDING;
}

/* An RRset is keyed by owner name, type and set identifier: two routing sets at one name are no duplicate. */
static int same_rrset(const dnsb_rrset *a, const dnsb_rrset *b)
{
	return a->type == b->type && strcmp(a->set_id ? a->set_id : "", b->set_id ? b->set_id : "") == 0;
}

/*
 * The changes are chained by owner name (a map from the owner to the last change seen there, and `prev` for the one
 * before it), so that no key is built: a name holds a handful of RRsets, and the owner strings are the changes' own.
 */
int dnsb_plan_mark_duplicates(dnsb_change *changes, size_t count)
{
	dnsb_hmap seen = DNSB_HMAP_INIT;
	size_t *prev = malloc((count ? count : 1) * sizeof(*prev));
	int rc = prev ? 0 : DNSB_ENOMEM;

	if (rc == 0)
		rc = dnsb_hmap_reserve(&seen, count);
	for (size_t i = 0; rc == 0 && i < count; i++) {
		dnsb_change *c = &changes[i], *first = NULL;
		void *last; /* the change index + 1 last seen at the owner name; NULL: none */

		if (!writes_new(c))
			continue;
		if ((rc = dnsb_hmap_swap(&seen, c->new_set.owner, (void *)(uintptr_t)(i + 1), &last)) != 0)
			break;
		prev[i] = (size_t)(uintptr_t)last;
		for (size_t j = prev[i]; j != 0; j = prev[j - 1]) /* backwards: the earliest match is found last */
			if (same_rrset(&changes[j - 1].new_set, &c->new_set))
				first = &changes[j - 1];
		if (first == NULL)
			continue;
		/* The first keeps its own message once marked: it names the first duplicate found. */
		if (first->outcome == DNSB_OUTCOME_PENDING)
			rc = mark_twice(first, c);
		if (rc == 0)
			rc = mark_twice(c, first);
	}
	dnsb_hmap_clear(&seen);
	free(prev);
	return rc;
}
