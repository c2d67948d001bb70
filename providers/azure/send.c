/*
 * send.c - every API request of the provider, side by side: one libcurl
 * multi handle (its connection cache kept across submissions, HTTP/2
 * multiplexed where the server offers it), at most --azure-max-in-flight
 * transfers at a time. Before a transfer starts it takes its token of the
 * account's rate budget (--rate-budget: shared by every instance) and waits
 * out the subscription quota's pace (quota.c), without stalling the
 * transfers already running. Each request keeps its own reply whatever
 * order the replies come in; one refused with 401 is sent once more with a
 * new token.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "providers/azure/azure.h"
#include "providers/ratelimit.h"

/* Rounds of one dnsb_azure_send: requests refused with 429 are sent again (after the Retry-After the quota
 * holds), those refused with 401 again with a new token, in a few rounds at most. */
#define MAX_ROUNDS 8
#define MAX_401_ROUNDS 2
#define REMAINING_READS "x-ms-ratelimit-remaining-subscription-reads:"
#define REMAINING_WRITES "x-ms-ratelimit-remaining-subscription-writes:"

/* The token of a run: renewed when a 401 refuses the current one, between two transfers. */
typedef struct token {
	char *auth;        /* "Authorization: Bearer ..." (a secret); owned */
	unsigned gen;      /* bumped at each renewal */
	int renew;         /* a 401 refused generation gen */
	int failed;        /* the renewal's code: what was not started is not sent */
	dnsb_error err;
} token;

