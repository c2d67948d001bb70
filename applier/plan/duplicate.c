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
#include <stdint.h>
#include <stdio.h>
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
	free(a->message);
	a->message = why;
	a->outcome = DNSB_OUTCOME_DROPPED;
	a->reason = DNSB_REASON_INVALID;
	return 0;
}

/* Does c write an RRset (owner aside) keyed like d's: type and set identifier (NULL and "" both none)? */
static int same_rrset(const dnsb_change *c, const dnsb_change *d)
{
	const char *a = c->new_set.set_id ? c->new_set.set_id : "", *b = d->new_set.set_id ? d->new_set.set_id : "";

	return c->new_set.type == d->new_set.type && strcmp(a, b) == 0;
}

/*
 * An RRset is keyed by owner name, type and set identifier: two routing sets
 * at one name are no duplicate. The map is keyed by the owner name (the
 * change's own string, no key built: 400,000 asprintf calls were a fifth of
 * the parse), each change chained to the previous one at its owner.
 */
int dnsb_plan_mark_duplicates(dnsb_change *changes, size_t count)
{
	dnsb_hmap seen = DNSB_HMAP_INIT;   /* owner -> index + 1 of the newest change kept at it */
	size_t *older = malloc((count ? count : 1) * sizeof(*older)); /* index + 1 of the next older, 0 none */
	int rc = older ? dnsb_hmap_reserve(&seen, count) : DNSB_ENOMEM;

	for (size_t i = 0; rc == 0 && i < count; i++) {
		dnsb_change *c = &changes[i], *first = NULL;
		size_t head;

		/* A change that writes no RRset, or is decided already, is no one's duplicate. */
		if (c->new_set.owner == NULL || c->outcome != DNSB_OUTCOME_PENDING)
			continue;
		head = (size_t)(uintptr_t)dnsb_hmap_get(&seen, c->new_set.owner);
		for (size_t at = head; at != 0; at = older[at - 1])
			if (same_rrset(c, &changes[at - 1]))
				first = &changes[at - 1]; /* the oldest: chains run newest first */
		if (first == NULL) {
			older[i] = head;
			rc = dnsb_hmap_put(&seen, c->new_set.owner, (void *)(uintptr_t)(i + 1));
			continue;
		}
		/* The first keeps its own message once marked: it names the first duplicate found. */
		if (first->outcome == DNSB_OUTCOME_PENDING)
			rc = mark_twice(first, c);
		if (rc == 0)
			rc = mark_twice(c, first);
	}
	dnsb_hmap_clear(&seen);
	free(older);
	return rc;
}
