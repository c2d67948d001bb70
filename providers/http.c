/*
 * http.c - the HTTP client every HTTP provider shares: one libcurl share
 * handle per provider holding its connection cache (keep-alive), DNS cache
 * and TLS sessions, and a fresh easy handle for each request, one request at
 * a time under a mutex; a timeout from the caller's time left, TLS always
 * verified, the body kept within a cap, Retry-After, Content-Type and
 * RateLimit(-Policy) read from the headers.
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
#include "providers/http.h"
#include "providers/ratelimit.h"

struct dnsb_http {
	pthread_mutex_t lock;      /* one request at a time */
	CURLSH *share;             /* connections, DNS, TLS sessions: they outlive each request's easy handle */
	pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST]; /* one per kind of shared data (libcurl's rule) */
	double timeout, connect_timeout;
	char *ca_file;             /* NULL = the system's CAs */
	char *user_agent;
	size_t max_body;
	_Atomic unsigned long connections;
	_Atomic unsigned long requests;
	dnsb_budget *budget;       /* borrowed: every counted request takes a token; NULL = none */
};

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
	pthread_mutex_destroy(&h->lock);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_destroy(&h->share_locks[i]);
	free(h);
}

void dnsb_http_response_clear(dnsb_http_response *resp)
{
	if (resp == NULL)
		return;
	free(resp->body);
	memset(resp, 0, sizeof(*resp));
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

double dnsb_http_retry_after(const char *value, time_t now)
{
	char buf[128];
	size_t len;
	time_t when;

	while (isspace((unsigned char)*value))
		value++;
	len = strlen(value);
	while (len > 0 && isspace((unsigned char)value[len - 1]))
		len--;
	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, value, len);
	buf[len] = '\0';
	if (strspn(buf, "0123456789") == len) {
		double secs = strtod(buf, NULL);
		return isfinite(secs) ? secs : -1;
	}
	if ((when = curl_getdate(buf, NULL)) == -1)
		return -1;
	return when > now ? (double)(when - now) : 0;
}

int dnsb_http_is_json(const char *content_type)
{
	size_t len = strcspn(content_type, ";");

	while (len > 0 && isspace((unsigned char)content_type[len - 1]))
		len--;
	if (len == 16 && strncasecmp(content_type, "application/json", 16) == 0)
		return 1;
	return len > 17 && strncasecmp(content_type, "application/", 12) == 0 &&
	       strncasecmp(content_type + len - 5, "+json", 5) == 0;
}

