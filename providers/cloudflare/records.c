/*
 * records.c - Cloudflare records and RRsets: a listing page's records as
 * RRsets with their ids, and the batch body of a pre-checked batch (its
 * deletes by id and its posts, each traced back to its change).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/cloudflare/cloudflare.h"

static const char *str_member(json_object *o, const char *name)
{
	json_object *v;

	return json_object_object_get_ex(o, name, &v) && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

/* A whole number member of 0..max of o (Cloudflare's "number"s: 10 or 10.0). @return it, or -1 */
static long num_member(json_object *o, const char *name, long max)
{
	json_object *v;
	double d;

	if (!json_object_object_get_ex(o, name, &v) ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return -1;
	d = json_object_get_double(v);
	return d >= 0 && d <= (double)max && d == (double)(long)d ? (long)d : -1;
}

/* An SRV record's RDATA from its data {priority, weight, port, target} (Cloudflare's target has no final dot). */
static int srv_rdata(char *out, size_t size, json_object *data)
{
	long prio = num_member(data, "priority", 65535), weight = num_member(data, "weight", 65535),
	     port = num_member(data, "port", 65535);
	const char *target = str_member(data, "target");

	if (prio < 0 || weight < 0 || port < 0 || target == NULL || *target == '\0')
		return 0;
	return snprintf(out, size, "%ld %ld %ld %s%s", prio, weight, port, target,
			target[strlen(target) - 1] == '.' ? "" : ".") < (int)size;
}

/* A CAA record's RDATA from its data {flags, tag, value}: the value quoted and escaped by ldns. */
static int caa_rdata(char *out, size_t size, json_object *data)
{
	long flags = num_member(data, "flags", 255);
	const char *tag = str_member(data, "tag"), *value = str_member(data, "value");
	ldns_rdf *rdf;
	char *text;
	int ok;

	if (flags < 0 || tag == NULL || *tag == '\0' || strpbrk(tag, " \t\"\\") || value == NULL)
		return 0;
	if ((rdf = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_LONG_STR, strlen(value), value)) == NULL)
		return 0;
	text = ldns_rdf2str(rdf);
	ldns_rdf_deep_free(rdf);
	ok = text && snprintf(out, size, "%ld %s %s", flags, tag, text) < (int)size;
	free(text);
	return ok;
}

/* A record's RDATA in presentation form from its content (and priority) or data, or 0 when not written here. */
static int record_rdata(char *out, size_t size, uint16_t type, const char *content, json_object *rec)
{
	json_object *data = NULL;
	long prio;

	json_object_object_get_ex(rec, "data", &data);
	if (type == LDNS_RR_TYPE_SRV)
		return data ? srv_rdata(out, size, data) : 0;
	if (type == LDNS_RR_TYPE_CAA)
		return data ? caa_rdata(out, size, data) : 0;
	if (content == NULL)
		return 0;
	switch (type) {
	case LDNS_RR_TYPE_A:
	case LDNS_RR_TYPE_AAAA:
	case LDNS_RR_TYPE_TXT:
		return snprintf(out, size, "%s", content) < (int)size;
	case LDNS_RR_TYPE_CNAME:
	case LDNS_RR_TYPE_NS:
	case LDNS_RR_TYPE_PTR:
		return snprintf(out, size, "%s.", content) < (int)size;
	case LDNS_RR_TYPE_MX:
		if ((prio = num_member(rec, "priority", 65535)) < 0)
			return 0;
		return snprintf(out, size, "%ld %s.", prio, content) < (int)size;
	default:
		return 0;
	}
}

/*
 * The record's proxied flag and comment as its RRset's properties: the first
 * record of a set gives them (`first`: the set was not in the list before it);
 * a later one, of another value or the same (two records of one value), not.
 */
