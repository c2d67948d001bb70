/* rrset.c - owner names, canonical RDATA and RRset values, all through ldns. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "dnsbatch/change.h"
#include "dnsbatch/sys/provider.h"
#include "applier/core/array.h"
#include "applier/core/hmap.h"
#include "applier/core/rdata_range.h"

/*
 * ldns_rdf2str allocates a 64 KiB buffer for every call; a plan has a few
 * names and RDATA per change, so print into a small buffer that grows.
 */
static char *rdf_string(const ldns_rdf *rdf)
{
	ldns_buffer *buf = ldns_buffer_new(256);
	char *s = NULL;

	if (buf == NULL)
		return NULL;
	if (ldns_rdf2buffer_str(buf, rdf) == LDNS_STATUS_OK && ldns_buffer_status(buf) == LDNS_STATUS_OK)
		s = ldns_buffer_export2str(buf);
	ldns_buffer_free(buf);
	return s;
}

/* Join the RDATA fields of a canonicalised record with single spaces. */
static int rr_rdata_string(char **out, const ldns_rr *rr)
{
	ldns_buffer *buf = ldns_buffer_new(128);
	int rc = DNSB_ENOMEM;

	if (buf == NULL)
		return DNSB_ENOMEM;
	for (size_t i = 0; i < ldns_rr_rd_count(rr); i++) {
		if (i > 0)
			ldns_buffer_printf(buf, " ");
		if (ldns_rdf2buffer_str(buf, ldns_rr_rdf(rr, i)) != LDNS_STATUS_OK) {
			rc = DNSB_EINVAL;
			goto done;
		}
	}
	if (ldns_buffer_status(buf) != LDNS_STATUS_OK)
		goto done;
	*out = ldns_buffer_export2str(buf);
	rc = *out ? 0 : DNSB_ENOMEM;
done:
	ldns_buffer_free(buf);
	return rc;
}

/*
 * external-dns carries a TXT target as one string, quoted by the TXT registry
 * but often bare for user records ("v=spf1 -all"). A bare one is one
 * character-string, so quote it (split in 255-octet pieces, RFC 1035 §3.3).
 */
static char *quote_txt(const char *s)
{
	size_t len = strlen(s), n = 0, run = 0;
	char *q = malloc(len * 2 + 4 * (len / 255 + 1) + 3);

	if (q == NULL)
		return NULL;
	q[n++] = '"';
	for (const char *c = s; *c; c++) {
		if (run == 255) {
			q[n++] = '"';
			q[n++] = ' ';
			q[n++] = '"';
			run = 0;
		}
		if (*c == '"' || *c == '\\')
			q[n++] = '\\';
		q[n++] = *c;
		run++;
	}
	q[n++] = '"';
	q[n] = '\0';
	return q;
}

/*
 * A name ldns prints exactly as written, once lower-cased: letters, digits,
 * '-', '_', '*' and single dots. Anything else (escapes, odd octets) goes
 * through ldns's printer.
 */
static int plain_name(const char *s)
{
	if (*s == '\0' || *s == '.')
		return 0;
	for (const char *c = s; *c; c++) {
		unsigned char ch = (unsigned char)*c;
		if (!(isalnum(ch) || ch == '-' || ch == '_' || ch == '*' || (ch == '.' && c[1] != '.')))
			return 0;
	}
	return 1;
}

/* "abc" -> "abc." lower-cased; the caller checked plain_name(). */
static char *plain_canonical(const char *s)
{
	size_t len = strlen(s);
	char *out = malloc(len + 2);

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < len; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	if (len == 0 || s[len - 1] != '.')
		out[len++] = '.';
	out[len] = '\0';
	return out;
}

/* TXT content ldns prints back unchanged between quotes: printable, no quote, no backslash. */
static int plain_text(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\')
			return 0;
	return 1;
}

/* One quoted character-string with no quote inside: "..." */
static int single_quoted(const char *s, size_t len)
{
	if (len < 2 || s[0] != '"' || s[len - 1] != '"')
		return 0;
	for (size_t i = 1; i < len - 1; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return 0;
	}
	return s[len - 2] != '\\' || (len >= 3 && s[len - 3] == '\\');
}

