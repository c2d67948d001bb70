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
#include <stdlib.h>

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

/* *key = "owner type" of a change's new RRset (malloc'd), or NULL when it writes none or is decided.
 * @return 0 or DNSB_ENOMEM */
static int new_key(char **key, const dnsb_change *c)
{
	*key = NULL;
	if (c->new_set.owner == NULL || c->outcome != DNSB_OUTCOME_PENDING)
		return 0;
	/* An RRset is keyed by owner name, type and set identifier: two routing sets at one name are no duplicate. */
	return asprintf(key, "%s %u %s", c->new_set.owner, (unsigned)c->new_set.type,
			c->new_set.set_id ? c->new_set.set_id : "") < 0 ? (*key = NULL, DNSB_ENOMEM) : 0;
}

int dnsb_plan_mark_duplicates(dnsb_change *changes, size_t count)
{
	dnsb_hmap seen = DNSB_HMAP_INIT;
	char **keys = calloc(count ? count : 1, sizeof(*keys));
	int rc = keys ? 0 : DNSB_ENOMEM;

	for (size_t i = 0; rc == 0 && i < count; i++) {
		dnsb_change *first;
		if ((rc = new_key(&keys[i], &changes[i])) != 0 || keys[i] == NULL)
			continue;
		if ((first = dnsb_hmap_get(&seen, keys[i])) == NULL) {
			rc = dnsb_hmap_put(&seen, keys[i], &changes[i]);
			continue;
		}
		/* The first keeps its own message once marked: it names the first duplicate found. */
		if (first->outcome == DNSB_OUTCOME_PENDING)
			rc = mark_twice(first, &changes[i]);
		if (rc == 0)
			rc = mark_twice(&changes[i], first);
	}
	dnsb_hmap_clear(&seen);
	for (size_t i = 0; keys && i < count; i++)
		free(keys[i]);
	free(keys);
	return rc;
}
