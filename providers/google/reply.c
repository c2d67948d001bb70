/*
 * reply.c - what a Cloud DNS reply means: the class of a changes.create
 * answer (docs/design.md §3.1, the reference's table), the batch changes its errors
 * name, and the code of a failed read. No network here: unit-tested alone.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "applier/core/secret.h"
#include "providers/google/google.h"

/* Copy text onto one line (control characters become spaces), truncated to fit, no secret held in it. */
static void one_line(char *dst, size_t size, const char *src, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len && src[i] && n + 1 < size; i++)
		dst[n++] = iscntrl((unsigned char)src[i]) ? ' ' : src[i];
	dst[n] = '\0';
	dnsb_secret_redact(dst); /* the reply of a proxy or an endpoint may echo the bearer token */
}

static const char *str_member(json_object *o, const char *name)
{
	json_object *v;

	return json_object_object_get_ex(o, name, &v) && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

/* The "error" object of a JSON reply, or NULL. Borrowed from doc. */
static json_object *error_object(json_object *doc)
{
	json_object *e;

	return doc && json_object_object_get_ex(doc, "error", &e) && json_object_is_type(e, json_type_object) ? e : NULL;
}

/* errors[] of an error object, or NULL. */
static json_object *error_entries(json_object *e)
{
	json_object *list;

	return e && json_object_object_get_ex(e, "errors", &list) && json_object_is_type(list, json_type_array) ? list :
														      NULL;
}

static void parse_doc(dnsb_google_error *out, json_object *doc, const dnsb_http_response *resp)
{
	json_object *e = error_object(doc), *list = error_entries(e), *code;
	const char *msg, *reason = NULL;

	memset(out, 0, sizeof(*out));
	out->code = (int)resp->status;
	if (e == NULL) {
		/* Not the API's error object (a proxy's page, a load balancer's 502): its first line. */
		one_line(out->message, sizeof(out->message), resp->body ? resp->body : "",
			 resp->body ? strcspn(resp->body, "\r\n") : 0);
		return;
	}
	if (json_object_object_get_ex(e, "code", &code) && json_object_is_type(code, json_type_int))
		out->code = json_object_get_int(code);
	if ((msg = str_member(e, "message")) != NULL)
		one_line(out->message, sizeof(out->message), msg, strlen(msg));
	if (list) {
		out->entries = json_object_array_length(list);
		if (out->entries > 0)
			reason = str_member(json_object_array_get_idx(list, 0), "reason");
	}
	if (reason == NULL)
		reason = str_member(e, "status");
	if (reason)
		one_line(out->reason, sizeof(out->reason), reason, strlen(reason));
}

/* The reply's JSON document, or NULL when its body is not JSON. */
static json_object *reply_doc(const dnsb_http_response *resp)
{
	json_object *doc = NULL;

	return dnsb_http_json(&doc, resp, NULL) == 0 ? doc : NULL;
}

void dnsb_google_error_parse(dnsb_google_error *out, const dnsb_http_response *resp)
{
	json_object *doc = reply_doc(resp);

	parse_doc(out, doc, resp);
	json_object_put(doc);
}

/* ---- culprits ---- */

/* "additions[12]" or "deletions[3]" at p: the list and the index. @return 1 when found */
static int entry_index(const char *p, int *is_addition, size_t *index)
{
	const char *digits;
	char *end;

	if (strncmp(p, "additions[", 10) == 0)
		*is_addition = 1;
	else if (strncmp(p, "deletions[", 10) == 0)
		*is_addition = 0;
	else
		return 0;
	digits = p + 10;
	if (!isdigit((unsigned char)*digits))
		return 0;
	*index = strtoul(digits, &end, 10);
	return *end == ']';
}

/* Every entity.change.additions[i] / deletions[i] of a message. @return how many named a change */
static size_t by_index(dnsb_result *res, const char *message, const dnsb_google_change *layout)
{
	static const char prefix[] = "entity.change.";
	size_t named = 0, index;
	int is_addition;

	for (const char *p = strstr(message, prefix); p; p = strstr(p + 1, prefix)) {
		if (!entry_index(p + sizeof(prefix) - 1, &is_addition, &index))
			continue;
		if (is_addition && index < layout->addition_count) {
			dnsb_result_add_culprit_note(res, layout->additions[index], message);
			named++;
		} else if (!is_addition && index < layout->deletion_count) {
			dnsb_result_add_culprit_note(res, layout->deletions[index], message);
			named++;
		}
	}
	return named;
}

/* Name every entry of one list holding (owner, type), with the message that names it. */
static size_t by_key_in(dnsb_result *res, const char *message, const char *owner, uint16_t type, const size_t *map,
			size_t count, dnsb_change *const *changes, size_t n, int additions)
{
	size_t named = 0;

	for (size_t i = 0; i < count; i++) {
		const dnsb_change *c;
		const dnsb_rrset *r;
		if (map[i] >= n)
			continue;
		c = changes[map[i]];
		r = additions ? &c->new_set : &c->old;
		if (r->type == type && r->owner && strcmp(r->owner, owner) == 0) {
			dnsb_result_add_culprit_note(res, map[i], message);
			named++;
		}
	}
	return named;
}

/* "'x.example.com. (TXT)'" in a message (older replies name the RRset, not the entry). */
static size_t by_key(dnsb_result *res, const char *message, const char *reason, const dnsb_google_change *layout,
		     dnsb_change *const *changes, size_t n)
{
	int adds = strcmp(reason, "notFound") != 0 && strcmp(reason, "conditionNotMet") != 0;
	int dels = strcmp(reason, "alreadyExists") != 0 && strcmp(reason, "cnameResourceRecordSetConflict") != 0;
	size_t named = 0;

	for (const char *open = strchr(message, '\''); open; open = strchr(open + 1, '\'')) {
		const char *close = strchr(open + 1, '\''), *paren;
		char name[300], tname[24], *owner = NULL;
		uint16_t type;

		if (close == NULL)
			break;
		/* The quoted text ends in " (TYPE)". */
		if (close - open < 5 || close[-1] != ')' || (paren = memchr(open, '(', (size_t)(close - open))) == NULL ||
		    paren[-1] != ' ' || (size_t)(paren - 1 - (open + 1)) >= sizeof(name) ||
		    (size_t)(close - 1 - (paren + 1)) >= sizeof(tname))
			continue;
		memcpy(name, open + 1, (size_t)(paren - 1 - (open + 1)));
		name[paren - 1 - (open + 1)] = '\0';
		memcpy(tname, paren + 1, (size_t)(close - 1 - (paren + 1)));
		tname[close - 1 - (paren + 1)] = '\0';
		type = (uint16_t)ldns_get_rr_type_by_name(tname);
		if (type == 0 || dnsb_name_canonical(&owner, name, NULL) != 0)
			continue;
		if (adds)
			named += by_key_in(res, message, owner, type, layout->additions, layout->addition_count, changes, n, 1);
		if (dels)
			named += by_key_in(res, message, owner, type, layout->deletions, layout->deletion_count, changes, n, 0);
		free(owner);
		open = close;
	}
	return named;
}

size_t dnsb_google_culprits(dnsb_result *res, const char *message, const char *reason,
			    const dnsb_google_change *layout, dnsb_change *const *changes, size_t n)
{
	size_t named = by_index(res, message, layout);

	return named ? named : by_key(res, message, reason ? reason : "", layout, changes, n);
}

/* Culprits from every errors[] entry, or from the top message when none names one. */
static size_t all_culprits(dnsb_result *res, json_object *e, const dnsb_google_error *ge,
			   const dnsb_google_change *layout, dnsb_change *const *changes, size_t n)
{
	json_object *list = error_entries(e);
	size_t named = 0;

	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		json_object *entry = json_object_array_get_idx(list, i);
		const char *msg = str_member(entry, "message"), *reason = str_member(entry, "reason");
		if (msg)
			named += dnsb_google_culprits(res, msg, reason ? reason : ge->reason, layout, changes, n);
	}
	return named ? named : dnsb_google_culprits(res, ge->message, ge->reason, layout, changes, n);
}