int dnsb_http_json(json_object **out, const dnsb_http_response *resp, dnsb_error *err)
{
	json_tokener *tok;
	json_object *doc;
	enum json_tokener_error jerr;

	*out = NULL;
	if (!dnsb_http_is_json(resp->content_type))
		return dnsb_error_set(err, DNSB_EPARSE, "HTTP %ld with Content-Type '%s', not JSON", resp->status,
				      resp->content_type[0] ? resp->content_type : "(none)");
	if (resp->truncated)
		return dnsb_error_set(err, DNSB_EPARSE, "HTTP %ld: the JSON body is longer than the %zu bytes kept",
				      resp->status, resp->body_len);
	if ((tok = json_tokener_new()) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	doc = json_tokener_parse_ex(tok, resp->body, (int)resp->body_len);
	jerr = json_tokener_get_error(tok);
	if (doc != NULL && jerr == json_tokener_success && json_tokener_get_parse_end(tok) < resp->body_len) {
		/* Only white space may follow the document. */
		for (size_t i = json_tokener_get_parse_end(tok); i < resp->body_len; i++)
			if (!isspace((unsigned char)resp->body[i]))
				jerr = json_tokener_error_parse_unexpected;
	}
	json_tokener_free(tok);
	if (doc == NULL || jerr != json_tokener_success) {
		json_object_put(doc);
		return dnsb_error_set(err, DNSB_EPARSE, "HTTP %ld: the body is not JSON (%s)", resp->status,
				      doc == NULL && jerr == json_tokener_continue ? "cut short" :
										json_tokener_error_desc(jerr));
	}
	*out = doc;
	return 0;
}

/* ---- one exchange ---- */

typedef struct exchange {
	char *body;
	size_t len, cap, max;
	int truncated, oom;
	char content_type[128];
	char retry_after[128];
	char ratelimit[160], ratelimit_policy[160];
	char ratelimit_next[64];  /* Akamai's X-RateLimit-Next: an ISO 8601 time */
} exchange;

static size_t on_body(char *data, size_t size, size_t nmemb, void *payload)
{
	exchange *x = payload;
	size_t n = size * nmemb, keep = n;

	if (x->len + keep > x->max) {
		keep = x->max - x->len;
		x->truncated = 1;
	}
	if (keep > 0 && x->len + keep + 1 > x->cap) {
		size_t cap = x->cap ? x->cap : 4096;
		char *grown;
		while (cap < x->len + keep + 1)
			cap *= 2;
		if ((grown = realloc(x->body, cap)) == NULL) {
			x->oom = 1;
			return 0; /* abort the transfer */
		}
		x->body = grown;
		x->cap = cap;
	}
	if (keep > 0) {
		memcpy(x->body + x->len, data, keep);
		x->len += keep;
		x->body[x->len] = '\0';
	}
	return n; /* the rest of an over-long body is read and discarded: the connection stays usable */
}

/* Copy a header's value (after "Name:"), trimmed, into dst. */
void dnsb_http_header_value(char *dst, size_t dstlen, const char *v, size_t len)
{
	while (len > 0 && isspace((unsigned char)*v))
		v++, len--;
	while (len > 0 && isspace((unsigned char)v[len - 1]))
		len--;
	if (len >= dstlen)
		len = dstlen - 1;
	memcpy(dst, v, len);
	dst[len] = '\0';
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *payload)
{
	exchange *x = payload;
	size_t n = size * nmemb;

	/* A new status line (after a 100 Continue) starts a new set of headers. */
	if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) {
		x->content_type[0] = x->retry_after[0] = x->ratelimit[0] = x->ratelimit_policy[0] = '\0';
		x->ratelimit_next[0] = '\0';
	} else if (n > 17 && strncasecmp(data, "X-RateLimit-Next:", 17) == 0) {
		dnsb_http_header_value(x->ratelimit_next, sizeof(x->ratelimit_next), data + 17, n - 17);
	} else if (n > 17 && strncasecmp(data, "RateLimit-Policy:", 17) == 0) {
		dnsb_http_header_value(x->ratelimit_policy, sizeof(x->ratelimit_policy), data + 17, n - 17);
	} else if (n > 10 && strncasecmp(data, "RateLimit:", 10) == 0) {
		dnsb_http_header_value(x->ratelimit, sizeof(x->ratelimit), data + 10, n - 10);
	} else if (n > 13 && strncasecmp(data, "Content-Type:", 13) == 0) {
		dnsb_http_header_value(x->content_type, sizeof(x->content_type), data + 13, n - 13);
	} else if (n > 12 && strncasecmp(data, "Retry-After:", 12) == 0) {
		dnsb_http_header_value(x->retry_after, sizeof(x->retry_after), data + 12, n - 12);
	}
	return n;
}

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

/* The class of a libcurl failure (see dnsb_http_do). */
static int curl_failure_code(CURLcode rc)
{
	switch (rc) {
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_SSL_ENGINE_INITFAILED:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_USE_SSL_FAILED:
		return DNSB_EFATAL;
	case CURLE_URL_MALFORMAT:
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_BAD_FUNCTION_ARGUMENT:
		return DNSB_EINVAL;
	case CURLE_OUT_OF_MEMORY:
		return DNSB_ENOMEM;
	default:
		return DNSB_ETRANSIENT;
	}
}

