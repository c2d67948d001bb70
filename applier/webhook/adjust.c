/* adjust.c - GET / (negotiation: the domain filter) and POST /adjustendpoints. */
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
#include "dnsbatch/plan.h"
#include "dnsbatch/webhook.h"
#include "applier/core/clock.h"
#include "applier/webhook/internal.h"

enum MHD_Result dnsb_webhook_handle_negotiate(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	struct json_object *obj;
	enum MHD_Result ret;

	if (dnsb_domain_filter_to_json(&obj, wh->filter) != 0)
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	ret = dnsb_webhook_reply_json(conn, wh, req, obj);
	json_object_put(obj);
	return ret;
}

/* Go decodes the first JSON value and ignores what follows; so do we.
 * @return 0 with *out set (NULL for a JSON null), or -1 with `why` filled */
static int parse_body(struct json_object **out, const struct request *req, char *why, size_t whylen)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error e;

	*out = NULL;
	if (tok == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	*out = json_tokener_parse_ex(tok, req->body ? req->body : "", (int)req->len);
	e = json_tokener_get_error(tok);
	if (*out == NULL && e == json_tokener_continue)
		snprintf(why, whylen, "unexpected end of JSON input");
	else if (*out == NULL && e != json_tokener_success)
		snprintf(why, whylen, "JSON syntax error at byte %zu: %s",
			 json_tokener_get_parse_end(tok), json_tokener_error_desc(e));
	json_tokener_free(tok);
	return *out == NULL && e != json_tokener_success ? -1 : 0;
}

/* At most this many names are remembered as logged; past it, unsupported endpoints are only counted. */
#define UNSUPPORTED_LOGGED_MAX 4096

void dnsb_webhook_unsupported_clear(dnsb_webhook *wh)
{
	for (size_t i = 0; i < wh->unsupported_count; i++)
		free(wh->unsupported_logged[i]);
	free(wh->unsupported_logged);
	wh->unsupported_logged = NULL;
	wh->unsupported_count = 0;
}

/* Log an unsupported endpoint once per name for the life of the server: external-dns sends it every loop. */
static void log_unsupported_once(dnsb_webhook *wh, struct json_object *ep, const char *why)
{
	const char *name = NULL;
	struct json_object *v;
	int first = 1;

	if (json_object_is_type(ep, json_type_object) && json_object_object_get_ex(ep, "dnsName", &v))
		name = json_object_get_string(v);
	name = name ? name : "";
	pthread_mutex_lock(&wh->lock);
	for (size_t i = 0; first && i < wh->unsupported_count; i++)
		first = strcmp(wh->unsupported_logged[i], name) != 0;
	if (first && wh->unsupported_count < UNSUPPORTED_LOGGED_MAX) {
		char **grown = realloc(wh->unsupported_logged, (wh->unsupported_count + 1) * sizeof(*grown));
		if (grown != NULL) {
			wh->unsupported_logged = grown;
			if ((grown[wh->unsupported_count] = strdup(name)) != NULL)
				wh->unsupported_count++;
		}
	} else if (first) {
		first = 0; /* the cap is reached: counted in the metric only */
	}
	pthread_mutex_unlock(&wh->lock);
	if (first)
		dnsb_log(DNSB_LOG_WARN, "POST /adjustendpoints: %s: no provider here can apply it; it is kept in the plan "
			 "(so external-dns deletes nothing for it) and will be dropped as invalid (logged once per name)",
			 why);
}

/* Adjust one endpoint into `all`; counts what it did. @return 0 or DNSB_ENOMEM */
static int adjust_one(struct json_object *all, dnsb_webhook *wh, struct json_object *ep, const char *path,
		      unsigned flags, size_t *normalised, size_t *unsupported)
{
	const dnsb_provider_limits *limits = dnsb_provider_get_limits(wh->provider);
	struct json_object *adjusted = NULL, *type = NULL;
	char *why = NULL;
	/* The provider's properties (Cloudflare's proxied flag, comment) in the form it lists them. */
	int rc = dnsb_endpoint_adjust_props(&adjusted, &why, ep, path, flags, limits->properties, limits->properties_ctx);

	/* The provider's properties hook refuses a type it writes no record of: offered back unchanged, as unsupported. */
	if (rc == DNSB_EINVAL && (rc = json_object_deep_copy(ep, &adjusted, NULL) == 0 ? 0 : DNSB_ENOMEM) == 0 &&
	    json_object_object_get_ex(ep, "recordType", &type) &&
	    asprintf(&why, "%s: provider %s writes no %s record", path, dnsb_provider_name(wh->provider),
		     json_object_get_string(type)) < 0) {
		why = NULL;
		rc = DNSB_ENOMEM;
	}
	if (rc != 0) {
		json_object_put(adjusted);
		return rc;
	}
	if (why) {
		log_unsupported_once(wh, ep, why);
		(*unsupported)++;
	} else if (!json_object_equal(ep, adjusted)) {
		(*normalised)++;
	}
	free(why);
	if (json_object_array_add(all, adjusted) != 0) {
		json_object_put(adjusted);
		return DNSB_ENOMEM;
	}
	return 0;
}

