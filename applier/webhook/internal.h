/* internal.h - pieces of the webhook server shared between its files (not installed). */
#ifndef DNSBATCH_WEBHOOK_INTERNAL_H
#define DNSBATCH_WEBHOOK_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <sys/socket.h>

#include <json-c/json.h>
#include <microhttpd.h>

#include "dnsbatch/webhook.h"

/** The routes the server knows, as labels of its own metrics. */
enum dnsb_webhook_route {
	DNSB_ROUTE_NEGOTIATE = 0,  /* GET / */
	DNSB_ROUTE_RECORDS,        /* GET and POST /records */
	DNSB_ROUTE_ADJUST,         /* POST /adjustendpoints */
	DNSB_ROUTE_HEALTHZ,
	DNSB_ROUTE_METRICS,
	DNSB_ROUTE_QUARANTINE,     /* GET /quarantine: the groups held back, for operators */
	DNSB_ROUTE_RELEASE,        /* POST /release?digest=D: an operator releases a set held by a threshold */
	DNSB_ROUTE_OTHER,
	DNSB_ROUTE_COUNT
};

/* The Prometheus text exposition format 0.0.4. */
#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define TEXT_CONTENT_TYPE "text/plain; charset=utf-8"

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

/* conns.c: past this many connections on a listener, each new one closes the longest idle one. */
#define DNSB_WEBHOOK_CONN_CAP 200
/* libmicrohttpd's own limit (each connection is a thread), lower when RLIMIT_NOFILE is (server.c): room
 * above the cap for busy connections and for those closed for room but not yet reaped, so that a burst of
 * new connections is not refused (the probe's among them) while the closed ones wind down. */
#define DNSB_WEBHOOK_CONN_MAX 1024

struct conn;

struct listener {
	struct MHD_Daemon *daemon;
	MHD_socket quiesced;
	unsigned port;
	int monitor_only;  /* the metrics listener: /healthz and /metrics only */
	unsigned idle_timeout; /* seconds, libmicrohttpd's connection timeout here */
	int loopback;      /* bound to a loopback address: Host is checked (dispatch.c) */
	char name[300];    /* "127.0.0.1:8888", for the log */
	struct dnsb_webhook *wh;
	pthread_mutex_t conn_lock;  /* guards the connection table (conns.c) */
	struct conn *conns[DNSB_WEBHOOK_CONN_MAX];
	size_t conn_count;
	int cap_logged;
};

/* The server (dnsbatch/webhook.h's opaque handle). */
struct dnsb_webhook {
	dnsb_provider *provider;
	const dnsb_domain_filter *filter;
	size_t max_body;
	double apply_timeout;
	unsigned connection_timeout; /* seconds, both listeners; 0 = each its own default (server.c) */
	double request_timeout;      /* seconds to receive a whole request (conns.c's reaper) */
	char *txt_wildcard;          /* --txt-wildcard-replacement, lower case (owned), or NULL */
	char *txt_owner_id;          /* --txt-owner-id (owned), or NULL */
	pthread_t reaper;
	int reaper_started;
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
	char probe_fault[512];     /* health.c: why the last probe got no answer ("" none yet); for /healthz */
	int probe_setup_fault;     /* ... and whether it is a setup fault (DNSB_EFATAL, DNSB_EINVAL): no wait mends it */
	/* --allowed-host names (owned), besides the loopback ones */
	char **allowed_hosts;
	size_t allowed_host_count;
	int refusal_logged[2];     /* dispatch.c: 415 and 421 are logged once each */
	/* listing.c: each zone's last listing by GET /records, for the thresholds' count of the POST that follows */
	pthread_mutex_t listing_lock;
	struct zone_listing *listings; /* zone_count of them */
	double listing_max_age;        /* seconds on the engine's clock; < 0: never used */
	/* adjust.c: names whose unsupported endpoints were logged (each once); under `lock` */
	char **unsupported_logged;
	size_t unsupported_count;
};

/*
 * listing.c: the RRset count of each zone as GET /records last listed it, with the listing's start on the engine's
 * clock, for the safety thresholds' count of the POST /records that follows in the same external-dns loop (the
 * engine's recent_count). A generation per zone keeps a listing out when a POST applied to the zone after it began.
 */
