/*
 * probe.c - the pdns provider's setup, checked when it opens, before anything
 * is sent: one GET of .../servers/ID proves the URL, the API key and the
 * server id. A refusal is a setup fault (the caller exits 2) and names its
 * fix; a bare 404 is told apart by one more GET (.../servers): the server id
 * is wrong, the URL has an extra /api/v1, or the API is off (api=yes).
 * An answer that does not come (connection refused, 5xx) is left to the
 * batches, which retry it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "providers/pdns/pdns.h"

/* GET url with the key. @return the HTTP status, or 0 when no answer came; *doc: the JSON body of a 200, or NULL */
static long get(dnsb_pdns *p, const char *url, json_object **doc)
{
	const char *headers[] = { p->key_header, "Accept: application/json", NULL };
	dnsb_http_request req = { "GET", url, headers, NULL, 0, 0 };
	dnsb_http_response resp;
	dnsb_error e = { 0, "" };
	long status;

	*doc = NULL;
	if (dnsb_http_do(p->base.http, &req, &resp, &e) != 0)
		return 0;
	status = resp.status;
	if (status == 200 && dnsb_http_json(doc, &resp, &e) != 0)
		*doc = NULL;
	dnsb_http_response_clear(&resp);
	return status;
}

/* "localhost, other": the ids of a .../servers list. */
static void server_ids(char *buf, size_t size, json_object *list)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; json_object_is_type(list, json_type_array) && i < json_object_array_length(list); i++) {
		json_object *id;
		if (json_object_object_get_ex(json_object_array_get_idx(list, i), "id", &id) && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", json_object_get_string(id));
	}
}

/* A 404 on .../servers/ID: which of the three mistakes. @return DNSB_EINVAL */
static int explain_404(dnsb_pdns *p, dnsb_error *err)
{
	const char *srv = p->cfg.server;
	size_t len = strlen(srv);
	char *url = NULL, ids[256];
	json_object *list = NULL;
	long status;

	if ((len >= 7 && strcmp(srv + len - 7, "/api/v1") == 0) || (len >= 4 && strcmp(srv + len - 4, "/api") == 0))
		return dnsb_error_set(err, DNSB_EINVAL, "--pdns-server %s: HTTP 404: the URL ends in /api%s, which dnsbatch "
				      "adds itself: give the base URL, http(s)://HOST:PORT", srv,
				      srv[len - 1] == '1' ? "/v1" : "");
	if (asprintf(&url, "%s/api/v1/servers", srv) < 0)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	status = get(p, url, &list);
	free(url);
	server_ids(ids, sizeof(ids), list);
	json_object_put(list);
	if (status == 401 || status == 403)
		return dnsb_error_set(err, DNSB_EINVAL, "PowerDNS at %s refused the API key from %s (HTTP %ld): it must "
				      "equal api-key in pdns.conf", srv, p->cfg.key_source, status);
	if (status == 200)
		return dnsb_error_set(err, DNSB_EINVAL, "PowerDNS at %s has no server id '%s' (HTTP 404): its server ids: "
				      "%s; give one with --pdns-server-id", srv, p->cfg.server_id, ids[0] ? ids : "none");
	return dnsb_error_set(err, DNSB_EINVAL, "%s answers HTTP 404 under /api/v1: the PowerDNS API is off, or this is "
			      "not its webserver: set api=yes and webserver=yes in pdns.conf (webserver-port is the "
			      "port of --pdns-server)", srv);
}

int dnsb_pdns_probe(dnsb_pdns *p, dnsb_error *err)
{
	char *url = dnsb_pdns_url(&p->cfg, "");
	json_object *doc = NULL;
	long status;

	if (url == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	status = get(p, url, &doc);
	free(url);
	json_object_put(doc);
	if (status == 401 || status == 403)
		return dnsb_error_set(err, DNSB_EINVAL, "PowerDNS at %s refused the API key from %s (HTTP %ld): it must "
				      "equal api-key in pdns.conf", p->cfg.server, p->cfg.key_source, status);
	if (status == 404)
		return explain_404(p, err);
	return 0; /* 200, or no answer yet: the batches retry what is transient */
}
