/*
 * events_ref.c - the object an endpoint's labels.resource names, and its uid:
 * read from the API server (without it `kubectl describe` does not show the
 * Event) and kept for a while, so that a plan of a thousand records costs one
 * GET per object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "applier/obs/events_int.h"

/* external-dns's source kinds (setResourceLabel in its source package) and what each names on the API. */
static const struct kind {
	const char *label, *api_version, *kind, *plural;
} kinds[] = {
	{ "ingress", "networking.k8s.io/v1", "Ingress", "ingresses" },
	{ "service", "v1", "Service", "services" },
	{ "pod", "v1", "Pod", "pods" },
	{ "crd", "externaldns.k8s.io/v1alpha1", "DNSEndpoint", "dnsendpoints" },
	{ "gateway-httproute", "gateway.networking.k8s.io/v1", "HTTPRoute", "httproutes" },
	{ "gateway-grpcroute", "gateway.networking.k8s.io/v1", "GRPCRoute", "grpcroutes" },
	{ "gateway-tlsroute", "gateway.networking.k8s.io/v1alpha2", "TLSRoute", "tlsroutes" },
	{ "gateway-tcproute", "gateway.networking.k8s.io/v1alpha2", "TCPRoute", "tcproutes" },
	{ "gateway-udproute", "gateway.networking.k8s.io/v1alpha2", "UDPRoute", "udproutes" },
	{ "gateway", "networking.istio.io/v1", "Gateway", "gateways" },
	{ "virtualservice", "networking.istio.io/v1", "VirtualService", "virtualservices" },
};

/* A DNS label or subdomain as Kubernetes names are: [a-z0-9.-], not empty, within max. */
static int name_ok(const char *s, size_t len, size_t max)
{
	if (len == 0 || len > max || (len <= 2 && strspn(s, ".") >= len)) /* "." and ".." name no object */
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

int dnsb_k8s_ref_parse(dnsb_k8s_ref *out, const char *resource)
{
	const char *s1 = resource ? strchr(resource, '/') : NULL, *s2 = s1 ? strchr(s1 + 1, '/') : NULL;

	memset(out, 0, sizeof(*out));
	if (s2 == NULL || !name_ok(s1 + 1, (size_t)(s2 - s1 - 1), sizeof(out->ns) - 1) ||
	    !name_ok(s2 + 1, strlen(s2 + 1), sizeof(out->name) - 1))
		return DNSB_EINVAL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strlen(kinds[i].label) != (size_t)(s1 - resource) ||
		    strncmp(kinds[i].label, resource, (size_t)(s1 - resource)) != 0)
			continue;
		out->api_version = kinds[i].api_version;
		out->kind = kinds[i].kind;
		out->plural = kinds[i].plural;
		memcpy(out->ns, s1 + 1, (size_t)(s2 - s1 - 1));
		strcpy(out->name, s2 + 1);
		return 0;
	}
	return DNSB_EINVAL;
}

void dnsb_k8s_ref_path(char *buf, size_t size, const dnsb_k8s_ref *ref)
{
	int core = strchr(ref->api_version, '/') == NULL;

	snprintf(buf, size, "/%s/%s/namespaces/%s/%s/%s", core ? "api" : "apis", ref->api_version, ref->ns,
		 ref->plural, ref->name);
}

struct uid_entry {
	char key[400];   /* the object's path */
	char uid[64];    /* "" for an object found absent */
	double expires;  /* monotonic seconds */
};

#define UIDS_MAX 4096

struct dnsb_k8s_uids {
	struct uid_entry *e;
	size_t n;
};

dnsb_k8s_uids *dnsb_k8s_uids_new(void)
{
	dnsb_k8s_uids *u = calloc(1, sizeof(*u));

	if (u && (u->e = calloc(UIDS_MAX, sizeof(*u->e))) == NULL) {
		free(u);
		return NULL;
	}
	return u;
}

void dnsb_k8s_uids_free(dnsb_k8s_uids *u)
{
	if (u == NULL)
		return;
	free(u->e);
	free(u);
}

/* The entry for key: found, a free or expired one to fill, or the one nearest its end. */
static struct uid_entry *slot(dnsb_k8s_uids *u, const char *key, double now, int *found)
{
	struct uid_entry *spare = NULL;

	for (size_t i = 0; i < u->n; i++) {
		if (strcmp(u->e[i].key, key) == 0) {
			*found = u->e[i].expires > now;
			return &u->e[i];
		}
		if (spare == NULL || u->e[i].expires < spare->expires)
			spare = &u->e[i];
	}
	*found = 0;
	if (u->n < UIDS_MAX)
		return &u->e[u->n++];
	return spare;
}

/* Ask the API for the object's metadata.uid. */
static int read_uid(dnsb_k8s_client *c, dnsb_k8s_ref *ref, const char *path, double time_left, long *out,
		    dnsb_error *err)
{
	json_object *reply = NULL, *meta, *uid;
	long status = 0;
	int rc = dnsb_k8s_request(c, "GET", path, NULL, NULL, time_left, &status, &reply, err);

	*out = status;
	if (rc == 0 && status == 200 && json_object_object_get_ex(reply, "metadata", &meta) &&
	    json_object_object_get_ex(meta, "uid", &uid) && json_object_is_type(uid, json_type_string))
		snprintf(ref->uid, sizeof(ref->uid), "%s", json_object_get_string(uid));
	json_object_put(reply);
	if (rc != 0)
		return rc;
	if (status == 200 && ref->uid[0])
		return 0;
	if (status == 404)
		return dnsb_error_set(err, DNSB_ENOTFOUND, "GET %s: 404", path);
	if (status == 401 || status == 403)
		return dnsb_error_set(err, DNSB_EFATAL, "GET %s: %ld (may the service account get %s?)", path, status,
				      ref->plural);
	return dnsb_error_set(err, DNSB_ETRANSIENT, "GET %s: %ld", path, status);
}

int dnsb_k8s_uid(dnsb_k8s_uids *u, dnsb_k8s_client *c, dnsb_k8s_ref *ref, double now, double time_left,
		 long *status, dnsb_error *err)
{
	char path[400];
	struct uid_entry *e;
	int found, rc;

	*status = 0;
	dnsb_k8s_ref_path(path, sizeof(path), ref);
	e = slot(u, path, now, &found);
	if (found) {
		snprintf(ref->uid, sizeof(ref->uid), "%s", e->uid);
		return e->uid[0] ? 0 : dnsb_error_set(err, DNSB_ENOTFOUND, "GET %s: 404 (remembered)", path);
	}
	ref->uid[0] = '\0';
	rc = read_uid(c, ref, path, time_left, status, err);
	if (rc == 0 || rc == DNSB_ENOTFOUND) {
		snprintf(e->key, sizeof(e->key), "%s", path);
		snprintf(e->uid, sizeof(e->uid), "%s", ref->uid);
		e->expires = now + (rc == 0 ? DNSB_K8S_UID_TTL : DNSB_K8S_UID_GONE_TTL);
	} else if (e->key[0] == '\0' || strcmp(e->key, path) != 0) {
		e->key[0] = '\0'; /* a slot taken for nothing: left free */
		e->expires = 0;
	}
	return rc;
}