struct zone_listing {
	size_t rrsets;
	double at;              /* the listing's start, on the engine's clock */
	unsigned long gen;      /* bumped by each apply that wrote to the zone */
	int known;
};
/* Set up the listings (opts: listing_max_age, since version 6). @return 0 or DNSB_ENOMEM */
int dnsb_webhook_listings_init(dnsb_webhook *wh, const dnsb_webhook_options *opts);
void dnsb_webhook_listings_free(dnsb_webhook *wh);
/* A listing of zone index z starts: @return its generation, for dnsb_webhook_listing_note */
unsigned long dnsb_webhook_listing_begin(dnsb_webhook *wh, size_t z);
/* Keep the count of a listing that began at `at` with generation `gen` (dropped when the zone was written since). */
void dnsb_webhook_listing_note(dnsb_webhook *wh, size_t z, unsigned long gen, double at, size_t rrsets);
/* An apply wrote to the zones marked in `touched` (zone_count flags): their listings are stale. */
void dnsb_webhook_listing_forget(dnsb_webhook *wh, const unsigned char *touched);
/* dnsb_engine_options.recent_count (payload: the webhook): the count of `zone`'s listing when it began at most
 * listing_max_age before `now` and no apply wrote to the zone since. @return 1 with *rrsets, else 0 */
int dnsb_webhook_recent_count(void *payload, const char *zone, double now, size_t *rrsets);

/* dispatch.c: the route of a URL path. */
enum dnsb_webhook_route dnsb_webhook_route_of(const char *url);
/* dispatch.c: a request's headers are in, its body (if any) is not: answer it now, setting req->refused
 * (its body is never read, the connection closes after the reply), when the provider port's checks refuse
 * it (421, 415), when its Content-Length is over the cap (413), or when it announces a body its route does
 * not read. @return MHD_YES, answered or not (see req->refused); MHD_NO when a reply could not be queued */
enum MHD_Result dnsb_webhook_dispatch_headers(struct MHD_Connection *conn, struct listener *l, struct request *req);
/* dispatch.c: a request to its handler: a complete one that passed dnsb_webhook_dispatch_headers, or one
 * that function answers early. */
enum MHD_Result dnsb_webhook_dispatch(struct MHD_Connection *conn, struct listener *l, struct request *req);
/* dispatch.c: is `host` (a Host header, may be NULL) a loopback name or address, or an --allowed-host? */
int dnsb_webhook_host_allowed(const dnsb_webhook *wh, const char *host);
/* dispatch.c: log a 415 or 421 refusal, the first of each kind only (they may come in floods). */
void dnsb_webhook_log_refusal(dnsb_webhook *wh, unsigned status, const char *why);

/* conns.c: libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION callback (cls: the listener). */
void dnsb_webhook_on_connection(void *cls, struct MHD_Connection *mc, void **ctx,
				enum MHD_ConnectionNotificationCode code);
/* conns.c: a request started (1) or its reply went out (0) on this connection. */
void dnsb_webhook_conn_busy(struct listener *l, struct MHD_Connection *mc, int busy);
/* conns.c: the request in progress on this connection: its request line ended (0), or it is in whole
 * or answered before its body (1); from then on the reaper leaves it alone. */
void dnsb_webhook_conn_progress(struct listener *l, struct MHD_Connection *mc, int received);
/* conns.c: the reaper thread (arg: the dnsb_webhook): shuts down connections whose request has not
 * arrived whole within request_timeout; ends when the server is stopping. */
void *dnsb_webhook_reaper_main(void *arg);

/* reply.c: answer a request; every reply is counted in the sidecar's metrics. */
enum MHD_Result dnsb_webhook_reply(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req,
				   unsigned status, const char *content_type, const char *body, size_t len);