/* ---- classes ---- */

/* Does any errors[] entry (or the first reason) have this reason? */
static int has_reason(json_object *e, const dnsb_google_error *ge, const char *reason)
{
	json_object *list = error_entries(e);

	if (strcmp(ge->reason, reason) == 0)
		return 1;
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		const char *r = str_member(json_object_array_get_idx(list, i), "reason");
		if (r && strcmp(r, reason) == 0)
			return 1;
	}
	return 0;
}

/* A quotaExceeded about requests per unit of time, not about the size of one change. */
static int rate_quota(const char *message)
{
	return strcasestr(message, "per minute") || strcasestr(message, "per second") ||
	       strcasestr(message, "per day") || strcasestr(message, "rate limit") || strcasestr(message, "requests");
}

static int rate_limited_403(json_object *e, const dnsb_google_error *ge)
{
	return has_reason(e, ge, "rateLimitExceeded") || has_reason(e, ge, "userRateLimitExceeded") ||
	       (has_reason(e, ge, "quotaExceeded") && rate_quota(ge->message));
}

static dnsb_class status_class(long status, json_object *e, const dnsb_google_error *ge)
{
	int cls = dnsb_hb_status_class(status);

	if (cls != DNSB_HB_CLASS_OWN)
		return (dnsb_class)cls;
	switch (status) {
	case 400:
		return has_reason(e, ge, "cnameResourceRecordSetConflict") ? DNSB_CLASS_CONFLICT : DNSB_CLASS_INVALID;
	case 403:
		if (rate_limited_403(e, ge))
			return DNSB_CLASS_RATE_LIMITED;
		return has_reason(e, ge, "quotaExceeded") ? DNSB_CLASS_TOO_LARGE : DNSB_CLASS_FATAL;
	case 404: /* a deletion's RRset, or the zone itself: decided by the culprits */
	case 409:
	case 412:
		return DNSB_CLASS_CONFLICT;
	default:
		return DNSB_CLASS_FATAL; /* 401, other 4xx, a redirect not followed */
	}
}

