/*
 * auth.c - the azure provider's bearer token: a client assertion from the
 * federated token file (workload identity) or a client secret, both by the
 * Microsoft identity platform's client-credentials grant, or a managed
 * identity's token from IMDS. One token is cached for every thread and
 * renewed a few minutes before it expires, or when a 401 refused it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/clock.h"
#include "applier/core/secret.h"
#include "providers/azure/internal.h"

#define SCOPE "https://management.azure.com/.default"
#define RESOURCE "https://management.azure.com/"
/* Seconds before its end a token is renewed (at most a quarter of its life). */
#define REFRESH_MARGIN 300.0

void dnsb_azure_auth_clear(dnsb_azure_auth *a)
{
	dnsb_secret_free(a->header);
	a->header = NULL;
	a->refresh_at = 0;
}

/* The federated token file's text, surrounding white space removed: it is rotated, so read at every fetch (by the
 * one secret reader: wiped, refused past its limit rather than cut). */
static int read_assertion(char **out, const char *path, dnsb_error *err)
{
	dnsb_error e = { 0, "" };
	char *text = NULL;
	size_t start = 0;
	int rc = dnsb_secret_read_file(&text, path, "AZURE_FEDERATED_TOKEN_FILE", &e);

	*out = NULL;
	if (rc != 0) /* the file's trouble makes every token fetch fail: fatal */
		return dnsb_error_set(err, rc == DNSB_ENOMEM ? rc : DNSB_EFATAL, "%s", e.message[0] ? e.message :
				      "AZURE_FEDERATED_TOKEN_FILE: out of memory");
	while (isspace((unsigned char)text[start]))
		start++;
	*out = strdup(text + start);
	dnsb_secret_free(text);
	return *out ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

/* "&name=value" appended to a form body, the value percent-encoded. */
static int form_add(char **body, const char *name, const char *value)
{
	char *esc = dnsb_http_escape(value), *grown = NULL;
	int rc = esc ? asprintf(&grown, "%s%s%s=%s", *body ? *body : "", *body ? "&" : "", name, esc) : -1;

	if (esc)
		explicit_bzero(esc, strlen(esc));
	free(esc);
	if (rc < 0)
		return DNSB_ENOMEM;
	dnsb_secret_free(*body);
	*body = grown;
	return 0;
}

/* The client-credentials grant's form: a secret or a client assertion. */
static int grant_body(char **out, const dnsb_azure_config *cfg, dnsb_error *err)
{
	char *assertion = NULL;
	int rc;

	*out = NULL;
	if (cfg->cred == DNSB_AZURE_CRED_WORKLOAD && (rc = read_assertion(&assertion, cfg->token_file, err)) != 0)
		return rc;
	rc = form_add(out, "grant_type", "client_credentials");
	if (rc == 0)
		rc = form_add(out, "client_id", cfg->client_id);
	if (rc == 0)
		rc = form_add(out, "scope", SCOPE);
	if (rc == 0 && assertion) {
		rc = form_add(out, "client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
		if (rc == 0)
			rc = form_add(out, "client_assertion", assertion);
	} else if (rc == 0) {
		rc = form_add(out, "client_secret", cfg->secret);
	}
	dnsb_secret_free(assertion);
	if (rc != 0) {
		dnsb_secret_free(*out);
		*out = NULL;
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	return 0;
}

/* The token request of the configured credential. */
static int token_request(dnsb_http *http, const dnsb_azure_config *cfg, double give_up, dnsb_http_response *resp,
			 char *url, size_t url_size, dnsb_error *err)
{
	const char *form[] = { "Content-Type: application/x-www-form-urlencoded", "Accept: application/json", NULL };
	const char *imds[] = { "Metadata: true", NULL };
	dnsb_http_request req = { "GET", url, imds, NULL, 0, 0 };
	char *body = NULL, *id = NULL;
	int rc;

	if (give_up > 0 && (req.time_left = give_up - dnsb_monotonic()) <= 0)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "token: no time left");
	if (cfg->cred == DNSB_AZURE_CRED_MANAGED) {
		id = cfg->client_id ? dnsb_http_escape(cfg->client_id) : NULL;
		snprintf(url, url_size, "%s?api-version=2018-02-01&resource=%s%s%s", cfg->imds,
			 "https%3A%2F%2Fmanagement.azure.com%2F", id ? "&client_id=" : "", id ? id : "");
		free(id);
		return dnsb_http_do_uncounted(http, &req, resp, err);
	}
	snprintf(url, url_size, "%s/%s/oauth2/v2.0/token", cfg->authority, cfg->tenant);
	if ((rc = grant_body(&body, cfg, err)) != 0)
		return rc;
	req.method = "POST";
	req.headers = form;
	req.body = body;
	req.body_len = strlen(body);
	rc = dnsb_http_do_uncounted(http, &req, resp, err);
	dnsb_secret_free(body);
	return rc;
}

/* The token of a 200 reply into the cache; a refusal names the endpoint and the service's error code only. */
static int token_take(dnsb_azure_auth *a, const dnsb_http_response *resp, const char *url, const dnsb_azure_config *cfg,
		      dnsb_error *err)
{
	json_object *doc = NULL, *tok = NULL, *exp = NULL, *code = NULL;
	double expires_in = 3600, margin;
	int rc = 0;

	if (dnsb_http_json(&doc, resp, NULL) != 0)
		doc = NULL;
	if (resp->status != 200) {
		if (doc)
			json_object_object_get_ex(doc, "error", &code);
		rc = dnsb_error_set(err, resp->status >= 500 || resp->status == 429 ? DNSB_ETRANSIENT : DNSB_EFATAL,
				    "token from %s (%s) refused: HTTP %ld %s", url, cfg->cred_source, resp->status,
				    code && json_object_is_type(code, json_type_string) ? json_object_get_string(code) : "");
	} else if (doc == NULL || !json_object_object_get_ex(doc, "access_token", &tok) ||
		   !json_object_is_type(tok, json_type_string)) {
		rc = dnsb_error_set(err, DNSB_ETRANSIENT, "token from %s: no access_token in the reply", url);
	} else {
		if (json_object_object_get_ex(doc, "expires_in", &exp) && json_object_get_double(exp) > 0)
			expires_in = json_object_get_double(exp);
		dnsb_azure_auth_clear(a);
		dnsb_secret_register(json_object_get_string(tok)); /* redacted from all that is printed */
		if (asprintf(&a->header, "Authorization: Bearer %s", json_object_get_string(tok)) < 0) {
			a->header = NULL;
			rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		} else {
			margin = expires_in / 4 < REFRESH_MARGIN ? expires_in / 4 : REFRESH_MARGIN;
			a->refresh_at = dnsb_monotonic() + expires_in - margin;
			dnsb_log(DNSB_LOG_DEBUG, "azure: new access token from %s, valid %.0f s", cfg->cred_source,
				 expires_in);
		}
	}
	json_object_put(doc);
	return rc;
}

int dnsb_azure_auth_header(char **out, dnsb_azure_auth *a, dnsb_http *http, const dnsb_azure_config *cfg,
			   const char *stale, double give_up, dnsb_error *err)
{
	dnsb_http_response resp;
	char url[2048];
	int rc = 0;

	*out = NULL;
	pthread_mutex_lock(&a->lock);
	if (a->header == NULL || dnsb_monotonic() >= a->refresh_at || (stale && strcmp(stale, a->header) == 0)) {
		memset(&resp, 0, sizeof(resp));
		if ((rc = token_request(http, cfg, give_up, &resp, url, sizeof(url), err)) == 0)
			rc = token_take(a, &resp, url, cfg, err);
		else if ((rc == DNSB_EFATAL || rc == DNSB_ETRANSIENT) && err) {
			char why[sizeof(err->message)];
			snprintf(why, sizeof(why), "%s", err->message);
			rc = dnsb_error_set(err, rc, "token (%s): %s", cfg->cred_source, why);
		}
		dnsb_http_response_clear(&resp);
	}
	if (rc == 0 && (*out = strdup(a->header)) == NULL)
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	pthread_mutex_unlock(&a->lock);
	return rc;
}
