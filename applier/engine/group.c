/*
 * group.c - change groups (docs/design.md §2.1): changes with one owner name, joined
 * by the external-dns registry's ownership records (labels.ownedRecord).
 * The sets of a routing policy (distinct set identifiers at one owner name)
 * are groups apart: the registry's TXT record of a set carries the set's
 * identifier (external-dns registry/txt.go), so it joins its own set's group;
 * a change without identifier at the owner name joins every set there.
 * Union-find over (owner name, set identifier); groups in order of first
 * appearance.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/array.h"
#include "applier/core/hmap.h"
#include "applier/engine/internal.h"

static size_t uf_find(size_t *parent, size_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

/* Join change i to the set of the last change keyed `name`, and key `name` to i (one probe of the map). */
static int uf_join(dnsb_hmap *names, size_t *parent, const char *name, size_t i)
{
	void *seen;

	if (dnsb_hmap_swap(names, name, (void *)(i + 1), &seen) != 0)
		return DNSB_ENOMEM;
	if (seen != NULL) {
		size_t a = uf_find(parent, (size_t)seen - 1), b = uf_find(parent, i);
		if (a != b)
			parent[a > b ? a : b] = a > b ? b : a;
	}
	return 0;
}

/* The set identifier of a change's RRset, or NULL for none ("" is none). */
static const char *change_set_id(const dnsb_change *c)
{
	const dnsb_rrset *r = c->kind == DNSB_CHANGE_DELETE ? &c->old : &c->new_set;

	return r->set_id && r->set_id[0] ? r->set_id : NULL;
}

/* The keys made for sets ("name\x1fset-id"): owned here, freed when the groups are made. */
typedef struct made_keys {
	char **items;
	size_t count, capacity;
} made_keys;

/* "name\x1fset-id", kept in `made`, or the name itself (borrowed) without one. @return the key, or NULL (ENOMEM) */
static const char *set_key(made_keys *made, const char *name, const char *sid)
{
	size_t a, b;
	char *key;

	if (sid == NULL)
		return name;
	a = strlen(name);
	b = strlen(sid);
	if (DNSB_ARRAY_RESERVE(made->items, made->capacity, made->count + 1, 16) < 0 || (key = malloc(a + b + 2)) == NULL)
		return NULL;
	memcpy(key, name, a);
	key[a] = '\x1f';
	memcpy(key + a + 1, sid, b + 1);
	made->items[made->count++] = key;
	return key;
}

/*
 * Join c (index i) to its owner's group and its owned record's, each keyed by c's set identifier; an update
 * whose old set had another identifier joins that set's group too.
 */
static int join_change(dnsb_hmap *names, size_t *parent, made_keys *made, const dnsb_change *c, size_t i)
{
	const char *sid = change_set_id(c), *key = set_key(made, dnsb_change_owner(c), sid);
	const char *old_sid = c->old.set_id && c->old.set_id[0] ? c->old.set_id : NULL;
	int rc = key ? uf_join(names, parent, key, i) : DNSB_ENOMEM;
	int moved = c->kind == DNSB_CHANGE_UPDATE && (old_sid ? sid == NULL || strcmp(old_sid, sid) != 0 : sid != NULL);

	if (rc == 0 && c->owned_record)
		rc = (key = set_key(made, c->owned_record, sid)) ? uf_join(names, parent, key, i) : DNSB_ENOMEM;
	if (rc == 0 && moved)
		rc = (key = set_key(made, c->old.owner, old_sid)) ? uf_join(names, parent, key, i) : DNSB_ENOMEM;
	return rc;
}

/* Inside a group: deletions, then updates, then creations, so a name can change type. */
static int kind_rank(const dnsb_change *c)
{
	return c->kind == DNSB_CHANGE_DELETE ? 0 : c->kind == DNSB_CHANGE_UPDATE ? 1 : 2;
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* Decimal digits of v at p. @return the end */
static char *put_uint(char *p, unsigned long v)
{
	char digits[24];
	size_t n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n > 0)
		*p++ = digits[--n];
	return p;
}

/* "TAG OWNER TYPE TTL" then "\x1fRDATA" each, then "\x1e" (built by hand: sprintf was a tenth of the time
 * before the first submission of a 400,000-change plan). */
static int append_rrset_key(char **buf, size_t *len, size_t *cap, const char *tag, const dnsb_rrset *r)
{
	size_t need = strlen(tag) + strlen(r->owner) + 32 + dnsb_rrset_rdata_bytes(r) + r->rdata_count;
	char *p;

	if (*len + need + 1 > *cap) {
		size_t c = (*len + need + 1) * 2;
		char *grown = realloc(*buf, c);
		if (grown == NULL)
			return DNSB_ENOMEM;
		*buf = grown;
		*cap = c;
	}
	p = put_str(*buf + *len, tag);
	*p++ = ' ';
	p = put_str(p, r->owner);
	*p++ = ' ';
	p = put_uint(p, r->type);
	*p++ = ' ';
	p = put_uint(p, r->ttl);
	for (size_t i = 0; i < r->rdata_count; i++) {
		*p++ = '\x1f';
		p = put_str(p, r->rdata[i]);
	}
	*p++ = '\x1e';
	*p = '\0';
	*len = (size_t)(p - *buf);
	return 0;
}

int dnsb_engine_group_key(group *g)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < g->count; i++) {
		const dnsb_change *c = g->changes[i];
		if (c->kind != DNSB_CHANGE_CREATE)
			rc = append_rrset_key(&buf, &len, &cap, "-", &c->old);
		if (rc == 0 && c->kind != DNSB_CHANGE_DELETE)
			rc = append_rrset_key(&buf, &len, &cap, "+", &c->new_set);
	}
	if (rc < 0) {
		free(buf);
		buf = NULL;
	}
	g->key = buf;
	return rc;
}