enum MHD_Result dnsb_webhook_reply_text(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req,
					unsigned status, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
enum MHD_Result dnsb_webhook_reply_json(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req,
					struct json_object *obj);
/* reply.c: count one reply in the sidecar's metrics (route, method, status, seconds since `start`, monotonic). */
void dnsb_webhook_count_reply(dnsb_webhook *wh, enum dnsb_webhook_route route, enum method method, unsigned status,
			      double start);

/* One listed zone of GET /records: the provider's listing and, per RRset, whether it is returned. */
struct stream_zone {
	dnsb_rrset_list list;
	unsigned char *keep;       /* list.count flags (dnsb_webhook_scope) */
};
/* stream.c: free a zone's listing and flags (the struct stays, empty). */
void dnsb_webhook_stream_zone_clear(struct stream_zone *z);
/* stream.c: answer 200 with the Endpoints of `zones` (an array of zone_count, taken: freed as they are
 * written, or when the client leaves) streamed in the webhook media type, counted in the metrics when
 * the reply ends. @return MHD_YES, MHD_NO when the reply could not be queued */
enum MHD_Result dnsb_webhook_reply_records(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req,
					   struct stream_zone *zones, size_t zone_count);

/* The routes (adjust.c, records.c, apply.c, health.c). */
enum MHD_Result dnsb_webhook_handle_negotiate(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req);
enum MHD_Result dnsb_webhook_handle_adjust(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req);
enum MHD_Result dnsb_webhook_handle_records_get(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req);
enum MHD_Result dnsb_webhook_handle_records_post(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req);
enum MHD_Result dnsb_webhook_handle_healthz(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req);
enum MHD_Result dnsb_webhook_handle_metrics(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req);
enum MHD_Result dnsb_webhook_handle_quarantine(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req);
/* release.c: POST /release?digest=D (dnsbatch/threshold.h, dnsb_release_grant): 200, 400 (no or bad digest),
 * 404 (no held set has it) or 409 (the thresholds hold nothing here: no release store). */
enum MHD_Result dnsb_webhook_handle_release(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req);

struct dnsb_provider_limits;

/* alias.c: for a provider that stores aliases, is the desired endpoint `ep` a CNAME to answer as an
 * A and an AAAA alias? Then *a and *aaaa receive those two (new references, marked alias=true).
 * @return 1 split, 0 not (both NULL), DNSB_ENOMEM */
int dnsb_webhook_alias_split(struct json_object *ep, const struct dnsb_provider_limits *limits, struct json_object **a,
			     struct json_object **aaaa);

/* adjust.c: free the names logged as unsupported (release). */
void dnsb_webhook_unsupported_clear(dnsb_webhook *wh);

/* ready.c: the provider answered (a read, a list or an apply): /healthz turns ready. */
void dnsb_webhook_set_ready(dnsb_webhook *wh, const char *why);
/* health.c: the readiness probe thread (arg: the dnsb_webhook). */
void *dnsb_webhook_probe_main(void *arg);
/* scope.c: keep[i] = does GET /records return list->items[i] under `filter` (NULL: all but SOA and
 * DNSSEC types)? Ownership TXT records of in-scope names are kept, those of a wildcard written with
 * `wildcard` (external-dns's --txt-wildcard-replacement, lower case; NULL or "": none) for its "*"
 * too. @return 0 or DNSB_ENOMEM */
int dnsb_webhook_scope(unsigned char *keep, const dnsb_domain_filter *filter, const dnsb_rrset_list *list,
		       const char *wildcard);
/* ready.c: a provider call's return code as a metrics class label. */
const char *dnsb_webhook_class_of(int rc);
/* health.c: refresh dnsbatch_quarantined_groups (after an apply, and for /metrics). */
void dnsb_webhook_update_quarantine_gauge(dnsb_webhook *wh);

/* listen.c: a listen address, "HOST:PORT", "[V6]:PORT" or ":PORT" (every IPv4 interface), split. */
struct dnsb_listen_spec {
	char host[256];    /* the address or host name, without brackets; "" for ":PORT" */
	unsigned port;     /* 0 to 65535; 0 asks the kernel for a free port */
};
/* Split `spec` (borrowed) into *out. Returns 0, or DNSB_EINVAL with a message quoting spec in err. */
int dnsb_webhook_listen_split(struct dnsb_listen_spec *out, const char *spec, dnsb_error *err);
/* Split and resolve `spec` (getaddrinfo: may look a host name up) into the first socket address, *outlen its length
 * and *v6 set when it is IPv6. Returns 0, or DNSB_EINVAL (bad syntax, unknown host) with a message quoting spec. */
int dnsb_webhook_listen_resolve(struct sockaddr_storage *out, socklen_t *outlen, int *v6, const char *spec,
				dnsb_error *err);

#endif
