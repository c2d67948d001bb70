/*
 * reply.c - what a PowerDNS reply means: the class of a PATCH answer
 * (docs/design.md §3.1, the reference's table), the RRset its 422 names, and the code
 * of a failed read. No network here: unit-tested alone.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "providers/pdns/pdns.h"

/* The server's text: JSON {"error"} when the Content-Type says JSON, else the body's first line. */
static void error_text(char *dst, size_t size, const dnsb_http_response *resp)
{
	json_object *doc = NULL, *e;
	const char *src = resp->body ? resp->body : "";
	size_t len = strcspn(src, "\r\n"), n = 0;

	if (dnsb_http_json(&doc, resp, NULL) == 0 && json_object_object_get_ex(doc, "error", &e) &&
	    json_object_is_type(e, json_type_string)) {
		src = json_object_get_string(e);
		len = strlen(src);
	}
	for (size_t i = 0; i < len && src[i] && n + 1 < size; i++)
		dst[n++] = iscntrl((unsigned char)src[i]) ? ' ' : src[i];
	dst[n] = '\0';
	json_object_put(doc);
}

/* Name every change whose old or new RRset is (owner, type); type 0: any type at owner. */
static size_t name_changes(dnsb_result *res, const char *owner, uint16_t type, dnsb_change *const *changes, size_t n)
{
	size_t named = 0;

	for (size_t i = 0; i < n; i++) {
		const dnsb_change *c = changes[i];
		const dnsb_rrset *sets[2] = { c->kind != DNSB_CHANGE_CREATE ? &c->old : NULL,
					      c->kind != DNSB_CHANGE_DELETE ? &c->new_set : NULL };
		for (int s = 0; s < 2; s++) {
			if (sets[s] && sets[s]->owner && strcmp(sets[s]->owner, owner) == 0 &&
			    (type == 0 || sets[s]->type == type)) {
				dnsb_result_add_culprit(res, i);
				named++;
				break;
			}
		}
	}
	return named;
}

/* [start, end) as a canonical owner name (malloc'd into *owner). @return 1 when it is one */
static int owner_at(char **owner, const char *start, const char *end)
{
	char name[300];
	size_t len = (size_t)(end - start);

	if (end <= start || len >= sizeof(name))
		return 0;
	memcpy(name, start, len);
	name[len] = '\0';
	return dnsb_name_canonical(owner, name, NULL) == 0;
}

/* A type name ending at a space, ':', '\'' or the end. */
static uint16_t type_at(const char *p)
{
	char tname[24];
	size_t len = strcspn(p, " :'/");

	if (len == 0 || len >= sizeof(tname))
		return 0;
	memcpy(tname, p, len);
	tname[len] = '\0';
	return (uint16_t)ldns_get_rr_type_by_name(tname);
}

size_t dnsb_pdns_culprits(dnsb_result *res, const char *message, dnsb_change *const *changes, size_t n)
{
	const char *p, *end;
	char *owner = NULL;
	uint16_t type = 0;
	size_t named = 0;
	int found = 0;

	if ((p = strstr(message, "RRset ")) != NULL && (end = strstr(p + 6, " IN ")) != NULL) {
		/* "RRset NAME IN TYPE: ...", "Duplicate RRset NAME IN TYPE with changetype: ..." */
		found = owner_at(&owner, p + 6, end) && (type = type_at(end + 4)) != 0;
	} else if ((p = strstr(message, "Record ")) != NULL && (end = p + 7 + strcspn(p + 7, "/ ")) != NULL && *end) {
		/* "Record NAME/TYPE 'content': ...", "Record NAME IN TYPE is not allowed at apex" */
		found = owner_at(&owner, p + 7, end) &&
			(type = *end == '/' ? type_at(end + 1) : strncmp(end, " IN ", 4) == 0 ? type_at(end + 4) : 0) != 0;
	} else if ((p = strstr(message, "Name '")) != NULL && (end = strchr(p + 6, '\'')) != NULL) {
		/* "DNS Name 'NAME' is not canonical": every RRset at the name */
		found = owner_at(&owner, p + 6, end);
	}
	if (found)
		named = name_changes(res, owner, type, changes, n);
	free(owner);
	return named;
}

static dnsb_class status_class(long status, const char *text)
{
	int cls = dnsb_hb_status_class(status);

	if (cls != DNSB_HB_CLASS_OWN)
		return (dnsb_class)cls;
	switch (status) {
	case 422:
		return strstr(text, "Conflicts with pre-existing RRset") || strstr(text, "Duplicate") ?
			       DNSB_CLASS_CONFLICT : DNSB_CLASS_INVALID;
	case 400:
		return DNSB_CLASS_INVALID;
	case 409:
		return DNSB_CLASS_CONFLICT;
	default:
		return DNSB_CLASS_FATAL; /* 401, 403, 404 (the zone), a redirect not followed */
	}
}

void dnsb_pdns_classify(dnsb_result *res, const dnsb_http_response *resp, dnsb_change *const *changes, size_t n)
{
	char text[sizeof(res->message)];
	dnsb_class cls;

	dnsb_result_init(res);
	error_text(text, sizeof(text), resp);
	cls = status_class(resp->status, text);
	if (cls == DNSB_CLASS_CONFLICT || cls == DNSB_CLASS_INVALID)
		dnsb_pdns_culprits(res, text, changes, n);
	dnsb_hb_result(res, cls, resp, "", text);
}

int dnsb_pdns_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err)
{
	char text[400];

	error_text(text, sizeof(text), resp);
	return dnsb_error_set(err, dnsb_hb_class_code(status_class(resp->status, text)), "%s: HTTP %ld: %s", what,
			      resp->status, text[0] ? text : "(no message)");
}
