/*
 * test_webhook_http.c - the sidecar's HTTP corners, with raw sockets against
 * an in-process server on free loopback ports (memory provider): idle and
 * half-sent connections cannot keep the liveness probe or external-dns out
 * and are closed after the connection timeout; a body that will not be used
 * is never waited for; refusals (415, 421, 413) come before the body; the
 * allowed Host names; libmicrohttpd's per-connection messages logged once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dnsbatch/dnsbatch.h"
#include "dnsbatch/memory.h"
#include "dnsbatch/webhook.h"

#define MEDIA_TYPE DNSB_WEBHOOK_MEDIA_TYPE
#define IDLE 300

typedef struct server {
	dnsb_provider *provider;
	dnsb_webhook *wh;
	unsigned api, mon;      /* ports */
} server;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Start on free loopback ports (or `listen`), readiness awaited. */
static void server_start(server *s, const char *listen, unsigned timeout, const char *const *allowed, size_t n)
{
	static const char *const zones[] = { "example.com" };
	dnsb_webhook_options wo = DNSB_WEBHOOK_OPTIONS_INIT;
	dnsb_error err = { 0 };

	memset(s, 0, sizeof(*s));
	assert_int_equal(dnsb_memory_new(&s->provider, zones, 1, NULL, &err), 0);
	wo.listen = listen ? listen : "127.0.0.1:0";
	wo.metrics_listen = "127.0.0.1:0";
	wo.probe_interval = 0.05;
	wo.max_body_size = 4096;
	wo.connection_timeout = timeout;
	wo.allowed_hosts = allowed;
	wo.allowed_host_count = n;
	assert_int_equal(dnsb_webhook_start(&s->wh, s->provider, &wo, &err), 0);
	s->api = dnsb_webhook_port(s->wh, 0);
	s->mon = dnsb_webhook_port(s->wh, 1);
	for (int i = 0; i < 200 && !dnsb_webhook_ready(s->wh); i++)
		usleep(10 * 1000);
	assert_true(dnsb_webhook_ready(s->wh));
}

static void server_stop(server *s)
{
	dnsb_webhook_free(s->wh);
	dnsb_provider_free(s->provider);
}

static int connect_to(unsigned port)
{
	struct sockaddr_in a = { 0 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Read what comes within `seconds`, until the peer closes or the head of a reply is in.
 * @return the status of the reply, 0 when the connection closed without one, -1 on timeout */
static int read_status(int fd, double seconds, char *buf, size_t size)
{
	double until = now_s() + seconds;
	size_t len = 0;

	buf[0] = '\0';
	while (len + 1 < size && strstr(buf, "\r\n\r\n") == NULL) {
		struct pollfd p = { fd, POLLIN, 0 };
		double left = until - now_s();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0)
			return -1;
		n = recv(fd, buf + len, size - 1 - len, 0);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
	}
	return strncmp(buf, "HTTP/1.", 7) == 0 && len > 12 ? atoi(buf + 9) : 0;
}

/* One request on a new connection (the whole text given); its status, and the seconds it took. */
static int request(unsigned port, const char *text, double *took)
{
	char buf[4096];
	double t0 = now_s();
	int fd = connect_to(port), status;

	assert_true(fd >= 0);
	assert_int_equal(send(fd, text, strlen(text), MSG_NOSIGNAL), (ssize_t)strlen(text));
	status = read_status(fd, 5.0, buf, sizeof(buf));
	if (took)
		*took = now_s() - t0;
	close(fd);
	return status;
}

/* Has the server closed this connection (EOF or reset) within `seconds`? */
static int closed_within(int fd, double seconds)
{
	double until = now_s() + seconds;
	char c;

	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		double left = until - now_s();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0)
			return 0;
		n = recv(fd, &c, 1, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
			return 1;
	}
}

