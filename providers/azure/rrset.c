/*
 * rrset.c - Azure record sets as JSON and back. Every RDATA goes through
 * ldns: written from the ldns record of the RRset's presentation form, read
 * by building an ldns record field by field (ldns then prints it in the
 * canonical form dnsb_rrset holds). One table says, per type, the JSON key
 * of its records and each field's kind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "providers/azure/internal.h"

typedef enum field_kind { F_ADDR, F_NAME, F_U16, F_U8, F_STRINGS, F_TAG, F_LONG } field_kind;

typedef struct field {
	const char *key;
	field_kind kind;
	ldns_rdf_type rdf;  /* F_ADDR: A or AAAA */
} field;

typedef struct rtype {
	uint16_t type;
	const char *seg;      /* the URL segment and the listing's type suffix */
	const char *pub_key;  /* the records' key in dnsZones */
	const char *priv_key; /* in privateDnsZones, or NULL: not held there */
	int single;           /* a CNAME: one object, not an array */
	field fields[4];
} rtype;

static const rtype types[] = {
	{ LDNS_RR_TYPE_A, "A", "ARecords", "aRecords", 0, { { "ipv4Address", F_ADDR, LDNS_RDF_TYPE_A } } },
	{ LDNS_RR_TYPE_AAAA, "AAAA", "AAAARecords", "aaaaRecords", 0, { { "ipv6Address", F_ADDR, LDNS_RDF_TYPE_AAAA } } },
	{ LDNS_RR_TYPE_CNAME, "CNAME", "CNAMERecord", "cnameRecord", 1, { { "cname", F_NAME, 0 } } },
	{ LDNS_RR_TYPE_MX, "MX", "MXRecords", "mxRecords", 0, { { "preference", F_U16, 0 }, { "exchange", F_NAME, 0 } } },
	{ LDNS_RR_TYPE_NS, "NS", "NSRecords", NULL, 0, { { "nsdname", F_NAME, 0 } } },
	{ LDNS_RR_TYPE_PTR, "PTR", "PTRRecords", "ptrRecords", 0, { { "ptrdname", F_NAME, 0 } } },
	{ LDNS_RR_TYPE_SRV, "SRV", "SRVRecords", "srvRecords", 0,
	  { { "priority", F_U16, 0 }, { "weight", F_U16, 0 }, { "port", F_U16, 0 }, { "target", F_NAME, 0 } } },
	{ LDNS_RR_TYPE_TXT, "TXT", "TXTRecords", "txtRecords", 0, { { "value", F_STRINGS, 0 } } },
	{ LDNS_RR_TYPE_CAA, "CAA", "caaRecords", NULL, 0,
	  { { "flags", F_U8, 0 }, { "tag", F_TAG, 0 }, { "value", F_LONG, 0 } } },
};

static const rtype *type_of(uint16_t type)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].type == type)
			return &types[i];
	return NULL;
}

static const rtype *type_of_seg(const char *seg)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcasecmp(types[i].seg, seg) == 0)
			return &types[i];
	return NULL;
}

const char *dnsb_azure_type_segment(uint16_t type)
{
	const rtype *t = type_of(type);

	return t ? t->seg : NULL;
}

static size_t field_count(const rtype *t)
{
	size_t k = 0;

	while (k < 4 && t->fields[k].key)
		k++;
	return k;
}

/* ---- RRset -> JSON ---- */

/* A name without its trailing dot, as Azure's examples write them. */
static json_object *name_json(const ldns_rdf *rdf)
{
	char *s = ldns_rdf2str(rdf);
	size_t len = s ? strlen(s) : 0;
	json_object *o;

	if (s == NULL)
		return NULL;
	if (len > 1 && s[len - 1] == '.')
		s[len - 1] = '\0';
	o = json_object_new_string(s);
	free(s);
	return o;
}

/* CAA's value (an RDATA field of raw bytes, not presentation) as JSON. */
static json_object *raw_json(const ldns_rdf *rdf)
{
	return json_object_new_string_len((const char *)ldns_rdf_data(rdf), (int)ldns_rdf_size(rdf));
}

