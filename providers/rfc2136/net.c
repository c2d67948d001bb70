/*
 * net.c - one DNS exchange with the server over TCP, with a timeout
 * and TSIG.
 *
 * Every message goes over TCP, also those that would fit a 512-byte UDP
 * datagram: a lost datagram looks like a slow server until the timeout runs
 * out (and an unreachable port stays silent over UDP, where TCP is refused at
 * once), while a pooled TCP connection costs the same single round trip.
 * TCP carries up to 64 KiB per message (RFC 1035 §4.2.2); larger batches are
 * refused locally as too large, to be split by the engine.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "applier/core/clock.h"
#include "internal.h"

/* RFC 8945 §4.5.2: the recommended fudge, seconds. */
#define TSIG_FUDGE 300
/*
 * Room for the TSIG RR: key and algorithm names (255 octets each at most),
 * RR header 10, time 6, fudge 2, MAC size 2 + MAC 64 (SHA-512), original
 * ID 2, error 2, other length 2.
 */
#define TSIG_RESERVE (255 + 255 + 10 + 6 + 2 + 2 + 64 + 2 + 2 + 2)

int dnsb_rfc2136_net_init(dnsb_rfc2136_net *net, const dnsb_rfc2136_config *cfg, dnsb_error *err)
{
	struct addrinfo hints, *ai = NULL;
	char port[8], host[64];
	int gai;

	memset(net, 0, sizeof(*net));
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(port, sizeof(port), "%u", cfg->port);
	if ((gai = getaddrinfo(cfg->host, port, &hints, &ai)) != 0 || ai == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "--rfc2136-host %s: %s", cfg->host,
				      gai ? gai_strerror(gai) : "no address");
	for (struct addrinfo *a = ai; a != NULL && net->addr_count < DNSB_RFC2136_ADDRS_MAX; a = a->ai_next) {
		if (a->ai_addrlen > sizeof(net->addr[0]))
			continue;
		memcpy(&net->addr[net->addr_count], a->ai_addr, a->ai_addrlen);
		net->addrlen[net->addr_count++] = a->ai_addrlen;
	}
	/* A literal address names itself in messages; a host name is named as given. */
	if (getnameinfo(ai->ai_addr, ai->ai_addrlen, host, sizeof(host), NULL, 0, NI_NUMERICHOST) != 0 ||
	    strcmp(host, cfg->host) != 0)
		snprintf(host, sizeof(host), "%s", cfg->host);
	freeaddrinfo(ai);
	if (net->addr_count == 0)
		return dnsb_error_set(err, DNSB_EINVAL, "--rfc2136-host %s: no usable address", cfg->host);
	snprintf(net->server, sizeof(net->server), "%s#%u", host, cfg->port);
	net->timeout.tv_sec = (time_t)cfg->timeout;
	net->timeout.tv_usec = (suseconds_t)((cfg->timeout - (double)net->timeout.tv_sec) * 1e6);
	if (!cfg->insecure) {
		net->keyname = cfg->keyname;
		net->algorithm = cfg->algorithm;
		net->secret = cfg->secret;
	}
	if (pthread_mutex_init(&net->lock, NULL) != 0)
		return dnsb_error_set(err, DNSB_ERROR, "pthread_mutex_init failed");
	return 0;
}

void dnsb_rfc2136_net_close(dnsb_rfc2136_net *net)
{
	for (size_t i = 0; i < net->pool_count; i++)
		close(net->pool[i]);
	net->pool_count = 0;
	pthread_mutex_destroy(&net->lock);
}

static double tv_seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static double timeout_seconds(const dnsb_rfc2136_net *net)
{
	return tv_seconds(net->timeout);
}

struct timeval dnsb_rfc2136_wait_for(const dnsb_rfc2136_net *net, double limit)
{
	struct timeval tv = net->timeout;

	if (limit > 0 && limit < timeout_seconds(net)) {
		tv.tv_sec = (time_t)limit;
		tv.tv_usec = (suseconds_t)((limit - (double)tv.tv_sec) * 1e6);
	}
	return tv;
}


