/*
 * send.c - every API request of the provider, side by side through the
 * transport's dnsb_http_many (applier/net/http.h): at most
 * --azure-max-in-flight at a time, each through the throttle chain (the
 * account's rate budget, then the subscription quota's pace: quota.c) and
 * with the token of the moment. Each request keeps its own reply whatever
 * order the replies come in; one refused with 401 is sent once more with a
 * new token, one refused with 429 again after the hold the quota keeps.
 */
#include <stdlib.h>
#include <string.h>

#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "providers/azure/internal.h"

/* Rounds of one dnsb_azure_send: requests refused with 429 are sent again (after the Retry-After the quota
 * holds), those refused with 401 again with a new token, in a few rounds at most. */
#define MAX_ROUNDS 8
#define MAX_401_ROUNDS 2
/* Request headers of one request: Accept, the token, the condition, the Content-Type, NULL. */
#define HEADERS 5

/* The token of a run: renewed when a 401 refuses the current one, between two transfers. */
typedef struct token {
	char *auth;        /* "Authorization: Bearer ..." (a secret); owned */
	unsigned gen;      /* bumped at each renewal */
	int renew;         /* a 401 refused generation gen */
	int failed;        /* the renewal's code: what was not started is not sent */
	dnsb_error err;
} token;

/* One round of requests: items[k] is w[idx[k]]. */
typedef struct round_ {
	dnsb_azure *a;
	dnsb_azure_write *w;
	const size_t *idx;
	token *tok;
	double give_up;
	unsigned *gen;                      /* per item: the token's generation it was sent with */
	const char *(*headers)[HEADERS];    /* per item */
} round_;

void dnsb_azure_write_clear(dnsb_azure_write *w)
{
	free(w->url);
	free(w->body);
	free(w->condition);
	free(w->etag);
	memset(w, 0, sizeof(*w));
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

/* The transport's start hook: the token of the moment in the request's headers. @return 0, or 1: not sent */
static int on_start(void *payload, size_t k, dnsb_http_item *item)
{
	round_ *r = payload;
	dnsb_azure_write *w = &r->w[r->idx[k]];
	const char **h = r->headers[k];

	if (!r->tok->failed)
		refresh(r->a, r->tok, r->give_up);
	if (r->tok->failed) { /* surely not sent (rc 1): the token endpoint's own class, its message */
		dnsb_result_init(&w->res);
		dnsb_result_set(&w->res, r->tok->failed == DNSB_ETRANSIENT ? DNSB_CLASS_TRANSIENT : DNSB_CLASS_FATAL, 0,
				"token", "%s %s: not sent: %s", w->method, w->url, r->tok->err.message);
		w->rc = 1;
		return 1;
	}
	h[0] = "Accept: application/json";
	h[1] = r->tok->auth;
	h[2] = w->condition ? w->condition : (w->body ? "Content-Type: application/json" : NULL);
	h[3] = w->condition && w->body ? "Content-Type: application/json" : NULL;
	h[4] = NULL;
	item->req.headers = h;
	r->gen[k] = r->tok->gen;
	__atomic_add_fetch(&r->a->requests, 1, __ATOMIC_RELAXED);
	return 0;
}

/* A request the transport did not send (the chain held it past the time left, a stop) or that had no reply. */
static void no_reply(dnsb_azure_write *w, dnsb_http_item *item)
{
	dnsb_result_init(&w->res);
	if (item->rc == DNSB_ERATELIMIT) {
		int held = item->resp.retry_after >= 0;
		dnsb_result_set(&w->res, DNSB_CLASS_RATE_LIMITED, 0, held ? "quota" : "budget", "%s", item->err.message);
		w->res.retry_after = held ? item->resp.retry_after : -1; /* the engine waits it, or ends at its deadline */
		w->rc = 0;
		return;
	}
	w->rc = dnsb_result_from_error(&w->res, item->rc, 0, "request", &item->err, NULL) == 0 ? 0 : item->rc;
}

/* The transport's done hook: a request's reply (or none) into its write. */
static void on_done(void *payload, size_t k, dnsb_http_item *item)
{
	round_ *r = payload;
	dnsb_azure_write *w = &r->w[r->idx[k]];

	if (item->rc == 1 && w->rc == 1)
		return; /* kept back by on_start: said there */
	if (item->rc != 0) {
		no_reply(w, item);
		return;
	}
	if (item->resp.status == 401 && r->gen[k] == r->tok->gen)
		r->tok->renew = 1;
	dnsb_result_init(&w->res);
	dnsb_azure_classify(&w->res, &item->resp);
	if (w->res.cls == DNSB_CLASS_OK && strcmp(w->method, "PUT") == 0) {
		free(w->etag);
		w->etag = reply_etag(&item->resp);
	}
	if (w->reply) {
		dnsb_http_response_clear(w->reply);
		*w->reply = item->resp;
		memset(&item->resp, 0, sizeof(item->resp));
	}
	w->rc = 0;
}

/* Send requests idx[0..n) once. @return 0 or DNSB_ENOMEM */
static int run(dnsb_azure *a, dnsb_azure_write *w, const size_t *idx, size_t n, token *tok, double give_up,
	       dnsb_error *err)
{
	dnsb_http_item *items = calloc(n, sizeof(*items));
	round_ r = { a, w, idx, tok, give_up, calloc(n, sizeof(unsigned)), calloc(n, sizeof(*r.headers)) };
	dnsb_http_hooks hooks = { on_start, on_done, &r };
	int rc = DNSB_ENOMEM;

	if (items && r.gen && r.headers) {
		for (size_t k = 0; k < n; k++) {
			const dnsb_azure_write *x = &w[idx[k]];
			items[k].req = (dnsb_http_request){ x->method, x->url, NULL, x->body, x->body ? strlen(x->body) : 0, 0 };
		}
		rc = dnsb_http_many(a->base.http, items, n, a->cfg.max_in_flight, give_up, &hooks, err);
	}
	for (size_t k = 0; items && k < n; k++)
		dnsb_http_response_clear(&items[k].resp);
	free(items);
	free(r.gen);
	free(r.headers);
	return rc == 0 ? 0 : DNSB_ENOMEM;
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
	if ((rc = dnsb_azure_auth_header(&tok.auth, &a->auth, a->base.http, &a->cfg, NULL, give_up, err)) != 0)
		m = 0; /* no token at all: nothing sent */
	for (int round = 0; rc == 0 && m > 0 && round < MAX_ROUNDS; round++) {
		size_t k = 0;
		rc = run(a, w, idx, m, &tok, give_up, err);
		for (size_t i = 0; rc == 0 && i < m; i++)
			if (again(&w[idx[i]], round, give_up))
				idx[k++] = idx[i];
		m = k;
	}
	dnsb_secret_free(tok.auth);
	free(idx);
	if (rc == DNSB_ENOMEM)
		return dnsb_error_set(err, rc, "out of memory");
	return rc;
}
