/* config.c - the cloudflare provider's flags and its credentials. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/secret.h"
#include "providers/cloudflare/cloudflare.h"

void dnsb_cf_config_clear(dnsb_cf_config *cfg)
{
	if (cfg == NULL)
		return;
	free(cfg->endpoint);
	free(cfg->ca_file);
	free(cfg->comment);
	for (size_t i = 0; i < 2; i++)
		dnsb_secret_free(cfg->auth[i]);
	memset(cfg, 0, sizeof(*cfg));
}

/* A credential's text, trimmed; printable ASCII only (it goes into a header). @return 0 or DNSB_EINVAL */
static int secret_text(char *out, size_t size, const char *text, const char *source, dnsb_error *err)
{
	const char *start = text, *end;

	while (isspace((unsigned char)*start))
		start++;
	end = start + strlen(start);
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	if (end == start || (size_t)(end - start) >= size)
		return dnsb_error_set(err, DNSB_EINVAL, "%s: empty, or longer than %zu bytes", source, size - 1);
	for (const char *p = start; p < end; p++)
		if (!isprint((unsigned char)*p))
			return dnsb_error_set(err, DNSB_EINVAL, "%s holds a character that is not printable", source);
	memcpy(out, start, (size_t)(end - start));
	out[end - start] = '\0';
	return 0;
}