/* Room for 2 x 300 client sockets and as many on the server side, in one process. */
static int enough_descriptors(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;
	if (rl.rlim_cur < 2000 && rl.rlim_max >= 2000) {
		rl.rlim_cur = rl.rlim_max < 8192 ? rl.rlim_max : 8192;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			return 0;
	}
	return rl.rlim_cur >= 2000;
}

static const char healthz[] = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
static const char negotiate[] = "GET / HTTP/1.1\r\nHost: localhost:8888\r\nAccept: " MEDIA_TYPE "\r\n"
				"Connection: close\r\n\r\n";

/* 300 connections on `port` that say nothing, half a request line or half the headers. */
static void open_idle(int *fds, unsigned port)
{
	for (int i = 0; i < IDLE; i++) {
		fds[i] = connect_to(port);
		assert_true(fds[i] >= 0);
		if (i % 3 == 1)
			assert_true(send(fds[i], "GET /healthz HT", 15, MSG_NOSIGNAL) == 15);
		else if (i % 3 == 2)
			assert_true(send(fds[i], "GET / HTTP/1.1\r\nHost: localhost\r\n", 33, MSG_NOSIGNAL) == 33);
	}
}

/* 300 idle connections on each port: the probe's /healthz and external-dns's GET / still answer within 1 s. */
static void test_idle_connections(void **state)
{
	int fds[2][IDLE];
	double took_h, took_n;
	server s;
	(void)state;

	if (!enough_descriptors())
		skip();
	server_start(&s, NULL, 0, NULL, 0);
	open_idle(fds[0], s.api);
	open_idle(fds[1], s.mon);
	assert_int_equal(request(s.mon, healthz, &took_h), 200);
	assert_int_equal(request(s.api, negotiate, &took_n), 200);
	print_message("with %d idle connections on each port: /healthz %.1f ms, GET / %.1f ms\n", IDLE,
		      took_h * 1000, took_n * 1000);
	assert_true(took_h < 1.0);
	assert_true(took_n < 1.0);
	for (int p = 0; p < 2; p++)
		for (int i = 0; i < IDLE; i++)
			close(fds[p][i]);
	server_stop(&s);
}

/* Each idle connection is closed after the connection timeout (2 s here; libmicrohttpd counts whole seconds). */
static void test_idle_connections_closed(void **state)
{
	int fds[2][IDLE];
	double t0;
	server s;
	(void)state;

	if (!enough_descriptors())
		skip();
	server_start(&s, NULL, 2, NULL, 0);
	open_idle(fds[0], s.api);
	open_idle(fds[1], s.mon);
	t0 = now_s();
	for (int p = 0; p < 2; p++)
		for (int i = 0; i < IDLE; i++) {
			if (!closed_within(fds[p][i], 5.0 - (now_s() - t0)))
				fail_msg("%s connection %d still open %.1f s after a 2 s timeout", p ? "metrics" : "api",
					 i, now_s() - t0);
			close(fds[p][i]);
		}
	print_message("all %d closed by the server within %.1f s\n", 2 * IDLE, now_s() - t0);
	server_stop(&s);
}

/*
 * A request that announces a body its route does not read is answered at
 * once and its connection closed: 300 of them, bodies never sent, hold
 * nothing, and the probe still gets in. (Before, each held a connection
 * "busy" until its body came: 256 shut the metrics port.)
 */
static void test_unread_body_not_awaited(void **state)
{
	static const char post_healthz[] = "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n";
	int fds[IDLE];
	char buf[1024];
	double took;
	server s;
	(void)state;

	if (!enough_descriptors())
		skip();
	server_start(&s, NULL, 0, NULL, 0);
	for (int i = 0; i < IDLE; i++) {
		fds[i] = connect_to(s.mon);
		assert_true(fds[i] >= 0);
		assert_int_equal(send(fds[i], post_healthz, strlen(post_healthz), MSG_NOSIGNAL), (ssize_t)strlen(post_healthz));
		assert_int_equal(read_status(fds[i], 2.0, buf, sizeof(buf)), 405);
	}
	assert_int_equal(request(s.mon, healthz, &took), 200);
	assert_true(took < 1.0);
	for (int i = 0; i < IDLE; i++) {
		assert_true(closed_within(fds[i], 2.0));
		close(fds[i]);
	}
	/* The same on the provider port: GET / with a body announced answers without it. */
	assert_int_equal(request(s.api, "GET / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n\r\n", &took), 200);
	assert_true(took < 1.0);
	assert_int_equal(request(s.api, "PUT /records HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n",
				 &took), 400);
	server_stop(&s);
}

