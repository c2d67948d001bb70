/*
 * http.c - the HTTP client every HTTP provider shares: one libcurl share
 * handle per provider holding its connection cache (keep-alive), DNS cache
 * and TLS sessions, and a fresh easy handle for each request, one request at
 * a time under a mutex; a timeout from the caller's time left, TLS always
 * verified, the body kept within a cap, the headers read with libcurl's
 * header API, every counted request through the throttle chain. Requests
 * side by side (dnsb_http_many, http_many.c) share the handle set-up and the
 * reading of a reply (http_xfer.c).
 *
 * A fresh easy handle, not one reset between requests: libcurl 7.88.1
 * (Debian 12) reads freed memory on a reused easy handle when a later
 * reply's first header line starts with a space (curl issue #11101, fixed in
 * 8.1.0; found by fuzz_http). No state of one reply survives into the next;
 * the connections do, in the share.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "dnsbatch/common.h"
#include "dnsbatch/version.h"
#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "applier/net/http.h"
#include "applier/net/http_xfer.h"
#include "applier/net/ratelimit.h"
#include "applier/net/throttle.h"


static void share_lock(CURL *c, curl_lock_data data, curl_lock_access access, void *userp)
{
	(void)c;
	(void)access;
	pthread_mutex_lock(&((dnsb_http *)userp)->share_locks[data]);
}

static void share_unlock(CURL *c, curl_lock_data data, void *userp)
{
	(void)c;
	pthread_mutex_unlock(&((dnsb_http *)userp)->share_locks[data]);
}

/* The share handle of h: what it holds, and its locks. @return it, or NULL (out of memory) */
static CURLSH *share_new(dnsb_http *h)
{
	CURLSH *s = curl_share_init();

	if (s == NULL)
		return NULL;
	if (curl_share_setopt(s, CURLSHOPT_LOCKFUNC, share_lock) != CURLSHE_OK ||
	    curl_share_setopt(s, CURLSHOPT_UNLOCKFUNC, share_unlock) != CURLSHE_OK ||
	    curl_share_setopt(s, CURLSHOPT_USERDATA, h) != CURLSHE_OK ||
	    curl_share_setopt(s, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT) != CURLSHE_OK ||
	    curl_share_setopt(s, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) != CURLSHE_OK ||
	    curl_share_setopt(s, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK) {
		curl_share_cleanup(s);
		return NULL;
	}
	return s;
}

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int dnsb_http_new(dnsb_http **out, const dnsb_http_options *opts, dnsb_error *err)
{
	static const dnsb_http_options defaults = DNSB_HTTP_OPTIONS_INIT;
	dnsb_http *h;

	*out = NULL;
	if (opts == NULL)
		opts = &defaults;
	if (opts->version != DNSB_HTTP_OPTIONS_VERSION)
		return dnsb_error_set(err, DNSB_EINVAL, "http: options version %u, expected %u", opts->version,
				      DNSB_HTTP_OPTIONS_VERSION);
	if (!(opts->timeout > 0) || !(opts->connect_timeout > 0))
		return dnsb_error_set(err, DNSB_EINVAL, "http: timeouts must be more than 0 seconds");
	if (opts->ca_file && access(opts->ca_file, R_OK) != 0)
		return dnsb_error_set(err, DNSB_EINVAL, "CA file %s: %s", opts->ca_file, strerror(errno));
	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK)
		return dnsb_error_set(err, DNSB_ERROR, "libcurl: %s", curl_easy_strerror(global_rc));
	if ((h = calloc(1, sizeof(*h))) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	h->timeout = opts->timeout;
	h->connect_timeout = opts->connect_timeout;
	h->max_body = opts->max_body ? opts->max_body : defaults.max_body;
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->multi_lock, NULL);
	pthread_mutex_init(&h->hold_lock, NULL);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_init(&h->share_locks[i], NULL);
	h->share = share_new(h);
	h->ca_file = opts->ca_file ? strdup(opts->ca_file) : NULL;
	h->user_agent = strdup(opts->user_agent ? opts->user_agent : "dnsbatch/" DNSBATCH_VERSION);
	if (h->share == NULL || (opts->ca_file && h->ca_file == NULL) || h->user_agent == NULL) {
		dnsb_http_free(h);
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	*out = h;
	return 0;
}

void dnsb_http_free(dnsb_http *h)
{
	if (h == NULL)
		return;
	if (h->share)
		curl_share_cleanup(h->share); /* no easy handle outlives its request: nothing holds it */
	free(h->ca_file);
	free(h->user_agent);
	if (h->multi)
		curl_multi_cleanup(h->multi);
	pthread_mutex_destroy(&h->lock);
	pthread_mutex_destroy(&h->multi_lock);
	pthread_mutex_destroy(&h->hold_lock);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_destroy(&h->share_locks[i]);
	free(h);
}

unsigned long dnsb_http_connections(dnsb_http *h)
{
	return atomic_load(&h->connections);
}

unsigned long dnsb_http_requests(dnsb_http *h)
{
	return atomic_load(&h->requests);
}

char *dnsb_http_escape(const char *s)
{
	/* The handle argument is ignored since curl 7.82. */
	char *e = curl_easy_escape(NULL, s, 0), *copy;

	if (e == NULL)
		return NULL;
	copy = strdup(e);
	curl_free(e);
	return copy;
}

/* ---- one request at a time ---- */

/* Wait for the handle until `give_up` (monotonic; 0 = forever). @return 0 or ETIMEDOUT */
static int lock_until(dnsb_http *h, double give_up)
{
	struct timespec ts;
	double left;

	if (give_up <= 0)
		return pthread_mutex_lock(&h->lock);
	left = give_up - dnsb_monotonic();
	if (left <= 0)
		return pthread_mutex_trylock(&h->lock) == 0 ? 0 : ETIMEDOUT;
	ts = dnsb_wall_deadline(left);
	return pthread_mutex_timedlock(&h->lock, &ts);
}

/* Sleep a wait of the chain; a stop (a signal) ends it: not sent. @return 0 or DNSB_ERATELIMIT */
static int chain_sleep(dnsb_http *h, const dnsb_http_request *req, double wait, dnsb_http_response *out,
		       dnsb_error *err)
{
	if (!(wait > 0) || !dnsb_stop_sleep(wait))
		return 0;
	out->retry_after = wait;
	dnsb_http_hold(h, wait);
	return dnsb_error_set(err, DNSB_ERATELIMIT, "%s %s: not sent: the apply was stopped while the rate limit "
			      "held it back", req->method, req->url);
}

/* The throttle chain's slots, waited for: the pacer's, then the budget's. @return 0; DNSB_ERATELIMIT (out->retry_after) */
static int throttle_wait(dnsb_http *h, const dnsb_http_request *req, double start, double limit,
			 dnsb_http_response *out, dnsb_error *err)
{
	double give_up = req->time_left > 0 ? start + req->time_left : 0, wait, left;
	int rc;

	if (dnsb_throttle_pace(&h->throttle, req->method, start, give_up, &wait, err) != 0) {
		out->retry_after = wait;
		dnsb_http_hold(h, wait);
		return DNSB_ERATELIMIT;
	}
	if ((rc = chain_sleep(h, req, wait, out, err)) != 0)
		return rc;
	left = req->time_left > 0 ? limit - (dnsb_monotonic() - start) : 0;
	if (req->time_left > 0 && left <= 0.001)
		left = 0.001;
	if (dnsb_throttle_budget(&h->throttle, req->method, req->url, left, &wait, err) != 0) {
		out->retry_after = -1;
		return DNSB_ERATELIMIT;
	}
	return chain_sleep(h, req, wait, out, err);
}

static int do_request(dnsb_http *h, const dnsb_http_request *req, const dnsb_http_sigv4 *sign, int counted,
		      dnsb_http_response *out, dnsb_error *err)
{
	double start = dnsb_monotonic(), limit = h->timeout, seconds;
	dnsb_http_xfer x = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	if (req->method == NULL || req->url == NULL || req->method[0] == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "http: a request needs a method and a URL");
	if (req->time_left > 0 && req->time_left < limit)
		limit = req->time_left;
	if (counted && (rc = throttle_wait(h, req, start, limit, out, err)) != 0)
		return rc;
	if (lock_until(h, req->time_left > 0 ? start + limit : 0) != 0)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s %s: no time left (%.3g s) while other requests held the connection",
				      req->method, req->url, limit);
	seconds = limit - (dnsb_monotonic() - start);
	if (seconds <= 0.001) {
		pthread_mutex_unlock(&h->lock);
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s %s: no time left (%.3g s)", req->method, req->url, limit);
	}
	x.start = start;
	if ((rc = dnsb_http_xfer_setup(h, &x, req, sign, 1, seconds, err)) == 0) {
		CURLcode code;
		atomic_fetch_add(&h->requests, 1);
		code = curl_easy_perform(x.curl);
		rc = dnsb_http_xfer_finish(h, &x, code, req, out, err);
	}
	pthread_mutex_unlock(&h->lock);
	if (rc == 0 && counted)
		dnsb_throttle_note(&h->throttle, req->method, out, dnsb_monotonic());
	return rc;
}

