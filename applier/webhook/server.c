/* webhook.c - the external-dns webhook provider's HTTP server (libmicrohttpd). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <float.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <microhttpd.h>

#include "dnsbatch/log.h"
#include "dnsbatch/sys/provider.h"
#include "dnsbatch/webhook.h"
#include "applier/core/clock.h"
#include "applier/webhook/internal.h"

/* The Prometheus text exposition format 0.0.4. */
#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define TEXT_CONTENT_TYPE "text/plain; charset=utf-8"
/* Enough for external-dns, the probes and a scraper; each is a thread. */
#define CONNECTION_LIMIT 256
/* Idle keep-alive connections are closed after this many seconds. */
#define CONNECTION_TIMEOUT 120

enum method { M_GET, M_POST, M_OTHER };

struct request {
	enum dnsb_webhook_route route;
	enum method method;
	char *body;
	size_t len, cap;
	int too_large;
	int refused;       /* a reply was queued before the body was read */
	int apply;         /* counted in dnsb_webhook.applies */
	double start;
};

struct listener {
	struct MHD_Daemon *daemon;
	MHD_socket quiesced;
	unsigned port;
	int monitor_only;  /* the metrics listener: /healthz and /metrics only */
	char name[300];    /* "127.0.0.1:8888", for the log */
	struct dnsb_webhook *wh;
};

struct dnsb_webhook {
	dnsb_provider *provider;
	const dnsb_domain_filter *filter;
	size_t max_body;
	double apply_timeout;
	dnsb_engine_options engine;
	dnsb_metrics *metrics, *own_metrics;
	dnsb_quarantine *quarantine, *own_quarantine;
	dnsb_droplog *droplog;
	pthread_mutex_t *zone_locks;
	size_t zone_count;
	pthread_mutex_t droplog_lock;

	struct listener api, mon;

	pthread_mutex_t lock;      /* guards the fields below */
	pthread_cond_t cond;
	unsigned inflight;         /* requests between first call and completion */
	unsigned applies;          /* POST /records running */
	int stopping, stopped, ready;
	pthread_t probe;
	int probe_started;
	double probe_interval;

};


static void set_ready(dnsb_webhook *wh, const char *why)
{
	int was;
	pthread_mutex_lock(&wh->lock);
	was = wh->ready;
	wh->ready = 1;
	pthread_mutex_unlock(&wh->lock);
	if (!was)
		dnsb_log(DNSB_LOG_INFO, "provider %s answered (%s): ready", dnsb_provider_name(wh->provider), why);
}

int dnsb_webhook_ready(dnsb_webhook *wh)
{
	int r;
	pthread_mutex_lock(&wh->lock);
	r = wh->ready;
	pthread_mutex_unlock(&wh->lock);
	return r;
}

/* ---------------------------------------------------------------- */
/* replies                                                           */
/* Each route's label value in dnsbatch_webhook_requests_total, by enum dnsb_webhook_route. */
static const char *const route_names[DNSB_ROUTE_COUNT] = {
	"/", "/records", "/adjustendpoints", "/healthz", "/metrics", "other"
};

/* ---------------------------------------------------------------- */