/*
 * A target that is one quoted character-string of more than 255 octets
 * (external-dns's TXT registry quotes its ownership values, which grow past
 * 255 with long resource names or encryption): its text, unescaped, for
 * quote_txt to split. NULL when it is not one, or holds 255 octets or fewer.
 */
static char *long_quoted_text(const char *s)
{
	size_t len = strlen(s), n = 0;
	char *text;

	if (len < 2 + 256 || !single_quoted(s, len) || (text = malloc(len)) == NULL)
		return NULL;
	for (size_t i = 1; i + 1 < len; i++) {
		if (s[i] != '\\') {
			text[n++] = s[i];
		} else if (isdigit((unsigned char)s[i + 1]) && isdigit((unsigned char)s[i + 2]) &&
			   isdigit((unsigned char)s[i + 3])) {
			int v = (s[i + 1] - '0') * 100 + (s[i + 2] - '0') * 10 + (s[i + 3] - '0');
			text[n++] = (char)(v > 255 ? '?' : v);
			i += 3;
		} else {
			text[n++] = s[++i];
		}
	}
	text[n] = '\0';
	if (n <= 255 || strlen(text) != n) { /* short, or a \000 inside: let ldns judge it */
		free(text);
		return NULL;
	}
	return text;
}

/*
 * The common records external-dns manages hold one RDATA field (A, AAAA,
 * CNAME, NS, PTR; a TXT of one string). ldns parses that field directly,
 * sparing ldns_rr_new_frm_str's per-record 64 KiB scratch buffers (most of
 * the parse time of a large plan). Returns 1 when it handled the RDATA.
 */
static int canonical_single_field(char **out, uint16_t type, const char *rdata, int *rc)
{
	const ldns_rr_descriptor *desc = ldns_rr_descript(type);
	size_t len = strlen(rdata);
	ldns_rdf_type field;
	ldns_rdf *rdf = NULL;
	char *text = NULL;

	if (type == LDNS_RR_TYPE_TXT || type == LDNS_RR_TYPE_SPF) {
		if (!single_quoted(rdata, len) || (text = strndup(rdata + 1, len - 2)) == NULL)
			return 0;
		field = LDNS_RDF_TYPE_STR;
	} else if (ldns_rr_descriptor_minimum(desc) == 1 && ldns_rr_descriptor_maximum(desc) == 1 &&
		   desc->_variable == LDNS_RDF_TYPE_NONE) {
		field = ldns_rr_descriptor_field_type(desc, 0);
		if (field != LDNS_RDF_TYPE_A && field != LDNS_RDF_TYPE_AAAA && field != LDNS_RDF_TYPE_DNAME)
			return 0;
		if (strpbrk(rdata, " \t\\\"()") != NULL)
			return 0; /* let the full parser judge spaces, escapes and quotes */
		/* external-dns targets are absolute names written without the trailing dot */
		if (field != LDNS_RDF_TYPE_DNAME)
			text = strdup(rdata);
		else if (asprintf(&text, "%s%s", rdata, rdata[len - 1] != '.' ? "." : "") < 0)
			text = NULL;
		if (text == NULL)
			return 0;
	} else {
		return 0;
	}
	rdf = ldns_rdf_new_frm_str(field, text);
	if (rdf == NULL) {
		free(text);
		return 0; /* the full parser gives the error message */
	}
	/* ldns validated it; a plain spelling is already its canonical text. */
	if (field == LDNS_RDF_TYPE_DNAME && plain_name(text)) {
		*out = plain_canonical(text);
	} else if (field == LDNS_RDF_TYPE_STR && plain_text(rdata + 1, len - 2)) {
		*out = strdup(rdata);
	} else if (field == LDNS_RDF_TYPE_A || field == LDNS_RDF_TYPE_AAAA) {
		/* The text ldns would print (ldns_rdf2buffer_str_a/_aaaa call inet_ntop), without its buffer. */
		char ip[INET6_ADDRSTRLEN];
		*out = inet_ntop(field == LDNS_RDF_TYPE_A ? AF_INET : AF_INET6, ldns_rdf_data(rdf), ip, sizeof(ip)) ?
		       strdup(ip) : NULL;
	} else {
		if (field == LDNS_RDF_TYPE_DNAME)
			ldns_dname2canonical(rdf);
		*out = rdf_string(rdf);
	}
	free(text);
	ldns_rdf_deep_free(rdf);
	*rc = *out ? 0 : DNSB_ENOMEM;
	return 1;
}

