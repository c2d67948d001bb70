/*
 * dispatch.c - one complete request to its handler: routes as external-dns's
 * reference server has them (provider/webhook/api/httpapi.go), and the checks
 * that keep the provider port for external-dns alone.
 *
 * The reference server's mux sends every path it does not know to the
 * negotiation handler, whatever the method; /records answers other methods
 * than GET and POST with 400, /adjustendpoints anything but POST with 400.
 * dnsbatch does the same, so nothing external-dns meets differs.
 *
 * A web page in a browser on the same host can POST to 127.0.0.1:8888 with a
 * "simple" cross-origin request (Content-Type text/plain, no preflight), and a
 * DNS-rebinding page can read the answers under a name of its own. So the
 * body of POST /records and POST /adjustendpoints must carry the webhook
 * media type (external-dns always sends it; 415 otherwise; other paths
 * negotiate whatever comes, as the reference server's do), and a listener on
 * a loopback address answers only requests whose Host is a loopback name or
 * address or one given with --allowed-host (421 otherwise). /healthz and
 * /metrics carry no secret and no control: they are open to all, on both
 * ports. GET /quarantine names the records held back and quotes the
 * provider's messages about them: it is served on the provider port only
 * (loopback by default, Host checked), never on the metrics port, which
 * listens on every interface.
 *
 * Those checks, and every answer that needs no body, are made as soon as the
 * headers are in (dnsb_webhook_dispatch_headers): a body that will not be
 * used is never waited for. Otherwise a client announcing a body and sending
 * it a byte at a time would hold its connection "busy" (never closed for
 * room, conns.c) on any route, and enough of them would shut the metrics
 * port, and the liveness probe, out.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <microhttpd.h>

#include "dnsbatch/log.h"
#include "dnsbatch/webhook.h"
#include "applier/webhook/internal.h"

enum dnsb_webhook_route dnsb_webhook_route_of(const char *url)
{
	if (strcmp(url, "/records") == 0)
		return DNSB_ROUTE_RECORDS;
	if (strcmp(url, "/adjustendpoints") == 0)
		return DNSB_ROUTE_ADJUST;
	if (strcmp(url, "/healthz") == 0)
		return DNSB_ROUTE_HEALTHZ;
	if (strcmp(url, "/metrics") == 0)
		return DNSB_ROUTE_METRICS;
	if (strcmp(url, "/quarantine") == 0)
		return DNSB_ROUTE_QUARANTINE;
	if (strcmp(url, "/release") == 0)
		return DNSB_ROUTE_RELEASE;
	if (strcmp(url, "/") == 0)
		return DNSB_ROUTE_NEGOTIATE;
	return DNSB_ROUTE_OTHER;
}

/* Is the media type (parameters included, blanks and case aside) the webhook's? */
static int webhook_media_type(const char *ct)
{
	const char *want = DNSB_WEBHOOK_MEDIA_TYPE;

	if (ct == NULL)
		return 0;
	for (;;) {
		while (*ct == ' ' || *ct == '\t')
			ct++;
		if (*ct == '\0' || *want == '\0')
			return *ct == '\0' && *want == '\0';
		if (tolower((unsigned char)*ct) != tolower((unsigned char)*want))
			return 0;
		ct++;
		want++;
	}
}

/* "name", "name:port", "[v6]" or "[v6]:port" -> the name, into buf. @return 0, or -1 when malformed */
static int host_part(char *buf, size_t size, const char *host)
{
	const char *end;
	size_t len;

	if (host[0] == '[') {
		if ((end = strchr(host, ']')) == NULL)
			return -1;
		host++;
	} else {
		end = strchr(host, ':');
		if (end && strchr(end + 1, ':'))
			end = NULL; /* a bare IPv6 address: no port */
		if (end == NULL)
			end = host + strlen(host);
	}
	len = (size_t)(end - host);
	if (len == 0 || len >= size)
		return -1;
	memcpy(buf, host, len);
	buf[len] = '\0';
	if (len > 1 && buf[len - 1] == '.')
		buf[len - 1] = '\0'; /* "localhost." */
	return 0;
}