static enum MHD_Result reply(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req,
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
	dnsb_metrics_webhook_request(wh->metrics, route_names[req->route], req->method == M_GET ? "GET" :
				     req->method == M_POST ? "POST" : "other", status, dnsb_monotonic() - req->start);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req,
				  unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static enum MHD_Result reply_text(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req,
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
	return reply(conn, wh, req, status, TEXT_CONTENT_TYPE, buf, (size_t)n);
}

/* JSON as Go's json.Encoder writes it: compact, one trailing newline. */
static enum MHD_Result reply_json(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req,
				  struct json_object *obj)
{
	size_t len;
	const char *s = json_object_to_json_string_length(obj, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	char *buf;
	enum MHD_Result ret;

	if (s == NULL || (buf = malloc(len + 2)) == NULL)
		return reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	memcpy(buf, s, len);
	buf[len] = '\n';
	ret = reply(conn, wh, req, MHD_HTTP_OK, DNSB_WEBHOOK_MEDIA_TYPE, buf, len + 1);
	free(buf);
	return ret;
}

/* ---------------------------------------------------------------- */
/* GET / and POST /adjustendpoints                                   */
/* ---------------------------------------------------------------- */

static enum MHD_Result handle_negotiate(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	struct json_object *obj;
	enum MHD_Result ret;

	if (dnsb_domain_filter_to_json(&obj, wh->filter) != 0)
		return reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	ret = reply_json(conn, wh, req, obj);
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
static enum MHD_Result handle_adjust(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	char why[256] = "";
	struct json_object *obj;
	enum MHD_Result ret;

	if (parse_body(&obj, req, why, sizeof(why)) != 0) {
		dnsb_log(DNSB_LOG_WARN, "POST /adjustendpoints: %s", why);
		return reply_text(conn, wh, req, MHD_HTTP_BAD_REQUEST, "%s", why);
	}
	if (obj == NULL) /* JSON null: a nil slice to Go, encoded back as null */
		return reply(conn, wh, req, MHD_HTTP_OK, DNSB_WEBHOOK_MEDIA_TYPE, "null\n", 5);
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
		return reply_text(conn, wh, req, MHD_HTTP_BAD_REQUEST, "%s", why);
	}
	ret = reply_json(conn, wh, req, obj);
	json_object_put(obj);
	return ret;
}

/* ---------------------------------------------------------------- */
/* GET /records                                                      */
/* ---------------------------------------------------------------- */

static const char *class_of(int rc)
{
	switch (rc) {
	case 0: return "ok";
	case DNSB_ETRANSIENT: return "transient";
	case DNSB_ERATELIMIT: return "rate_limited";
	case DNSB_EFATAL: return "fatal";
	default: return "error";
	}
}

/* The reply body of GET /records, built one endpoint at a time: a tree of
 * json-c objects for a whole 10,000-record zone would cost ten times the
 * memory of its text, once per concurrent request. */
struct text {
	char *p;
	size_t len, cap;
};

static int text_add(struct text *t, const char *s, size_t n)
{
	if (t->len + n + 2 > t->cap) {
		size_t cap = t->cap ? t->cap : 65536;
		while (cap < t->len + n + 2)
			cap *= 2;
		char *p = realloc(t->p, cap);
		if (p == NULL)
			return DNSB_ENOMEM;
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->len, s, n);
	t->len += n;
	return 0;
}

static int list_zone(dnsb_webhook *wh, const char *zone, struct text *out, size_t *count, dnsb_error *err)
{
	dnsb_rrset_list list = { 0 };
	double t0 = dnsb_monotonic();
	int rc = dnsb_provider_list(wh->provider, zone, &list, err);

	dnsb_metrics_request(wh->metrics, dnsb_provider_name(wh->provider), "list", class_of(rc),
			     dnsb_monotonic() - t0);
	for (size_t i = 0; rc == 0 && i < list.count; i++) {
		const dnsb_rrset *rs = &list.items[i];
		struct json_object *ep;
		const char *s;
		size_t len;

		if (!dnsb_webhook_type_listed(rs->type) || !dnsb_domain_filter_match(wh->filter, rs->owner))
			continue;
		ep = dnsb_rrset_to_endpoint(rs);
		s = ep ? json_object_to_json_string_length(ep, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE, &len) : NULL;
		if (s == NULL || (*count > 0 && text_add(out, ",", 1) != 0) || text_add(out, s, len) != 0)
			rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		else
			(*count)++;
		json_object_put(ep);
	}
	dnsb_rrset_list_clear(&list);
	return rc;
}

static enum MHD_Result handle_records_get(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	struct text body = { NULL, 0, 0 };
	dnsb_error err = { 0 };
	enum MHD_Result ret;
	size_t count = 0;
	int rc = text_add(&body, "[", 1);

	for (size_t i = 0; rc == 0 && i < dnsb_provider_zone_count(wh->provider); i++) {
		const char *zone = dnsb_provider_zone(wh->provider, i);
		if (!dnsb_domain_filter_may_match_zone(wh->filter, zone))
			continue;
		rc = list_zone(wh, zone, &body, &count, &err);
		if (rc != 0)
			dnsb_log(DNSB_LOG_ERROR, "GET /records: listing %s: %s", zone,
				 err.message[0] ? err.message : dnsb_strerror(rc));
	}
	if (rc == 0)
		rc = text_add(&body, "]\n", 2); /* Go's encoder ends with a newline */
	if (rc != 0) {
		free(body.p);
		/* Any 5xx is a soft error to external-dns: it tries again next loop. */
		return reply_text(conn, wh, req,
				  rc == DNSB_ETRANSIENT || rc == DNSB_ERATELIMIT ?
				  MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_INTERNAL_SERVER_ERROR,
				  "listing records failed: %s", err.message[0] ? err.message : dnsb_strerror(rc));
	}
	set_ready(wh, "list");
	ret = reply(conn, wh, req, MHD_HTTP_OK, DNSB_WEBHOOK_MEDIA_TYPE, body.p, body.len);
	free(body.p);
	return ret;
}

/* ---------------------------------------------------------------- */
/* POST /records                                                     */
/* ---------------------------------------------------------------- */

static const char *change_owner(const dnsb_change *c)
{
	return c->new_set.owner ? c->new_set.owner : c->old.owner;
}

/* Take the locks of every zone the plan touches, in zone order so that two
 * plans can never wait for each other. @return 0 or ETIMEDOUT (none held) */
static int lock_zones(dnsb_webhook *wh, const unsigned char *touched, double deadline_unix)
{
	struct timespec ts;
	ts.tv_sec = (time_t)deadline_unix;
	ts.tv_nsec = (long)((deadline_unix - (double)ts.tv_sec) * 1e9);

	for (size_t z = 0; z < wh->zone_count; z++) {
		if (!touched[z])
			continue;
		if (pthread_mutex_timedlock(&wh->zone_locks[z], &ts) != 0) {
			while (z-- > 0)
				if (touched[z])
					pthread_mutex_unlock(&wh->zone_locks[z]);
			return ETIMEDOUT;
		}
	}
	return 0;
}

static void unlock_zones(dnsb_webhook *wh, const unsigned char *touched)
{
	for (size_t z = wh->zone_count; z-- > 0;)
		if (touched[z])
			pthread_mutex_unlock(&wh->zone_locks[z]);
}

static void flush_droplog(dnsb_webhook *wh)
{
	if (wh->droplog == NULL)
		return;
	pthread_mutex_lock(&wh->droplog_lock);
	if (dnsb_droplog_flush(wh->droplog) != 0)
		dnsb_log(DNSB_LOG_ERROR, "drop log: flush failed");
	pthread_mutex_unlock(&wh->droplog_lock);
}

static void update_quarantine_gauge(dnsb_webhook *wh)
{
	const dnsb_clock *clk = wh->engine.clock ? wh->engine.clock : dnsb_clock_system();
	dnsb_metrics_set_quarantined(wh->metrics, dnsb_quarantine_count(wh->quarantine, clk->now(clk->payload)));
}

static enum MHD_Result handle_records_post(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	dnsb_plan *plan = NULL;
	dnsb_report report = { 0 };
	dnsb_error err = { 0 };
	dnsb_engine_options opts = wh->engine;
	const dnsb_clock *clk = opts.clock ? opts.clock : dnsb_clock_system();
	unsigned char *touched;
	double start_unix = dnsb_wall_clock(), waited;
	unsigned status;
	int rc, busy;

	rc = dnsb_plan_parse(&plan, req->body ? req->body : "", req->len, "POST /records", &err);
	if (rc == DNSB_EPARSE) {
		dnsb_log(DNSB_LOG_WARN, "%s", err.message);
		return reply_text(conn, wh, req, MHD_HTTP_BAD_REQUEST, "%s", err.message);
	}
	if (rc != 0)
		return reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s",
				  err.message[0] ? err.message : dnsb_strerror(rc));

	touched = calloc(wh->zone_count ? wh->zone_count : 1, 1);
	if (touched == NULL) {
		dnsb_plan_free(plan);
		return reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	}
	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		const char *owner = change_owner(dnsb_plan_change(plan, i));
		long z = owner ? dnsb_provider_zone_for(wh->provider, owner) : -1;
		if (z >= 0 && (size_t)z < wh->zone_count)
			touched[z] = 1;
	}

	busy = lock_zones(wh, touched, start_unix + wh->apply_timeout) != 0;
	/* The deadline bounds the whole request, the wait for the zones included. When the
	 * zones stayed busy it has passed: the engine settles and counts every change itself
	 * (pending ones failed/deadline, without a request; invalid and no_zone as such). */
	waited = dnsb_wall_clock() - start_unix;
	opts.timeout = 0;
	opts.deadline = clk->now(clk->payload) + (busy ? 0.0 : wh->apply_timeout - waited);
	if (!(opts.deadline > 0))
		opts.deadline = DBL_MIN;
	rc = dnsb_engine_apply(&report, wh->provider, plan, &opts, &err);
	if (busy) {
		dnsb_log(DNSB_LOG_WARN, "POST /records: zones still busy after %.1f s: %zu changes failed (deadline)",
			 wh->apply_timeout, report.failed);
		flush_droplog(wh);
		free(touched);
		dnsb_plan_free(plan);
		dnsb_report_clear(&report);
		return reply_text(conn, wh, req, MHD_HTTP_SERVICE_UNAVAILABLE,
				  "zones busy past the apply timeout; retry next interval");
	}
	unlock_zones(wh, touched);
	free(touched);

	if (report.dropped + report.failed > 0)
		flush_droplog(wh);
	dnsb_metrics_set_last_apply(wh->metrics, dnsb_wall_clock());
	update_quarantine_gauge(wh);
	if (report.applied + report.already_applied > 0 || (report.submissions > 0 && report.failed == 0))
		set_ready(wh, "apply");

	if (rc != 0)
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
	else if (report.failed > 0)
		status = MHD_HTTP_SERVICE_UNAVAILABLE;
	else
		status = MHD_HTTP_NO_CONTENT;
	dnsb_log(rc != 0 ? DNSB_LOG_ERROR : report.failed ? DNSB_LOG_WARN : DNSB_LOG_INFO,
		 "POST /records: %zu changes: %zu applied, %zu already applied, %zu dropped, %zu failed; "
		 "%lu batches, %lu submissions, %lu bisections, %.3f s -> %u%s%s",
		 report.changes, report.applied, report.already_applied, report.dropped, report.failed,
		 report.batches, report.submissions, report.bisections, dnsb_wall_clock() - start_unix, status,
		 rc != 0 ? ": " : "", rc != 0 ? (err.message[0] ? err.message : dnsb_strerror(rc)) : "");
	dnsb_report_clear(&report);
	dnsb_plan_free(plan);
	if (status == MHD_HTTP_NO_CONTENT)
		return reply(conn, wh, req, status, NULL, NULL, 0);
	return reply_text(conn, wh, req, status, "%s", status == MHD_HTTP_SERVICE_UNAVAILABLE ?
			  "some changes failed and will be retried next interval" : "internal error");
}

