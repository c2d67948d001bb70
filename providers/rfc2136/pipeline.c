/*
 * pipeline.c - several queries over one TCP connection, pipelined (RFC 7766
 * §6.2.1.1): a read of many RRsets, or the probes of one step of a culprit
 * search, cost one round trip instead of one each.
 *
 * Up to DNSB_RFC2136_PIPELINE_MAX queries are in flight; each reply is
 * matched to its query by message ID (a server may answer out of order, RFC
 * 7766 §7), then parsed and its TSIG checked against that query. A server
 * that closes the connection early gets the rest on a fresh connection, then
 * one at a time (dnsb_rfc2136_exchange_wire).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "applier/core/clock.h"
#include "internal.h"

typedef struct pipe_run {
	dnsb_rfc2136_net *net;
	ldns_pkt *const *queries;
	ldns_buffer **qb;        /* the prepared messages */
	size_t n;
	double give_up;          /* monotonic seconds, 0 = none */
	ldns_pkt **replies;
	int *tsig_ok;
	size_t got;              /* replies taken */
} pipe_run;

static double seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Seconds left for the exchange (> 0), 0 without a limit, or -1 when none is left. */
static double left(const pipe_run *p)
{
	double l;

	if (p->give_up <= 0)
		return 0;
	l = p->give_up - dnsb_monotonic();
	return l > 0 ? l : -1;
}

/* Give every query an ID no other of the n has, then sign and encode it. */
static int prepare_all(pipe_run *p, dnsb_error *err)
{
	uint8_t *used = calloc(65536 / 8, 1);
	int rc = 0;

	if (used == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < p->n; i++) {
		uint16_t id;
		do {
			ldns_pkt_set_random_id(p->queries[i]);
			id = ldns_pkt_id(p->queries[i]);
		} while (used[id / 8] & (1u << (id % 8)));
		used[id / 8] |= (uint8_t)(1u << (id % 8));
		rc = dnsb_rfc2136_prepare(p->net, p->queries[i], &p->qb[i], NULL, err);
	}
	free(used);
	return rc;
}

/*
 * Acknowledge what comes at once: a server that holds its next reply until
 * the last one is acknowledged (Nagle's algorithm) would otherwise wait for
 * our delayed ACK (40 ms) between pipelined replies. Linux clears it again by
 * itself, so it is set before each read; best effort.
 */
static void quick_ack(int fd)
{
#ifdef TCP_QUICKACK
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
#else
	(void)fd;
#endif
}

/* Does the reply answer the query's question (RFC 7766 §7: match by ID and question)? */
static int same_question(const ldns_pkt *query, const ldns_pkt *reply)
{
	const ldns_rr *q = ldns_rr_list_rr(ldns_pkt_question(query), 0), *r = ldns_rr_list_rr(ldns_pkt_question(reply), 0);

	if (q == NULL || r == NULL)
		return q == r;
	return ldns_rr_get_type(q) == ldns_rr_get_type(r) && ldns_rr_get_class(q) == ldns_rr_get_class(r) &&
	       ldns_dname_compare(ldns_rr_owner(q), ldns_rr_owner(r)) == 0;
}

/* Match a reply to the query in flight with its ID: that query's index in inflight, or -1. */
static long in_flight(const pipe_run *p, const size_t *inflight, size_t nin, const uint8_t *wire, size_t size)
{
	uint16_t id;

	if (size < LDNS_HEADER_SIZE)
		return -1;
	id = LDNS_ID_WIRE(wire);
	for (size_t j = 0; j < nin; j++)
		if (ldns_pkt_id(p->queries[inflight[j]]) == id)
			return (long)j;
	return -1;
}

/*
 * Send the queries not yet answered over fd, pipelined, and read replies
 * until each has one. @return 0 (fd back in the pool); 1 when the server
 * closed the connection before then (fd closed: the caller goes on another
 * way); or an error (fd closed)
 */
