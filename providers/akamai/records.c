/*
 * records.c - Edge DNS JSON and RRsets. A record set is {"name":
 * "www.example.com", "type": "A", "ttl": 300, "rdata": ["192.0.2.1"]}: the
 * name without its trailing dot, the RDATA in presentation form (a TXT's
 * strings quoted, as Akamai stores them). Listings are paginated:
 * {"metadata": {"page", "pageSize", "totalElements"}, ...}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "dnsbatch/sys/log.h"
#include "providers/akamai/akamai.h"

static const char *str_member(json_object *o, const char *name)
{
	json_object *v;

	return json_object_object_get_ex(o, name, &v) && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

/* metadata.page x metadata.pageSize < metadata.totalElements. @return 1, 0, or DNSB_EPARSE */
static int more_pages(json_object *doc)
{
	json_object *meta, *page, *size, *total;

	if (!json_object_object_get_ex(doc, "metadata", &meta) || !json_object_is_type(meta, json_type_object))
		return DNSB_EPARSE;
	if (!json_object_object_get_ex(meta, "page", &page) || !json_object_object_get_ex(meta, "pageSize", &size) ||
	    !json_object_object_get_ex(meta, "totalElements", &total))
		return 0; /* showAll: one page */
	if (json_object_get_int64(page) < 1 || json_object_get_int64(size) < 1)
		return DNSB_EPARSE;
	return json_object_get_int64(page) * json_object_get_int64(size) < json_object_get_int64(total);
}

/* One record set into out when wanted. */
static int add_set(dnsb_rrset_list *out, json_object *o, const dnsb_rrkey *keys, size_t n, const char *only_owner)
{
	const char *name = str_member(o, "name"), *type = str_member(o, "type");
	json_object *ttl, *rdata;
	char *owner = NULL, *dotted = NULL;
	uint16_t code;
	int rc = 0;

	if (name == NULL || type == NULL || !json_object_object_get_ex(o, "rdata", &rdata) ||
	    !json_object_is_type(rdata, json_type_array))
		return DNSB_EPARSE;
	code = (uint16_t)ldns_get_rr_type_by_name(type);
	if (code == 0 || asprintf(&dotted, "%s%s", name, name[0] && name[strlen(name) - 1] == '.' ? "" : ".") < 0 ||
	    dnsb_name_canonical(&owner, dotted, NULL) != 0) {
		free(dotted);
		return 0; /* a type or name ldns does not know: not ours to manage */
	}
	if (dnsb_rrkeys_want(keys, n, owner, code) && (only_owner == NULL || strcmp(owner, only_owner) == 0)) {
		int64_t t = json_object_object_get_ex(o, "ttl", &ttl) ? json_object_get_int64(ttl) : 0;
		for (size_t i = 0; rc >= 0 && i < json_object_array_length(rdata); i++) {
			json_object *r = json_object_array_get_idx(rdata, i);
			if (!json_object_is_type(r, json_type_string))
				continue;
			if ((rc = dnsb_rrset_list_add_text(out, owner, t, type, json_object_get_string(r))) == 1)
				dnsb_log(DNSB_LOG_DEBUG, "akamai: skipped a record ldns cannot read: %s %s", owner, type);
		}
	}
	free(owner);
	free(dotted);
	return rc < 0 ? rc : 0;
}

int dnsb_akamai_recordsets_parse(dnsb_rrset_list *out, json_object *doc, const dnsb_rrkey *keys, size_t n,
				 const char *only_owner, int *more, dnsb_error *err)
{
	json_object *sets;
	int rc = 0;

	*more = 0;
	if (!json_object_is_type(doc, json_type_object) || !json_object_object_get_ex(doc, "recordsets", &sets) ||
	    !json_object_is_type(sets, json_type_array) || (*more = more_pages(doc)) < 0) {
		*more = 0;
		return dnsb_error_set(err, DNSB_EPARSE, "the reply is not a page of record sets (metadata, recordsets)");
	}
	for (size_t i = 0; rc == 0 && i < json_object_array_length(sets); i++)
		rc = add_set(out, json_object_array_get_idx(sets, i), keys, n, only_owner);
	if (rc == DNSB_EPARSE)
		return dnsb_error_set(err, rc, "a record set without name, type or rdata");
	return rc ? dnsb_error_set(err, rc, "out of memory") : 0;
}