/*
 * The record types a plan may carry: those DNS providers accept from a
 * controller (Cloud DNS's list less DNSKEY and SOA, which providers manage).
 * Others are refused up front rather than fed to seldom-used ldns parsers.
 */
static int supported_type(uint16_t type)
{
	switch (type) {
	case LDNS_RR_TYPE_A: case LDNS_RR_TYPE_AAAA: case LDNS_RR_TYPE_CAA: case LDNS_RR_TYPE_CNAME:
	case LDNS_RR_TYPE_DS: case LDNS_RR_TYPE_MX: case LDNS_RR_TYPE_NAPTR: case LDNS_RR_TYPE_NS:
	case LDNS_RR_TYPE_PTR: case LDNS_RR_TYPE_SPF: case LDNS_RR_TYPE_SRV: case LDNS_RR_TYPE_SSHFP:
	case LDNS_RR_TYPE_TLSA: case LDNS_RR_TYPE_TXT:
		return 1;
	case 64: case 65: /* SVCB, HTTPS (RFC 9460), where this ldns knows them */
		return ldns_rr_descript(type)->_name != NULL;
	default:
		return 0;
	}
}

static int rdata_canonical_once(char **out, uint16_t type, const char *rdata, dnsb_error *err, int *full)
{
	const ldns_rr_descriptor *desc = ldns_rr_descript(type);
	char *quoted = NULL, *long_text, *line;
	ldns_rr *rr = NULL;
	ldns_status st;
	int rc;

	if (desc == NULL || desc->_name == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "unknown record type %u", (unsigned)type);
	if (!supported_type(type))
		return dnsb_error_set(err, DNSB_EINVAL,
				      "record type %s is not supported (A, AAAA, CAA, CNAME, DS, HTTPS, MX, NAPTR, "
				      "NS, PTR, SPF, SRV, SSHFP, SVCB, TLSA, TXT)", desc->_name);
	const char *start = rdata;
	while (isspace((unsigned char)*start))
		start++;
	if (*rdata == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "empty %s target", desc->_name);
	/* A bare TXT target is the text itself, spaces included; other RDATA is trimmed. */
	if ((type != LDNS_RR_TYPE_TXT && type != LDNS_RR_TYPE_SPF) || *start == '"')
		rdata = start;
	if (*rdata == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "empty %s target", desc->_name);
	*full = 0;
	if (canonical_single_field(out, type, rdata, &rc))
		return rc;
	*full = 1;
	if ((rc = dnsb_rdata_check_ranges(type, rdata, err)) < 0) /* before ldns wraps MX 70000 to 4464 */
		return rc;
	if ((type == LDNS_RR_TYPE_TXT || type == LDNS_RR_TYPE_SPF) && (long_text = long_quoted_text(rdata)) != NULL) {
		quoted = quote_txt(long_text);
		free(long_text);
		if (quoted == NULL)
			return DNSB_ENOMEM;
		rdata = quoted;
	} else if ((type == LDNS_RR_TYPE_TXT || type == LDNS_RR_TYPE_SPF) && *rdata != '"') {
		if ((quoted = quote_txt(rdata)) == NULL)
			return DNSB_ENOMEM;
		rdata = quoted;
	}
	if (asprintf(&line, ". 0 IN %s %s", desc->_name, rdata) < 0) {
		free(quoted);
		return DNSB_ENOMEM;
	}
	st = ldns_rr_new_frm_str(&rr, line, 0, NULL, NULL);
	free(line);
	if (st != LDNS_STATUS_OK)
		rc = dnsb_error_set(err, DNSB_EINVAL, "%s target '%s': %s", desc->_name, rdata,
				    ldns_get_errorstr_by_id(st));
	else if (ldns_rr_get_type(rr) != type || ldns_rr_rd_count(rr) == 0)
		rc = dnsb_error_set(err, DNSB_EINVAL, "%s target '%s': no RDATA", desc->_name, rdata);
	else if (ldns_rr2canonical(rr), (rc = rr_rdata_string(out, rr)) == DNSB_EINVAL)
		rc = dnsb_error_set(err, rc, "%s target '%s': cannot be printed back", desc->_name, rdata);
	ldns_rr_free(rr);
	free(quoted); /* rdata may point into it: the messages above are written */
	return rc;
}

