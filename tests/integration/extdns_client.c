/* extdns_client.c - speaks to a webhook provider as external-dns does (see extdns_client.h). */
#include <ctype.h>
#include <strings.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "extdns_client.h"

struct extdns_client {
	char *base;
	double timeout;
	CURL *curl;   /* one connection, kept alive like Go's transport */
	char error[512];
};

static void set_error(extdns_client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_error(extdns_client *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->error, sizeof(c->error), fmt, ap);
	va_end(ap);
}

void extdns_reply_clear(extdns_reply *r)
{
	free(r->content_type);
	free(r->body);
	memset(r, 0, sizeof(*r));
}

extdns_client *extdns_client_new(const char *base_url, double timeout)
{
	extdns_client *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->base = strdup(base_url);
	c->timeout = timeout > 0 ? timeout : 15.0;
	c->curl = curl_easy_init();
	if (c->base == NULL || c->curl == NULL) {
		extdns_client_free(c);
		return NULL;
	}
	return c;
}

void extdns_client_free(extdns_client *c)
{
	if (c == NULL)
		return;
	if (c->curl)
		curl_easy_cleanup(c->curl);
	free(c->base);
	free(c);
}

const char *extdns_client_error(const extdns_client *c)
{
	return c->error;
}

static size_t on_body(char *data, size_t size, size_t n, void *payload)
{
	extdns_reply *r = payload;
	size_t add = size * n;
	char *b = realloc(r->body, r->len + add + 1);

	if (b == NULL)
		return 0;
	memcpy(b + r->len, data, add);
	r->len += add;
	b[r->len] = '\0';
	r->body = b;
	return add;
}

static size_t on_header(char *data, size_t size, size_t n, void *payload)
{
	extdns_reply *r = payload;
	size_t len = size * n;
	static const char name[] = "content-type:";

	if (len > sizeof(name) - 1 && strncasecmp(data, name, sizeof(name) - 1) == 0) {
		const char *v = data + sizeof(name) - 1;
		size_t vlen = len - (sizeof(name) - 1);
		/* Go's Header.Get trims the surrounding blanks, nothing more. */
		while (vlen > 0 && (*v == ' ' || *v == '\t')) {
			v++;
			vlen--;
		}
		while (vlen > 0 && isspace((unsigned char)v[vlen - 1]))
			vlen--;
		free(r->content_type);
		r->content_type = strndup(v, vlen);
	}
	return len;
}

int extdns_request(extdns_client *c, const char *method, const char *path, const char *const *headers,
		   const char *body, size_t len, extdns_reply *out)
{
	struct curl_slist *hl = NULL;
	char url[1024];
	CURLcode cc;
	CURL *h = c->curl;

	memset(out, 0, sizeof(*out));
	c->error[0] = '\0';
	snprintf(url, sizeof(url), "%s%s", c->base, path);
	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(c->timeout * 1000));
	curl_easy_setopt(h, CURLOPT_USERAGENT, "Go-http-client/1.1");
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "gzip");
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, out);
	if (strcmp(method, "GET") == 0) {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	} else {
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? len : 0));
		/* Go never sends Expect: 100-continue; curl would for large bodies. */
		hl = curl_slist_append(hl, "Expect:");
		/* curl adds a form Content-Type to POSTs; Go sends none unless set. */
		hl = curl_slist_append(hl, "Content-Type:");
	}
	int has_accept = 0;
	for (size_t i = 0; headers && headers[i]; i++) {
		hl = curl_slist_append(hl, headers[i]);
		has_accept |= strncasecmp(headers[i], "Accept:", 7) == 0;
	}
	/* curl sends a catch-all Accept by default; Go sends none unless set. */
	if (!has_accept)
		hl = curl_slist_append(hl, "Accept:");
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
	cc = curl_easy_perform(h);
	curl_slist_free_all(hl);
	if (cc != CURLE_OK) {
		set_error(c, "%s %s: %s", method, path, curl_easy_strerror(cc));
		extdns_reply_clear(out);
		return -1;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out->status);
	return 0;
}

static const char *const accept_hdr[] = { "Accept: " EXTDNS_MEDIA_TYPE, NULL };
static const char *const post_hdr[] = { "Content-Type: " EXTDNS_MEDIA_TYPE, NULL };
static const char *const both_hdr[] = { "Content-Type: " EXTDNS_MEDIA_TYPE, "Accept: " EXTDNS_MEDIA_TYPE, NULL };

static struct json_object *decode(const extdns_reply *r)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o = json_tokener_parse_ex(tok, r->body ? r->body : "", (int)r->len);
	json_tokener_free(tok);
	return o;
}

