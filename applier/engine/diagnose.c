/*
 * diagnose.c - what is in a dropped change's way: its cause, every RRset the
 * provider holds at its owner name, and who owns that name by external-dns's
 * TXT registry (registry/txt.go). All from the read that verify-before-drop
 * makes anyway (verify.c reads these names too), so it costs no request.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "applier/engine/diagnose.h"
#include "applier/engine/internal.h"

/* The name a change's ownership record is about: the record it owns (an ownership TXT) or its own. */
static const char *owned_name(const dnsb_change *c)
{
	if (c->owned_record)
		return c->owned_record;
	return c->kind == DNSB_CHANGE_DELETE ? c->old.owner : c->new_set.owner;
}

static uint16_t change_type(const dnsb_change *c)
{
	return c->kind == DNSB_CHANGE_DELETE ? c->old.type : c->new_set.type;
}

static int add_name(char **out, size_t *n, size_t max, char *name)
{
	if (name == NULL)
		return DNSB_ENOMEM;
	for (size_t i = 0; i < *n; i++) {
		if (strcmp(out[i], name) == 0) {
			free(name);
			return 0;
		}
	}
	if (*n == max) {
		free(name);
		return 0;
	}
	out[(*n)++] = name;
	return 0;
}

int dnsb_engine_registry_names(const group *g, const dnsb_change *c, char **out, size_t max, size_t *n)
{
	const char *name = owned_name(c);
	char type[16];
	int rc = 0;

	*n = 0;
	/* The plan's own ownership records show the registry's prefix and suffix. */
	for (size_t i = 0; rc == 0 && i < g->count; i++) {
		const dnsb_change *t = g->changes[i];
		if (t->owned_record && strcmp(t->owned_record, name) == 0)
			rc = add_name(out, n, max, strdup(t->kind == DNSB_CHANGE_DELETE ? t->old.owner : t->new_set.owner));
	}
	if (rc == 0 && c->owned_record == NULL) {
		/* The registry's default: "<type>-<name>", and the name itself (its old format). */
		snprintf(type, sizeof(type), "%s", dnsb_type_name(change_type(c)));
		for (char *p = type; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		char *guess = NULL;
		if (asprintf(&guess, "%s-%s", type, name) < 0)
			guess = NULL;
		rc = add_name(out, n, max, guess);
		if (rc == 0)
			rc = add_name(out, n, max, strdup(name));
	}
	return rc;
}

/* From "heritage=external-dns,external-dns/owner=X,external-dns/resource=Y": X and Y (malloc'd). @return 1 when it is one */
static int parse_ownership(const char *rdata, char **owner, char **resource)
{
	char *text = strdup(rdata + (*rdata == '"')), *save = NULL;
	int heritage = 0;

	if (text == NULL)
		return 0;
	text[strcspn(text, "\"")] = '\0';
	for (char *f = strtok_r(text, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		if (strcmp(f, "heritage=external-dns") == 0)
			heritage = 1;
		else if (strncmp(f, "external-dns/owner=", 19) == 0 && *owner == NULL)
			*owner = strdup(f + 19);
		else if (strncmp(f, "external-dns/resource=", 22) == 0 && *resource == NULL)
			*resource = strdup(f + 22);
	}
	free(text);
	if (heritage && *owner)
		return 1;
	free(*owner);
	free(*resource);
	*owner = *resource = NULL;
	return 0;
}

/* The owner of c's name by the ownership TXT records in `held`, into out's txt_owner and txt_resource. */
static void find_owner(const group *g, const dnsb_change *c, const dnsb_rrset_list *held, dnsb_change *out)
{
	char *names[8];
	size_t n = 0;

	if (dnsb_engine_registry_names(g, c, names, 8, &n) != 0) {
		while (n > 0) /* out of memory: none is read, those made are freed */
			free(names[--n]);
	}
	for (size_t i = 0; i < n; i++) {
		const dnsb_rrset *txt = dnsb_rrset_list_find(held, names[i], LDNS_RR_TYPE_TXT);
		for (size_t k = 0; txt && out->txt_owner == NULL && k < txt->rdata_count; k++)
			parse_ownership(txt->rdata[k], &out->txt_owner, &out->txt_resource);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
}

/* Is any data but (owner, except) held at owner? */
static int other_data_at(const dnsb_rrset_list *held, const char *owner, uint16_t except)
{
	for (size_t i = 0; i < held->count; i++)
		if (held->items[i].type != except && !dnsb_type_is_server(held->items[i].type) &&
		    strcmp(held->items[i].owner, owner) == 0)
			return 1;
	return 0;
}

/* c's own cause, or DNSB_CAUSE_NONE when the read shows nothing in its way. */
static dnsb_cause own_cause(const engine *e, const dnsb_change *c, const dnsb_rrset_list *held)
{
	const dnsb_rrset *set = &c->new_set;

	if (c->kind != DNSB_CHANGE_CREATE) {
		const dnsb_rrset *cur = dnsb_rrset_list_find_set(held, c->old.owner, c->old.type, c->old.set_id);
		if (cur == NULL)
			return DNSB_CAUSE_MISSING;
		if (!(e->limits->ttl_inexact ? dnsb_rrset_same_data(cur, &c->old) : dnsb_rrset_matches_old(cur, &c->old)))
			return DNSB_CAUSE_DIFFERS;
		if (c->kind == DNSB_CHANGE_DELETE)
			return DNSB_CAUSE_NONE;
	} else if (dnsb_rrset_list_find_set(held, set->owner, set->type, set->set_id) != NULL) {
		return DNSB_CAUSE_EXISTS;
	}
	if (set->type == LDNS_RR_TYPE_CNAME ? other_data_at(held, set->owner, LDNS_RR_TYPE_CNAME)
					    : dnsb_rrset_list_find(held, set->owner, LDNS_RR_TYPE_CNAME) != NULL)
		return DNSB_CAUSE_CNAME;
	return DNSB_CAUSE_NONE;
}

/* Copy what is held at `owner` into c->current. @return 0 or DNSB_ENOMEM */
static int copy_current(dnsb_change *c, const char *owner, const dnsb_rrset_list *held)
{
	dnsb_rrset_list_clear(&c->current);
	for (size_t i = 0; i < held->count; i++) {
		dnsb_rrset copy;
		if (dnsb_type_is_server(held->items[i].type) || strcmp(held->items[i].owner, owner) != 0)
			continue;
		if (dnsb_rrset_copy(&copy, &held->items[i]) < 0 || dnsb_rrset_list_push(&c->current, &copy) < 0)
			return DNSB_ENOMEM;
	}
	return 0;
}

static const char *change_owner(const dnsb_change *c)
{
	return c->kind == DNSB_CHANGE_DELETE ? c->old.owner : c->new_set.owner;
}

void dnsb_engine_diagnose(engine *e, group *g, const dnsb_rrset_list *held)
{
	dnsb_change *culprit = NULL;
	dnsb_cause first = DNSB_CAUSE_NONE;

	for (size_t i = 0; i < g->count && culprit == NULL; i++) {
		if (g->changes[i]->outcome == DNSB_OUTCOME_PENDING &&
		    (first = own_cause(e, g->changes[i], held)) != DNSB_CAUSE_NONE)
			culprit = g->changes[i];
	}
	for (size_t i = 0; i < g->count; i++) {
		dnsb_change *c = g->changes[i];
		dnsb_cause own;

		if (c->outcome != DNSB_OUTCOME_PENDING)
			continue;
		own = own_cause(e, c, held);
		/*
		 * A change with nothing in its own way (an ownership record beside
		 * its record) goes down with its group: it shows what is in the
		 * group's way, at the culprit's name.
		 */
		if (own == DNSB_CAUSE_NONE && culprit != NULL) {
			c->cause = first;
			g->refused = culprit;
			if (i < sizeof(g->with_group) * 8)
				g->with_group |= 1UL << i;
			if (copy_current(c, change_owner(culprit), held) != 0)
				e->rc = DNSB_ENOMEM;
			find_owner(g, culprit, held, c);
			continue;
		}
		c->cause = own != DNSB_CAUSE_NONE ? own : DNSB_CAUSE_OTHER;
		if (copy_current(c, change_owner(c), held) != 0)
			e->rc = DNSB_ENOMEM;
		find_owner(g, c, held, c);
	}
}
