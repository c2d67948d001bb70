/*
 * http_reply.c - a reply's parts, read for every HTTP provider: its headers
 * (as the transport collected them with libcurl's header API), Retry-After
 * and Akamai's X-RateLimit-Next as a wait, a JSON body (json-c, the document
 * alone), and its release. Used by the transport (http.c, http_xfer.c) and
 * the backends alike; it calls neither.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "applier/net/http.h"

void dnsb_http_response_clear(dnsb_http_response *resp)
{
	if (resp == NULL)
		return;
	free(resp->body);
	free(resp->headers);
	memset(resp, 0, sizeof(*resp));
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

const char *dnsb_http_header(const dnsb_http_response *resp, const char *name)
{
	const char *found = NULL;

	for (size_t at = 0; resp->headers && at < resp->headers_len;) {
		const char *n = resp->headers + at, *v = n + strlen(n) + 1;
		if (strcasecmp(n, name) == 0)
			found = v;
		at = (size_t)(v - resp->headers) + strlen(v) + 1;
	}
	return found;
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