/* ---------------------------------------------------------------- */
/* /healthz and /metrics                                             */
/* ---------------------------------------------------------------- */

static enum MHD_Result handle_healthz(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	int ready, stopping;

	pthread_mutex_lock(&wh->lock);
	ready = wh->ready;
	stopping = wh->stopping;
	pthread_mutex_unlock(&wh->lock);
	if (stopping)
		return reply_text(conn, wh, req, MHD_HTTP_SERVICE_UNAVAILABLE, "shutting down");
	if (!ready)
		return reply_text(conn, wh, req, MHD_HTTP_SERVICE_UNAVAILABLE,
				  "not ready: provider %s has not answered yet", dnsb_provider_name(wh->provider));
	return reply_text(conn, wh, req, MHD_HTTP_OK, "ok");
}

static enum MHD_Result handle_metrics(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	char *text = NULL;
	size_t len = 0;
	enum MHD_Result ret;

	pthread_mutex_lock(&wh->lock);
	dnsb_metrics_webhook_state(wh->metrics, wh->ready, wh->inflight, wh->applies);
	pthread_mutex_unlock(&wh->lock);
	update_quarantine_gauge(wh);
	if (dnsb_metrics_render(&text, &len, wh->metrics) != 0)
		return reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	ret = reply(conn, wh, req, MHD_HTTP_OK, METRICS_CONTENT_TYPE, text, len);
	free(text);
	return ret;
}

