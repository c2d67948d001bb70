/*
 * reply.c - DigitalOcean's replies as classes: the status first (the
 * skeleton's opening), then the error body ({"id": "unprocessable_entity",
 * "message": "...", "request_id"}) where the status alone does not say.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "applier/core/clock.h"

#include "providers/digitalocean/digitalocean.h"

/* The body's id and message ("" when absent; the first line of a body that is not JSON as the message). */
static void reply_fields(const dnsb_http_response *resp, char *code, size_t code_size, char *msg, size_t msg_size)
{
	json_object *doc = NULL, *v;

	code[0] = msg[0] = '\0';
	if (dnsb_http_json(&doc, resp, NULL) != 0 || !json_object_is_type(doc, json_type_object)) {
		if (doc == NULL && resp->body)
			snprintf(msg, msg_size, "%.*s", (int)strcspn(resp->body, "\r\n"), resp->body);
		json_object_put(doc);
		return;
	}
	if (json_object_object_get_ex(doc, "id", &v) && json_object_is_type(v, json_type_string))
		snprintf(code, code_size, "%s", json_object_get_string(v));
	if (json_object_object_get_ex(doc, "message", &v) && json_object_is_type(v, json_type_string))
		snprintf(msg, msg_size, "%s", json_object_get_string(v));
	json_object_put(doc);
}

/* A 422 whose message says another record is in the way (not that this one is malformed). */
static int in_the_way(const char *msg)
{
	return strcasestr(msg, "CNAME") != NULL || strcasestr(msg, "already exist") != NULL ||
	       strcasestr(msg, "duplicate") != NULL || strcasestr(msg, "conflict") != NULL;
}

static dnsb_class own_class(long status, const char *msg, int by_id)
{
	if (status == 422)
		return in_the_way(msg) ? DNSB_CLASS_CONFLICT : DNSB_CLASS_INVALID;
	if (status == 400)
		return DNSB_CLASS_INVALID;
	if (status == 404 && by_id)
		return DNSB_CLASS_CONFLICT; /* the record is gone: another client removed it */
	return DNSB_CLASS_FATAL;        /* 401, 403, 404 of the domain, anything else */
}

/* A 429 without Retry-After: the seconds to its ratelimit-reset (Unix time), or -1. */
static double reset_wait(const dnsb_http_response *resp)
{
	const char *v = dnsb_http_header(resp, "ratelimit-reset");
	char *end;
	double at = v ? strtod(v, &end) : 0, now = dnsb_wall_clock();

	if (v == NULL || end == v || at <= now || at - now > 3660)
		return -1;
	return at - now;
}

void dnsb_do_classify(dnsb_result *res, const dnsb_http_response *resp, int by_id)
{
	char code[64], msg[400];
	int cls = dnsb_hb_status_class(resp->status);

	reply_fields(resp, code, sizeof(code), msg, sizeof(msg));
	if (cls == DNSB_HB_CLASS_OWN)
		cls = own_class(resp->status, msg, by_id);
	if (cls == DNSB_CLASS_TOO_LARGE)
		cls = DNSB_CLASS_INVALID; /* one record per request: nothing to split */
	dnsb_hb_result(res, (dnsb_class)cls, resp, code, msg);
	if (cls == DNSB_CLASS_RATE_LIMITED && res->retry_after < 0)
		res->retry_after = reset_wait(resp);
}

int dnsb_do_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err)
{
	char code[64], msg[400];
	int cls = dnsb_hb_status_class(resp->status);

	reply_fields(resp, code, sizeof(code), msg, sizeof(msg));
	return dnsb_error_set(err, cls == DNSB_HB_CLASS_OWN ? DNSB_EFATAL : dnsb_hb_class_code((dnsb_class)cls),
			      "%s: HTTP %ld %s%s%s", what, resp->status, code, code[0] ? ": " : "",
			      msg[0] ? msg : "(no message)");
}

/* The id of the record a POST's reply holds ({"domain_record": {"id"}}). @return 1 when found */
static int reply_id(char *id, size_t size, const dnsb_http_response *resp)
{
	json_object *doc = NULL, *rec, *v;
	int ok = dnsb_http_json(&doc, resp, NULL) == 0 && json_object_object_get_ex(doc, "domain_record", &rec) &&
		 json_object_object_get_ex(rec, "id", &v) && json_object_is_type(v, json_type_int) &&
		 json_object_get_int64(v) >= 0;

	if (ok)
		snprintf(id, size, "%lld", (long long)json_object_get_int64(v));
	json_object_put(doc);
	return ok;
}

int dnsb_do_write_state(dnsb_result *res, dnsb_do_op *op, const dnsb_http_response *resp)
{
	int st;

	dnsb_result_init(res);
	dnsb_do_classify(res, resp, op->kind != DNSB_DO_POST);
	st = res->cls == DNSB_CLASS_OK ? DNSB_DO_LANDED : res->cls == DNSB_CLASS_TRANSIENT ? DNSB_DO_UNKNOWN
											   : DNSB_DO_NOT_LANDED;
	/* libcurl sends a request again on a new connection when the old one closed before the reply: a POST that
	 * landed then meets itself (422, a duplicate), a DELETE its own work (404). The read-back says which. */
	if ((op->kind == DNSB_DO_POST && resp->status == 422 && res->cls == DNSB_CLASS_CONFLICT) ||
	    (op->kind == DNSB_DO_DELETE && resp->status == 404))
		st = DNSB_DO_UNKNOWN;
	if (op->kind == DNSB_DO_POST && resp->status == 422 && res->cls == DNSB_CLASS_CONFLICT)
		op->theirs = 1; /* or another client made the record between the read and this POST */
	if (st == DNSB_DO_LANDED && op->kind == DNSB_DO_POST && !reply_id(op->id, sizeof(op->id), resp))
		st = DNSB_DO_UNKNOWN; /* landed, but which record is it? the read-back says */
	return st;
}
