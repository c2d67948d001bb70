/*
 * request.c - what goes to PowerDNS and what comes back as data: URLs, the
 * PATCH body (built with json-c), zone documents to RRsets, zone lists.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "dnsbatch/sys/log.h"
#include "providers/pdns/pdns.h"

/* Append len bytes to a growing string. @return 0 or DNSB_ENOMEM */
static int append(char **s, size_t *len, size_t *cap, const char *piece, size_t plen)
{
	if (*len + plen + 1 > *cap) {
		size_t grown_cap = (*len + plen + 1) * 2;
		char *grown = realloc(*s, grown_cap);
		if (grown == NULL)
			return DNSB_ENOMEM;
		*s = grown;
		*cap = grown_cap;
	}
	memcpy(*s + *len, piece, plen);
	(*s)[*len += plen] = '\0';
	return 0;
}

char *dnsb_pdns_url(const dnsb_pdns_config *cfg, const char *path, ...)
{
	char *url = NULL, *id = dnsb_http_escape(cfg->server_id);
	size_t len = 0, cap = 0;
	va_list ap;
	int rc = id ? 0 : DNSB_ENOMEM;

	if (rc == 0)
		rc = append(&url, &len, &cap, cfg->server, strlen(cfg->server));
	if (rc == 0)
		rc = append(&url, &len, &cap, "/api/v1/servers/", 16);
	if (rc == 0)
		rc = append(&url, &len, &cap, id, strlen(id));
	free(id);
	va_start(ap, path);
	for (const char *p = path; rc == 0 && *p; p++) {
		if (p[0] == '%' && p[1] == 's') {
			char *escaped = dnsb_http_escape(va_arg(ap, const char *));
			rc = escaped ? append(&url, &len, &cap, escaped, strlen(escaped)) : DNSB_ENOMEM;
			free(escaped);
			p++;
		} else {
			rc = append(&url, &len, &cap, p, 1);
		}
	}
	va_end(ap);
	if (rc != 0) {
		free(url);
		return NULL;
	}
	return url;
}

/* Add {"content", "disabled"} for each RDATA of `set` not in `skip` (may be NULL). @return 0 or DNSB_ENOMEM */
static int add_contents(json_object *records, const dnsb_rrset *set, const dnsb_rrset *skip, int disabled)
{
	for (size_t i = 0; set && i < set->rdata_count; i++) {
		json_object *r;
		int dup = 0;

		for (size_t k = 0; skip && k < skip->rdata_count && !dup; k++)
			dup = strcmp(skip->rdata[k], set->rdata[i]) == 0;
		if (dup)
			continue;
		if ((r = json_object_new_object()) == NULL || json_object_array_add(records, r) != 0) {
			json_object_put(r);
			return DNSB_ENOMEM;
		}
		json_object_object_add(r, "content", json_object_new_string(set->rdata[i]));
		json_object_object_add(r, "disabled", json_object_new_boolean(disabled));
	}
	return 0;
}

/*
 * One rrsets[] entry: {"name", "type", "changetype", ["ttl", "records"]}.
 * The disabled records held there are carried (a REPLACE replaces every
 * record): a record now enabled is not carried as well; an RRset deleted
 * while disabled records remain is a REPLACE with them alone. No "comments"
 * member: PowerDNS then leaves the RRset's comments as they are.
 */
