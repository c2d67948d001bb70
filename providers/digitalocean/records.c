/*
 * records.c - DigitalOcean's domain records and RRsets' RDATA, both ways.
 * A record holds one value: "name" relative to the domain ("@" for the
 * apex), "data" (an address, a name without its final dot, a TXT string, a
 * CAA value), and the fields of MX (priority), SRV (priority, weight, port)
 * and CAA (flags, tag) apart. ldns reads and prints every RDATA.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "dnsbatch/sys/log.h"
#include "providers/digitalocean/digitalocean.h"

/* RDATA text of one record at most (a TXT string of a few KiB, escaped). */
#define RDATA_MAX 16384

int dnsb_do_writable(uint16_t type)
{
	switch (type) {
	case LDNS_RR_TYPE_A: case LDNS_RR_TYPE_AAAA: case LDNS_RR_TYPE_CNAME: case LDNS_RR_TYPE_TXT:
	case LDNS_RR_TYPE_MX: case LDNS_RR_TYPE_SRV: case LDNS_RR_TYPE_NS: case LDNS_RR_TYPE_CAA:
		return 1;
	default:
		return 0;
	}
}

int dnsb_do_props(const void *ctx, dnsb_rrset *r)
{
	(void)ctx;
	if (!dnsb_do_writable(r->type))
		return DNSB_EINVAL;
	free(r->routing); /* DigitalOcean keeps no provider property */
	r->routing = NULL;
	if (r->ttl != DNSB_TTL_UNSET && r->ttl < DNSB_DO_TTL_MIN)
		r->ttl = DNSB_DO_TTL_MIN;
	return 0;
}

/* ---- reading ---- */

static const char *str_member(json_object *o, const char *name)
{
	json_object *v;

	return json_object_object_get_ex(o, name, &v) && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

/* An integer member of 0..max. @return it, or -1 (absent, null, not an integer, out of range) */
static long long int_member(json_object *o, const char *name, long long max)
{
	json_object *v;
	long long x;

	if (!json_object_object_get_ex(o, name, &v) || !json_object_is_type(v, json_type_int))
		return -1;
	x = json_object_get_int64(v);
	return x >= 0 && x <= max ? x : -1;
}

/*
 * A CAA issue or issuewild value that is a bare domain name ("letsencrypt.org"): DigitalOcean wants it with a final
 * dot (422 "Data needs to end with a dot (.)" otherwise, octodns PR #692) and lists it so. len: its length without a
 * final dot.
 */
static int caa_domain(const char *tag, const char *value, size_t len)
{
	if (tag == NULL || (strcmp(tag, "issue") != 0 && strcmp(tag, "issuewild") != 0) || len == 0)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!(isalnum((unsigned char)value[i]) || value[i] == '.' || value[i] == '-'))
			return 0;
	return isalnum((unsigned char)value[len - 1]);
}

/* A name of the data, absolute: "@" the apex, a final dot added where DigitalOcean leaves it out. */
static int abs_name(char *out, size_t size, const char *data, const char *apex)
{
	size_t len = strlen(data);

	if (len == 0)
		return 0;
	if (strcmp(data, "@") == 0)
		return snprintf(out, size, "%s", apex) < (int)size;
	return snprintf(out, size, "%s%s", data, data[len - 1] == '.' ? "" : ".") < (int)size;
}

/* One string of octets as ldns prints an rdf of `type` (quoted, escaped). @return 1, or 0 when it does not fit */
static int quoted(char *out, size_t size, ldns_rdf_type type, const unsigned char *bytes, size_t len)
{
	unsigned char buf[256];
	ldns_rdf *rdf;
	char *text;
	int ok;

	if (type == LDNS_RDF_TYPE_STR) { /* a character-string: its length octet first */
		buf[0] = (unsigned char)len;
		memcpy(buf + 1, bytes, len);
		rdf = ldns_rdf_new_frm_data(type, len + 1, buf);
	} else {
		rdf = ldns_rdf_new_frm_data(type, len, bytes);
	}
	text = rdf ? ldns_rdf2str(rdf) : NULL;
	ldns_rdf_deep_free(rdf);
	ok = text && snprintf(out, size, "%s", text) < (int)size;
	free(text);
	return ok;
}

