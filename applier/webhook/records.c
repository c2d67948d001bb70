/* records.c - GET /records: every zone listed, filtered, as Endpoints (applier/plan/endpoint.c). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <microhttpd.h>

#include "dnsbatch/log.h"
#include "dnsbatch/sys/provider.h"
#include "dnsbatch/webhook.h"
#include "applier/core/clock.h"
#include "applier/webhook/internal.h"

int dnsb_webhook_type_listed(uint16_t type)
{
	return !dnsb_type_is_server(type);
}

const char *dnsb_webhook_class_of(int rc)
{
	switch (rc) {
	case 0: return "ok";
	case DNSB_ETRANSIENT: return "transient";
	case DNSB_ERATELIMIT: return "rate_limited";
	case DNSB_EFATAL: return "fatal";
	default: return "error";
	}
}

/* The reply body of GET /records, built one endpoint at a time: a tree of
 * json-c objects for a whole 10,000-record zone would cost ten times the
 * memory of its text, once per concurrent request. */
struct text {
	char *p;
	size_t len, cap;
};

static int text_add(struct text *t, const char *s, size_t n)
{
	if (t->len + n + 2 > t->cap) {
		size_t cap = t->cap ? t->cap : 65536;
		while (cap < t->len + n + 2)
			cap *= 2;
		char *p = realloc(t->p, cap);
		if (p == NULL)
			return DNSB_ENOMEM;
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->len, s, n);
	t->len += n;
	return 0;
}

static int list_zone(dnsb_webhook *wh, const char *zone, struct text *out, size_t *count, dnsb_error *err)
{
	dnsb_rrset_list list = { 0 };
	double t0 = dnsb_monotonic();
	unsigned char *keep = NULL;
	int rc = dnsb_provider_list(wh->provider, zone, &list, err);

	dnsb_metrics_request(wh->metrics, dnsb_provider_name(wh->provider), "list", dnsb_webhook_class_of(rc),
			     dnsb_monotonic() - t0);
	if (rc == 0 && ((keep = malloc(list.count + 1)) == NULL || dnsb_webhook_scope(keep, wh->filter, &list, wh->txt_wildcard) != 0))
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < list.count; i++) {
		const dnsb_rrset *rs = &list.items[i];
		struct json_object *ep;
		const char *s;
		size_t len;

		if (!keep[i])
			continue;
		ep = dnsb_rrset_to_endpoint(rs);
		s = ep ? json_object_to_json_string_length(ep, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE, &len) : NULL;
		if (s == NULL || (*count > 0 && text_add(out, ",", 1) != 0) || text_add(out, s, len) != 0)
			rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		else
			(*count)++;
		json_object_put(ep);
	}
	free(keep);
	dnsb_rrset_list_clear(&list);
	return rc;
}

enum MHD_Result dnsb_webhook_handle_records_get(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	struct text body = { NULL, 0, 0 };
	dnsb_error err = { 0 };
	enum MHD_Result ret;
	size_t count = 0;
	int rc = text_add(&body, "[", 1);

	for (size_t i = 0; rc == 0 && i < dnsb_provider_zone_count(wh->provider); i++) {
		const char *zone = dnsb_provider_zone(wh->provider, i);
		if (!dnsb_domain_filter_may_match_zone(wh->filter, zone))
			continue;
		rc = list_zone(wh, zone, &body, &count, &err);
		if (rc != 0)
			dnsb_log(DNSB_LOG_ERROR, "GET /records: listing %s: %s", zone,
				 err.message[0] ? err.message : dnsb_strerror(rc));
	}
	if (rc == 0)
		rc = text_add(&body, "]\n", 2); /* Go's encoder ends with a newline */
	if (rc != 0) {
		free(body.p);
		/* Any 5xx is a soft error to external-dns: it tries again next loop. */
		return dnsb_webhook_reply_text(conn, wh, req,
				  rc == DNSB_ETRANSIENT || rc == DNSB_ERATELIMIT ?
				  MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_INTERNAL_SERVER_ERROR,
				  "listing records failed: %s", err.message[0] ? err.message : dnsb_strerror(rc));
	}
	dnsb_webhook_set_ready(wh, "list");
	ret = dnsb_webhook_reply(conn, wh, req, MHD_HTTP_OK, DNSB_WEBHOOK_MEDIA_TYPE, body.p, body.len);
	free(body.p);
	return ret;
}
