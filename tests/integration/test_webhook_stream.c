/*
 * test_webhook_stream.c - GET /records is streamed (issue 21): an in-process
 * server on free loopback ports, memory provider holding 50,000 RRsets
 * (25,000 names, each with an A record and the registry's TXT record):
 *   - the reply is, byte for byte, the array json-c writes for the provider's
 *     listing (the Endpoints in listing order, compact, one trailing newline),
 *     in the webhook media type, chunked (no Content-Length: never whole in
 *     memory); it parses with json-c into 50,000 Endpoints;
 *   - clients that hang up after the first bytes leave the server serving
 *     (the next GET is whole, the requests in flight drain and the server
 *     stops); under AddressSanitizer nothing leaks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "dnsbatch/dnsbatch.h"
#include "dnsbatch/memory.h"
#include "dnsbatch/webhook.h"
#include "integration/extdns_client.c"

#define NAMES 25000

typedef struct server {
	dnsb_provider *provider;
	dnsb_webhook *wh;
	char url[64];
	unsigned api;
} server;

static void put(dnsb_provider *p, const char *owner, uint16_t type, const char *rdata)
{
	dnsb_rrset rs = { 0 };

	rs.owner = strdup(owner);
	rs.type = type;
	rs.ttl = 300;
	assert_non_null(rs.owner);
	assert_int_equal(dnsb_rrset_add_rdata(&rs, rdata), 0);
	assert_int_equal(dnsb_memory_put(p, &rs), 0);
	dnsb_rrset_clear(&rs);
}

static void server_start(server *s)
{
	static const char *const zones[] = { "big.test" };
	dnsb_webhook_options wo = DNSB_WEBHOOK_OPTIONS_INIT;
	dnsb_error err = { 0 };
	char owner[64], rdata[160];

	memset(s, 0, sizeof(*s));
	assert_int_equal(dnsb_memory_new(&s->provider, zones, 1, NULL, &err), 0);
	for (int i = 0; i < NAMES; i++) {
		snprintf(owner, sizeof(owner), "h%d.big.test.", i);
		snprintf(rdata, sizeof(rdata), "10.%d.%d.%d", (i >> 16) & 255, (i >> 8) & 255, i & 255);
		put(s->provider, owner, 1, rdata);
		snprintf(owner, sizeof(owner), "a-h%d.big.test.", i);
		snprintf(rdata, sizeof(rdata), "\"heritage=external-dns,external-dns/owner=default,"
			 "external-dns/resource=service/default/h%d\"", i);
		put(s->provider, owner, 16, rdata);
	}
	wo.listen = "127.0.0.1:0";
	wo.metrics_listen = "127.0.0.1:0";
	wo.probe_interval = 0.05;
	assert_int_equal(dnsb_webhook_start(&s->wh, s->provider, &wo, &err), 0);
	s->api = dnsb_webhook_port(s->wh, 0);
	snprintf(s->url, sizeof(s->url), "http://127.0.0.1:%u", s->api);
	for (int i = 0; i < 200 && !dnsb_webhook_ready(s->wh); i++)
		usleep(10 * 1000);
	assert_true(dnsb_webhook_ready(s->wh));
}

static void server_stop(server *s)
{
	dnsb_webhook_free(s->wh);
	dnsb_provider_free(s->provider);
}

/* What the reply must be: the provider's listing, each RRset as json-c writes its Endpoint. */
static char *expected_body(dnsb_provider *p, size_t *len, size_t *count)
{
	dnsb_rrset_list list = { 0 };
	dnsb_error err = { 0 };
	size_t cap = 1 << 20;
	char *out = malloc(cap);

	assert_non_null(out);
	assert_int_equal(dnsb_provider_list(p, "big.test.", &list, &err), 0);
	*len = 0;
	*count = 0;
	out[(*len)++] = '[';
	for (size_t i = 0; i < list.count; i++) {
		struct json_object *ep;
		const char *text;
		size_t n;

		if (dnsb_type_is_server(list.items[i].type))
			continue;
		ep = dnsb_rrset_to_endpoint(&list.items[i]);
		text = json_object_to_json_string_length(ep, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
		while (*len + n + 4 > cap)
			assert_non_null(out = realloc(out, cap *= 2));
		if ((*count)++ > 0)
			out[(*len)++] = ',';
		memcpy(out + *len, text, n);
		*len += n;
		json_object_put(ep);
	}
	memcpy(out + *len, "]\n", 2);
	*len += 2;
	dnsb_rrset_list_clear(&list);
	return out;
}

static void test_large_listing_streamed(void **state)
{
	server s;
	extdns_client *http;
	extdns_reply r = { 0 };
	struct json_object *got;
	char *want;
	size_t want_len, want_count;
	curl_off_t length = 0;

	(void)state;
	server_start(&s);
	want = expected_body(s.provider, &want_len, &want_count);
	assert_int_equal(want_count, 2 * NAMES);

	http = extdns_client_new(s.url, 60);
	assert_int_equal(extdns_request(http, "GET", "/records", accept_hdr, NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.content_type, DNSB_WEBHOOK_MEDIA_TYPE);
	/* No Content-Length (-1 to libcurl): chunked, the length not known before the end. */
	assert_int_equal(curl_easy_getinfo(http->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length), CURLE_OK);
	assert_int_equal(length, -1);
	/* The exact bytes: order, fields, the trailing newline. */
	assert_int_equal(r.len, want_len);
	assert_memory_equal(r.body, want, want_len);
	/* And a whole JSON array of every Endpoint. */
	got = json_tokener_parse(r.body);
	assert_non_null(got);
	assert_true(json_object_is_type(got, json_type_array));
	assert_int_equal(json_object_array_length(got), 2 * NAMES);
	json_object_put(got);

	extdns_reply_clear(&r);
	extdns_client_free(http);
	free(want);
	server_stop(&s);
}

/* Send GET /records, read `keep` bytes of the reply, hang up. */
static void hang_up_after(unsigned port, size_t keep)
{
	struct sockaddr_in sa = { 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	const char req[] = "GET /records HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: " DNSB_WEBHOOK_MEDIA_TYPE "\r\n\r\n";
	char buf[4096], first[16] = "";
	size_t got = 0;

	assert_true(fd >= 0);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(send(fd, req, sizeof(req) - 1, 0), (ssize_t)(sizeof(req) - 1));
	while (got < keep) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		assert_true(n > 0);
		if (got == 0)
			memcpy(first, buf, (size_t)n < sizeof(first) - 1 ? (size_t)n : sizeof(first) - 1);
		got += (size_t)n;
	}
	assert_memory_equal(first, "HTTP/1.1 200", 12);
	close(fd);
}

static void test_client_hangs_up_mid_stream(void **state)
{
	server s;
	extdns_client *http;
	struct json_object *eps = NULL;
	long status = 0;

	(void)state;
	server_start(&s);
	/* Some before the first block is out, some in the middle (the reply is about 3.3 MB). */
	for (int i = 0; i < 6; i++)
		hang_up_after(s.api, i % 2 ? 100 : 300 * 1024);

	http = extdns_client_new(s.url, 60);
	assert_int_equal(extdns_records(http, &eps, &status), 0);
	assert_int_equal(status, 200);
	assert_int_equal(json_object_array_length(eps), 2 * NAMES);
	json_object_put(eps);
	extdns_client_free(http);
	server_stop(&s); /* waits for the requests in flight: the hung-up ones end */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_large_listing_streamed),
		cmocka_unit_test(test_client_hangs_up_mid_stream),
	};
	int rc;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	dnsb_log_set_level(DNSB_LOG_WARN);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
