/*
 * endpoint_read.c - one external-dns Endpoint read as the RRset a provider
 * would store: the owner name and RDATA made canonical, the TTL defaulted,
 * anything no DNS provider here can apply refused with the reason.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <ldns/ldns.h>

#include "dnsbatch/plan.h"
#include "applier/plan/internal.h"

/* Does this JSON string hold a NUL (JSON's \u0000)? C strings would silently end there. */
static int has_nul(json_object *v)
{
	return json_object_is_type(v, json_type_string) &&
	       strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v);
}

/*
 * The first string of the endpoint holding a NUL, as a path below the
 * endpoint ("targets[1]", "labels.ownedRecord"), into `at`; 0 when none.
 */
static int find_nul(const dnsb_endpoint_fields *f, char *at, size_t size)
{
	const struct { const char *name; json_object *v; } plain[] = {
		{ "dnsName", f->dns_name }, { "recordType", f->record_type }, { "setIdentifier", f->set_identifier },
	};
	json_object *v;

	for (size_t p = 0; p < sizeof(plain) / sizeof(plain[0]); p++)
		if (has_nul(plain[p].v))
			return snprintf(at, size, "%s", plain[p].name), 1;
	if ((v = f->targets) != NULL && json_object_is_type(v, json_type_array))
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (has_nul(json_object_array_get_idx(v, i)))
				return snprintf(at, size, "targets[%zu]", i), 1;
	if ((v = f->labels) != NULL && json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, key, val)
			if (has_nul(val))
				return snprintf(at, size, "labels.%s", key), 1;
	}
	if ((v = f->provider_specific) != NULL && json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			json_object *p = json_object_array_get_idx(v, i), *field;
			if (json_object_is_type(p, json_type_object) &&
			    ((json_object_object_get_ex(p, "name", &field) && has_nul(field)) ||
			     (json_object_object_get_ex(p, "value", &field) && has_nul(field))))
				return snprintf(at, size, "providerSpecific[%zu]", i), 1;
		}
	}
	return 0;
}

/*
 * An alias endpoint (providerSpecific alias = "true", as external-dns's aws
 * provider reads it): one target, a host name. Its health flag is
 * aws/evaluate-target-health = "true"; absent, the provider's default decides
 * (external-dns's --aws-evaluate-target-health); any other value is false, as
 * external-dns makes it. @return 0, or DNSB_ENOMEM
 */
static int alias_rrset(dnsb_rrset *out, json_object *ep, json_object *targets, const char *path, const char *name,
		       const char *type, char **why)
{
	const char *health = dnsb_endpoint_property(ep, DNSB_PROPERTY_EVALUATE_TARGET_HEALTH);
	json_object *target = json_object_array_get_idx(targets, 0);
	dnsb_error e = { 0 };
	char *canonical = NULL;
	int rc;

#define INVALID(...) do { if (asprintf(why, __VA_ARGS__) < 0) return DNSB_ENOMEM; return 0; } while (0)
	if (out->type != LDNS_RR_TYPE_A && out->type != LDNS_RR_TYPE_AAAA)
		INVALID("%s (%s %s): an alias (providerSpecific alias=true) is of type A or AAAA: it answers with "
			"its target's addresses", path, name, type);
	if (json_object_array_length(targets) != 1)
		INVALID("%s (%s %s alias): an alias has one target, got %zu", path, name, type,
			json_object_array_length(targets));
	if (!json_object_is_type(target, json_type_string))
		INVALID("%s.targets[0] (%s %s alias): expected a string", path, name, type);
	if ((rc = dnsb_name_canonical(&canonical, json_object_get_string(target), &e)) == DNSB_ENOMEM)
		return rc;
	if (rc < 0)
		INVALID("%s.targets[0] (%s %s alias): the target is a host name: %s", path, name, type, e.message);
#undef INVALID
	rc = dnsb_rrset_add_rdata(out, canonical);
	free(canonical);
	out->alias = health == NULL ? DNSB_ALIAS_DEFAULT : strcmp(health, "true") == 0 ? DNSB_ALIAS_HEALTH : DNSB_ALIAS_PLAIN;
	return rc;
}

/* An owner name as external-dns keys it (punycode), then canonical. @return as dnsb_name_canonical */
static int owner_canonical(char **out, const char *name, dnsb_error *e)
{
	char *ascii = NULL;
	int rc = dnsb_name_to_ascii(&ascii, name);

	if (rc == 0)
		rc = dnsb_name_canonical(out, ascii ? ascii : name, e);
	free(ascii);
	return rc;
}

