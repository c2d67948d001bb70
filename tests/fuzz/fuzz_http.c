/*
 * fuzz_http.c - libFuzzer: any bytes as what an HTTP server answers the
 * one HTTP client of the providers (providers/http.c over libcurl): up to 4
 * whole answers (status line, headers, body), split at lines "=====", to
 * consecutive requests of one client (one handle, its connection reused
 * when an answer allows it, as a provider's is), served from a loopback
 * socket by a thread of this program. Covered: the header callback
 * (Content-Type, Retry-After, RateLimit, RateLimit-Policy), the body kept
 * up to max_body (64 bytes for inputs of odd size), and the reply read as
 * JSON. Each line of the input is also given to dnsb_http_retry_after and
 * dnsb_http_is_json directly. A reply must come back whole: a
 * NUL-terminated body of body_len <= max_body bytes, and a Retry-After of
 * seconds >= 0 or none (-1).
 */
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>

#include "providers/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static pthread_mutex_t answer_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *answer;   /* what the server sends next (a copy, under answer_lock) */
static size_t answer_len;
static int listen_fd = -1;
static char url[64];

/* An input holds up to ANSWERS_MAX answers, each ending at a line "=====". */
#define ANSWER_SEP "\n=====\n"
#ifndef ANSWERS_MAX
#define ANSWERS_MAX 4 /* -DANSWERS_MAX=1: one answer per client, to look past a bug that needs two */
#endif

/* Read the request up to the blank line that ends its headers (a GET has no body): nothing is left unread,
 * so the close after the answer is a FIN, not a reset that could cut the answer short. */
static void read_request(int fd)
{
	char buf[4096];
	size_t seen = 0;
	char tail[4] = { 0 };

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return;
		for (ssize_t i = 0; i < n; i++, seen++) {
			memmove(tail, tail + 1, 3);
			tail[3] = buf[i];
			if (seen >= 3 && memcmp(tail, "\r\n\r\n", 4) == 0)
				return;
		}
	}
}

static void *serve(void *arg)
{
	struct timeval tv = { 2, 0 };

	(void)arg;
	for (;;) {
		int fd = accept(listen_fd, NULL, NULL);
		uint8_t *copy;
		size_t len, off = 0;

		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		read_request(fd);
		pthread_mutex_lock(&answer_lock);
		len = answer_len;
		copy = malloc(len ? len : 1);
		if (copy)
			memcpy(copy, answer, len);
		pthread_mutex_unlock(&answer_lock);
		while (copy && off < len) {
			ssize_t n = send(fd, copy + off, len - off, MSG_NOSIGNAL);
			if (n <= 0)
				break;
			off += (size_t)n;
		}
		free(copy);
		shutdown(fd, SHUT_WR);
		close(fd);
	}
	return NULL;
}

static int start_server(void)
{
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	pthread_t t;
	int one = 1;

	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((listen_fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(listen_fd, 16) < 0 ||
	    getsockname(listen_fd, (struct sockaddr *)&sa, &salen) < 0 || pthread_create(&t, NULL, serve, NULL) != 0)
		return -1;
	pthread_detach(t);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/zones?page=1", ntohs(sa.sin_port));
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

/* The answer to the next request. */
static void set_answer(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);

	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	pthread_mutex_lock(&answer_lock);
	free(answer);
	answer = copy;
	answer_len = size;
	pthread_mutex_unlock(&answer_lock);
}

static void exchange(dnsb_http *h, size_t max_body)
{
	const char *headers[] = { "Accept: application/json", NULL };
	dnsb_http_request req = { "GET", url, headers, NULL, 0, 3.0 };
	dnsb_http_response resp;
	json_object *doc;
	dnsb_error err;

	if (dnsb_http_do(h, &req, &resp, &err) != 0)
		return;
	if (resp.body == NULL || resp.body[resp.body_len] != '\0' || resp.body_len > max_body ||
	    !(resp.retry_after == -1 || (isfinite(resp.retry_after) && resp.retry_after >= 0)))
		abort();
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

	if (listen_fd < 0 && start_server() != 0)
		abort();
	lines(data, size);
	/* One client per input, as a provider keeps one: its answers, one after another, on its one handle. */
	if (dnsb_http_new(&h, size % 2 ? &small : NULL, &err) != 0)
		abort();
	for (int n = 0; n < ANSWERS_MAX && (n == 0 || at < size); n++) {
		const uint8_t *next = memmem(data + at, size - at, ANSWER_SEP, sizeof(ANSWER_SEP) - 1);
		size_t len = next ? (size_t)(next - (data + at)) : size - at;

		set_answer(data + at, len);
		exchange(h, size % 2 ? 64 : 8u << 20);
		at += len + (next ? sizeof(ANSWER_SEP) - 1 : 0);
	}
	dnsb_http_free(h);
	return 0;
}
