/* drops.c - `dnsbatch drops FILE`: summarise a drop log, or turn it back into a plan. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "applier/obs/droplog_read.h"
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: dnsbatch drops FILE [--plan] [--outcome dropped|failed] [--reason REASON]\n"
		   "\n"
		   "Summarise a drop log (JSON Lines written by apply or serve): counts by zone,\n"
		   "outcome, reason and record type. With --plan, print instead one plan holding the\n"
		   "selected changes, ready for `dnsbatch apply --plan`.\n");
}

int dnsb_cmd_drops(int argc, char **argv)
{
	const char *path = NULL, *want_outcome = NULL, *want_reason = NULL;
	int as_plan = 0, code = DNSB_EXIT_USAGE, rc;
	dnsb_drops drops = { 0 };
	dnsb_error err = { 0, "" };
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
	rc = dnsb_drops_read(&drops, f, path, want_outcome, want_reason, &err);
	if (rc != 0) {
		fprintf(stderr, "dnsbatch drops: %s\n", err.message);
		goto done;
	}
	if (as_plan) {
		puts(json_object_to_json_string_ext(drops.plan, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		printf("%-8s %-24s %-10s %-12s %s\n", "count", "zone", "outcome", "reason", "type");
		for (size_t i = 0; i < drops.row_count; i++) {
			const dnsb_drops_row *row = &drops.rows[i];
			printf("%-8lu %-24s %-10s %-12s %s\n", row->count, row->zone, row->outcome, row->reason,
			       row->record_type);
		}
		printf("%zu changes in %s\n", drops.selected, path);
	}
	code = DNSB_EXIT_OK;
done:
	fclose(f);
	dnsb_drops_clear(&drops);
	return code;
}
