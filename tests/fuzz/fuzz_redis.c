/*
 * fuzz_redis.c - libFuzzer: any bytes as what Redis answers the rate
 * budget's connection (applier/net/ratelimit_redis.c, hiredis's RESP reader
 * underneath). dnsb_redis_connect speaks TCP to a host and port only, so a
 * thread of this program listens on loopback, waits for the first command,
 * answers the input (after its first byte) whole and closes its side; the
 * connection then reads its replies from that stream: AUTH (first byte & 1:
 * a password; & 2: an ACL user too), SELECT (& 4), SCRIPT LOAD, then two
 * EVALSHA takes, one slow and one take. A take that succeeds must answer a
 * wait and a rate that are numbers.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "applier/net/ratelimit_redis.h"
#include "fuzz_common.h"
#include "loopback_server.h"

/* The first command: one read (-1, nothing answered, when the client sent none). */
static int read_command(int fd)
{
	char buf[4096];

	return recv(fd, buf, sizeof(buf), 0) > 0 ? 0 : -1;
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
	int port = loopback_start(read_command, 1);

	if (port < 0)
		abort();
	if (size == 0)
		return 0;
	target.port = port;
	target.password = data[0] & 1 ? password : NULL;
	target.user = data[0] & 2 ? user : NULL;
	target.db = data[0] & 4 ? 3 : 0;
	if (loopback_answer(data + 1, size - 1) != 0)
		return 0;
	if (dnsb_redis_connect(&r, &target, 1.0, &err) != 0)
		return 0;
	take(r);
	take(r);
	(void)dnsb_redis_slow(r, "aws:123456789012", 10.0, &err);
	take(r);
	dnsb_redis_close(r);
	return 0;
}
