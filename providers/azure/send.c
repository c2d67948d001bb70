/*
 * send.c - a batch's writes side by side: one libcurl multi handle (its
 * connection cache kept across submissions, HTTP/2 multiplexed where the
 * server offers it), at most --azure-max-in-flight transfers at a time.
 * Each write keeps its own reply whatever order the replies come in; a
 * write refused with 401 is sent once more with a new token.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "applier/core/clock.h"
#include "providers/azure/azure.h"

/* One transfer: its handle, headers and what came back. */
typedef struct xfer {
	CURL *curl;
	struct curl_slist *headers;
	dnsb_http_response resp;
	size_t cap;
	char etag[256];
	char retry_after[128];
	char errbuf[CURL_ERROR_SIZE];
} xfer;

void dnsb_azure_write_clear(dnsb_azure_write *w)
{
	free(w->url);
	free(w->body);
	free(w->condition);
	free(w->etag);
	memset(w, 0, sizeof(*w));
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *payload)
{
	xfer *x = payload;
	size_t n = size * nmemb;

	if (x->resp.body_len + n + 1 > x->cap) {
		size_t cap = x->cap ? x->cap : 4096;
		char *grown;
		while (cap < x->resp.body_len + n + 1)
			cap *= 2;
		if (cap > (8u << 20) || (grown = realloc(x->resp.body, cap)) == NULL)
			return 0;
		x->resp.body = grown;
		x->cap = cap;
	}
	memcpy(x->resp.body + x->resp.body_len, data, n);
	x->resp.body_len += n;
	x->resp.body[x->resp.body_len] = '\0';
	return n;
}

static void header_copy(char *dst, size_t size, const char *v, size_t len)
{
	while (len > 0 && isspace((unsigned char)*v))
		v++, len--;
	while (len > 0 && isspace((unsigned char)v[len - 1]))
		len--;
	if (len >= size)
		len = size - 1;
	memcpy(dst, v, len);
	dst[len] = '\0';
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *payload)
{
	xfer *x = payload;
	size_t n = size * nmemb;

	if (n > 13 && strncasecmp(data, "Content-Type:", 13) == 0)
		header_copy(x->resp.content_type, sizeof(x->resp.content_type), data + 13, n - 13);
	else if (n > 12 && strncasecmp(data, "Retry-After:", 12) == 0)
		header_copy(x->retry_after, sizeof(x->retry_after), data + 12, n - 12);
	return n;
}

static int xfer_setup(dnsb_azure *a, xfer *x, const dnsb_azure_write *w, const char *auth, double give_up)
{
	const char *fixed[] = { "Accept: application/json", "Expect:", auth, w->condition,
				w->body ? "Content-Type: application/json" : NULL };
	double left = give_up > 0 ? fmin(give_up - dnsb_monotonic(), DNSB_AZURE_TIMEOUT) : DNSB_AZURE_TIMEOUT;
	CURL *c = x->curl = curl_easy_init();

	for (size_t i = 0; c && i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		struct curl_slist *next = fixed[i] ? curl_slist_append(x->headers, fixed[i]) : x->headers;
		if (next == NULL)
			return DNSB_ENOMEM;
		x->headers = next;
	}
	if (c == NULL)
		return DNSB_ENOMEM;
	curl_easy_setopt(c, CURLOPT_URL, w->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (a->cfg.ca_file) {
		curl_easy_setopt(c, CURLOPT_CAINFO, a->cfg.ca_file);
		curl_easy_setopt(c, CURLOPT_CAPATH, (char *)NULL);
	}
	curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	curl_easy_setopt(c, CURLOPT_PIPEWAIT, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, left > 0.001 ? (long)ceil(left * 1000) : 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, w->method);
	if (w->body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(w->body));
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, w->body);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, x->headers);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(c, CURLOPT_PRIVATE, x);
	return 0;
}

/* The etag of a PUT's reply body (Azure returns the record set). */
static char *reply_etag(const dnsb_http_response *resp)
{
	json_object *doc = NULL, *v;
	char *etag = NULL;

	if (dnsb_http_json(&doc, resp, NULL) == 0 && json_object_object_get_ex(doc, "etag", &v) &&
	    json_object_is_type(v, json_type_string))
		etag = strdup(json_object_get_string(v));
	json_object_put(doc);
	return etag;
}

