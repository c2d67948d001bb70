/*
 * diff.c - the requests of a pre-checked batch. DigitalOcean keeps a record
 * per value, each with its own id and TTL: an RRset changes by updating its
 * records in place (PUT by id: no moment when the name answers nothing),
 * adding what is new (POST) and removing what goes (DELETE). And the one
 * rule of the pre-check the shared replay cannot see here: no CNAME at the
 * apex (DigitalOcean lists no SOA for it to find the apex by).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "providers/digitalocean/digitalocean.h"

/* The requests of a batch, by kind, before they are put in order. */
typedef struct ops3 {
	dnsb_do_op *k[3];
	size_t n[3];
} ops3;

static void push(ops3 *o, const dnsb_do_op *op)
{
	o->k[op->kind][o->n[op->kind]++] = *op;
}

/* One RRset: its held records (tags h[0..nh)) towards final. @return 0 or DNSB_ENOMEM */
static int diff_rrset(ops3 *o, const dnsb_precheck_entry *e, const dnsb_hb_tag **h, size_t nh)
{
	const dnsb_rrset *f = e->final;
	size_t nf = f ? f->rdata_count : 0;
	unsigned char *hu = calloc(nh + 1, 1), *fu = calloc(nf + 1, 1);

	if (hu == NULL || fu == NULL) {
		free(hu);
		free(fu);
		return DNSB_ENOMEM;
	}
	/* 1: the records that stay as they are; 2: a TTL alone changes (same RDATA); 3: any other pairing. */
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < nf; i++)
			for (size_t j = 0; !fu[i] && j < nh; j++) {
				int same = strcmp(h[j]->rdata, f->rdata[i]) == 0;
				dnsb_do_op op = { DNSB_DO_PUT, e->owner, e->type, "", f->rdata[i], f->ttl, h[j]->rdata, h[j]->ttl, 0 };
				if (hu[j] || (pass < 2 && !same) || (pass == 0 && h[j]->ttl != f->ttl))
					continue;
				hu[j] = fu[i] = 1;
				if (pass == 0)
					break;
				snprintf(op.id, sizeof(op.id), "%s", h[j]->tag);
				push(o, &op);
			}
	for (size_t j = 0; j < nh; j++)
		if (!hu[j]) {
			dnsb_do_op op = { DNSB_DO_DELETE, e->owner, e->type, "", NULL, 0, h[j]->rdata, h[j]->ttl, 0 };
			snprintf(op.id, sizeof(op.id), "%s", h[j]->tag);
			push(o, &op);
		}
	for (size_t i = 0; i < nf; i++)
		if (!fu[i]) {
			dnsb_do_op op = { DNSB_DO_POST, e->owner, e->type, "", f->rdata[i], f->ttl, NULL, 0, 0 };
			push(o, &op);
		}
	free(hu);
	free(fu);
	return 0;
}

/* Is the record of id `tag` among h[0..k)? */
static int seen(const dnsb_hb_tag *const *h, size_t k, const char *tag)
{
	for (size_t i = 0; i < k; i++)
		if (strcmp(h[i]->tag, tag) == 0)
			return 1;
	return 0;
}

/* The held records of (owner, type): pointers into ids, each id once (a listing whose pages moved between two reads
 * can show a record twice: it is one record, written once). @return how many */
static size_t held_of(const dnsb_hb_tag **h, const dnsb_hb_tags *ids, const char *owner, uint16_t type)
{
	size_t k = 0;

	for (size_t i = 0; i < ids->count; i++)
		if (ids->items[i].type == type && ids->items[i].rdata && strcmp(ids->items[i].owner, owner) == 0 &&
		    !seen(h, k, ids->items[i].tag))
			h[k++] = &ids->items[i];
	return k;
}

int dnsb_do_diff(dnsb_do_op **ops, size_t *count, const dnsb_precheck *patch, const dnsb_hb_tags *ids,
		 dnsb_error *err)
{
	size_t total = ids->count, k = 0;
	const dnsb_hb_tag **h = calloc(ids->count + 1, sizeof(*h));
	ops3 o = { { NULL, NULL, NULL }, { 0, 0, 0 } };
	int rc = 0;

	*ops = NULL;
	*count = 0;
	for (size_t i = 0; i < patch->count; i++)
		total += patch->entries[i].final ? patch->entries[i].final->rdata_count : 0;
	for (int t = 0; t < 3; t++)
		o.k[t] = calloc(total + 1, sizeof(dnsb_do_op));
	if (h == NULL || !o.k[0] || !o.k[1] || !o.k[2] || (*ops = calloc(total + 1, sizeof(**ops))) == NULL)
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < patch->count; i++) {
		const dnsb_precheck_entry *e = &patch->entries[i];
		size_t nh = held_of(h, ids, e->owner, e->type);
		if (e->held && nh == 0)
			rc = dnsb_error_set(err, DNSB_EINVAL, "%s %s: listed without record ids", e->owner,
					    dnsb_type_name(e->type));
		else if (diff_rrset(&o, e, h, nh) != 0)
			rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	for (int t = 0; rc == 0 && t < 3; t++)
		for (size_t i = 0; i < o.n[t]; i++)
			(*ops)[k++] = o.k[t][i];
	*count = rc == 0 ? k : 0;
	if (rc != 0) {
		free(*ops);
		*ops = NULL;
	}
	for (int t = 0; t < 3; t++)
		free(o.k[t]);
	free(h);
	return rc;
}

size_t dnsb_do_apex_cname(dnsb_result *res, dnsb_change *const *changes, size_t n, const char *apex)
{
	size_t named = 0;

	for (size_t i = 0; i < n; i++) {
		const dnsb_rrset *r = &changes[i]->new_set;
		if (changes[i]->kind == DNSB_CHANGE_DELETE || r->type != LDNS_RR_TYPE_CNAME || strcmp(r->owner, apex) != 0)
			continue;
		dnsb_result_add_culprit_note(res, i, "a CNAME at the zone apex: DigitalOcean refuses it (422), the apex "
					     "holds the SOA and NS");
		named++;
	}
	if (named > 0)
		dnsb_result_set(res, DNSB_CLASS_CONFLICT, 0, "precheck", "%s: a CNAME at the zone apex (%zu changes named)",
				apex, named);
	return named;
}