/*
 * A TXT RDATA's character-strings as value[]: a run of full (255-octet)
 * strings is one entry with the string after it, up to DNSB_AZURE_TXT_VALUE
 * octets, as Azure holds a longer string (it serves it in 255-octet pieces);
 * so a record set read is written back as Azure held it.
 */
static json_object *strings_json(const ldns_rr *rr, size_t i, size_t *next)
{
	json_object *arr = json_object_new_array();
	char buf[DNSB_AZURE_TXT_VALUE];
	size_t len = 0;
	int open = 0;

	for (*next = i; arr && *next < ldns_rr_rd_count(rr); (*next)++) {
		const uint8_t *d = ldns_rdf_data(ldns_rr_rdf(rr, *next));
		size_t n = ldns_rdf_size(ldns_rr_rdf(rr, *next)) >= 1 ? d[0] : 0;
		if (open && len + n > sizeof(buf)) {
			json_object_array_add(arr, json_object_new_string_len(buf, (int)len));
			len = 0;
		}
		memcpy(buf + len, d + 1, n);
		len += n;
		open = n == 255;
		if (!open) {
			json_object_array_add(arr, json_object_new_string_len(buf, (int)len));
			len = 0;
		}
	}
	if (arr && open)
		json_object_array_add(arr, json_object_new_string_len(buf, (int)len));
	return arr;
}

static json_object *field_json(const field *f, const ldns_rr *rr, size_t i, size_t *next)
{
	const ldns_rdf *rdf = ldns_rr_rdf(rr, i);
	json_object *arr;
	char *s;

	*next = i + 1;
	switch (f->kind) {
	case F_U16:
		return json_object_new_int(ldns_rdf2native_int16(rdf));
	case F_U8:
		return json_object_new_int(ldns_rdf2native_int8(rdf));
	case F_NAME:
		return name_json(rdf);
	case F_STRINGS:
		return strings_json(rr, i, next);
	case F_LONG:
		return raw_json(rdf);
	default: /* F_ADDR, F_TAG: ldns prints them plainly */
		s = ldns_rdf2str(rdf);
		arr = s ? json_object_new_string(s) : NULL;
		free(s);
		return arr;
	}
}

static json_object *record_json(const rtype *t, const ldns_rr *rr)
{
	json_object *o = json_object_new_object();
	size_t i = 0;

	for (size_t k = 0; o && k < field_count(t); k++) {
		json_object *v = i < ldns_rr_rd_count(rr) ? field_json(&t->fields[k], rr, i, &i) : NULL;
		if (v == NULL) {
			json_object_put(o);
			return NULL;
		}
		json_object_object_add(o, t->fields[k].key, v);
	}
	return o;
}

static int records_json(json_object *props, const rtype *t, const char *key, const ldns_rr_list *rrs)
{
	json_object *arr = t->single ? NULL : json_object_new_array();

	if (!t->single && arr == NULL)
		return DNSB_ENOMEM;
	for (size_t i = 0; i < ldns_rr_list_rr_count(rrs); i++) {
		json_object *rec = record_json(t, ldns_rr_list_rr(rrs, i));
		if (rec == NULL) {
			json_object_put(arr);
			return DNSB_EINVAL;
		}
		if (t->single) {
			json_object_object_add(props, key, rec);
			return 0;
		}
		json_object_array_add(arr, rec);
	}
	if (arr)
		json_object_object_add(props, key, arr);
	return 0;
}

