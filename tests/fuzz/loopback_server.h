/*
 * loopback_server.h - for the fuzz harnesses that play a TCP server to a client of the library
 * (fuzz_http.c, fuzz_redis.c): a thread of the program listens on 127.0.0.1 (a free port) and
 * answers each connection with the bytes last given to loopback_answer, whole, then closes its side.
 * Header-only (static functions): each harness is one .c file linked alone with libdnsbatch.a.
 *
 * Per connection: send and receive time out after 2 s; the harness's reader takes the request
 * (a return of -1 closes without answering); the answer is sent; our side is shut for writing; with
 * drain, what the client sends after is read until it closes (no unread byte turns the close into a
 * reset that could cut the answer short). SIGPIPE is ignored.
 */
#ifndef DNSB_TESTS_FUZZ_LOOPBACK_SERVER_H
#define DNSB_TESTS_FUZZ_LOOPBACK_SERVER_H

#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* Reads the request on fd; 0: answer it, -1: close without answering. */
typedef int (*loopback_reader)(int fd);

static pthread_mutex_t loopback_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *loopback_bytes; /* what the server sends next (a copy, under loopback_lock) */
static size_t loopback_len;
static int loopback_fd = -1;
static loopback_reader loopback_read;
static int loopback_drain;

/* The answer to the next connections: a copy of size bytes of data. @return 0, -1 out of memory (the
 * answer unchanged) */
static int loopback_answer(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);

	if (copy == NULL)
		return -1;
	if (size)
		memcpy(copy, data, size);
	pthread_mutex_lock(&loopback_lock);
	free(loopback_bytes);
	loopback_bytes = copy;
	loopback_len = size;
	pthread_mutex_unlock(&loopback_lock);
	return 0;
}

static void loopback_serve_one(int fd)
{
	struct timeval tv = { 2, 0 };
	char buf[4096];
	uint8_t *copy;
	size_t len, off = 0;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (loopback_read(fd) != 0)
		return;
	pthread_mutex_lock(&loopback_lock);
	len = loopback_len;
	copy = malloc(len ? len : 1);
	if (copy && len)
		memcpy(copy, loopback_bytes, len);
	pthread_mutex_unlock(&loopback_lock);
	while (copy && off < len) {
		ssize_t n = send(fd, copy + off, len - off, MSG_NOSIGNAL);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	free(copy);
	shutdown(fd, SHUT_WR);
	while (loopback_drain && recv(fd, buf, sizeof(buf), 0) > 0)
		;
}

static void *loopback_serve(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = accept(loopback_fd, NULL, NULL);
		if (fd < 0)
			continue;
		loopback_serve_one(fd);
		close(fd);
	}
	return NULL;
}

/* Starts the server once (later calls return the same port). read: the request reader; drain: read the
 * client's bytes after the answer until it closes. @return the port, or -1 when a socket call or the
 * thread fails */
static int loopback_start(loopback_reader read, int drain)
{
	static int port = -1;
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	pthread_t t;
	int one = 1;

	if (port >= 0)
		return port;
	loopback_read = read;
	loopback_drain = drain;
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((loopback_fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    setsockopt(loopback_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(loopback_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(loopback_fd, 16) < 0 ||
	    getsockname(loopback_fd, (struct sockaddr *)&sa, &salen) < 0 ||
	    pthread_create(&t, NULL, loopback_serve, NULL) != 0)
		return -1;
	pthread_detach(t);
	port = ntohs(sa.sin_port);
	return port;
}

#endif
