/* filter.c - the domain filter negotiated on GET / (external-dns endpoint/domain_filter.go). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <idn2.h>
#include <json-c/json.h>

#include "applier/webhook/re2.h"
#include "dnsbatch/webhook.h"

struct domain_list {
	/* Trimmed, lower-cased, sorted, as the user wrote them: GET / hands
	 * them back and external-dns normalises them itself. */
	char **given;
	/* given[i] in A-label form, the form names are compared in. */
	char **alabel;
	size_t count;
};

struct dnsb_domain_filter {
	struct domain_list include;
	struct domain_list exclude;
	/* Kept as given: GET / must hand external-dns the same text to compile. */
	char *regex_include;
	char *regex_exclude;
	dnsb_re2 *re_include;
	dnsb_re2 *re_exclude;
};

/* The form a name is compared in: lists compare A-labels ("xn--caf-dma"),
 * which is comparing the Unicode forms as external-dns does; regular
 * expressions see U-labels ("café"), as external-dns's normalizeDomain
 * hands them. */
enum name_form { FORM_ALABEL, FORM_ULABEL };

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* external-dns normalizeDomain, before IDNA: trim blanks and one trailing
 * dot; lower-case, as DNS names compare case-insensitively. */
static char *trim_lower(const char *s, size_t len)
{
	while (len > 0 && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len > 0 && s[len - 1] == '.')
		len--;
	char *out = malloc(len + 1);
	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < len; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[len] = '\0';
	return out;
}

/* Does IDNA leave s as it is (lower-cased ASCII, and for U-labels no
 * "xn--" label to decode)? The common case, so it skips libidn2. */
static int idna_identity(const char *s, enum name_form form)
{
	for (const char *p = s; *p != '\0'; p++) {
		if ((unsigned char)*p >= 0x80)
			return 0;
		if (form == FORM_ULABEL && (p == s || p[-1] == '.') && strncmp(p, "xn--", 4) == 0)
			return 0;
	}
	return 1;
}

/* UTS #46 transitional processing, as external-dns's idna profile
 * (MapForLookup, Transitional): maps (lower-cases, NFC), then encodes or
 * decodes. Returns a copy (the caller's), or NULL when libidn2 refuses
 * (or memory ran out: the caller then keeps the text as given). */
static char *idna_convert(const char *s, size_t len, enum name_form form)
{
	char *in = strndup(s, len);
	char *a = NULL, *u = NULL, *out = NULL;

	if (in == NULL)
		return NULL;
	if (idn2_to_ascii_8z(in, &a, IDN2_NFC_INPUT | IDN2_TRANSITIONAL) == IDN2_OK) {
		if (form == FORM_ALABEL)
			out = strdup(a);
		else if (idn2_to_unicode_8z8z(a, &u, 0) == IDN2_OK)
			out = strdup(u);
	}
	idn2_free(u);
	idn2_free(a);
	free(in);
	return out;
}

/* Label by label: libidn2 refuses a whole name for one odd label
 * ("r3---sn", a stray hyphen) where external-dns converts the others. A
 * label libidn2 refuses stays as given. Takes lower (the caller's). */
