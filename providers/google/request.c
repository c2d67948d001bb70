/*
 * request.c - what goes to Cloud DNS and what comes back as data: URLs, the
 * changes.create body with its layout, ResourceRecordSets to RRsets.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "dnsbatch/sys/log.h"
#include "providers/google/google.h"

char *dnsb_google_url(const char *endpoint, const char *path, ...)
{
	size_t len = strlen(endpoint), cap = len + strlen(path) + 64;
	char *url = malloc(cap);
	va_list ap;

	if (url == NULL)
		return NULL;
	memcpy(url, endpoint, len + 1);
	va_start(ap, path);
	for (const char *p = path; *p; p++) {
		const char *piece = p;
		char *escaped = NULL;
		size_t plen = 1;

		if (p[0] == '%' && p[1] == 's') {
			if ((escaped = dnsb_http_escape(va_arg(ap, const char *))) == NULL)
				goto oom;
			piece = escaped;
			plen = strlen(escaped);
			p++;
		}
		if (len + plen + 1 > cap) {
			char *grown;
			cap = (len + plen + 1) * 2;
			if ((grown = realloc(url, cap)) == NULL) {
				free(escaped);
				goto oom;
			}
			url = grown;
		}
		memcpy(url + len, piece, plen);
		url[len += plen] = '\0';
		free(escaped);
	}
	va_end(ap);
	return url;
oom:
	va_end(ap);
	free(url);
	return NULL;
}

json_object *dnsb_google_rrset_json(const dnsb_rrset *rrset, uint32_t ttl)
{
	json_object *o = json_object_new_object(), *rrdatas = json_object_new_array();

	if (o == NULL || rrdatas == NULL) {
		json_object_put(o);
		json_object_put(rrdatas);
		return NULL;
	}
	json_object_object_add(o, "kind", json_object_new_string("dns#resourceRecordSet"));
	json_object_object_add(o, "name", json_object_new_string(rrset->owner));
	json_object_object_add(o, "type", json_object_new_string(dnsb_type_name(rrset->type)));
	json_object_object_add(o, "ttl", json_object_new_int64(ttl));
	for (size_t i = 0; i < rrset->rdata_count; i++)
		json_object_array_add(rrdatas, json_object_new_string(rrset->rdata[i]));
	json_object_object_add(o, "rrdatas", rrdatas);
	return o;
}

void dnsb_google_change_clear(dnsb_google_change *body)
{
	if (body == NULL)
		return;
	free(body->json);
	free(body->additions);
	free(body->deletions);
	memset(body, 0, sizeof(*body));
}

/* Append an RRset to one of the body's lists and note which change it is. */
static int push(json_object *list, size_t *map, size_t *count, const dnsb_rrset *rrset, uint32_t ttl, size_t change)
{
	json_object *o = dnsb_google_rrset_json(rrset, ttl);

	if (o == NULL || json_object_array_add(list, o) != 0) {
		json_object_put(o);
		return DNSB_ENOMEM;
	}
	map[(*count)++] = change;
	return 0;
}

int dnsb_google_change_build(dnsb_google_change *out, dnsb_change *const *changes, size_t n,
			     const dnsb_rrset_list *held, dnsb_error *err)
{
	json_object *body = json_object_new_object(), *adds = json_object_new_array(), *dels = json_object_new_array();
	const char *text;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->additions = malloc((n ? n : 1) * sizeof(size_t));
	out->deletions = malloc((n ? n : 1) * sizeof(size_t));
	if (body == NULL || adds == NULL || dels == NULL || out->additions == NULL || out->deletions == NULL)
		rc = DNSB_ENOMEM;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const dnsb_change *c = changes[i];
		if (c->kind != DNSB_CHANGE_CREATE)
			rc = push(dels, out->deletions, &out->deletion_count, &c->old, dnsb_old_ttl(&c->old, held), i);
		if (rc == 0 && c->kind != DNSB_CHANGE_DELETE)
			rc = push(adds, out->additions, &out->addition_count, &c->new_set, c->new_set.ttl, i);
	}
	if (rc == 0) {
		json_object_object_add(body, "kind", json_object_new_string("dns#change"));
		json_object_object_add(body, "additions", adds);
		json_object_object_add(body, "deletions", dels);
		adds = dels = NULL;
		text = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
		if (text == NULL || (out->json = strdup(text)) == NULL)
			rc = DNSB_ENOMEM;
	}
	json_object_put(body);
	json_object_put(adds);
	json_object_put(dels);
	if (rc != 0) {
		dnsb_google_change_clear(out);
		return dnsb_error_set(err, rc, "out of memory building a change of %zu entries", n);
	}
	return 0;
}