/* TXT data (one string) as character-strings of 255 octets at most, as DNS serves it. */
static int txt_rdata(char *out, size_t size, const char *data)
{
	size_t len = strlen(data), at = 0, used = 0;
	char piece_text[1100]; /* 255 octets, each \DDD at most, quoted */

	do {
		size_t piece = len - at > 255 ? 255 : len - at;
		int w;
		if (!quoted(piece_text, sizeof(piece_text), LDNS_RDF_TYPE_STR, (const unsigned char *)data + at, piece))
			return 0;
		w = snprintf(out + used, size - used, "%s%s", used ? " " : "", piece_text);
		if (w < 0 || (size_t)w >= size - used)
			return 0;
		used += (size_t)w;
		at += piece;
	} while (at < len);
	return 1;
}

/* The record's RDATA in presentation form. @return 1, or 0 when a field is missing or out of range */
static int record_text(char *out, size_t size, uint16_t type, json_object *rec, const char *data, const char *apex)
{
	char name[300], value[RDATA_MAX];
	long long prio = int_member(rec, "priority", 65535), flags = int_member(rec, "flags", 255);
	const char *tag = str_member(rec, "tag");
	size_t len;

	switch (type) {
	case LDNS_RR_TYPE_A: case LDNS_RR_TYPE_AAAA:
		return snprintf(out, size, "%s", data) < (int)size;
	case LDNS_RR_TYPE_CNAME: case LDNS_RR_TYPE_NS:
		return abs_name(out, size, data, apex);
	case LDNS_RR_TYPE_MX:
		return prio >= 0 && abs_name(name, sizeof(name), data, apex) &&
		       snprintf(out, size, "%lld %s", prio, name) < (int)size;
	case LDNS_RR_TYPE_SRV:
		return prio >= 0 && int_member(rec, "weight", 65535) >= 0 && int_member(rec, "port", 65535) >= 0 &&
		       abs_name(name, sizeof(name), data, apex) &&
		       snprintf(out, size, "%lld %lld %lld %s", prio, int_member(rec, "weight", 65535),
				int_member(rec, "port", 65535), name) < (int)size;
	case LDNS_RR_TYPE_TXT:
		return txt_rdata(out, size, data);
	case LDNS_RR_TYPE_CAA: /* an issue domain without the dot DigitalOcean adds */
		len = strlen(data);
		if (len > 1 && data[len - 1] == '.' && caa_domain(tag, data, len - 1))
			len--;
		return flags >= 0 && tag && *tag && !strpbrk(tag, " \t\"\\") &&
		       quoted(value, sizeof(value), LDNS_RDF_TYPE_LONG_STR, (const unsigned char *)data, len) &&
		       snprintf(out, size, "%lld %s %s", flags, tag, value) < (int)size;
	default:
		return 0;
	}
}

/* The record's owner: the apex for "@", else name.apex. */
static int record_owner(char **owner, const char *name, const char *apex, dnsb_error *err)
{
	char full[600];

	if (strcmp(name, "@") == 0 || *name == '\0')
		snprintf(full, sizeof(full), "%s", apex);
	else if (snprintf(full, sizeof(full), "%s.%s", name, apex) >= (int)sizeof(full))
		return dnsb_error_set(err, DNSB_EPARSE, "record name '%.64s...': too long", name);
	if (dnsb_name_canonical(owner, full, err) != 0)
		return *owner = NULL, dnsb_error_set(err, DNSB_EPARSE, "record name '%.200s': not a domain name", name);
	return 0;
}