/* ---------------------------------------------------------------- */
/* dispatch                                                          */
/* ---------------------------------------------------------------- */

static enum dnsb_webhook_route route_of(const char *url)
{
	if (strcmp(url, "/") == 0)
		return DNSB_ROUTE_NEGOTIATE;
	if (strcmp(url, "/records") == 0)
		return DNSB_ROUTE_RECORDS;
	if (strcmp(url, "/adjustendpoints") == 0)
		return DNSB_ROUTE_ADJUST;
	if (strcmp(url, "/healthz") == 0)
		return DNSB_ROUTE_HEALTHZ;
	if (strcmp(url, "/metrics") == 0)
		return DNSB_ROUTE_METRICS;
	return DNSB_ROUTE_OTHER;
}

static enum MHD_Result dispatch(struct MHD_Connection *conn, struct listener *l, struct request *req)
{
	dnsb_webhook *wh = l->wh;
	int get = req->method == M_GET, post = req->method == M_POST;

	if (req->too_large) {
		dnsb_log(DNSB_LOG_WARN, "request body over --max-body-size (%zu bytes): 413", wh->max_body);
		return reply_text(conn, wh, req, MHD_HTTP_CONTENT_TOO_LARGE,
				  "request body exceeds %zu bytes", wh->max_body);
	}
	if (l->monitor_only && req->route != DNSB_ROUTE_HEALTHZ && req->route != DNSB_ROUTE_METRICS)
		return reply_text(conn, wh, req, MHD_HTTP_NOT_FOUND, "not found");
	switch (req->route) {
	case DNSB_ROUTE_NEGOTIATE:
		if (get)
			return handle_negotiate(conn, wh, req);
		break;
	case DNSB_ROUTE_RECORDS:
		if (get)
			return handle_records_get(conn, wh, req);
		if (post)
			return handle_records_post(conn, wh, req);
		break;
	case DNSB_ROUTE_ADJUST:
		if (post)
			return handle_adjust(conn, wh, req);
		break;
	case DNSB_ROUTE_HEALTHZ:
		if (get)
			return handle_healthz(conn, wh, req);
		break;
	case DNSB_ROUTE_METRICS:
		if (get)
			return handle_metrics(conn, wh, req);
		break;
	default:
		return reply_text(conn, wh, req, MHD_HTTP_NOT_FOUND, "not found");
	}
	return reply_text(conn, wh, req, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed");
}

static int body_append(struct request *req, size_t max, const char *data, size_t n)
{
	if (req->too_large || n > max - req->len) {
		/* Keep reading (and discarding) so that the 413 reaches the client. */
		req->too_large = 1;
		free(req->body);
		req->body = NULL;
		req->len = req->cap = 0;
		return 0;
	}
	if (req->len + n > req->cap) {
		size_t cap = req->cap ? req->cap : 16384;
		while (cap < req->len + n)
			cap *= 2;
		if (cap > max)
			cap = max;
		char *b = realloc(req->body, cap);
		if (b == NULL)
			return -1;
		req->body = b;
		req->cap = cap;
	}
	memcpy(req->body + req->len, data, n);
	req->len += n;
	return 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct listener *l = cls;
	dnsb_webhook *wh = l->wh;
	struct request *req = *con_cls;

	(void)version;
	if (req == NULL) {
		const char *cl;
		int stopping;

		req = calloc(1, sizeof(*req));
		if (req == NULL)
			return MHD_NO;
		req->start = dnsb_monotonic();
		req->route = route_of(url);
		req->method = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0 ? M_GET :
			      strcmp(method, "POST") == 0 ? M_POST : M_OTHER;
		*con_cls = req;
		pthread_mutex_lock(&wh->lock);
		wh->inflight++;
		stopping = wh->stopping;
		if (!stopping && req->method == M_POST && req->route == DNSB_ROUTE_RECORDS) {
			req->apply = 1;
			wh->applies++;
		}
		pthread_mutex_unlock(&wh->lock);

		if (stopping && req->method == M_POST) {
			/* Draining: refuse new work with a soft error external-dns retries. */
			req->refused = 1;
			return reply_text(conn, wh, req, MHD_HTTP_SERVICE_UNAVAILABLE, "shutting down");
		}
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl != NULL && strtoull(cl, NULL, 10) > wh->max_body) {
			/* Refuse before reading: no 100-continue, no wasted transfer. */
			req->refused = 1;
			req->too_large = 1;
			return dispatch(conn, l, req);
		}
		return MHD_YES;
	}
	if (*upload_data_size != 0) {
		if (!req->refused && body_append(req, wh->max_body, upload_data, *upload_data_size) != 0)
			return MHD_NO;
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (req->refused)
		return MHD_YES;
	return dispatch(conn, l, req);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct listener *l = cls;
	dnsb_webhook *wh = l->wh;
	struct request *req = *con_cls;

	(void)conn;
	(void)toe;
	if (req == NULL)
		return;
	pthread_mutex_lock(&wh->lock);
	wh->inflight--;
	if (req->apply)
		wh->applies--;
	pthread_cond_broadcast(&wh->cond);
	pthread_mutex_unlock(&wh->lock);
	free(req->body);
	free(req);
	*con_cls = NULL;
}

/* ---------------------------------------------------------------- */
/* life cycle                                                        */
/* ---------------------------------------------------------------- */

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char buf[512];
	size_t n;