/*
 * Endpoint to RRset. Value problems go to `why` (the change is then
 * invalid); only ENOMEM is returned.
 */
int dnsb_endpoint_rrset(dnsb_rrset *out, json_object *ep, int old, const char *path, char **why)
{
	dnsb_endpoint_fields f;
	const char *name, *type, *alias = NULL;
	json_object *targets, *ttl;
	dnsb_error e = { 0 };
	int64_t t;
	char nul_at[96];
	int rc;

	memset(out, 0, sizeof(*out));
	dnsb_endpoint_fields_read(ep, &f);
	name = f.dns_name ? json_object_get_string(f.dns_name) : NULL;
	type = f.record_type ? json_object_get_string(f.record_type) : NULL;
	targets = f.targets;
	ttl = f.record_ttl;
#define INVALID(...) do { if (asprintf(why, __VA_ARGS__) < 0) return DNSB_ENOMEM; return 0; } while (0)
	if (find_nul(&f, nul_at, sizeof(nul_at)))
		INVALID("%s.%s: holds a NUL character (\\u0000), which no DNS name or record can carry", path, nul_at);
	if (name == NULL || *name == '\0')
		INVALID("%s: dnsName is missing", path);
	if ((rc = owner_canonical(&out->owner, name, &e)) == DNSB_ENOMEM)
		return rc;
	if (rc < 0)
		INVALID("%s (%s): %s", path, name, e.message);
	if (type == NULL || *type == '\0')
		INVALID("%s (%s): recordType is missing", path, name);
	out->type = ldns_get_rr_type_by_name(type);
	if (out->type == 0 || ldns_rr_descript(out->type)->_name == NULL)
		INVALID("%s (%s): unknown recordType '%s': known are A, AAAA, CAA, CNAME, DS, HTTPS, MX, NAPTR, NS, PTR, "
			"SRV, SSHFP, SVCB, TLSA, TXT and the other types ldns names, or TYPEnnn (RFC 3597)", path, name, type);
	if ((f.has & (DNSB_EP_SET_IDENTIFIER | DNSB_EP_PROVIDER_SPECIFIC)) &&
	    ((rc = dnsb_endpoint_routing(out, ep, path, why)) != 0 || *why != NULL))
		return rc;
	if (ttl && !json_object_is_type(ttl, json_type_int))
		INVALID("%s (%s %s): recordTTL: expected a whole number of seconds", path, name, type);
	t = ttl ? json_object_get_int64(ttl) : 0;
	if (t < 0 || t > (int64_t)DNSB_TTL_MAX)
		INVALID("%s (%s %s): recordTTL %lld is out of range 0..%u", path, name, type, (long long)t,
			DNSB_TTL_MAX);
	/* external-dns: 0 or absent means "not set". A new RRset gets the default; an
	 * old one (its registry sends TTL 0 in updateOld and delete) matches any TTL. */
	out->ttl = t == 0 ? (old ? DNSB_TTL_UNSET : DNSB_TTL_DEFAULT) : (uint32_t)t;
	if (targets == NULL || !json_object_is_type(targets, json_type_array) || json_object_array_length(targets) == 0)
		INVALID("%s (%s %s): no targets", path, name, type);
	if (f.provider_specific != NULL)
		alias = dnsb_endpoint_property(ep, DNSB_PROPERTY_ALIAS);
	/* external-dns's TXT registry copies its record's providerSpecific onto the ownership TXT: `alias`
	 * means nothing there, and its aws provider ignores it, as we do. */
	if (alias != NULL && strcmp(alias, "true") == 0 && out->type != LDNS_RR_TYPE_TXT)
		return alias_rrset(out, ep, targets, path, name, type, why);
	for (size_t i = 0; i < json_object_array_length(targets); i++) {
		json_object *target = json_object_array_get_idx(targets, i);
		char *rdata = NULL;
		if (!json_object_is_type(target, json_type_string))
			INVALID("%s.targets[%zu] (%s %s): expected a string", path, i, name, type);
		rc = dnsb_rdata_canonical(&rdata, out->type, json_object_get_string(target), &e);
		if (rc == DNSB_ENOMEM)
			return rc;
		if (rc < 0)
			INVALID("%s.targets[%zu] (%s %s): %s", path, i, name, type, e.message);
		rc = dnsb_rrset_add_rdata(out, rdata);
		free(rdata);
		if (rc < 0)
			return rc;
	}
	if (out->type == LDNS_RR_TYPE_CNAME && out->rdata_count > 1)
		INVALID("%s (%s CNAME): a CNAME RRset holds one record, got %zu targets", path, name,
			out->rdata_count);
#undef INVALID
	return 0;
}