static int take_props(dnsb_rrset_list *out, const dnsb_cf_config *cfg, const dnsb_rrset *r, json_object *rec, int first)
{
	static const dnsb_cf_config none = { 0 };
	dnsb_rrset *set = (dnsb_rrset *)dnsb_rrset_list_find(out, r->owner, r->type);
	json_object *proxied = NULL;
	const char *comment = str_member(rec, "comment");

	if (set == NULL || !first)
		return 0;
	json_object_object_get_ex(rec, "proxied", &proxied);
	return dnsb_cf_routing(&set->routing, cfg ? cfg : &none, r->type, proxied && json_object_get_boolean(proxied),
			       comment, comment ? strlen(comment) : 0);
}

/* One record of a page into out (and its id into ids). @return 0, DNSB_EPARSE or DNSB_ENOMEM */
static int take_record(dnsb_rrset_list *out, dnsb_hb_tags *ids, const dnsb_cf_config *cfg, json_object *rec,
		       const dnsb_rrkey *keys, size_t n)
{
	const char *id = str_member(rec, "id"), *name = str_member(rec, "name"), *tname = str_member(rec, "type"),
		   *content = str_member(rec, "content");
	json_object *ttl;
	dnsb_rrset_list one = { 0 };
	char owner[300], rdata[4200];
	uint16_t type;
	int rc;

	if (id == NULL || name == NULL || tname == NULL || !json_object_object_get_ex(rec, "ttl", &ttl))
		return DNSB_EPARSE;
	if ((type = (uint16_t)ldns_get_rr_type_by_name(tname)) == 0 || !dnsb_cf_writable(type) ||
	    !record_rdata(rdata, sizeof(rdata), type, content, rec))
		return 0; /* a type this provider does not write */
	snprintf(owner, sizeof(owner), "%s.", name);
	/* Through a list of one: the owner lower-cased, the RDATA made canonical as every RRset holds it. */
	if ((rc = dnsb_rrset_list_add_text(&one, owner, json_object_get_int64(ttl), tname, rdata)) != 0 || one.count != 1) {
		dnsb_rrset_list_clear(&one);
		return rc < 0 ? rc : 0;
	}
	if (n == 0 || dnsb_rrkeys_want(keys, n, one.items[0].owner, type)) {
		const dnsb_rrset *r = &one.items[0];
		int first = dnsb_rrset_list_find(out, r->owner, type) == NULL;
		rc = dnsb_rrset_list_add_text(out, r->owner, r->ttl, tname, r->rdata[0]);
		if (rc == 0)
			rc = take_props(out, cfg, r, rec, first);
		if (rc == 0 && ids)
			rc = dnsb_hb_tags_add(ids, r->owner, type, r->rdata[0], id, r->ttl);
	}
	dnsb_rrset_list_clear(&one);
	return rc < 0 ? rc : 0;
}

/* result_info: the next page number, when page < total_pages. */
static int next_page(json_object *page, char **next)
{
	json_object *info, *at, *total;
	char buf[24];

	if (!json_object_object_get_ex(page, "result_info", &info) || !json_object_object_get_ex(info, "page", &at) ||
	    !json_object_object_get_ex(info, "total_pages", &total))
		return 0;
	if (json_object_get_int64(at) >= json_object_get_int64(total))
		return 0;
	snprintf(buf, sizeof(buf), "%lld", (long long)json_object_get_int64(at) + 1);
	return (*next = strdup(buf)) ? 0 : DNSB_ENOMEM;
}

int dnsb_cf_records_parse(dnsb_rrset_list *out, dnsb_hb_tags *ids, const dnsb_cf_config *cfg, json_object *page,
			  const dnsb_rrkey *keys, size_t n, char **next, dnsb_error *err)
{
	json_object *list;
	int rc = 0;

	*next = NULL;
	if (!json_object_object_get_ex(page, "result", &list) || !json_object_is_type(list, json_type_array))
		return dnsb_error_set(err, DNSB_EPARSE, "not a DNS record listing (no result array)");
	for (size_t i = 0; rc == 0 && i < json_object_array_length(list); i++)
		rc = take_record(out, ids, cfg, json_object_array_get_idx(list, i), keys, n);
	if (rc == 0)
		rc = next_page(page, next);
	if (rc == DNSB_EPARSE)
		return dnsb_error_set(err, rc, "a record of the listing without id, name, type or ttl");
	return rc == 0 ? 0 : dnsb_error_set(err, rc, "out of memory");
}

