/* drops.c - `dnsbatch drops FILE`: summarise a drop log, or turn it back into a plan. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/droplog.h"
#include "applier/obs/droplog_read.h"
#include "applier/net/http.h"
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: dnsbatch drops FILE [--plan | --explain | --by FIELDS] [--outcome dropped|failed]\n"
		   "                      [--reason REASON]\n"
		   "       dnsbatch drops --url http://HOST:PORT\n"
		   "\n"
		   "Summarise a drop log (JSON Lines written by apply or serve): counts by zone,\n"
		   "outcome, reason and record type, or by the fields of --by (zone, outcome, reason,\n"
		   "type, cause, owner), e.g. --by cause,owner: what is in the way, and whose it is.\n"
		   "--explain prints each change with what is in its way; --plan prints instead one\n"
		   "plan holding the selected changes, ready for `dnsbatch apply --plan`.\n"
		   "--url asks a running `dnsbatch serve` (its provider port, 127.0.0.1:8888 by\n"
		   "default) what it holds back now (GET /quarantine) and prints it as a table,\n"
		   "newest first.\n\n");
	dnsb_cli_options_help(f, dnsb_cli_drops_options, 25);
	fprintf(f, "  --%-23s print the version\n", "version");
}

typedef struct drops_args {
	const char *path, *outcome, *reason, *by, *url;
	int as_plan, explain;
} drops_args;

enum { OPT_PLAN = DNSB_CLI_CODE_MIN, OPT_OUTCOME, OPT_REASON, OPT_BY, OPT_EXPLAIN, OPT_URL };

const dnsb_cli_option dnsb_cli_drops_options[] = {
	{ "plan", 0, OPT_PLAN, NULL, "print one plan holding the selected changes (for dnsbatch apply --plan)" },
	{ "explain", 0, OPT_EXPLAIN, NULL, "print each change with what is in its way" },
	{ "by", 1, OPT_BY, "FIELDS", "count by these fields: zone, outcome, reason, type, cause, owner" },
	{ "outcome", 1, OPT_OUTCOME, "dropped|failed", "only changes of this outcome" },
	{ "reason", 1, OPT_REASON, "REASON", "only changes of this reason" },
	{ "url", 1, OPT_URL, "http://HOST:PORT", "ask a running serve what it holds back now (GET /quarantine)" },
	{ NULL, 0, 0, NULL, NULL }
};

static const char *member(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

/* "dropped create taken.example.com. A: exists: held as ..., owner "other" (...)" for one drop log line. */
static void explain_line(struct json_object *entry)
{
	struct json_object *change = NULL, *current = NULL, *ep = NULL;
	const char *kind = "change", *name = NULL, *type = NULL, *sid, *cause = member(entry, "cause");
	char why[1024], fqdn[300];

	/* A change dropped only with its group names the change that was refused (its message says so). */
	const char *msg = member(entry, "message"), *with = NULL;

	if (cause && msg && strncmp(msg, "dropped with its group: ", 24) == 0 && strstr(msg, " was refused"))
		with = msg;
	json_object_object_get_ex(entry, "change", &change);
	json_object_object_foreach(change, key, list) {
		if (json_object_is_type(list, json_type_array) && json_object_array_length(list) > 0) {
			ep = json_object_array_get_idx(list, 0);
			kind = strcmp(key, "create") == 0 || strcmp(key, "Create") == 0 ? "create" :
			       strcmp(key, "delete") == 0 || strcmp(key, "Delete") == 0 ? "delete" : "update";
			break;
		}
	}
	name = ep ? member(ep, "dnsName") : NULL;
	type = ep ? member(ep, "recordType") : NULL;
	snprintf(fqdn, sizeof(fqdn), "%s%s", name ? name : "(no name)",
		 name && *name && name[strlen(name) - 1] != '.' ? "." : "");
	/* Conflicts carry what is in the way; other drops (invalid, no_zone) say why in their message. */
	if (cause && json_object_object_get_ex(entry, "current", &current))
		dnsb_drop_explain(why, sizeof(why), dnsb_drop_cause_words(cause, fqdn, type, member(entry, "zone")), fqdn,
				  type, current, member(entry, "owner"), member(entry, "owner_resource"));
	else
		snprintf(why, sizeof(why), "%s%s%s", cause ? cause : member(entry, "reason") ? member(entry, "reason") : "",
			 member(entry, "message") ? ": " : "", member(entry, "message") ? member(entry, "message") : "");
	sid = ep ? member(ep, "setIdentifier") : NULL;
	printf("%s %s %s %s%s%s%s: %s%s%.*s\n", member(entry, "outcome") ? member(entry, "outcome") : "?", kind, fqdn,
	       type ? type : "?", sid && *sid ? " set '" : "", sid && *sid ? sid : "", sid && *sid ? "'" : "", why,
	       with ? "; " : "", with ? (int)(strstr(with, " was refused") - with) + 12 : 0, with ? with : "");
}

