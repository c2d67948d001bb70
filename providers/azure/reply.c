/*
 * reply.c - Azure's replies as classes: the status first (the skeleton's
 * opening), then the CloudError body's error.code where the status alone
 * does not say.
 */
#include <string.h>
#include <strings.h>

#include "providers/azure/internal.h"

/* The object holding code and message: {"error": {...}} (ARM's CloudError) or the body itself ({"code", "message"},
 * as the DNS resource provider answers some requests). NULL when neither. Borrowed from doc. */
static json_object *error_object(json_object *doc)
{
	json_object *e, *code;

	if (json_object_object_get_ex(doc, "error", &e) && json_object_is_type(e, json_type_object))
		return e;
	if (json_object_object_get_ex(doc, "code", &code) && json_object_is_type(code, json_type_string))
		return doc;
	return NULL;
}

void dnsb_azure_reply_fields(const dnsb_http_response *resp, char *code, size_t code_size, char *msg, size_t msg_size)
{
	json_object *doc = NULL, *e = NULL, *v;

	code[0] = msg[0] = '\0';
	if (dnsb_http_json(&doc, resp, NULL) != 0 || (e = error_object(doc)) == NULL) {
		if (doc == NULL && resp->body)
			snprintf(msg, msg_size, "%.*s", (int)strcspn(resp->body, "\r\n"), resp->body);
		json_object_put(doc);
		return;
	}
	if (json_object_object_get_ex(e, "code", &v) && json_object_is_type(v, json_type_string))
		snprintf(code, code_size, "%s", json_object_get_string(v));
	if (json_object_object_get_ex(e, "message", &v) && json_object_is_type(v, json_type_string))
		snprintf(msg, msg_size, "%s", json_object_get_string(v));
	json_object_put(doc);
}

/* Codes of a 400/409 that mean a record set is in the way, not that the request is malformed. */
static int in_the_way(const char *code, const char *msg)
{
	return strcasecmp(code, "Conflict") == 0 || strcasecmp(code, "PreconditionFailed") == 0 ||
	       strcasestr(code, "AlreadyExists") != NULL || strcasestr(msg, "CNAME") != NULL;
}

static dnsb_class own_class(long status, const char *code, const char *msg)
{
	if (status == 412 || status == 409)
		return DNSB_CLASS_CONFLICT;
	if (status == 400)
		return in_the_way(code, msg) ? DNSB_CLASS_CONFLICT : DNSB_CLASS_INVALID;
	return DNSB_CLASS_FATAL;  /* 401, 403, 404 (zone or resource group), anything else */
}

void dnsb_azure_classify(dnsb_result *res, const dnsb_http_response *resp)
{
	char code[64], msg[400];
	int cls = dnsb_hb_status_class(resp->status);

	dnsb_azure_reply_fields(resp, code, sizeof(code), msg, sizeof(msg));
	if (cls == DNSB_HB_CLASS_OWN)
		cls = own_class(resp->status, code, msg);
	if (cls == DNSB_CLASS_TOO_LARGE)
		cls = DNSB_CLASS_INVALID;  /* one record set per request: nothing to split */
	dnsb_hb_result(res, (dnsb_class)cls, resp, code, msg);
}

int dnsb_azure_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err)
{
	char code[64], msg[400];
	int cls = dnsb_hb_status_class(resp->status);

	dnsb_azure_reply_fields(resp, code, sizeof(code), msg, sizeof(msg));
	return dnsb_error_set(err, cls == DNSB_HB_CLASS_OWN ? DNSB_EFATAL : dnsb_hb_class_code((dnsb_class)cls),
			      "%s: HTTP %ld %s%s%s", what, resp->status, code, code[0] ? ": " : "",
			      msg[0] ? msg : "(no message)");
}