/* ---- the batch body ---- */

/* The change of the batch that leaves (owner, type) at `final` (a post) or takes it from `held` (a delete). */
static size_t change_of(dnsb_change *const *changes, size_t n, const char *owner, uint16_t type, int post)
{
	size_t found = 0;

	for (size_t i = 0; i < n; i++) {
		const dnsb_rrset *r = post ? (changes[i]->kind != DNSB_CHANGE_DELETE ? &changes[i]->new_set : NULL) :
					     (changes[i]->kind != DNSB_CHANGE_CREATE ? &changes[i]->old : NULL);
		if (r && r->type == type && strcmp(r->owner, owner) == 0)
			found = i; /* the last one: the batch's final word on it */
	}
	return found;
}

static int has_rdata(const dnsb_rrset *r, const char *rdata)
{
	for (size_t i = 0; r && i < r->rdata_count; i++)
		if (strcmp(r->rdata[i], rdata) == 0)
			return 1;
	return 0;
}

/* A name as Cloudflare writes it: without the final dot (the root stays "."). */
static json_object *cf_name(const char *name)
{
	size_t len = strlen(name);

	return json_object_new_string_len(name, len > 1 && name[len - 1] == '.' ? (int)len - 1 : (int)len);
}

/* An SRV record's data {priority, weight, port, target} from its canonical RDATA. @return NULL when unreadable */
static json_object *srv_data(const char *rdata)
{
	unsigned prio, weight, port;
	int at = 0;
	json_object *d;

	if (sscanf(rdata, "%u %u %u %n", &prio, &weight, &port, &at) != 3 || at == 0 || rdata[at] == '\0' ||
	    (d = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(d, "priority", json_object_new_int64(prio));
	json_object_object_add(d, "weight", json_object_new_int64(weight));
	json_object_object_add(d, "port", json_object_new_int64(port));
	json_object_object_add(d, "target", cf_name(rdata + at));
	return d;
}

/* A CAA record's data {flags, tag, value} from its canonical RDATA, read by ldns. @return NULL when unreadable */
static json_object *caa_data(const char *rdata)
{
	char *text = NULL;
	ldns_rr *rr = NULL;
	json_object *d = NULL;

	if (asprintf(&text, "caa. 0 IN CAA %s", rdata) < 0)
		return NULL;
	if (ldns_rr_new_frm_str(&rr, text, 0, NULL, NULL) == LDNS_STATUS_OK && ldns_rr_rd_count(rr) == 3 &&
	    ldns_rdf_size(ldns_rr_rdf(rr, 1)) >= 1 && (d = json_object_new_object()) != NULL) {
		const ldns_rdf *tag = ldns_rr_rdf(rr, 1), *value = ldns_rr_rdf(rr, 2);
		json_object_object_add(d, "flags", json_object_new_int64(ldns_rdf2native_int8(ldns_rr_rdf(rr, 0))));
		json_object_object_add(d, "tag", json_object_new_string_len((const char *)ldns_rdf_data(tag) + 1,
									     ldns_rdf_data(tag)[0]));
		json_object_object_add(d, "value", json_object_new_string_len((const char *)ldns_rdf_data(value),
									       (int)ldns_rdf_size(value)));
	}
	ldns_rr_free(rr);
	free(text);
	return d;
}

/* A record's value as Cloudflare's members: "data" for SRV and CAA, else "content" (and MX's "priority"). @return 0 or -1 */
static int post_value(json_object *o, uint16_t type, const char *rdata)
{
	json_object *data = type == LDNS_RR_TYPE_SRV ? srv_data(rdata) : type == LDNS_RR_TYPE_CAA ? caa_data(rdata) : NULL;
	char *end;
	long prio;

	if (type == LDNS_RR_TYPE_SRV || type == LDNS_RR_TYPE_CAA)
		return data && json_object_object_add(o, "data", data) == 0 ? 0 : (json_object_put(data), -1);
	if (type == LDNS_RR_TYPE_MX) {
		prio = strtol(rdata, &end, 10);
		rdata = end + strspn(end, " ");
		json_object_object_add(o, "priority", json_object_new_int64(prio));
	}
	if (type == LDNS_RR_TYPE_CNAME || type == LDNS_RR_TYPE_NS || type == LDNS_RR_TYPE_MX || type == LDNS_RR_TYPE_PTR)
		return json_object_object_add(o, "content", cf_name(rdata));
	return json_object_object_add(o, "content", json_object_new_string(rdata));
}

/* A record to post, as Cloudflare's create body. @return a new object, NULL when not writable (or ENOMEM) */
static json_object *post_json(const dnsb_rrset *r, const char *rdata, const dnsb_cf_config *cfg)
{
	json_object *o = json_object_new_object();
	size_t comment_len;
	const char *comment;
	int proxied = dnsb_cf_effective(cfg, r, &comment, &comment_len);

	if (o == NULL || json_object_object_add(o, "name", cf_name(r->owner)) != 0 ||
	    json_object_object_add(o, "type", json_object_new_string(dnsb_type_name(r->type))) != 0 ||
	    post_value(o, r->type, rdata) != 0) {
		json_object_put(o);
		return NULL;
	}
	/* Only A, AAAA and CNAME records can be proxied; the others never carry the member. */
	if (dnsb_cf_proxiable(r->type))
		json_object_object_add(o, "proxied", json_object_new_boolean(proxied));
	json_object_object_add(o, "ttl", json_object_new_int64(dnsb_cf_ttl(r->ttl, proxied)));
	if (comment && comment_len > 0)
		json_object_object_add(o, "comment", json_object_new_string_len(comment, (int)comment_len));
	return o;
}


typedef struct builder {
	dnsb_cf_batch *b;
	json_object *deletes, *posts;
	size_t del_cap, post_cap;
} builder;

/* Drop an operation that could not be added. @return DNSB_ENOMEM */
static int no_room(json_object *o)
{
	json_object_put(o);
	return DNSB_ENOMEM;
}

static int add_delete(builder *w, const char *id, size_t change)
{
	json_object *o = json_object_new_object();

	if (w->b->delete_count == w->del_cap) {
		size_t cap = w->del_cap ? w->del_cap * 2 : 16;
		size_t *grown = realloc(w->b->deletes, cap * sizeof(*grown));
		const char **grown_ids = grown ? realloc(w->b->delete_ids, cap * sizeof(*grown_ids)) : NULL;
		if (grown)
			w->b->deletes = grown;
		if (grown_ids)
			w->b->delete_ids = grown_ids;
		if (grown == NULL || grown_ids == NULL)
			return no_room(o);
		w->del_cap = cap;
	}
	if (o == NULL || json_object_object_add(o, "id", json_object_new_string(id)) != 0 ||
	    json_object_array_add(w->deletes, o) != 0)
		return no_room(o);
	w->b->deletes[w->b->delete_count] = change;
	w->b->delete_ids[w->b->delete_count++] = id;
	return 0;
}

static int add_post(builder *w, json_object *o, size_t change)
{
	if (w->b->post_count == w->post_cap) {
		size_t cap = w->post_cap ? w->post_cap * 2 : 16;
		size_t *grown = realloc(w->b->posts, cap * sizeof(*grown));
		if (grown == NULL)
			return no_room(o);
		w->b->posts = grown;
		w->post_cap = cap;
	}
	if (o == NULL || json_object_array_add(w->posts, o) != 0)
		return no_room(o);
	w->b->posts[w->b->post_count++] = change;
	return 0;
}

/* The deletes of the held records of `e` that go: every one of them when all go (a TTL change). */
static int entry_deletes(builder *w, const dnsb_precheck_entry *e, const dnsb_hb_tags *ids, int all, size_t change)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < ids->count; i++) {
		const dnsb_hb_tag *t = &ids->items[i];
		if (t->type != e->type || t->rdata == NULL || strcmp(t->owner, e->owner) != 0)
			continue;
		if (all || !has_rdata(e->final, t->rdata))
			rc = add_delete(w, t->tag, change);
	}
	return rc;
}

