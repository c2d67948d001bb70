/*
 * applier/net/http_xfer.h - the inside of the HTTP transport, shared by
 * http.c (the client), http_xfer.c (one transfer: its easy handle, its
 * reply) and http_many.c (transfers side by side). Not installed; backends
 * use applier/net/http.h.
 */
#ifndef DNSBATCH_PROVIDERS_HTTP_XFER_H
#define DNSBATCH_PROVIDERS_HTTP_XFER_H

#include <pthread.h>
#include <stdatomic.h>

#include <curl/curl.h>

#include "applier/net/http.h"
#include "applier/net/throttle.h"

struct dnsb_http {
	pthread_mutex_t lock;      /* one request at a time (dnsb_http_do) */
	CURLSH *share;             /* connections, DNS, TLS sessions: they outlive each request's easy handle */
	pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST]; /* one per kind of shared data (libcurl's rule) */
	pthread_mutex_t multi_lock; /* one dnsb_http_many at a time */
	CURLM *multi;              /* dnsb_http_many's handle and its own connection cache; NULL until used */
	double timeout, connect_timeout;
	char *ca_file;             /* NULL = the system's CAs */
	char *user_agent;
	size_t max_body;
	_Atomic unsigned long connections;
	_Atomic unsigned long requests;
	dnsb_throttle throttle;    /* the chain every counted request passes */
	pthread_mutex_t hold_lock; /* guards held_until */
	double held_until;         /* monotonic: when the longest hold recorded ends (dnsb_http_hold) */
};

/** One transfer: its easy handle, request headers, and what came back so far. */
typedef struct dnsb_http_xfer {
	CURL *curl;
	struct curl_slist *headers;
	char *body;
	size_t len, cap, max;
	int truncated, oom;
	char errbuf[CURL_ERROR_SIZE];
	double seconds;            /* its timeout */
	double start;              /* monotonic, when it was asked for */
} dnsb_http_xfer;

/**
 * The easy handle of one request, every option set (TLS verified, the
 * client's User-Agent, Accept-Encoding, keepalive, timeouts).
 * @param shared  1: through the client's share (one request at a time); 0:
 *                for the multi handle (its own connection cache, HTTP/2 wait)
 * @param seconds the request's timeout, > 0
 * @return 0; DNSB_ENOMEM; DNSB_EINVAL for an option libcurl refuses (err names it); x freed on an error
 */
int dnsb_http_xfer_setup(dnsb_http *h, dnsb_http_xfer *x, const dnsb_http_request *req, const dnsb_http_sigv4 *sign,
			 int shared, double seconds, dnsb_error *err);

/**
 * A finished transfer into a response (status, body, headers read with
 * curl_easy_header) or an error, then the handle freed.
 * @param code  the transfer's CURLcode
 * @return 0 with out filled; a DNSB_E* code as dnsb_http_do with err set (out zeroed)
 */
int dnsb_http_xfer_finish(dnsb_http *h, dnsb_http_xfer *x, CURLcode code, const dnsb_http_request *req,
			  dnsb_http_response *out, dnsb_error *err);

/** Free a transfer's handle and buffers (not yet finished). */
void dnsb_http_xfer_free(dnsb_http_xfer *x);

#endif