/* "app.example.com A" for a held group's first change, "+N" for the others. */
static void group_names(char *buf, size_t size, struct json_object *g)
{
	struct json_object *changes = NULL, *first;
	size_t n;

	buf[0] = '\0';
	if (!json_object_object_get_ex(g, "changes", &changes) || !json_object_is_type(changes, json_type_array) ||
	    (n = json_object_array_length(changes)) == 0)
		return;
	first = json_object_array_get_idx(changes, 0);
	snprintf(buf, size, "%s %s%s", member(first, "dnsName") ? member(first, "dnsName") : "?",
		 member(first, "recordType") ? member(first, "recordType") : "?", n > 1 ? " +" : "");
	if (n > 1)
		snprintf(buf + strlen(buf), size - strlen(buf), "%zu", n - 1);
}

/* GET URL/quarantine from a running sidecar, through the providers' HTTP transport. @return the JSON list, or NULL */
static struct json_object *fetch_quarantine(const char *full)
{
	dnsb_http_options opts = DNSB_HTTP_OPTIONS_INIT;
	dnsb_http_request req = { "GET", full, NULL, NULL, 0, 0 };
	dnsb_http_response resp = { 0 };
	struct json_object *held = NULL;
	dnsb_http *h = NULL;
	dnsb_error e = { 0, "" };

	opts.timeout = 15;
	opts.max_body = (size_t)64 << 20;
	if (dnsb_http_new(&h, &opts, &e) == 0 && dnsb_http_do_uncounted(h, &req, &resp, &e) == 0) {
		if (resp.status != 200 || resp.truncated)
			dnsb_error_set(&e, DNSB_ERROR, "%s", resp.status != 200 ? "not 200 OK" : "more than 64 MiB");
		else if (!json_object_is_type(held = json_tokener_parse(resp.body), json_type_array))
			dnsb_error_set(&e, DNSB_EPARSE, "not a JSON list of quarantined groups");
	}
	if (e.code != 0) {
		fprintf(stderr, "dnsbatch drops: %s: %s\n", full, e.message);
		json_object_put(held);
		held = NULL;
	}
	dnsb_http_response_clear(&resp);
	dnsb_http_free(h);
	return held;
}

/* GET URL/quarantine from a running sidecar, printed as a table. @return the exit code */
static int print_quarantine(const char *url)
{
	char full[1024], names[320];
	struct json_object *held;

	snprintf(full, sizeof(full), "%s%squarantine", url, url[0] && url[strlen(url) - 1] == '/' ? "" : "/");
	if ((held = fetch_quarantine(full)) == NULL)
		return DNSB_EXIT_FAILED;
	printf("%-20s %-16s %-36s %-8s %-12s %-8s %s\n", "last_seen", "zone", "changes", "cause", "owner",
	       "attempts", "next_retry");
	for (size_t i = 0; i < json_object_array_length(held); i++) {
		struct json_object *g = json_object_array_get_idx(held, i), *attempts = NULL;
		group_names(names, sizeof(names), g);
		json_object_object_get_ex(g, "attempts", &attempts);
		printf("%-20s %-16s %-36s %-8s %-12s %-8d %s\n", member(g, "last_seen") ? member(g, "last_seen") : "-",
		       member(g, "zone") ? member(g, "zone") : "-", names, member(g, "cause") ? member(g, "cause") : "-",
		       member(g, "owner") ? member(g, "owner") : "-", json_object_get_int(attempts),
		       member(g, "next_retry") ? member(g, "next_retry") : "-");
	}
	printf("%zu groups held back by %s\n", json_object_array_length(held), url);
	json_object_put(held);
	return DNSB_EXIT_OK;
}

