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
static int add_zone_id(dnsb_aws_config *out, const char *v, dnsb_error *err)
{
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

static int parse_settings(void *settings, const dnsb_config *cfg, dnsb_error *err)
{
	dnsb_aws_config *out = settings;
	static const char *const r53[] = { "AWS_ENDPOINT_URL_ROUTE_53", "AWS_ENDPOINT_URL", NULL };
	static const char *const sts[] = { "AWS_ENDPOINT_URL_STS", "AWS_ENDPOINT_URL", NULL };
	const char *v;
	unsigned long batch;
	size_t iter = 0;
	int rc;

	if ((v = dnsb_config_get(cfg, "aws-zone-type")) != NULL && *v) {
		if (strcmp(v, "public") == 0)
			out->zone_type = DNSB_AWS_ZONES_PUBLIC;
		else if (strcmp(v, "private") == 0)
			out->zone_type = DNSB_AWS_ZONES_PRIVATE;
		else
			return dnsb_error_set(err, DNSB_EINVAL, "--aws-zone-type %s: expected public or private", v);
	}
	while ((v = dnsb_config_next(cfg, "aws-zone-id", &iter)) != NULL)
		if ((rc = add_zone_id(out, v, err)) != 0)
			return rc;
	if ((rc = dnsb_config_uint(&batch, cfg, "aws-batch-change-size", DNSB_AWS_BATCH_DEFAULT, 1, DNSB_AWS_MAX_RECORDS,
				   err)) != 0)
		return rc;
	out->batch_size = batch;
	if ((rc = dnsb_config_seconds(&out->interval, cfg, "aws-batch-change-interval", DNSB_AWS_INTERVAL_DEFAULT,
				      err)) != 0)
		return rc;
	if (out->interval > 3600)
		return dnsb_error_set(err, DNSB_EINVAL, "--aws-batch-change-interval: at most 3600 seconds");
	out->wait_insync = dnsb_config_flag(cfg, "aws-wait-insync");
	out->prefer_cname = dnsb_config_flag(cfg, "aws-prefer-cname");
	out->no_health = dnsb_config_flag(cfg, "no-aws-evaluate-target-health");
	v = dnsb_config_get(cfg, "aws-profile");
	if (v == NULL || *v == '\0')
		v = getenv("AWS_PROFILE");
	if (v && *v && (out->profile = strdup(v)) == NULL)
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