/* "Name: value" for a credential (a secret). @return 0 or DNSB_ENOMEM */
static int auth_line(char **out, const char *name, const char *value, dnsb_error *err)
{
	size_t len = strlen(name) + strlen(value) + 3;

	if ((*out = malloc(len)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory keeping the %s header", name);
	snprintf(*out, len, "%s: %s", name, value);
	return 0;
}

/* $CF_API_TOKEN: the token, or file:PATH naming a file that holds it. */
static int take_token(dnsb_cf_config *out, const char *env, dnsb_error *err)
{
	char token[1024], line[1100], *text = NULL;
	int rc;

	if (strncmp(env, "file:", 5) == 0) {
		/* The one secret reader: its limit, and an error past it (never a token cut short). */
		if ((rc = dnsb_secret_read_file(&text, env + 5, "$" DNSB_CF_TOKEN_ENV, err)) != 0)
			return rc;
		rc = secret_text(token, sizeof(token), text, "the file $" DNSB_CF_TOKEN_ENV " names", err);
		dnsb_secret_free(text);
		out->auth_source = "the file $" DNSB_CF_TOKEN_ENV " names";
	} else {
		rc = secret_text(token, sizeof(token), env, "$" DNSB_CF_TOKEN_ENV, err);
		out->auth_source = "$" DNSB_CF_TOKEN_ENV;
	}
	if (rc == 0) {
		dnsb_secret_register(token); /* from the environment too: redacted from all that is printed */
		snprintf(line, sizeof(line), "Bearer %s", token);
		rc = auth_line(&out->auth[0], "Authorization", line, err);
	}
	explicit_bzero(token, sizeof(token));
	explicit_bzero(line, sizeof(line));
	return rc;
}

/* $CF_API_KEY and $CF_API_EMAIL: the global key's two headers. */
static int take_key(dnsb_cf_config *out, const char *key, const char *email, dnsb_error *err)
{
	char text[1024];
	int rc;

	if (email == NULL || *email == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "$" DNSB_CF_KEY_ENV " needs $" DNSB_CF_EMAIL_ENV " (its account's email)");
	if ((rc = secret_text(text, sizeof(text), key, "$" DNSB_CF_KEY_ENV, err)) == 0 &&
	    (dnsb_secret_register(text), rc = auth_line(&out->auth[0], "X-Auth-Key", text, err)) == 0 &&
	    (rc = secret_text(text, sizeof(text), email, "$" DNSB_CF_EMAIL_ENV, err)) == 0)
		rc = auth_line(&out->auth[1], "X-Auth-Email", text, err);
	explicit_bzero(text, sizeof(text));
	out->auth_source = "$" DNSB_CF_KEY_ENV;
	return rc;
}

static int take_credentials(dnsb_cf_config *out, dnsb_error *err)
{
	const char *token = getenv(DNSB_CF_TOKEN_ENV), *key = getenv(DNSB_CF_KEY_ENV);

	if (token && *token)
		return take_token(out, token, err);
	if (key && *key)
		return take_key(out, key, getenv(DNSB_CF_EMAIL_ENV), err);
	return dnsb_error_set(err, DNSB_EINVAL,
			      "Cloudflare credentials are required: $" DNSB_CF_TOKEN_ENV " (a token, or file:PATH), or $"
			      DNSB_CF_KEY_ENV " with $" DNSB_CF_EMAIL_ENV);
}

/* --cloudflare-api-endpoint: http(s)://..., kept without a trailing '/'. */
static int take_endpoint(void *settings, const char *v, dnsb_error *err)
{
	dnsb_cf_config *out = settings;
	size_t len;

	if (strncmp(v, "https://", 8) != 0 && strncmp(v, "http://", 7) != 0)
		return dnsb_error_set(err, DNSB_EINVAL, "--cloudflare-api-endpoint %s: expected an http(s):// URL", v);
	len = strlen(v);
	while (len > 0 && v[len - 1] == '/')
		len--;
	free(out->endpoint);
	return (out->endpoint = strndup(v, len)) ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

/* One --cloudflare-zone-id: checked and counted here, looked up at open (dnsb_cf_config.zone_id_count). */
static int check_zone_id(void *settings, const char *v, dnsb_error *err)
{
	dnsb_cf_config *out = settings;

	if (*v == '\0' || strspn(v, "0123456789abcdefABCDEF") != strlen(v) || strlen(v) > 32)
		return dnsb_error_set(err, DNSB_EINVAL, "--cloudflare-zone-id '%s': expected a zone id (hex, up to 32)", v);
	out->zone_id_count++;
	return 0;
}

#define AT(field) DNSB_FLAG_AT(dnsb_cf_config, field)

const dnsb_flag dnsb_cf_flags[] = {
	{ "cloudflare-api-endpoint", DNSB_FLAG_CUSTOM, "URL", "the API's base URL (default " DNSB_CF_ENDPOINT_DEFAULT ")",
	  DNSB_CF_ENDPOINT_DEFAULT, 0, 0, 0, 0, 0, NULL, NULL, take_endpoint },
	{ "cloudflare-zone-id", DNSB_FLAG_CUSTOM, "ID",
	  "a zone id to manage (repeatable; default: every zone GET /zones gives)", NULL, 0, 0, 0, 0, DNSB_FLAG_REPEAT,
	  NULL, NULL, check_zone_id },
	{ "cloudflare-batch-change-size", DNSB_FLAG_UINT, "N",
	  "operations per batch (default 200, the Free plan's; 3500 on paid plans)", DNSB_FLAG_TEXT(DNSB_CF_BATCH_DEFAULT),
	  1, 100000, AT(batch_size), 0, NULL, NULL, NULL },
	{ "cloudflare-proxied", DNSB_FLAG_BOOL, NULL,
	  "new A, AAAA and CNAME records are proxied (their TTL is then automatic)", NULL, 0, 0, AT(proxied), 0, NULL,
	  NULL, NULL },
	{ "cloudflare-record-comment", DNSB_FLAG_STRING, "TEXT", "the comment written on every record created", NULL, 0,
	  0, AT(comment), 0, NULL, NULL, NULL },
	{ "cloudflare-ca-file", DNSB_FLAG_FILE, "FILE",
	  "PEM file of the CAs to trust instead of the system's (TLS is always verified)", NULL, 0, 0, AT(ca_file), 0,
	  NULL, NULL, NULL },
	DNSB_FLAG_END
};

static int parse_settings(void *settings, const dnsb_config *cfg, dnsb_error *err)
{
	int rc;

	if ((rc = dnsb_flags_parse(dnsb_cf_flags, settings, cfg, err)) != 0)
		return rc;
	return take_credentials(settings, err);
}

static void clear_settings(void *settings)
{
	dnsb_cf_config_clear(settings);
}

int dnsb_cf_config_parse(dnsb_cf_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_config_parse(out, sizeof(*out), parse_settings, clear_settings, cfg, err);
}