static void print_rows(const dnsb_drops *d)
{
	printf("%-8s", "count");
	for (size_t k = 0; k < d->by_count; k++)
		printf(" %-*s", k + 1 < d->by_count ? 24 : 0, d->by[k]);
	putchar('\n');
	for (size_t i = 0; i < d->row_count; i++) {
		printf("%-8lu", d->rows[i].count);
		for (size_t k = 0; k < d->by_count; k++)
			printf(" %-*s", k + 1 < d->by_count ? 24 : 0, d->rows[i].values[k]);
		putchar('\n');
	}
}

static int on_option(void *ctx, int code, const char *name, const char *v)
{
	drops_args *a = ctx;

	(void)name;
	switch (code) {
	case OPT_PLAN: a->as_plan = 1; return 0;
	case OPT_EXPLAIN: a->explain = 1; return 0;
	case OPT_BY: a->by = v; return 0;
	case OPT_URL: a->url = v; return 0;
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
	dnsb_drops_query q = { 0 };
	const char *fields[DNSB_DROPS_BY_MAX + 1];
	char by_buf[256];
	int code = DNSB_EXIT_USAGE, rc;
	dnsb_drops drops = { 0 };
	dnsb_error err = { 0, "" };
	FILE *f = NULL;

	if ((rc = dnsb_cli_parse("drops", argc, argv, dnsb_cli_drops_options, NULL, NULL, usage, on_option, &a)) >= 0)
		return rc;
	if (a.as_plan + a.explain + (a.by != NULL) > 1) {
		fprintf(stderr, "dnsbatch drops: --plan, --explain and --by are three outputs: give one\n");
		return DNSB_EXIT_USAGE;
	}
	if (a.url)
		return a.path ? (fprintf(stderr, "dnsbatch drops: a drop log or --url, not both\n"), DNSB_EXIT_USAGE)
			      : print_quarantine(a.url);
	if (a.path == NULL) {
		usage(stderr);
		return DNSB_EXIT_USAGE;
	}
	if (a.by && dnsb_drops_parse_by(fields, by_buf, sizeof(by_buf), a.by, &err) != 0) {
		fprintf(stderr, "dnsbatch drops: %s\n", err.message);
		return DNSB_EXIT_USAGE;
	}
	q = (dnsb_drops_query){ a.outcome, a.reason, a.by ? fields : NULL, a.explain };
	if ((f = fopen(a.path, "r")) == NULL) {
		fprintf(stderr, "dnsbatch drops: %s: %s\n", a.path, strerror(errno));
		return DNSB_EXIT_USAGE;
	}
	rc = dnsb_drops_read(&drops, f, a.path, &q, &err);
	if (rc != 0) {
		fprintf(stderr, "dnsbatch drops: %s\n", err.message);
		goto done;
	}
	if (a.as_plan) {
		puts(json_object_to_json_string_ext(drops.plan, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	} else if (a.explain) {
		for (size_t i = 0; i < json_object_array_length(drops.lines_kept); i++)
			explain_line(json_object_array_get_idx(drops.lines_kept, i));
		printf("%zu change%s in %s\n", drops.selected, DNSB_CLI_S(drops.selected), a.path);
	} else {
		print_rows(&drops);
		printf("%zu change%s in %s\n", drops.selected, DNSB_CLI_S(drops.selected), a.path);
	}
	code = DNSB_EXIT_OK;
done:
	fclose(f);
	dnsb_drops_clear(&drops);
	return code;
}
