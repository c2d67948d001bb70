/*
 * zonefile_text.c - write a zone back as its author wrote it. The old file
 * is read record by record with ldns, keeping each record's source text:
 * records still in the store keep their lines, comments and layout (relative
 * names, $ORIGIN and $TTL included); deleted ones lose their lines; new ones,
 * printed by ldns with absolute names, go after their owner's last line, or
 * at the end. The SOA keeps its text too, only its serial changed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ldns/ldns.h>

#include "dnsbatch/sys/provider.h"
#include "applier/core/array.h"
#include "providers/zonefile_text.h"
#include "store.h"

/* One record of the old file: its source text and what it holds. */
typedef struct entry {
	char *lead;          /* blank, comment and directive lines before it; kept always */
	char *text;          /* the record's own line(s), verbatim */
	dnsb_rrset rr;       /* owner, type, TTL and one RDATA, canonical; owner NULL for trailing text */
	int keep;            /* still in the store */
	int inherits_owner;  /* its first line starts with blank space: the owner is the previous one's */
	dnsb_rrset_list after; /* new RRsets of its owner, printed after it */
} entry;

typedef struct text_zone {
	entry *e;
	size_t n, cap;
} text_zone;

static void text_zone_clear(text_zone *z)
{
	for (size_t i = 0; i < z->n; i++) {
		free(z->e[i].lead);
		free(z->e[i].text);
		dnsb_rrset_clear(&z->e[i].rr);
		dnsb_rrset_list_clear(&z->e[i].after);
	}
	free(z->e);
}

/* The bytes [from, to) of f, as a string. */
static char *slice(FILE *f, long from, long to)
{
	char *s = malloc((size_t)(to - from) + 1);

	if (s == NULL || fseek(f, from, SEEK_SET) != 0 || fread(s, 1, (size_t)(to - from), f) != (size_t)(to - from)) {
		free(s);
		return NULL;
	}
	s[to - from] = '\0';
	return s;
}