int dnsb_azure_rrset_body(char **out, const dnsb_rrset *rrset, int private_zones, dnsb_error *err)
{
	const rtype *t = type_of(rrset->type);
	const char *key = t ? (private_zones ? t->priv_key : t->pub_key) : NULL;
	ldns_rr_list *rrs;
	json_object *doc, *props;
	int rc;

	*out = NULL;
	if (key == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "%s %s: Azure %s DNS holds no such record set", rrset->owner,
				      dnsb_type_name(rrset->type), private_zones ? "private" : "public");
	if ((rrs = ldns_rr_list_new()) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = dnsb_rrset_to_ldns(rrs, rrset, err)) != 0) {
		ldns_rr_list_deep_free(rrs);
		return rc;
	}
	doc = json_object_new_object();
	props = json_object_new_object();
	json_object_object_add(doc, "properties", props);
	json_object_object_add(props, private_zones ? "ttl" : "TTL", json_object_new_int64(rrset->ttl));
	if ((rc = records_json(props, t, key, rrs)) == 0 &&
	    (*out = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN))) == NULL)
		rc = DNSB_ENOMEM;
	json_object_put(doc);
	ldns_rr_list_deep_free(rrs);
	if (rc != 0)
		return dnsb_error_set(err, rc, "%s %s: %s", rrset->owner, dnsb_type_name(rrset->type),
				      rc == DNSB_ENOMEM ? "out of memory" : "RDATA Azure cannot hold");
	return 0;
}

/* ---- JSON -> RRset ---- */

static ldns_rdf *text_rdf(json_object *v, ldns_rdf_type type)
{
	const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
	char *abs = NULL;
	ldns_rdf *rdf;

	if (s == NULL)
		return NULL;
	if (type == LDNS_RDF_TYPE_DNAME && (s[0] == '\0' || s[strlen(s) - 1] != '.')) {
		if (asprintf(&abs, "%s.", s) < 0)
			return NULL;
		s = abs;
	}
	rdf = ldns_rdf_new_frm_str(type, s);
	free(abs);
	return rdf;
}

/* CAA's value from raw bytes (ldns's LONG_STR: the bytes alone). */
static ldns_rdf *long_rdf(json_object *v)
{
	const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;

	return s ? ldns_rdf_new_frm_data(LDNS_RDF_TYPE_LONG_STR, (size_t)json_object_get_string_len(v), s) : NULL;
}

/*
 * One value[] entry of a TXT record as its character-strings (ldns's STR:
 * the length octet and the bytes): Azure holds up to DNSB_AZURE_TXT_VALUE
 * octets in one entry and serves a longer one in 255-octet pieces, as every
 * DNS server does. @return 0, or -1 (not a string; out of memory)
 */
static int strings_rdfs(ldns_rr *rr, json_object *v)
{
	const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
	size_t len = s ? (size_t)json_object_get_string_len(v) : 0, off = 0;
	uint8_t buf[256];

	if (s == NULL)
		return -1;
	do {
		size_t n = len - off > 255 ? 255 : len - off;
		ldns_rdf *rdf;
		buf[0] = (uint8_t)n;
		memcpy(buf + 1, s + off, n);
		if ((rdf = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_STR, n + 1, buf)) == NULL || !ldns_rr_push_rdf(rr, rdf)) {
			ldns_rdf_deep_free(rdf);
			return -1;
		}
		off += n;
	} while (off < len);
	return 0;
}

static int field_rdfs(ldns_rr *rr, const field *f, json_object *v)
{
	ldns_rdf *rdf = NULL;
	int64_t n = json_object_get_int64(v);

	switch (f->kind) {
	case F_ADDR:
		rdf = text_rdf(v, f->rdf);
		break;
	case F_NAME:
		rdf = text_rdf(v, LDNS_RDF_TYPE_DNAME);
		break;
	case F_TAG:
		rdf = text_rdf(v, LDNS_RDF_TYPE_TAG);
		break;
	case F_U16:
		rdf = n >= 0 && n <= 65535 ? ldns_native2rdf_int16(LDNS_RDF_TYPE_INT16, (uint16_t)n) : NULL;
		break;
	case F_U8:
		rdf = n >= 0 && n <= 255 ? ldns_native2rdf_int8(LDNS_RDF_TYPE_INT8, (uint8_t)n) : NULL;
		break;
	case F_LONG:
		rdf = long_rdf(v);
		break;
	case F_STRINGS:
		if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) == 0)
			return -1;
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (strings_rdfs(rr, json_object_array_get_idx(v, i)) != 0)
				return -1;
		return 0;
	}
	if (rdf == NULL)
		return -1;
	ldns_rr_push_rdf(rr, rdf);
	return 0;
}

