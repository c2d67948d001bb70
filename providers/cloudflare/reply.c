/*
 * reply.c - a Cloudflare reply as one class: {"success": bool, "errors":
 * [{"code", "message"}], ...}. A refused batch carries its first error
 * only; its code gives the class and the operation it names the culprit.
 *
 * The codes, as Cloudflare answers them (seen in public reports):
 *   81053 "An A, AAAA, or CNAME record with that host already exists."
 *         (cloudflare/terraform-provider-cloudflare#1247)
 *   81054 "A CNAME record with that host already exists." (favonia/cloudflare-ddns#990)
 *   81057 "The record already exists." / 81058 "An identical record already exists."
 *         (NewFuture/DDNS#21, jeessy2/ddns-go#1378; certbot#10725 treats both as "exists")
 *   81044 "Record does not exist." (zanjie1999/cloudflare-api-v4-ddns#5)
 *   9005  "Content for A record must be a valid IPv4 address." (yulewang/cloudflare-api-v4-ddns#16)
 *   1004  "DNS Validation Error", with an error_chain of 9xxx codes
 *         (cloudflare/terraform-provider-cloudflare#9, #3217)
 *   971   "Please wait and consider throttling your request speed" (HTTP 429)
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/cloudflare/cloudflare.h"

/* The reply's first error: its code and its message on one line. */
typedef struct first_error {
	long code;           /* 0 when none */
	char message[400];
	int success;         /* "success": true */
} first_error;

static void read_first_error(first_error *fe, const dnsb_http_response *resp)
{
	json_object *doc = NULL, *v, *errors, *e;
	dnsb_error ignored;

	memset(fe, 0, sizeof(*fe));
	if (dnsb_http_json(&doc, resp, &ignored) != 0) {
		snprintf(fe->message, sizeof(fe->message), "%.*s", (int)strcspn(resp->body ? resp->body : "", "\r\n"),
			 resp->body ? resp->body : "");
		return;
	}
	fe->success = json_object_object_get_ex(doc, "success", &v) && json_object_get_boolean(v);
	if (json_object_object_get_ex(doc, "errors", &errors) && json_object_is_type(errors, json_type_array) &&
	    (e = json_object_array_get_idx(errors, 0)) != NULL) {
		if (json_object_object_get_ex(e, "code", &v))
			fe->code = (long)json_object_get_int64(v);
		if (json_object_object_get_ex(e, "message", &v) && json_object_is_type(v, json_type_string))
			snprintf(fe->message, sizeof(fe->message), "%s", json_object_get_string(v));
	}
	for (char *p = fe->message; *p; p++)
		if (iscntrl((unsigned char)*p))
			*p = ' ';
	json_object_put(doc);
}

static dnsb_class code_class(long code)
{
	switch (code) {
	case 81053: /* an A, AAAA or CNAME record with that host exists */
	case 81054: /* a CNAME with that host exists */
	case 81057: /* the record exists */
	case 81058: /* an identical record exists */
	case 81044: /* no such record (a delete by id) */
		return DNSB_CLASS_CONFLICT;
	case 971:
		return DNSB_CLASS_RATE_LIMITED;
	default:
		return code == 1004 || (code >= 9000 && code < 10000) ? DNSB_CLASS_INVALID : DNSB_CLASS_FATAL;
	}
}

static dnsb_class status_class(long status, const first_error *fe)
{
	int cls = dnsb_hb_status_class(status);

	if (cls != DNSB_HB_CLASS_OWN)
		return (dnsb_class)cls;
	switch (status) {
	case 400:
	case 409:
	case 422:
		return code_class(fe->code);
	default:
		return DNSB_CLASS_FATAL; /* 401, 403 (no DNS Write, or not this zone), 404 (the zone) */
	}
}

/* The operation "deletes[i]" / "posts[i]" the message names, as its change; or a delete's record id. */
static void name_culprit(dnsb_result *res, const first_error *fe, const dnsb_cf_batch *layout)
{
	const char *p;
	char *end;
	unsigned long i;

	if ((p = strstr(fe->message, "posts[")) != NULL && (i = strtoul(p + 6, &end, 10), *end == ']') &&
	    i < layout->post_count) {
		dnsb_result_add_culprit_note(res, layout->posts[i], fe->message);
		return;
	}
	if ((p = strstr(fe->message, "deletes[")) != NULL && (i = strtoul(p + 8, &end, 10), *end == ']') &&
	    i < layout->delete_count) {
		dnsb_result_add_culprit_note(res, layout->deletes[i], fe->message);
		return;
	}
	for (i = 0; i < layout->delete_count; i++)
		if (strstr(fe->message, layout->delete_ids[i])) {
			dnsb_result_add_culprit_note(res, layout->deletes[i], fe->message);
			return;
		}
}

void dnsb_cf_classify(dnsb_result *res, const dnsb_http_response *resp, const dnsb_cf_batch *layout)
{
	first_error fe;
	dnsb_class cls;
	char code[16] = "";

	dnsb_result_init(res);
	read_first_error(&fe, resp);
	cls = status_class(resp->status, &fe);
	if (cls == DNSB_CLASS_OK && !fe.success) {
		/* A success that is not the API's JSON (a proxy?) proves nothing: verifying will tell. */
		dnsb_result_set(res, DNSB_CLASS_TRANSIENT, (int)resp->status, "", "HTTP %ld without success: true",
				resp->status);
		return;
	}
	if (fe.code)
		snprintf(code, sizeof(code), "%ld", fe.code);
	if (cls == DNSB_CLASS_CONFLICT || cls == DNSB_CLASS_INVALID)
		name_culprit(res, &fe, layout);
	dnsb_hb_result(res, cls, resp, code, fe.message);
}

int dnsb_cf_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err)
{
	first_error fe;

	read_first_error(&fe, resp);
	return dnsb_error_set(err, dnsb_hb_class_code(status_class(resp->status, &fe)), "%s: HTTP %ld: %ld %s", what,
			      resp->status, fe.code, fe.message[0] ? fe.message : "(no message)");
}