int dnsb_http_do(dnsb_http *h, const dnsb_http_request *req, dnsb_http_response *out, dnsb_error *err)
{
	return do_request(h, req, NULL, 1, out, err);
}

int dnsb_http_do_uncounted(dnsb_http *h, const dnsb_http_request *req, dnsb_http_response *out, dnsb_error *err)
{
	return do_request(h, req, NULL, 0, out, err);
}

int dnsb_http_do_sigv4(dnsb_http *h, const dnsb_http_request *req, const dnsb_http_sigv4 *sign, dnsb_http_response *out,
		       dnsb_error *err)
{
	if (sign == NULL || sign->provider == NULL || sign->userpwd == NULL) {
		memset(out, 0, sizeof(*out));
		return dnsb_error_set(err, DNSB_EINVAL, "http: a signed request needs a provider and credentials");
	}
	return do_request(h, req, sign, 1, out, err);
}

void dnsb_http_set_budget(dnsb_http *h, dnsb_budget *budget)
{
	h->throttle.budget = budget;
}

void dnsb_http_set_pacer(dnsb_http *h, const dnsb_pacer *pacer)
{
	if (pacer)
		h->throttle.pacer = *pacer;
	else
		memset(&h->throttle.pacer, 0, sizeof(h->throttle.pacer));
}

void dnsb_http_throttled(dnsb_http *h)
{
	dnsb_throttle_throttled(&h->throttle);
}

void dnsb_http_hold(dnsb_http *h, double seconds)
{
	double until;

	if (!(seconds > 0))
		return;
	until = dnsb_monotonic() + seconds;
	pthread_mutex_lock(&h->hold_lock);
	if (until > h->held_until)
		h->held_until = until;
	pthread_mutex_unlock(&h->hold_lock);
}

double dnsb_http_held(dnsb_http *h)
{
	double left;

	pthread_mutex_lock(&h->hold_lock);
	left = h->held_until - dnsb_monotonic();
	pthread_mutex_unlock(&h->hold_lock);
	return left > 0 ? left : -1;
}
