/* webhook_filter.c - the domain filter negotiated on GET / (external-dns endpoint/domain_filter.go). */
#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/webhook.h"

struct dnsb_domain_filter {
	char **include;
	size_t include_count;
	char **exclude;
	size_t exclude_count;
	/* Kept as given: GET / must hand external-dns the same text to compile. */
	char *regex_include;
	char *regex_exclude;
	regex_t re_include;
	regex_t re_exclude;
	int has_re_include;
	int has_re_exclude;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* external-dns normalizeDomain: trim blanks and one trailing dot; we also
 * lower-case, as DNS names compare case-insensitively. */
static char *normalize(const char *s, size_t len)
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

/* Each entry may hold comma-separated domains; empty ones are dropped. */
static int add_domains(char ***list, size_t *count, const char *const *src, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = src[i];
		if (p == NULL)
			continue;
		for (;;) {
			const char *comma = strchr(p, ',');
			size_t len = comma ? (size_t)(comma - p) : strlen(p);
			char *d = normalize(p, len);
			if (d == NULL)
				return DNSB_ENOMEM;
			if (*d == '\0')
				free(d);
			else if (push(list, count, d) != 0)
				return DNSB_ENOMEM;
			if (comma == NULL)
				break;
			p = comma + 1;
		}
	}
	if (*count > 1)
		qsort(*list, *count, sizeof(**list), cmp_str);
	return 0;
}

static int compile(regex_t *re, int *has, char **keep, const char *src, const char *flag, dnsb_error *err)
{
	if (src == NULL || *src == '\0')
		return 0;
	int rc = regcomp(re, src, REG_EXTENDED | REG_NOSUB);
	if (rc != 0) {
		char why[128];
		regerror(rc, re, why, sizeof(why));
		return dnsb_error_set(err, DNSB_EINVAL, "--%s: cannot compile \"%s\": %s", flag, src, why);
	}
	*has = 1;
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
	if (add_domains(&f->include, &f->include_count, include, include_count) != 0 ||
	    add_domains(&f->exclude, &f->exclude_count, exclude, exclude_count) != 0) {
		dnsb_domain_filter_free(f);
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	rc = compile(&f->re_include, &f->has_re_include, &f->regex_include, regex_include,
		     "regex-domain-filter", err);
	if (rc == 0)
		rc = compile(&f->re_exclude, &f->has_re_exclude, &f->regex_exclude, regex_exclude,
			     "regex-domain-exclusion", err);
	if (rc == 0 && (f->has_re_include || f->has_re_exclude) && (f->include_count || f->exclude_count))
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
	for (size_t i = 0; i < f->include_count; i++)
		free(f->include[i]);
	for (size_t i = 0; i < f->exclude_count; i++)
		free(f->exclude[i]);
	free(f->include);
	free(f->exclude);
	if (f->has_re_include)
		regfree(&f->re_include);
	if (f->has_re_exclude)
		regfree(&f->re_exclude);
	free(f->regex_include);
	free(f->regex_exclude);
	free(f);
}

static int ends_with(const char *s, size_t slen, const char *suffix, size_t suflen)
{
	return slen >= suflen && memcmp(s + slen - suflen, suffix, suflen) == 0;
}

/* external-dns matchFilter. */
static int match_list(char *const *filters, size_t n, const char *name, int empty)
{
	size_t nlen = strlen(name);

	if (n == 0)
		return empty;
	for (size_t i = 0; i < n; i++) {
		const char *f = filters[i];
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

int dnsb_domain_filter_match(const dnsb_domain_filter *f, const char *name)
{
	char *n;
	int ok;

	if (f == NULL)
		return 1;
	n = normalize(name, strlen(name));
	if (n == NULL)
		return 0;
	if (f->has_re_include || f->has_re_exclude) {
		/* matchRegex: exclusion first, then inclusion when given. */
		if (f->has_re_exclude && regexec(&f->re_exclude, n, 0, NULL, 0) == 0)
			ok = 0;
		else if (f->has_re_include)
			ok = regexec(&f->re_include, n, 0, NULL, 0) == 0;
		else
			ok = 1;
	} else {
		ok = match_list(f->include, f->include_count, n, 1) &&
		     !match_list(f->exclude, f->exclude_count, n, 0);
	}
	free(n);
	return ok;
}

int dnsb_domain_filter_may_match_zone(const dnsb_domain_filter *f, const char *apex)
{
	char *z;
	int ok = 0;

	if (f == NULL || f->include_count == 0 || f->has_re_include || f->has_re_exclude)
		return 1;
	z = normalize(apex, strlen(apex));
	if (z == NULL)
		return 1;
	size_t zlen = strlen(z);
	for (size_t i = 0; i < f->include_count && !ok; i++) {
		const char *inc = f->include[i];
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
	if (f != NULL && (f->has_re_include || f->has_re_exclude)) {
		if (f->has_re_include)
			rc = add_member(obj, "regexInclude", json_object_new_string(f->regex_include));
		if (rc == 0 && f->has_re_exclude)
			rc = add_member(obj, "regexExclude", json_object_new_string(f->regex_exclude));
	} else if (f != NULL) {
		if (f->include_count)
			rc = add_member(obj, "include", string_array(f->include, f->include_count));
		if (rc == 0 && f->exclude_count)
			rc = add_member(obj, "exclude", string_array(f->exclude, f->exclude_count));
	}
	if (rc != 0) {
		json_object_put(obj);
		return rc;
	}
	*out = obj;
	return 0;
}