/* One transfer: its handle, headers and what came back. */
typedef struct xfer {
	CURL *curl;
	struct curl_slist *headers;
	dnsb_http_response resp;
	size_t cap;
	char etag[256];
	char retry_after[128];
	long remaining_reads, remaining_writes;  /* the quota headers, -1 when absent */
	unsigned gen;                            /* the token's generation it was sent with */
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

/* A header's count, -1 when it is not one. */
static long header_count(const char *v, size_t len)
{
	char buf[32];
	char *end;
	long n;

	dnsb_http_header_value(buf, sizeof(buf), v, len);
	n = strtol(buf, &end, 10);
	return end != buf && *end == '\0' && n >= 0 ? n : -1;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *payload)
{
	xfer *x = payload;
	size_t n = size * nmemb, lr = strlen(REMAINING_READS), lw = strlen(REMAINING_WRITES);

	if (n > lr && strncasecmp(data, REMAINING_READS, lr) == 0)
		x->remaining_reads = header_count(data + lr, n - lr);
	else if (n > lw && strncasecmp(data, REMAINING_WRITES, lw) == 0)
		x->remaining_writes = header_count(data + lw, n - lw);
	else if (n > 13 && strncasecmp(data, "Content-Type:", 13) == 0)
		dnsb_http_header_value(x->resp.content_type, sizeof(x->resp.content_type), data + 13, n - 13);
	else if (n > 12 && strncasecmp(data, "Retry-After:", 12) == 0)
		dnsb_http_header_value(x->retry_after, sizeof(x->retry_after), data + 12, n - 12);
	return n;
}

static int xfer_setup(dnsb_azure *a, xfer *x, const dnsb_azure_write *w, const char *auth, double give_up)
{
	const char *fixed[] = { "Accept: application/json", "Expect:", auth, w->condition,
				w->body ? "Content-Type: application/json" : NULL };
	double left = give_up > 0 ? fmin(give_up - dnsb_monotonic(), DNSB_AZURE_TIMEOUT) : DNSB_AZURE_TIMEOUT;
	CURL *c = x->curl = curl_easy_init();

	x->remaining_reads = x->remaining_writes = -1;

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
	if (strcmp(w->method, "GET") == 0)
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	else
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

static dnsb_azure_quota *quota_of(dnsb_azure *a, const dnsb_azure_write *w)
{
	return strcmp(w->method, "GET") == 0 ? &a->reads : &a->writes;
}

/* The quota headers of a reply, and a 429 fed to the quota and the rate budget. */
static void quota_take(dnsb_azure *a, const dnsb_azure_write *w, const xfer *x)
{
	double now = dnsb_monotonic();

	if (x->remaining_reads >= 0)
		dnsb_azure_quota_seen(&a->reads, x->remaining_reads, now);
	if (x->remaining_writes >= 0)
		dnsb_azure_quota_seen(&a->writes, x->remaining_writes, now);
	if (x->resp.status == 429) {
		dnsb_azure_quota_throttled(quota_of(a, w), x->resp.retry_after, now);
		if (a->base.budget)
			dnsb_budget_throttled(a->base.budget);
	}
}

/* A finished transfer into its request. */
static void xfer_done(dnsb_azure *a, token *tok, dnsb_azure_write *w, xfer *x, CURLcode code)
{
	dnsb_error e = { 0, "" };

	dnsb_result_init(&w->res);
	if (code != CURLE_OK) {
		int rc = code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE ? DNSB_EFATAL
												     : DNSB_ETRANSIENT;
		dnsb_error_set(&e, rc, "%s %s: %s", w->method, w->url, x->errbuf[0] ? x->errbuf : curl_easy_strerror(code));
		w->rc = dnsb_result_from_error(&w->res, rc, 0, "request", &e, NULL) == 0 ? 0 : rc;
		return;
	}
	curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &x->resp.status);
	if (x->resp.body == NULL && (x->resp.body = calloc(1, 1)) == NULL) {
		w->rc = DNSB_ENOMEM;
		return;
	}
	x->resp.retry_after = x->retry_after[0] ? dnsb_http_retry_after(x->retry_after, (time_t)dnsb_clock_wall(NULL)) : -1;
	quota_take(a, w, x);
	if (x->resp.status == 401 && x->gen == tok->gen)
		tok->renew = 1;
	dnsb_azure_classify(&w->res, &x->resp);
	if (w->res.cls == DNSB_CLASS_OK && strcmp(w->method, "PUT") == 0) {
		free(w->etag);
		w->etag = reply_etag(&x->resp);
	}
	if (w->reply) {
		dnsb_http_response_clear(w->reply);
		*w->reply = x->resp;
		memset(&x->resp, 0, sizeof(x->resp));
	}
	w->rc = 0;
}

/* A request not sent: the pace or the budget has no slot for it within the time left, or no token came. */
static void not_sent(dnsb_azure_write *w, dnsb_class cls, const char *code, const char *why)
{
	dnsb_result_init(&w->res);
	dnsb_result_set(&w->res, cls, 0, code, "%s %s: not sent: %s", w->method, w->url, why);
	w->rc = 0;
}

/*
 * The token for the next transfer: the cached one, renewed when it nears its
 * end (a run can outlast a token) or a 401 refused it.
 */
static void refresh(dnsb_azure *a, token *tok, double give_up)
{
	char *fresh = NULL;
	int rc;

	rc = dnsb_azure_auth_header(&fresh, &a->auth, a->base.http, &a->cfg, tok->renew ? tok->auth : NULL, give_up,
				    &tok->err);
	tok->renew = 0;
	if (rc != 0) {
		tok->failed = rc;
		return;
	}
	if (tok->auth && strcmp(fresh, tok->auth) == 0) {
		dnsb_secret_free(fresh);
		return;
	}
	dnsb_secret_free(tok->auth);
	tok->auth = fresh;
	tok->gen++;
}

/*
 * The rate budget's token for the next transfer: while others run, only a
 * token that is due now (they must not stall); else waiting as long as the
 * budget says within the time left.
 * @return 0 taken; 1 not yet (try again shortly); -1 no slot before give_up
 */
static int take_budget(dnsb_azure *a, size_t running, double give_up, double now)
{
	double left = give_up > 0 ? give_up - now : 0;

	if (a->base.budget == NULL)
		return 0;
	if (running > 0)
		return dnsb_budget_take(a->base.budget, 0.002, NULL) == 0 ? 0 : 1;
	if (give_up > 0 && left <= 0.001)
		return -1;
	return dnsb_budget_take(a->base.budget, left, NULL) == 0 ? 0 : -1;
}

static void xfer_free(xfer *x)
{
	curl_easy_cleanup(x->curl);
	curl_slist_free_all(x->headers);
	dnsb_http_response_clear(&x->resp);
	memset(x, 0, sizeof(*x));
}

/*
 * Start what may start now of requests idx[*next..n). @return the seconds
 * before another may start (0: none waits), or -1.0 on DNSB_ENOMEM
 */
static double start_some(dnsb_azure *a, dnsb_azure_write *w, const size_t *idx, size_t n, xfer *xs, size_t *next,
			 size_t *running, token *tok, double give_up)
{
	size_t low = DNSB_AZURE_LOW_WATER(a);

	while (*next < n && *running < a->cfg.max_in_flight) {
		dnsb_azure_write *r = &w[idx[*next]];
		dnsb_azure_quota *q = quota_of(a, r);
		double now = dnsb_monotonic(), wait = dnsb_azure_quota_wait(q, low, now);
		int got;
		if (!tok->failed)
			refresh(a, tok, give_up);
		if (tok->failed) { /* surely not sent (rc 1): the token endpoint's own class, its message */
			not_sent(r, tok->failed == DNSB_ETRANSIENT ? DNSB_CLASS_TRANSIENT : DNSB_CLASS_FATAL, "token",
				 tok->err.message);
			r->rc = 1;
			(*next)++;
			continue;
		}
		if (wait > 0 && give_up > 0 && now + wait >= give_up) {
			char why[128];
			snprintf(why, sizeof(why), "held %.1f s by the subscription's quota (its pace, a 429's "
				 "Retry-After), past the time left", wait);
			not_sent(r, DNSB_CLASS_RATE_LIMITED, "quota", why);
			r->res.retry_after = wait; /* the engine waits it, or ends at its deadline */
			dnsb_hb_refused(wait);
			(*next)++;
			continue;
		}
		if (wait > 0 && dnsb_stop_requested()) { /* a stop (a signal) ends the wait: not sent */
			not_sent(r, DNSB_CLASS_RATE_LIMITED, "quota", "held by the subscription's quota (its pace, a "
				 "429's Retry-After) when the apply was stopped");
			r->res.retry_after = wait;
			(*next)++;
			continue;
		}
		if (wait > 0)
			return wait;
		if ((got = take_budget(a, *running, give_up, now)) > 0)
			return 0.02;
		if (got < 0) {
			not_sent(r, DNSB_CLASS_RATE_LIMITED, "budget",
				 "the account's rate budget has no request slot within the time left");
			(*next)++;
			continue;
		}
		dnsb_azure_quota_started(q, low, dnsb_monotonic());
		xs[*next].gen = tok->gen;
		if (xfer_setup(a, &xs[*next], r, tok->auth, give_up) != 0 ||
		    curl_multi_add_handle(a->multi, xs[*next].curl) != CURLM_OK) {
			(*next)++;
			return -1.0;
		}
		(*next)++;
		(*running)++;
		a->requests++;
	}
	return 0;
}

/* Run requests idx[0..n) at most max at a time. @return 0 or DNSB_ENOMEM */
static int run(dnsb_azure *a, dnsb_azure_write *w, const size_t *idx, size_t n, token *tok, double give_up)
{
	xfer *xs = calloc(n ? n : 1, sizeof(*xs));
	size_t next = 0, running = 0;
	int rc = xs ? 0 : DNSB_ENOMEM, still;

	while (rc == 0 && (next < n || running > 0)) {
		CURLMsg *msg;
		double wait = start_some(a, w, idx, n, xs, &next, &running, tok, give_up);
		if (wait < 0) {
			rc = DNSB_ENOMEM;
			break;
		}
		if (running == 0) {
			if (wait > 0)
				(void)dnsb_stop_sleep(wait); /* a stop ends it: start_some sends none of those held */
			continue;
		}
		curl_multi_perform(a->multi, &still);
		while ((msg = curl_multi_info_read(a->multi, &still)) != NULL) {
			xfer *x;
			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
			xfer_done(a, tok, &w[idx[x - xs]], x, msg->data.result);
			curl_multi_remove_handle(a->multi, msg->easy_handle);
			running--;
		}
		if (running > 0)
			curl_multi_poll(a->multi, NULL, 0, wait > 0 && wait < 0.1 ? (int)ceil(wait * 1000) : 100, NULL);
	}
	for (size_t i = 0; xs && i < next; i++) {
		if (xs[i].curl)
			curl_multi_remove_handle(a->multi, xs[i].curl);
		xfer_free(&xs[i]);
	}
	free(xs);
	return rc;
}

/* Is request w worth sending again: refused with 401 (a new token is due) or 429 (nothing was done), and no stop asked? */
static int again(const dnsb_azure_write *w, int round, double give_up)
{
	if (w->rc != 0 || (give_up > 0 && dnsb_monotonic() >= give_up) || dnsb_stop_requested())
		return 0;
	return (w->res.status == 401 && round < MAX_401_ROUNDS) || w->res.status == 429;
}

int dnsb_azure_send(dnsb_azure *a, dnsb_azure_write *w, size_t n, double give_up, dnsb_error *err)
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx)), m = n;
	token tok = { 0 };
	int rc = 0;

	if (n == 0) {
		free(idx);
		return 0; /* nothing to send: no token asked for */
	}
	if (idx == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	pthread_mutex_lock(&a->multi_lock);
	if ((rc = dnsb_azure_auth_header(&tok.auth, &a->auth, a->base.http, &a->cfg, NULL, give_up, err)) != 0)
		m = 0; /* no token at all: nothing sent */
	for (int round = 0; rc == 0 && m > 0 && round < MAX_ROUNDS; round++) {
		size_t k = 0;
		rc = run(a, w, idx, m, &tok, give_up);
		for (size_t i = 0; rc == 0 && i < m; i++)
			if (again(&w[idx[i]], round, give_up))
				idx[k++] = idx[i];
		m = k;
	}
	pthread_mutex_unlock(&a->multi_lock);
	dnsb_secret_free(tok.auth);
	free(idx);
	if (rc == DNSB_ENOMEM)
		return dnsb_error_set(err, rc, "out of memory");
	return rc;
}
