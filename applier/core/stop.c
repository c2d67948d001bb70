/* stop.c - the request to stop and the waits it ends (see stop.h): a flag and a self-pipe. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "applier/core/clock.h"
#include "applier/core/stop.h"

static volatile sig_atomic_t stop_asked;
/* The pipe's ends; -1 until dnsb_stop_init. The read end is never read: once
 * a byte is in it, every poll answers at once, for every thread. */
static volatile sig_atomic_t pipe_rd = -1, pipe_wr = -1;

int dnsb_stop_init(void)
{
	int fds[2];

	if (pipe_rd >= 0)
		return 0;
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	pipe_rd = fds[0];
	pipe_wr = fds[1];
	return 0;
}

void dnsb_stop_request(void)
{
	int saved = errno;

	stop_asked = 1;
	if (pipe_wr >= 0 && write(pipe_wr, "s", 1) < 0) {
		/* full: asked before, so already readable */
	}
	errno = saved;
}

int dnsb_stop_requested(void)
{
	return stop_asked != 0;
}

int dnsb_stop_sleep(double seconds)
{
	double end = dnsb_monotonic() + seconds;

	while (!stop_asked) {
		double left = end - dnsb_monotonic();
		struct pollfd p = { pipe_rd, POLLIN, 0 };

		if (!(left > 0))
			return 0;
		/* ceil to the millisecond (a wait ends at or after its time), a minute at most per poll */
		if (poll(&p, pipe_rd >= 0 ? 1 : 0, left > 60.0 ? 60000 : (int)(left * 1000.0) + 1) > 0)
			return 1;
	}
	return 1;
}