/* One record (a JSON object) into the list; 1 when it cannot be read (skipped). */
static int record_add(dnsb_rrset_list *out, const rtype *t, json_object *rec, const char *owner, uint32_t ttl)
{
	ldns_rr *rr = ldns_rr_new();
	ldns_rdf *name = ldns_dname_new_frm_str(owner);
	dnsb_error e;
	int rc = 0;

	if (rr == NULL || name == NULL) {
		ldns_rr_free(rr);
		ldns_rdf_deep_free(name);
		return DNSB_ENOMEM;
	}
	ldns_rr_set_owner(rr, name);
	ldns_rr_set_ttl(rr, ttl);
	ldns_rr_set_type(rr, t->type);
	ldns_rr_set_class(rr, LDNS_RR_CLASS_IN);
	for (size_t k = 0; rc == 0 && k < field_count(t); k++) {
		json_object *v;
		if (!json_object_object_get_ex(rec, t->fields[k].key, &v) || field_rdfs(rr, &t->fields[k], v) != 0)
			rc = 1;
	}
	if (rc == 0 && (rc = dnsb_rrset_list_add_ldns_rr(out, rr, &e)) == DNSB_EINVAL)
		rc = 1;
	ldns_rr_free(rr);
	return rc;
}

static json_object *member(json_object *o, const char *a, const char *b)
{
	json_object *v = NULL;

	if (json_object_object_get_ex(o, a, &v) || (b && json_object_object_get_ex(o, b, &v)))
		return v;
	return NULL;
}

/*
 * A name ldns refuses as written, relative to the apex, lower-cased, each
 * octet outside printable ASCII as \DDD (as ldns prints a name), so that a
 * log line naming it stays one line. @return it (the caller's), or NULL
 */
static char *name_shown(const char *s, size_t len, const char *apex)
{
	char *text = malloc(len * 4 + strlen(apex) + 2), *p = text;

	for (size_t i = 0; text && i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x21 || c > 0x7e)
			p += sprintf(p, "\\%03u", c);
		else
			*p++ = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	if (text)
		sprintf(p, ".%s", apex);
	return text;
}

/*
 * The owner name of a record set ("@" is the apex, another name is relative
 * to it) as ldns prints it, lower-cased (the form of every dnsb_rrset owner),
 * or, with why, as name_shown shows it when ldns refuses it (an empty label,
 * a label over 63 octets, a name over 255) or it holds a NUL octet.
 * @param owner  receives it (the caller's), unless DNSB_ENOMEM
 * @return 0; 1 (refused: why says so); DNSB_ENOMEM
 */
static int owner_of(char **owner, json_object *name, const char *apex, char *why, size_t size)
{
	const char *s = json_object_get_string(name);
	size_t len = (size_t)json_object_get_string_len(name);
	int nul = strlen(s) < len;
	ldns_rdf *rdf = NULL;
	ldns_status st = LDNS_STATUS_SYNTAX_ERR;
	char *text = NULL;

	*owner = NULL;
	if (!nul && (strcmp(s, "@") == 0 ? (text = strdup(apex)) == NULL : asprintf(&text, "%s.%s", s, apex) < 0))
		return DNSB_ENOMEM;
	if (!nul)
		st = ldns_str2rdf_dname(&rdf, text);
	free(text);
	if (st == LDNS_STATUS_OK) {
		ldns_dname2canonical(rdf);
		*owner = ldns_rdf2str(rdf);
		ldns_rdf_deep_free(rdf);
		return *owner ? 0 : DNSB_ENOMEM;
	}
	if (st == LDNS_STATUS_MEM_ERR || (*owner = name_shown(s, len, apex)) == NULL)
		return DNSB_ENOMEM;
	snprintf(why, size, "a name dnsbatch cannot read (%s)", nul ? "a NUL octet" : ldns_get_errorstr_by_id(st));
	return 1;
}

