/*
 * reply.c - a Cloudflare reply as one class: {"success": bool, "errors":
 * [{"code", "message", "source": {"pointer"}}], ...}. A refused batch
 * carries its first error (maybe more); the first one's code gives the
 * class, and the operation each names is a culprit: by its source.pointer
 * (a JSON pointer into the body sent, "/posts/3": the member Cloudflare's
 * ResponseInfo declares, cloudflare-typescript's shared.ts), by its message
 * ("posts[3]: ..."), or by a deleted record's id in its message.
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
#include <stdint.h>
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

/*
 * The operation at `text` ("posts" then `open`, the index, `close`: "posts[3]"
 * or "/posts/3"), as the index of its change in the batch; SIZE_MAX when
 * text names none of the layout.
 */
static size_t op_change(const char *text, char open, const char *close, const dnsb_cf_batch *layout)
{
	static const char *const kinds[] = { "posts", "deletes" };

	for (size_t k = 0; text && k < 2; k++) {
		size_t len = strlen(kinds[k]), count = k ? layout->delete_count : layout->post_count;
		const char *p = text;
		char *end;
		unsigned long i;
		while ((p = strstr(p, kinds[k])) != NULL) {
			p += len;
			if (*p != open || !isdigit((unsigned char)p[1]))
				continue;
			i = strtoul(p + 1, &end, 10);
			if (strchr(close, *end) && i < count)
				return k ? layout->deletes[i] : layout->posts[i];
		}
	}
	return SIZE_MAX;
}

/* The change one error names (its pointer, its message, a delete's record id in it), or SIZE_MAX. */
static size_t error_change(json_object *e, const char *message, const dnsb_cf_batch *layout)
{
	json_object *source, *pointer;
	size_t at = SIZE_MAX;

	if (json_object_object_get_ex(e, "source", &source) && json_object_object_get_ex(source, "pointer", &pointer) &&
	    json_object_is_type(pointer, json_type_string) && strncmp(json_object_get_string(pointer), "/", 1) == 0)
		at = op_change(json_object_get_string(pointer), '/', "/", layout);
	if (at == SIZE_MAX)
		at = op_change(message, '[', "]", layout);
	for (size_t i = 0; at == SIZE_MAX && i < layout->delete_count; i++)
		if (layout->delete_ids[i] && *layout->delete_ids[i] && strstr(message, layout->delete_ids[i]))
			at = layout->deletes[i];
	return at;
}

/* Every error of the reply that names an operation makes its change a culprit, with the error's message. */
static void name_culprits(dnsb_result *res, const dnsb_http_response *resp, const dnsb_cf_batch *layout)
{
	json_object *doc = NULL, *errors, *e, *v;
	dnsb_error ignored;

	if (dnsb_http_json(&doc, resp, &ignored) != 0)
		return;
	if (json_object_object_get_ex(doc, "errors", &errors) && json_object_is_type(errors, json_type_array))
		for (size_t i = 0; i < json_object_array_length(errors); i++) {
			char message[400] = "";
			size_t at;
			e = json_object_array_get_idx(errors, i);
			if (json_object_object_get_ex(e, "message", &v) && json_object_is_type(v, json_type_string))
				snprintf(message, sizeof(message), "%s", json_object_get_string(v));
			if ((at = error_change(e, message, layout)) != SIZE_MAX)
				dnsb_result_add_culprit_note(res, at, message);
		}
	json_object_put(doc);
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
		name_culprits(res, resp, layout);
	dnsb_hb_result(res, cls, resp, code, fe.message);
}

int dnsb_cf_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err)
{
	first_error fe;

	read_first_error(&fe, resp);
	return dnsb_error_set(err, dnsb_hb_class_code(status_class(resp->status, &fe)), "%s: HTTP %ld: %ld %s", what,
			      resp->status, fe.code, fe.message[0] ? fe.message : "(no message)");
}
