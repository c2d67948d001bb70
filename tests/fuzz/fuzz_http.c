/*
 * fuzz_http.c - libFuzzer: any bytes as what an HTTP server answers the
 * one HTTP client of the providers (applier/net/http.c over libcurl): up to 4
 * whole answers (status line, headers, body), split at lines "=====", to
 * consecutive requests of one client (one handle, its connection reused
 * when an answer allows it, as a provider's is), served from a loopback
 * socket by a thread of this program. Covered: the headers of the last
 * response read through libcurl's header API (curl_easy_nextheader:
 * Content-Type, Retry-After, RateLimit, RateLimit-Policy, any by
 * dnsb_http_header), the body kept
 * up to max_body (64 bytes for inputs of odd size), and the reply read as
 * JSON; a third of the inputs through dnsb_http_many (the multi handle).
 * Each line of the input is also given to dnsb_http_retry_after and
 * dnsb_http_is_json directly. A reply must come back whole: a
 * NUL-terminated body of body_len <= max_body bytes, and a Retry-After of
 * seconds >= 0 or none (-1).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <json-c/json.h>

#include "applier/net/http.h"
#include "fuzz_common.h"
#include "loopback_server.h"

static char url[64];

/* An input holds up to ANSWERS_MAX answers, each ending at a line "=====". */
#define ANSWER_SEP "\n=====\n"
#ifndef ANSWERS_MAX
#define ANSWERS_MAX 4 /* -DANSWERS_MAX=1: one answer per client, to look past a bug that needs two */
#endif

/* Read the request up to the blank line that ends its headers (a GET has no body): nothing is left unread,
 * so the close after the answer is a FIN, not a reset that could cut the answer short. */
static int read_request(int fd)
{
	char buf[4096];
	size_t seen = 0;
	char tail[4] = { 0 };

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return 0; /* answered all the same */
		for (ssize_t i = 0; i < n; i++, seen++) {
			memmove(tail, tail + 1, 3);
			tail[3] = buf[i];
			if (seen >= 3 && memcmp(tail, "\r\n\r\n", 4) == 0)
				return 0;
		}
	}
}

/* The server on loopback, its URL in url; 0, or -1 */
static int start_server(void)
{
	int port = loopback_start(read_request, 0);

	if (port < 0)
		return -1;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/zones?page=1", port);
	return 0;
}

/* Each line alone, as a header's value. */
static void lines(const uint8_t *data, size_t size)
{
	char buf[256];

	for (size_t at = 0; at < size;) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t len = nl ? (size_t)(nl - (data + at)) : size - at;
		double secs;

		dnsb_http_header_value(buf, sizeof(buf), (const char *)data + at, len);
		secs = dnsb_http_retry_after(buf, 1700000000);
		if (!(secs == -1 || (isfinite(secs) && secs >= 0)))
			abort();
		(void)dnsb_http_is_json(buf);
		at += len + 1;
	}
}

/* The headers block: "name\0value\0" pairs, whole within headers_len. */
static void check_headers(const dnsb_http_response *resp)
{
	size_t at = 0;

	while (resp->headers && at < resp->headers_len) {
		const char *n = memchr(resp->headers + at, '\0', resp->headers_len - at), *v;
		if (n == NULL || (v = memchr(n + 1, '\0', resp->headers_len - (size_t)(n + 1 - resp->headers))) == NULL)
			abort();
		at = (size_t)(v - resp->headers) + 1;
	}
	if (resp->content_type[0] && dnsb_http_header(resp, "content-type") == NULL)
		abort();
}

/* One answer, through dnsb_http_do or (side by side: many) dnsb_http_many. @return 0 when a reply came */
static int ask(dnsb_http *h, dnsb_http_request *req, int many, dnsb_http_response *resp, dnsb_error *err)
{
	dnsb_http_item item;

	if (!many)
		return dnsb_http_do(h, req, resp, err);
	memset(&item, 0, sizeof(item));
	item.req = *req;
	if (dnsb_http_many(h, &item, 1, 1, 0, NULL, err) != 0)
		abort(); /* only out of memory */
	*resp = item.resp;
	return item.rc;
}

static void exchange(dnsb_http *h, size_t max_body, int many)
{
	const char *headers[] = { "Accept: application/json", NULL };
	dnsb_http_request req = { "GET", url, headers, NULL, 0, 3.0 };
	dnsb_http_response resp;
	json_object *doc;
	dnsb_error err;

	if (ask(h, &req, many, &resp, &err) != 0) {
		dnsb_http_response_clear(&resp);
		return;
	}
	if (resp.body == NULL || resp.body[resp.body_len] != '\0' || resp.body_len > max_body ||
	    !(resp.retry_after == -1 || (isfinite(resp.retry_after) && resp.retry_after >= 0)))
		abort();
	check_headers(&resp);
	if (dnsb_http_json(&doc, &resp, &err) == 0)
		json_object_put(doc);
	dnsb_http_response_clear(&resp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const dnsb_http_options small = { DNSB_HTTP_OPTIONS_VERSION, 3.0, 2.0, NULL, 64, NULL };
	dnsb_http *h = NULL;
	dnsb_error err;
	size_t at = 0;

	if (url[0] == '\0' && start_server() != 0)
		abort();
	lines(data, size);
	/* One client per input, as a provider keeps one: its answers, one after another, on its one handle. */
	if (dnsb_http_new(&h, size % 2 ? &small : NULL, &err) != 0)
		abort();
	for (int n = 0; n < ANSWERS_MAX && (n == 0 || at < size); n++) {
		const uint8_t *next = memmem(data + at, size - at, ANSWER_SEP, sizeof(ANSWER_SEP) - 1);
		size_t len = next ? (size_t)(next - (data + at)) : size - at;

		if (loopback_answer(data + at, len) != 0)
			abort();
		exchange(h, size % 2 ? 64 : 8u << 20, size % 3 == 0);
		at += len + (next ? sizeof(ANSWER_SEP) - 1 : 0);
	}
	dnsb_http_free(h);
	return 0;
}
