/*
 * test_http.c - the HTTP transport (applier/net/http.h) against a loopback
 * server (tests/fuzz/loopback_server.h): dnsb_http_many's replies read with
 * libcurl's header API (a 100 Continue's headers are not the reply's, as
 * Azure's own parser took them), a body over the cap kept truncated rather
 * than the transfer aborted, every request with the client's User-Agent and
 * Accept-Encoding, and the throttle chain's refusal returned in the result
 * (the hold in retry_after and dnsb_http_held), nothing sent.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "applier/core/clock.h"
#include "applier/net/http.h"
#include "applier/net/throttle.h"
#include "tests/fuzz/loopback_server.h"

static char url[64];
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static char seen[8192];   /* the last request's head */
static unsigned requests; /* requests the server read */

/* Read a request's head (a GET has no body) into seen. */
static int read_head(int fd)
{
	char buf[8192];
	size_t len = 0;

	while (len < sizeof(buf) - 1) {
		ssize_t n = recv(fd, buf + len, sizeof(buf) - 1 - len, 0);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, "\r\n\r\n"))
			break;
	}
	buf[len] = '\0';
	pthread_mutex_lock(&seen_lock);
	memcpy(seen, buf, len + 1);
	requests++;
	pthread_mutex_unlock(&seen_lock);
	return 0;
}

static int setup(void **state)
{
	int port = loopback_start(read_head, 1);

	(void)state;
	if (port < 0)
		return -1;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/x", port);
	return 0;
}

static void answer(const char *text)
{
	assert_int_equal(loopback_answer((const uint8_t *)text, strlen(text)), 0);
}

static dnsb_http *client(size_t max_body)
{
	dnsb_http_options o = DNSB_HTTP_OPTIONS_INIT;
	dnsb_http *h = NULL;
	dnsb_error e;

	o.timeout = 5;
	if (max_body)
		o.max_body = max_body;
	assert_int_equal(dnsb_http_new(&h, &o, &e), 0);
	return h;
}

/* Two requests side by side. */
static void many(dnsb_http *h, dnsb_http_item *items, size_t n)
{
	dnsb_error e;

	memset(items, 0, n * sizeof(*items));
	for (size_t i = 0; i < n; i++)
		items[i].req = (dnsb_http_request){ "GET", url, NULL, NULL, 0, 0 };
	assert_int_equal(dnsb_http_many(h, items, n, 2, dnsb_monotonic() + 5, NULL, &e), 0);
}

/* The headers of a 100 Continue before the reply are not the reply's. */
static void test_continue_headers_not_kept(void **state)
{
	dnsb_http *h = client(0);
	dnsb_http_item it[2];

	(void)state;
	answer("HTTP/1.1 100 Continue\r\nRetry-After: 99\r\nx-ms-ratelimit-remaining-subscription-writes: 3\r\n\r\n"
	       "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
	many(h, it, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(it[i].rc, 0);
		assert_int_equal(it[i].resp.status, 200);
		assert_true(it[i].resp.retry_after < 0);
		assert_null(dnsb_http_header(&it[i].resp, "x-ms-ratelimit-remaining-subscription-writes"));
		assert_string_equal(dnsb_http_header(&it[i].resp, "content-type"), "application/json");
		assert_string_equal(it[i].resp.body, "{}");
		dnsb_http_response_clear(&it[i].resp);
	}
	dnsb_http_free(h);
}

/* A body past the cap is kept truncated (the transfer not aborted), and every request says who sends it. */
static void test_body_cap_and_identity(void **state)
{
	static char reply[4096];
	dnsb_http *h = client(64);
	dnsb_http_item it[1];
	int len = snprintf(reply, sizeof(reply), "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n"
			   "Connection: close\r\nx-ms-ratelimit-remaining-subscription-reads:  11999 \r\n\r\n");

	(void)state;
	memset(reply + len, 'a', 1000);
	reply[len + 1000] = '\0';
	answer(reply);
	many(h, it, 1);
	assert_int_equal(it[0].rc, 0);
	assert_int_equal(it[0].resp.truncated, 1);
	assert_int_equal(it[0].resp.body_len, 64);
	assert_string_equal(dnsb_http_header(&it[0].resp, "X-MS-RateLimit-Remaining-Subscription-Reads"), "11999");
	pthread_mutex_lock(&seen_lock);
	assert_non_null(strstr(seen, "User-Agent: dnsbatch/"));
	assert_non_null(strstr(seen, "Accept-Encoding: "));
	pthread_mutex_unlock(&seen_lock);
	dnsb_http_response_clear(&it[0].resp);
	dnsb_http_free(h);
}

static double hold_reserve(void *state, const char *method, double now, double give_up)
{
	(void)state, (void)method, (void)now, (void)give_up;
	return 100.0;
}

/* The chain's refusal: not sent, the hold returned in the result and kept by the client. */
static void test_chain_refusal_returned(void **state)
{
	dnsb_pacer p = { hold_reserve, NULL, NULL, { "held", " by the test" } };
	dnsb_http_response resp;
	dnsb_http_request req = { "GET", url, NULL, NULL, 0, 5 };
	dnsb_http *h = client(0);
	dnsb_http_item it[2];
	dnsb_error e;
	unsigned before;

	(void)state;
	dnsb_http_set_pacer(h, &p);
	pthread_mutex_lock(&seen_lock);
	before = requests;
	pthread_mutex_unlock(&seen_lock);
	assert_true(dnsb_http_held(h) < 0);
	many(h, it, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(it[i].rc, DNSB_ERATELIMIT);
		assert_true(it[i].resp.retry_after > 99.9);
		assert_non_null(strstr(it[i].err.message, "held 100.0 s by the test"));
	}
	assert_int_equal(dnsb_http_do(h, &req, &resp, &e), DNSB_ERATELIMIT);
	assert_true(resp.retry_after > 99.9);
	assert_true(dnsb_http_held(h) > 99.0);
	pthread_mutex_lock(&seen_lock);
	assert_int_equal(requests, before);
	pthread_mutex_unlock(&seen_lock);
	dnsb_http_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_continue_headers_not_kept),
		cmocka_unit_test(test_body_cap_and_identity),
		cmocka_unit_test(test_chain_refusal_returned),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