/* Is an idle pooled connection still open? Anything to read on it (the server's close, a reset) says no. */
static int idle_open(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, 0) == 0;
}

int dnsb_rfc2136_pool_take(dnsb_rfc2136_net *net)
{
	int fd = -1;

	pthread_mutex_lock(&net->lock);
	while (fd < 0 && net->pool_count > 0) {
		fd = net->pool[--net->pool_count];
		if (!idle_open(fd)) {
			close(fd); /* closed by the server while idle: not a connection to send on */
			fd = -1;
		}
	}
	pthread_mutex_unlock(&net->lock);
	return fd;
}

void dnsb_rfc2136_pool_give(dnsb_rfc2136_net *net, int fd)
{
	pthread_mutex_lock(&net->lock);
	if (net->pool_count < DNSB_RFC2136_POOL_MAX) {
		net->pool[net->pool_count++] = fd;
		fd = -1;
	}
	pthread_mutex_unlock(&net->lock);
	if (fd >= 0)
		close(fd);
}

int dnsb_rfc2136_connect(dnsb_rfc2136_net *net, int *fd, struct timeval wait, dnsb_error *err)
{
	size_t first = net->preferred;

	errno = 0;
	for (size_t k = 0; k < net->addr_count; k++) {
		size_t i = (first + k) % net->addr_count;
		/* Not ldns_tcp_connect: it returns 0 (stdin) on failure. */
		*fd = ldns_tcp_connect2(&net->addr[i], net->addrlen[i], wait);
		if (*fd >= 0) {
			int one = 1;
			/* Pipelined queries are small writes in a row: Nagle would hold each back for an ACK
			 * the server delays (40 ms). Best effort: without it only pipelining is slower. */
			(void)setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			net->preferred = i;
			return 0;
		}
	}
	if (errno != 0)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "cannot connect to %s: %s", net->server, strerror(errno));
	return dnsb_error_set(err, DNSB_ETRANSIENT, "cannot connect to %s: no answer within %g s", net->server,
			      tv_seconds(wait));
}

/*
 * ldns writes with sendto() and no MSG_NOSIGNAL: a server that closed the
 * connection would raise SIGPIPE and kill the process. Block it in this
 * thread around the write and swallow one raised meanwhile, as libraries
 * that must not touch the process's signal handlers do.
 */