static int over_one(pipe_run *p, int fd, dnsb_error *err)
{
	size_t inflight[DNSB_RFC2136_PIPELINE_MAX], nin = 0, next = 0;

	for (;;) {
		struct timeval wait;
		double l, start;
		size_t size = 0;
		uint8_t *wire;
		long j;
		int rc;

		while (nin < DNSB_RFC2136_PIPELINE_MAX && next < p->n) {
			if (p->replies[next] != NULL) {
				next++; /* answered over a connection that closed */
				continue;
			}
			if (!dnsb_rfc2136_send(fd, p->qb[next])) {
				close(fd);
				return 1;
			}
			inflight[nin++] = next++;
		}
		if (nin == 0) {
			dnsb_rfc2136_pool_give(p->net, fd);
			return 0;
		}
		if ((l = left(p)) < 0) {
			close(fd);
			return dnsb_error_set(err, DNSB_ETRANSIENT, "%zu of %zu replies from %s: no time left", p->got,
					      p->n, p->net->server);
		}
		wait = dnsb_rfc2136_wait_for(p->net, l);
		quick_ack(fd);
		start = dnsb_monotonic();
		if ((wire = ldns_tcp_read_wire_timeout(fd, &size, wait)) == NULL) {
			close(fd);
			/* Closed by the server: at once, not after the wait. */
			if (dnsb_monotonic() - start < seconds(wait) / 2)
				return 1;
			return dnsb_error_set(err, DNSB_ETRANSIENT, "no reply from %s within %g s (%zu of %zu answered)",
					      p->net->server, seconds(wait), p->got, p->n);
		}
		if ((j = in_flight(p, inflight, nin, wire, size)) < 0) {
			free(wire);
			close(fd);
			return dnsb_error_set(err, DNSB_ETRANSIENT, "%s answered with a message to no query in flight",
					      p->net->server);
		}
		rc = dnsb_rfc2136_reply_parse(&p->replies[inflight[j]], &p->tsig_ok[inflight[j]], wire, size,
					      p->queries[inflight[j]], p->net, err);
		free(wire);
		if (rc == 0 && !same_question(p->queries[inflight[j]], p->replies[inflight[j]]))
			rc = dnsb_error_set(err, DNSB_ETRANSIENT, "%s answered another question under a query's ID",
					    p->net->server);
		if (rc != 0) {
			close(fd);
			return rc;
		}
		p->got++;
		inflight[j] = inflight[--nin];
	}
}

/* The queries still without a reply, one at a time (a server that does not pipeline). */
static int one_by_one(pipe_run *p, dnsb_error *err)
{
	for (size_t i = 0; i < p->n; i++) {
		uint8_t *wire = NULL;
		size_t size = 0;
		double l = left(p);
		int rc;

		if (p->replies[i] != NULL)
			continue;
		if (l < 0)
			return dnsb_error_set(err, DNSB_ETRANSIENT, "%zu of %zu replies from %s: no time left", p->got,
					      p->n, p->net->server);
		if ((rc = dnsb_rfc2136_exchange_wire(p->net, p->qb[i], l, &wire, &size, err)) != 0)
			return rc;
		rc = dnsb_rfc2136_reply_parse(&p->replies[i], &p->tsig_ok[i], wire, size, p->queries[i], p->net, err);
		free(wire);
		if (rc != 0)
			return rc;
		p->got++;
	}
	return 0;
}

/* IDs are unique among the queries of one exchange: more are sent as several exchanges. */
#define IDS_PER_EXCHANGE 32768

int dnsb_rfc2136_exchange_all(dnsb_rfc2136_net *net, ldns_pkt *const *queries, size_t n, double limit,
			      ldns_pkt **replies, int *tsig_ok, dnsb_error *err)
{
	pipe_run p = { net, queries, NULL, n, limit > 0 ? dnsb_monotonic() + limit : 0, replies, tsig_ok, 0 };
	int fd, reused, rc = 0;

	if (n == 0)
		return 0;
	if (n > IDS_PER_EXCHANGE) {
		for (size_t off = 0; rc == 0 && off < n; off += IDS_PER_EXCHANGE) {
			double l = left(&p);
			if (l < 0)
				return dnsb_error_set(err, DNSB_ETRANSIENT, "no time left to read from %s", net->server);
			rc = dnsb_rfc2136_exchange_all(net, queries + off, n - off < IDS_PER_EXCHANGE ? n - off :
						       IDS_PER_EXCHANGE, l, replies + off, tsig_ok + off, err);
		}
		return rc;
	}
	memset(tsig_ok, 0, n * sizeof(int));
	if ((p.qb = calloc(n, sizeof(ldns_buffer *))) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = prepare_all(&p, err)) != 0)
		goto done;
	fd = dnsb_rfc2136_pool_take(net);
	reused = fd >= 0;
	for (;;) {
		double l = left(&p);
		if (l < 0) {
			rc = dnsb_error_set(err, DNSB_ETRANSIENT, "no time left to read from %s", net->server);
			goto done;
		}
		if (fd < 0 && (rc = dnsb_rfc2136_connect(net, &fd, dnsb_rfc2136_wait_for(net, l), err)) != 0)
			goto done;
		if ((rc = over_one(&p, fd, err)) != 1)
			goto done;
		if (!reused)
			break; /* a fresh connection closed early too: the server does not pipeline */
		fd = -1;
		reused = 0;
	}
	rc = one_by_one(&p, err);
done:
	for (size_t i = 0; i < n; i++)
		ldns_buffer_free(p.qb[i]);
	free(p.qb);
	return rc;
}