/*
 * ldns prints some text it would read back differently (a label "@" is
 * printed as is, but read as the origin). Where the canonical text holds a
 * character ldns treats specially, read it back and insist on the same.
 */
static int ambiguous(const char *text)
{
	return strpbrk(text, "\\@();$") != NULL;
}

/*
 * `again` is *out read back (rc: how that went). Keep *out when the two
 * agree; otherwise free it. Takes `again`.
 * @return 0 (kept), DNSB_ENOMEM, or 1 when the text is not stable
 */
static int keep_if_stable(char **out, char *again, int rc)
{
	int same = rc == 0 && strcmp(again, *out) == 0;

	free(again);
	if (same)
		return 0;
	free(*out);
	*out = NULL;
	return rc == DNSB_ENOMEM ? rc : 1;
}

int dnsb_rdata_canonical(char **out, uint16_t type, const char *rdata, dnsb_error *err)
{
	char *again = NULL;
	int full = 0, rc = rdata_canonical_once(out, type, rdata, err, &full);

	/* The full record parser accepts a few forms it prints unreadably (SSHFP with an empty fingerprint). */
	if (rc < 0 || (!full && !ambiguous(*out)))
		return rc;
	rc = rdata_canonical_once(&again, type, *out, NULL, &full);
	if ((rc = keep_if_stable(out, again, rc)) != 1)
		return rc;
	return dnsb_error_set(err, DNSB_EINVAL, "%s target '%s' has no unambiguous presentation form",
			      dnsb_type_name(type), rdata);
}

static int name_canonical_once(char **out, const char *name, dnsb_error *err);

int dnsb_name_canonical(char **out, const char *name, dnsb_error *err)
{
	char *again = NULL;
	int rc = name_canonical_once(out, name, err);

	if (rc < 0 || !ambiguous(*out))
		return rc;
	rc = name_canonical_once(&again, *out, NULL);
	if ((rc = keep_if_stable(out, again, rc)) != 1)
		return rc;
	return dnsb_error_set(err, DNSB_EINVAL, "'%s' has no unambiguous presentation form", name);
}

