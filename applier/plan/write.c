/*
 * write.c - changes written in plan form, one after another (a dry run's
 * 100,000 changes). Each endpoint is serialised by json-c; an RRset of the
 * common shape (no set identifier, alias or routing property) is set into one
 * Endpoint tree kept for the next change rather than built and freed again.
 * A long run of changes is serialised by two threads, each with its own
 * writer and text buffer, the second half's text written after the first's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/plan.h"
#include "applier/core/array.h"
#include "applier/core/par.h"
#include "applier/plan/internal.h"

enum { PRINT_FLAGS = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE };

/* A run of changes at least this long is serialised by two threads (one alone would wait on the other). */
enum { TWO_THREADS_MIN = 64 };

struct dnsb_plan_writer {
	FILE *out;
	json_object *shape[2];          /* {dnsName, targets, recordType}, and the same with recordTTL */
	json_object *name, *targets, *type, *ttl; /* their members (held by shape[]) */
	char *text;                     /* serialised, not yet written to out */
	size_t len, cap;
	dnsb_plan_writer *second;       /* the second thread's writer, made for the first long run; or NULL */
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
	dnsb_plan_writer_free(w->second);
	json_object_put(w->shape[0]);
	json_object_put(w->shape[1]);
	free(w->text);
	free(w);
}

/* Append text[0..n) to the writer's buffer. @return 0 or DNSB_ENOMEM */
static int put(dnsb_plan_writer *w, const char *text, size_t n)
{
	if (DNSB_ARRAY_RESERVE(w->text, w->cap, w->len + n, 65536) < 0)
		return DNSB_ENOMEM;
	memcpy(w->text + w->len, text, n);
	w->len += n;
	return 0;
}

/* The buffer written to the stream and emptied. @return 0 or DNSB_EIO */
static int flush(dnsb_plan_writer *w)
{
	size_t n = w->len;

	w->len = 0;
	return n > 0 && fwrite(w->text, 1, n, w->out) != n ? DNSB_EIO : 0;
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

/* `"key":[endpoint]` of one side of a change, after `lead` ("{" or ","), into the buffer. @return 0 or DNSB_ENOMEM */
static int side(dnsb_plan_writer *w, const char *lead, const char *key, const dnsb_change *change, int old)
{
	json_object *given = old ? change->endpoint_old : change->endpoint_new, *built = NULL, *ep = given;
	dnsb_rrset rrset = old ? change->old : change->new_set; /* a shallow copy, read only */
	const char *text;
	size_t len = 0;
	int rc = 0;

	if (!old && change->new_ttl_unset)
		rrset.ttl = 0;
	if (ep == NULL && rrset.set_id == NULL && rrset.alias == DNSB_ALIAS_NONE && rrset.routing == NULL)
		ep = set_shape(w, &rrset, rrset.ttl);
	else if (ep == NULL)
		ep = built = dnsb_change_endpoint(change, old);
	text = ep ? json_object_to_json_string_length(ep, PRINT_FLAGS, &len) : NULL;
	if (text == NULL || put(w, lead, 1) != 0 || put(w, "\"", 1) != 0 || put(w, key, strlen(key)) != 0 ||
	    put(w, "\":[", 3) != 0 || put(w, text, len) != 0 || put(w, "]", 1) != 0)
		rc = DNSB_ENOMEM;
	json_object_put(built);
	return rc;
}

/* One change into the buffer; `null` in its place when it cannot be serialised (nothing when even that cannot be).
 * @return 0 or DNSB_ENOMEM */
static int serialise(dnsb_plan_writer *w, const dnsb_change *change)
{
	size_t at = w->len;
	int rc = 0;

	if (DNSB_ARRAY_RESERVE(w->text, w->cap, w->len + 4, 65536) < 0) /* room for `null` */
		return DNSB_ENOMEM;
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
	if (rc == 0)
		rc = put(w, "}", 1);
	if (rc != 0) {
		w->len = at;
		put(w, "null", 4); /* room reserved above */
	}
	return rc;
}

int dnsb_plan_writer_change(dnsb_plan_writer *w, const dnsb_change *change)
{
	size_t at = w->len;
	int rc = serialise(w, change);

	if (rc != 0)
		w->len = at;
	return rc != 0 ? rc : flush(w);
}

/* changes[0..n) into the writer's buffer, comma-separated. @return 0, or DNSB_ENOMEM when one became `null` */
static int serialise_run(dnsb_plan_writer *w, dnsb_change *const *changes, size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		if (i > 0 && put(w, ",", 1) != 0)
			return DNSB_ENOMEM;
		if (serialise(w, changes[i]) != 0)
			rc = DNSB_ENOMEM;
	}
	return rc;
}

/* A run of changes cut in two: the first half into the writer, the second into its second writer (dnsb_par2). */
typedef struct run {
	dnsb_plan_writer *w;
	dnsb_change *const *changes;
	size_t n;
	int rc[2];
} run;

static void serialise_half(void *ctx, int part)
{
	run *r = ctx;
	size_t from, to;

	dnsb_par_range(r->n, part, &from, &to);
	r->rc[part] = serialise_run(part == 0 ? r->w : r->w->second, r->changes + from, to - from);
}

int dnsb_plan_writer_changes(dnsb_plan_writer *w, dnsb_change *const *changes, size_t n)
{
	run r = { w, changes, n, { 0, 0 } };
	int rc;

	if (n < TWO_THREADS_MIN || (w->second == NULL && (w->second = dnsb_plan_writer_new(w->out)) == NULL)) {
		rc = serialise_run(w, changes, n);
	} else {
		dnsb_par2(serialise_half, &r, 1);
		rc = r.rc[0] != 0 ? r.rc[0] : r.rc[1];
		if (put(w, ",", 1) != 0 || put(w, w->second->text, w->second->len) != 0)
			rc = DNSB_ENOMEM; /* the second half left out */
		w->second->len = 0;
	}
	return flush(w) != 0 ? DNSB_EIO : rc;
}
