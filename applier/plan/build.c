/*
 * build.c - one change of the plan from its endpoints: each endpoint's shape
 * checked, its RRset read, the endpoint kept only for what the RRset cannot
 * print again. Both readers of a plan (parse.c's whole tree, stream.c's one
 * endpoint at a time) build their changes here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/plan.h"
#include "applier/plan/internal.h"

const char *const dnsb_plan_list_names[L_COUNT] = { "create", "updateOld", "updateNew", "delete" };

static int structure_error(const char *source, dnsb_error *err, const char *list, size_t i, const char *field,
			   const char *what)
{
	return dnsb_error_set(err, DNSB_EPARSE, "%s: $.%s[%zu]%s%s: %s", source, list, i, field ? "." : "",
			      field ? field : "", what);
}

int dnsb_plan_check_shape(const char *source, dnsb_error *err, const char *list, size_t i, json_object *ep)
{
	dnsb_endpoint_fields f;
	json_object *v;

	if (!json_object_is_type(ep, json_type_object))
		return structure_error(source, err, list, i, NULL, "expected an endpoint object");
	dnsb_endpoint_fields_read(ep, &f);
	const struct { const char *name; json_object *v; json_type type; } fields[] = {
		{ "dnsName", f.dns_name, json_type_string }, { "recordType", f.record_type, json_type_string },
		{ "setIdentifier", f.set_identifier, json_type_string }, { "targets", f.targets, json_type_array },
		{ "labels", f.labels, json_type_object }, { "providerSpecific", f.provider_specific, json_type_array },
	};
	for (size_t n = 0; n < sizeof(fields) / sizeof(fields[0]); n++) {
		if (fields[n].v != NULL && !json_object_is_type(fields[n].v, fields[n].type)) {
			char what[96];
			snprintf(what, sizeof(what), "expected %s", json_type_to_name(fields[n].type));
			return structure_error(source, err, list, i, fields[n].name, what);
		}
	}
	for (size_t t = 0; f.targets != NULL && t < json_object_array_length(f.targets); t++)
		if (!json_object_is_type(json_object_array_get_idx(f.targets, t), json_type_string))
			return structure_error(source, err, list, i, "targets", "expected an array of strings");
	if (f.labels != NULL) {
		json_object_object_foreach(f.labels, key, val) {
			(void)key;
			if (!json_object_is_type(val, json_type_string))
				return structure_error(source, err, list, i, "labels", "expected an object of strings");
		}
	}
	if ((v = f.record_ttl) != NULL && !json_object_is_type(v, json_type_int) &&
	    !(json_object_is_type(v, json_type_double) && fabs(json_object_get_double(v)) < 9.2e18 &&
	      json_object_get_double(v) == (double)(int64_t)json_object_get_double(v)))
		return structure_error(source, err, list, i, "recordTTL", "expected a whole number of seconds");
	return 0;
}

static int owned_record(char **out, json_object *ep)
{
	json_object *labels;
	const char *owned;
	char *ascii = NULL;
	int rc;

	if (!json_object_object_get_ex(ep, "labels", &labels) || labels == NULL)
		return 0;
	owned = dnsb_endpoint_string(labels, "ownedRecord");
	if (owned == NULL || *owned == '\0')
		return 0;
	if ((rc = dnsb_name_to_ascii(&ascii, owned)) < 0)
		return rc;
	rc = dnsb_name_canonical(out, ascii ? ascii : owned, NULL);
	free(ascii);
	/* A bad ownedRecord label only loses the grouping hint, never the record. */
	return rc == DNSB_ENOMEM ? rc : 0;
}

int dnsb_plan_read_side(dnsb_change *c, json_object *ep, int old)
{
	const char *list = c->kind == DNSB_CHANGE_UPDATE ? (old ? "updateOld" : "updateNew") : old ? "delete" : "create";
	char path[64];
	int rc;

	if (old)
		c->endpoint_old = json_object_get(ep);
	else
		c->endpoint_new = json_object_get(ep);
	if (!old) {
		json_object *ttl;
		c->new_ttl_unset = !json_object_object_get_ex(ep, "recordTTL", &ttl) || ttl == NULL ||
				   (json_object_is_type(ttl, json_type_int) && json_object_get_int64(ttl) == 0);
	}
	if (c->message != NULL) /* the other side is wrong already: its message stands */
		return 0;
	snprintf(path, sizeof(path), "$.%s[%zu]", list, c->plan_index);
	if ((rc = dnsb_endpoint_rrset(old ? &c->old : &c->new_set, ep, old, path, &c->message)) < 0)
		return rc;
	return c->owned_record == NULL ? owned_record(&c->owned_record, ep) : 0;
}

int dnsb_plan_finish_change(dnsb_change *c)
{
	dnsb_rrset printed;

	if (c->message == NULL && c->kind == DNSB_CHANGE_UPDATE && strcmp(c->old.owner, c->new_set.owner) != 0 &&
	    asprintf(&c->message, "$.updateOld[%zu] (%s) and $.updateNew[%zu] (%s): an update keeps its owner name",
		     c->plan_index, c->old.owner, c->plan_index, c->new_set.owner) < 0) {
		c->message = NULL;
		return DNSB_ENOMEM;
	}
	if (c->message != NULL) {
		dnsb_plan_drop_invalid(c, NULL);
		return 0;
	}
	/* Keep an endpoint only for what its RRset cannot print again (labels, a set identifier, its own spelling).
	 * A new RRset given no TTL holds the default one, and is printed without it (dnsb_change_endpoint). */
	printed = c->new_set;
	if (c->new_ttl_unset)
		printed.ttl = 0;
	if (c->endpoint_old && dnsb_endpoint_reproduced(c->endpoint_old, &c->old)) {
		json_object_put(c->endpoint_old);
		c->endpoint_old = NULL;
	}
	if (c->endpoint_new && dnsb_endpoint_reproduced(c->endpoint_new, &printed)) {
		json_object_put(c->endpoint_new);
		c->endpoint_new = NULL;
	}
	return 0;
}

void dnsb_plan_change_clear(dnsb_change *c)
{
	dnsb_rrset_clear(&c->old);
	dnsb_rrset_clear(&c->new_set);
	free(c->owned_record);
	free(c->code);
	free(c->message);
	dnsb_rrset_list_clear(&c->current);
	free(c->txt_owner);
	free(c->txt_resource);
	json_object_put(c->endpoint_old);
	json_object_put(c->endpoint_new);
}