/* 415, 421 and 413 are answered from the headers: the body is never awaited. */
static void test_refusals_before_body(void **state)
{
	server s;
	double took;
	(void)state;

	server_start(&s, NULL, 0, NULL, 0);
	assert_int_equal(request(s.api, "POST /records HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n"
				 "Content-Length: 1000\r\n\r\n", &took), 415);
	assert_true(took < 1.0);
	assert_int_equal(request(s.api, "POST /adjustendpoints HTTP/1.1\r\nHost: localhost\r\n"
				 "Content-Length: 1000\r\n\r\n", &took), 415);
	assert_true(took < 1.0);
	assert_int_equal(request(s.api, "POST /records HTTP/1.1\r\nHost: rebound.example\r\nContent-Type: " MEDIA_TYPE
				 "\r\nContent-Length: 1000\r\n\r\n", &took), 421);
	assert_true(took < 1.0);
	assert_int_equal(request(s.api, "POST /records HTTP/1.1\r\nHost: localhost\r\nContent-Type: " MEDIA_TYPE
				 "\r\nContent-Length: 5000\r\n\r\n", &took), 413);
	assert_true(took < 1.0);
	/* The media type compared without blanks and case; its version must be 1. */
	assert_int_equal(request(s.api, "POST /records HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
				 "Application/External.DNS.Webhook+JSON; version=1\r\nContent-Length: 2\r\n\r\n{}", NULL), 204);
	assert_int_equal(request(s.api, "POST /records HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
				 "application/external.dns.webhook+json;version=2\r\nContent-Length: 2\r\n\r\n{}", NULL), 415);
	/* external-dns's webhook_test.go: a null plan succeeds. */
	assert_int_equal(request(s.api, "POST /records HTTP/1.1\r\nHost: localhost:8888\r\nContent-Type: " MEDIA_TYPE
				 "\r\nContent-Length: 4\r\n\r\nnull", NULL), 204);
	server_stop(&s);
}

/* Loopback names and addresses, and --allowed-host names, with or without a port. */
static void test_allowed_hosts(void **state)
{
	static const char *const allowed[] = { "dnsbatch.dns.svc", "sidecar.example:8888" };
	static const struct { const char *host; int status; } cases[] = {
		{ "localhost", 200 }, { "LOCALHOST:8888", 200 }, { "localhost.:1", 200 }, { "127.0.0.1", 200 },
		{ "127.1.2.3:8888", 200 }, { "[::1]", 200 }, { "[::1]:8888", 200 },
		{ "dnsbatch.dns.svc", 200 }, { "DNSBatch.dns.svc:8888", 200 }, { "sidecar.example:8888", 200 },
		{ "sidecar.example:9999", 421 }, { "rebound.example", 421 }, { "128.0.0.1", 421 },
		{ "[::2]:8888", 421 }, { "localhost.rebound.example", 421 }, { "", 421 },
	};
	char text[256];
	server s;
	(void)state;

	server_start(&s, NULL, 0, allowed, 2);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int status;
		snprintf(text, sizeof(text), "GET /records HTTP/1.1\r\nHost: %s\r\nAccept: " MEDIA_TYPE "\r\n"
			 "Connection: close\r\n\r\n", cases[i].host);
		status = request(s.api, text, NULL);
		if (status != cases[i].status)
			fail_msg("Host: \"%s\": %d, want %d", cases[i].host, status, cases[i].status);
	}
	/* No Host at all (HTTP/1.0): not a loopback name either. */
	assert_int_equal(request(s.api, "GET / HTTP/1.0\r\n\r\n", NULL), 421);
	/* /healthz and /metrics are open to any Host. */
	assert_int_equal(request(s.api, "GET /healthz HTTP/1.1\r\nHost: rebound.example\r\n\r\n", NULL), 200);
	server_stop(&s);

	/* A listener on every interface (behind a Service) checks no Host. */
	server_start(&s, ":0", 0, NULL, 0);
	assert_int_equal(request(s.api, "GET / HTTP/1.1\r\nHost: dnsbatch.dns.svc.cluster.local:8888\r\n\r\n", NULL), 200);
	server_stop(&s);
}

