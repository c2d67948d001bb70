/*
 * events_client.c - the recorder's way to the Kubernetes API server: in-cluster
 * configuration or --kubernetes-api/--kubernetes-ca-file/--kubernetes-token-file,
 * the bearer token read again for each request (kubelet rotates a projected
 * token by swapping the file), JSON requests through applier/net/http.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "applier/obs/events_int.h"
#include "applier/net/http.h"

struct dnsb_k8s_client {
	dnsb_http *http;
	char *base;        /* "https://HOST:PORT", no trailing slash */
	char *token_file;  /* NULL: no Authorization header */
};

/* A token file: the token is re-read from it before each request, never logged. */
static int read_token(char *buf, size_t size, const char *path)
{
	FILE *f = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (f == NULL)
		return -1;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return n > 0 && n < size - 1 && strpbrk(buf, "\r\n") == NULL ? 0 : -1;
}

/* The API's address in the cluster: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT (IPv6 bracketed). */
static char *in_cluster_url(void)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST"), *port = getenv("KUBERNETES_SERVICE_PORT");
	char url[300];

	if (host == NULL || *host == '\0' || port == NULL || *port == '\0')
		return NULL;
	snprintf(url, sizeof(url), strchr(host, ':') ? "https://[%s]:%s" : "https://%s:%s", host, port);
	return strdup(url);
}

static int client_open(dnsb_k8s_client *c, const dnsb_events_options *o, dnsb_error *err)
{
	dnsb_http_options ho = DNSB_HTTP_OPTIONS_INIT;
	const char *ca = o->ca_file, *tok = o->token_file;
	char probe[8192];

	if (o->api_url == NULL) {
		if ((c->base = in_cluster_url()) == NULL)
			return dnsb_error_set(err, DNSB_EINVAL, "Kubernetes Events: not in a cluster "
					      "(KUBERNETES_SERVICE_HOST/PORT unset) and no --kubernetes-api given");
		ca = ca ? ca : DNSB_EVENTS_SA_DIR "/ca.crt";
		tok = tok ? tok : DNSB_EVENTS_SA_DIR "/token";
	} else if ((c->base = strdup(o->api_url)) == NULL) {
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	} else if (tok == NULL && access(DNSB_EVENTS_SA_DIR "/token", R_OK) == 0) {
		tok = DNSB_EVENTS_SA_DIR "/token";
	}
	for (size_t n = strlen(c->base); n > 0 && c->base[n - 1] == '/'; n--)
		c->base[n - 1] = '\0';
	if (strncmp(c->base, "https://", 8) != 0 && strncmp(c->base, "http://", 7) != 0)
		return dnsb_error_set(err, DNSB_EINVAL, "--kubernetes-api %s: expected an https:// URL", c->base);
	if (tok && read_token(probe, sizeof(probe), tok) != 0)
		return dnsb_error_set(err, DNSB_EINVAL, "Kubernetes Events: token file %s: %s", tok,
				      errno ? strerror(errno) : "empty or not one line");
	if (tok && (c->token_file = strdup(tok)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	ho.timeout = 5.0;
	ho.connect_timeout = 3.0;
	ho.ca_file = ca;
	ho.max_body = 1u << 20;
	return dnsb_http_new(&c->http, &ho, err);
}

int dnsb_k8s_client_new(dnsb_k8s_client **out, const dnsb_events_options *o, dnsb_error *err)
{
	dnsb_k8s_client *c = calloc(1, sizeof(*c));
	int rc;

	*out = NULL;
	if (c == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	errno = 0;
	if ((rc = client_open(c, o, err)) != 0) {
		dnsb_k8s_client_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void dnsb_k8s_client_free(dnsb_k8s_client *c)
{
	if (c == NULL)
		return;
	dnsb_http_free(c->http);
	free(c->base);
	free(c->token_file);
	free(c);
}

/* Send; the body, when one comes back as JSON, to *reply. */
static int send_request(dnsb_k8s_client *c, const char *method, const char *url, const char *body,
			const char *const *headers, double time_left, long *status, json_object **reply, dnsb_error *err)
{
	dnsb_http_request rq = { method, url, headers, body, body ? strlen(body) : 0, time_left };
	dnsb_http_response resp = { 0 };
	int rc = dnsb_http_do_uncounted(c->http, &rq, &resp, err);

	if (rc != 0)
		return rc;
	*status = resp.status;
	if (reply && dnsb_http_is_json(resp.content_type) && dnsb_http_json(reply, &resp, NULL) != 0)
		*reply = NULL;
	dnsb_http_response_clear(&resp);
	return 0;
}

int dnsb_k8s_request(dnsb_k8s_client *c, const char *method, const char *path, json_object *body,
		     const char *content_type, double time_left, long *status, json_object **reply, dnsb_error *err)
{
	char token[8192], auth[8300], ctype[96], url[2048];
	const char *headers[4] = { "Accept: application/json", NULL, NULL, NULL };
	size_t h = 1;
	int rc;

	*status = 0;
	if (reply)
		*reply = NULL;
	if (c->token_file && read_token(token, sizeof(token), c->token_file) != 0)
		return dnsb_error_set(err, DNSB_EFATAL, "token file %s unreadable", c->token_file);
	if (c->token_file) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
		headers[h++] = auth;
	}
	if (body) {
		snprintf(ctype, sizeof(ctype), "Content-Type: %s", content_type ? content_type : "application/json");
		headers[h++] = ctype;
	}
	if ((size_t)snprintf(url, sizeof(url), "%s%s", c->base, path) >= sizeof(url))
		return dnsb_error_set(err, DNSB_EINVAL, "URL too long");
	rc = send_request(c, method, url, body ? json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN) : NULL,
			  headers, time_left, status, reply, err);
	explicit_bzero(token, sizeof(token));
	explicit_bzero(auth, sizeof(auth));
	return rc;
}
