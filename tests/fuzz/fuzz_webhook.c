/*
 * fuzz_webhook.c - the provider port as a client sees it: request dispatch
 * and body handling of GET /, GET /records, POST /records and POST
 * /adjustendpoints, through the real server (libmicrohttpd on a loopback
 * port, started once) and the memory provider behind it, declared to store
 * aliases.
 *
 * The first byte picks the route, the method and the headers (media type or
 * not, a loopback Host or not, Content-Length or chunked); the rest is the
 * body. With its top bit set, the Host and Content-Type values come from the
 * input too (each up to a newline) before the body: the Host and media type
 * checks see any bytes libmicrohttpd lets through. Each input is one request
 * on its own connection, read to the end.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "dnsbatch/dnsbatch.h"
#include "dnsbatch/memory.h"
#include "dnsbatch/sys/provider.h"
#include "dnsbatch/webhook.h"
#include "fuzz_common.h"

static dnsb_webhook *server;
static unsigned port;

static void start(void)
{
	static const char *const zones[] = { "example.com" };
	dnsb_webhook_options wo = DNSB_WEBHOOK_OPTIONS_INIT;
	dnsb_provider *p = NULL;
	dnsb_error err = { 0, "" };

	dnsb_log_set_level(DNSB_LOG_ERROR); /* quiet: most inputs are refused */
	dnsb_provider_limits limits;

	if (dnsb_memory_new(&p, zones, 1, NULL, &err) != 0)
		abort();
	/* The memory store keeps RRsets as given: declared to store aliases, it lets the sidecar's alias paths
	 * (AdjustEndpoints keeping their properties, an alias CNAME split in two) be fuzzed too. */
	limits = *dnsb_provider_get_limits(p);
	limits.aliases = 1;
	dnsb_provider_set_limits(p, &limits);
	wo.listen = "127.0.0.1:0";
	wo.metrics_listen = NULL;
	wo.apply_timeout = 2;
	if (dnsb_webhook_start(&server, p, &wo, &err) != 0)
		abort();
	port = dnsb_webhook_port(server, 0);
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The next line of the input (without its newline), at most `size` - 1 bytes, into buf; *at moves past it. */
static void take_line(char *buf, size_t size, const uint8_t *data, size_t len, size_t *at)
{
	size_t n = 0;

	while (*at < len && data[*at] != '\n') {
		if (n + 1 < size && data[*at] != '\0')
			buf[n++] = (char)data[*at];
		(*at)++;
	}
	if (*at < len)
		(*at)++;
	buf[n] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const routes[][2] = {
		{ "GET", "/" }, { "GET", "/records" }, { "POST", "/records" }, { "POST", "/adjustendpoints" },
		{ "PUT", "/records" }, { "GET", "/adjustendpoints" }, { "GET", "/x/../records" }, { "POST", "/" },
	};
	struct sockaddr_in a = { 0 };
	struct timeval tv = { 5, 0 };
	char head[1024], buf[4096], host[256], ctype[256];
	size_t at = 1;
	unsigned sel;
	int fd, chunked;

	if (server == NULL)
		start();
	if (size == 0)
		return 0;
	sel = data[0];
	chunked = (sel & 0x40) != 0;
	strcpy(host, sel & 0x10 ? "attacker.example" : "localhost:8888");
	strcpy(ctype, sel & 0x08 ? "text/plain" : DNSB_WEBHOOK_MEDIA_TYPE);
	if (sel & 0x80) {
		take_line(host, sizeof(host), data, size, &at);
		take_line(ctype, sizeof(ctype), data, size, &at);
	}
	data += at - 1; /* the body: data + 1 .. data + size - 1, as without headers from the input */
	size -= at - 1;
	snprintf(head, sizeof(head), "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\n%s", routes[sel & 7][0],
		 routes[sel & 7][1], host, ctype, sel & 0x20 ? "Accept: " DNSB_WEBHOOK_MEDIA_TYPE "\r\n" : "");
	if (chunked)
		snprintf(head + strlen(head), sizeof(head) - strlen(head), "Transfer-Encoding: chunked\r\n");
	else
		snprintf(head + strlen(head), sizeof(head) - strlen(head), "Content-Length: %zu\r\n", size - 1);
	snprintf(head + strlen(head), sizeof(head) - strlen(head), "Connection: close\r\n\r\n");
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		return 0;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && send_all(fd, head, strlen(head)) == 0) {
		int ok = 0;
		if (chunked) {
			char len[32];
			snprintf(len, sizeof(len), "%zx\r\n", size - 1);
			ok = (size == 1 || (send_all(fd, len, strlen(len)) == 0 &&
					    send_all(fd, (const char *)data + 1, size - 1) == 0 && send_all(fd, "\r\n", 2) == 0)) &&
			     send_all(fd, "0\r\n\r\n", 5) == 0;
		} else {
			ok = send_all(fd, (const char *)data + 1, size - 1) == 0;
		}
		while (ok && recv(fd, buf, sizeof(buf), 0) > 0)
			;
	}
	close(fd);
	return 0;
}