static int entry_ops(builder *w, const dnsb_precheck_entry *e, const dnsb_hb_tags *ids, dnsb_change *const *changes,
		     size_t n, const dnsb_cf_config *cfg)
{
	/* Another TTL or other properties (proxied, comment): every record again. */
	int all = e->held == NULL || e->final == NULL || e->held->ttl != e->final->ttl ||
		  strcmp(e->held->routing ? e->held->routing : "", e->final->routing ? e->final->routing : "") != 0;
	size_t from = change_of(changes, n, e->owner, e->type, 0), to = change_of(changes, n, e->owner, e->type, 1);
	int rc = e->held ? entry_deletes(w, e, ids, all, from) : 0;

	for (size_t i = 0; rc == 0 && e->final && i < e->final->rdata_count; i++)
		if (all || !has_rdata(e->held, e->final->rdata[i]))
			rc = add_post(w, post_json(e->final, e->final->rdata[i], cfg), to);
	return rc;
}

/* Every entry can be written: its type, and an id for each held record. @return 0 or DNSB_EINVAL */
static int entries_writable(const dnsb_precheck *pc, const dnsb_hb_tags *ids, dnsb_change *const *changes, size_t n,
			    size_t *bad, dnsb_error *err)
{
	for (size_t i = 0; i < pc->count; i++) {
		const dnsb_precheck_entry *e = &pc->entries[i];
		*bad = change_of(changes, n, e->owner, e->type, e->final != NULL);
		if (!dnsb_cf_writable(e->type))
			return dnsb_error_set(err, DNSB_EINVAL, "%s %s: the cloudflare provider writes A, AAAA, CNAME, TXT, "
					      "MX, NS, PTR, SRV and CAA records only", e->owner, dnsb_type_name(e->type));
		for (size_t j = 0; e->held && j < e->held->rdata_count; j++)
			if (dnsb_hb_tags_find(ids, e->owner, e->type, e->held->rdata[j], NULL) == NULL)
				return dnsb_error_set(err, DNSB_EINVAL, "%s %s %s: held, but the listing gave no record id",
						      e->owner, dnsb_type_name(e->type), e->held->rdata[j]);
	}
	return 0;
}

