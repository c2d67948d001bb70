/* reply.c - HTTP replies (text, JSON, the metrics body), each counted in the sidecar's own metrics. */
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

/* Each route's label value in dnsbatch_webhook_requests_total, by enum dnsb_webhook_route. */
static const char *const route_names[DNSB_ROUTE_COUNT] = {
	"/", "/records", "/adjustendpoints", "/healthz", "/metrics", "/quarantine", "/release", "other"
};

enum MHD_Result dnsb_webhook_reply(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req,
			     unsigned status, const char *content_type, const char *body, size_t len)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, (void *)(body ? body : ""), MHD_RESPMEM_MUST_COPY);
	if (resp == NULL)
		return MHD_NO;
	if (content_type != NULL)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	if (req->refused || req->too_large)
		/* The body was not read: the connection cannot be reused. */
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	dnsb_webhook_count_reply(wh, req->route, req->method, status, req->start);
	return ret;
}

void dnsb_webhook_count_reply(dnsb_webhook *wh, enum dnsb_webhook_route route, enum method method, unsigned status,
			      double start)
{
	dnsb_metrics_webhook_request(wh->metrics, route_names[route], method == M_GET ? "GET" :
				     method == M_POST ? "POST" : "other", status, dnsb_monotonic() - start);
}

enum MHD_Result dnsb_webhook_reply_text(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req,
				  unsigned status, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n > sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	buf[n] = '\0';
	return dnsb_webhook_reply(conn, wh, req, status, TEXT_CONTENT_TYPE, buf, (size_t)n);
}

/* JSON as Go's json.Encoder writes it: compact, one trailing newline. */
enum MHD_Result dnsb_webhook_reply_json(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req,
				  struct json_object *obj)
{
	size_t len;
	const char *s = json_object_to_json_string_length(obj, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	char *buf;
	enum MHD_Result ret;

	if (s == NULL || (buf = malloc(len + 2)) == NULL)
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	memcpy(buf, s, len);
	buf[len] = '\n';
	ret = dnsb_webhook_reply(conn, wh, req, MHD_HTTP_OK, DNSB_WEBHOOK_MEDIA_TYPE, buf, len + 1);
	free(buf);
	return ret;
}