	(void)cls;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	dnsb_log(DNSB_LOG_WARN, "http: %s", buf);
}

/* "HOST:PORT", "[V6]:PORT" or ":PORT" into a socket address. */
static int resolve(struct sockaddr_storage *out, socklen_t *outlen, int *v6, const char *spec, dnsb_error *err)
{
	char host[256];
	const char *colon, *port;
	struct addrinfo hints = { 0 }, *res = NULL;
	int rc;

	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');
		if (close == NULL || close[1] != ':')
			return dnsb_error_set(err, DNSB_EINVAL, "bad listen address \"%s\": expected [ADDR]:PORT", spec);
		if ((size_t)(close - spec - 1) >= sizeof(host))
			return dnsb_error_set(err, DNSB_EINVAL, "bad listen address \"%s\"", spec);
		memcpy(host, spec + 1, (size_t)(close - spec - 1));
		host[close - spec - 1] = '\0';
		port = close + 2;
	} else {
		colon = strrchr(spec, ':');
		if (colon == NULL || (size_t)(colon - spec) >= sizeof(host))
			return dnsb_error_set(err, DNSB_EINVAL, "bad listen address \"%s\": expected HOST:PORT", spec);
		memcpy(host, spec, (size_t)(colon - spec));
		host[colon - spec] = '\0';
		port = colon + 1;
	}
	if (*port == '\0' || strspn(port, "0123456789") != strlen(port) || atol(port) > 65535)
		return dnsb_error_set(err, DNSB_EINVAL, "bad listen address \"%s\": bad port", spec);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	/* ":PORT" means every IPv4 interface, as 0.0.0.0 in the defaults. */
	hints.ai_family = host[0] == '\0' ? AF_INET : AF_UNSPEC;
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (rc != 0 || res == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "bad listen address \"%s\": %s", spec, gai_strerror(rc));
	memcpy(out, res->ai_addr, res->ai_addrlen);
	*outlen = res->ai_addrlen;
	*v6 = res->ai_family == AF_INET6;
	freeaddrinfo(res);
	return 0;
}

