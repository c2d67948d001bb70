/*
 * write.c - changes written in plan form, one after another (a dry run's
 * 100,000 changes). Each endpoint is serialised by json-c; an RRset of the
 * common shape (no set identifier, alias or routing property) is set into one
 * Endpoint tree kept for the next change rather than built and freed again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/plan.h"
#include "applier/plan/internal.h"

enum { PRINT_FLAGS = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE };

struct dnsb_plan_writer {
	FILE *out;
	json_object *shape[2];          /* {dnsName, targets, recordType}, and the same with recordTTL */
	json_object *name, *targets, *type, *ttl; /* their members (held by shape[]) */
};

dnsb_plan_writer *dnsb_plan_writer_new(FILE *out)
{
	dnsb_plan_writer *w = calloc(1, sizeof(*w));
	int rc = 0;

	if (w == NULL)
		return NULL;
	w->out = out;
	w->shape[0] = json_object_new_object();
	w->shape[1] = json_object_new_object();
	w->name = json_object_new_string("");
	w->targets = json_object_new_array_ext(1);
	w->type = json_object_new_string("");
	w->ttl = json_object_new_int64(0);
	if (!w->shape[0] || !w->shape[1] || !w->name || !w->targets || !w->type || !w->ttl) {
		json_object_put(w->name);
		json_object_put(w->targets);
		json_object_put(w->type);
		json_object_put(w->ttl);
		w->name = w->targets = w->type = w->ttl = NULL;
		dnsb_plan_writer_free(w);
		return NULL;
	}
	/* Field order as Go's encoder writes the Endpoint struct (dnsb_rrset_to_endpoint). Both trees hold the
	 * members; shape[1] takes the references made here, shape[0] new ones. */
	for (int s = 0; s < 2; s++) {
		rc |= json_object_object_add(w->shape[s], "dnsName", s ? w->name : json_object_get(w->name));
		rc |= json_object_object_add(w->shape[s], "targets", s ? w->targets : json_object_get(w->targets));
		rc |= json_object_object_add(w->shape[s], "recordType", s ? w->type : json_object_get(w->type));
	}
	rc |= json_object_object_add(w->shape[1], "recordTTL", w->ttl);
	if (rc != 0) {
		dnsb_plan_writer_free(w);
		return NULL;
	}
	return w;
}

void dnsb_plan_writer_free(dnsb_plan_writer *w)
{
	if (w == NULL)
		return;
	json_object_put(w->shape[0]);
	json_object_put(w->shape[1]);
	free(w);
}

/* The RRset set into the kept tree. @return the tree to print, or NULL (out of memory) */
static json_object *set_shape(dnsb_plan_writer *w, const dnsb_rrset *rrset, uint32_t ttl)
{
	size_t olen = rrset->owner ? strlen(rrset->owner) : 0, have = json_object_array_length(w->targets);

	if (olen > 1 && rrset->owner[olen - 1] == '.')
		olen--;
	if (json_object_set_string_len(w->name, rrset->owner ? rrset->owner : "", (int)olen) == 0 ||
	    json_object_set_string(w->type, dnsb_type_name(rrset->type)) == 0)
		return NULL;
	if (have > rrset->rdata_count && json_object_array_del_idx(w->targets, rrset->rdata_count,
								   have - rrset->rdata_count) != 0)
		return NULL;
	for (size_t i = 0; i < rrset->rdata_count; i++) {
		char *joined;
		size_t len;
		const char *text = dnsb_endpoint_target_text(rrset->type, rrset->rdata[i], &len, &joined);
		json_object *t = i < have ? json_object_array_get_idx(w->targets, i) : NULL;
		int ok = t != NULL ? json_object_set_string_len(t, text, (int)len) != 0 :
			 (t = json_object_new_string_len(text, (int)len)) != NULL &&
			 (json_object_array_add(w->targets, t) == 0 || (json_object_put(t), 0));

		free(joined);
		if (!ok)
			return NULL;
	}
	if (ttl == 0)
		return w->shape[0];
	return json_object_set_int64(w->ttl, ttl) ? w->shape[1] : NULL;
}

/* `"key":[endpoint]` of one side of a change, after `lead` ("{" or ","). @return 0, DNSB_ENOMEM or DNSB_EIO */
static int side(dnsb_plan_writer *w, const char *lead, const char *key, const dnsb_change *change, int old)
{
	json_object *given = old ? change->endpoint_old : change->endpoint_new, *built = NULL, *ep = given;
	dnsb_rrset rrset = old ? change->old : change->new_set; /* a shallow copy, read only */
	const char *text;
	int rc;

	if (!old && change->new_ttl_unset)
		rrset.ttl = 0;
	if (ep == NULL && rrset.set_id == NULL && rrset.alias == DNSB_ALIAS_NONE && rrset.routing == NULL)
		ep = set_shape(w, &rrset, rrset.ttl);
	else if (ep == NULL)
		ep = built = dnsb_change_endpoint(change, old);
	text = ep ? json_object_to_json_string_ext(ep, PRINT_FLAGS) : NULL;
	if (text == NULL)
		rc = DNSB_ENOMEM;
	else if (fputs(lead, w->out) == EOF || fputc('"', w->out) == EOF || fputs(key, w->out) == EOF ||
		 fputs("\":[", w->out) == EOF || fputs(text, w->out) == EOF || fputc(']', w->out) == EOF)
		rc = DNSB_EIO;
	else
		rc = 0;
	json_object_put(built);
	return rc;
}

int dnsb_plan_writer_change(dnsb_plan_writer *w, const dnsb_change *change)
{
	int rc = 0;

	switch (change->kind) {
	case DNSB_CHANGE_CREATE:
		rc = side(w, "{", "create", change, 0);
		break;
	case DNSB_CHANGE_DELETE:
		rc = side(w, "{", "delete", change, 1);
		break;
	case DNSB_CHANGE_UPDATE:
		if ((rc = side(w, "{", "updateOld", change, 1)) == 0)
			rc = side(w, ",", "updateNew", change, 0);
		break;
	}
	return rc == 0 && fputc('}', w->out) == EOF ? DNSB_EIO : rc;
}
