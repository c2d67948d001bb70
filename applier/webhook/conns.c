/*
 * conns.c - room for new connections. Each listener keeps at most
 * DNSB_WEBHOOK_CONN_CAP connections; one more closes the connection that has
 * been idle longest (no request being read or answered: a keep-alive left
 * open, or headers never finished), so that anyone able to open sockets -
 * on the metrics port, reachable from the network, or a local process on
 * the provider port - cannot keep /healthz failing or external-dns waiting.
 * libmicrohttpd's own timeout (CONNECTION_TIMEOUT in server.c) bounds how
 * long an idle connection lives when there is no pressure.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "dnsbatch/log.h"
#include "applier/core/clock.h"
#include "applier/webhook/internal.h"

struct conn {
	MHD_socket fd;
	int busy;        /* a request is being read, handled or answered */
	int closing;     /* shut down by us; libmicrohttpd closes it */
	double since;    /* when it last became idle (monotonic seconds) */
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
	c->since = dnsb_monotonic();
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

void dnsb_webhook_conn_busy(struct listener *l, struct MHD_Connection *mc, int busy)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *c = info ? info->socket_context : NULL;

	if (c == NULL)
		return;
	pthread_mutex_lock(&l->conn_lock);
	c->busy = busy;
	if (!busy)
		c->since = dnsb_monotonic();
	pthread_mutex_unlock(&l->conn_lock);
}