static int start_listener(struct listener *l, dnsb_webhook *wh, const char *spec, int monitor_only, dnsb_error *err)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	int v6 = 0, rc;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			 MHD_USE_ITC | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *info;

	rc = resolve(&ss, &sslen, &v6, spec, err);
	if (rc != 0)
		return rc;
	if (v6)
		flags |= MHD_USE_IPv6;
	l->wh = wh;
	l->monitor_only = monitor_only;
	l->quiesced = MHD_INVALID_SOCKET;
	errno = 0;
	l->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, l,
				     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				     MHD_OPTION_NOTIFY_COMPLETED, on_completed, l,
				     MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTION_LIMIT,
				     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT,
				     MHD_OPTION_END);
	if (l->daemon == NULL)
		return dnsb_error_set(err, DNSB_EIO, "cannot listen on %s: %s", spec,
				      errno ? strerror(errno) : "libmicrohttpd refused to start");
	info = MHD_get_daemon_info(l->daemon, MHD_DAEMON_INFO_BIND_PORT);
	l->port = info ? info->port : 0;
	/* The address with the port actually bound: tests ask for port 0. */
	snprintf(l->name, sizeof(l->name), "%.*s:%u", (int)(strrchr(spec, ':') - spec), spec, l->port);
	return 0;
}

/* Probe the provider until it answers once: /healthz stays 503 until then,
 * so Kubernetes sends no traffic to a sidecar that cannot reach its DNS. */