/* Set every option of one request on its fresh easy handle c. @return 0 or a CURLcode */
static CURLcode set_options(dnsb_http *h, CURL *c, const dnsb_http_request *req, const dnsb_http_sigv4 *sign,
			    struct curl_slist *headers, exchange *x, double seconds, char *errbuf)
{
	long ms = (long)ceil(seconds * 1000), cms = (long)ceil(fmin(seconds, h->connect_timeout) * 1000);
	CURLcode rc = CURLE_OK;

#define SET(opt, val) \
	do { \
		if (rc == CURLE_OK) \
			rc = curl_easy_setopt(c, opt, val); \
	} while (0)
	SET(CURLOPT_SHARE, h->share);
	SET(CURLOPT_ERRORBUFFER, errbuf);
	SET(CURLOPT_URL, req->url);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_SSL_VERIFYPEER, 1L);
	SET(CURLOPT_SSL_VERIFYHOST, 2L);
	if (h->ca_file) {
		SET(CURLOPT_CAINFO, h->ca_file);
		SET(CURLOPT_CAPATH, (char *)NULL); /* trust exactly the named file */
	}
	SET(CURLOPT_TIMEOUT_MS, ms > 0 ? ms : 1L);
	SET(CURLOPT_CONNECTTIMEOUT_MS, cms > 0 ? cms : 1L);
	SET(CURLOPT_TCP_KEEPALIVE, 1L);
	SET(CURLOPT_USERAGENT, h->user_agent);
	SET(CURLOPT_ACCEPT_ENCODING, "");
	SET(CURLOPT_HTTPHEADER, headers);
	if (sign) {
		/* This request's handle only: only this one is signed. */
		SET(CURLOPT_AWS_SIGV4, sign->provider);
		SET(CURLOPT_USERPWD, sign->userpwd);
	}
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, x);
	SET(CURLOPT_HEADERFUNCTION, on_header);
	SET(CURLOPT_HEADERDATA, x);
	if (strcmp(req->method, "GET") == 0) {
		SET(CURLOPT_HTTPGET, 1L);
	} else {
		if (strcmp(req->method, "POST") == 0)
			SET(CURLOPT_POST, 1L);
		else
			SET(CURLOPT_CUSTOMREQUEST, req->method);
		SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(req->body ? req->body_len : 0));
		SET(CURLOPT_POSTFIELDS, req->body ? req->body : "");
	}
#undef SET
	return rc;
}

/*
 * Request headers: the caller's, plus an empty Expect (no 1 s wait for "100 Continue"). Not on a
 * SigV4 request: libcurl would sign "expect:" as an empty header it never sends, and the service
 * would compute another signature; that list starts with the Accept libcurl sends anyway.
 */
static struct curl_slist *build_headers(const dnsb_http_request *req, const dnsb_http_sigv4 *sign)
{
	struct curl_slist *list = curl_slist_append(NULL, sign ? "Accept: */*" : "Expect:"), *next;

	for (size_t i = 0; list && req->headers && req->headers[i]; i++) {
		if ((next = curl_slist_append(list, req->headers[i])) == NULL) {
			curl_slist_free_all(list);
			return NULL;
		}
		list = next;
	}
	return list;
}