/* Split text at the start of its first line that is neither blank nor a comment: that line begins the record. */
static size_t record_start(const char *text)
{
	size_t at = 0;

	while (text[at]) {
		size_t i = at;
		while (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')
			i++;
		if (text[i] != '\n' && text[i] != ';' && text[i] != '\0')
			return at;
		while (text[i] && text[i] != '\n')
			i++;
		at = text[i] ? i + 1 : i;
	}
	return at;
}

static entry *add_entry(text_zone *z)
{
	if (DNSB_ARRAY_RESERVE(z->e, z->cap, z->n + 1, 64) < 0)
		return NULL;
	memset(&z->e[z->n], 0, sizeof(entry));
	return &z->e[z->n++];
}

/* One record read by ldns from [from, to) of f. @return 0 or DNSB_ENOMEM */
static int take_record(text_zone *z, FILE *f, long from, long to, const ldns_rr *rr, char **pending)
{
	dnsb_rrset_list one = { 0 };
	char *all = slice(f, from, to), *lead;
	entry *e;
	size_t cut;

	if (all == NULL || (e = add_entry(z)) == NULL) {
		free(all);
		return DNSB_ENOMEM;
	}
	cut = record_start(all);
	lead = strndup(all, cut);
	e->text = strdup(all + cut);
	free(all);
	if (lead == NULL || e->text == NULL ||
	    asprintf(&e->lead, "%s%s", *pending ? *pending : "", lead) < 0) {
		e->lead = NULL;
		free(lead);
		return DNSB_ENOMEM;
	}
	free(lead);
	free(*pending);
	*pending = NULL;
	e->inherits_owner = e->text[0] == ' ' || e->text[0] == '\t';
	if (dnsb_rrset_list_add_ldns_rr(&one, rr, NULL) == 0 && one.count == 1) {
		e->rr = one.items[0];
		memset(&one.items[0], 0, sizeof(one.items[0]));
	}
	dnsb_rrset_list_clear(&one);
	return 0;
}

/* Append [from, to) of f to the text waiting for the next record (directives, comments). */
static int take_text(char **pending, FILE *f, long from, long to)
{
	char *s = slice(f, from, to), *joined;

	if (s == NULL)
		return DNSB_ENOMEM;
	if (asprintf(&joined, "%s%s", *pending ? *pending : "", s) < 0) {
		free(s);
		return DNSB_ENOMEM;
	}
	free(s);
	free(*pending);
	*pending = joined;
	return 0;
}

/* Read the old file into entries. @return 0, DNSB_EPARSE (not as the store read it), DNSB_ENOMEM */
static int read_text(text_zone *z, FILE *f, const char *apex)
{
	ldns_rdf *origin = ldns_dname_new_frm_str(apex), *prev = origin ? ldns_rdf_clone(origin) : NULL;
	uint32_t ttl = 3600;
	char *pending = NULL;
	int line = 0, rc = 0;
	long from = 0;

	if (origin == NULL || prev == NULL)
		rc = DNSB_ENOMEM;
	for (int at_end = 0; rc == 0 && !at_end;) {
		ldns_rr *rr = NULL;
		ldns_status st = ldns_rr_new_frm_fp_l(&rr, f, &ttl, &origin, &prev, &line);
		long to = ftell(f);

		/* Taking the text seeks, and a seek clears the end-of-file flag: note it first. */
		at_end = feof(f) || to == from;

		if (st == LDNS_STATUS_OK)
			rc = take_record(z, f, from, to, rr, &pending);
		else if (st == LDNS_STATUS_SYNTAX_EMPTY || st == LDNS_STATUS_SYNTAX_TTL || st == LDNS_STATUS_SYNTAX_ORIGIN)
			rc = take_text(&pending, f, from, to);
		else
			rc = DNSB_EPARSE;
		ldns_rr_free(rr);
		if (rc == 0 && fseek(f, to, SEEK_SET) != 0)
			rc = DNSB_EPARSE;
		from = to;
	}
	if (rc == 0 && pending) {
		entry *e = add_entry(z);
		if (e == NULL) {
			rc = DNSB_ENOMEM;
		} else {
			e->lead = pending;
			pending = NULL;
		}
	}
	free(pending);
	ldns_rdf_deep_free(origin);
	ldns_rdf_deep_free(prev);
	return rc;
}

/* Which RDATA of each held RRset the old file already shows (so: not to print again). */
typedef struct shown {
	dnsb_rrset_list held;
	char **rdata_shown;  /* per held RRset, per RDATA: 1 when a kept line shows it */
} shown;

static long rdata_index(const dnsb_rrset *set, const char *rdata)
{
	for (size_t i = 0; i < set->rdata_count; i++)
		if (strcmp(set->rdata[i], rdata) == 0)
			return (long)i;
	return -1;
}

/* Mark the entries still in the store; the SOA entry is kept (and printed anew). */
static void mark_kept(text_zone *z, shown *s)
{
	for (size_t i = 0; i < z->n; i++) {
		entry *e = &z->e[i];
		const dnsb_rrset *set;
		long at;

		if (e->rr.owner == NULL || e->rr.rdata_count != 1)
			continue;
		set = dnsb_rrset_list_find(&s->held, e->rr.owner, e->rr.type);
		if (set == NULL)
			continue;
		if (e->rr.type == LDNS_RR_TYPE_SOA) {
			e->keep = 1;
			memset(s->rdata_shown[set - s->held.items], 1, set->rdata_count);
			continue;
		}
		at = rdata_index(set, e->rr.rdata[0]);
		if (at >= 0 && set->ttl == e->rr.ttl && !s->rdata_shown[set - s->held.items][at]) {
			e->keep = 1;
			s->rdata_shown[set - s->held.items][at] = 1;
		}
	}
}

/* The entry after which new records of `owner` go: its last kept line; -1 when none (then at the end). */
static long last_line_of(const text_zone *z, const char *owner)
{
	for (size_t i = z->n; i > 0; i--)
		if (z->e[i - 1].keep && z->e[i - 1].rr.owner && strcmp(z->e[i - 1].rr.owner, owner) == 0)
			return (long)(i - 1);
	return -1;
}

/* Place every RDATA the old file does not show: after its owner's last line, else at the end. */
static int place_new(text_zone *z, shown *s, dnsb_rrset_list *tail)
{
	for (size_t k = 0; k < s->held.count; k++) {
		const dnsb_rrset *set = &s->held.items[k];
		dnsb_rrset fresh = { 0 };
		long at;
		int rc = 0;

		for (size_t r = 0; r < set->rdata_count; r++)
			if (!s->rdata_shown[k][r] && rc == 0)
				rc = dnsb_rrset_add_rdata(&fresh, set->rdata[r]);
		if (rc == 0 && fresh.rdata_count == 0)
			continue;
		fresh.owner = rc == 0 ? strdup(set->owner) : NULL;
		fresh.type = set->type;
		fresh.ttl = set->ttl;
		at = last_line_of(z, set->owner);
		if (fresh.owner == NULL ||
		    dnsb_rrset_list_push(at >= 0 ? &z->e[at].after : tail, &fresh) < 0) {
			dnsb_rrset_clear(&fresh);
			return DNSB_ENOMEM;
		}
	}
	return 0;
}

static int print_rrset(FILE *out, const dnsb_rrset *set, dnsb_error *err)
{
	ldns_rr_list *rrs = ldns_rr_list_new();
	int rc = rrs ? dnsb_rrset_to_ldns(rrs, set, err) : DNSB_ENOMEM;

	if (rc == 0)
		ldns_rr_list_print(out, rrs);
	ldns_rr_list_deep_free(rrs);
	return rc;
}

static int print_list(FILE *out, const dnsb_rrset_list *l, dnsb_error *err)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < l->count; i++)
		rc = print_rrset(out, &l->items[i], err);
	return rc;
}

/* The start and length of the n-th (0-based) space-separated field of an RDATA string. */
static const char *field(const char *rdata, int n, size_t *len)
{
	for (; n > 0 && *rdata; n--) {
		rdata += strcspn(rdata, " ");
		rdata += strspn(rdata, " ");
	}
	*len = strcspn(rdata, " ");
	return rdata;
}

