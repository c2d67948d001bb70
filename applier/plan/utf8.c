/*
 * utf8.c - every string of a JSON document (member names too) must be UTF-8.
 *
 * JSON text is UTF-8 (RFC 8259 §8.1), and external-dns's Go encoder never
 * sends anything else. json-c passes other octets through, so a name such as
 * "\xff\xfe\xc3(.example.com" would reach the zone as \255\254\195\(: refused
 * instead, naming where it is.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/plan.h"
#include "applier/plan/internal.h"

/* Length of the UTF-8 sequence at s (at most n octets), or 0 when it is not one (overlong forms,
 * surrogates and code points past U+10FFFF included). */
static size_t sequence_length(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 :
		     s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
	unsigned char lo = 0x80, hi = 0xbf;

	if (len == 0 || len > n)
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0; /* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f; /* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90; /* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (len > 1 && (s[1] < lo || s[1] > hi))
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* Offset of the first octet of s[0..n) that starts no valid sequence, or n. */
static size_t bad_offset(const char *s, size_t n)
{
	size_t i = 0, len;

	for (;;) {
		uint64_t word;
		/* ASCII, most of any plan: eight octets at a time while none has its high bit set. */
		while (i + 8 <= n && (memcpy(&word, s + i, 8), (word & 0x8080808080808080ULL) == 0))
			i += 8;
		while (i < n && (unsigned char)s[i] < 0x80)
			i++;
		if (i == n || (len = sequence_length((const unsigned char *)s + i, n - i)) == 0)
			return i;
		i += len;
	}
}

int dnsb_json_text_plainly_utf8(const char *json, size_t len)
{
	/* json-c copies a string's octets as they are, except escapes: \uXXXX may decode to what is not UTF-8 (a lone
	 * surrogate); the others are ASCII. */
	const char *p = json, *end = json + len;

	if (bad_offset(json, len) != len)
		return 0;
	while ((p = memchr(p, '\\', (size_t)(end - p))) != NULL && p + 1 < end) {
		if (p[1] == 'u')
			return 0;
		p += 2; /* the escape and the octet it escapes ("\\\\" is one) */
	}
	return 1;
}

static int report(char *where, size_t size, const char *path, const char *s, size_t n)
{
	size_t at = bad_offset(s, n);

	snprintf(where, size, "%s: not valid UTF-8 (octet 0x%02x at offset %zu)", path,
		 (unsigned)(unsigned char)s[at], at);
	return 1;
}

static int walk(struct json_object *v, char *path, size_t size, char *where, size_t wsize)
{
	size_t len = strlen(path);
	int found = 0;

	if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);
		size_t n = (size_t)json_object_get_string_len(v);
		return bad_offset(s, n) < n ? report(where, wsize, path, s, n) : 0;
	}
	if (json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; !found && i < json_object_array_length(v); i++) {
			snprintf(path + len, size - len, "[%zu]", i);
			found = walk(json_object_array_get_idx(v, i), path, size, where, wsize);
		}
	} else if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, key, val) {
			if (bad_offset(key, strlen(key)) < strlen(key)) {
				snprintf(path + len, size - len, " (a member name)");
				return report(where, wsize, path, key, strlen(key));
			}
			snprintf(path + len, size - len, ".%s", key);
			if ((found = walk(val, path, size, where, wsize)) != 0)
				break;
		}
	}
	path[len] = '\0';
	return found;
}

int dnsb_json_check_utf8(char *where, size_t size, struct json_object *doc)
{
	char path[512] = "$";

	if (size > 0)
		where[0] = '\0';
	return walk(doc, path, sizeof(path), where, size);
}
