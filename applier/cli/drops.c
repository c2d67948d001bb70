/* drops.c - `dnsbatch drops FILE`: summarise a drop log, or turn it back into a plan. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: dnsbatch drops FILE [--plan] [--outcome dropped|failed] [--reason REASON]\n"
		   "\n"
		   "Summarise a drop log (JSON Lines written by apply or serve): counts by zone,\n"
		   "outcome, reason and record type. With --plan, print instead one plan holding the\n"
		   "selected changes, ready for `dnsbatch apply --plan`.\n");
}

static const char *str_field(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v) : "";
}

/* The record type of a change in plan form: the first endpoint's recordType. */
static const char *record_type(json_object *change)
{
	json_object_object_foreach(change, key, list) {
		(void)key;
		if (json_object_is_type(list, json_type_array) && json_object_array_length(list) > 0)
			return str_field(json_object_array_get_idx(list, 0), "recordType");
	}
	return "";
}

static void merge_into(json_object *plan, json_object *change)
{
	json_object_object_foreach(change, key, list) {
		json_object *dest;
		if (!json_object_is_type(list, json_type_array))
			continue;
		if (!json_object_object_get_ex(plan, key, &dest)) {
			dest = json_object_new_array();
			json_object_object_add(plan, key, dest);
		}
		for (size_t i = 0; i < json_object_array_length(list); i++)
			json_object_array_add(dest, json_object_get(json_object_array_get_idx(list, i)));
	}
}

int dnsb_cmd_drops(int argc, char **argv)
{
	const char *path = NULL, *want_outcome = NULL, *want_reason = NULL;
	int as_plan = 0, code = DNSB_EXIT_USAGE;
	json_object *counts = NULL, *plan = NULL, *seen = NULL;
	char *line = NULL;
	size_t cap = 0, lineno = 0, total = 0;
	FILE *f = NULL;

	for (int i = 1; i < argc; i++) {
		const char *v;
		int r;
		if (strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return DNSB_EXIT_OK;
		}
		if (strcmp(argv[i], "--plan") == 0) {
			as_plan = 1;
		} else if ((r = dnsb_cli_take(argc, argv, &i, "outcome", &v)) != 0) {
			if (r < 0)
				return DNSB_EXIT_USAGE;
			want_outcome = v;
		} else if ((r = dnsb_cli_take(argc, argv, &i, "reason", &v)) != 0) {
			if (r < 0)
				return DNSB_EXIT_USAGE;
			want_reason = v;
		} else if (argv[i][0] != '-' && path == NULL) {
			path = argv[i];
		} else {
			usage(stderr);
			return DNSB_EXIT_USAGE;
		}
	}
	if (path == NULL) {
		usage(stderr);
		return DNSB_EXIT_USAGE;
	}
	if ((f = fopen(path, "r")) == NULL) {
		fprintf(stderr, "dnsbatch drops: %s: %s\n", path, strerror(errno));
		return DNSB_EXIT_USAGE;
	}
	counts = json_object_new_object();
	plan = json_object_new_object();
	seen = json_object_new_object();
	while (getline(&line, &cap, f) > 0) {
		json_object *entry, *change;
		char key[512];

		lineno++;
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		entry = json_tokener_parse(line);
		if (entry == NULL || !json_object_is_type(entry, json_type_object) ||
		    !json_object_object_get_ex(entry, "change", &change) || !json_object_is_type(change, json_type_object)) {
			fprintf(stderr, "dnsbatch drops: %s:%zu: not a drop log line (a JSON object with a \"change\")\n",
				path, lineno);
			json_object_put(entry);
			goto done;
		}
		if ((want_outcome && strcmp(want_outcome, str_field(entry, "outcome")) != 0) ||
		    (want_reason && strcmp(want_reason, str_field(entry, "reason")) != 0)) {
			json_object_put(entry);
			continue;
		}
		total++;
		if (as_plan) {
			/* The log is appended to run after run: give each change once, or the replay conflicts with itself. */
			const char *text = json_object_to_json_string_ext(change, JSON_C_TO_STRING_PLAIN);
			if (json_object_object_get_ex(seen, text, NULL)) {
				json_object_put(entry);
				continue;
			}
			json_object_object_add(seen, text, NULL);
			merge_into(plan, change);
		} else {
			json_object *n;
			snprintf(key, sizeof(key), "%s\t%s\t%s\t%s", *str_field(entry, "zone") ? str_field(entry, "zone") : "-",
				 str_field(entry, "outcome"), str_field(entry, "reason"), record_type(change));
			if (json_object_object_get_ex(counts, key, &n))
				json_object_int_inc(n, 1);
			else
				json_object_object_add(counts, key, json_object_new_int64(1));
		}
		json_object_put(entry);
	}
	if (as_plan) {
		puts(json_object_to_json_string_ext(plan, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		printf("%-8s %-24s %-10s %-12s %s\n", "count", "zone", "outcome", "reason", "type");
		json_object_object_foreach(counts, k, v) {
			char zone[256] = "", outcome[32] = "", reason[32] = "", type[32] = "";
			sscanf(k, "%255[^\t]\t%31[^\t]\t%31[^\t]\t%31s", zone, outcome, reason, type);
			printf("%-8lld %-24s %-10s %-12s %s\n", (long long)json_object_get_int64(v), zone, outcome, reason, type);
		}
		printf("%zu changes in %s\n", total, path);
	}
	code = DNSB_EXIT_OK;
done:
	free(line);
	fclose(f);
	json_object_put(counts);
	json_object_put(plan);
	json_object_put(seen);
	return code;
}