int dnsb_do_record_parse(char **owner, uint16_t *type, char **rdata, uint32_t *ttl, char *id, json_object *rec,
			 const char *apex, dnsb_error *err)
{
	const char *name = str_member(rec, "name"), *tname = str_member(rec, "type"), *data = str_member(rec, "data");
	long long rid = int_member(rec, "id", 0x7fffffffffffffffLL), t = int_member(rec, "ttl", 2147483647);
	char *text = malloc(RDATA_MAX);
	int rc;

	*owner = *rdata = NULL;
	if (text == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if (!json_object_is_type(rec, json_type_object) || name == NULL || tname == NULL || rid < 0) {
		free(text);
		return dnsb_error_set(err, DNSB_EPARSE, "a domain record without id, name or type");
	}
	*type = (uint16_t)ldns_get_rr_type_by_name(tname);
	if (!dnsb_do_writable(*type)) {
		free(text);
		return 1; /* SOA, and what this provider does not write */
	}
	if (data == NULL || t < 0 || !record_text(text, RDATA_MAX, *type, rec, data, apex))
		rc = dnsb_error_set(err, DNSB_EPARSE, "%s record %lld: data, ttl or a field of its type missing or out of "
				    "range", tname, rid);
	else if ((rc = record_owner(owner, name, apex, err)) == 0 &&
		 (rc = dnsb_rdata_canonical(rdata, *type, text, err)) != 0)
		rc = rc == DNSB_ENOMEM ? rc : dnsb_error_set(err, DNSB_EPARSE, "%s record %lld: %s", tname, rid,
							     err ? err->message : "RDATA that does not parse");
	free(text);
	if (rc != 0) {
		free(*owner);
		*owner = NULL;
		return rc;
	}
	*ttl = (uint32_t)t;
	snprintf(id, 24, "%lld", rid);
	return 0;
}

/* links.pages.next, when the page has one. */
static int next_link(json_object *page, char **next)
{
	json_object *links, *pages;
	const char *url;

	if (!json_object_object_get_ex(page, "links", &links) || !json_object_object_get_ex(links, "pages", &pages) ||
	    (url = str_member(pages, "next")) == NULL || *url == '\0')
		return 0;
	return (*next = strdup(url)) ? 0 : DNSB_ENOMEM;
}

/*
 * DigitalOcean keeps a TTL per record, so one RRset may hold several (set by hand, or by another tool). The RRset is
 * listed at the lowest, as a resolver serves it (RFC 2181 section 5.2), whatever order the records come in: an RRset
 * listed at the last record's TTL would be called in effect at a TTL some of its records do not serve, and a write to
 * it would never make the others one. A write to the lowest still finds the others by their own TTL (diff.c).
 */
static void lowest_ttl(dnsb_rrset_list *out, const char *owner, uint16_t type, uint32_t low)
{
	dnsb_rrset *r = (dnsb_rrset *)dnsb_rrset_list_find(out, owner, type);

	if (r && r->ttl > low)
		r->ttl = low;
}

/*
 * Is the record one of keys (all when n is 0)? Judged by its name and type alone, before its data: a record this
 * provider cannot read (another tool's: an SRV without weight, a field out of range) fails only the reads of its own
 * RRset, not every whole-domain listing of a batch elsewhere in the domain. Unsure (no name or type): 1, the parse
 * says why.
 */
static int wanted(json_object *rec, const char *apex, const dnsb_rrkey *keys, size_t n)
{
	const char *name = str_member(rec, "name"), *tname = str_member(rec, "type");
	char *owner = NULL;
	int want;

	if (n == 0 || name == NULL || tname == NULL || record_owner(&owner, name, apex, NULL) != 0)
		return 1;
	want = dnsb_rrkeys_want(keys, n, owner, (uint16_t)ldns_get_rr_type_by_name(tname));
	free(owner);
	return want;
}

/*
 * A record a listing of the whole domain (n 0: `records`, the sidecar's GET /records) cannot read: skipped with a
 * warning naming it, as a keyed read skips the records of other RRsets. Only there: a read of keys fails on an
 * unreadable record of its own RRsets, so that a change is never judged against an RRset missing a record.
 */
static int skip_record(json_object *rec, const char *apex, const dnsb_error *why)
{
	const char *name = str_member(rec, "name"), *tname = str_member(rec, "type");
	json_object *v;
	char *owner = NULL;

	if (name)
		(void)record_owner(&owner, name, apex, NULL);
	dnsb_log(DNSB_LOG_WARN, "digitalocean: %s: skipped a record this listing cannot read: %s %s id %s (%s)", apex,
		 owner ? owner : name ? name : "(no name)", tname ? tname : "(no type)",
		 json_object_object_get_ex(rec, "id", &v) ? json_object_get_string(v) : "(none)",
		 why ? why->message : "unreadable");
	free(owner);
	return 1;
}

/* One record into out and ids. @return 0; 1 skipped (unreadable, in a whole listing); DNSB_EPARSE; DNSB_ENOMEM */
static int take_record(dnsb_rrset_list *out, dnsb_hb_tags *ids, json_object *rec, const char *apex,
		       const dnsb_rrkey *keys, size_t n, dnsb_error *err)
{
	char *owner, *rdata, id[24];
	uint16_t type;
	uint32_t ttl;
	int rc = wanted(rec, apex, keys, n) ? dnsb_do_record_parse(&owner, &type, &rdata, &ttl, id, rec, apex, err) : 1;

	if (rc == DNSB_EPARSE && n == 0)
		return skip_record(rec, apex, err);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	if (n == 0 || dnsb_rrkeys_want(keys, n, owner, type)) {
		const dnsb_rrset *had = dnsb_rrset_list_find(out, owner, type); /* not used past the add: it may move */
		uint32_t low = had && had->ttl < ttl ? had->ttl : ttl;
		if ((rc = dnsb_rrset_list_add_text(out, owner, ttl, dnsb_type_name(type), rdata)) > 0)
			rc = dnsb_error_set(err, DNSB_EPARSE, "%s %s: RDATA that does not parse", owner, dnsb_type_name(type));
		else if (rc == 0 && low < ttl)
			lowest_ttl(out, owner, type, low);
		if (rc == 0 && ids)
			rc = dnsb_hb_tags_add(ids, owner, type, rdata, id, ttl);
		if (rc == DNSB_ENOMEM)
			dnsb_error_set(err, rc, "out of memory");
	}
	free(owner);
	free(rdata);
	return rc;
}

int dnsb_do_records_parse(dnsb_rrset_list *out, dnsb_hb_tags *ids, json_object *page, const char *apex,
			  const dnsb_rrkey *keys, size_t n, char **next, dnsb_error *err)
{
	json_object *list;
	int rc = 0, skipped = 0;

	*next = NULL;
	if (!json_object_object_get_ex(page, "domain_records", &list) || !json_object_is_type(list, json_type_array))
		return dnsb_error_set(err, DNSB_EPARSE, "not a domain record listing (no domain_records array)");
	for (size_t i = 0; rc >= 0 && i < json_object_array_length(list); i++)
		if ((rc = take_record(out, ids, json_object_array_get_idx(list, i), apex, keys, n, err)) > 0)
			skipped++;
	if (rc >= 0 && next_link(page, next) != 0)
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	return rc < 0 ? rc : skipped;
}

/* ---- writing ---- */

/* The record's name: "@" at the apex, else the owner relative to it. */
static int record_name(char *out, size_t size, const char *owner, const char *apex)
{
	size_t lo = strlen(owner), la = strlen(apex);

	if (strcmp(owner, apex) == 0)
		return snprintf(out, size, "@") < (int)size;
	if (lo <= la + 1 || owner[lo - la - 1] != '.' || strcmp(owner + lo - la, apex) != 0 || lo - la - 1 >= size)
		return 0;
	snprintf(out, size, "%.*s", (int)(lo - la - 1), owner);
	return 1;
}

/* A TXT record's strings as DigitalOcean's one string: each but the last must be 255 octets (a cut string). */
static int txt_data(json_object *o, const ldns_rr *rr, char *why, size_t why_size)
{
	char *joined = calloc(ldns_rr_rd_count(rr) * 255 + 1, 1);
	size_t used = 0;
	int ok = joined != NULL;

	for (size_t i = 0; ok && i < ldns_rr_rd_count(rr); i++) {
		const uint8_t *d = ldns_rdf_data(ldns_rr_rdf(rr, i));
		if ((i + 1 < ldns_rr_rd_count(rr) && d[0] != 255) || memchr(d + 1, '\0', d[0])) {
			snprintf(why, why_size, "DigitalOcean holds one string per TXT record: strings of fewer than 255 "
				 "octets before the last, or a NUL octet, cannot be kept as they are");
			ok = 0;
			break;
		}
		memcpy(joined + used, d + 1, d[0]);
		used += d[0];
	}
	if (ok)
		json_object_object_add(o, "data", json_object_new_string_len(joined, (int)used));
	free(joined);
	return ok;
}

static void add_int(json_object *o, const char *name, long long v)
{
	json_object_object_add(o, name, json_object_new_int64(v));
}

static void add_str(json_object *o, const char *name, const ldns_rdf *rdf)
{
	char *text = ldns_rdf2str(rdf);

	json_object_object_add(o, name, json_object_new_string(text ? text : ""));
	free(text);
}

/* A CAA record's value as data: an issue or issuewild domain with the final dot DigitalOcean wants. */
static int caa_data(json_object *o, const ldns_rr *rr)
{
	char *tag = ldns_rdf2str(ldns_rr_rdf(rr, 1)), *data;
	const char *value = (const char *)ldns_rdf_data(ldns_rr_rdf(rr, 2));
	size_t len = ldns_rdf_size(ldns_rr_rdf(rr, 2));
	int dot = caa_domain(tag, value, len);

	free(tag);
	if ((data = malloc(len + 2)) == NULL)
		return 0;
	memcpy(data, value, len);
	if (dot)
		data[len++] = '.';
	json_object_object_add(o, "data", json_object_new_string_len(data, (int)len));
	free(data);
	return 1;
}

/* The type's fields of one record into o. @return 1, or 0 with why set */
static int body_fields(json_object *o, const ldns_rr *rr, uint16_t type, char *why, size_t why_size)
{
	switch (type) {
	case LDNS_RR_TYPE_A: case LDNS_RR_TYPE_AAAA: case LDNS_RR_TYPE_CNAME: case LDNS_RR_TYPE_NS:
		add_str(o, "data", ldns_rr_rdf(rr, 0));
		return 1;
	case LDNS_RR_TYPE_MX:
		add_int(o, "priority", ldns_rdf2native_int16(ldns_rr_rdf(rr, 0)));
		add_str(o, "data", ldns_rr_rdf(rr, 1));
		return 1;
	case LDNS_RR_TYPE_SRV:
		add_int(o, "priority", ldns_rdf2native_int16(ldns_rr_rdf(rr, 0)));
		add_int(o, "weight", ldns_rdf2native_int16(ldns_rr_rdf(rr, 1)));
		add_int(o, "port", ldns_rdf2native_int16(ldns_rr_rdf(rr, 2)));
		add_str(o, "data", ldns_rr_rdf(rr, 3));
		return 1;
	case LDNS_RR_TYPE_TXT:
		return txt_data(o, rr, why, why_size);
	case LDNS_RR_TYPE_CAA:
		add_int(o, "flags", ldns_rdf2native_int8(ldns_rr_rdf(rr, 0)));
		add_str(o, "tag", ldns_rr_rdf(rr, 1));
		if (!caa_data(o, rr))
			snprintf(why, why_size, "out of memory");
		return why[0] == '\0';
	default:
		snprintf(why, why_size, "DigitalOcean holds no %s records here", dnsb_type_name(type));
		return 0;
	}
}

/* The record parsed by ldns (owner ".", TTL 0): the RDATA checked for its type. @return NULL when it does not parse */
static ldns_rr *parse_rdata(uint16_t type, const char *rdata)
{
	ldns_rr *rr = NULL;
	char *line = NULL;

	if (asprintf(&line, ". 0 IN %s %s", dnsb_type_name(type), rdata) < 0)
		return NULL;
	if (ldns_rr_new_frm_str(&rr, line, 0, NULL, NULL) != LDNS_STATUS_OK || ldns_rr_get_type(rr) != type) {
		ldns_rr_free(rr);
		rr = NULL;
	}
	free(line);
	return rr;
}

int dnsb_do_record_body(char **out, const char *apex, const char *owner, uint16_t type, const char *rdata,
			uint32_t ttl, dnsb_error *err)
{
	char name[300], why[200] = "";
	json_object *o;
	ldns_rr *rr;
	int ok;

	*out = NULL;
	if (!dnsb_do_writable(type))
		return dnsb_error_set(err, DNSB_EINVAL, "%s %s: DigitalOcean holds no %s records here", owner,
				      dnsb_type_name(type), dnsb_type_name(type));
	if (!record_name(name, sizeof(name), owner, apex))
		return dnsb_error_set(err, DNSB_EINVAL, "%s: not in the domain %s", owner, apex);
	if ((rr = parse_rdata(type, rdata)) == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "%s %s: RDATA '%.200s' does not parse", owner, dnsb_type_name(type),
				      rdata);
	if ((o = json_object_new_object()) == NULL) {
		ldns_rr_free(rr);
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	json_object_object_add(o, "type", json_object_new_string(dnsb_type_name(type)));
	json_object_object_add(o, "name", json_object_new_string(name));
	ok = body_fields(o, rr, type, why, sizeof(why));
	add_int(o, "ttl", ttl < DNSB_DO_TTL_MIN ? DNSB_DO_TTL_MIN : ttl);
	ldns_rr_free(rr);
	if (ok && (*out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN))) == NULL) {
		json_object_put(o);
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	json_object_put(o);
	return ok ? 0 : dnsb_error_set(err, DNSB_EINVAL, "%s %s: %s", owner, dnsb_type_name(type), why);
}