int dnsb_rfc2136_send(int fd, ldns_buffer *qb)
{
	sigset_t pipe_set, old;
	struct timespec zero = { 0, 0 };
	int pending, ok, send_errno;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	sigpending(&pipe_set);
	pending = sigismember(&pipe_set, SIGPIPE);
	/* A connected stream socket: no address (sendto ignores it, or says EISCONN). */
	errno = 0;
	ok = ldns_tcp_send_query(qb, fd, NULL, 0) != 0;
	send_errno = errno;
	if (!pending) {
		sigemptyset(&pipe_set);
		sigaddset(&pipe_set, SIGPIPE);
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* The caller reports why the send failed. */
	errno = send_errno;
	return ok;
}

/*
 * Send over TCP and read one reply. A pooled connection the server has
 * closed meanwhile fails at once; then one fresh connection is tried.
 */
int dnsb_rfc2136_exchange_wire(dnsb_rfc2136_net *net, ldns_buffer *qb, double limit, uint8_t **wire, size_t *size,
				dnsb_error *err)
{
	int fd = dnsb_rfc2136_pool_take(net), reused = fd >= 0, rc;
	struct timeval wait = dnsb_rfc2136_wait_for(net, limit);

	for (;;) {
		if (fd < 0 && (rc = dnsb_rfc2136_connect(net, &fd, wait, err)) != 0)
			return rc;
		if (dnsb_rfc2136_send(fd, qb)) {
			double start = dnsb_monotonic();
			*wire = ldns_tcp_read_wire_timeout(fd, size, wait);
			if (*wire != NULL) {
				dnsb_rfc2136_pool_give(net, fd);
				return 0;
			}
			close(fd);
			fd = -1;
			/* An idle connection closed by the server fails at once, not after a timeout: a query is
			 * sent again on a fresh one, never an UPDATE, which the server may have committed before
			 * it closed (a lost reply: the engine reads back, issue 31). */
			if (!reused || LDNS_OPCODE_WIRE(ldns_buffer_begin(qb)) == LDNS_PACKET_UPDATE ||
			    dnsb_monotonic() - start >= tv_seconds(wait) / 2)
				return dnsb_error_set(err, DNSB_ETRANSIENT,
						      "no reply from %s within %g s (timeout or connection closed)",
						      net->server, tv_seconds(wait));
		} else {
			int e = errno;
			close(fd);
			fd = -1;
			if (!reused)
				return dnsb_error_set(err, DNSB_ETRANSIENT, "cannot send to %s: %s", net->server,
						      strerror(e));
		}
		reused = 0;
	}
}

static int sign(dnsb_rfc2136_net *net, ldns_pkt *query, dnsb_error *err)
{
	ldns_status st;

	if (net->keyname == NULL)
		return 0;
	st = ldns_pkt_tsig_sign(query, net->keyname, net->secret, TSIG_FUDGE, net->algorithm, NULL);
	if (st != LDNS_STATUS_OK)
		return dnsb_error_set(err, DNSB_EINVAL, "cannot sign with TSIG key %s (%s): %s", net->keyname,
				      net->algorithm, ldns_get_errorstr_by_id(st));
	return 0;
}

static int to_wire(ldns_buffer **out, const ldns_pkt *query, const dnsb_rfc2136_net *net, dnsb_error *err)
{
	ldns_buffer *qb = ldns_buffer_new(LDNS_MIN_BUFLEN);
	ldns_status st;

	if (qb == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((st = ldns_pkt2buffer_wire(qb, query)) != LDNS_STATUS_OK) {
		ldns_buffer_free(qb);
		return dnsb_error_set(err, st == LDNS_STATUS_MEM_ERR ? DNSB_ENOMEM : DNSB_EINVAL,
				      "cannot encode the message for %s: %s", net->server, ldns_get_errorstr_by_id(st));
	}
	*out = qb;
	return 0;
}

/* An upper bound of a message's size on the wire: header and every RR uncompressed. */
static size_t uncompressed_size(const ldns_pkt *pkt)
{
	const ldns_rr_list *sections[] = { ldns_pkt_question(pkt), ldns_pkt_answer(pkt), ldns_pkt_authority(pkt),
					   ldns_pkt_additional(pkt) };
	size_t size = LDNS_HEADER_SIZE;

	for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++)
		for (size_t i = 0; i < ldns_rr_list_rr_count(sections[s]); i++)
			size += ldns_rr_uncompressed_size(ldns_rr_list_rr(sections[s], i));
	return size;
}

int dnsb_rfc2136_prepare(dnsb_rfc2136_net *net, ldns_pkt *query, ldns_buffer **out, size_t *wire_size,
			 dnsb_error *err)
{
	ldns_buffer *qb = NULL;
	size_t qsize;
	int rc;

	*out = NULL;
	/*
	 * Measure before signing: ldns_pkt_tsig_sign asserts (aborts the
	 * process) on a message larger than 64 KiB. Encoding with name
	 * compression is the costly part of a send, so do it only when the
	 * uncompressed size leaves any doubt.
	 */
	qsize = uncompressed_size(query);
	if (qsize > DNSB_RFC2136_TCP_MAX - TSIG_RESERVE) {
		if ((rc = to_wire(&qb, query, net, err)) != 0)
			return rc;
		qsize = ldns_buffer_position(qb);
		ldns_buffer_free(qb);
		qb = NULL;
	}
	if (wire_size)
		*wire_size = qsize;
	if (qsize > DNSB_RFC2136_TCP_MAX - (net->keyname ? TSIG_RESERVE : 0))
		return dnsb_error_set(err, DNSB_ETOOLARGE, "the message is %zu bytes (and its TSIG); DNS allows %d",
				      qsize, DNSB_RFC2136_TCP_MAX);
	if ((rc = sign(net, query, err)) != 0 || (rc = to_wire(&qb, query, net, err)) != 0)
		return rc;
	if (wire_size)
		*wire_size = ldns_buffer_position(qb);
	*out = qb;
	return 0;
}

int dnsb_rfc2136_exchange(dnsb_rfc2136_net *net, ldns_pkt *query, double limit, ldns_pkt **reply, int *tsig_ok,
			  size_t *wire_size, dnsb_error *err)
{
	ldns_buffer *qb = NULL;
	uint8_t *wire = NULL;
	size_t size = 0;
	int rc;

	*reply = NULL;
	*tsig_ok = 0;
	if ((rc = dnsb_rfc2136_prepare(net, query, &qb, wire_size, err)) != 0)
		return rc;
	rc = dnsb_rfc2136_exchange_wire(net, qb, limit, &wire, &size, err);
	ldns_buffer_free(qb);
	if (rc != 0)
		return rc;
	rc = dnsb_rfc2136_reply_parse(reply, tsig_ok, wire, size, query, net, err);
	free(wire);
	return rc;
}

/* Read AXFR messages from fd until the closing SOA. */
static int axfr_read(dnsb_rfc2136_net *net, int fd, const char *zone, const ldns_pkt *query, ldns_rr_list *rrs,
		     size_t max_rrs, dnsb_error *err)
{
	dnsb_rfc2136_axfr_state ax = DNSB_RFC2136_AXFR_STATE_INIT(net, zone, query, rrs);

	while (ax.soa < 2) {
		size_t size = 0;
		uint8_t *wire = ldns_tcp_read_wire_timeout(fd, &size, net->timeout);
		int rc;

		if (wire == NULL)
			return dnsb_error_set(err, DNSB_ETRANSIENT, "AXFR of %s from %s: no reply within %g s",
					      zone, net->server, timeout_seconds(net));
		rc = dnsb_rfc2136_axfr_feed(&ax, wire, size, err);
		free(wire);
		if (rc != 0)
			return rc;
		if (max_rrs > 0 && ldns_rr_list_rr_count(rrs) > max_rrs)
			return dnsb_error_set(err, DNSB_ETOOLARGE, "AXFR of %s from %s: more than %zu records", zone,
					      net->server, max_rrs);
	}
	return 0;
}

int dnsb_rfc2136_axfr(dnsb_rfc2136_net *net, const char *zone, ldns_rr_list *rrs, size_t max_rrs, dnsb_error *err)
{
	ldns_rdf *apex = ldns_dname_new_frm_str(zone);
	ldns_pkt *query;
	ldns_buffer *qb = NULL;
	int fd = -1, rc;

	if (apex == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "zone '%s' is not a domain name", zone);
	/* Takes apex. Flags 0: no recursion. */
	if ((query = ldns_pkt_query_new(apex, LDNS_RR_TYPE_AXFR, LDNS_RR_CLASS_IN, 0)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	ldns_pkt_set_random_id(query);
	if ((rc = sign(net, query, err)) != 0 || (rc = to_wire(&qb, query, net, err)) != 0)
		goto done;
	/* A transfer takes a connection of its own: it is not left in a reusable state on error. */
	if ((rc = dnsb_rfc2136_connect(net, &fd, net->timeout, err)) != 0)
		goto done;
	if (!dnsb_rfc2136_send(fd, qb)) {
		rc = dnsb_error_set(err, DNSB_ETRANSIENT, "AXFR of %s: cannot send to %s: %s", zone, net->server,
				    strerror(errno));
		goto done;
	}
	rc = axfr_read(net, fd, zone, query, rrs, max_rrs, err);
done:
	if (fd >= 0)
		close(fd);
	ldns_buffer_free(qb);
	ldns_pkt_free(query);
	return rc;
}
