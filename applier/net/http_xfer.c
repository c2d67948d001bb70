/*
 * http_xfer.c - one transfer of the HTTP transport: its fresh easy handle
 * with every option set (and every setopt checked), the body kept within
 * the client's cap, and the reply read: the status, the body, and the
 * headers of the last response through libcurl's header API
 * (curl_easy_nextheader; a 100 Continue's are not among them).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "applier/core/clock.h"
#include "applier/net/http_xfer.h"

static size_t on_body(char *data, size_t size, size_t nmemb, void *payload)
{
	dnsb_http_xfer *x = payload;
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

/* Every option of one request on its fresh easy handle. @return 0 or a CURLcode */
static CURLcode set_options(dnsb_http *h, dnsb_http_xfer *x, const dnsb_http_request *req, const dnsb_http_sigv4 *sign,
			    int shared)
{
	CURL *c = x->curl;
	long ms = (long)ceil(x->seconds * 1000), cms = (long)ceil(fmin(x->seconds, h->connect_timeout) * 1000);
	CURLcode rc = CURLE_OK;

#define SET(opt, val) \
	do { \
		if (rc == CURLE_OK) \
			rc = curl_easy_setopt(c, opt, val); \
	} while (0)
	if (shared)
		SET(CURLOPT_SHARE, h->share);
	else
		SET(CURLOPT_PIPEWAIT, 1L); /* side by side: wait for a connection that multiplexes (HTTP/2) */
	SET(CURLOPT_PRIVATE, x);
	SET(CURLOPT_ERRORBUFFER, x->errbuf);
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
	SET(CURLOPT_HTTPHEADER, x->headers);
	if (sign) {
		/* This request's handle only: only this one is signed. */
		SET(CURLOPT_AWS_SIGV4, sign->provider);
		SET(CURLOPT_USERPWD, sign->userpwd);
	}
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, x);
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

void dnsb_http_xfer_free(dnsb_http_xfer *x)
{
	if (x->curl)
		curl_easy_cleanup(x->curl); /* a shared handle's connection stays in the share, for the next request */
	curl_slist_free_all(x->headers);
	free(x->body);
	x->curl = NULL;
	x->headers = NULL;
	x->body = NULL;
}

int dnsb_http_xfer_setup(dnsb_http *h, dnsb_http_xfer *x, const dnsb_http_request *req, const dnsb_http_sigv4 *sign,
			 int shared, double seconds, dnsb_error *err)
{
	CURLcode rc;

	x->max = h->max_body;
	x->seconds = seconds;
	if ((x->headers = build_headers(req, sign)) == NULL || (x->curl = curl_easy_init()) == NULL) {
		dnsb_http_xfer_free(x);
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	if ((rc = set_options(h, x, req, sign, shared)) != CURLE_OK) {
		dnsb_http_xfer_free(x);
		return dnsb_error_set(err, rc == CURLE_OUT_OF_MEMORY ? DNSB_ENOMEM : DNSB_EINVAL, "%s %s: libcurl refuses "
				      "an option: %s", req->method, req->url, curl_easy_strerror(rc));
	}
	return 0;
}

/* Every header of the last response, "name\0value\0" pairs, into out. @return 0 or DNSB_ENOMEM */
static int read_headers(CURL *c, dnsb_http_response *out)
{
	struct curl_header *prev = NULL, *hd;
	size_t cap = 0;

	while ((hd = curl_easy_nextheader(c, CURLH_HEADER, -1, prev)) != NULL) {
		size_t nl = strlen(hd->name) + 1, vl = strlen(hd->value) + 1;
		if (out->headers_len + nl + vl > cap) {
			size_t grown = cap ? cap : 1024;
			char *more;
			while (grown < out->headers_len + nl + vl)
				grown *= 2;
			if ((more = realloc(out->headers, grown)) == NULL)
				return DNSB_ENOMEM;
			out->headers = more;
			cap = grown;
		}
		memcpy(out->headers + out->headers_len, hd->name, nl);
		memcpy(out->headers + out->headers_len + nl, hd->value, vl);
		out->headers_len += nl + vl;
		prev = hd;
	}
	return 0;
}

/* A header's value into a fixed field, cut to its size ("" when absent). */
static void header_field(char *dst, size_t size, const dnsb_http_response *resp, const char *name)
{
	const char *v = dnsb_http_header(resp, name);

	dnsb_http_header_value(dst, size, v ? v : "", v ? strlen(v) : 0);
}

/* What a transfer that completed holds, into out. @return 0 or DNSB_ENOMEM */
static int take_reply(dnsb_http_xfer *x, dnsb_http_response *out)
{
	const char *retry_after;

	curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &out->status);
	if (read_headers(x->curl, out) != 0 || (x->body == NULL && (x->body = strdup("")) == NULL))
		return DNSB_ENOMEM;
	header_field(out->content_type, sizeof(out->content_type), out, "Content-Type");
	header_field(out->ratelimit, sizeof(out->ratelimit), out, "RateLimit");
	header_field(out->ratelimit_policy, sizeof(out->ratelimit_policy), out, "RateLimit-Policy");
	retry_after = dnsb_http_header(out, "Retry-After");
	out->retry_after = retry_after ? dnsb_http_retry_after(retry_after, (time_t)dnsb_clock_wall(NULL)) : -1;
	if (out->retry_after < 0 && (retry_after = dnsb_http_header(out, "X-RateLimit-Next")) != NULL) /* Akamai */
		out->retry_after = dnsb_http_ratelimit_next(retry_after, (time_t)dnsb_clock_wall(NULL));
	out->body = x->body;
	out->body_len = x->len;
	out->truncated = x->truncated;
	x->body = NULL;
	out->seconds = dnsb_monotonic() - x->start;
	return 0;
}

int dnsb_http_xfer_finish(dnsb_http *h, dnsb_http_xfer *x, CURLcode code, const dnsb_http_request *req,
			  dnsb_http_response *out, dnsb_error *err)
{
	long connects = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (curl_easy_getinfo(x->curl, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK && connects > 0)
		atomic_fetch_add(&h->connections, (unsigned long)connects);
	if (x->oom)
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory reading the reply of %s %s", req->method, req->url);
	else if (code == CURLE_OPERATION_TIMEDOUT)
		rc = dnsb_error_set(err, DNSB_ETRANSIENT, "%s %s: no complete reply within %.3g s", req->method, req->url,
				    x->seconds);
	else if (code != CURLE_OK)
		rc = dnsb_error_set(err, curl_failure_code(code), "%s %s: %s", req->method, req->url,
				    x->errbuf[0] ? x->errbuf : curl_easy_strerror(code));
	else if (take_reply(x, out) != 0)
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if (rc != 0)
		dnsb_http_response_clear(out);
	dnsb_http_xfer_free(x);
	return rc;
}
