/*
 * auth.c - OAuth2 access tokens for Cloud DNS: from the environment, from a
 * service-account key (a JWT signed RS256 with OpenSSL, exchanged at the
 * key's token_uri, RFC 7523), or from the GCE metadata server; cached and
 * fetched anew shortly before they expire or after a 401.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/clock.h"
#include "applier/core/secret.h"
#include "providers/google/google.h"

/* A key file is a few kilobytes; refuse anything absurd. */
/* Lifetime of the JWT assertion, seconds (Google's maximum). */
#define JWT_LIFETIME 3600
/* Refresh this long before expiry, at most (and at most a quarter of the lifetime). */
#define REFRESH_MARGIN 60.0
#define BEARER "Authorization: Bearer "

void dnsb_google_auth_clear(dnsb_google_auth *a)
{
	if (a == NULL)
		return;
	free(a->client_email);
	free(a->token_uri);
	EVP_PKEY_free(a->key);
	free(a->metadata_url);
	dnsb_secret_free(a->token);
	pthread_mutex_destroy(&a->lock);
	memset(a, 0, sizeof(*a));
}

unsigned long dnsb_google_auth_fetches(dnsb_google_auth *a)
{
	unsigned long n;

	pthread_mutex_lock(&a->lock);
	n = a->fetches;
	pthread_mutex_unlock(&a->lock);
	return n;
}

char *dnsb_google_base64url(const unsigned char *data, size_t len)
{
	char *out = malloc(4 * ((len + 2) / 3) + 1);
	int n;

	if (out == NULL)
		return NULL;
	n = EVP_EncodeBlock((unsigned char *)out, data, (int)len);
	while (n > 0 && out[n - 1] == '=')
		n--;
	out[n] = '\0';
	/* The URL-safe alphabet differs from base64's in two characters only (RFC 4648 §5). */
	for (int i = 0; i < n; i++)
		out[i] = out[i] == '+' ? '-' : out[i] == '/' ? '_' : out[i];
	return out;
}

