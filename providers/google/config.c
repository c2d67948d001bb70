/* config.c - the google provider's flags. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "providers/google/google.h"

void dnsb_google_config_clear(dnsb_google_config *cfg)
{
	if (cfg == NULL)
		return;
	free(cfg->project);
	dnsb_hb_zones_free(cfg->zones, cfg->zone_count);
	free(cfg->credentials);
	free(cfg->endpoint);
	free(cfg->ca_file);
	memset(cfg, 0, sizeof(*cfg));
}

/* A managed zone name: 1-63 of a-z, 0-9 and '-', starting with a letter (Cloud DNS's rule). */
static int zone_name_ok(const char *s)
{
	size_t len = strlen(s);

	return len >= 1 && len <= 63 && s[0] >= 'a' && s[0] <= 'z' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == len;
}

/* One --google-zone DNSNAME=ZONENAME. */
static int add_zone(void *settings, const char *spec, dnsb_error *err)
{
	dnsb_google_config *out = settings;
	const char *eq = strchr(spec, '=');
	char *dns, *apex;
	dnsb_error e = { 0, "" };
	int rc;

	if (eq == NULL || eq == spec || !zone_name_ok(eq + 1))
		return dnsb_error_set(err, DNSB_EINVAL,
				      "--google-zone %s: expected DNSNAME=ZONENAME (example.com=example-com; a zone name is a-z, 0-9 and '-', from a letter)",
				      spec);
	if ((dns = strndup(spec, (size_t)(eq - spec))) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = dnsb_name_canonical(&apex, dns, &e)) != 0) {
		free(dns);
		return dnsb_error_set(err, rc == DNSB_ENOMEM ? DNSB_ENOMEM : DNSB_EINVAL, "--google-zone %s: %s",
				      spec, rc == DNSB_ENOMEM ? "out of memory" : e.message);
	}
	free(dns);
	for (size_t i = 0; i < out->zone_count; i++) {
		if (strcmp(out->zones[i].apex, apex) == 0) {
			free(apex);
			return dnsb_error_set(err, DNSB_EINVAL, "--google-zone %s: %s is given twice", spec,
					      out->zones[i].apex);
		}
	}
	return dnsb_hb_zones_push(&out->zones, &out->zone_count, apex, eq + 1) == 0 ? 0
		: dnsb_error_set(err, DNSB_ENOMEM, "--google-zone %s: out of memory", spec);
}

/* --google-api-endpoint: https only (tokens travel with every request), ending in '/'. */
static int set_endpoint(void *settings, const char *v, dnsb_error *err)
{
	dnsb_google_config *out = settings;
	size_t len = strlen(v);

	if (strncmp(v, "https://", 8) != 0 || len <= 8)
		return dnsb_error_set(err, DNSB_EINVAL,
				      "--google-api-endpoint %s: expected an https:// URL (the default is " DNSB_GOOGLE_ENDPOINT_DEFAULT ")",
				      v);
	free(out->endpoint);
	if ((out->endpoint = malloc(len + 2)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	memcpy(out->endpoint, v, len + 1);
	if (v[len - 1] != '/')
		memcpy(out->endpoint + len, "/", 2);
	return 0;
}

/* A file the provider will read; checked now so the error names the flag. */
static int take_file(char **slot, const char *path, const char *what, dnsb_error *err)
{
	if (access(path, R_OK) != 0)
		return dnsb_error_set(err, errno == ENOENT ? DNSB_ENOTFOUND : DNSB_EIO, "%s %s: %s", what, path,
				      strerror(errno));
	return (*slot = strdup(path)) ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

#define AT(field) DNSB_FLAG_AT(dnsb_google_config, field)

const dnsb_flag dnsb_google_flags[] = {
	{ "google-project", DNSB_FLAG_STRING, "ID", "the project holding the managed zones (required)", NULL, 0, 0,
	  AT(project), 0, NULL, "the project holding the zones", NULL },
	{ "google-zone", DNSB_FLAG_CUSTOM, "DNSNAME=ZONENAME",
	  "a managed zone (repeatable; default: every zone of the project)", NULL, 0, 0, 0, 0, DNSB_FLAG_REPEAT, NULL,
	  NULL, add_zone },
	{ "google-batch-change-size", DNSB_FLAG_UINT, "N",
	  "changes per changes.create (default 1000; the project's quotas also apply)",
	  DNSB_FLAG_TEXT(DNSB_GOOGLE_BATCH_DEFAULT), 1, 100000, AT(batch_size), 0, NULL, NULL, NULL },
	{ "google-batch-change-interval", DNSB_FLAG_SECONDS, "SECONDS", "seconds between two submissions",
	  DNSB_FLAG_TEXT(DNSB_GOOGLE_INTERVAL_DEFAULT), 0, 3600, AT(interval), 0, NULL, NULL, NULL },
	{ "google-api-endpoint", DNSB_FLAG_CUSTOM, "URL", "Cloud DNS API base URL (default "
	  DNSB_GOOGLE_ENDPOINT_DEFAULT ")", DNSB_GOOGLE_ENDPOINT_DEFAULT, 0, 0, 0, 0, 0, NULL, NULL, set_endpoint },
	{ "google-ca-file", DNSB_FLAG_FILE, "FILE",
	  "PEM file of the CAs to trust instead of the system's (TLS is always verified)", NULL, 0, 0, AT(ca_file), 0,
	  NULL, NULL, NULL },
	{ "google-credentials", DNSB_FLAG_FILE, "FILE", "service-account key file (or $" DNSB_GOOGLE_CREDENTIALS_ENV
	  "; $" DNSB_GOOGLE_TOKEN_ENV " first, the GCE metadata server last)", NULL, 0, 0,
	  AT(credentials), DNSB_FLAG_SECRET, NULL, NULL, NULL },
	DNSB_FLAG_END
};

static int parse_settings(void *settings, const dnsb_config *cfg, dnsb_error *err)
{
	dnsb_google_config *out = settings;
	const char *env = getenv(DNSB_GOOGLE_CREDENTIALS_ENV);
	int rc;

	if ((rc = dnsb_flags_parse(dnsb_google_flags, out, cfg, err)) != 0)
		return rc;
	if (out->credentials) {
		out->credentials_source = "--google-credentials";
		return 0;
	}
	if (env && *env) {
		out->credentials_source = "$" DNSB_GOOGLE_CREDENTIALS_ENV;
		return take_file(&out->credentials, env, "$" DNSB_GOOGLE_CREDENTIALS_ENV, err);
	}
	return 0;
}

static void clear_settings(void *settings)
{
	dnsb_google_config_clear(settings);
}

int dnsb_google_config_parse(dnsb_google_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_config_parse(out, sizeof(*out), parse_settings, clear_settings, cfg, err);
}
