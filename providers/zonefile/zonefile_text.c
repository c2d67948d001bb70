/*
 * zonefile_text.c - write a zone back as its author wrote it. The old file
 * is read record by record with ldns, keeping each record's source text:
 * records still in the store keep their lines, comments and layout (relative
 * names, $ORIGIN and $TTL included); deleted ones lose their lines; new ones,
 * printed by ldns with absolute names, go after their owner's last line, or
 * at the end. The SOA keeps its text too, only its serial changed. Text
 * that cannot be kept exactly (a NUL byte; an end that reads on past the
 * last line, so that what is printed after it would be swallowed) is
 * refused with DNSB_EPARSE: the caller then writes the zone whole.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ldns/ldns.h>

#include "dnsbatch/sys/provider.h"
#include "applier/core/array.h"
#include "applier/core/hmap.h"
#include "providers/zonefile/zonefile_text.h"
#include "providers/common/store.h"

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

/* The bytes [from, to) of the file read into memory, as a string. */
static char *slice(const char *buf, long from, long to)
{
	return strndup(buf + from, (size_t)(to - from));
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

/* One record read by ldns from [from, to) of buf. @return 0 or DNSB_ENOMEM */
static int take_record(text_zone *z, const char *buf, long from, long to, const ldns_rr *rr, char **pending)
{
	dnsb_rrset_list one = { 0 };
	char *all = slice(buf, from, to), *lead;
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

/* Append [from, to) of buf to the text waiting for the next record (directives, comments). */
static int take_text(char **pending, const char *buf, long from, long to)
{
	char *s = slice(buf, from, to), *joined;

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

/*
 * The whole of f in memory: ldns then reads it through fmemopen, whose ftell
 * is a plain field read, and each record's text is copied from memory
 * (a seek and a read per record on the file itself cost a system call each).
 * @return 0, DNSB_EPARSE (unreadable), DNSB_ENOMEM
 */
static int read_all(char **out, size_t *len, FILE *f)
{
	size_t cap = 1 << 16, n = 0, got;
	char *buf = malloc(cap), *grown;

	if (buf == NULL)
		return DNSB_ENOMEM;
	/* Always a byte free past the text, for its terminating NUL. */
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 < cap)
			continue;
		if ((grown = realloc(buf, cap * 2)) == NULL) {
			free(buf);
			return DNSB_ENOMEM;
		}
		buf = grown;
		cap *= 2;
	}
	if (ferror(f)) {
		free(buf);
		return DNSB_EPARSE;
	}
	*out = buf;
	*len = n;
	return 0;
}

/* Read the file's text into entries. @return 0, DNSB_EPARSE (not as the store read it), DNSB_ENOMEM */
static int read_entries(text_zone *z, FILE *f, const char *buf, const char *apex)
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

		at_end = feof(f) || to == from;
		if (st == LDNS_STATUS_OK)
			rc = take_record(z, buf, from, to, rr, &pending);
		else if (st == LDNS_STATUS_SYNTAX_EMPTY || st == LDNS_STATUS_SYNTAX_TTL || st == LDNS_STATUS_SYNTAX_ORIGIN)
			rc = take_text(&pending, buf, from, to);
		else
			rc = DNSB_EPARSE;
		ldns_rr_free(rr);
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

#define PROBE_OWNER "dnsbatch-probe.invalid."

/* Is rr the probe's own record, read whole? */
static int is_probe(const ldns_rr *rr)
{
	ldns_rdf *owner = ldns_dname_new_frm_str(PROBE_OWNER);
	char *rdata = ldns_rr_rd_count(rr) == 1 ? ldns_rdf2str(ldns_rr_rdf(rr, 0)) : NULL;
	int same = owner != NULL && rdata != NULL && ldns_dname_compare(ldns_rr_owner(rr), owner) == 0 &&
		   ldns_rr_get_type(rr) == LDNS_RR_TYPE_TXT && strcmp(rdata, "\"probe\"") == 0;

	ldns_rdf_deep_free(owner);
	free(rdata);
	return same;
}

/*
 * Does the text that ends the file end closed, so that records printed
 * after it read as records of their own? A '(' or a '"' left open at the
 * end of the file is read by ldns to the end; records appended after it
 * would be swallowed by it. Asked of ldns itself: the text, a newline, and
 * a probe record must read as the text's records, then the probe, whole.
 * @return 1 closed; 0 open, unreadable alone, or out of memory
 */
static int ends_closed(const char *last, const char *apex)
{
	ldns_rdf *origin = ldns_dname_new_frm_str(apex), *prev = origin ? ldns_rdf_clone(origin) : NULL;
	uint32_t ttl = 3600;
	int line = 0, probe_last = 0, bad = origin == NULL || prev == NULL;
	char *text = NULL;
	FILE *f = NULL;

	if (!bad && asprintf(&text, "%s\n" PROBE_OWNER " 0 IN TXT \"probe\"\n", last) < 0)
		text = NULL;
	if (text == NULL || (f = fmemopen(text, strlen(text), "r")) == NULL)
		bad = 1;
	while (!bad && !feof(f)) {
		ldns_rr *rr = NULL;
		ldns_status st = ldns_rr_new_frm_fp_l(&rr, f, &ttl, &origin, &prev, &line);

		if (st == LDNS_STATUS_OK)
			probe_last = is_probe(rr);
		else if (st != LDNS_STATUS_SYNTAX_EMPTY && st != LDNS_STATUS_SYNTAX_TTL &&
			 st != LDNS_STATUS_SYNTAX_ORIGIN)
			bad = 1;
		ldns_rr_free(rr);
	}
	if (f)
		fclose(f);
	free(text);
	ldns_rdf_deep_free(origin);
	ldns_rdf_deep_free(prev);
	return !bad && probe_last;
}

/*
 * Read the old file into entries.
 * @return 0; DNSB_EPARSE when it does not read as the store read it, holds a
 *         NUL byte, or ends inside a record; DNSB_ENOMEM (err filled)
 */
static int read_text(text_zone *z, FILE *old, const char *apex, dnsb_error *err)
{
	char *buf = NULL;
	const char *last;
	size_t len = 0;
	FILE *f;
	int rc = read_all(&buf, &len, old);

	if (rc < 0)
		return dnsb_error_set(err, rc, rc == DNSB_ENOMEM ? "out of memory" : "the zone file cannot be read");
	/* fmemopen of 0 bytes fails: an empty file reads as a file of one newline. */
	if (len == 0)
		buf[len++] = '\n';
	buf[len] = '\0';
	/* ldns skips a NUL byte: "mx\0\0 IN A" reads as "mx IN A", but its text cannot be kept as a string. */
	if (memchr(buf, '\0', len) != NULL) {
		free(buf);
		return dnsb_error_set(err, DNSB_EPARSE, "a NUL byte in the zone file");
	}
	if ((f = fmemopen(buf, len, "r")) == NULL) {
		free(buf);
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	rc = read_entries(z, f, buf, apex);
	fclose(f);
	free(buf);
	/* The text that ends the file: the last record's, or the comments and directives after it. */
	last = z->n > 0 ? (z->e[z->n - 1].text ? z->e[z->n - 1].text : z->e[z->n - 1].lead) : NULL;
	if (rc == 0 && last != NULL && !ends_closed(last, apex))
		return dnsb_error_set(err, DNSB_EPARSE, "the end of the zone file reads on past its last line (a '(' "
				      "left open), and would swallow records written after it");
	if (rc < 0)
		dnsb_error_set(err, rc, rc == DNSB_ENOMEM ? "out of memory" : "the zone file no longer reads as before");
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

/*
 * Index each owner name's last kept entry (1 + its index), once: new records
 * of an owner go after it. Keys are borrowed from the entries.
 * @return 0 or DNSB_ENOMEM
 */
static int index_last_lines(dnsb_hmap *last, const text_zone *z)
{
	for (size_t i = 0; i < z->n; i++)
		if (z->e[i].keep && z->e[i].rr.owner && dnsb_hmap_put(last, z->e[i].rr.owner, (void *)(uintptr_t)(i + 1)) < 0)
			return DNSB_ENOMEM;
	return 0;
}

/* Place every RDATA the old file does not show: after its owner's last line, else at the end. */
static int place_new(text_zone *z, shown *s, dnsb_rrset_list *tail)
{
	dnsb_hmap last = DNSB_HMAP_INIT;
	int rc = index_last_lines(&last, z);

	for (size_t k = 0; rc == 0 && k < s->held.count; k++) {
		const dnsb_rrset *set = &s->held.items[k];
		dnsb_rrset fresh = { 0 };
		size_t at;

		for (size_t r = 0; r < set->rdata_count; r++)
			if (!s->rdata_shown[k][r] && rc == 0)
				rc = dnsb_rrset_add_rdata(&fresh, set->rdata[r]);
		if (rc == 0 && fresh.rdata_count == 0)
			continue;
		fresh.owner = rc == 0 ? strdup(set->owner) : NULL;
		fresh.type = set->type;
		fresh.ttl = set->ttl;
		at = (size_t)(uintptr_t)dnsb_hmap_get(&last, set->owner);
		if (fresh.owner == NULL || dnsb_rrset_list_push(at > 0 ? &z->e[at - 1].after : tail, &fresh) < 0) {
			dnsb_rrset_clear(&fresh);
			rc = DNSB_ENOMEM;
		}
	}
	dnsb_hmap_clear(&last);
	return rc;
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

		/* A last line without its newline (a comment) would run into the records printed after it. */
		if (e->lead && e->lead[0]) {
			fputs(e->lead, out);
			if (e->lead[strlen(e->lead) - 1] != '\n')
				fputc('\n', out);
		}
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

int dnsb_zonefile_check_text(const char *path, dnsb_error *err)
{
	FILE *f = fopen(path, "rb");
	char chunk[1 << 14];
	size_t got;
	long line = 1;
	int rc = 0;

	if (f == NULL)
		return dnsb_error_set(err, DNSB_EIO, "%s: %s", path, strerror(errno));
	while (rc == 0 && (got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		const char *nul = memchr(chunk, '\0', got);

		for (const char *c = chunk; c < (nul ? nul : chunk + got); c++)
			line += *c == '\n';
		if (nul != NULL)
			rc = dnsb_error_set(err, DNSB_EPARSE, "%s:%ld: a NUL byte: a zone file is text (ldns would "
					    "skip it where named would not; remove it)", path, line);
	}
	if (rc == 0 && ferror(f))
		rc = dnsb_error_set(err, DNSB_EIO, "%s: %s", path, strerror(errno));
	fclose(f);
	return rc;
}

int dnsb_zonefile_rewrite(FILE *out, FILE *old, const dnsb_store *store, dnsb_error *err)
{
	text_zone z = { NULL, 0, 0 };
	shown s = { { 0 }, NULL };
	dnsb_rrset_list tail = { 0 };
	int rc = read_text(&z, old, dnsb_store_apex(store), err);

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
	if (rc == DNSB_ENOMEM)
		dnsb_error_set(err, rc, "out of memory");
	return rc;
}