/* One ResourceRecordSet of a reply into the list, when wanted. */
static int add_rrset(dnsb_rrset_list *out, json_object *o, const dnsb_rrkey *keys, size_t n)
{
	json_object *name, *type, *ttl, *rrdatas;
	char *owner = NULL;
	uint16_t code;
	int rc = 0;

	if (!json_object_object_get_ex(o, "name", &name) || !json_object_object_get_ex(o, "type", &type) ||
	    !json_object_is_type(name, json_type_string) || !json_object_is_type(type, json_type_string))
		return DNSB_EPARSE;
	if (!json_object_object_get_ex(o, "rrdatas", &rrdatas) || !json_object_is_type(rrdatas, json_type_array))
		return 0; /* a routing policy: no records of its own */
	code = (uint16_t)ldns_get_rr_type_by_name(json_object_get_string(type));
	if (code == 0 || dnsb_name_canonical(&owner, json_object_get_string(name), NULL) != 0)
		return 0;
	if (dnsb_rrkeys_want(keys, n, owner, code)) {
		int64_t t = json_object_object_get_ex(o, "ttl", &ttl) ? json_object_get_int64(ttl) : 0;
		for (size_t i = 0; rc >= 0 && i < json_object_array_length(rrdatas); i++) {
			json_object *r = json_object_array_get_idx(rrdatas, i);
			if (!json_object_is_type(r, json_type_string))
				continue;
			rc = dnsb_rrset_list_add_text(out, owner, t, json_object_get_string(type), json_object_get_string(r));
			if (rc == 1)
				dnsb_log(DNSB_LOG_DEBUG, "google: skipped a record ldns cannot read: %s %s", owner,
					 json_object_get_string(type));
		}
	}
	free(owner);
	return rc < 0 ? rc : 0;
}

int dnsb_google_rrsets_parse(dnsb_rrset_list *out, json_object *page, const dnsb_rrkey *keys, size_t n,
			     char **next, dnsb_error *err)
{
	json_object *rrsets, *token;
	int rc = 0;

	*next = NULL;
	if (!json_object_is_type(page, json_type_object))
		return dnsb_error_set(err, DNSB_EPARSE, "rrsets.list: the reply is not a JSON object");
	/* An empty page may leave "rrsets" out. */
	if (json_object_object_get_ex(page, "rrsets", &rrsets)) {
		if (!json_object_is_type(rrsets, json_type_array))
			return dnsb_error_set(err, DNSB_EPARSE, "rrsets.list: \"rrsets\" is not an array");
		for (size_t i = 0; rc == 0 && i < json_object_array_length(rrsets); i++)
			rc = add_rrset(out, json_object_array_get_idx(rrsets, i), keys, n);
	}
	if (rc == DNSB_EPARSE)
		return dnsb_error_set(err, rc, "rrsets.list: a resource record set without name or type");
	if (rc != 0)
		return dnsb_error_set(err, rc, "out of memory");
	if (json_object_object_get_ex(page, "nextPageToken", &token) && json_object_is_type(token, json_type_string) &&
	    json_object_get_string_len(token) > 0 && (*next = strdup(json_object_get_string(token))) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	return 0;
}
