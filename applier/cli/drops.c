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

typedef struct drops_args {
	const char *path, *outcome, *reason;
	int as_plan;
} drops_args;

enum { OPT_PLAN = DNSB_CLI_CODE_MIN, OPT_OUTCOME, OPT_REASON };

static const dnsb_cli_option drops_options[] = {
	{ "plan", 0, OPT_PLAN }, { "outcome", 1, OPT_OUTCOME }, { "reason", 1, OPT_REASON }, { NULL, 0, 0 }
};

static int on_option(void *ctx, int code, const char *name, const char *v)
{
	drops_args *a = ctx;

	(void)name;
	switch (code) {
	case OPT_PLAN: a->as_plan = 1; return 0;
	case OPT_OUTCOME: a->outcome = v; return 0;
	case OPT_REASON: a->reason = v; return 0;
	default:
		if (a->path == NULL) {
			a->path = v;
			return 0;
		}
		fprintf(stderr, "dnsbatch drops: one drop log at a time ('%s' and '%s')\n", a->path, v);
		return DNSB_EXIT_USAGE;
	}
}

int dnsb_cmd_drops(int argc, char **argv)
{
	drops_args a = { 0 };
	int code = DNSB_EXIT_USAGE, rc;
	dnsb_drops drops = { 0 };
	dnsb_error err = { 0, "" };
	FILE *f = NULL;

	if ((rc = dnsb_cli_parse("drops", argc, argv, drops_options, NULL, usage, on_option, &a)) >= 0)
		return rc;
	if (a.path == NULL) {
		usage(stderr);
		return DNSB_EXIT_USAGE;
	}
	if ((f = fopen(a.path, "r")) == NULL) {
		fprintf(stderr, "dnsbatch drops: %s: %s\n", a.path, strerror(errno));
		return DNSB_EXIT_USAGE;
	}
	rc = dnsb_drops_read(&drops, f, a.path, a.outcome, a.reason, &err);
	if (rc != 0) {
		fprintf(stderr, "dnsbatch drops: %s\n", err.message);
		goto done;
	}
	if (a.as_plan) {
		puts(json_object_to_json_string_ext(drops.plan, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		printf("%-8s %-24s %-10s %-12s %s\n", "count", "zone", "outcome", "reason", "type");
		for (size_t i = 0; i < drops.row_count; i++) {
			const dnsb_drops_row *row = &drops.rows[i];
			printf("%-8lu %-24s %-10s %-12s %s\n", row->count, row->zone, row->outcome, row->reason,
			       row->record_type);
		}
		printf("%zu changes in %s\n", drops.selected, a.path);
	}
	code = DNSB_EXIT_OK;
done:
	fclose(f);
	dnsb_drops_clear(&drops);
	return code;
}