/* Never ask for a passphrase on the terminal: an encrypted key is refused. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf, (void)size, (void)rwflag, (void)u;
	return -1;
}

/* A string member, or NULL when absent or not a string. */
static const char *member(json_object *o, const char *name)
{
	json_object *v;

	return json_object_object_get_ex(o, name, &v) && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

static int key_pem(dnsb_google_auth *a, const char *pem, const char *path, dnsb_error *err)
{
	BIO *bio = BIO_new_mem_buf(pem, -1);

	if (bio == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	a->key = PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, NULL);
	BIO_free(bio);
	ERR_clear_error();
	if (a->key == NULL)
		return dnsb_error_set(err, DNSB_EINVAL,
				      "%s: private_key is not an unencrypted PEM private key (a service-account key file holds one)",
				      path);
	if (!EVP_PKEY_is_a(a->key, "RSA"))
		return dnsb_error_set(err, DNSB_EINVAL, "%s: private_key is a %s key; RS256 needs RSA", path,
				      EVP_PKEY_get0_type_name(a->key));
	return 0;
}

static int key_fields(dnsb_google_auth *a, json_object *doc, const char *path, dnsb_error *err)
{
	const char *type = member(doc, "type"), *email = member(doc, "client_email");
	const char *pem = member(doc, "private_key"), *uri = member(doc, "token_uri");

	if (type && strcmp(type, "service_account") != 0)
		return dnsb_error_set(err, DNSB_EINVAL,
				      "%s: credentials of type \"%s\" are not supported: give a service-account key (type \"service_account\")",
				      path, type);
	if (email == NULL || *email == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "%s: no client_email (not a service-account key file)", path);
	if (pem == NULL || *pem == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "%s: no private_key (not a service-account key file)", path);
	if (uri == NULL)
		uri = DNSB_GOOGLE_TOKEN_URI_DEFAULT;
	if (strncmp(uri, "https://", 8) != 0)
		return dnsb_error_set(err, DNSB_EINVAL, "%s: token_uri %s is not an https:// URL", path, uri);
	if ((a->client_email = strdup(email)) == NULL || (a->token_uri = strdup(uri)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	return key_pem(a, pem, path, err);
}

int dnsb_google_key_parse(dnsb_google_auth *a, const char *text, const char *path, dnsb_error *err)
{
	json_object *doc = json_tokener_parse(text), *pem;
	int rc;

	if (doc == NULL || !json_object_is_type(doc, json_type_object)) {
		json_object_put(doc);
		return dnsb_error_set(err, DNSB_EINVAL,
				      "%s: not a JSON object (a service-account key file is JSON with client_email, private_key and token_uri)",
				      path);
	}
	rc = key_fields(a, doc, path, err);
	/* The parsed copy of the private key goes the way of the file's text. */
	if (json_object_object_get_ex(doc, "private_key", &pem) && json_object_is_type(pem, json_type_string))
		explicit_bzero((char *)json_object_get_string(pem), (size_t)json_object_get_string_len(pem));
	json_object_put(doc);
	if (rc == 0) {
		a->kind = DNSB_GOOGLE_AUTH_KEY;
		snprintf(a->source, sizeof(a->source), "service account %.120s (key file %.150s)", a->client_email, path);
	}
	return rc;
}

static int metadata_init(dnsb_google_auth *a)
{
	const char *host = getenv(DNSB_GOOGLE_METADATA_HOST_ENV);

	if (host == NULL || *host == '\0')
		host = DNSB_GOOGLE_METADATA_HOST;
	/* The metadata server speaks plain HTTP on a link-local address; it answers only with the header below. */
	if (asprintf(&a->metadata_url, "http://%s" DNSB_GOOGLE_METADATA_PATH, host) < 0) {
		a->metadata_url = NULL;
		return DNSB_ENOMEM;
	}
	a->kind = DNSB_GOOGLE_AUTH_METADATA;
	snprintf(a->source, sizeof(a->source), "the GCE metadata server (%.200s)", host);
	return 0;
}

int dnsb_google_auth_init(dnsb_google_auth *a, const dnsb_google_config *cfg, dnsb_error *err)
{
	const char *env = getenv(DNSB_GOOGLE_TOKEN_ENV);
	char *text = NULL;
	int rc;

	memset(a, 0, sizeof(*a));
	pthread_mutex_init(&a->lock, NULL);
	if (env && *env) {
		if ((a->token = strdup(env)) == NULL)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		dnsb_secret_register(a->token);
		a->kind = DNSB_GOOGLE_AUTH_ENV;
		snprintf(a->source, sizeof(a->source), "$" DNSB_GOOGLE_TOKEN_ENV);
		if (cfg->credentials)
			dnsb_log(DNSB_LOG_DEBUG, "google: $" DNSB_GOOGLE_TOKEN_ENV " is set: %s is not used",
				 cfg->credentials_source);
		return 0;
	}
	if (cfg->credentials == NULL)
		return metadata_init(a) == 0 ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = dnsb_secret_read_file(&text, cfg->credentials, cfg->credentials_source, err)) != 0)
		return rc;
	rc = dnsb_google_key_parse(a, text, cfg->credentials, err);
	explicit_bzero(text, strlen(text));
	free(text);
	return rc;
}

/* ---- the JWT bearer grant ---- */

static char *b64_json(json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	return s ? dnsb_google_base64url((const unsigned char *)s, strlen(s)) : NULL;
}

/* "header.claims" of the JWT. */
static char *jwt_unsigned(const dnsb_google_auth *a, time_t now)
{
	json_object *head = json_object_new_object(), *claims = json_object_new_object();
	char *h = NULL, *c = NULL, *out = NULL;

	if (head && claims) {
		json_object_object_add(head, "alg", json_object_new_string("RS256"));
		json_object_object_add(head, "typ", json_object_new_string("JWT"));
		json_object_object_add(claims, "iss", json_object_new_string(a->client_email));
		json_object_object_add(claims, "scope", json_object_new_string(DNSB_GOOGLE_SCOPE));
		json_object_object_add(claims, "aud", json_object_new_string(a->token_uri));
		json_object_object_add(claims, "iat", json_object_new_int64((int64_t)now));
		json_object_object_add(claims, "exp", json_object_new_int64((int64_t)now + JWT_LIFETIME));
		h = b64_json(head);
		c = b64_json(claims);
	}
	if (h && c && asprintf(&out, "%s.%s", h, c) < 0)
		out = NULL;
	free(h);
	free(c);
	json_object_put(head);
	json_object_put(claims);
	return out;
}

int dnsb_google_jwt(char **out, const dnsb_google_auth *a, time_t now, dnsb_error *err)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	char *signing = jwt_unsigned(a, now), *sig64 = NULL;
	unsigned char *sig = NULL;
	size_t siglen = 0;
	int rc = DNSB_ENOMEM;

	*out = NULL;
	if (md == NULL || signing == NULL)
		goto done;
	if (EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, a->key) != 1 ||
	    EVP_DigestSign(md, NULL, &siglen, (const unsigned char *)signing, strlen(signing)) != 1 ||
	    (sig = malloc(siglen)) == NULL ||
	    EVP_DigestSign(md, sig, &siglen, (const unsigned char *)signing, strlen(signing)) != 1) {
		rc = sig == NULL && siglen > 0 ? DNSB_ENOMEM : DNSB_EINVAL;
		goto done;
	}
	if ((sig64 = dnsb_google_base64url(sig, siglen)) == NULL || asprintf(out, "%s.%s", signing, sig64) < 0) {
		*out = NULL;
		goto done;
	}
	rc = 0;
