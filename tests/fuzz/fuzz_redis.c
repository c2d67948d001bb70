/*
 * fuzz_redis.c - libFuzzer: any bytes as what Redis answers the rate
 * budget's connection (providers/ratelimit_redis.c, hiredis's RESP reader
 * underneath). dnsb_redis_connect speaks TCP to a host and port only, so a
 * thread of this program listens on loopback, waits for the first command,
 * answers the input (after its first byte) whole and closes its side; the
 * connection then reads its replies from that stream: AUTH (first byte & 1:
 * a password; & 2: an ACL user too), SELECT (& 4), SCRIPT LOAD, then two
 * EVALSHA takes, one slow and one take. A take that succeeds must answer a
 * wait and a rate that are numbers.
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

#include "providers/ratelimit_redis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static pthread_mutex_t answer_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *answer;   /* what the server sends next (a copy, under answer_lock) */
static size_t answer_len;
static int listen_fd = -1, port;

/* One connection: the first command read, the answer sent, our side closed, the rest drained until the client
 * closes (so that no unread byte turns the close into a reset that could cut the answer short). */
static void serve_one(int fd)
{
	struct timeval tv = { 2, 0 };
	char buf[4096];
	uint8_t *copy;
	size_t len, off = 0;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (recv(fd, buf, sizeof(buf), 0) <= 0)
		return;
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
	while (recv(fd, buf, sizeof(buf), 0) > 0)
		;
}

static void *serve(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = accept(listen_fd, NULL, NULL);
		if (fd < 0)
			continue;
		serve_one(fd);
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
	port = ntohs(sa.sin_port);
	return 0;
}

static void take(dnsb_redis *r)
{
	double wait = NAN, rate = NAN;
	dnsb_error err;

	if (dnsb_redis_take(r, "aws:123456789012", 5.0, 2.0, 30.0, &wait, &rate, &err) == 0 &&
	    (isnan(wait) || isnan(rate)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char host[] = "127.0.0.1", user[] = "dnsbatch", password[] = "fuzz-password";
	dnsb_redis_target target = { host, 0, 0, NULL, NULL };
	dnsb_redis *r;
	dnsb_error err;
	uint8_t *copy;

	if (listen_fd < 0 && start_server() != 0)
		abort();
	if (size == 0)
		return 0;
	target.port = port;
	target.password = data[0] & 1 ? password : NULL;
	target.user = data[0] & 2 ? user : NULL;
	target.db = data[0] & 4 ? 3 : 0;
	if ((copy = malloc(size)) == NULL)
		return 0;
	memcpy(copy, data + 1, size - 1);
	pthread_mutex_lock(&answer_lock);
	free(answer);
	answer = copy;
	answer_len = size - 1;
	pthread_mutex_unlock(&answer_lock);
	if (dnsb_redis_connect(&r, &target, 1.0, &err) != 0)
		return 0;
	take(r);
	take(r);
	(void)dnsb_redis_slow(r, "aws:123456789012", 10.0, &err);
	take(r);
	dnsb_redis_close(r);
	return 0;
}