static int name_canonical_once(char **out, const char *name, dnsb_error *err)
{
	ldns_rdf *dname;
	size_t len = strlen(name);
	char buf[1024], *abs = buf, *s; /* the name made absolute: on the stack unless escapes make it long */

	if (len == 0)
		return dnsb_error_set(err, DNSB_EINVAL, "empty name");
	/* ldns takes "a..b" and leading dots as the root: refuse them here. */
	if (name[0] == '.' ? len > 1 : strstr(name, "..") != NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "'%s' is not a legal domain name (empty label)", name);
	if (len + 2 > sizeof(buf) && (abs = malloc(len + 2)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	memcpy(abs, name, len);
	abs[len] = '.';
	abs[len + (name[len - 1] != '.')] = '\0';
	dname = ldns_dname_new_frm_str(abs);
	if (abs != buf)
		free(abs);
	if (dname == NULL)
		return dnsb_error_set(err, DNSB_EINVAL,
				      "'%s' is not a legal domain name (labels of 1-63 octets, 255 in all)", name);
	if (plain_name(name)) {
		s = plain_canonical(name); /* ldns validated it; lower-cased it is ldns's text */
	} else {
		ldns_dname2canonical(dname);
		s = rdf_string(dname);
	}
	ldns_rdf_deep_free(dname);
	if (s == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	*out = s;
	return 0;
}

int dnsb_name_in_zone(const char *name, const char *zone)
{
	size_t n = strlen(name), z = strlen(zone);

	if (strcmp(zone, ".") == 0)
		return 1;
	if (n < z || strcmp(name + n - z, zone) != 0)
		return 0;
	return n == z || name[n - z - 1] == '.';
}

void dnsb_rrset_clear(dnsb_rrset *rrset)
{
	if (rrset == NULL)
		return;
	free(rrset->owner);
	free(rrset->set_id);
	free(rrset->routing);
	for (size_t i = 0; i < rrset->rdata_count; i++)
		free(rrset->rdata[i]);
	free(rrset->rdata);
	memset(rrset, 0, sizeof(*rrset));
}

int dnsb_rrset_copy(dnsb_rrset *out, const dnsb_rrset *src)
{
	memset(out, 0, sizeof(*out));
	out->type = src->type;
	out->ttl = src->ttl;
	out->alias = src->alias;
	if ((src->owner && (out->owner = strdup(src->owner)) == NULL) ||
	    (src->set_id && (out->set_id = strdup(src->set_id)) == NULL) ||
	    (src->routing && (out->routing = strdup(src->routing)) == NULL))
		goto nomem;
	if (src->rdata_count == 0)
		return 0;
	if ((out->rdata = calloc(src->rdata_count, sizeof(char *))) == NULL)
		goto nomem;
	for (size_t i = 0; i < src->rdata_count; i++) {
		if ((out->rdata[i] = strdup(src->rdata[i])) == NULL)
			goto nomem;
		out->rdata_count++;
	}
	return 0;
nomem:
	dnsb_rrset_clear(out);
	return DNSB_ENOMEM;
}

int dnsb_rrset_add_rdata(dnsb_rrset *rrset, const char *rdata)
{
	size_t lo = 0, hi = rrset->rdata_count;
	char **grown, *copy;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(rrset->rdata[mid], rdata);
		if (c == 0)
			return 0;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if ((copy = strdup(rdata)) == NULL)
		return DNSB_ENOMEM;
	grown = realloc(rrset->rdata, (rrset->rdata_count + 1) * sizeof(char *));
	if (grown == NULL) {
		free(copy);
		return DNSB_ENOMEM;
	}
	rrset->rdata = grown;
	memmove(&grown[lo + 1], &grown[lo], (rrset->rdata_count - lo) * sizeof(char *));
	grown[lo] = copy;
	rrset->rdata_count++;
	return 0;
}

int dnsb_rrset_same_data(const dnsb_rrset *a, const dnsb_rrset *b)
{
	if (a->type != b->type || a->rdata_count != b->rdata_count || a->alias != b->alias)
		return 0;
	if (strcmp(a->owner ? a->owner : "", b->owner ? b->owner : "") != 0 ||
	    strcmp(a->set_id ? a->set_id : "", b->set_id ? b->set_id : "") != 0 ||
	    strcmp(a->routing ? a->routing : "", b->routing ? b->routing : "") != 0)
		return 0;
	for (size_t i = 0; i < a->rdata_count; i++)
		if (strcmp(a->rdata[i], b->rdata[i]) != 0)
			return 0;
	return 1;
}

int dnsb_rrset_equal(const dnsb_rrset *a, const dnsb_rrset *b)
{
	return (a->ttl == b->ttl || a->alias != DNSB_ALIAS_NONE) && dnsb_rrset_same_data(a, b);
}

int dnsb_rrset_matches_old(const dnsb_rrset *held, const dnsb_rrset *old)
{
	return (old->ttl == DNSB_TTL_UNSET || held->ttl == old->ttl || old->alias != DNSB_ALIAS_NONE) &&
	       dnsb_rrset_same_data(held, old);
}

size_t dnsb_rrset_rdata_bytes(const dnsb_rrset *rrset)
{
	size_t n = 0;

	for (size_t i = 0; i < rrset->rdata_count; i++)
		n += strlen(rrset->rdata[i]);
	return n;
}

/* Lists shorter than this are scanned; longer ones are indexed. */
#define INDEX_FROM 32

/*
 * The owner-name index of a long list: owner -> the newest item at that
 * owner, and per item the next older item at the same owner. Owner strings
 * are the items' own (they do not move when the array grows).
 */
struct dnsb_rrset_index {
	dnsb_hmap owners;
	size_t *older;     /* per item: index + 1 of the next older item at its owner, 0 none */
	size_t capacity;
};

static void index_free(struct dnsb_rrset_index *ix)
{
	if (ix == NULL)
		return;
	dnsb_hmap_clear(&ix->owners);
	free(ix->older);
	free(ix);
}

/* Index item i (the newest). @return 0 or DNSB_ENOMEM */
static int index_add(struct dnsb_rrset_index *ix, const dnsb_rrset_list *list, size_t i)
{
	const char *owner = list->items[i].owner ? list->items[i].owner : "";

	if (i >= ix->capacity) {
		size_t cap = list->capacity > i ? list->capacity : i + 1;
		size_t *older = realloc(ix->older, cap * sizeof(*older));
		if (older == NULL)
			return DNSB_ENOMEM;
		ix->older = older;
		ix->capacity = cap;
	}
	ix->older[i] = (size_t)(uintptr_t)dnsb_hmap_get(&ix->owners, owner);
	return dnsb_hmap_put(&ix->owners, owner, (void *)(uintptr_t)(i + 1));
}

/* Build the index once the list is long; a list that cannot get one stays scanned (slower, still right). */
static void index_update(dnsb_rrset_list *list)
{
	if (list->index != NULL) {
		if (index_add(list->index, list, list->count - 1) < 0) {
			index_free(list->index);
			list->index = NULL;
		}
		return;
	}
	if (list->count < INDEX_FROM || (list->index = calloc(1, sizeof(*list->index))) == NULL)
		return;
	for (size_t i = 0; i < list->count; i++) {
		if (index_add(list->index, list, i) < 0) {
			index_free(list->index);
			list->index = NULL;
			return;
		}
	}
}

int dnsb_rrset_list_push(dnsb_rrset_list *list, dnsb_rrset *rrset)
{
	if (DNSB_ARRAY_RESERVE(list->items, list->capacity, list->count + 1, 16) < 0) {
		dnsb_rrset_clear(rrset); /* taken either way: `copy || push` leaves no copy behind */
		return DNSB_ENOMEM;
	}
	list->items[list->count++] = *rrset;
	memset(rrset, 0, sizeof(*rrset));
	index_update(list);
	return 0;
}

const dnsb_rrset *dnsb_rrset_list_find(const dnsb_rrset_list *list, const char *owner, uint16_t type)
{
	return dnsb_rrset_list_find_set(list, owner, type, NULL);
}

/* Is `r`'s set identifier `set_id` (NULL and "" both none)? */
static int same_set_id(const dnsb_rrset *r, const char *set_id)
{
	return strcmp(r->set_id ? r->set_id : "", set_id ? set_id : "") == 0;
}

const dnsb_rrset *dnsb_rrset_list_find_set(const dnsb_rrset_list *list, const char *owner, uint16_t type,
					   const char *set_id)
{
	if (list->index != NULL) {
		size_t at = (size_t)(uintptr_t)dnsb_hmap_get(&list->index->owners, owner);
		for (; at != 0; at = list->index->older[at - 1])
			if (list->items[at - 1].type == type && same_set_id(&list->items[at - 1], set_id))
				return &list->items[at - 1];
		return NULL;
	}
	for (size_t i = list->count; i > 0; i--) {
		const dnsb_rrset *r = &list->items[i - 1];
		if (r->type == type && strcmp(r->owner, owner) == 0 && same_set_id(r, set_id))
			return r;
	}
	return NULL;
}

void dnsb_rrset_list_clear(dnsb_rrset_list *list)
{
	if (list == NULL)
		return;
	for (size_t i = 0; i < list->count; i++)
		dnsb_rrset_clear(&list->items[i]);
	free(list->items);
	index_free(list->index);
	memset(list, 0, sizeof(*list));
}

int dnsb_rrset_list_add_text(dnsb_rrset_list *list, const char *owner, long long ttl, const char *type,
			     const char *rdata)
{
	ldns_rr *rr = NULL;
	char *line = NULL;
	int rc;

	if (asprintf(&line, "%s %lld IN %s %s", owner, ttl, type, rdata) < 0)
		return DNSB_ENOMEM;
	if (ldns_rr_new_frm_str(&rr, line, 0, NULL, NULL) != LDNS_STATUS_OK || rr == NULL) {
		free(line);
		return 1;
	}
	free(line);
	rc = dnsb_rrset_list_add_ldns_rr(list, rr, NULL);
	ldns_rr_free(rr);
	return rc == DNSB_ENOMEM ? rc : rc < 0 ? 1 : 0;
}

int dnsb_rrset_list_add_ldns_rr(dnsb_rrset_list *list, const ldns_rr *rr, dnsb_error *err)
{
	ldns_rr *copy = ldns_rr_clone(rr);
	char *owner = NULL, *rdata = NULL;
	dnsb_rrset *target;
	dnsb_rrset fresh = { 0 };
	int rc;

	if (copy == NULL)
		return DNSB_ENOMEM;
	ldns_rr2canonical(copy);
	owner = rdf_string(ldns_rr_owner(copy));
	rc = owner ? rr_rdata_string(&rdata, copy) : DNSB_ENOMEM;
	if (rc == DNSB_EINVAL)
		dnsb_error_set(err, rc, "record at %s cannot be printed back", owner);
	if (rc < 0)
		goto done;
	target = (dnsb_rrset *)dnsb_rrset_list_find(list, owner, ldns_rr_get_type(copy));
	if (target == NULL) {
		fresh.owner = owner;
		owner = NULL;
		fresh.type = ldns_rr_get_type(copy);
		if ((rc = dnsb_rrset_list_push(list, &fresh)) < 0) {
			dnsb_rrset_clear(&fresh);
			goto done;
		}
		target = &list->items[list->count - 1];
	}
	target->ttl = ldns_rr_ttl(copy);
	rc = dnsb_rrset_add_rdata(target, rdata);
done:
	free(owner);
	free(rdata);
	ldns_rr_free(copy);
	return rc;
}

int dnsb_rrset_to_ldns(ldns_rr_list *out, const dnsb_rrset *rrset, dnsb_error *err)
{
	const char *type = dnsb_type_name(rrset->type);

	for (size_t i = 0; i < rrset->rdata_count; i++) {
		ldns_rr *rr = NULL;
		char *line;
		ldns_status st;

		if (asprintf(&line, "%s %u IN %s %s", rrset->owner, rrset->ttl, type, rrset->rdata[i]) < 0)
			return DNSB_ENOMEM;
		st = ldns_rr_new_frm_str(&rr, line, 0, NULL, NULL);
		free(line);
		if (st != LDNS_STATUS_OK)
			return dnsb_error_set(err, DNSB_EINVAL, "%s %s '%s': %s", rrset->owner, type,
					      rrset->rdata[i], ldns_get_errorstr_by_id(st));
		if (!ldns_rr_list_push_rr(out, rr)) {
			ldns_rr_free(rr);
			return DNSB_ENOMEM;
		}
	}
	return 0;
}

int dnsb_type_is_server(uint16_t type)
{
	return type == LDNS_RR_TYPE_SOA || type == LDNS_RR_TYPE_RRSIG || type == LDNS_RR_TYPE_NSEC ||
	       type == LDNS_RR_TYPE_DNSKEY || type == LDNS_RR_TYPE_NSEC3 || type == LDNS_RR_TYPE_NSEC3PARAM;
}

const char *dnsb_type_name(uint16_t type)
{
	static _Thread_local char buf[16];
	const ldns_rr_descriptor *desc = ldns_rr_descript(type);

	if (desc && desc->_name)
		return desc->_name;
	snprintf(buf, sizeof(buf), "TYPE%u", (unsigned)type);
	return buf;
}
