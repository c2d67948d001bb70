/* server.c - the webhook server's daemons (libmicrohttpd): listeners, request bodies, routing, life cycle. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/resource.h>
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

/* Seconds an idle connection (or one whose headers never end) is kept: external-dns's
 * Go client keeps its idle keep-alive connection up to 90 s and opens another
 * when the server closed it; probes and scrapers reconnect every time anyway. */
#define CONNECTION_TIMEOUT_API 60
#define CONNECTION_TIMEOUT_METRICS 10
/* Descriptors kept for the rest of the process: the provider's sockets, the drop log, pipes. */
#define FD_RESERVE 64

/* libmicrohttpd's connection limit of each listener: DNSB_WEBHOOK_CONN_MAX, or less when the two
 * listeners would run the process out of descriptors (accept would fail with EMFILE), never under
 * the cap plus a margin (a smaller RLIMIT_NOFILE then shows as accept errors in the log). */
static unsigned connection_limit(void)
{
	struct rlimit rl;
	rlim_t n;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return DNSB_WEBHOOK_CONN_MAX;
	n = rl.rlim_cur > FD_RESERVE ? (rl.rlim_cur - FD_RESERVE) / 2 : 0;
	if (n > DNSB_WEBHOOK_CONN_MAX)
		n = DNSB_WEBHOOK_CONN_MAX;
	if (n < DNSB_WEBHOOK_CONN_CAP + 16)
		n = DNSB_WEBHOOK_CONN_CAP + 16;
	return (unsigned)n;
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

/* libmicrohttpd's URI log callback: a request line is in (the headers may not be). NULL: no request
 * state yet (on_request makes it once the headers are in). */
static void *on_request_line(void *cls, const char *uri, struct MHD_Connection *conn)
{
	(void)uri;
	dnsb_webhook_conn_progress(cls, conn, 0);
	return NULL;
}

/* The request is in whole, or answered before its body: the reaper's bound no longer applies. */
static enum MHD_Result received(struct listener *l, struct MHD_Connection *conn, enum MHD_Result ret)
{
	dnsb_webhook_conn_progress(l, conn, 1);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct listener *l = cls;
	dnsb_webhook *wh = l->wh;
	struct request *req = *con_cls;
	enum MHD_Result ret;

	(void)version;
	if (req == NULL) {
		int stopping;

		req = calloc(1, sizeof(*req));
		if (req == NULL)
			return MHD_NO;
		req->start = dnsb_monotonic();
		req->route = dnsb_webhook_route_of(url);
		req->method = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0 ? M_GET :
			      strcmp(method, "POST") == 0 ? M_POST : M_OTHER;
		*con_cls = req;
		dnsb_webhook_conn_busy(l, conn, 1);
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
			return received(l, conn, dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_SERVICE_UNAVAILABLE,
									 "shutting down"));
		}
		ret = dnsb_webhook_dispatch_headers(conn, l, req);
		return req->refused ? received(l, conn, ret) : ret;
	}
	if (*upload_data_size != 0) {
		if (!req->refused && body_append(req, wh->max_body, upload_data, *upload_data_size) != 0)
			return MHD_NO;
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (req->refused)
		return MHD_YES;
	dnsb_webhook_conn_progress(l, conn, 1);
	return dnsb_webhook_dispatch(conn, l, req);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct listener *l = cls;
	dnsb_webhook *wh = l->wh;
	struct request *req = *con_cls;

	(void)toe;
	if (req == NULL)
		return;
	dnsb_webhook_conn_busy(l, conn, 0);
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

/* libmicrohttpd logs per connection ("Server reached connection limit", a client
 * that hangs up mid-request, as every TCP probe does): whoever can connect could
 * flood the log. Each message (by its format) is logged the first time, then at
 * most once per MHD_LOG_INTERVAL seconds with the count of those left out. */
#define MHD_LOG_FORMATS 32
#define MHD_LOG_INTERVAL 60.0

static struct mhd_log_seen {
	const char *fmt;
	double last;
	unsigned long skipped;
} mhd_log_seen[MHD_LOG_FORMATS];
static pthread_mutex_t mhd_log_lock = PTHREAD_MUTEX_INITIALIZER;

/* Log this one? *skipped: how many of the same were left out since it last was. */
static int mhd_log_admit(const char *fmt, unsigned long *skipped)
{
	double now = dnsb_monotonic();
	int admit = 1;
	size_t i;

	*skipped = 0;
	pthread_mutex_lock(&mhd_log_lock);
	for (i = 0; i < MHD_LOG_FORMATS && mhd_log_seen[i].fmt != NULL && mhd_log_seen[i].fmt != fmt; i++)
		;
	if (i < MHD_LOG_FORMATS && mhd_log_seen[i].fmt == NULL) {
		mhd_log_seen[i].fmt = fmt;
		mhd_log_seen[i].last = now;
	} else if (i < MHD_LOG_FORMATS && now - mhd_log_seen[i].last < MHD_LOG_INTERVAL) {
		mhd_log_seen[i].skipped++;
		admit = 0;
	} else if (i < MHD_LOG_FORMATS) {
		*skipped = mhd_log_seen[i].skipped;
		mhd_log_seen[i].skipped = 0;
		mhd_log_seen[i].last = now;
	}
	pthread_mutex_unlock(&mhd_log_lock);
	return admit;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	unsigned long skipped;
	char buf[512];
	size_t n;

	(void)cls;
	if (!mhd_log_admit(fmt, &skipped))
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	if (skipped > 0)
		dnsb_log(DNSB_LOG_WARN, "http: %s (and %lu more like it in the last %.0f s or more)", buf, skipped,
			 MHD_LOG_INTERVAL);
	else
		dnsb_log(DNSB_LOG_WARN, "http: %s", buf);
}

static int start_listener(struct listener *l, dnsb_webhook *wh, const char *spec, int monitor_only, dnsb_error *err)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	int v6 = 0, rc;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			 MHD_USE_ITC | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *info;

	rc = dnsb_webhook_listen_resolve(&ss, &sslen, &v6, spec, err);
	if (rc != 0)
		return rc;
	if (v6)
		flags |= MHD_USE_IPv6;
	l->loopback = v6 ? IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr)
			 : (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127;
	l->wh = wh;
	l->monitor_only = monitor_only;
	l->idle_timeout = wh->connection_timeout ? wh->connection_timeout :
			  monitor_only ? CONNECTION_TIMEOUT_METRICS : CONNECTION_TIMEOUT_API;
	l->quiesced = MHD_INVALID_SOCKET;
	errno = 0;
	l->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, l,
				     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				     MHD_OPTION_NOTIFY_COMPLETED, on_completed, l,
				     MHD_OPTION_NOTIFY_CONNECTION, dnsb_webhook_on_connection, l,
				     MHD_OPTION_CONNECTION_LIMIT, connection_limit(),
				     MHD_OPTION_URI_LOG_CALLBACK, on_request_line, l,
				     MHD_OPTION_CONNECTION_TIMEOUT, l->idle_timeout,
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

static void release(dnsb_webhook *wh)
{
	for (size_t z = 0; wh->zone_locks && z < wh->zone_count; z++)
		pthread_mutex_destroy(&wh->zone_locks[z]);
	free(wh->zone_locks);
	dnsb_webhook_listings_free(wh);
	dnsb_quarantine_free(wh->own_quarantine);
	dnsb_metrics_free(wh->own_metrics);
	dnsb_webhook_unsupported_clear(wh);
	for (size_t i = 0; i < wh->allowed_host_count; i++)
		free(wh->allowed_hosts[i]);
	free(wh->allowed_hosts);
	free(wh->txt_wildcard);
	free(wh->txt_owner_id);
	pthread_mutex_destroy(&wh->api.conn_lock);
	pthread_mutex_destroy(&wh->mon.conn_lock);
	pthread_mutex_destroy(&wh->droplog_lock);
	pthread_cond_destroy(&wh->cond);
	pthread_mutex_destroy(&wh->lock);
	free(wh);
}

/* The server's own state from the options: what it borrows, what it keeps itself,
 * the engine template and one lock per zone. @return 0 or DNSB_ENOMEM */
static int init_state(dnsb_webhook *wh, dnsb_provider *provider, const dnsb_webhook_options *opts)
{
	static const dnsb_engine_options engine_defaults = DNSB_ENGINE_OPTIONS_INIT;
	int rc;

	pthread_mutex_init(&wh->lock, NULL);
	pthread_cond_init(&wh->cond, NULL);
	pthread_mutex_init(&wh->droplog_lock, NULL);
	pthread_mutex_init(&wh->api.conn_lock, NULL);
	pthread_mutex_init(&wh->mon.conn_lock, NULL);
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
	if (opts->version >= 3)
		wh->connection_timeout = opts->connection_timeout;
	wh->request_timeout = opts->version >= 4 && opts->request_timeout > 0 ? opts->request_timeout :
			      DNSB_WEBHOOK_REQUEST_TIMEOUT_DEFAULT;
	if (opts->version >= 4 && opts->txt_wildcard_replacement && opts->txt_wildcard_replacement[0]) {
		if ((wh->txt_wildcard = strdup(opts->txt_wildcard_replacement)) == NULL)
			return DNSB_ENOMEM;
		for (char *c = wh->txt_wildcard; *c; c++)
			*c = (char)tolower((unsigned char)*c);
	}
	if (opts->version >= 5 && opts->txt_owner_id && opts->txt_owner_id[0] &&
	    (wh->txt_owner_id = strdup(opts->txt_owner_id)) == NULL)
		return DNSB_ENOMEM;
	if (opts->version >= 2 && opts->allowed_host_count > 0) {
		if ((wh->allowed_hosts = calloc(opts->allowed_host_count, sizeof(char *))) == NULL)
			return DNSB_ENOMEM;
		for (size_t i = 0; i < opts->allowed_host_count; i++, wh->allowed_host_count++)
			if ((wh->allowed_hosts[i] = strdup(opts->allowed_hosts[i])) == NULL)
				return DNSB_ENOMEM;
	}
	if (wh->metrics == NULL && (rc = dnsb_metrics_new(&wh->own_metrics)) != 0)
		return rc;
	if (wh->metrics == NULL)
		wh->metrics = wh->own_metrics;
	if (wh->quarantine == NULL && (rc = dnsb_quarantine_new(&wh->own_quarantine, 60.0, 3600.0)) != 0)
		return rc;
	if (wh->quarantine == NULL)
		wh->quarantine = wh->own_quarantine;
	wh->engine.metrics = wh->metrics;
	wh->engine.droplog = wh->droplog;
	wh->engine.quarantine = wh->quarantine;

	wh->zone_count = dnsb_provider_zone_count(provider);
	wh->zone_locks = calloc(wh->zone_count ? wh->zone_count : 1, sizeof(*wh->zone_locks));
	if (wh->zone_locks == NULL)
		return DNSB_ENOMEM;
	for (size_t z = 0; z < wh->zone_count; z++)
		pthread_mutex_init(&wh->zone_locks[z], NULL);
	return dnsb_webhook_listings_init(wh, opts);
}

int dnsb_webhook_start(dnsb_webhook **out, dnsb_provider *provider,
		       const dnsb_webhook_options *opts, dnsb_error *err)
{
	static const dnsb_webhook_options defaults = DNSB_WEBHOOK_OPTIONS_INIT;
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
	if ((rc = init_state(wh, provider, opts)) != 0) {
		release(wh);
		return dnsb_error_set(err, rc, "%s", dnsb_strerror(rc));
	}
	rc = start_listener(&wh->api, wh, opts->listen, 0, err);
	if (rc == 0 && opts->metrics_listen && opts->metrics_listen[0])
		rc = start_listener(&wh->mon, wh, opts->metrics_listen, 1, err);
	if (rc != 0) {
		if (wh->api.daemon)
			MHD_stop_daemon(wh->api.daemon);
		release(wh);
		return rc;
	}
	if (pthread_create(&wh->reaper, NULL, dnsb_webhook_reaper_main, wh) == 0)
		wh->reaper_started = 1;
	else
		dnsb_log(DNSB_LOG_ERROR, "no reaper thread: requests that never arrive whole are not closed");
	if (pthread_create(&wh->probe, NULL, dnsb_webhook_probe_main, wh) == 0)
		wh->probe_started = 1;
	else
		dnsb_webhook_set_ready(wh, "no probe thread"); /* never leave /healthz stuck at 503 */
	dnsb_log(DNSB_LOG_INFO, "serving the external-dns webhook on %s, /healthz and /metrics on %s; provider %s, %zu zone(s)",
		 wh->api.name, wh->mon.daemon ? wh->mon.name : wh->api.name, dnsb_provider_name(provider),
		 wh->zone_count);
	*out = wh;
	return 0;
}

unsigned dnsb_webhook_port(const dnsb_webhook *wh, int metrics)
{
	const struct listener *l = metrics ? &wh->mon : &wh->api;
	return l->daemon ? l->port : 0;
}

/* Wait up to `grace` seconds for the requests in flight to complete. */
static void drain(dnsb_webhook *wh, double grace)
{
	struct timespec ts = dnsb_wall_deadline(grace);

	pthread_mutex_lock(&wh->lock);
	if (wh->applies > 0)
		dnsb_log(DNSB_LOG_INFO, "shutting down: waiting for %u apply(s) in flight", wh->applies);
	while (wh->inflight > 0)
		if (pthread_cond_timedwait(&wh->cond, &wh->lock, &ts) == ETIMEDOUT)
			break;
	if (wh->inflight > 0)
		dnsb_log(DNSB_LOG_WARN, "shutting down: %u request(s) still in flight after %.0f s", wh->inflight, grace);
	pthread_mutex_unlock(&wh->lock);
}

/* Stop accepting. The sockets are closed only after the daemons stop, as
 * libmicrohttpd's threads may still look at them until then; but shut down
 * now, so that new connections are refused at once instead of waiting in
 * the backlog until the client's deadline. */
static void quiesce(struct listener *l)
{
	if (l->daemon && (l->quiesced = MHD_quiesce_daemon(l->daemon)) != MHD_INVALID_SOCKET)
		shutdown(l->quiesced, SHUT_RDWR);
}

static void stop_listener(struct listener *l)
{
	if (l->daemon)
		MHD_stop_daemon(l->daemon);
	if (l->quiesced != MHD_INVALID_SOCKET)
		close(l->quiesced);
	l->daemon = NULL;
	l->quiesced = MHD_INVALID_SOCKET;
}

void dnsb_webhook_shutdown(dnsb_webhook *wh, double grace)
{
	pthread_mutex_lock(&wh->lock);
	if (wh->stopped) {
		pthread_mutex_unlock(&wh->lock);
		return;
	}
	wh->stopping = 1;
	pthread_cond_broadcast(&wh->cond);
	pthread_mutex_unlock(&wh->lock);

	quiesce(&wh->api);
	quiesce(&wh->mon);
	if (wh->probe_started)
		pthread_join(wh->probe, NULL);
	wh->probe_started = 0;
	if (wh->reaper_started)
		pthread_join(wh->reaper, NULL);
	wh->reaper_started = 0;
	drain(wh, grace > 0 ? grace : wh->apply_timeout + 10.0);
	stop_listener(&wh->api);
	stop_listener(&wh->mon);

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
