/*
 * problem.c - Akamai's error replies as one class. Edge DNS answers errors
 * as RFC 7807 problem details (application/problem+json, schemas/problem.yaml
 * of akamai-apis: "type", "title", "detail", "instance", "status", and
 * more members, "errors": [{"type", "title", "detail", "field"}] among them).
 *   400 invalid (a record Edge DNS refuses)       409 conflict (a change list exists, a stale one)
 *   429 rate limited (Retry-After, X-RateLimit-Next)  408, 5xx transient
 *   401, 403 (credentials, grants), 404 (the zone, the list) fatal
 * A 401 refusing a nonce already used is transient: Akamai refuses a request
 * signed with a nonce it has seen, so that answer means an earlier send of
 * this very request reached it (libcurl resends a request once when a reused
 * connection closes before any reply): whether it was applied is unknown.
 * "stale" in the type, title or detail is a conflict whatever the status.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "providers/akamai/akamai.h"

static void copy_member(char *dst, size_t size, json_object *o, const char *name)
{
	json_object *v;

	if (json_object_object_get_ex(o, name, &v) && json_object_is_type(v, json_type_string))
		snprintf(dst, size, "%s", json_object_get_string(v));
	for (char *p = dst; *p; p++)
		if (iscntrl((unsigned char)*p))
			*p = ' ';
}

/* The first errors[] entry's detail (or title), after the problem's own detail: it says which record and why. */
static void first_error(dnsb_akamai_problem *pb, json_object *doc)
{
	json_object *errors;
	char text[300] = "";
	size_t len = strlen(pb->detail);

	if (!json_object_object_get_ex(doc, "errors", &errors) || !json_object_is_type(errors, json_type_array) ||
	    json_object_array_length(errors) == 0)
		return;
	copy_member(text, sizeof(text), json_object_array_get_idx(errors, 0), "detail");
	if (text[0] == '\0')
		copy_member(text, sizeof(text), json_object_array_get_idx(errors, 0), "title");
	if (text[0] && len + 3 < sizeof(pb->detail))
		snprintf(pb->detail + len, sizeof(pb->detail) - len, "%s%s", len ? "; " : "", text);
}

void dnsb_akamai_problem_read(dnsb_akamai_problem *pb, const dnsb_http_response *resp)
{
	json_object *doc = NULL;
	dnsb_error ignored;
	const char *body = resp->body ? resp->body : "";

	memset(pb, 0, sizeof(*pb));
	if (dnsb_http_json(&doc, resp, &ignored) != 0 || !json_object_is_type(doc, json_type_object)) {
		snprintf(pb->detail, sizeof(pb->detail), "%.*s", (int)strcspn(body, "\r\n"), body);
		for (char *p = pb->detail; *p; p++)
			if (iscntrl((unsigned char)*p))
				*p = ' ';
	} else {
		copy_member(pb->type, sizeof(pb->type), doc, "type");
		copy_member(pb->title, sizeof(pb->title), doc, "title");
		copy_member(pb->detail, sizeof(pb->detail), doc, "detail");
		first_error(pb, doc);
	}
	json_object_put(doc);
	pb->stale = strcasestr(pb->type, "stale") || strcasestr(pb->title, "stale") || strcasestr(pb->detail, "stale");
	pb->nonce = strcasestr(pb->detail, "nonce") != NULL;
}

dnsb_class dnsb_akamai_problem_class(long status, const dnsb_akamai_problem *pb)
{
	int cls = dnsb_hb_status_class(status);

	if (pb->stale && status >= 400)
		return DNSB_CLASS_CONFLICT;
	if (status == 401 && pb->nonce) /* a resend of a request that reached Akamai: its first reply was lost */
		return DNSB_CLASS_TRANSIENT;
	if (cls != DNSB_HB_CLASS_OWN)
		return (dnsb_class)cls;
	switch (status) {
	case 400:
	case 422:
		return DNSB_CLASS_INVALID;
	case 409:
		return DNSB_CLASS_CONFLICT;
	default:
		return DNSB_CLASS_FATAL; /* 401, 403, 404 and the unforeseen */
	}
}

