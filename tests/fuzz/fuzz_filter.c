/*
 * fuzz_filter.c - libFuzzer: any bytes as the sidecar's domain filter and
 * the names it is asked about: line 1 --domain-filter, line 2
 * --exclude-domains (each one entry, commas splitting it into domains),
 * line 3 --regex-domain-filter, line 4 --regex-domain-exclusion (RE2, Go's
 * syntax; an empty line gives none), the other lines names. Each name is
 * matched (dnsb_domain_filter_match). Two promises are checked: a zone the
 * filter rules out (dnsb_domain_filter_may_match_zone 0) holds no name that
 * passes, starting with its apex; and the negotiation body of GET /
 * (dnsb_domain_filter_to_json), built into a filter again, judges every
 * name as the filter does: external-dns filters with what it is handed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "applier/webhook/re2.h"
#include "dnsbatch/webhook.h"
#include "fuzz_common.h"

#define NAMES_MAX 16

/* A list member of the negotiation body as entries, borrowed from the body. */
static size_t entries(json_object *body, const char *key, const char **out)
{
	json_object *a;
	size_t n = 0;

	if (!json_object_object_get_ex(body, key, &a))
		return 0;
	for (size_t i = 0; i < json_object_array_length(a) && n < 64; i++)
		out[n++] = json_object_get_string(json_object_array_get_idx(a, i));
	return n;
}

static const char *member(json_object *body, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(body, key, &v) ? json_object_get_string(v) : NULL;
}

/* The filter external-dns makes of the negotiation body judges the names as this one does. */
static void negotiated(const dnsb_domain_filter *f, char **names, size_t n)
{
	const char *inc[64], *exc[64];
	dnsb_domain_filter *again = NULL;
	json_object *body = NULL;
	size_t ni, ne;
	dnsb_error err;

	if (dnsb_domain_filter_to_json(&body, f) != 0)
		return;
	ni = entries(body, "include", inc);
	ne = entries(body, "exclude", exc);
	if (ni < 64 && ne < 64) {
		if (dnsb_domain_filter_new(&again, inc, ni, exc, ne, member(body, "regexInclude"),
					   member(body, "regexExclude"), &err) != 0) {
			fprintf(stderr, "the negotiation body %s does not build: %s\n", json_object_to_json_string(body),
				err.message);
			abort();
		}
		for (size_t i = 0; i < n; i++)
			if (dnsb_domain_filter_match(f, names[i]) != dnsb_domain_filter_match(again, names[i])) {
				fprintf(stderr, "'%s' judged otherwise through the negotiation body %s\n", names[i],
					json_object_to_json_string(body));
				abort();
			}
	}
	dnsb_domain_filter_free(again);
	json_object_put(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size), *rest = text, *line[4] = { NULL }, *names[NAMES_MAX];
	dnsb_domain_filter *f = NULL;
	size_t n = 0;
	dnsb_error err;
	dnsb_re2 *re;

	if (text == NULL)
		return 0;
	for (size_t k = 0; k < 4; k++)
		line[k] = rest ? strsep(&rest, "\n") : NULL;
	while (rest && n < NAMES_MAX)
		names[n++] = strsep(&rest, "\n");
	if (line[2] && (re = dnsb_re2_new(line[2], NULL, 0)) != NULL) {
		for (size_t i = 0; i < n; i++)
			(void)dnsb_re2_partial_match(re, names[i]);
		dnsb_re2_free(re);
	}
	if (dnsb_domain_filter_new(&f, (const char *const *)&line[0], line[0] && *line[0], (const char *const *)&line[1],
				   line[1] && *line[1], line[2], line[3], &err) == 0) {
		for (size_t i = 0; i < n; i++)
			if (!dnsb_domain_filter_may_match_zone(f, names[i]) && dnsb_domain_filter_match(f, names[i])) {
				fprintf(stderr, "zone '%s' ruled out, yet its apex passes\n", names[i]);
				abort();
			}
		negotiated(f, names, n);
	}
	dnsb_domain_filter_free(f);
	free(text);
	return 0;
}
