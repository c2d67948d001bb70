/*
 * config.c - the akamai provider's flags into its settings. Credentials, as
 * external-dns's removed provider took them: an .edgerc section
 * (--akamai-edgerc-path, --akamai-edgerc-section), then the flags
 * (--akamai-serviceconsumerdomain, --akamai-client-token,
 * --akamai-access-token), then the environment (AKAMAI_HOST, ..., and the
 * EXTERNAL_DNS_AKAMAI_* names). The client secret never from argv: a file
 * (--akamai-client-secret-file) or $AKAMAI_CLIENT_SECRET.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/secret.h"
#include "providers/akamai/akamai.h"

void dnsb_akamai_config_clear(dnsb_akamai_config *cfg)
{
	if (cfg == NULL)
		return;
	dnsb_akamai_creds_clear(&cfg->creds);
	free(cfg->endpoint);
	free(cfg->ca_file);
	dnsb_hb_zones_free(cfg->zones, cfg->zone_count);
	free(cfg->contract_ids);
	memset(cfg, 0, sizeof(*cfg));
}

/* The .edgerc's section, when --akamai-edgerc-path is given. */
static int read_edgerc(dnsb_akamai_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	const char *path = dnsb_config_get(cfg, "akamai-edgerc-path");
	const char *section = dnsb_config_get(cfg, "akamai-edgerc-section");
	char *text;
	int rc;

	if (path == NULL)
		return 0;
	if ((rc = dnsb_secret_read_file(&text, path, "--akamai-edgerc-path", err)) < 0)
		return rc;
	rc = dnsb_akamai_edgerc_parse(&out->creds, text, section && *section ? section : "default", path, err);
	dnsb_secret_free(text);
	out->source = "--akamai-edgerc-path";
	if (rc == DNSB_ENOTFOUND)
		return dnsb_error_set(err, DNSB_EINVAL, "--akamai-edgerc-section: %s", err ? err->message : "no section");
	return rc;
}

