/* test_listen.c - listen addresses: "HOST:PORT", "[V6]:PORT", ":PORT", exact results and errors quoting the spec. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "applier/webhook/internal.h"

static void split_ok(const char *spec, const char *host, unsigned port)
{
	struct dnsb_listen_spec ls;
	dnsb_error err = { 0, "" };

	assert_int_equal(dnsb_webhook_listen_split(&ls, spec, &err), 0);
	assert_string_equal(ls.host, host);
	assert_int_equal(ls.port, port);
}

static void split_bad(const char *spec, const char *message)
{
	struct dnsb_listen_spec ls;
	dnsb_error err = { 0, "" };

	assert_int_equal(dnsb_webhook_listen_split(&ls, spec, &err), DNSB_EINVAL);
	assert_int_equal(err.code, DNSB_EINVAL);
	assert_string_equal(err.message, message);
}

static void test_split(void **state)
{
	(void)state;
	split_ok("127.0.0.1:8888", "127.0.0.1", 8888);
	split_ok("[::1]:80", "::1", 80);
	split_ok(":8080", "", 8080);
	split_ok("localhost:1", "localhost", 1);
	split_ok("0.0.0.0:0", "0.0.0.0", 0);
	split_ok("[::]:65535", "::", 65535);
	/* leading zeros are the same port, not an overflow */
	split_ok("127.0.0.1:0000000000080", "127.0.0.1", 80);
	/* the last colon ends an unbracketed host */
	split_ok("a:b:53", "a:b", 53);
}

static void test_split_errors(void **state)
{
	char longhost[300];

	(void)state;
	split_bad("127.0.0.1", "bad listen address \"127.0.0.1\": expected HOST:PORT");
	split_bad("[::1]8080", "bad listen address \"[::1]8080\": expected [ADDR]:PORT");
	split_bad("[::1", "bad listen address \"[::1\": expected [ADDR]:PORT");
	split_bad("127.0.0.1:65536", "bad listen address \"127.0.0.1:65536\": bad port (0 to 65535)");
	split_bad("127.0.0.1:", "bad listen address \"127.0.0.1:\": bad port (0 to 65535)");
	split_bad("127.0.0.1:80x", "bad listen address \"127.0.0.1:80x\": bad port (0 to 65535)");
	split_bad("127.0.0.1:-1", "bad listen address \"127.0.0.1:-1\": bad port (0 to 65535)");
	split_bad("h:99999999999999999999", "bad listen address \"h:99999999999999999999\": bad port (0 to 65535)");
	split_bad("", "bad listen address \"\": expected HOST:PORT");
	/* 255 bytes of host fit, 256 do not */
	memset(longhost, 'a', 256);
	strcpy(longhost + 256, ":80");
	{
		struct dnsb_listen_spec ls;
		dnsb_error err = { 0, "" };
		assert_int_equal(dnsb_webhook_listen_split(&ls, longhost, &err), DNSB_EINVAL);
		assert_non_null(strstr(err.message, "\": host longer than 255 bytes"));
	}
	memmove(longhost + 255, longhost + 256, 4);
	{
		struct dnsb_listen_spec ls;
		dnsb_error err = { 0, "" };
		assert_int_equal(dnsb_webhook_listen_split(&ls, longhost, &err), 0);
		assert_int_equal(strlen(ls.host), 255);
		assert_int_equal(ls.port, 80);
	}
}

static void test_resolve(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len = 0;
	int v6 = -1;
	dnsb_error err = { 0, "" };
	const struct sockaddr_in *in = (const struct sockaddr_in *)&ss;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&ss;

	(void)state;
	assert_int_equal(dnsb_webhook_listen_resolve(&ss, &len, &v6, "127.0.0.1:8888", &err), 0);
	assert_int_equal(v6, 0);
	assert_int_equal(len, sizeof(struct sockaddr_in));
	assert_int_equal(in->sin_family, AF_INET);
	assert_int_equal(ntohs(in->sin_port), 8888);
	assert_int_equal(ntohl(in->sin_addr.s_addr), 0x7f000001);

	assert_int_equal(dnsb_webhook_listen_resolve(&ss, &len, &v6, "[::1]:80", &err), 0);
	assert_int_equal(v6, 1);
	assert_int_equal(len, sizeof(struct sockaddr_in6));
	assert_int_equal(ntohs(in6->sin6_port), 80);
	assert_true(IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr));

	/* ":PORT" is every IPv4 interface */
	assert_int_equal(dnsb_webhook_listen_resolve(&ss, &len, &v6, ":8080", &err), 0);
	assert_int_equal(v6, 0);
	assert_int_equal(in->sin_family, AF_INET);
	assert_int_equal(ntohs(in->sin_port), 8080);
	assert_int_equal(in->sin_addr.s_addr, htonl(INADDR_ANY));
}

static void test_resolve_errors(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len = 0;
	int v6 = -1;
	dnsb_error err = { 0, "" };

	(void)state;
	assert_int_equal(dnsb_webhook_listen_resolve(&ss, &len, &v6, "[::1]8080", &err), DNSB_EINVAL);
	assert_string_equal(err.message, "bad listen address \"[::1]8080\": expected [ADDR]:PORT");
	/* an address that is not one, bracketed so no lookup is made: getaddrinfo's words follow the spec */
	assert_int_equal(dnsb_webhook_listen_resolve(&ss, &len, &v6, "[1.2.3.4.5]:80", &err), DNSB_EINVAL);
	assert_int_equal(strncmp(err.message, "bad listen address \"[1.2.3.4.5]:80\": ", 37), 0);
	assert_true(strlen(err.message) > 37);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_split_errors),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_resolve_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
