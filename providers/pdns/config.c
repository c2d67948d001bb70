/* config.c - the pdns provider's flags and its API key. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static int take_server(void *settings, const char *v, dnsb_error *err)
{
	dnsb_pdns_config *out = settings;
	size_t len = strlen(v);

	if (!((strncmp(v, "http://", 7) == 0 && len > 7) || (strncmp(v, "https://", 8) == 0 && len > 8)))
		return dnsb_error_set(err, DNSB_EINVAL,
				      "--pdns-server %s: expected the API's base URL, http(s)://HOST[:PORT] (as in external-dns)",
				      v);
	while (len > 0 && v[len - 1] == '/')
		len--;
	free(out->server);
	return (out->server = strndup(v, len)) ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

static int take_server_id(void *settings, const char *v, dnsb_error *err)
{
	dnsb_pdns_config *out = settings;

	if (*v == '\0' || strchr(v, '/'))
		return dnsb_error_set(err, DNSB_EINVAL, "--pdns-server-id '%s': expected a server id (default localhost)", v);
	free(out->server_id);
	return (out->server_id = strdup(v)) ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

/* One --pdns-zone NAME (its API id taken to be the name itself). */
static int add_zone(void *settings, const char *v, dnsb_error *err)
{
	dnsb_pdns_config *out = settings;
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

#define AT(field) DNSB_FLAG_AT(dnsb_pdns_config, field)

const dnsb_flag dnsb_pdns_flags[] = {
	{ "pdns-server", DNSB_FLAG_CUSTOM, "URL", "the API's base URL, http(s)://HOST:PORT (required)", NULL, 0, 0, 0, 0,
	  0, NULL, "the API's base URL, http://HOST:8081", take_server },
	{ "pdns-server-id", DNSB_FLAG_CUSTOM, "ID", "the server id in the API's paths (default "
	  DNSB_PDNS_SERVER_ID_DEFAULT ")", DNSB_PDNS_SERVER_ID_DEFAULT, 0, 0, 0, 0, 0, NULL, NULL, take_server_id },
	{ "pdns-zone", DNSB_FLAG_CUSTOM, "NAME",
	  "a zone to manage (repeatable; default: every zone of the server, from GET .../zones)", NULL, 0, 0, 0, 0,
	  DNSB_FLAG_REPEAT, NULL, NULL, add_zone },
	{ "pdns-batch-change-size", DNSB_FLAG_UINT, "N", "changes per PATCH", DNSB_FLAG_TEXT(DNSB_PDNS_BATCH_DEFAULT), 1,
	  1000000, AT(batch_size), 0, NULL, NULL, NULL },
	{ "pdns-ca-file", DNSB_FLAG_FILE, "FILE",
	  "PEM file of the CAs to trust instead of the system's, for https (TLS is always verified)", NULL, 0, 0,
	  AT(ca_file), 0, NULL, NULL, NULL },
	{ "pdns-api-key-file", DNSB_FLAG_SECRET_FILE, "FILE",
	  "file holding the API key (or $" DNSB_PDNS_API_KEY_ENV "; never on the command line)", NULL, 0, 0,
	  AT(api_key), DNSB_FLAG_SECRET, DNSB_PDNS_API_KEY_ENV, NULL, NULL },
	DNSB_FLAG_END
};

/* The key (read by the table from the file or the variable), surrounding white space removed, its first line
 * only; printable ASCII only (it goes into a header). */
static int check_key(dnsb_pdns_config *out, const char *source, dnsb_error *err)
{
	char *text = out->api_key, *start = text, *end;

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
	if ((out->api_key = strndup(start, (size_t)(end - start))) == NULL) {
		out->api_key = text;
		return dnsb_error_set(err, DNSB_ENOMEM, "%s: out of memory", source);
	}
	dnsb_secret_free(text);
	dnsb_secret_register(out->api_key); /* redacted from all that is printed: a server may echo X-API-Key */
	return 0;
}

static int parse_settings(void *settings, const dnsb_config *cfg, dnsb_error *err)
{
	dnsb_pdns_config *out = settings;
	int rc;

	if ((rc = dnsb_flags_parse(dnsb_pdns_flags, out, cfg, err)) != 0)
		return rc;
	if (out->api_key == NULL)
		return dnsb_error_set(err, DNSB_EINVAL,
				      "the PowerDNS API key is required: --pdns-api-key-file FILE or $" DNSB_PDNS_API_KEY_ENV);
	return check_key(out, dnsb_config_get(cfg, "pdns-api-key-file") ? "--pdns-api-key-file"
									 : "$" DNSB_PDNS_API_KEY_ENV, err);
}

static void clear_settings(void *settings)
{
	dnsb_pdns_config_clear(settings);
}

int dnsb_pdns_config_parse(dnsb_pdns_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_config_parse(out, sizeof(*out), parse_settings, clear_settings, cfg, err);
}