int extdns_negotiate(extdns_client *c, struct json_object **filter)
{
	extdns_reply r;
	struct json_object *o;
	int tries;

	*filter = NULL;
	/* backoff.Retry with 5 tries: transport errors and 5xx are retried. */
	for (tries = 0; tries < 5; tries++) {
		if (extdns_request(c, "GET", "/", accept_hdr, NULL, 0, &r) == 0) {
			if (r.status < 500)
				break;
			set_error(c, "server error: status code %ld", r.status);
			extdns_reply_clear(&r);
		}
		struct timespec ts = { 0, 100 * 1000 * 1000L << (tries < 3 ? tries : 3) };
		nanosleep(&ts, NULL);
	}
	if (tries == 5)
		return -1;
	if (r.status >= 300) {
		set_error(c, "unexpected status code %ld", r.status);
		extdns_reply_clear(&r);
		return -1;
	}
	if (r.content_type == NULL || strcmp(r.content_type, EXTDNS_MEDIA_TYPE) != 0) {
		set_error(c, "wrong content type returned from server: %s", r.content_type ? r.content_type : "");
		extdns_reply_clear(&r);
		return -1;
	}
	o = decode(&r);
	extdns_reply_clear(&r);
	if (o == NULL || !json_object_is_type(o, json_type_object)) {
		set_error(c, "failed to unmarshal response body of DomainFilter");
		json_object_put(o);
		return -1;
	}
	/* DomainFilter.UnmarshalJSON refuses lists and regexes together. */
	if ((json_object_object_get_ex(o, "include", NULL) || json_object_object_get_ex(o, "exclude", NULL)) &&
	    (json_object_object_get_ex(o, "regexInclude", NULL) || json_object_object_get_ex(o, "regexExclude", NULL))) {
		set_error(c, "cannot have both domain list and regex");
		json_object_put(o);
		return -1;
	}
	*filter = o;
	return 0;
}

int extdns_records(extdns_client *c, struct json_object **endpoints, long *status)
{
	extdns_reply r;
	struct json_object *o;

	*endpoints = NULL;
	if (status)
		*status = 0;
	if (extdns_request(c, "GET", "/records", accept_hdr, NULL, 0, &r) != 0)
		return -1;
	if (status)
		*status = r.status;
	if (r.status != 200) {
		set_error(c, "failed to get records with code %ld", r.status);
		extdns_reply_clear(&r);
		return -1;
	}
	o = decode(&r);
	extdns_reply_clear(&r);
	if (o == NULL || !json_object_is_type(o, json_type_array)) {
		set_error(c, "failed to decode response body");
		json_object_put(o);
		return -1;
	}
	*endpoints = o;
	return 0;
}

static const char *const new_keys[4] = { "create", "updateOld", "updateNew", "delete" };
static const char *const old_keys[4] = { "Create", "UpdateOld", "UpdateNew", "Delete" };

static struct json_object *encode_changes(struct json_object *changes, int legacy)
{
	struct json_object *out = json_object_new_object();
	for (int i = 0; i < 4; i++) {
		struct json_object *list = NULL;
		json_object_object_get_ex(changes, new_keys[i], &list);
		if (list == NULL)
			json_object_object_get_ex(changes, old_keys[i], &list);
		if (list != NULL && json_object_array_length(list) == 0)
			list = NULL;
		if (legacy)
			json_object_object_add(out, old_keys[i], list ? json_object_get(list) : NULL);
		else if (list)
			json_object_object_add(out, new_keys[i], json_object_get(list));
	}
	return out;
}

