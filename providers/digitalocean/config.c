/*
 * config.c - the digitalocean provider's flags into its settings. The
 * token, as external-dns's removed provider took it, from $DO_TOKEN, or
 * from a file (--digitalocean-token-file, the one secret reader's): never
 * from argv. It goes only into the Authorization header.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/secret.h"
#include "providers/digitalocean/digitalocean.h"

void dnsb_do_config_clear(dnsb_do_config *cfg)
{
	if (cfg == NULL)
		return;
	free(cfg->endpoint);
	free(cfg->ca_file);
	dnsb_secret_free(cfg->token);
	dnsb_secret_free(cfg->auth);
	memset(cfg, 0, sizeof(*cfg));
}

/* --digitalocean-api-endpoint: http(s)://HOST[:PORT][/PATH], kept without a trailing '/', "/v2" added. */
static int take_endpoint(void *settings, const char *v, dnsb_error *err)
{
	dnsb_do_config *out = settings;
	size_t len = strlen(v);

	if (!((strncmp(v, "https://", 8) == 0 && len > 8) || (strncmp(v, "http://", 7) == 0 && len > 7)) ||
	    strpbrk(v, " \t\r\n?#"))
		return dnsb_error_set(err, DNSB_EINVAL, "--digitalocean-api-endpoint %s: expected https://HOST[:PORT]", v);
	while (len > 0 && v[len - 1] == '/')
		len--;
	free(out->endpoint);
	if (asprintf(&out->endpoint, "%.*s/v2", (int)len, v) < 0) {
		out->endpoint = NULL;
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	return 0;
}

/* The token (read by the table from the file or $DO_TOKEN): one line of printable ASCII, into the header. */
static int take_token(dnsb_do_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	const char *source = dnsb_config_get(cfg, "digitalocean-token-file") ? "--digitalocean-token-file"
									     : "$" DNSB_DO_TOKEN_ENV;
	const char *t = out->token;

	if (t == NULL || *t == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "a DigitalOcean API token is required: $" DNSB_DO_TOKEN_ENV
				      " or --digitalocean-token-file FILE");
	for (const char *p = t; *p; p++)
		if (!isgraph((unsigned char)*p))
			return dnsb_error_set(err, DNSB_EINVAL, "%s: the token holds a character that is not printable "
					      "(one line expected)", source);
	dnsb_secret_register(t);
	if (asprintf(&out->auth, "Authorization: Bearer %s", t) < 0) {
		out->auth = NULL;
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	return 0;
}

#define AT(field) DNSB_FLAG_AT(dnsb_do_config, field)

const dnsb_flag dnsb_do_flags[] = {
	{ "digitalocean-token-file", DNSB_FLAG_SECRET_FILE, "FILE",
	  "file holding the API token (or $" DNSB_DO_TOKEN_ENV "; never on the command line)", NULL, 0, 0, AT(token),
	  DNSB_FLAG_SECRET, DNSB_DO_TOKEN_ENV, NULL, NULL },
	{ "digitalocean-api-page-size", DNSB_FLAG_UINT, "N", "records per listing page (as external-dns's flag)",
	  DNSB_FLAG_TEXT(DNSB_DO_PAGE_DEFAULT), 1, DNSB_DO_PAGE_MAX, AT(page_size), 0, NULL, NULL, NULL },
	{ "digitalocean-api-endpoint", DNSB_FLAG_CUSTOM, "URL",
	  "another server, https://HOST[:PORT] (default " DNSB_DO_ENDPOINT_DEFAULT ")", DNSB_DO_ENDPOINT_DEFAULT, 0, 0,
	  0, 0, 0, NULL, NULL, take_endpoint },
	{ "digitalocean-ca-file", DNSB_FLAG_FILE, "FILE",
	  "PEM file of the CAs to trust instead of the system's (TLS is always verified)", NULL, 0, 0, AT(ca_file), 0,
	  NULL, NULL, NULL },
	DNSB_FLAG_END
};

static int parse_settings(void *settings, const dnsb_config *cfg, dnsb_error *err)
{
	int rc;

	if ((rc = dnsb_flags_parse(dnsb_do_flags, settings, cfg, err)) != 0)
		return rc;
	return take_token(settings, cfg, err);
}

static void clear_settings(void *settings)
{
	dnsb_do_config_clear(settings);
}

int dnsb_do_config_parse(dnsb_do_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_config_parse(out, sizeof(*out), parse_settings, clear_settings, cfg, err);
}
