/*
 * scope.c - which listed RRsets GET /records returns under the domain filter.
 *
 * A record is in scope when the filter matches its owner name. external-dns's
 * TXT registry (registry/txt.go) reads its ownership records from the same
 * listing before the plan filters by domain, and keeps them at names derived
 * from the owned name: "a-app.example.com" (type prefix), "pre-a-app.example.com"
 * or "_x.a-app.example.com" (--txt-prefix), "a-app-suf.example.com"
 * (--txt-suffix), or "app.example.com" itself (the old format). A filter on
 * "app.example.com", or a regex anchored on the first label, does not match
 * those names; hiding them makes external-dns see no owner and never update or
 * delete the record. So a TXT RRset outside the filter is still returned when
 * it could be the ownership record of an in-scope name:
 *   - an in-scope owner "L.REST" exists and the TXT name is "X.REST" with L
 *     inside X (any prefix or suffix, with or without dots), or
 *   - its first label holds "TYPE-" (an RR type mnemonic) and the name after
 *     it is in scope (the owned record does not exist yet or any more).
 * A wildcard's ownership record cannot hold "*" where external-dns is run with
 * --txt-wildcard-replacement R: the registry writes "a-R.example.com" for
 * "*.example.com". Given R, a first label "*" of an in-scope owner is looked
 * for as R, and an owned name "R.REST" is tested as "*.REST".
 * Returning a TXT record whose owned name is out of scope is harmless: the
 * registry turns ownership records into labels of the records it owns, and the
 * plan ignores names outside the filter.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "applier/core/array.h"
#include "applier/core/hmap.h"
#include "applier/webhook/internal.h"

int dnsb_webhook_type_listed(uint16_t type)
{
	return !dnsb_type_is_server(type);
}

enum { TYPE_TXT = 16 };

/* The first labels of in-scope owners that share one parent ("example.com."). */
struct firsts {
	const char **at;  /* borrowed owner names */
	size_t n, cap;
};

static int firsts_add(struct firsts *f, const char *owner)
{
	if (DNSB_ARRAY_RESERVE(f->at, f->cap, f->n + 1, 4) < 0)
		return DNSB_ENOMEM;
	f->at[f->n++] = owner;
	return 0;
}

static void parents_clear(dnsb_hmap *parents)
{
	size_t iter = 0;
	const char *key;
	void *value;

	while (dnsb_hmap_next(parents, &iter, &key, &value)) {
		struct firsts *f = value;
		free(f->at);
		free(f);
	}
	dnsb_hmap_clear(parents);
}

/* Index in-scope owners by parent. @return 0 or DNSB_ENOMEM */
static int index_parents(dnsb_hmap *parents, const dnsb_rrset_list *list, const unsigned char *keep)
{
	for (size_t i = 0; i < list->count; i++) {
		const char *owner = list->items[i].owner, *dot = strchr(owner, '.');
		struct firsts *f;

		if (!keep[i] || dot == NULL || dot[1] == '\0')
			continue;
		if ((f = dnsb_hmap_get(parents, dot + 1)) == NULL) {
			if ((f = calloc(1, sizeof(*f))) == NULL || dnsb_hmap_put(parents, dot + 1, f) != 0) {
				free(f);
				return DNSB_ENOMEM;
			}
		}
		if ((f->n == 0 || strcmp(f->at[f->n - 1], owner) != 0) && firsts_add(f, owner) != 0)
			return DNSB_ENOMEM;
	}
	return 0;
}

/* Does X (the `xlen` bytes before ".parent") hold the first label of an in-scope owner under that parent
 * (a "*" as `wildcard`, when one is given)? */
static int holds_first_label(const dnsb_hmap *parents, const char *name, size_t xlen, const char *parent,
			     const char *wildcard)
{
	const struct firsts *f = dnsb_hmap_get(parents, parent);

	for (size_t i = 0; f && i < f->n; i++) {
		const char *first = f->at[i];
		size_t l0 = (size_t)(strchr(first, '.') - first);
		if (wildcard && l0 == 1 && first[0] == '*') {
			first = wildcard;
			l0 = strlen(wildcard);
		}
		for (size_t k = 0; l0 > 0 && k + l0 <= xlen; k++)
			if (memcmp(name + k, first, l0) == 0)
				return 1;
	}
	return 0;
}

/* Is `owned` in scope, or, with a wildcard replacement R, is "R.REST" the wildcard "*.REST" in scope? */
static int owned_in_scope(const dnsb_domain_filter *filter, const char *owned, const char *wildcard)
{
	size_t wl = wildcard ? strlen(wildcard) : 0;
	char *star;
	int in;

	if (dnsb_domain_filter_match(filter, owned))
		return 1;
	if (wl == 0 || strncmp(owned, wildcard, wl) != 0 || owned[wl] != '.' || asprintf(&star, "*%s", owned + wl) < 0)
		return 0;
	in = dnsb_domain_filter_match(filter, star);
	free(star);
	return in;
}

/* Is the head of a label (its bytes before a '-') an RR type mnemonic, alone or after a non-alphanumeric byte? */
static int ends_with_type(const char *label, size_t end)
{
	char type[16];
	size_t start = end;

	while (start > 0 && isalnum((unsigned char)label[start - 1]))
		start--;
	if (end == start || end - start >= sizeof(type))
		return 0;
	memcpy(type, label + start, end - start);
	type[end - start] = '\0';
	return ldns_get_rr_type_by_name(type) != 0;
}

/* Could the TXT RRset at `name` be the ownership record of an in-scope name? */
static int owns_in_scope(const dnsb_domain_filter *filter, const dnsb_hmap *parents, const char *name,
			 const char *wildcard)
{
	const char *first_dot = strchr(name, '.');

	for (const char *dot = first_dot; dot && dot[1] != '\0'; dot = strchr(dot + 1, '.'))
		if (holds_first_label(parents, name, (size_t)(dot - name), dot + 1, wildcard))
			return 1;
	for (const char *dash = name; first_dot && (dash = memchr(dash, '-', (size_t)(first_dot - dash))) != NULL;
	     dash++)
		if (ends_with_type(name, (size_t)(dash - name)) && owned_in_scope(filter, dash + 1, wildcard))
			return 1;
	return 0;
}

int dnsb_webhook_scope(unsigned char *keep, const dnsb_domain_filter *filter, const dnsb_rrset_list *list,
		       const char *wildcard)
{
	dnsb_hmap parents = DNSB_HMAP_INIT;
	int rc;

	for (size_t i = 0; i < list->count; i++)
		keep[i] = dnsb_webhook_type_listed(list->items[i].type) &&
			  dnsb_domain_filter_match(filter, list->items[i].owner);
	if (filter == NULL)
		return 0;
	if ((rc = index_parents(&parents, list, keep)) == 0) {
		for (size_t i = 0; i < list->count; i++)
			if (!keep[i] && list->items[i].type == TYPE_TXT)
				keep[i] = (unsigned char)owns_in_scope(filter, &parents, list->items[i].owner, wildcard);
	}
	parents_clear(&parents);
	return rc;
}
