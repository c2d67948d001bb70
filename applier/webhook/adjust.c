/* adjust.c - GET / (negotiation: the domain filter) and POST /adjustendpoints. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <microhttpd.h>

#include "dnsbatch/log.h"
#include "dnsbatch/sys/provider.h"
#include "dnsbatch/webhook.h"
#include "applier/core/clock.h"
#include "applier/webhook/internal.h"

enum MHD_Result dnsb_webhook_handle_negotiate(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	struct json_object *obj;
	enum MHD_Result ret;

	if (dnsb_domain_filter_to_json(&obj, wh->filter) != 0)
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	ret = dnsb_webhook_reply_json(conn, wh, req, obj);
	json_object_put(obj);
	return ret;
}

/* Go decodes the first JSON value and ignores what follows; so do we.
 * @return 0 with *out set (NULL for a JSON null), or -1 with `why` filled */
static int parse_body(struct json_object **out, const struct request *req, char *why, size_t whylen)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error e;

	*out = NULL;
	if (tok == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	*out = json_tokener_parse_ex(tok, req->body ? req->body : "", (int)req->len);
	e = json_tokener_get_error(tok);
	if (*out == NULL && e == json_tokener_continue)
		snprintf(why, whylen, "unexpected end of JSON input");
	else if (*out == NULL && e != json_tokener_success)
		snprintf(why, whylen, "JSON syntax error at byte %zu: %s",
			 json_tokener_get_parse_end(tok), json_tokener_error_desc(e));
	json_tokener_free(tok);
	return *out == NULL && e != json_tokener_success ? -1 : 0;
}

/* Endpoints pass unchanged: dnsbatch needs no provider-specific
 * normalisation, and GET /records already speaks external-dns's form. */
enum MHD_Result dnsb_webhook_handle_adjust(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	char why[256] = "";
	struct json_object *obj;
	enum MHD_Result ret;

	if (parse_body(&obj, req, why, sizeof(why)) != 0) {
		dnsb_log(DNSB_LOG_WARN, "POST /adjustendpoints: %s", why);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_BAD_REQUEST, "%s", why);
	}
	if (obj == NULL) /* JSON null: a nil slice to Go, encoded back as null */
		return dnsb_webhook_reply(conn, wh, req, MHD_HTTP_OK, DNSB_WEBHOOK_MEDIA_TYPE, "null\n", 5);
	if (!json_object_is_type(obj, json_type_array))
		snprintf(why, sizeof(why), "expected an array of endpoints");
	for (size_t i = 0; why[0] == '\0' && i < json_object_array_length(obj); i++) {
		struct json_object *ep = json_object_array_get_idx(obj, i);
		if (ep != NULL && !json_object_is_type(ep, json_type_object))
			snprintf(why, sizeof(why), "$[%zu]: expected an endpoint object", i);
	}
	if (why[0] != '\0') {
		json_object_put(obj);
		dnsb_log(DNSB_LOG_WARN, "POST /adjustendpoints: %s", why);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_BAD_REQUEST, "%s", why);
	}
	ret = dnsb_webhook_reply_json(conn, wh, req, obj);
	json_object_put(obj);
	return ret;
}