int dnsb_akamai_zones_parse(dnsb_hb_zone **zones, size_t *count, json_object *doc, int *more, dnsb_error *err)
{
	json_object *list;

	*more = 0;
	if (!json_object_is_type(doc, json_type_object) || !json_object_object_get_ex(doc, "zones", &list) ||
	    !json_object_is_type(list, json_type_array) || (*more = more_pages(doc)) < 0) {
		*more = 0;
		return dnsb_error_set(err, DNSB_EPARSE, "the reply is not a page of zones (metadata, zones)");
	}
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *z = json_object_array_get_idx(list, i);
		const char *name = str_member(z, "zone"), *type = str_member(z, "type");
		char *apex = NULL;
		if (name == NULL || dnsb_name_canonical(&apex, name, NULL) != 0)
			return dnsb_error_set(err, DNSB_EPARSE, "a zone of the list without a usable \"zone\"");
		if (type && strcasecmp(type, "PRIMARY") != 0 && strcasecmp(type, "SECONDARY") != 0) {
			free(apex);
			continue; /* ALIAS: no records of its own */
		}
		if (dnsb_hb_zones_push(zones, count, apex, name) != 0)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	return 0;
}

const char *dnsb_akamai_op(const dnsb_precheck_entry *e)
{
	return e->final == NULL ? "DELETE" : e->held == NULL ? "ADD" : "EDIT";
}

/* "name" without the trailing dot, "type", "op"; for ADD and EDIT "ttl" and "rdata". */
static json_object *change_json(const dnsb_precheck_entry *e)
{
	json_object *o = json_object_new_object(), *rdata;
	size_t len = strlen(e->owner);

	if (o == NULL)
		return NULL;
	json_object_object_add(o, "name", json_object_new_string_len(e->owner, (int)(len > 1 ? len - 1 : len)));
	json_object_object_add(o, "type", json_object_new_string(dnsb_type_name(e->type)));
	json_object_object_add(o, "op", json_object_new_string(dnsb_akamai_op(e)));
	if (e->final == NULL)
		return o;
	if ((rdata = json_object_new_array()) == NULL) {
		json_object_put(o);
		return NULL;
	}
	json_object_object_add(o, "ttl", json_object_new_int64(e->final->ttl));
	json_object_object_add(o, "rdata", rdata);
	for (size_t i = 0; i < e->final->rdata_count; i++)
		if (json_object_array_add(rdata, json_object_new_string(e->final->rdata[i])) != 0) {
			json_object_put(o);
			return NULL;
		}
	return o;
}

int dnsb_akamai_change_body(char **out, const dnsb_precheck_entry *e)
{
	json_object *o = change_json(e);
	const char *text = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
			     : NULL;

	*out = text ? strdup(text) : NULL;
	json_object_put(o);
	return *out ? 0 : DNSB_ENOMEM;
}

int dnsb_akamai_changelists_has(json_object *doc, const char *zone)
{
	json_object *lists;

	if (!json_object_is_type(doc, json_type_object) || !json_object_object_get_ex(doc, "changeLists", &lists) ||
	    !json_object_is_type(lists, json_type_array))
		return DNSB_EPARSE;
	for (size_t i = 0; i < json_object_array_length(lists); i++) {
		const char *z = str_member(json_object_array_get_idx(lists, i), "zone");
		if (z && strcasecmp(z, zone) == 0)
			return 1;
	}
	return 0;
}
