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

/* A record's RDATA in presentation form from its content (and priority), or 0 when not written here. */
static int record_rdata(char *out, size_t size, uint16_t type, const char *content, json_object *rec)
{
	json_object *prio;

	switch (type) {
	case LDNS_RR_TYPE_A:
	case LDNS_RR_TYPE_AAAA:
	case LDNS_RR_TYPE_TXT:
		return snprintf(out, size, "%s", content) < (int)size;
	case LDNS_RR_TYPE_CNAME:
	case LDNS_RR_TYPE_NS:
		return snprintf(out, size, "%s.", content) < (int)size;
	case LDNS_RR_TYPE_MX:
		if (!json_object_object_get_ex(rec, "priority", &prio) || !json_object_is_type(prio, json_type_int))
			return 0;
		return snprintf(out, size, "%d %s.", json_object_get_int(prio), content) < (int)size;
	default:
		return 0;
	}
}

/* The record's proxied flag and comment as its RRset's properties (the first record of a set gives them). */
static int take_props(dnsb_rrset_list *out, const dnsb_cf_config *cfg, const dnsb_rrset *r, json_object *rec)
{
	static const dnsb_cf_config none = { 0 };
	dnsb_rrset *set = (dnsb_rrset *)dnsb_rrset_list_find(out, r->owner, r->type);
	json_object *proxied = NULL;
	const char *comment = str_member(rec, "comment");

	if (set == NULL || set->rdata_count > 1)
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
	if (content == NULL || (type = (uint16_t)ldns_get_rr_type_by_name(tname)) == 0 || !record_rdata(rdata, sizeof(rdata), type, content, rec))
		return 0; /* a type this provider does not write */
	snprintf(owner, sizeof(owner), "%s.", name);
	/* Through a list of one: the owner lower-cased, the RDATA made canonical as every RRset holds it. */
	if ((rc = dnsb_rrset_list_add_text(&one, owner, json_object_get_int64(ttl), tname, rdata)) != 0 || one.count != 1) {
		dnsb_rrset_list_clear(&one);
		return rc < 0 ? rc : 0;
	}
	if (n == 0 || dnsb_rrkeys_want(keys, n, one.items[0].owner, type)) {
		const dnsb_rrset *r = &one.items[0];
		rc = dnsb_rrset_list_add_text(out, r->owner, r->ttl, tname, r->rdata[0]);
		if (rc == 0)
			rc = take_props(out, cfg, r, rec);
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

/* A record to post, as Cloudflare's create body. @return a new object, NULL when not writable (or ENOMEM) */
static json_object *post_json(const dnsb_rrset *r, const char *rdata, const dnsb_cf_config *cfg)
{
	json_object *o = json_object_new_object();
	char name[300], content[4200];
	size_t len = strlen(r->owner), comment_len;
	long prio = -1;
	const char *comment;
	int proxied = dnsb_cf_effective(cfg, r, &comment, &comment_len), proxiable;

	if (o == NULL || len >= sizeof(name)) {
		json_object_put(o);
		return NULL;
	}
	memcpy(name, r->owner, len - 1); /* without the trailing dot */
	name[len - 1] = '\0';
	if (r->type == LDNS_RR_TYPE_MX) {
		char *end;
		prio = strtol(rdata, &end, 10);
		rdata = end + strspn(end, " ");
	}
	snprintf(content, sizeof(content), "%s", rdata);
	if ((r->type == LDNS_RR_TYPE_CNAME || r->type == LDNS_RR_TYPE_NS || r->type == LDNS_RR_TYPE_MX) &&
	    (len = strlen(content)) > 1 && content[len - 1] == '.')
		content[len - 1] = '\0';
	/* Only A, AAAA and CNAME records can be proxied; the others never carry the member. */
	proxiable = dnsb_cf_proxiable(r->type);
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "type", json_object_new_string(dnsb_type_name(r->type)));
	json_object_object_add(o, "content", json_object_new_string(content));
	if (proxiable)
		json_object_object_add(o, "proxied", json_object_new_boolean(proxied));
	/* A proxied record's TTL is automatic; below Cloudflare's minimum too. */
	json_object_object_add(o, "ttl", json_object_new_int64(proxied || r->ttl < 60 ? DNSB_CF_TTL_AUTO : r->ttl));
	if (comment && comment_len > 0)
		json_object_object_add(o, "comment", json_object_new_string_len(comment, (int)comment_len));
	if (prio >= 0)
		json_object_object_add(o, "priority", json_object_new_int64(prio));
	return o;
}

static int writable(uint16_t type)
{
	return type == LDNS_RR_TYPE_A || type == LDNS_RR_TYPE_AAAA || type == LDNS_RR_TYPE_CNAME || type == LDNS_RR_TYPE_TXT ||
	       type == LDNS_RR_TYPE_NS || type == LDNS_RR_TYPE_MX;
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
		if (!writable(e->type))
			return dnsb_error_set(err, DNSB_EINVAL, "%s %s: the cloudflare provider writes A, AAAA, CNAME, TXT, NS "
					      "and MX records only", e->owner, dnsb_type_name(e->type));
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
