/* health.c - readiness: the probe that waits for the provider's first answer, /healthz and /metrics. */
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
#include "applier/core/provider.h"
#include "applier/webhook/internal.h"

enum MHD_Result dnsb_webhook_handle_healthz(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	int ready, stopping;

	pthread_mutex_lock(&wh->lock);
	ready = wh->ready;
	stopping = wh->stopping;
	pthread_mutex_unlock(&wh->lock);
	if (stopping)
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_SERVICE_UNAVAILABLE, "shutting down");
	if (!ready) {
		char fault[sizeof(wh->probe_fault)];
		int setup;
		pthread_mutex_lock(&wh->lock);
		memcpy(fault, wh->probe_fault, sizeof(fault));
		setup = wh->probe_setup_fault;
		pthread_mutex_unlock(&wh->lock);
		if (*fault)
			return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_SERVICE_UNAVAILABLE, "not ready: provider %s: %s%s",
						       dnsb_provider_name(wh->provider), setup ? "setup fault: " : "", fault);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_SERVICE_UNAVAILABLE,
				  "not ready: provider %s has not answered yet", dnsb_provider_name(wh->provider));
	}
	return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_OK, "ok");
}

void dnsb_webhook_update_quarantine_gauge(dnsb_webhook *wh)
{
	const dnsb_clock *clk = wh->engine.clock ? wh->engine.clock : dnsb_clock_system();
	double now = clk->now(clk->payload);
	struct json_object *held = NULL;
	const char **zones = NULL, **owners = NULL;
	size_t n = 0, kept = 0;

	dnsb_metrics_set_quarantined(wh->metrics, dnsb_quarantine_count(wh->quarantine, now));
	if (dnsb_quarantine_list(wh->quarantine, now, dnsb_wall_clock(), &held) != 0)
		return;
	n = json_object_array_length(held);
	zones = calloc(n ? n : 1, sizeof(*zones));
	owners = calloc(n ? n : 1, sizeof(*owners));
	for (size_t i = 0; zones && owners && i < n; i++) {
		struct json_object *g = json_object_array_get_idx(held, i), *v;
		zones[kept] = json_object_object_get_ex(g, "zone", &v) ? json_object_get_string(v) : "";
		owners[kept] = json_object_object_get_ex(g, "owner", &v) ? json_object_get_string(v) : NULL;
		if (!(owners[kept] && wh->txt_owner_id && strcmp(owners[kept], wh->txt_owner_id) == 0))
			kept++; /* a record of our own --txt-owner-id is no foreign owner's */
	}
	if (zones && owners)
		dnsb_metrics_set_owner_groups(wh->metrics, zones, owners, kept);
	free(zones);
	free(owners);
	json_object_put(held);
}

enum MHD_Result dnsb_webhook_handle_metrics(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	char *text = NULL;
	size_t len = 0;
	dnsb_budget_stats budget;
	enum MHD_Result ret;

	pthread_mutex_lock(&wh->lock);
	dnsb_metrics_webhook_state(wh->metrics, wh->ready, wh->inflight, wh->applies);
	pthread_mutex_unlock(&wh->lock);
	dnsb_webhook_update_quarantine_gauge(wh);
	if (dnsb_provider_budget_stats(wh->provider, &budget) == 0)
		dnsb_metrics_set_budget(wh->metrics, &budget);
	if (dnsb_metrics_render(&text, &len, wh->metrics) != 0)
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	ret = dnsb_webhook_reply(conn, wh, req, MHD_HTTP_OK, METRICS_CONTENT_TYPE, text, len);
	free(text);
	return ret;
}

/* GET /quarantine: the groups held back now, newest first (dnsb_quarantine_list), as JSON. */
enum MHD_Result dnsb_webhook_handle_quarantine(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	const dnsb_clock *clk = wh->engine.clock ? wh->engine.clock : dnsb_clock_system();
	struct json_object *held = NULL;
	enum MHD_Result ret;
	const char *text;
	size_t len;

	if (dnsb_quarantine_list(wh->quarantine, clk->now(clk->payload), dnsb_wall_clock(), &held) != 0)
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	text = json_object_to_json_string_length(held, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	ret = text ? dnsb_webhook_reply(conn, wh, req, MHD_HTTP_OK, "application/json", text, len)
		   : dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	json_object_put(held);
	return ret;
}

/* Probe the provider until it answers once: /healthz stays 503 until then,
 * so Kubernetes sends no traffic to a sidecar that cannot reach its DNS. */
void *dnsb_webhook_probe_main(void *arg)
{
	dnsb_webhook *wh = arg;
	dnsb_provider *p = wh->provider;

	for (;;) {
		dnsb_rrset_list got = { 0 };
		dnsb_error err = { 0 };
		dnsb_rrkey key;
		double t0;
		int rc;

		pthread_mutex_lock(&wh->lock);
		if (wh->ready || wh->stopping) {
			pthread_mutex_unlock(&wh->lock);
			return NULL;
		}
		pthread_mutex_unlock(&wh->lock);

		if (dnsb_provider_zone_count(p) == 0) {
			dnsb_webhook_set_ready(wh, "no zones");
			return NULL;
		}
		key.owner = dnsb_provider_zone(p, 0);
		key.type = 6; /* SOA: every zone has one, and it is one small answer */
		t0 = dnsb_monotonic();
		rc = dnsb_provider_read(p, key.owner, &key, 1, wh->probe_interval, &got, NULL, &err);
		dnsb_metrics_request(wh->metrics, dnsb_provider_name(p), "read", dnsb_webhook_class_of(rc), dnsb_monotonic() - t0);
		dnsb_rrset_list_clear(&got);
		if (rc == 0) {
			dnsb_webhook_set_ready(wh, "probe");
			return NULL;
		}
		dnsb_log(DNSB_LOG_WARN, "provider %s not answering yet: %s", dnsb_provider_name(p),
			 err.message[0] ? err.message : dnsb_strerror(rc));

		pthread_mutex_lock(&wh->lock);
		snprintf(wh->probe_fault, sizeof(wh->probe_fault), "%s", err.message[0] ? err.message : dnsb_strerror(rc));
		wh->probe_setup_fault = rc == DNSB_EFATAL || rc == DNSB_EINVAL;
		if (!wh->stopping) {
			struct timespec ts = dnsb_wall_deadline(wh->probe_interval);
			pthread_cond_timedwait(&wh->cond, &wh->lock, &ts);
		}
		pthread_mutex_unlock(&wh->lock);
	}
}