/* Whether two SOA RDATA strings differ in the serial (field 2) at most. */
static int same_but_serial(const char *a, const char *b)
{
	size_t la, lb, sa, sb;

	la = (size_t)(field(a, 2, &sa) - a);
	lb = (size_t)(field(b, 2, &sb) - b);
	return la == lb && strncmp(a, b, la) == 0 && strcmp(a + la + sa, b + lb + sb) == 0;
}

/*
 * The serial's span in an SOA record's source text: the third field after
 * the SOA type, comments and parentheses skipped. NULL when not found.
 */
static const char *serial_in_text(const char *text, size_t *len)
{
	int after_type = -1;

	for (const char *t = text; *t;) {
		size_t n;

		if (*t == ';') {
			t += strcspn(t, "\n");
			continue;
		}
		if (strchr(" \t\r\n()", *t)) {
			t++;
			continue;
		}
		n = strcspn(t, " \t\r\n();");
		if (after_type >= 0 && ++after_type == 3) {
			*len = n;
			return t;
		}
		if (after_type < 0 && n == 3 && strncasecmp(t, "SOA", 3) == 0)
			after_type = 0;
		t += n;
	}
	return NULL;
}

/*
 * The SOA entry: its own text with only the serial changed, when nothing
 * else of it changed; else printed anew by ldns.
 */
static int print_soa(FILE *out, const entry *e, const dnsb_rrset *held, dnsb_error *err)
{
	size_t len = 0, old_len;
	const char *at = serial_in_text(e->text, &len);
	const char *old_serial = field(e->rr.rdata[0], 2, &old_len);
	const char *new_serial;
	size_t new_len;

	if (held == NULL || held->rdata_count != 1 || held->ttl != e->rr.ttl || at == NULL || len != old_len ||
	    strncmp(at, old_serial, len) != 0 || !same_but_serial(e->rr.rdata[0], held->rdata[0]))
		return print_rrset(out, held, err);
	new_serial = field(held->rdata[0], 2, &new_len);
	fprintf(out, "%.*s%.*s%s", (int)(at - e->text), e->text, (int)new_len, new_serial, at + len);
	if (e->text[strlen(e->text) - 1] != '\n')
		fputc('\n', out);
	return 0;
}

/*
 * Print the entries: kept lines verbatim, unless their owner was inherited
 * from a line no longer there (then printed by ldns, absolute); the SOA with
 * only its serial changed.
 */
static int print_text(FILE *out, const text_zone *z, const shown *s, const dnsb_rrset_list *tail, dnsb_error *err)
{
	const char *owner_above = NULL;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < z->n; i++) {
		const entry *e = &z->e[i];
		dnsb_rrset one = e->rr;

		if (e->lead)
			fputs(e->lead, out);
		if (!e->keep)
			continue;
		if (e->rr.type == LDNS_RR_TYPE_SOA) {
			rc = print_soa(out, e, dnsb_rrset_list_find(&s->held, e->rr.owner, LDNS_RR_TYPE_SOA), err);
		} else if (e->inherits_owner && (owner_above == NULL || strcmp(owner_above, e->rr.owner) != 0)) {
			rc = print_rrset(out, &one, err);
		} else {
			fputs(e->text, out);
			if (e->text[0] && e->text[strlen(e->text) - 1] != '\n')
				fputc('\n', out);
		}
		owner_above = e->rr.owner;
		if (rc == 0 && e->after.count > 0)
			rc = print_list(out, &e->after, err);
	}
	return rc == 0 ? print_list(out, tail, err) : rc;
}

int dnsb_zonefile_rewrite(FILE *out, FILE *old, const dnsb_store *store, dnsb_error *err)
{
	text_zone z = { NULL, 0, 0 };
	shown s = { { 0 }, NULL };
	dnsb_rrset_list tail = { 0 };
	int rc = read_text(&z, old, dnsb_store_apex(store));

	if (rc == 0)
		rc = dnsb_store_list(store, &s.held);
	if (rc == 0 && (s.rdata_shown = calloc(s.held.count ? s.held.count : 1, sizeof(char *))) == NULL)
		rc = DNSB_ENOMEM;
	for (size_t k = 0; rc == 0 && k < s.held.count; k++)
		if ((s.rdata_shown[k] = calloc(s.held.items[k].rdata_count + 1, 1)) == NULL)
			rc = DNSB_ENOMEM;
	if (rc == 0) {
		mark_kept(&z, &s);
		rc = place_new(&z, &s, &tail);
	}
	if (rc == 0)
		rc = print_text(out, &z, &s, &tail, err);
	for (size_t k = 0; s.rdata_shown && k < s.held.count; k++)
		free(s.rdata_shown[k]);
	free(s.rdata_shown);
	dnsb_rrset_list_clear(&s.held);
	dnsb_rrset_list_clear(&tail);
	text_zone_clear(&z);
	if (rc == DNSB_EPARSE)
		dnsb_error_set(err, rc, "the zone file no longer reads as before");
	return rc;
}