/* Does the result name a deletion of the batch? */
static int names_deletion(const dnsb_result *res, const dnsb_google_change *layout)
{
	for (size_t i = 0; i < res->culprit_count; i++)
		for (size_t j = 0; j < layout->deletion_count; j++)
			if (layout->deletions[j] == res->culprits[i])
				return 1;
	return 0;
}

void dnsb_google_classify(dnsb_result *res, const dnsb_http_response *resp, const dnsb_google_change *layout,
			  dnsb_change *const *changes, size_t n)
{
	json_object *doc = reply_doc(resp), *e = error_object(doc);
	dnsb_google_error ge;
	dnsb_class cls;

	dnsb_result_init(res);
	parse_doc(&ge, doc, resp);
	cls = status_class(resp->status, e, &ge);
	if (cls == DNSB_CLASS_OK && doc == NULL) {
		/* A success that is not the API's JSON (a proxy?) proves nothing: verifying will tell. */
		dnsb_result_set(res, DNSB_CLASS_TRANSIENT, (int)resp->status, "",
				"HTTP %ld with Content-Type '%s', not a Change", resp->status, resp->content_type);
		json_object_put(doc);
		return;
	}
	if (cls == DNSB_CLASS_CONFLICT || cls == DNSB_CLASS_INVALID)
		all_culprits(res, e, &ge, layout, changes, n);
	if (resp->status == 404 && !names_deletion(res, layout)) {
		cls = DNSB_CLASS_FATAL; /* the zone or project, not an RRset */
		res->culprit_count = 0;
	}
	if (ge.entries > 1 && cls != DNSB_CLASS_OK) {
		char text[sizeof(res->message)];
		snprintf(text, sizeof(text), "%s (%zu errors)", ge.message, ge.entries);
		dnsb_hb_result(res, cls, resp, ge.reason, text);
	} else {
		dnsb_hb_result(res, cls, resp, cls == DNSB_CLASS_OK ? "" : ge.reason, ge.message);
	}
	json_object_put(doc);
}

int dnsb_google_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err)
{
	json_object *doc = reply_doc(resp), *e = error_object(doc);
	dnsb_google_error ge;
	int code;

	parse_doc(&ge, doc, resp);
	code = dnsb_hb_class_code(status_class(resp->status, e, &ge));
	json_object_put(doc);
	return dnsb_error_set(err, code, "%s: HTTP %ld%s%s: %s", what, resp->status, ge.reason[0] ? " " : "", ge.reason,
			      ge.message[0] ? ge.message : "(no message)");
}