/* A field from its flag, else its environment variables, when the .edgerc left it empty. */
static int fill(char **field, const dnsb_config *cfg, const char *flag, const char *env1, const char *env2,
		dnsb_error *err)
{
	const char *v = dnsb_config_get(cfg, flag);

	if (v == NULL && *field)
		return 0;
	if (v == NULL)
		v = getenv(env1) && *getenv(env1) ? getenv(env1) : getenv(env2);
	if (v == NULL || *v == '\0')
		return 0;
	for (const char *p = v; *p; p++)
		if (!isgraph((unsigned char)*p))
			return dnsb_error_set(err, DNSB_EINVAL, "--%s ($%s): a character that is not printable", flag, env1);
	free(*field);
	return (*field = strdup(v)) ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

/* The client secret: the file's first line, else the environment, when the .edgerc gave none. */
static int read_secret(dnsb_akamai_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	const char *path = dnsb_config_get(cfg, "akamai-client-secret-file"), *env = getenv(DNSB_AKAMAI_SECRET_ENV);
	char *text = NULL;
	int rc;

	if (dnsb_config_get(cfg, "akamai-client-secret"))
		return dnsb_error_set(err, DNSB_EINVAL, "--akamai-client-secret is not taken on the command line (argv is "
				      "readable by every user): use --akamai-client-secret-file FILE or $" DNSB_AKAMAI_SECRET_ENV);
	if (path) {
		if ((rc = dnsb_secret_read_file(&text, path, "--akamai-client-secret-file", err)) < 0)
			return rc;
		text[strcspn(text, "\r\n")] = '\0';
	} else if (out->creds.client_secret == NULL) {
		if (env == NULL || *env == '\0')
			env = getenv(DNSB_AKAMAI_SECRET_ENV_EXTDNS);
		if (env == NULL || *env == '\0')
			return 0;
		if ((text = strdup(env)) == NULL)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	} else {
		return 0;
	}
	dnsb_secret_free(out->creds.client_secret);
	out->creds.client_secret = text;
	dnsb_secret_register(text);
	return 0;
}

/* --akamai-api-endpoint (https://HOST[:PORT]) or https:// + the credentials' host; + the base path. */
static int set_endpoint(dnsb_akamai_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	const char *v = dnsb_config_get(cfg, "akamai-api-endpoint");
	size_t len;

	if (v == NULL) {
		if (out->creds.host == NULL)
			return dnsb_error_set(err, DNSB_EINVAL, "the API host is required: host in the .edgerc section, "
					      "--akamai-serviceconsumerdomain or $AKAMAI_HOST");
		return asprintf(&out->endpoint, "https://%s" DNSB_AKAMAI_BASE_PATH, out->creds.host) < 0
			       ? (out->endpoint = NULL, dnsb_error_set(err, DNSB_ENOMEM, "out of memory")) : 0;
	}
	len = strlen(v);
	if (!((strncmp(v, "http://", 7) == 0 && len > 7) || (strncmp(v, "https://", 8) == 0 && len > 8)))
		return dnsb_error_set(err, DNSB_EINVAL, "--akamai-api-endpoint %s: expected https://HOST[:PORT]", v);
	while (len > 0 && v[len - 1] == '/')
		len--;
	return asprintf(&out->endpoint, "%.*s" DNSB_AKAMAI_BASE_PATH, (int)len, v) < 0
		       ? (out->endpoint = NULL, dnsb_error_set(err, DNSB_ENOMEM, "out of memory")) : 0;
}

/* The credentials, from the .edgerc, the flags and the environment; every one of them is required. */
static int read_creds(dnsb_akamai_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	int rc;

	if ((rc = read_edgerc(out, cfg, err)) != 0 ||
	    (rc = fill(&out->creds.host, cfg, "akamai-serviceconsumerdomain", "AKAMAI_HOST",
		       "EXTERNAL_DNS_AKAMAI_SERVICECONSUMERDOMAIN", err)) != 0 ||
	    (rc = fill(&out->creds.client_token, cfg, "akamai-client-token", "AKAMAI_CLIENT_TOKEN",
		       "EXTERNAL_DNS_AKAMAI_CLIENT_TOKEN", err)) != 0 ||
	    (rc = fill(&out->creds.access_token, cfg, "akamai-access-token", "AKAMAI_ACCESS_TOKEN",
		       "EXTERNAL_DNS_AKAMAI_ACCESS_TOKEN", err)) != 0 ||
	    (rc = read_secret(out, cfg, err)) != 0)
		return rc;
	if (out->source == NULL)
		out->source = "flags and environment";
	if (out->creds.client_token == NULL || out->creds.access_token == NULL || out->creds.client_secret == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "EdgeGrid credentials are incomplete (%s%s%s missing): give "
				      "--akamai-edgerc-path, or --akamai-client-token, --akamai-access-token and "
				      "--akamai-client-secret-file (or $AKAMAI_CLIENT_TOKEN, ...)",
				      out->creds.client_token ? "" : "client token ", out->creds.access_token ? "" : "access token ",
				      out->creds.client_secret ? "" : "client secret ");
	dnsb_secret_register(out->creds.client_token);
	dnsb_secret_register(out->creds.access_token);
	if (out->creds.max_body == 0)
		out->creds.max_body = DNSB_AKAMAI_MAX_BODY;
	return 0;
}

/* --akamai-zone (repeatable) and --akamai-contract-id (repeatable, joined by ','). */
static int read_zones(dnsb_akamai_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	const char *v;
	size_t iter = 0;

	while ((v = dnsb_config_next(cfg, "akamai-zone", &iter)) != NULL) {
		char *apex = NULL, *id;
		if (dnsb_name_canonical(&apex, v, NULL) != 0)
			return dnsb_error_set(err, DNSB_EINVAL, "--akamai-zone %s: not a domain name", v);
		if ((id = strndup(apex, strlen(apex) > 1 ? strlen(apex) - 1 : 1)) == NULL ||
		    dnsb_hb_zones_push(&out->zones, &out->zone_count, apex, id) != 0) {
			free(id);
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		}
		free(id);
	}
	iter = 0;
	while ((v = dnsb_config_next(cfg, "akamai-contract-id", &iter)) != NULL) {
		char *joined = NULL;
		if (*v == '\0' || strchr(v, ','))
			return dnsb_error_set(err, DNSB_EINVAL, "--akamai-contract-id '%s': one contract id per flag", v);
		if (asprintf(&joined, "%s%s%s", out->contract_ids ? out->contract_ids : "", out->contract_ids ? "," : "", v) < 0)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		free(out->contract_ids);
		out->contract_ids = joined;
	}
	return 0;
}

#define AT(field) DNSB_FLAG_AT(dnsb_akamai_config, field)
#define MANUAL_FLAG(name, arg, opts, help) \
	{ name, DNSB_FLAG_STRING, arg, help, NULL, 0, 0, 0, 0, DNSB_FLAG_MANUAL | (opts), NULL, NULL, NULL }

/* The credentials, the endpoint and the zones are read together with their other sources (the .edgerc, the
 * environment) by read_creds, set_endpoint and read_zones above: declared here for --help and the parse. */
const dnsb_flag dnsb_akamai_flags[] = {
	MANUAL_FLAG("akamai-edgerc-path", "FILE", DNSB_FLAG_SECRET,
		    "the .edgerc file holding the EdgeGrid credentials (a secret file)"),
	MANUAL_FLAG("akamai-edgerc-section", "NAME", 0, "its section (default: default)"),
	MANUAL_FLAG("akamai-serviceconsumerdomain", "HOST",
		    0, "the API host, akab-....luna.akamaiapis.net (or $AKAMAI_HOST)"),
	MANUAL_FLAG("akamai-client-token", "TOKEN", DNSB_FLAG_SECRET,
		    "the EdgeGrid client token (or $AKAMAI_CLIENT_TOKEN)"),
	MANUAL_FLAG("akamai-access-token", "TOKEN", DNSB_FLAG_SECRET,
		    "the EdgeGrid access token (or $AKAMAI_ACCESS_TOKEN)"),
	MANUAL_FLAG("akamai-client-secret-file", "FILE", DNSB_FLAG_SECRET,
		    "a file holding the client secret (or $" DNSB_AKAMAI_SECRET_ENV ")"),
	MANUAL_FLAG("akamai-client-secret", "SECRET", DNSB_FLAG_SECRET,
		    "refused: a secret on argv; use --akamai-client-secret-file"),
	MANUAL_FLAG("akamai-contract-id", "ID", DNSB_FLAG_REPEAT,
		    "list the zones of this contract only (repeatable; GET /zones?contractIds=)"),
	MANUAL_FLAG("akamai-zone", "ZONE", DNSB_FLAG_REPEAT,
		    "a zone to manage (repeatable; default: every zone GET /zones lists)"),
	{ "akamai-batch-change-size", DNSB_FLAG_UINT, "N", "record-set changes per change list (default "
	  DNSB_FLAG_TEXT(DNSB_AKAMAI_BATCH_DEFAULT) ")", DNSB_FLAG_TEXT(DNSB_AKAMAI_BATCH_DEFAULT), 1, 10000,
	  AT(batch_size), 0, NULL, NULL, NULL },
	MANUAL_FLAG("akamai-api-endpoint", "URL",
		    0, "another server, https://HOST[:PORT] (default: https:// + the credentials' host)"),
	{ "akamai-ca-file", DNSB_FLAG_FILE, "FILE",
	  "PEM file of the CAs to trust instead of the system's (TLS is always verified)", NULL, 0, 0, AT(ca_file), 0,
	  NULL, NULL, NULL },
	DNSB_FLAG_END
};

static int parse_settings(void *settings, const dnsb_config *cfg, dnsb_error *err)
{
	dnsb_akamai_config *out = settings;
	int rc;

	if ((rc = dnsb_flags_parse(dnsb_akamai_flags, settings, cfg, err)) != 0 || (rc = read_creds(out, cfg, err)) != 0 ||
	    (rc = set_endpoint(out, cfg, err)) != 0)
		return rc;
	return read_zones(out, cfg, err);
}

static void clear_settings(void *settings)
{
	dnsb_akamai_config_clear(settings);
}

int dnsb_akamai_config_parse(dnsb_akamai_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_config_parse(out, sizeof(*out), parse_settings, clear_settings, cfg, err);
}

char *dnsb_akamai_url(const dnsb_akamai *a, const char *path, ...)
{
	char *url = NULL, *built = strdup(a->cfg.endpoint);
	const char *p = path;
	va_list ap;

	va_start(ap, path);
	while (built && *p) {
		const char *pct = strstr(p, "%s");
		size_t len = pct ? (size_t)(pct - p) : strlen(p);
		char *arg = pct ? dnsb_http_escape(va_arg(ap, const char *)) : NULL, *next = NULL;
		if ((pct && arg == NULL) ||
		    asprintf(&next, "%s%.*s%s", built, (int)len, p, arg ? arg : "") < 0)
			next = NULL;
		free(arg);
		free(built);
		built = next;
		p += len + (pct ? 2 : 0);
	}
	va_end(ap);
	url = built;
	return url;
}