static json_object *rrset_json(const dnsb_precheck_entry *e)
{
	json_object *o = json_object_new_object(), *records;
	const dnsb_rrset *keep = e->disabled;
	int replace = e->final != NULL || keep != NULL;

	if (o == NULL)
		return NULL;
	json_object_object_add(o, "name", json_object_new_string(e->owner));
	json_object_object_add(o, "type", json_object_new_string(dnsb_type_name(e->type)));
	json_object_object_add(o, "changetype", json_object_new_string(replace ? "REPLACE" : "DELETE"));
	if (!replace)
		return o;
	if ((records = json_object_new_array()) == NULL) {
		json_object_put(o);
		return NULL;
	}
	json_object_object_add(o, "ttl", json_object_new_int64(e->final ? e->final->ttl : keep->ttl));
	json_object_object_add(o, "records", records);
	if (add_contents(records, e->final, NULL, 0) != 0 || add_contents(records, keep, e->final, 1) != 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int dnsb_pdns_patch_body(char **out, const dnsb_precheck *patch)
{
	json_object *body = json_object_new_object(), *rrsets = json_object_new_array();
	const char *text;
	int rc = body && rrsets ? 0 : DNSB_ENOMEM;

	*out = NULL;
	/* Two passes: every DELETE, then every REPLACE (see pdns.h). */
	for (int pass = 0; rc == 0 && pass < 2; pass++) {
		for (size_t i = 0; rc == 0 && i < patch->count; i++) {
			const dnsb_precheck_entry *e = &patch->entries[i];
			json_object *o;
			if ((pass == 0) != (e->final == NULL && e->disabled == NULL))
				continue;
			if ((o = rrset_json(e)) == NULL || json_object_array_add(rrsets, o) != 0) {
				json_object_put(o);
				rc = DNSB_ENOMEM;
			}
		}
	}
	if (rc == 0) {
		json_object_object_add(body, "rrsets", rrsets);
		rrsets = NULL;
		text = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
		if (text == NULL || (*out = strdup(text)) == NULL)
			rc = DNSB_ENOMEM;
	}
	json_object_put(body);
	json_object_put(rrsets);
	return rc;
}

static const char *str_member(json_object *o, const char *name)
{
	json_object *v;

	return json_object_object_get_ex(o, name, &v) && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

/* Is record r of a zone document disabled ("disabled": true)? */
static int is_disabled(json_object *r)
{
	json_object *d;

	return json_object_object_get_ex(r, "disabled", &d) && json_object_get_boolean(d);
}

/* Add the records of `records` whose disabled flag is `disabled` to `out`. @return how many, or DNSB_ENOMEM */
static long add_records(dnsb_rrset_list *out, const char *owner, int64_t ttl, const char *type, json_object *records,
			int disabled)
{
	long added = 0;

	for (size_t i = 0; i < json_object_array_length(records); i++) {
		json_object *r = json_object_array_get_idx(records, i);
		const char *content = str_member(r, "content");
		int rc;

		if (content == NULL || is_disabled(r) != disabled)
			continue;
		if ((rc = dnsb_rrset_list_add_text(out, owner, ttl, type, content)) < 0)
			return rc;
		if (rc == 1)
			dnsb_log(DNSB_LOG_DEBUG, "pdns: skipped a record ldns cannot read: %s %s", owner, type);
		else
			added++;
	}
	return added;
}

/*
 * One rrsets[] entry of a zone document into the lists, when wanted: its
 * enabled records into `out`; with `disabled`, its disabled records into
 * `disabled` and, with `disabled_held` when it has no enabled record, into
 * `out` too (held data: a create there would remove them).
 */
static int add_rrset(dnsb_rrset_list *out, dnsb_rrset_list *disabled, int disabled_held, json_object *o,
		     const dnsb_rrkey *keys, size_t n)
{
	const char *name = str_member(o, "name"), *type = str_member(o, "type");
	json_object *ttl, *records;
	char *owner = NULL;
	uint16_t code;
	long rc = 0;

	if (name == NULL || type == NULL)
		return DNSB_EPARSE;
	if (!json_object_object_get_ex(o, "records", &records) || !json_object_is_type(records, json_type_array))
		return 0; /* comments only */
	code = (uint16_t)ldns_get_rr_type_by_name(type);
	if (code == 0 || dnsb_name_canonical(&owner, name, NULL) != 0)
		return 0;
	if (dnsb_rrkeys_want(keys, n, owner, code)) {
		int64_t t = json_object_object_get_ex(o, "ttl", &ttl) ? json_object_get_int64(ttl) : 0;
		rc = add_records(out, owner, t, type, records, 0);
		if (rc >= 0 && disabled && add_records(disabled, owner, t, type, records, 1) > 0 && rc == 0 && disabled_held)
			rc = add_records(out, owner, t, type, records, 1);
	}
	free(owner);
	return rc < 0 ? (int)rc : 0;
}

int dnsb_pdns_zone_parse(dnsb_rrset_list *out, dnsb_rrset_list *disabled, int disabled_held, json_object *zone,
			 const dnsb_rrkey *keys, size_t n, dnsb_error *err)
{
	json_object *rrsets;
	int rc = 0;

	if (!json_object_is_type(zone, json_type_object) || !json_object_object_get_ex(zone, "rrsets", &rrsets) ||
	    !json_object_is_type(rrsets, json_type_array))
		return dnsb_error_set(err, DNSB_EPARSE, "the reply is not a zone with \"rrsets\"");
	for (size_t i = 0; rc == 0 && i < json_object_array_length(rrsets); i++)
		rc = add_rrset(out, disabled, disabled_held, json_object_array_get_idx(rrsets, i), keys, n);
	if (rc == DNSB_EPARSE)
		return dnsb_error_set(err, rc, "an RRset of the zone without name or type");
	if (rc != 0)
		return dnsb_error_set(err, rc, "out of memory");
	return 0;
}

int dnsb_pdns_rrsets_parse(dnsb_rrset_list *out, json_object *zone, const dnsb_rrkey *keys, size_t n,
			   dnsb_error *err)
{
	return dnsb_pdns_zone_parse(out, NULL, 0, zone, keys, n, err);
}

void dnsb_pdns_tell_disabled(const char *zone, const dnsb_rrset_list *disabled)
{
	for (size_t i = 0; i < disabled->count; i++)
		for (size_t k = 0; k < disabled->items[i].rdata_count; k++)
			dnsb_log(DNSB_LOG_WARN, "pdns: zone %s: disabled record (not served, not listed; kept by every write): "
				 "%s %u IN %s %s", zone, disabled->items[i].owner, disabled->items[i].ttl,
				 dnsb_type_name(disabled->items[i].type), disabled->items[i].rdata[k]);
}

int dnsb_pdns_zones_parse(dnsb_pdns_zone **zones, size_t *count, json_object *list, dnsb_error *err)
{
	if (!json_object_is_type(list, json_type_array))
		return dnsb_error_set(err, DNSB_EPARSE, "the reply is not a list of zones");
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *z = json_object_array_get_idx(list, i);
		const char *name = str_member(z, "name"), *id = str_member(z, "id");
		char *apex;

		if (name == NULL || id == NULL || dnsb_name_canonical(&apex, name, NULL) != 0)
			return dnsb_error_set(err, DNSB_EPARSE, "a zone of the list without a usable name or id");
		if (dnsb_hb_zones_push(zones, count, apex, id) != 0)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	return 0;
}