/* A record set's TTL, when it is one (an integer in 0..2^31-1, RFC 2181 §8). @return 0, or 1 (why says so) */
static int ttl_of(uint32_t *ttl, json_object *props, char *why, size_t size)
{
	json_object *v = member(props, "TTL", "ttl");
	int64_t n = json_object_get_int64(v);

	*ttl = 0;
	if (!json_object_is_type(v, json_type_int)) {
		snprintf(why, size, "a TTL that is %s", v ? "not an integer" : "missing");
		return 1;
	}
	if (n < 0 || n > INT32_MAX) {
		snprintf(why, size, "a TTL of %s, outside 0..2147483647 (RFC 2181 section 8)", json_object_to_json_string(v));
		return 1;
	}
	*ttl = (uint32_t)n;
	return 0;
}

/*
 * The records of a record set into `set` (a list of its own). @return 0; 1
 * when it holds none or one this library cannot read; DNSB_ENOMEM
 */
static int records_add(dnsb_rrset_list *set, const rtype *t, json_object *props, const char *owner, uint32_t ttl)
{
	json_object *recs = member(props, t->pub_key, t->priv_key);
	size_t count;
	int rc = 0;

	if (recs == NULL || json_object_is_type(recs, json_type_null))
		return 1;
	if (t->single)
		return record_add(set, t, recs, owner, ttl);
	count = json_object_is_type(recs, json_type_array) ? json_object_array_length(recs) : 0;
	for (size_t i = 0; rc == 0 && i < count; i++)
		rc = record_add(set, t, json_object_array_get_idx(recs, i), owner, ttl);
	return rc == 0 && set->count == 0 ? 1 : rc;
}

/* Why a record set is not one this library can represent as an RRset (NULL when it is). */
static const char *opaque_why(json_object *props)
{
	json_object *v = member(props, "targetResource", NULL), *id = v ? member(v, "id", NULL) : NULL;
	json_object *old = member(props, "targetResourceId", NULL), *auto_reg = member(props, "isAutoRegistered", NULL);

	if ((id && json_object_get_string_len(id) > 0) || (old && json_object_get_string_len(old) > 0))
		return "an alias record set (targetResource): its records are the target's";
	if (auto_reg && json_object_get_boolean(auto_reg))
		return "a record set registered automatically by a virtual network";
	return NULL;
}

/*
 * A record set that cannot be an RRset here (an alias, an auto-registered
 * one, one with no records or a record this library cannot read). With tags
 * (a submission's read): kept there as an entry whose rdata is the reason
 * (the ETags of RRsets have rdata NULL), so the submission names it in the
 * way. Without, a read of keys takes it as held, so that no read calls its
 * name free: with the records read when they are all it holds (`whole`),
 * else with none (it equals no desired RRset); the listing leaves it out
 * with a log line.
 */
static int opaque(dnsb_rrset_list *out, dnsb_hb_tags *tags, size_t n, dnsb_rrset_list *set, const char *owner,
		  const rtype *t, const char *why, json_object *etag, uint32_t ttl, int whole)
{
	dnsb_rrset held = { 0 };
	char reason[200];

	snprintf(reason, sizeof(reason), "%s%s", DNSB_AZURE_OPAQUE, why);
	if (tags)
		return dnsb_hb_tags_add(tags, owner, t->type, reason, json_object_is_type(etag, json_type_string)
								   ? json_object_get_string(etag) : "", 0);
	if (n == 0) {
		dnsb_log(DNSB_LOG_INFO, "azure: %s %s: %s: not listed, never written or deleted (dnsbatch cannot "
			 "represent it)", owner, t->seg, why);
		return 0;
	}
	if (whole && set->count == 1)
		return dnsb_rrset_list_push(out, &set->items[0]);
	if ((held.owner = strdup(owner)) == NULL)
		return DNSB_ENOMEM;
	held.type = t->type;
	held.ttl = ttl;
	if (dnsb_rrset_list_push(out, &held) != 0) {
		dnsb_rrset_clear(&held);
		return DNSB_ENOMEM;
	}
	return 0;
}

