/*
 * config.c - the azure provider's settings: its flags, external-dns's
 * azure.json (--azure-config-file) and the environment the Azure SDKs read,
 * and the credential chosen in their order: workload identity, client
 * secret, managed identity.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/secret.h"
#include "providers/azure/internal.h"

void dnsb_azure_config_clear(dnsb_azure_config *cfg)
{
	if (cfg == NULL)
		return;
	free(cfg->endpoint);
	free(cfg->subscription);
	free(cfg->resource_group);
	free(cfg->ca_file);
	free(cfg->tenant);
	free(cfg->client_id);
	dnsb_secret_free(cfg->secret);
	free(cfg->token_file);
	free(cfg->authority);
	free(cfg->imds);
	memset(cfg, 0, sizeof(*cfg));
}

/* *dst = a copy of v, when v is set and *dst is not (the first source wins). */
static int take(char **dst, const char *v)
{
	if (*dst != NULL || v == NULL || *v == '\0')
		return 0;
	return (*dst = strdup(v)) ? 0 : DNSB_ENOMEM;
}

static const char *json_str(json_object *doc, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(doc, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int json_true(json_object *doc, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(doc, key, &v) && json_object_get_boolean(v);
}

/* The credential named by azure.json: its flags choose, its keys fill. */
static int config_file_cred(dnsb_azure_config *out, json_object *doc, const char *path, dnsb_error *err)
{
	int rc = take(&out->tenant, json_str(doc, "tenantId"));

	if (rc == 0)
		rc = take(&out->subscription, json_str(doc, "subscriptionId"));
	if (rc == 0)
		rc = take(&out->resource_group, json_str(doc, "resourceGroup"));
	if (rc != 0)
		return rc;
	out->cred_source = "--azure-config-file";
	if (json_true(doc, "useWorkloadIdentityExtension")) {
		out->cred = DNSB_AZURE_CRED_WORKLOAD;
		if ((rc = take(&out->client_id, json_str(doc, "aadClientId"))) != 0 ||
		    (rc = take(&out->client_id, getenv("AZURE_CLIENT_ID"))) != 0 ||
		    (rc = take(&out->token_file, getenv("AZURE_FEDERATED_TOKEN_FILE"))) != 0)
			return rc;
		if (out->token_file == NULL)
			return dnsb_error_set(err, DNSB_EINVAL,
					      "%s: useWorkloadIdentityExtension needs $AZURE_FEDERATED_TOKEN_FILE", path);
	} else if (json_true(doc, "useManagedIdentityExtension")) {
		out->cred = DNSB_AZURE_CRED_MANAGED;
		return take(&out->client_id, json_str(doc, "userAssignedIdentityID"));
	} else {
		out->cred = DNSB_AZURE_CRED_SECRET;
		if ((rc = take(&out->client_id, json_str(doc, "aadClientId"))) != 0 ||
		    (rc = take(&out->secret, json_str(doc, "aadClientSecret"))) != 0)
			return rc;
		if (out->client_id == NULL || out->secret == NULL)
			return dnsb_error_set(err, DNSB_EINVAL,
					      "%s: aadClientId and aadClientSecret are required without "
					      "useManagedIdentityExtension or useWorkloadIdentityExtension", path);
		dnsb_secret_register(out->secret); /* redacted from all that is printed: an endpoint may echo it */
	}
	return 0;
}

/* external-dns's azure.json, read as a secret (it may hold aadClientSecret): wiped, and refused past the reader's
 * limit rather than cut. */
static int read_config_file(void *settings, const char *path, dnsb_error *err)
{
	dnsb_azure_config *out = settings;
	char *text = NULL;
	json_object *doc;
	int rc;

	if ((rc = dnsb_secret_read_file(&text, path, "--azure-config-file", err)) == DNSB_ENOMEM)
		return dnsb_error_set(err, rc, "--azure-config-file %s: out of memory", path); /* the reader leaves it */
	if (rc != 0)
		return rc;
	doc = json_tokener_parse(text);
	dnsb_secret_free(text);
	if (doc == NULL || !json_object_is_type(doc, json_type_object)) {
		json_object_put(doc);
		return dnsb_error_set(err, DNSB_EINVAL, "--azure-config-file %s: not a JSON object", path);
	}
	rc = config_file_cred(out, doc, path, err);
	json_object_put(doc);
	return rc;
}

/* The environment's credential, in the SDKs' order: workload identity, client secret, managed identity. */
static int env_cred(dnsb_azure_config *out, const char *user_identity)
{
	const char *file = getenv("AZURE_FEDERATED_TOKEN_FILE"), *secret = getenv("AZURE_CLIENT_SECRET");
	int rc = take(&out->tenant, getenv("AZURE_TENANT_ID"));
	int have_app = rc == 0 && out->tenant && getenv("AZURE_CLIENT_ID") && *getenv("AZURE_CLIENT_ID");

	if (rc != 0)
		return rc;
	if (have_app && file && *file) {
		out->cred = DNSB_AZURE_CRED_WORKLOAD;
		out->cred_source = "$AZURE_FEDERATED_TOKEN_FILE";
		return take(&out->token_file, file) || take(&out->client_id, getenv("AZURE_CLIENT_ID")) ? DNSB_ENOMEM : 0;
	}
	if (have_app && secret && *secret) {
		out->cred = DNSB_AZURE_CRED_SECRET;
		out->cred_source = "$AZURE_CLIENT_SECRET";
		dnsb_secret_register(secret); /* redacted from all that is printed: an endpoint may echo it */
		return take(&out->secret, secret) || take(&out->client_id, getenv("AZURE_CLIENT_ID")) ? DNSB_ENOMEM : 0;
	}
	out->cred = DNSB_AZURE_CRED_MANAGED;
	out->cred_source = "managed identity (IMDS)";
	return take(&out->client_id, user_identity);
}

/* --azure-api-endpoint: http(s), kept with one trailing '/'. */
static int set_endpoint(void *settings, const char *v, dnsb_error *err)
{
	dnsb_azure_config *out = settings;
	size_t len = strlen(v);

	if (strncmp(v, "https://", 8) != 0 && strncmp(v, "http://", 7) != 0)
		return dnsb_error_set(err, DNSB_EINVAL, "--azure-api-endpoint %s: expected an https:// URL", v);
	while (len > 0 && v[len - 1] == '/')
		len--;
	free(out->endpoint);
	if (asprintf(&out->endpoint, "%.*s/", (int)len, v) < 0) {
		out->endpoint = NULL;
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	return 0;
}

static int set_authority(dnsb_azure_config *out)
{
	const char *v = getenv("AZURE_AUTHORITY_HOST");
	size_t len;

	if (v == NULL || *v == '\0')
		v = DNSB_AZURE_AUTHORITY_DEFAULT;
	len = strlen(v);
	while (len > 0 && v[len - 1] == '/')
		len--;
	return (out->authority = strndup(v, len)) ? 0 : DNSB_ENOMEM;
}

#define AT(field) DNSB_FLAG_AT(dnsb_azure_config, field)

/* Table order is parse order: the flags first, then azure.json fills what they left (the first source wins). */
const dnsb_flag dnsb_azure_flags[] = {
	{ "azure-api-endpoint", DNSB_FLAG_CUSTOM, "URL", "the Resource Manager endpoint (default "
	  DNSB_AZURE_ENDPOINT_DEFAULT ")", DNSB_AZURE_ENDPOINT_DEFAULT, 0, 0, 0, 0, 0, NULL, NULL, set_endpoint },
	{ "azure-max-in-flight", DNSB_FLAG_UINT, "N", "record-set requests in flight at once",
	  DNSB_FLAG_TEXT(DNSB_AZURE_IN_FLIGHT_DEFAULT), 1, 256, AT(max_in_flight), 0, NULL, NULL, NULL },
	{ "azure-private-zones", DNSB_FLAG_BOOL, NULL, "manage privateDnsZones (api-version "
	  DNSB_AZURE_PRIVATE_API_VERSION ")", NULL, 0, 0, AT(private_zones), 0, NULL, NULL, NULL },
	{ "azure-ca-file", DNSB_FLAG_FILE, "FILE",
	  "PEM file of the CAs to trust instead of the system's (TLS is always verified)", NULL, 0, 0, AT(ca_file), 0,
	  NULL, NULL, NULL },
	{ "azure-subscription-id", DNSB_FLAG_STRING, "ID",
	  "the subscription of the zones (or subscriptionId in --azure-config-file)", NULL, 0, 0, AT(subscription), 0,
	  NULL, NULL, NULL },
	{ "azure-resource-group", DNSB_FLAG_STRING, "NAME",
	  "the resource group of the zones (or resourceGroup in --azure-config-file)", NULL, 0, 0, AT(resource_group),
	  0, NULL, NULL, NULL },
	{ "azure-config-file", DNSB_FLAG_CUSTOM, "FILE",
	  "external-dns's azure.json (tenantId, aadClientId, aadClientSecret, use*Extension, ...)", NULL, 0, 0, 0, 0,
	  DNSB_FLAG_SECRET, NULL, NULL, read_config_file },
	/* Read after the credential is chosen (a managed identity's), by parse_settings. */
	{ "azure-user-assigned-identity-client-id", DNSB_FLAG_STRING, "ID",
	  "the client id of a user-assigned managed identity", NULL, 0, 0, 0, 0, DNSB_FLAG_MANUAL, NULL, NULL, NULL },
	DNSB_FLAG_END
};

static int parse_settings(void *settings, const dnsb_config *cfg, dnsb_error *err)
{
	dnsb_azure_config *out = settings;
	const char *v = getenv("DNSBATCH_AZURE_IMDS_ENDPOINT");
	int rc;

	if ((rc = dnsb_flags_parse(dnsb_azure_flags, out, cfg, err)) != 0)
		return rc;
	if ((rc = take(&out->imds, v && *v ? v : DNSB_AZURE_IMDS_DEFAULT)) != 0 || (rc = set_authority(out)) != 0)
		return rc;
	if (out->cred_source == NULL && /* no --azure-config-file */
	    (rc = env_cred(out, dnsb_config_get(cfg, "azure-user-assigned-identity-client-id"))) != 0)
		return rc;
	if (out->cred == DNSB_AZURE_CRED_MANAGED && (v = dnsb_config_get(cfg, "azure-user-assigned-identity-client-id")))
		if ((rc = take(&out->client_id, v)) != 0)
			return rc;
	if (out->subscription == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "--azure-subscription-id is required (or subscriptionId in "
				      "--azure-config-file)");
	if (out->resource_group == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "--azure-resource-group is required (or resourceGroup in "
				      "--azure-config-file)");
	if (out->cred != DNSB_AZURE_CRED_MANAGED && out->tenant == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "%s: the tenant id is required ($AZURE_TENANT_ID or tenantId)",
				      out->cred_source);
	return 0;
}

static void clear_settings(void *settings)
{
	dnsb_azure_config_clear(settings);
}

int dnsb_azure_config_parse(dnsb_azure_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_config_parse(out, sizeof(*out), parse_settings, clear_settings, cfg, err);
}