static char *convert_labels(char *lower, enum name_form form)
{
	size_t cap = strlen(lower) + 1, used = 0;
	char *out = malloc(cap);

	for (const char *p = lower; out != NULL;) {
		size_t len = strcspn(p, ".");
		char *conv = idna_convert(p, len, form);
		const char *label = conv != NULL ? conv : p;
		size_t llen = conv != NULL ? strlen(conv) : len;
		if (used + llen + 2 > cap) {
			cap += used + llen + 2;
			char *n = realloc(out, cap);
			if (n == NULL)
				free(out);
			out = n;
		}
		if (out != NULL) {
			memcpy(out + used, label, llen);
			used += llen;
			out[used] = p[len] == '.' ? '.' : '\0';
			used += p[len] == '.';
		}
		free(conv);
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	free(lower);
	return out;
}

/* A name or list entry in the form it is compared in (a copy, the
 * caller's), or NULL when memory ran out. */
static char *normalize(const char *s, size_t len, enum name_form form)
{
	char *lower = trim_lower(s, len);
	char *conv;

	if (lower == NULL || idna_identity(lower, form))
		return lower;
	conv = idna_convert(lower, strlen(lower), form);
	if (conv == NULL)
		return convert_labels(lower, form);
	free(lower);
	return conv;
}

static int push(char ***list, size_t *count, char *s)
{
	char **n = realloc(*list, (*count + 1) * sizeof(*n));
	if (n == NULL) {
		free(s);
		return DNSB_ENOMEM;
	}
	n[(*count)++] = s;
	*list = n;
	return 0;
}

/*
 * Has a domain, as GET / hands it to external-dns (trimmed once), an empty
 * label other than one leading dot (".example.com": the subdomains only)?
 * external-dns trims what it is handed once more: "..", handed as ".", it
 * trims to nothing and drops (passing every name), and "example.com..",
 * handed as "example.com.", it reads as "example.com", where given itself
 * it keeps "example.com." (passing none). Blanks after the dot trimmed
 * (". .") are trimmed by external-dns too.
 */
static int has_empty_label(const char *given)
{
	size_t len = strlen(given);

	while (len > 0 && isspace((unsigned char)given[len - 1]))
		len--;
	if (len > 0 && given[0] == '.') {
		given++;
		len--;
	}
	return len == 0 || given[0] == '.' || given[len - 1] == '.' || memmem(given, len, "..", 2) != NULL;
}

/* One domain of an entry, trimmed, onto the list; refused with an empty label. */
static int add_domain(struct domain_list *list, const char *p, size_t len, const char *flag, dnsb_error *err)
{
	char *d = trim_lower(p, len);

	if (d == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if (*d == '\0') {
		free(d);
		return 0;
	}
	if (has_empty_label(d)) {
		free(d);
		return dnsb_error_set(err, DNSB_EINVAL, "--%s: \"%.*s\" has an empty label; write a domain as "
				      "\"example.com\", or \".example.com\" for its subdomains only", flag,
				      (int)len, p);
	}
	return push(&list->given, &list->count, d) == 0 ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

/* Each entry may hold comma-separated domains; empty ones are dropped. */
static int add_domains(struct domain_list *list, const char *const *src, size_t n, const char *flag,
		       dnsb_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		for (const char *p = src[i]; p != NULL && rc == 0;) {
			const char *comma = strchr(p, ',');

			rc = add_domain(list, p, comma ? (size_t)(comma - p) : strlen(p), flag, err);
			p = comma ? comma + 1 : NULL;
		}
	}
	if (rc != 0)
		return rc;
	if (list->count > 1)
		qsort(list->given, list->count, sizeof(*list->given), cmp_str);
	list->alabel = calloc(list->count ? list->count : 1, sizeof(*list->alabel));
	if (list->alabel == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	for (size_t i = 0; i < list->count; i++) {
		list->alabel[i] = normalize(list->given[i], strlen(list->given[i]), FORM_ALABEL);
		if (list->alabel[i] == NULL)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	return 0;
}

static void clear_domains(struct domain_list *list)
{
	for (size_t i = 0; i < list->count; i++) {
		free(list->given[i]);
		if (list->alabel != NULL)
			free(list->alabel[i]);
	}
	free(list->given);
	free(list->alabel);
}

static int compile(dnsb_re2 **re, char **keep, const char *src, const char *flag, dnsb_error *err)
{
	char why[128];

	if (src == NULL || *src == '\0')
		return 0;
	*re = dnsb_re2_new(src, why, sizeof(why));
	if (*re == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "--%s: cannot compile \"%s\" (RE2, Go's syntax): %s",
				      flag, src, why);
	*keep = strdup(src);
	return *keep ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

int dnsb_domain_filter_new(dnsb_domain_filter **out,
			   const char *const *include, size_t include_count,
			   const char *const *exclude, size_t exclude_count,
			   const char *regex_include, const char *regex_exclude,
			   dnsb_error *err)
{
	dnsb_domain_filter *f;
	int rc;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	rc = add_domains(&f->include, include, include_count, "domain-filter", err);
	if (rc == 0)
		rc = add_domains(&f->exclude, exclude, exclude_count, "exclude-domains", err);
	if (rc == 0)
			rc = compile(&f->re_include, &f->regex_include, regex_include, "regex-domain-filter", err);
	if (rc == 0)
		rc = compile(&f->re_exclude, &f->regex_exclude, regex_exclude, "regex-domain-exclusion", err);
	if (rc == 0 && (f->re_include || f->re_exclude) && (f->include.count || f->exclude.count))
		/* external-dns refuses a negotiation body holding both forms. */
		rc = dnsb_error_set(err, DNSB_EINVAL,
				    "--domain-filter/--exclude-domains and --regex-domain-filter/"
				    "--regex-domain-exclusion cannot be used together");
	if (rc != 0) {
		dnsb_domain_filter_free(f);
		return rc;
	}
	*out = f;
	return 0;
}

void dnsb_domain_filter_free(dnsb_domain_filter *f)
{
	if (f == NULL)
		return;
	clear_domains(&f->include);
	clear_domains(&f->exclude);
	dnsb_re2_free(f->re_include);
	dnsb_re2_free(f->re_exclude);
	free(f->regex_include);
	free(f->regex_exclude);
	free(f);
}

static int ends_with(const char *s, size_t slen, const char *suffix, size_t suflen)
{
	return slen >= suflen && memcmp(s + slen - suflen, suffix, suflen) == 0;
}

/* external-dns matchFilter, on A-label forms. */
static int match_list(const struct domain_list *list, const char *name, int empty)
{
	size_t nlen = strlen(name);

	if (list->count == 0)
		return empty;
	for (size_t i = 0; i < list->count; i++) {
		const char *f = list->alabel[i];
		size_t flen = strlen(f);
		if (f[0] == '.' && ends_with(name, nlen, f, flen))
			return 1;
		if (strcmp(name, f) == 0)
			return 1;
		if (nlen > flen && ends_with(name, nlen, f, flen) && name[nlen - flen - 1] == '.')
			return 1;
	}
	return 0;
}

/* external-dns matchRegex: exclusion first, then inclusion when given. A
 * failed match (out of memory) lets nothing through. */
static int match_regex(const dnsb_domain_filter *f, const char *name)
{
	if (f->re_exclude != NULL && dnsb_re2_partial_match(f->re_exclude, name) != 0)
		return 0;
	if (f->re_include != NULL)
		return dnsb_re2_partial_match(f->re_include, name) == 1;
	return 1;
}

int dnsb_domain_filter_match(const dnsb_domain_filter *f, const char *name)
{
	int regex;
	char *n;
	int ok;

	if (f == NULL)
		return 1;
	regex = f->re_include != NULL || f->re_exclude != NULL;
	n = normalize(name, strlen(name), regex ? FORM_ULABEL : FORM_ALABEL);
	if (n == NULL)
		return 0;
	if (regex)
		ok = match_regex(f, n);
	else
		ok = match_list(&f->include, n, 1) && !match_list(&f->exclude, n, 0);
	free(n);
	return ok;
}

int dnsb_domain_filter_may_match_zone(const dnsb_domain_filter *f, const char *apex)
{
	char *z;
	int ok = 0;

	if (f == NULL || f->include.count == 0 || f->re_include != NULL || f->re_exclude != NULL)
		return 1;
	z = normalize(apex, strlen(apex), FORM_ALABEL);
	if (z == NULL)
		return 1;
	size_t zlen = strlen(z);
	for (size_t i = 0; i < f->include.count && !ok; i++) {
		const char *inc = f->include.alabel[i];
		if (inc[0] == '.')
			inc++;
		size_t ilen = strlen(inc);
		/* Either the filter names a domain inside the zone, or the zone
		 * lies inside the filtered domain. */
		if (zlen == 0 || strcmp(inc, z) == 0 ||
		    (ilen > zlen && ends_with(inc, ilen, z, zlen) && inc[ilen - zlen - 1] == '.') ||
		    (zlen > ilen && ends_with(z, zlen, inc, ilen) && z[zlen - ilen - 1] == '.'))
			ok = 1;
	}
	free(z);
	return ok;
}

static struct json_object *string_array(char *const *list, size_t n)
{
	struct json_object *a = json_object_new_array_ext((int)n);
	if (a == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_new_string(list[i]);
		if (s == NULL || json_object_array_add(a, s) != 0) {
			json_object_put(s);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

static int add_member(struct json_object *obj, const char *key, struct json_object *val)
{
	if (val == NULL)
		return DNSB_ENOMEM;
	if (json_object_object_add(obj, key, val) != 0) {
		json_object_put(val);
		return DNSB_ENOMEM;
	}
	return 0;
}

int dnsb_domain_filter_to_json(struct json_object **out, const dnsb_domain_filter *f)
{
	struct json_object *obj = json_object_new_object();
	int rc = 0;

	*out = NULL;
	if (obj == NULL)
		return DNSB_ENOMEM;
	if (f != NULL && (f->re_include != NULL || f->re_exclude != NULL)) {
		if (f->re_include != NULL)
			rc = add_member(obj, "regexInclude", json_object_new_string(f->regex_include));
		if (rc == 0 && f->re_exclude != NULL)
			rc = add_member(obj, "regexExclude", json_object_new_string(f->regex_exclude));
	} else if (f != NULL) {
		if (f->include.count)
			rc = add_member(obj, "include", string_array(f->include.given, f->include.count));
		if (rc == 0 && f->exclude.count)
			rc = add_member(obj, "exclude", string_array(f->exclude.given, f->exclude.count));
	}
	if (rc != 0) {
		json_object_put(obj);
		return rc;
	}
	*out = obj;
	return 0;
}