done:
	ERR_clear_error();
	EVP_MD_CTX_free(md);
	free(signing);
	free(sig);
	free(sig64);
	if (rc == DNSB_EINVAL)
		return dnsb_error_set(err, rc, "signing the token request of %s with its key failed", a->source);
	return rc ? dnsb_error_set(err, rc, "out of memory") : 0;
}

/* The form body of the grant: grant_type and the signed assertion. */
static char *grant_body(const char *jwt)
{
	char *type = dnsb_http_escape("urn:ietf:params:oauth:grant-type:jwt-bearer"), *assertion = dnsb_http_escape(jwt);
	char *body = NULL;

	if (type && assertion && asprintf(&body, "grant_type=%s&assertion=%s", type, assertion) < 0)
		body = NULL;
	free(type);
	dnsb_secret_free(assertion);
	return body;
}

/* What a token endpoint's error reply says: {"error": "invalid_grant", "error_description": "..."}. */
int dnsb_google_token_refused(const dnsb_http_response *resp, const dnsb_google_auth *a, dnsb_error *err)
{
	json_object *doc = NULL;
	const char *code = NULL, *desc = NULL;
	dnsb_google_error ge;
	int rc = resp->status == 408 || resp->status == 429 || resp->status >= 500 ? DNSB_ETRANSIENT : DNSB_EFATAL;

	if (dnsb_http_json(&doc, resp, NULL) == 0 && json_object_is_type(doc, json_type_object)) {
		code = member(doc, "error");
		desc = member(doc, "error_description");
	}
	if (code) {
		dnsb_error_set(err, rc, "%s: the token endpoint answered HTTP %ld %.60s%s%.200s", a->source, resp->status,
			       code, desc ? ": " : "", desc ? desc : "");
	} else {
		dnsb_google_error_parse(&ge, resp);
		dnsb_error_set(err, rc, "%s: the token endpoint answered HTTP %ld%s%s", a->source, resp->status,
			       ge.message[0] ? ": " : "", ge.message);
	}
	json_object_put(doc);
	return rc;
}