static void *probe_main(void *arg)
{
	dnsb_webhook *wh = arg;
	dnsb_provider *p = wh->provider;

	for (;;) {
		dnsb_rrset_list got = { 0 };
		dnsb_error err = { 0 };
		dnsb_rrkey key;
		double t0;
		int rc;

		pthread_mutex_lock(&wh->lock);
		if (wh->ready || wh->stopping) {
			pthread_mutex_unlock(&wh->lock);
			return NULL;
		}
		pthread_mutex_unlock(&wh->lock);

		if (dnsb_provider_zone_count(p) == 0) {
			set_ready(wh, "no zones");
			return NULL;
		}
		key.owner = dnsb_provider_zone(p, 0);
		key.type = 6; /* SOA: every zone has one, and it is one small answer */
		t0 = dnsb_monotonic();
		rc = dnsb_provider_read(p, key.owner, &key, 1, &got, NULL, &err);
		dnsb_metrics_request(wh->metrics, dnsb_provider_name(p), "read", class_of(rc), dnsb_monotonic() - t0);
		dnsb_rrset_list_clear(&got);
		if (rc == 0) {
			set_ready(wh, "probe");
			return NULL;
		}
		dnsb_log(DNSB_LOG_WARN, "provider %s not answering yet: %s", dnsb_provider_name(p),
			 err.message[0] ? err.message : dnsb_strerror(rc));

		pthread_mutex_lock(&wh->lock);
		if (!wh->stopping) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			double until = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + wh->probe_interval;
			ts.tv_sec = (time_t)until;
			ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
			pthread_cond_timedwait(&wh->cond, &wh->lock, &ts);
		}
		pthread_mutex_unlock(&wh->lock);
	}
}

static void release(dnsb_webhook *wh)
{
	for (size_t z = 0; wh->zone_locks && z < wh->zone_count; z++)
		pthread_mutex_destroy(&wh->zone_locks[z]);
	free(wh->zone_locks);
	dnsb_quarantine_free(wh->own_quarantine);
	dnsb_metrics_free(wh->own_metrics);
	pthread_mutex_destroy(&wh->droplog_lock);
	pthread_cond_destroy(&wh->cond);
	pthread_mutex_destroy(&wh->lock);
	free(wh);
}