int dnsb_engine_group_keys(group *groups, size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		if (dnsb_engine_group_key(&groups[i]) < 0)
			rc = DNSB_ENOMEM;
	return rc;
}

/*
 * Pending changes form groups; so do changes the parser found invalid, when
 * their owner name is known, so that their group is dropped with them.
 */
static int groupable(const dnsb_change *c, size_t zone_count)
{
	if (c->outcome == DNSB_OUTCOME_PENDING)
		return 1;
	return c->outcome == DNSB_OUTCOME_DROPPED && c->reason == DNSB_REASON_INVALID && c->zone < zone_count &&
	       dnsb_change_owner(c) != NULL;
}

/* A group with an invalid member is dropped whole: half of a pair misleads the registry. */
void dnsb_engine_drop_invalid_groups(engine *e, group *groups, size_t n)
{
	for (size_t g = 0; g < n; g++) {
		const dnsb_change *bad = NULL;
		char msg[DNSB_ERROR_MESSAGE_MAX];

		for (size_t i = 0; i < groups[g].count && bad == NULL; i++)
			if (groups[g].changes[i]->outcome != DNSB_OUTCOME_PENDING)
				bad = groups[g].changes[i];
		if (bad == NULL)
			continue;
		snprintf(msg, sizeof(msg), "dropped with its group: %s", bad->message ? bad->message : "invalid record");
		for (size_t i = 0; i < groups[g].count; i++) {
			dnsb_change *c = groups[g].changes[i];
			if (c->outcome != DNSB_OUTCOME_PENDING)
				continue;
			dnsb_engine_settle_change(e, c, DNSB_OUTCOME_DROPPED, DNSB_REASON_INVALID, 0, NULL, msg);
		}
	}
}

/* Build the change groups. @return 0 or DNSB_ENOMEM */
int dnsb_engine_make_groups(dnsb_plan *plan, size_t zone_count, group **out, size_t *ngroups)
{
	size_t n = dnsb_plan_count(plan), *parent, *slot, count = 0;
	dnsb_hmap names = DNSB_HMAP_INIT;
	group *groups = NULL;
	made_keys made = { NULL, 0, 0 };
	int rc = 0;

	parent = malloc((n ? n : 1) * sizeof(size_t));
	slot = malloc((n ? n : 1) * sizeof(size_t));
	if (parent == NULL || slot == NULL) {
		rc = DNSB_ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		parent[i] = i;
	rc = dnsb_hmap_reserve(&names, n); /* a name or so per change: no rehash on the way */
	for (size_t i = 0; rc == 0 && i < n; i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		if (!groupable(c, zone_count))
			continue;
		/* An update's pair shares its owner and set identifier (the parser checks), so one key per change. */
		rc = join_change(&names, parent, &made, c, i);
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		void *plain;
		/* A set joins the group of the changes without identifier at its owner name, when there are some. */
		if (groupable(c, zone_count) && change_set_id(c) &&
		    (plain = dnsb_hmap_get(&names, dnsb_change_owner(c))) != NULL) {
			size_t a = uf_find(parent, (size_t)plain - 1), b = uf_find(parent, i);
			if (a != b)
				parent[a > b ? a : b] = a > b ? b : a;
		}
	}
	if (rc < 0)
		goto done;
	/* Count the groups and their sizes, in order of first appearance. */
	for (size_t i = 0; i < n; i++)
		slot[i] = (size_t)-1;
	size_t *sizes = calloc(n ? n : 1, sizeof(size_t));
	if (sizes == NULL) {
		rc = DNSB_ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		if (!groupable(c, zone_count))
			continue;
		size_t r = uf_find(parent, i);
		if (slot[r] == (size_t)-1)
			slot[r] = count++;
		sizes[slot[r]]++;
	}
	if ((groups = calloc(count ? count : 1, sizeof(group))) == NULL) {
		free(sizes);
		rc = DNSB_ENOMEM;
		goto done;
	}
	/* Every group's list of changes in one block, in group order: groups[0].changes is the block (free_groups). */
	size_t members = 0;
	for (size_t g = 0; g < count; g++)
		members += sizes[g];
	if (count > 0 && (groups[0].changes = malloc(members * sizeof(dnsb_change *))) == NULL)
		rc = DNSB_ENOMEM;
	for (size_t g = 1; g < count && rc == 0; g++)
		groups[g].changes = groups[g - 1].changes + sizes[g - 1];
	free(sizes);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		if (!groupable(c, zone_count))
			continue;
		group *g = &groups[slot[uf_find(parent, i)]];
		size_t k = g->count++;
		/* Insertion by kind rank, stable: groups are small. */
		while (k > 0 && kind_rank(g->changes[k - 1]) > kind_rank(c)) {
			g->changes[k] = g->changes[k - 1];
			k--;
		}
		g->changes[k] = c;
		g->zone = c->zone;
		g->id = (size_t)(g - groups);
		c->group = g->id;
	}
done:
	dnsb_hmap_clear(&names);
	for (size_t i = 0; i < made.count; i++)
		free(made.items[i]);
	free(made.items);
	free(parent);
	free(slot);
	*out = groups;
	*ngroups = groups ? count : 0; /* none made: nothing for dnsb_engine_free_groups to walk */
	return rc;
}

void dnsb_engine_free_groups(group *groups, size_t n)
{
	if (groups == NULL)
		return;
	for (size_t g = 0; g < n; g++)
		free(groups[g].key);
	if (n > 0)
		free(groups[0].changes); /* the block of every group's list (dnsb_engine_make_groups) */
	free(groups);
}
