/*
 * stream.c - the body of GET /records written as libmicrohttpd asks for it
 * (MHD_create_response_from_callback): "[", the in-scope RRsets of each listed
 * zone as Endpoints, comma-separated, "]\n". Each Endpoint is serialised by
 * json-c on its own, when its turn comes, into the reader's block; what does
 * not fit waits in a buffer of one Endpoint's size. So the reply never exists
 * whole: memory beyond the listings is one block and one Endpoint, whatever
 * the zone (310,000 RRsets made a 41 MB reply, past external-dns's newer
 * 32 MiB response limit, built in memory once per concurrent GET).
 * The bytes are those dnsb_webhook_reply_json would write for the array.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <microhttpd.h>

#include "dnsbatch/log.h"
#include "dnsbatch/metrics.h"
#include "dnsbatch/webhook.h"
#include "applier/core/clock.h"
#include "applier/webhook/internal.h"

/*
 * external-dns after v0.22 refuses a webhook body over --webhook-provider-max-body-size (32 MiB by
 * default, the default of dnsbatch's --max-body-size for POST too): a GET /records answer over it
 * makes every loop fail to list the zones. It is still sent (a larger limit may be set), but said.
 */
static void records_sent(dnsb_webhook *wh, uint64_t bytes)
{
	if (bytes <= wh->max_body)
		return;
	dnsb_log(DNSB_LOG_WARN, "GET /records: the answer was %llu bytes, over %zu (--max-body-size): external-dns "
		 "(after v0.22) refuses a body over its --webhook-provider-max-body-size (32 MiB by default); raise "
		 "both above %llu, or narrow --domain-filter", (unsigned long long)bytes, wh->max_body,
		 (unsigned long long)bytes);
	dnsb_metrics_webhook_oversized(wh->metrics);
}

/* Bytes asked of the reader at a time (libmicrohttpd's buffer for the reply). */
#define STREAM_BLOCK (64 * 1024)

struct records_stream {
	dnsb_webhook *wh;
	struct stream_zone *zones;  /* owned: the listings, each freed once written */
	size_t zone_count;
	size_t zone, item;          /* the next RRset to write */
	size_t written;             /* Endpoints written: a comma before each but the first */
	int opened, closed;         /* "[" and "]\n" are in `pending` or gone */
	char *pending;              /* bytes produced, not yet handed over: [off, len) */
	size_t off, len, cap;
	enum dnsb_webhook_route route;
	enum method method;
	double start;
	int failed;
	int counted;                /* in the metrics: at the end of the body, or when the reply is dropped */
	uint64_t bytes;             /* handed over so far */
};

/* Count the reply once: when its last bytes are handed over (before the client can see the end and scrape
 * /metrics), or when libmicrohttpd drops it unfinished. */
static void count_once(struct records_stream *s)
{
	if (s->counted)
		return;
	s->counted = 1;
	dnsb_webhook_count_reply(s->wh, s->route, s->method, s->failed ? MHD_HTTP_INTERNAL_SERVER_ERROR : MHD_HTTP_OK,
				 s->start);
}

static int pending_set(struct records_stream *s, const char *sep, const char *text, size_t len)
{
	size_t n = strlen(sep) + len;

	if (n > s->cap) {
		char *p = realloc(s->pending, n);
		if (p == NULL)
			return DNSB_ENOMEM;
		s->pending = p;
		s->cap = n;
	}
	memcpy(s->pending, sep, strlen(sep));
	memcpy(s->pending + strlen(sep), text, len);
	s->off = 0;
	s->len = n;
	return 0;
}

/* The next Endpoint into `pending`. @return 1 one produced, 0 none left, DNSB_ENOMEM */
static int next_endpoint(struct records_stream *s)
{
	while (s->zone < s->zone_count) {
		struct stream_zone *z = &s->zones[s->zone];
		while (s->item < z->list.count) {
			const dnsb_rrset *rs = &z->list.items[s->item++];
			struct json_object *ep;
			const char *text;
			size_t len;
			int rc;

			if (!z->keep[s->item - 1])
				continue;
			if ((ep = dnsb_rrset_to_endpoint(rs)) == NULL)
				return DNSB_ENOMEM;
			text = json_object_to_json_string_length(ep, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE,
								 &len);
			rc = text ? pending_set(s, s->written > 0 ? "," : "", text, len) : DNSB_ENOMEM;
			json_object_put(ep);
			if (rc != 0)
				return rc;
			s->written++;
			return 1;
		}
		dnsb_webhook_stream_zone_clear(z); /* written: its memory goes back now */
		s->zone++;
		s->item = 0;
	}
	return 0;
}

/* Refill `pending`. @return 1 refilled, 0 the body is complete, DNSB_ENOMEM */
static int refill(struct records_stream *s)
{
	int rc;

	if (!s->opened) {
		s->opened = 1;
		return pending_set(s, "", "[", 1) == 0 ? 1 : DNSB_ENOMEM;
	}
	if (s->closed)
		return 0;
	if ((rc = next_endpoint(s)) != 0)
		return rc;
	s->closed = 1;
	/* Go's encoder ends with a newline */
	return pending_set(s, "", "]\n", 2) == 0 ? 1 : DNSB_ENOMEM;
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct records_stream *s = cls;
	size_t n = 0;

	(void)pos;
	while (n < max) {
		size_t take;
		if (s->off == s->len) {
			int rc = refill(s);
			if (rc < 0) {
				dnsb_log(DNSB_LOG_ERROR, "GET /records: writing the reply: %s (the connection is closed "
					 "mid-body)", dnsb_strerror(rc));
				s->failed = 1;
				count_once(s);
				return MHD_CONTENT_READER_END_WITH_ERROR;
			}
			if (rc == 0) {
				if (!s->counted)
					records_sent(s->wh, s->bytes);
				count_once(s);
				break;
			}
		}
		take = s->len - s->off < max - n ? s->len - s->off : max - n;
		memcpy(buf + n, s->pending + s->off, take);
		s->off += take;
		s->bytes += take;
		n += take;
	}
	return n > 0 ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM;
}

/* libmicrohttpd is done with the reply: sent whole, or the client left. */
static void stream_free(void *cls)
{
	struct records_stream *s = cls;

	count_once(s);
	for (size_t i = 0; i < s->zone_count; i++)
		dnsb_webhook_stream_zone_clear(&s->zones[i]);
	free(s->zones);
	free(s->pending);
	free(s);
}

void dnsb_webhook_stream_zone_clear(struct stream_zone *z)
{
	dnsb_rrset_list_clear(&z->list);
	free(z->keep);
	z->keep = NULL;
}

enum MHD_Result dnsb_webhook_reply_records(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req,
					   struct stream_zone *zones, size_t zone_count)
{
	struct records_stream *s = calloc(1, sizeof(*s));
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (s == NULL) {
		for (size_t i = 0; i < zone_count; i++)
			dnsb_webhook_stream_zone_clear(&zones[i]);
		free(zones);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	}
	s->wh = wh;
	s->zones = zones;
	s->zone_count = zone_count;
	s->route = req->route;
	s->method = req->method;
	s->start = req->start;
	/* From here on stream_free owns s (libmicrohttpd calls it, on failure too). */
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, STREAM_BLOCK, reader, s, stream_free);
	if (resp == NULL) {
		s->failed = 1;
		stream_free(s);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, DNSB_WEBHOOK_MEDIA_TYPE);
	ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}
