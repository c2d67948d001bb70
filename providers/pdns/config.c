/* config.c - the pdns provider's flags and its API key. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applier/core/secret.h"
#include "providers/pdns/pdns.h"

void dnsb_pdns_config_clear(dnsb_pdns_config *cfg)
{
	if (cfg == NULL)
		return;
	free(cfg->server);
	free(cfg->server_id);
	dnsb_hb_zones_free(cfg->zones, cfg->zone_count);
	dnsb_secret_free(cfg->api_key);
	free(cfg->ca_file);
	memset(cfg, 0, sizeof(*cfg));
}

/* --pdns-server: an http(s) URL with a host; kept without trailing '/'. */
static int set_server(dnsb_pdns_config *out, const char *v, dnsb_error *err)
{
	size_t len = strlen(v);

	if (!((strncmp(v, "http://", 7) == 0 && len > 7) || (strncmp(v, "https://", 8) == 0 && len > 8)))
		return dnsb_error_set(err, DNSB_EINVAL,
				      "--pdns-server %s: expected the API's base URL, http(s)://HOST[:PORT] (as in external-dns)",
				      v);
	while (len > 0 && v[len - 1] == '/')
		len--;
	return (out->server = strndup(v, len)) ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

/* One --pdns-zone NAME (its API id taken to be the name itself). */
static int add_zone(dnsb_pdns_config *out, const char *v, dnsb_error *err)
{
	char *apex;
	dnsb_error e = { 0, "" };
	int rc;

	if ((rc = dnsb_name_canonical(&apex, v, &e)) != 0)
		return dnsb_error_set(err, rc == DNSB_ENOMEM ? DNSB_ENOMEM : DNSB_EINVAL, "--pdns-zone %s: %s", v,
				      rc == DNSB_ENOMEM ? "out of memory" : e.message);
	for (size_t i = 0; i < out->zone_count; i++) {
		if (strcmp(out->zones[i].apex, apex) == 0) {
			free(apex);
			return dnsb_error_set(err, DNSB_EINVAL, "--pdns-zone %s is given twice", v);
		}
	}
	return dnsb_hb_zones_push(&out->zones, &out->zone_count, apex, apex) == 0 ? 0
		: dnsb_error_set(err, DNSB_ENOMEM, "--pdns-zone %s: out of memory", v);
}

/* A key's text: surrounding white space removed; printable ASCII only (it goes into a header). */
static int take_key(dnsb_pdns_config *out, const char *text, const char *source, dnsb_error *err)
{
	const char *start = text, *end;

	while (*start && isspace((unsigned char)*start))
		start++;
	end = start + strcspn(start, "\r\n");
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	if (end == start)
		return dnsb_error_set(err, DNSB_EINVAL, "%s: the API key is empty", source);
	for (const char *p = start; p < end; p++)
		if (!isprint((unsigned char)*p))
			return dnsb_error_set(err, DNSB_EINVAL, "%s: the API key holds a character that is not printable",
					      source);
	out->key_source = source;
	if ((out->api_key = strndup(start, (size_t)(end - start))) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "%s: out of memory", source);
	dnsb_secret_register(out->api_key); /* redacted from all that is printed: a server may echo X-API-Key */
	return 0;
}

/* The key file's first line, read by the one secret reader (an error past 64 KiB, where a 4 KiB buffer cut it). */
static int read_key_file(dnsb_pdns_config *out, const char *path, dnsb_error *err)
{
	char *text;
	int rc;

	if ((rc = dnsb_secret_read_file(&text, path, "--pdns-api-key-file", err)) < 0)
		return rc;
	rc = take_key(out, text, "--pdns-api-key-file", err);
	dnsb_secret_free(text);
	return rc;
}

static int parse_settings(void *settings, const dnsb_config *cfg, dnsb_error *err)
{
	dnsb_pdns_config *out = settings;
	const char *v, *env = getenv(DNSB_PDNS_API_KEY_ENV);
	unsigned long batch;
	size_t iter = 0;
	int rc;

	if ((v = dnsb_config_get(cfg, "pdns-server")) == NULL || *v == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "--pdns-server is required (the API's base URL, http://HOST:8081)");
	if ((rc = set_server(out, v, err)) != 0)
		return rc;
	v = dnsb_config_get(cfg, "pdns-server-id");
	if (v && (*v == '\0' || strchr(v, '/')))
		return dnsb_error_set(err, DNSB_EINVAL, "--pdns-server-id '%s': expected a server id (default localhost)", v);
	if ((out->server_id = strdup(v ? v : DNSB_PDNS_SERVER_ID_DEFAULT)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	while ((v = dnsb_config_next(cfg, "pdns-zone", &iter)) != NULL)
		if ((rc = add_zone(out, v, err)) != 0)
			return rc;
	if ((rc = dnsb_config_uint(&batch, cfg, "pdns-batch-change-size", DNSB_PDNS_BATCH_DEFAULT, 1, 1000000, err)) != 0)
		return rc;
	out->batch_size = batch;
	if ((rc = dnsb_hb_config_file(&out->ca_file, cfg, "pdns-ca-file", err)) != 0)
		return rc;
	if ((v = dnsb_config_get(cfg, "pdns-api-key-file")) != NULL)
		return read_key_file(out, v, err);
	if (env && *env)
		return take_key(out, env, "$" DNSB_PDNS_API_KEY_ENV, err);
	return dnsb_error_set(err, DNSB_EINVAL,
			      "the PowerDNS API key is required: --pdns-api-key-file FILE or $" DNSB_PDNS_API_KEY_ENV);
}

static void clear_settings(void *settings)
{
	dnsb_pdns_config_clear(settings);
}

int dnsb_pdns_config_parse(dnsb_pdns_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_config_parse(out, sizeof(*out), parse_settings, clear_settings, cfg, err);
}