static int loopback_name(const char *name)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (strcasecmp(name, "localhost") == 0 || (strlen(name) > 10 &&
						   strcasecmp(name + strlen(name) - 10, ".localhost") == 0))
		return 1;
	if (inet_pton(AF_INET, name, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	return inet_pton(AF_INET6, name, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

int dnsb_webhook_host_allowed(const dnsb_webhook *wh, const char *host)
{
	char name[256];

	if (host == NULL || host_part(name, sizeof(name), host) != 0)
		return 0;
	if (loopback_name(name))
		return 1;
	for (size_t i = 0; i < wh->allowed_host_count; i++)
		if (strcasecmp(name, wh->allowed_hosts[i]) == 0 || strcasecmp(host, wh->allowed_hosts[i]) == 0)
			return 1;
	return 0;
}

void dnsb_webhook_log_refusal(dnsb_webhook *wh, unsigned status, const char *why)
{
	int *logged = &wh->refusal_logged[status == MHD_HTTP_MISDIRECTED_REQUEST];
	int first;

	pthread_mutex_lock(&wh->lock);
	first = !*logged;
	*logged = 1;
	pthread_mutex_unlock(&wh->lock);
	if (first)
		dnsb_log(DNSB_LOG_WARN, "refused a request with %u: %s (logged once; counted in "
			 "dnsbatch_webhook_requests_total)", status, why);
}

/* /healthz and /metrics: read-only, no secrets, served on both ports. */
static int monitor_route(enum dnsb_webhook_route route)
{
	return route == DNSB_ROUTE_HEALTHZ || route == DNSB_ROUTE_METRICS;
}

/* Only the provider port's POST /records and POST /adjustendpoints read a body. */
static int reads_body(const struct listener *l, const struct request *req)
{
	return !l->monitor_only && req->method == M_POST &&
	       (req->route == DNSB_ROUTE_RECORDS || req->route == DNSB_ROUTE_ADJUST);
}

/* The provider port's own checks. @return 0 to go on, else the status answered */
static unsigned refused(struct MHD_Connection *conn, const struct listener *l, const struct request *req,
			const char **why)
{
	const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);

	if (l->monitor_only || monitor_route(req->route))
		return 0;
	if (l->loopback && !dnsb_webhook_host_allowed(l->wh, host)) {
		*why = "this listener answers requests for a loopback Host only (DNS rebinding); "
		       "name others with --allowed-host";
		return MHD_HTTP_MISDIRECTED_REQUEST;
	}
	if (reads_body(l, req) && !webhook_media_type(ct)) {
		*why = "POST /records and /adjustendpoints bodies must be " DNSB_WEBHOOK_MEDIA_TYPE;
		return MHD_HTTP_UNSUPPORTED_MEDIA_TYPE;
	}
	return 0;
}

enum MHD_Result dnsb_webhook_dispatch_headers(struct MHD_Connection *conn, struct listener *l, struct request *req)
{
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *te = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
	unsigned long long announced = cl ? strtoull(cl, NULL, 10) : 0;
	const char *why = NULL;
	unsigned status;

	if ((status = refused(conn, l, req, &why)) != 0) {
		req->refused = 1;
		dnsb_webhook_log_refusal(l->wh, status, why);
		return dnsb_webhook_reply_text(conn, l->wh, req, status, "%s", why);
	}
	if (announced > l->wh->max_body)
		req->too_large = 1; /* no 100-continue, no wasted transfer */
	if (req->too_large || ((te != NULL || announced > 0) && !reads_body(l, req))) {
		req->refused = 1;
		return dnsb_webhook_dispatch(conn, l, req);
	}
	return MHD_YES;
}

enum MHD_Result dnsb_webhook_dispatch(struct MHD_Connection *conn, struct listener *l, struct request *req)
{
	dnsb_webhook *wh = l->wh;
	int get = req->method == M_GET, post = req->method == M_POST;

	if (req->too_large) {
		dnsb_log(DNSB_LOG_WARN, "request body over --max-body-size (%zu bytes): 413", wh->max_body);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_CONTENT_TOO_LARGE,
					       "request body exceeds %zu bytes", wh->max_body);
	}
	if (l->monitor_only && !monitor_route(req->route))
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_NOT_FOUND, "not found");
	switch (req->route) {
	case DNSB_ROUTE_RECORDS:
		if (get)
			return dnsb_webhook_handle_records_get(conn, wh, req);
		if (post)
			return dnsb_webhook_handle_records_post(conn, wh, req);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_BAD_REQUEST, "unsupported method");
	case DNSB_ROUTE_ADJUST:
		if (post)
			return dnsb_webhook_handle_adjust(conn, wh, req);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_BAD_REQUEST, "unsupported method");
	case DNSB_ROUTE_HEALTHZ:
		if (get)
			return dnsb_webhook_handle_healthz(conn, wh, req);
		break;
	case DNSB_ROUTE_METRICS:
		if (get)
			return dnsb_webhook_handle_metrics(conn, wh, req);
		break;
	case DNSB_ROUTE_QUARANTINE:
		if (get)
			return dnsb_webhook_handle_quarantine(conn, wh, req);
		break;
	case DNSB_ROUTE_RELEASE:
		if (post)
			return dnsb_webhook_handle_release(conn, wh, req);
		break;
	default: /* "/" and every path the reference server's mux does not know */
		return dnsb_webhook_handle_negotiate(conn, wh, req);
	}
	return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed");
}