/*
 * external-dns AdjustEndpoints: each desired endpoint in the form GET /records
 * will list it in (dnsb_endpoint_adjust), so that its next plan finds no
 * difference and writes nothing (an alias CNAME becomes an A and an AAAA
 * alias when the provider stores aliases). An endpoint the provider cannot apply is
 * returned unchanged: leaving it out would make external-dns delete a record
 * it owns by that name; it is logged once per name and counted instead.
 */
static int adjust_all(struct json_object **out, dnsb_webhook *wh, struct json_object *in)
{
	size_t n = json_object_array_length(in), normalised = 0, unsupported = 0;
	const dnsb_provider_limits *limits = dnsb_provider_get_limits(wh->provider);
	unsigned flags = (!limits->aliases ? 0 : limits->alias_health ? DNSB_ADJUST_ALIASES :
			  DNSB_ADJUST_ALIASES | DNSB_ADJUST_NO_HEALTH) | (limits->set_ids ? DNSB_ADJUST_SET_IDS : 0);
	struct json_object *all = json_object_new_array_ext((int)n);
	int rc = all ? 0 : DNSB_ENOMEM;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct json_object *ep = json_object_array_get_idx(in, i), *a = NULL, *aaaa = NULL;
		char path[32];

		snprintf(path, sizeof(path), "$[%zu]", i);
		if (!(flags & DNSB_ADJUST_ALIASES) || (rc = dnsb_webhook_alias_split(ep, limits, &a, &aaaa)) == 0) {
			rc = adjust_one(all, wh, ep, path, flags, &normalised, &unsupported);
			continue;
		}
		rc = rc < 0 ? rc : 0;
		if (rc == 0)
			rc = adjust_one(all, wh, a, path, flags, &normalised, &unsupported);
		if (rc == 0)
			rc = adjust_one(all, wh, aaaa, path, flags, &normalised, &unsupported);
		json_object_put(a);
		json_object_put(aaaa);
	}
	dnsb_metrics_webhook_adjusted(wh->metrics, "normalised", normalised);
	dnsb_metrics_webhook_adjusted(wh->metrics, "unsupported", unsupported);
	if (rc != 0) {
		json_object_put(all);
		all = NULL;
	}
	*out = all;
	return rc;
}

enum MHD_Result dnsb_webhook_handle_adjust(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	char why[640] = "";
	struct json_object *obj, *adjusted = NULL;
	enum MHD_Result ret;

	if (parse_body(&obj, req, why, sizeof(why)) != 0) {
		dnsb_log(DNSB_LOG_WARN, "POST /adjustendpoints: %s", why);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_BAD_REQUEST, "%s", why);
	}
	if (dnsb_json_check_utf8(why, sizeof(why), obj)) {
		json_object_put(obj);
		dnsb_log(DNSB_LOG_WARN, "POST /adjustendpoints: %s", why);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_BAD_REQUEST, "%s", why);
	}
	if (obj == NULL) /* JSON null: a nil slice to Go, encoded back as null */
		return dnsb_webhook_reply(conn, wh, req, MHD_HTTP_OK, DNSB_WEBHOOK_MEDIA_TYPE, "null\n", 5);
	if (!json_object_is_type(obj, json_type_array)) {
		json_object_put(obj);
		dnsb_log(DNSB_LOG_WARN, "POST /adjustendpoints: expected an array of endpoints");
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_BAD_REQUEST, "expected an array of endpoints");
	}
	if (adjust_all(&adjusted, wh, obj) != 0) {
		json_object_put(obj);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	}
	ret = dnsb_webhook_reply_json(conn, wh, req, adjusted);
	json_object_put(adjusted);
	json_object_put(obj);
	return ret;
}