int dnsb_cf_batch_build(dnsb_cf_batch *out, const dnsb_precheck *pc, const dnsb_hb_tags *ids,
			dnsb_change *const *changes, size_t n, const dnsb_cf_config *cfg, size_t *bad, dnsb_error *err)
{
	builder w = { out, NULL, NULL, 0, 0 };
	json_object *body = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = entries_writable(pc, ids, changes, n, bad, err)) != 0)
		return rc;
	w.deletes = json_object_new_array();
	w.posts = json_object_new_array();
	body = json_object_new_object();
	rc = w.deletes && w.posts && body ? 0 : DNSB_ENOMEM;
	for (size_t i = 0; rc == 0 && i < pc->count; i++)
		rc = entry_ops(&w, &pc->entries[i], ids, changes, n, cfg);
	/* Cloudflare runs deletes before posts, whatever the order of the members. */
	if (rc == 0 && out->delete_count && json_object_object_add(body, "deletes", json_object_get(w.deletes)) != 0)
		rc = DNSB_ENOMEM;
	if (rc == 0 && out->post_count && json_object_object_add(body, "posts", json_object_get(w.posts)) != 0)
		rc = DNSB_ENOMEM;
	if (rc == 0 && (out->json = strdup(json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN))) == NULL)
		rc = DNSB_ENOMEM;
	json_object_put(w.deletes);
	json_object_put(w.posts);
	json_object_put(body);
	if (rc != 0) {
		dnsb_cf_batch_clear(out);
		return dnsb_error_set(err, rc, "out of memory building a batch");
	}
	return 0;
}

size_t dnsb_cf_batch_size(const dnsb_cf_batch *b)
{
	return b->delete_count + b->post_count;
}

void dnsb_cf_batch_clear(dnsb_cf_batch *b)
{
	if (b == NULL)
		return;
	free(b->json);
	free(b->deletes);
	free(b->delete_ids);
	free(b->posts);
	memset(b, 0, sizeof(*b));
}
