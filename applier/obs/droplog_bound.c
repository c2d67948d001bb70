/*
 * droplog_bound.c - every name and value of a drop-log line within a bound.
 *
 * A line quotes what came in: a 1 MB dnsName dropped as invalid would be
 * written twice (in the message and in the change), 2 MB a line, as often as
 * a client sends it. A DNS name is at most 253 octets in presentation form
 * (255 in wire form), so a longer one is cut there; a target (RDATA) at
 * 65535 octets, the most a record can hold; any other string at 4096. Each
 * cut is said in the line's "truncated" list: the field's path and its
 * original length, so no one mistakes a cut name for what was sent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/common.h"
#include "dnsbatch/droplog.h"
#include "applier/obs/droplog_bound.h"

#define NAME_MAX_OCTETS 253
#define TARGET_MAX_OCTETS 65535
#define TEXT_MAX_OCTETS 4096

/* The bound of a string reached by `key` ("dnsName", "targets" for its items, else any). */
static size_t bound_of(const char *key)
{
	if (strcmp(key, "dnsName") == 0 || strcmp(key, "ownedRecord") == 0)
		return NAME_MAX_OCTETS;
	return strcmp(key, "targets") == 0 ? TARGET_MAX_OCTETS : TEXT_MAX_OCTETS;
}

/* Where to cut s to at most max octets without splitting a UTF-8 sequence. */
static size_t cut_at(const char *s, size_t max)
{
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

/* Cut the string s to at most max octets. @return 0 or DNSB_ENOMEM */
static int cut_string(json_object *s, size_t max)
{
	char *kept = strndup(json_object_get_string(s), cut_at(json_object_get_string(s), max));
	int rc = kept && json_object_set_string(s, kept) ? 0 : DNSB_ENOMEM;

	free(kept);
	return rc;
}

/* Record one cut in `cuts` (may be NULL: only counting). @return 0 or DNSB_ENOMEM */
static int note_cut(json_object *cuts, const char *path, size_t octets)
{
	json_object *cut;

	if (cuts == NULL)
		return 0;
	if ((cut = json_object_new_object()) == NULL || json_object_array_add(cuts, cut) != 0) {
		json_object_put(cut);
		return DNSB_ENOMEM;
	}
	if (json_object_object_add(cut, "field", json_object_new_string(path)) != 0 ||
	    json_object_object_add(cut, "octets", json_object_new_int64((int64_t)octets)) != 0)
		return DNSB_ENOMEM;
	return 0;
}

/*
 * Walk v (reached by `key`, at `path`), counting in *count the strings over
 * their bound; with `cuts` set, also cut them (v is then a private copy).
 * @return 0 or DNSB_ENOMEM
 */
static int walk(json_object *v, const char *key, char *path, size_t size, json_object *cuts, size_t *count)
{
	size_t len = strlen(path);
	int rc = 0;

	if (json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; rc == 0 && i < json_object_array_length(v); i++) {
			json_object *item = json_object_array_get_idx(v, i);
			size_t n = json_object_is_type(item, json_type_string) ? (size_t)json_object_get_string_len(item) : 0;
			snprintf(path + len, size - len, "[%zu]", i);
			if (n > bound_of(key)) {
				(*count)++;
				if ((rc = note_cut(cuts, path, n)) == 0 && cuts != NULL)
					rc = cut_string(item, bound_of(key));
			} else {
				rc = walk(item, key, path, size, cuts, count);
			}
		}
	} else if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, k, val) {
			size_t n = json_object_is_type(val, json_type_string) ? (size_t)json_object_get_string_len(val) : 0;
			snprintf(path + len, size - len, ".%s", k);
			if (n > bound_of(k)) {
				(*count)++;
				if ((rc = note_cut(cuts, path, n)) == 0 && cuts != NULL)
					rc = cut_string(val, bound_of(k));
			} else {
				rc = walk(val, k, path, size, cuts, count);
			}
			if (rc != 0)
				break;
		}
	}
	path[len] = '\0';
	return rc;
}

int dnsb_droplog_bound(json_object **line)
{
	json_object *copy = NULL, *cuts;
	char path[512] = "$";
	size_t count = 0;
	int rc;

	if ((rc = walk(*line, "", path, sizeof(path), NULL, &count)) != 0 || count == 0)
		return rc;
	/* The line shares the plan's endpoints: cut a copy, never the plan. */
	if (json_object_deep_copy(*line, &copy, NULL) != 0 || (cuts = json_object_new_array()) == NULL) {
		json_object_put(copy);
		return DNSB_ENOMEM;
	}
	if (json_object_object_add(copy, "truncated", cuts) != 0) {
		json_object_put(cuts);
		json_object_put(copy);
		return DNSB_ENOMEM;
	}
	if ((rc = walk(copy, "", path, sizeof(path), cuts, &count)) != 0) {
		json_object_put(copy);
		return rc;
	}
	json_object_put(*line);
	*line = copy;
	return 0;
}