/* Take {"access_token", "expires_in"} into the cache. */
int dnsb_google_token_take(dnsb_google_auth *a, const dnsb_http_response *resp, dnsb_error *err)
{
	json_object *doc = NULL, *v;
	const char *token;
	double expires_in = 3600, margin;
	dnsb_error e;

	if (dnsb_http_json(&doc, resp, &e) != 0 || (token = member(doc, "access_token")) == NULL || *token == '\0') {
		json_object_put(doc);
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s: the token reply has no access_token%s%s", a->source,
				      e.code ? ": " : "", e.code ? e.message : "");
	}
	if (json_object_object_get_ex(doc, "expires_in", &v) && json_object_get_double(v) > 0)
		expires_in = json_object_get_double(v);
	dnsb_secret_free(a->token);
	a->token = strdup(token);
	explicit_bzero((char *)token, strlen(token));
	json_object_put(doc);
	if (a->token == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	dnsb_secret_register(a->token); /* redacted from every printed text: an endpoint may echo it */
	margin = expires_in / 4 < REFRESH_MARGIN ? expires_in / 4 : REFRESH_MARGIN;
	a->refresh_at = dnsb_monotonic() + expires_in - margin;
	a->fetches++;
	dnsb_log(DNSB_LOG_DEBUG, "google: new access token from %s, valid %.0f s", a->source, expires_in);
	return 0;
}

/* Fetch a token from the key's token_uri or the metadata server (a->lock held). */
static int token_fetch(dnsb_google_auth *a, dnsb_http *http, double give_up, dnsb_error *err)
{
	static const char *const form[] = { "Content-Type: application/x-www-form-urlencoded", NULL };
	static const char *const flavor[] = { "Metadata-Flavor: Google", NULL };
	dnsb_http_request req = { 0 };
	dnsb_http_response resp;
	char *jwt = NULL, *body = NULL;
	int rc;

	if (give_up > 0 && (req.time_left = give_up - dnsb_monotonic()) <= 0)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s: no time left to fetch an access token", a->source);
	if (a->kind == DNSB_GOOGLE_AUTH_KEY) {
		if ((rc = dnsb_google_jwt(&jwt, a, (time_t)dnsb_clock_wall(NULL), err)) != 0)
			return rc;
		body = grant_body(jwt);
		dnsb_secret_free(jwt);
		if (body == NULL)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		req = (dnsb_http_request){ "POST", a->token_uri, form, body, strlen(body), req.time_left };
	} else {
		req = (dnsb_http_request){ "GET", a->metadata_url, flavor, NULL, 0, req.time_left };
	}
	rc = dnsb_http_do_uncounted(http, &req, &resp, err);
	dnsb_secret_free(body);
	if (rc != 0) {
		/* Off GCE the metadata server's name does not resolve: say what was tried. */
		if (a->kind == DNSB_GOOGLE_AUTH_METADATA && rc == DNSB_ETRANSIENT)
			dnsb_error_set(err, rc, "no credentials: $" DNSB_GOOGLE_TOKEN_ENV
				       " unset, no key file (--google-credentials, $" DNSB_GOOGLE_CREDENTIALS_ENV
				       "), and %s did not answer", a->source);
		return rc;
	}
	rc = resp.status == 200 ? dnsb_google_token_take(a, &resp, err) : dnsb_google_token_refused(&resp, a, err);
	explicit_bzero(resp.body, resp.body_len);
	dnsb_http_response_clear(&resp);
	return rc;
}

int dnsb_google_auth_header(char **out, dnsb_google_auth *a, dnsb_http *http, const char *refused, double give_up,
			    dnsb_error *err)
{
	int rc = 0, stale;

	*out = NULL;
	pthread_mutex_lock(&a->lock);
	/* Another thread may have replaced the refused token already: then use the new one. */
	stale = refused && a->token && strncmp(refused, BEARER, strlen(BEARER)) == 0 &&
		strcmp(refused + strlen(BEARER), a->token) == 0;
	if (a->kind == DNSB_GOOGLE_AUTH_ENV) {
		if (stale)
			rc = dnsb_error_set(err, DNSB_EFATAL,
					    "the access token from $" DNSB_GOOGLE_TOKEN_ENV
					    " was refused (HTTP 401): it has expired or is not valid, and it cannot be refreshed");
	} else if (a->token == NULL || stale || dnsb_monotonic() >= a->refresh_at) {
		rc = token_fetch(a, http, give_up, err);
	}
	if (rc == 0 && asprintf(out, BEARER "%s", a->token) < 0) {
		*out = NULL;
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	pthread_mutex_unlock(&a->lock);
	return rc;
}