/* Replace (or add) member `key` of obj by a new reference to val's. @return 0 or DNSB_ENOMEM */
static int set_member(json_object *obj, const char *key, json_object *val)
{
	return json_object_object_add(obj, key, json_object_get(val)) == 0 ? 0 : DNSB_ENOMEM;
}

int dnsb_endpoint_adjust(json_object **out, char **why, json_object *ep, const char *path, unsigned flags)
{
	return dnsb_endpoint_adjust_props(out, why, ep, path, flags, NULL, NULL);
}

int dnsb_endpoint_adjust_props(json_object **out, char **why, json_object *ep, const char *path, unsigned flags,
			       dnsb_rrset_props_fn props, const void *ctx)
{
	dnsb_rrset rs;
	json_object *listed = NULL, *copy = NULL, *v;
	uint32_t ttl;
	int rc = 0;

	*out = NULL;
	*why = NULL;
	if (!json_object_is_type(ep, json_type_object)) {
		memset(&rs, 0, sizeof(rs));
		if (asprintf(why, "%s: expected an endpoint object", path) < 0)
			rc = DNSB_ENOMEM;
	} else {
		rc = dnsb_endpoint_rrset(&rs, ep, 0, path, why);
	}
	if (rc == 0 && *why == NULL && rs.alias != DNSB_ALIAS_NONE && !(flags & DNSB_ADJUST_ALIASES) &&
	    asprintf(why, "%s (%s %s): an alias (providerSpecific alias=true) needs a provider that stores aliases "
		     "(--provider aws)", path, rs.owner, dnsb_type_name(rs.type)) < 0)
		rc = DNSB_ENOMEM;
	if (rc == 0 && *why == NULL && rs.set_id != NULL && !(flags & DNSB_ADJUST_SET_IDS) &&
	    asprintf(why, "%s (%s %s): setIdentifier '%s' (a routing policy) needs a provider that stores set "
		     "identifiers (--provider aws)", path, dnsb_endpoint_string(ep, "dnsName"), dnsb_type_name(rs.type),
		     rs.set_id) < 0)
		rc = DNSB_ENOMEM;
	if (rs.alias == DNSB_ALIAS_DEFAULT)
		rs.alias = flags & DNSB_ADJUST_NO_HEALTH ? DNSB_ALIAS_PLAIN : DNSB_ALIAS_HEALTH;
	ttl = rs.ttl;
	if (rc == 0 && *why == NULL && props != NULL)
		rc = props(ctx, &rs);
	else if (rc == 0) /* provider properties: removed, as the others (external-dns compares them) */
		rc = dnsb_routing_strip_provider(&rs.routing);
	if (rc == 0 && ep != NULL && json_object_deep_copy(ep, &copy, NULL) != 0)
		rc = DNSB_ENOMEM; /* a JSON null stays NULL */
	if (rc == 0 && *why == NULL) {
		if ((listed = dnsb_rrset_to_endpoint(&rs)) == NULL)
			rc = DNSB_ENOMEM;
		json_object_object_del(copy, "providerSpecific");
		if (rc == 0 && json_object_object_get_ex(listed, "dnsName", &v))
			rc = set_member(copy, "dnsName", v);
		if (rc == 0 && json_object_object_get_ex(listed, "targets", &v))
			rc = set_member(copy, "targets", v);
		/* An alias keeps the two properties it is listed with, and the TTL aliases are listed with when one was set. */
		if (rc == 0 && json_object_object_get_ex(listed, "providerSpecific", &v))
			rc = set_member(copy, "providerSpecific", v);
		if (rc == 0 && rs.ttl != ttl) /* the TTL a property fixes */
			rc = json_object_object_add(copy, "recordTTL", json_object_new_int64(rs.ttl)) == 0 ? 0 : DNSB_ENOMEM;
		if (rc == 0 && rs.alias != DNSB_ALIAS_NONE && json_object_object_get_ex(copy, "recordTTL", &v) &&
		    json_object_get_int64(v) != 0)
			rc = json_object_object_add(copy, "recordTTL", json_object_new_int64(DNSB_TTL_DEFAULT)) == 0 ?
				     0 : DNSB_ENOMEM;
	}
	json_object_put(listed);
	dnsb_rrset_clear(&rs);
	if (rc != 0) {
		json_object_put(copy);
		free(*why);
		*why = NULL;
		return rc;
	}
	*out = copy;
	return 0;
}
