/*
 * edgegrid.c - Akamai's EdgeGrid request signing, EG1-HMAC-SHA256, as the
 * vendor's libraries compute it (akamai-edgegrid for Node, helpers.js:
 * dataToSign, signingKey, contentHash): OpenSSL's HMAC and SHA-256, its
 * base64 (EVP_EncodeBlock), libcurl's URL parser. Plain inputs: no state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "providers/akamai/akamai.h"

void dnsb_akamai_timestamp(char *buf, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, size, "%Y%m%dT%H:%M:%S+0000", &tm);
}

int dnsb_akamai_nonce(char *buf, size_t size)
{
	unsigned char r[16];

	if (size < 37 || RAND_bytes(r, sizeof(r)) != 1)
		return DNSB_ERROR;
	r[6] = (unsigned char)((r[6] & 0x0f) | 0x40); /* version 4 */
	r[8] = (unsigned char)((r[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	snprintf(buf, size, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2],
		 r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
	return 0;
}

/* base64 of `len` bytes into out (>= 4 * ceil(len / 3) + 1 bytes). */
static void b64(char *out, const unsigned char *in, size_t len)
{
	EVP_EncodeBlock((unsigned char *)out, in, (int)len);
}

/* base64(HMAC-SHA256(key, msg)) into out (>= 45 bytes). @return 0 or DNSB_ERROR */
static int hmac_b64(char *out, const char *key, const char *msg)
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int len = 0;

	if (HMAC(EVP_sha256(), key, (int)strlen(key), (const unsigned char *)msg, strlen(msg), mac, &len) == NULL)
		return DNSB_ERROR;
	b64(out, mac, len);
	OPENSSL_cleanse(mac, sizeof(mac));
	return 0;
}

/* The content hash: base64(SHA-256) of a POST body's first max_body bytes; "" otherwise. */
static int content_hash(char *out, const char *method, const char *body, size_t len, size_t max_body)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len = 0;

	out[0] = '\0';
	if (strcmp(method, "POST") != 0 || body == NULL || len == 0)
		return 0;
	if (max_body > 0 && len > max_body)
		len = max_body;
	if (EVP_Digest(body, len, md, &md_len, EVP_sha256(), NULL) != 1)
		return DNSB_ERROR;
	b64(out, md, md_len);
	return 0;
}

/* The URL's parts as signed: scheme, host[:port], path[?query]. @return 0, DNSB_EINVAL or DNSB_ENOMEM */
static int url_parts(const char *url, char **scheme, char **host, char **rel)
{
	CURLU *u = curl_url();
	char *h = NULL, *port = NULL, *path = NULL, *query = NULL;
	int rc = DNSB_EINVAL;

	*scheme = *host = *rel = NULL;
	if (u == NULL)
		return DNSB_ENOMEM;
	if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK && curl_url_get(u, CURLUPART_SCHEME, scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &h, 0) == CURLUE_OK && curl_url_get(u, CURLUPART_PATH, &path, 0) == CURLUE_OK) {
		curl_url_get(u, CURLUPART_PORT, &port, 0);
		curl_url_get(u, CURLUPART_QUERY, &query, 0);
		rc = asprintf(host, "%s%s%s", h, port ? ":" : "", port ? port : "") < 0 ||
				     asprintf(rel, "%s%s%s", path, query ? "?" : "", query ? query : "") < 0
			     ? DNSB_ENOMEM : 0;
	}
	curl_free(h);
	curl_free(port);
	curl_free(path);
	curl_free(query);
	curl_url_cleanup(u);
	return rc;
}

/* The auth header's unsigned part, the data to sign, the signature: into *out. */
static int sign_parts(char **out, const dnsb_akamai_creds *c, const char *method, const char *scheme, const char *host,
		      const char *rel, const char *hash, const char *timestamp, const char *nonce)
{
	char *auth = NULL, *data = NULL, key[64], sig[64];
	int rc = DNSB_ENOMEM;

	if (asprintf(&auth, "EG1-HMAC-SHA256 client_token=%s;access_token=%s;timestamp=%s;nonce=%s;", c->client_token,
		     c->access_token, timestamp, nonce) < 0)
		return DNSB_ENOMEM;
	if (asprintf(&data, "%s\t%s\t%s\t%s\t\t%s\t%s", method, scheme, host, rel, hash, auth) >= 0) {
		rc = hmac_b64(key, c->client_secret, timestamp) == 0 && hmac_b64(sig, key, data) == 0 ? 0 : DNSB_ERROR;
		if (rc == 0 && asprintf(out, "%ssignature=%s", auth, sig) < 0)
			rc = DNSB_ENOMEM;
	}
	OPENSSL_cleanse(key, sizeof(key));
	free(data);
	free(auth);
	return rc;
}

int dnsb_akamai_sign(char **out, const dnsb_akamai_creds *c, const char *method, const char *url, const char *host_as,
		     const char *body, size_t body_len, const char *timestamp, const char *nonce, dnsb_error *err)
{
	char *scheme = NULL, *host = NULL, *rel = NULL, hash[64];
	int rc;

	*out = NULL;
	if ((rc = url_parts(url, &scheme, &host, &rel)) == 0 &&
	    (rc = content_hash(hash, method, body, body_len, c->max_body)) == 0)
		rc = sign_parts(out, c, method, scheme, host_as ? host_as : host, rel, hash, timestamp, nonce);
	curl_free(scheme);
	free(host);
	free(rel);
	if (rc == DNSB_EINVAL)
		return dnsb_error_set(err, rc, "EdgeGrid: %s: not an absolute URL", method);
	if (rc != 0)
		return dnsb_error_set(err, rc, "EdgeGrid: signing the %s failed (%s)", method,
				      rc == DNSB_ENOMEM ? "out of memory" : "OpenSSL");
	return 0;
}
