/*
 * not_plan.c - a JSON document that is no external-dns plan, named for what
 * it looks like: a file given by mistake (a Route53 change batch, a Cloud DNS
 * change, a PowerDNS body, a GET /records answer) must not apply as "0 changes".
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "applier/plan/internal.h"

#define EXPECTED "expected an object with create, updateOld, updateNew and delete lists (an external-dns plan)"

/* What a document that is no plan looks like, by the keys the other formats have at the top. */
static const char *looks_like(json_object *root)
{
	static const struct { const char *key, *what; } formats[] = {
		{ "Changes", "a Route53 change batch (aws route53 change-resource-record-sets --change-batch)" },
		{ "ChangeBatch", "a Route53 change-resource-record-sets request" },
		{ "additions", "a Cloud DNS change" },
		{ "deletions", "a Cloud DNS change" },
		{ "rrsets", "a PowerDNS zone or PATCH body" },
	};
	json_object *v;

	if (json_object_is_type(root, json_type_array))
		return "an array (a GET /records answer is a list of endpoints; a plan is one object)";
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (json_object_object_get_ex(root, formats[i].key, &v))
			return formats[i].what;
	return NULL;
}

int dnsb_plan_refuse_not_plan(const char *source, dnsb_error *err, json_object *root)
{
	const char *what;
	char keys[160] = "";
	size_t n = 0, len = 0;

	if (!json_object_is_type(root, json_type_object)) {
		what = looks_like(root);
		return dnsb_error_set(err, DNSB_EPARSE, "%s: $: " EXPECTED "; this is %s", source,
				      what ? what : json_object_is_type(root, json_type_string) ? "a string"
				      : json_object_is_type(root, json_type_boolean) ? "a boolean" : "a number");
	}
	json_object_object_foreach(root, key, val) {
		(void)val;
		for (int l = 0; l < L_COUNT; l++)
			if (strcasecmp(key, dnsb_plan_list_names[l]) == 0)
				return 0; /* a plan, with other keys beside its lists */
		if (len < sizeof(keys) - 1)
			len += (size_t)snprintf(keys + len, sizeof(keys) - len, "%s%s", n++ ? ", " : "", key);
	}
	if (n == 0)
		return 0; /* {}: external-dns's "no changes" (every list empty, omitted) */
	what = looks_like(root);
	return dnsb_error_set(err, DNSB_EPARSE, "%s: $: " EXPECTED "; this one has only the key%s %s%s%s%s",
			      source, n > 1 ? "s" : "", keys, len >= sizeof(keys) - 1 ? "..." : "",
			      what ? ": it looks like " : "", what ? what : "");
}