/* Perform on the locked handle. @return 0 or a DNSB_E* code with err set */
static int perform(dnsb_http *h, const dnsb_http_request *req, const dnsb_http_sigv4 *sign, double seconds,
		   exchange *x, long *status, dnsb_error *err)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *headers = build_headers(req, sign);
	CURL *c = headers ? curl_easy_init() : NULL;
	long connects = 0;
	CURLcode rc;

	if (c == NULL) {
		curl_slist_free_all(headers);
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	rc = set_options(h, c, req, sign, headers, x, seconds, errbuf);
	if (rc == CURLE_OK) {
		atomic_fetch_add(&h->requests, 1);
		rc = curl_easy_perform(c);
		if (curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK && connects > 0)
			atomic_fetch_add(&h->connections, (unsigned long)connects);
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	}
	curl_easy_cleanup(c); /* its connection stays in the share, for the next request */
	curl_slist_free_all(headers);
	if (x->oom)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory reading the reply of %s %s", req->method, req->url);
	if (rc == CURLE_OPERATION_TIMEDOUT)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s %s: no complete reply within %.3g s", req->method,
				      req->url, seconds);
	if (rc != CURLE_OK)
		return dnsb_error_set(err, curl_failure_code(rc), "%s %s: %s", req->method, req->url,
				      errbuf[0] ? errbuf : curl_easy_strerror(rc));
	return 0;
}

static int do_request(dnsb_http *h, const dnsb_http_request *req, const dnsb_http_sigv4 *sign, int counted,
		      dnsb_http_response *out, dnsb_error *err)
{
	double start = dnsb_monotonic(), limit = h->timeout, seconds;
	exchange x = { 0 };
	long status = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (req->method == NULL || req->url == NULL || req->method[0] == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "http: a request needs a method and a URL");
	if (req->time_left > 0 && req->time_left < limit)
		limit = req->time_left;
	if (h->budget && counted && dnsb_budget_take(h->budget, req->time_left > 0 ? limit : 0, NULL) < 0)
		return dnsb_error_set(err, DNSB_ERATELIMIT, "%s %s: not sent: the account's rate budget has no request "
				      "slot within the %.3g s left", req->method, req->url, limit);
	x.max = h->max_body;
	if (lock_until(h, req->time_left > 0 ? start + limit : 0) != 0)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s %s: no time left (%.3g s) while other requests held the connection",
				      req->method, req->url, limit);
	seconds = limit - (dnsb_monotonic() - start);
	if (seconds <= 0.001) {
		pthread_mutex_unlock(&h->lock);
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s %s: no time left (%.3g s)", req->method, req->url, limit);
	}
	rc = perform(h, req, sign, seconds, &x, &status, err);
	pthread_mutex_unlock(&h->lock);
	if (rc == 0 && x.body == NULL && (x.body = strdup("")) == NULL)
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if (rc != 0) {
		free(x.body);
		return rc;
	}
	if (status == 429 && h->budget)
		dnsb_budget_throttled(h->budget);
	out->status = status;
	out->body = x.body;
	out->body_len = x.len;
	out->truncated = x.truncated;
	memcpy(out->content_type, x.content_type, sizeof(out->content_type));
	memcpy(out->ratelimit, x.ratelimit, sizeof(out->ratelimit));
	memcpy(out->ratelimit_policy, x.ratelimit_policy, sizeof(out->ratelimit_policy));
	out->retry_after = x.retry_after[0] ? dnsb_http_retry_after(x.retry_after, (time_t)dnsb_clock_wall(NULL)) : -1;
	if (out->retry_after < 0 && x.ratelimit_next[0]) /* Akamai: when the next request is allowed */
		out->retry_after = dnsb_http_ratelimit_next(x.ratelimit_next, (time_t)dnsb_clock_wall(NULL));
	out->seconds = dnsb_monotonic() - start;
	return 0;
}

double dnsb_http_ratelimit_next(const char *value, time_t now)
{
	struct tm tm;
	const char *rest;

	memset(&tm, 0, sizeof(tm));
	if ((rest = strptime(value, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL)
		return -1;
	rest += strspn(rest, ".0123456789"); /* fractions of a second: the wait is rounded up below */
	if (*rest != 'Z' && strncmp(rest, "+00:00", 6) != 0)
		return -1;
	return timegm(&tm) + 1 > now ? (double)(timegm(&tm) + 1 - now) : 0;
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
	h->budget = budget;
}

void dnsb_http_throttled(dnsb_http *h)
{
	if (h->budget)
		dnsb_budget_throttled(h->budget);
}