/* Routes as external-dns's reference server (provider/webhook/api/httpapi.go) has them. */
static void test_reference_routes(void **state)
{
	server s;
	(void)state;

	server_start(&s, NULL, 0, NULL, 0);
	/* Its mux sends every unknown path, whatever the method, to the negotiation handler. */
	assert_int_equal(request(s.api, "POST / HTTP/1.1\r\nHost: localhost\r\n\r\n", NULL), 200);
	assert_int_equal(request(s.api, "DELETE /anything/else HTTP/1.1\r\nHost: localhost\r\n\r\n", NULL), 200);
	assert_int_equal(request(s.api, "GET /records/ HTTP/1.1\r\nHost: localhost\r\n\r\n", NULL), 200);
	/* RecordsHandler and AdjustEndpointsHandler: 400 for other methods. */
	assert_int_equal(request(s.api, "PATCH /records HTTP/1.1\r\nHost: localhost\r\n\r\n", NULL), 400);
	assert_int_equal(request(s.api, "GET /adjustendpoints HTTP/1.1\r\nHost: localhost\r\n\r\n", NULL), 400);
	/* The metrics port keeps 404 for what it does not serve. */
	assert_int_equal(request(s.mon, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", NULL), 404);
	assert_int_equal(request(s.mon, "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n", NULL), 200);
	server_stop(&s);
}

/* Count the lines of a file holding `needle`. */
static int count_lines(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	char line[2048];
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

/*
 * Past the cap, the room made for new connections is logged once; and
 * libmicrohttpd's message for each client that hangs up mid-request (a TCP
 * probe, a scanner) is not repeated for every connection.
 */
static void test_logged_once(void **state)
{
	char path[] = "/tmp/dnsbatch-test-http-log-XXXXXX";
	int fds[IDLE], saved, logfd;
	server s;
	(void)state;

	if (!enough_descriptors())
		skip();
	logfd = mkstemp(path);
	assert_true(logfd >= 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(logfd, STDERR_FILENO);
	dnsb_log_set_level(DNSB_LOG_WARN);
	server_start(&s, NULL, 0, NULL, 0);
	for (int i = 0; i < IDLE; i++) {
		fds[i] = connect_to(s.mon);
		assert_true(fds[i] >= 0);
		assert_true(send(fds[i], "GET /healthz HTTP/1.1\r\n", 23, MSG_NOSIGNAL) == 23);
		usleep(1000);
	}
	for (int i = 0; i < IDLE; i++)
		close(fds[i]);
	usleep(300 * 1000);
	server_stop(&s);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(logfd);
	dnsb_log_set_level(DNSB_LOG_ERROR);
	assert_int_equal(count_lines(path, "closing the longest idle one"), 1);
	assert_true(count_lines(path, "warn http: ") <= 3);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_connections),
		cmocka_unit_test(test_idle_connections_closed),
		cmocka_unit_test(test_unread_body_not_awaited),
		cmocka_unit_test(test_refusals_before_body),
		cmocka_unit_test(test_allowed_hosts),
		cmocka_unit_test(test_reference_routes),
		cmocka_unit_test(test_logged_once),
	};

	dnsb_log_set_level(DNSB_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
