/* config.c - the aws provider's flags and the AWS SDKs' endpoint variables. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "providers/aws/aws.h"

void dnsb_aws_config_clear(dnsb_aws_config *cfg)
{
	if (cfg == NULL)
		return;
	for (size_t i = 0; i < cfg->zone_id_count; i++)
		free(cfg->zone_ids[i]);
	free(cfg->zone_ids);
	free(cfg->profile);
	free(cfg->endpoint);
	free(cfg->sts_endpoint);
	free(cfg->ca_file);
	memset(cfg, 0, sizeof(*cfg));
}

/* A hosted zone id: "Z..." letters and digits, "/hostedzone/" allowed before it. */
static int add_zone_id(void *settings, const char *v, dnsb_error *err)
{
	dnsb_aws_config *out = settings;
	char **grown;
	size_t len;

	if (strncmp(v, "/hostedzone/", 12) == 0)
		v += 12;
	len = strlen(v);
	if (len == 0 || len > 32 || strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != len)
		return dnsb_error_set(err, DNSB_EINVAL, "--aws-zone-id %s: expected a hosted zone id (Z0123456789ABC)", v);
	if ((grown = realloc(out->zone_ids, (out->zone_id_count + 1) * sizeof(*grown))) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	out->zone_ids = grown;
	if ((out->zone_ids[out->zone_id_count] = strdup(v)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	out->zone_id_count++;
	return 0;
}

/* An endpoint from the first set variable of names (NULL-terminated), else dflt: https or http, no trailing '/'. */
static int endpoint(char **slot, const char *const *names, const char *dflt, dnsb_error *err)
{
	const char *v = NULL, *name = "";
	size_t len;

	for (size_t i = 0; names[i] && v == NULL; i++)
		if ((v = getenv(names[i])) != NULL && *v == '\0')
			v = NULL;
		else
			name = names[i];
	if (v == NULL)
		v = dflt;
	if (strncmp(v, "https://", 8) != 0 && strncmp(v, "http://", 7) != 0)
		return dnsb_error_set(err, DNSB_EINVAL, "$%s %s: expected an https:// URL", name, v);
	len = strlen(v);
	while (len > 0 && v[len - 1] == '/')
		len--;
	return (*slot = strndup(v, len)) ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

static int take_zone_type(void *settings, const char *v, dnsb_error *err)
{
	dnsb_aws_config *out = settings;

	if (*v == '\0')
		return 0;
	if (strcmp(v, "public") == 0)
		out->zone_type = DNSB_AWS_ZONES_PUBLIC;
	else if (strcmp(v, "private") == 0)
		out->zone_type = DNSB_AWS_ZONES_PRIVATE;
	else
		return dnsb_error_set(err, DNSB_EINVAL, "--aws-zone-type %s: expected public or private", v);
	return 0;
}

#define AT(field) DNSB_FLAG_AT(dnsb_aws_config, field)

const dnsb_flag dnsb_aws_flags[] = {
	{ "aws-zone-type", DNSB_FLAG_CUSTOM, "public|private", "only hosted zones of that type (default both)", NULL, 0,
	  0, 0, 0, 0, NULL, NULL, take_zone_type },
	{ "aws-zone-id", DNSB_FLAG_CUSTOM, "ID",
	  "a hosted zone id to manage (repeatable; default: every zone ListHostedZones gives)", NULL, 0, 0, 0, 0,
	  DNSB_FLAG_REPEAT, NULL, NULL, add_zone_id },
	{ "aws-batch-change-size", DNSB_FLAG_UINT, "N", "changes per ChangeResourceRecordSets (default 1000, at most 1000)",
	  DNSB_FLAG_TEXT(DNSB_AWS_BATCH_DEFAULT), 1, DNSB_AWS_MAX_RECORDS, AT(batch_size), 0, NULL, NULL, NULL },
	{ "aws-batch-change-interval", DNSB_FLAG_SECONDS, "SECONDS", "seconds between two submissions",
	  DNSB_FLAG_TEXT(DNSB_AWS_INTERVAL_DEFAULT), 0, 3600, AT(interval), 0, NULL, NULL, NULL },
	{ "aws-profile", DNSB_FLAG_STRING, "NAME",
	  "profile of the shared credentials file (default $AWS_PROFILE, else default)", NULL, 0, 0, AT(profile), 0,
	  NULL, NULL, NULL },
	{ "aws-wait-insync", DNSB_FLAG_BOOL, NULL,
	  "after each accepted batch, poll GetChange until Route53 says INSYNC (within --timeout)", NULL, 0, 0,
	  AT(wait_insync), 0, NULL, NULL, NULL },
	{ "no-aws-evaluate-target-health", DNSB_FLAG_BOOL, NULL,
	  "aliases that do not say evaluate no target health (default: they do)", NULL, 0, 0, AT(no_health), 0, NULL,
	  NULL, NULL },
	{ "aws-prefer-cname", DNSB_FLAG_BOOL, NULL,
	  "serve: keep a CNAME to an AWS load balancer or CloudFront a CNAME (default: an alias)", NULL, 0, 0,
	  AT(prefer_cname), 0, NULL, NULL, NULL },
	DNSB_FLAG_END
};

static int parse_settings(void *settings, const dnsb_config *cfg, dnsb_error *err)
{
	dnsb_aws_config *out = settings;
	static const char *const r53[] = { "AWS_ENDPOINT_URL_ROUTE_53", "AWS_ENDPOINT_URL", NULL };
	static const char *const sts[] = { "AWS_ENDPOINT_URL_STS", "AWS_ENDPOINT_URL", NULL };
	const char *v;
	int rc;

	if ((rc = dnsb_flags_parse(dnsb_aws_flags, out, cfg, err)) != 0)
		return rc;
	if (out->profile == NULL && (v = getenv("AWS_PROFILE")) != NULL && *v && (out->profile = strdup(v)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = endpoint(&out->endpoint, r53, DNSB_AWS_ENDPOINT_DEFAULT, err)) != 0 ||
	    (rc = endpoint(&out->sts_endpoint, sts, DNSB_AWS_STS_DEFAULT, err)) != 0)
		return rc;
	if ((v = getenv("AWS_CA_BUNDLE")) != NULL && *v) {
		if (access(v, R_OK) != 0)
			return dnsb_error_set(err, DNSB_EINVAL, "$AWS_CA_BUNDLE %s: %s", v, strerror(errno));
		if ((out->ca_file = strdup(v)) == NULL)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	return 0;
}

static void clear_settings(void *settings)
{
	dnsb_aws_config_clear(settings);
}

int dnsb_aws_config_parse(dnsb_aws_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_config_parse(out, sizeof(*out), parse_settings, clear_settings, cfg, err);
}