/*
 * One record set of a known type into out and tags (keys: n of them, 0 for
 * the listing); `why` (or NULL) says its name or TTL cannot be read.
 */
static int rrset_take(dnsb_rrset_list *out, dnsb_hb_tags *tags, size_t n, json_object *props, json_object *etag,
		      const rtype *t, const char *owner, uint32_t ttl, const char *why)
{
	dnsb_rrset_list set = { 0 };
	int rc = why ? 1 : records_add(&set, t, props, owner, ttl);

	if (why == NULL)
		why = opaque_why(props);
	if (rc == 1 || (rc == 0 && why)) {
		json_object *recs = member(props, t->pub_key, t->priv_key);
		int empty = recs == NULL || json_object_is_type(recs, json_type_null) ||
			    (json_object_is_type(recs, json_type_array) && json_object_array_length(recs) == 0);
		if (why == NULL)
			why = empty ? "an empty record set (no records)" : "a record set holding a record dnsbatch cannot read";
		rc = opaque(out, tags, n, &set, owner, t, why, etag, ttl, rc == 0 && strstr(why, "automatically"));
	} else if (rc == 0) {
		rc = dnsb_rrset_list_push(out, &set.items[0]);
		if (rc == 0 && tags && json_object_is_type(etag, json_type_string))
			rc = dnsb_hb_tags_add(tags, owner, t->type, NULL, json_object_get_string(etag), ttl);
	}
	dnsb_rrset_list_clear(&set);
	return rc;
}

int dnsb_azure_rrset_parse(dnsb_rrset_list *out, dnsb_hb_tags *tags, json_object *rs, const char *apex,
			   const dnsb_rrkey *keys, size_t n, dnsb_error *err)
{
	json_object *name = member(rs, "name", NULL), *type = member(rs, "type", NULL), *props = member(rs, "properties", NULL);
	const char *slash;
	const rtype *t;
	char *owner, why[160];
	uint32_t ttl = 0;
	int rc, unreadable;

	if (!json_object_is_type(name, json_type_string) || !json_object_is_type(type, json_type_string) ||
	    !json_object_is_type(props, json_type_object))
		return dnsb_error_set(err, DNSB_EPARSE, "a record set without name, type or properties");
	slash = strrchr(json_object_get_string(type), '/');
	if ((t = type_of_seg(slash ? slash + 1 : json_object_get_string(type))) == NULL)
		return 0;
	if ((rc = owner_of(&owner, name, apex, why, sizeof(why))) == DNSB_ENOMEM)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	unreadable = rc == 1 || ttl_of(&ttl, props, why, sizeof(why)) != 0;
	rc = dnsb_rrkeys_want(keys, n, owner, t->type)
		     ? rrset_take(out, tags, n, props, member(rs, "etag", NULL), t, owner, ttl, unreadable ? why : NULL)
		     : 0;
	if (rc != 0)
		dnsb_error_set(err, rc, "%s %s: %s", owner, t->seg, rc == DNSB_ENOMEM ? "out of memory" : "not read");
	free(owner);
	return rc;
}

const char *dnsb_azure_opaque(const dnsb_hb_tags *tags, const char *owner, uint16_t type)
{
	size_t len = strlen(DNSB_AZURE_OPAQUE);

	for (size_t i = 0; tags && i < tags->count; i++) {
		const dnsb_hb_tag *t = &tags->items[i];
		if (t->type == type && t->rdata && strncmp(t->rdata, DNSB_AZURE_OPAQUE, len) == 0 &&
		    strcmp(t->owner, owner) == 0)
			return t->rdata + len;
	}
	return NULL;
}