int dnsb_webhook_start(dnsb_webhook **out, dnsb_provider *provider,
		       const dnsb_webhook_options *opts, dnsb_error *err)
{
	static const dnsb_webhook_options defaults = DNSB_WEBHOOK_OPTIONS_INIT;
	static const dnsb_engine_options engine_defaults = DNSB_ENGINE_OPTIONS_INIT;
	dnsb_webhook *wh;
	int rc;

	*out = NULL;
	if (opts == NULL)
		opts = &defaults;
	if (opts->listen == NULL || opts->listen[0] == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "--listen: an address is required");
	if (opts->max_body_size == 0)
		return dnsb_error_set(err, DNSB_EINVAL, "--max-body-size must be at least 1 byte");
	if (!(opts->apply_timeout > 0))
		return dnsb_error_set(err, DNSB_EINVAL, "--apply-timeout must be more than 0 seconds");

	wh = calloc(1, sizeof(*wh));
	if (wh == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	pthread_mutex_init(&wh->lock, NULL);
	pthread_cond_init(&wh->cond, NULL);
	pthread_mutex_init(&wh->droplog_lock, NULL);
	wh->provider = provider;
	wh->filter = opts->filter;
	wh->max_body = opts->max_body_size;
	wh->apply_timeout = opts->apply_timeout;
	wh->probe_interval = opts->probe_interval > 0 ? opts->probe_interval : 5.0;
	wh->engine = opts->engine ? *opts->engine : engine_defaults;
	wh->droplog = opts->droplog;
	wh->metrics = opts->metrics;
	wh->quarantine = opts->quarantine;
	wh->api.quiesced = wh->mon.quiesced = MHD_INVALID_SOCKET;
	if (wh->metrics == NULL && (rc = dnsb_metrics_new(&wh->own_metrics)) != 0)
		goto fail_msg;
	if (wh->metrics == NULL)
		wh->metrics = wh->own_metrics;
	if (wh->quarantine == NULL && (rc = dnsb_quarantine_new(&wh->own_quarantine, 60.0, 3600.0)) != 0)
		goto fail_msg;
	if (wh->quarantine == NULL)
		wh->quarantine = wh->own_quarantine;
	wh->engine.metrics = wh->metrics;
	wh->engine.droplog = wh->droplog;
	wh->engine.quarantine = wh->quarantine;

	wh->zone_count = dnsb_provider_zone_count(provider);
	wh->zone_locks = calloc(wh->zone_count ? wh->zone_count : 1, sizeof(*wh->zone_locks));
	if (wh->zone_locks == NULL) {
		rc = DNSB_ENOMEM;
		goto fail_msg;
	}
	for (size_t z = 0; z < wh->zone_count; z++)
		pthread_mutex_init(&wh->zone_locks[z], NULL);

	rc = start_listener(&wh->api, wh, opts->listen, 0, err);
	if (rc == 0 && opts->metrics_listen && opts->metrics_listen[0])
		rc = start_listener(&wh->mon, wh, opts->metrics_listen, 1, err);
	if (rc != 0) {
		if (wh->api.daemon)
			MHD_stop_daemon(wh->api.daemon);
		release(wh);
		return rc;
	}
	if (pthread_create(&wh->probe, NULL, probe_main, wh) == 0)
		wh->probe_started = 1;
	else
		set_ready(wh, "no probe thread"); /* never leave /healthz stuck at 503 */
	dnsb_log(DNSB_LOG_INFO, "serving the external-dns webhook on %s, /healthz and /metrics on %s; provider %s, %zu zone(s)",
		 wh->api.name, wh->mon.daemon ? wh->mon.name : wh->api.name, dnsb_provider_name(provider),
		 wh->zone_count);
	*out = wh;
	return 0;

fail_msg:
	release(wh);
	return dnsb_error_set(err, rc, "%s", dnsb_strerror(rc));
}

unsigned dnsb_webhook_port(const dnsb_webhook *wh, int metrics)
{
	const struct listener *l = metrics ? &wh->mon : &wh->api;
	return l->daemon ? l->port : 0;
}

void dnsb_webhook_shutdown(dnsb_webhook *wh, double grace)
{
	struct timespec ts;
	double until;

	pthread_mutex_lock(&wh->lock);
	if (wh->stopped) {
		pthread_mutex_unlock(&wh->lock);
		return;
	}
	wh->stopping = 1;
	pthread_cond_broadcast(&wh->cond);
	pthread_mutex_unlock(&wh->lock);

	/* Stop accepting. The sockets are closed only after the daemons stop,
	 * as libmicrohttpd's threads may still look at them until then; but
	 * shut down now, so that new connections are refused at once instead
	 * of waiting in the backlog until the client's deadline. */
	if (wh->api.daemon && (wh->api.quiesced = MHD_quiesce_daemon(wh->api.daemon)) != MHD_INVALID_SOCKET)
		shutdown(wh->api.quiesced, SHUT_RDWR);
	if (wh->mon.daemon && (wh->mon.quiesced = MHD_quiesce_daemon(wh->mon.daemon)) != MHD_INVALID_SOCKET)
		shutdown(wh->mon.quiesced, SHUT_RDWR);
	if (wh->probe_started)
		pthread_join(wh->probe, NULL);
	wh->probe_started = 0;

	if (grace <= 0)
		grace = wh->apply_timeout + 10.0;
	clock_gettime(CLOCK_REALTIME, &ts);
	until = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + grace;
	ts.tv_sec = (time_t)until;
	ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
	pthread_mutex_lock(&wh->lock);
	if (wh->applies > 0)
		dnsb_log(DNSB_LOG_INFO, "shutting down: waiting for %u apply(s) in flight", wh->applies);
	while (wh->inflight > 0)
		if (pthread_cond_timedwait(&wh->cond, &wh->lock, &ts) == ETIMEDOUT)
			break;
	if (wh->inflight > 0)
		dnsb_log(DNSB_LOG_WARN, "shutting down: %u request(s) still in flight after %.0f s", wh->inflight, grace);
	pthread_mutex_unlock(&wh->lock);

	if (wh->api.daemon)
		MHD_stop_daemon(wh->api.daemon);
	if (wh->mon.daemon)
		MHD_stop_daemon(wh->mon.daemon);
	if (wh->api.quiesced != MHD_INVALID_SOCKET)
		close(wh->api.quiesced);
	if (wh->mon.quiesced != MHD_INVALID_SOCKET)
		close(wh->mon.quiesced);
	wh->api.daemon = wh->mon.daemon = NULL;
	wh->api.quiesced = wh->mon.quiesced = MHD_INVALID_SOCKET;

	if (wh->droplog && dnsb_droplog_flush(wh->droplog) != 0)
		dnsb_log(DNSB_LOG_ERROR, "drop log: flush failed at shutdown");
	pthread_mutex_lock(&wh->lock);
	wh->stopped = 1;
	pthread_mutex_unlock(&wh->lock);
}

void dnsb_webhook_free(dnsb_webhook *wh)
{
	if (wh == NULL)
		return;
	dnsb_webhook_shutdown(wh, 0);
	release(wh);
}