/* The last path segment of the problem's type ("…/authoritative-dns/staleChangeList"), "" for none. */
static const char *type_code(const dnsb_akamai_problem *pb)
{
	const char *slash = strrchr(pb->type, '/');

	return slash ? slash + 1 : pb->type;
}

/* Does `text` name owner (absolute, with its dot) as a whole name, with or without the dot? */
static int names_owner(const char *text, const char *owner)
{
	size_t len = strlen(owner) - 1; /* without the trailing dot */

	for (const char *p = text; *p; p++) {
		if (strncasecmp(p, owner, len) != 0)
			continue;
		if ((p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '-' || p[-1] == '.')) &&
		    !(isalnum((unsigned char)p[len]) || p[len] == '-' || (p[len] == '.' && isalnum((unsigned char)p[len + 1]))))
			return 1;
	}
	return 0;
}

static int named_already(const dnsb_result *res, size_t i)
{
	for (size_t k = 0; k < res->culprit_count; k++)
		if (res->culprits[k] == i)
			return 1;
	return 0;
}

/* The changes whose owner one text names are culprits (once each), with that text as their note. */
static void name_in(dnsb_result *res, const char *text, dnsb_change *const *changes, size_t n)
{
	for (size_t i = 0; text[0] && i < n; i++) {
		const dnsb_rrset *s = changes[i]->kind == DNSB_CHANGE_DELETE ? &changes[i]->old : &changes[i]->new_set;
		if (s->owner && names_owner(text, s->owner) && !named_already(res, i))
			dnsb_result_add_culprit_note(res, i, text);
	}
}

/* The problem's detail and every errors[] entry's detail/title/field name culprits. */
static void name_culprits(dnsb_result *res, const dnsb_http_response *resp, const dnsb_akamai_problem *pb,
			  dnsb_change *const *changes, size_t n)
{
	json_object *doc = NULL, *errors;
	dnsb_error ignored;

	if (dnsb_http_json(&doc, resp, &ignored) != 0) {
		name_in(res, pb->detail, changes, n);
		return;
	}
	if (json_object_is_type(doc, json_type_object) && json_object_object_get_ex(doc, "errors", &errors) &&
	    json_object_is_type(errors, json_type_array))
		for (size_t k = 0; k < json_object_array_length(errors); k++) {
			json_object *e = json_object_array_get_idx(errors, k);
			char text[400] = "", field[200] = "";
			copy_member(text, sizeof(text), e, "detail");
			if (text[0] == '\0')
				copy_member(text, sizeof(text), e, "title");
			copy_member(field, sizeof(field), e, "field");
			name_in(res, text, changes, n);
			name_in(res, field, changes, n);
		}
	name_in(res, pb->detail, changes, n);
	json_object_put(doc);
}

void dnsb_akamai_classify(dnsb_result *res, const dnsb_http_response *resp, dnsb_change *const *changes, size_t n)
{
	dnsb_akamai_problem pb;
	dnsb_class cls;
	char message[620];

	dnsb_akamai_problem_read(&pb, resp);
	cls = dnsb_akamai_problem_class(resp->status, &pb);
	snprintf(message, sizeof(message), "%s%s%s", pb.title, pb.title[0] && pb.detail[0] ? ": " : "", pb.detail);
	if ((cls == DNSB_CLASS_CONFLICT || cls == DNSB_CLASS_INVALID) && changes)
		name_culprits(res, resp, &pb, changes, n);
	dnsb_hb_result(res, cls, resp, type_code(&pb), cls == DNSB_CLASS_OK ? "" : message);
}

int dnsb_akamai_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err)
{
	dnsb_akamai_problem pb;

	dnsb_akamai_problem_read(&pb, resp);
	return dnsb_error_set(err, dnsb_hb_class_code(dnsb_akamai_problem_class(resp->status, &pb)), "%s: HTTP %ld: %s%s%s",
			      what, resp->status, pb.title[0] ? pb.title : "(no title)", pb.detail[0] ? ": " : "", pb.detail);
}