/* A finished transfer into its write. */
static void xfer_done(dnsb_azure_write *w, xfer *x, CURLcode code)
{
	dnsb_error e = { 0, "" };

	dnsb_result_init(&w->res);
	if (code != CURLE_OK) {
		int rc = code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE ? DNSB_EFATAL
												     : DNSB_ETRANSIENT;
		dnsb_error_set(&e, rc, "%s %s: %s", w->method, w->url, x->errbuf[0] ? x->errbuf : curl_easy_strerror(code));
		w->rc = dnsb_result_from_error(&w->res, rc, 0, "write", &e, NULL) == 0 ? 0 : rc;
		return;
	}
	curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &x->resp.status);
	if (x->resp.body == NULL && (x->resp.body = calloc(1, 1)) == NULL) {
		w->rc = DNSB_ENOMEM;
		return;
	}
	x->resp.retry_after = x->retry_after[0] ? dnsb_http_retry_after(x->retry_after, time(NULL)) : -1;
	dnsb_azure_classify(&w->res, &x->resp);
	if (w->res.cls == DNSB_CLASS_OK && strcmp(w->method, "PUT") == 0) {
		free(w->etag);
		w->etag = reply_etag(&x->resp);
	}
	w->rc = 0;
}

static void xfer_free(xfer *x)
{
	curl_easy_cleanup(x->curl);
	curl_slist_free_all(x->headers);
	dnsb_http_response_clear(&x->resp);
	memset(x, 0, sizeof(*x));
}

/* Run writes idx[0..n) at most max at a time. @return 0 or DNSB_ENOMEM */
static int run(dnsb_azure *a, dnsb_azure_write *w, const size_t *idx, size_t n, const char *auth, double give_up)
{
	xfer *xs = calloc(n ? n : 1, sizeof(*xs));
	size_t next = 0, running_count = 0;
	int rc = xs ? 0 : DNSB_ENOMEM, still;

	while (rc == 0 && (next < n || running_count > 0)) {
		CURLMsg *msg;
		while (rc == 0 && next < n && running_count < a->cfg.max_in_flight) {
			if ((rc = xfer_setup(a, &xs[next], &w[idx[next]], auth, give_up)) == 0 &&
			    curl_multi_add_handle(a->multi, xs[next].curl) != CURLM_OK)
				rc = DNSB_ENOMEM;
			next++;
			running_count++;
			a->requests++;
		}
		if (rc != 0)
			break;
		curl_multi_perform(a->multi, &still);
		while ((msg = curl_multi_info_read(a->multi, &still)) != NULL) {
			xfer *x;
			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
			xfer_done(&w[idx[x - xs]], x, msg->data.result);
			curl_multi_remove_handle(a->multi, msg->easy_handle);
			running_count--;
		}
		if (running_count > 0)
			curl_multi_poll(a->multi, NULL, 0, 100, NULL);
	}
	for (size_t i = 0; xs && i < next; i++) {
		if (xs[i].curl)
			curl_multi_remove_handle(a->multi, xs[i].curl);
		xfer_free(&xs[i]);
	}
	free(xs);
	return rc;
}

int dnsb_azure_send(dnsb_azure *a, dnsb_azure_write *w, size_t n, double give_up, dnsb_error *err)
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx)), m = n;
	char *auth = NULL, *stale = NULL;
	int rc = 0;

	if (idx == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	pthread_mutex_lock(&a->multi_lock);
	for (int round = 0; rc == 0 && m > 0 && round < 2; round++) {
		if ((rc = dnsb_azure_auth_header(&auth, &a->auth, a->base.http, &a->cfg, stale, give_up, err)) != 0)
			break;
		rc = run(a, w, idx, m, auth, give_up);
		dnsb_secret_free(stale);
		stale = auth;
		auth = NULL;
		/* A 401 is an expired or revoked token: those writes once more with a new one. */
		size_t k = 0;
		for (size_t i = 0; i < m; i++)
			if (w[idx[i]].rc == 0 && w[idx[i]].res.status == 401)
				idx[k++] = idx[i];
		m = k;
	}
	pthread_mutex_unlock(&a->multi_lock);
	dnsb_secret_free(stale);
	free(idx);
	if (rc == DNSB_ENOMEM)
		return dnsb_error_set(err, rc, "out of memory");
	return rc;
}
