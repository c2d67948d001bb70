/*
 * conns.c - room for new connections. Each listener keeps at most
 * DNSB_WEBHOOK_CONN_CAP connections; one more closes the connection that has
 * been idle longest (no request being read or answered: a keep-alive left
 * open, or headers never finished), so that anyone able to open sockets -
 * on the metrics port, reachable from the network, or a local process on
 * the provider port - cannot keep /healthz failing or external-dns waiting.
 * libmicrohttpd's own timeout (CONNECTION_TIMEOUT in server.c) bounds how
 * long an idle connection lives when there is no pressure.
 *
 * That timeout is reset by every byte, so a client sending one header byte a
 * second would keep its connection for ever. The reaper (dnsb_webhook_reaper_main)
 * bounds the time to receive a whole request, headers and body: from the
 * connection's opening for its first request; for a later one, from the end
 * of its request line (or, when that line never ends, from the end of the
 * idle timeout after the previous reply). Past the bound the connection is
 * shut down. A request received whole is not bound: its handling has its own
 * deadline (--apply-timeout).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "dnsbatch/log.h"
#include "applier/core/clock.h"
#include "applier/webhook/internal.h"

struct conn {
	MHD_socket fd;
	int busy;        /* a request is being read, handled or answered */
	int closing;     /* shut down by us; libmicrohttpd closes it */
	double since;    /* when it last became idle (monotonic seconds) */
	int answered;    /* a reply went out on it: later requests are keep-alive ones */
	int received;    /* the request in progress is in whole (or answered early) */
	double opened;   /* accepted (monotonic seconds) */
	double line_at;  /* the request line in progress ended, or 0 */
};

/* The oldest idle connection, or -1. Under l->conn_lock. */
static long oldest_idle(const struct listener *l)
{
	long best = -1;

	for (size_t i = 0; i < l->conn_count; i++) {
		const struct conn *c = l->conns[i];
		if (!c->busy && !c->closing && (best < 0 || c->since < l->conns[best]->since))
			best = (long)i;
	}
	return best;
}

static void started(struct listener *l, struct MHD_Connection *mc, void **ctx)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct conn *c = calloc(1, sizeof(*c));
	long victim;

	if (c == NULL || info == NULL) {
		free(c);
		return;
	}
	c->fd = info->connect_fd;
	c->since = c->opened = dnsb_monotonic();
	pthread_mutex_lock(&l->conn_lock);
	if (l->conn_count >= DNSB_WEBHOOK_CONN_CAP && (victim = oldest_idle(l)) >= 0) {
		l->conns[victim]->closing = 1;
		shutdown(l->conns[victim]->fd, SHUT_RDWR); /* libmicrohttpd sees the end and closes it */
		if (!l->cap_logged)
			dnsb_log(DNSB_LOG_WARN, "%s: %d connections open: closing the longest idle one for each new "
				 "one (logged once)", l->name, DNSB_WEBHOOK_CONN_CAP);
		l->cap_logged = 1;
	}
	if (l->conn_count < DNSB_WEBHOOK_CONN_MAX) {
		l->conns[l->conn_count++] = c;
		*ctx = c;
	} else {
		free(c);
	}
	pthread_mutex_unlock(&l->conn_lock);
}

static void closed(struct listener *l, void **ctx)
{
	struct conn *c = *ctx;

	if (c == NULL)
		return;
	pthread_mutex_lock(&l->conn_lock);
	for (size_t i = 0; i < l->conn_count; i++) {
		if (l->conns[i] == c) {
			l->conns[i] = l->conns[--l->conn_count];
			break;
		}
	}
	pthread_mutex_unlock(&l->conn_lock);
	free(c);
	*ctx = NULL;
}

void dnsb_webhook_on_connection(void *cls, struct MHD_Connection *mc, void **ctx,
				enum MHD_ConnectionNotificationCode code)
{
	struct listener *l = cls;

	if (code == MHD_CONNECTION_NOTIFY_STARTED)
		started(l, mc, ctx);
	else
		closed(l, ctx);
}

static struct conn *conn_of(struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return info ? info->socket_context : NULL;
}

void dnsb_webhook_conn_busy(struct listener *l, struct MHD_Connection *mc, int busy)
{
	struct conn *c = conn_of(mc);

	if (c == NULL)
		return;
	pthread_mutex_lock(&l->conn_lock);
	c->busy = busy;
	if (!busy) {
		c->since = dnsb_monotonic();
		c->answered = 1;
		c->received = 0;
		c->line_at = 0;
	}
	pthread_mutex_unlock(&l->conn_lock);
}

void dnsb_webhook_conn_progress(struct listener *l, struct MHD_Connection *mc, int received)
{
	struct conn *c = conn_of(mc);

	if (c == NULL)
		return;
	pthread_mutex_lock(&l->conn_lock);
	if (received)
		c->received = 1;
	else
		c->line_at = dnsb_monotonic();
	pthread_mutex_unlock(&l->conn_lock);
}

/* When must the request in progress on c be in whole? (See the top of this file.) */
static double receive_deadline(const struct conn *c, double bound, double idle)
{
	double deadline = c->answered ? c->since + idle + bound : c->opened + bound;

	if (c->line_at > 0 && c->line_at + bound < deadline)
		deadline = c->line_at + bound;
	return deadline;
}

/* Shut down the connections of l whose request is late. @return how many */
static size_t expire(struct listener *l, double now, double bound, double idle)
{
	size_t n = 0;

	pthread_mutex_lock(&l->conn_lock);
	for (size_t i = 0; i < l->conn_count; i++) {
		struct conn *c = l->conns[i];
		if (c->closing || c->received || now <= receive_deadline(c, bound, idle))
			continue;
		c->closing = 1;
		shutdown(c->fd, SHUT_RDWR);
		n++;
	}
	pthread_mutex_unlock(&l->conn_lock);
	return n;
}

/* Wait on wh->cond (wh->lock held) for at most `seconds`. */
static void wait_seconds(dnsb_webhook *wh, double seconds)
{
	struct timespec ts = dnsb_wall_deadline(seconds);

	pthread_cond_timedwait(&wh->cond, &wh->lock, &ts);
}

void *dnsb_webhook_reaper_main(void *arg)
{
	dnsb_webhook *wh = arg;
	double bound = wh->request_timeout, step = bound / 4 < 0.1 ? 0.1 : bound / 4 > 1 ? 1 : bound / 4;
	int logged = 0;

	pthread_mutex_lock(&wh->lock);
	while (!wh->stopping) {
		struct listener *ls[2] = { &wh->api, &wh->mon };
		size_t n = 0;
		pthread_mutex_unlock(&wh->lock);
		for (int i = 0; i < 2; i++)
			if (ls[i]->daemon)
				n += expire(ls[i], dnsb_monotonic(), bound, ls[i]->idle_timeout);
		if (n > 0 && !logged)
			dnsb_log(DNSB_LOG_WARN, "closed %zu connection(s) whose request did not arrive whole within "
				 "%.0f s (--request-timeout; logged once)", n, bound);
		logged |= n > 0;
		pthread_mutex_lock(&wh->lock);
		wait_seconds(wh, step);
	}
	pthread_mutex_unlock(&wh->lock);
	return NULL;
}