int extdns_apply(extdns_client *c, struct json_object *changes, int legacy, long *status)
{
	struct json_object *body = encode_changes(changes, legacy);
	extdns_reply r;
	size_t len;
	const char *s = json_object_to_json_string_length(body, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	char *text = malloc(len + 2);
	int rc;

	if (status)
		*status = 0;
	memcpy(text, s, len);
	text[len] = '\n'; /* json.Encoder ends the body with a newline */
	json_object_put(body);
	rc = extdns_request(c, "POST", "/records", post_hdr, text, len + 1, &r);
	free(text);
	if (rc != 0)
		return EXTDNS_FATAL;
	if (status)
		*status = r.status;
	rc = r.status == 204 ? EXTDNS_OK : r.status >= 500 && r.status <= 510 ? EXTDNS_SOFT_ERROR : EXTDNS_FATAL;
	if (rc != EXTDNS_OK)
		set_error(c, "failed to apply changes with code %ld: %.200s", r.status, r.body ? r.body : "");
	extdns_reply_clear(&r);
	return rc;
}

int extdns_adjust(extdns_client *c, struct json_object *endpoints, struct json_object **out, long *status)
{
	extdns_reply r;
	size_t len;
	const char *s = json_object_to_json_string_length(endpoints, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	struct json_object *o;

	*out = NULL;
	if (status)
		*status = 0;
	if (extdns_request(c, "POST", "/adjustendpoints", both_hdr, s, len, &r) != 0)
		return -1;
	if (status)
		*status = r.status;
	if (r.status != 200 || r.content_type == NULL || strcmp(r.content_type, EXTDNS_MEDIA_TYPE) != 0) {
		set_error(c, "failed to AdjustEndpoints with code %ld", r.status);
		extdns_reply_clear(&r);
		return -1;
	}
	o = decode(&r);
	extdns_reply_clear(&r);
	if (o == NULL || !json_object_is_type(o, json_type_array)) {
		json_object_put(o);
		set_error(c, "failed to decode response body");
		return -1;
	}
	*out = o;
	return 0;
}

struct json_object *extdns_endpoint(const char *name, const char *type, long ttl,
				    const char *const *targets, size_t n, const char *owner, const char *resource)
{
	struct json_object *ep = json_object_new_object(), *t = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(t, json_object_new_string(targets[i]));
	json_object_object_add(ep, "dnsName", json_object_new_string(name));
	json_object_object_add(ep, "targets", t);
	json_object_object_add(ep, "recordType", json_object_new_string(type));
	if (ttl > 0)
		json_object_object_add(ep, "recordTTL", json_object_new_int64(ttl));
	if (owner || resource) {
		/* Go encodes map keys sorted: owner before resource. */
		struct json_object *labels = json_object_new_object();
		if (owner)
			json_object_object_add(labels, "owner", json_object_new_string(owner));
		if (resource)
			json_object_object_add(labels, "resource", json_object_new_string(resource));
		json_object_object_add(ep, "labels", labels);
	}
	return ep;
}

struct json_object *extdns_ownership_txt(struct json_object *endpoint, const char *owner, const char *resource)
{
	struct json_object *v, *ep, *labels, *t;
	const char *name = "", *type = "A";
	char txt_name[512], type_lower[32], text[1024];
	const char *dot;
	size_t i;

	if (json_object_object_get_ex(endpoint, "dnsName", &v))
		name = json_object_get_string(v);
	if (json_object_object_get_ex(endpoint, "recordType", &v))
		type = json_object_get_string(v);
	for (i = 0; type[i] && i < sizeof(type_lower) - 1; i++)
		type_lower[i] = (char)tolower((unsigned char)type[i]);
	type_lower[i] = '\0';
	/* AffixNameMapper.ToTXTName with no prefix or suffix: "<type>-" on the first label. */
	dot = strchr(name, '.');
	if (dot)
		snprintf(txt_name, sizeof(txt_name), "%s-%.*s%s", type_lower, (int)(dot - name), name, dot);
	else
		snprintf(txt_name, sizeof(txt_name), "%s-%s", type_lower, name);
	/* Labels.SerializePlain(true): heritage first, then the labels in key order. */
	snprintf(text, sizeof(text), "\"heritage=external-dns%s%s%s%s\"",
		 owner ? ",external-dns/owner=" : "", owner ? owner : "",
		 resource ? ",external-dns/resource=" : "", resource ? resource : "");
	ep = json_object_new_object();
	t = json_object_new_array();
	json_object_array_add(t, json_object_new_string(text));
	labels = json_object_new_object();
	json_object_object_add(labels, "ownedRecord", json_object_new_string(name));
	json_object_object_add(ep, "dnsName", json_object_new_string(txt_name));
	json_object_object_add(ep, "targets", t);
	json_object_object_add(ep, "recordType", json_object_new_string("TXT"));
	json_object_object_add(ep, "labels", labels);
	return ep;
}

static struct json_object *with_registry(struct json_object *list, int registry)
{
	struct json_object *out = json_object_new_array();

	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		struct json_object *ep = json_object_array_get_idx(list, i), *labels, *v;
		const char *owner = "default", *resource = NULL;
		json_object_array_add(out, json_object_get(ep));
		if (!registry)
			continue;
		if (json_object_object_get_ex(ep, "labels", &labels)) {
			if (json_object_object_get_ex(labels, "owner", &v))
				owner = json_object_get_string(v);
			if (json_object_object_get_ex(labels, "resource", &v))
				resource = json_object_get_string(v);
		}
		json_object_array_add(out, extdns_ownership_txt(ep, owner, resource));
	}
	return out;
}

struct json_object *extdns_changes(struct json_object *create, struct json_object *update_old,
				   struct json_object *update_new, struct json_object *delete_, int registry)
{
	struct json_object *lists[4] = { create, update_old, update_new, delete_ };
	struct json_object *out = json_object_new_object();

	for (int i = 0; i < 4; i++)
		if (lists[i] && json_object_array_length(lists[i]) > 0)
			json_object_object_add(out, new_keys[i], with_registry(lists[i], registry));
	return out;
}
