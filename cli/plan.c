/*
 * plan.c - `dnsbatch plan` (issue 33 §1): what `apply` would do now, read
 * from the provider and written nowhere (dnsb_engine_options.preview); the
 * `outcomes` list that `plan` and `apply --output json` share; the digest of
 * the plan and of the live state read, which `apply --checksum` checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <openssl/evp.h>

#include "cli.h"

typedef struct plan_args {
	const char *plan, *provider, *output;
	dnsb_cli_engine eng;
	dnsb_config *cfg;
} plan_args;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dnsbatch plan --plan FILE --provider NAME [provider flags] [options]\n"
		"\n"
		"Preview: read the provider for the plan's names (one read per batch, as verify-before-drop\n"
		"reads) and say, for each change, what `apply` would do now: apply, already in effect,\n"
		"conflict (what is held, its owner), invalid, no zone, held (a safety threshold). Writes\n"
		"nothing. Ends with the checksum of the plan and of the live state read: `apply --checksum`\n"
		"applies only when both are unchanged.\n"
		"\n");
	dnsb_cli_options_help(f, dnsb_cli_plan_options, 25);
	fprintf(f, "\n"
		"exit: 0 everything would apply or is in effect; 3 some would be dropped; 2 usage error or\n"
		"some held by a threshold; 4 the provider could not be read; 1 internal error.\n"
		"\n");
	dnsb_cli_engine_help(f, 0);
	dnsb_cli_provider_help(f);
}

enum { OPT_PLAN = DNSB_CLI_CODE_MIN, OPT_PROVIDER, OPT_OUTPUT };

const dnsb_cli_option dnsb_cli_plan_options[] = {
	{ "plan", 1, OPT_PLAN, "FILE", "the plan (JSON)" },
	{ "provider", 1, OPT_PROVIDER, "NAME", "one of the providers below (--provider NAME --help: its flags)" },
	{ "output", 1, OPT_OUTPUT, "text|json", "json: {\"outcomes\": [...], \"zones\": [...], \"checksum\": ...} on stdout" },
	{ NULL, 0, 0, NULL, NULL }
};

static int on_option(void *ctx, int code, const char *name, const char *v)
{
	plan_args *a = ctx;

	(void)name;
	switch (code) {
	case OPT_PLAN: a->plan = v; return 0;
	case OPT_PROVIDER: a->provider = v; return 0;
	case OPT_OUTPUT: a->output = v; return 0;
	default:
		fprintf(stderr, "dnsbatch plan: unexpected argument '%s' (see --help)\n", v);
		return DNSB_EXIT_USAGE;
	}
}

/* "$.create[3]": the change's place in the plan. */
static void json_path(char *buf, size_t size, const dnsb_change *c)
{
	snprintf(buf, size, "$.%s[%zu]", c->kind == DNSB_CHANGE_CREATE ? "create" : c->kind == DNSB_CHANGE_UPDATE
		 ? "updateNew" : "delete", c->plan_index);
}

/* The outcome in apply's words; "held" for a change a threshold held. */
static const char *outcome_word(const dnsb_change *c)
{
	return c->outcome == DNSB_OUTCOME_FAILED && c->reason == DNSB_REASON_HELD ? "held" : dnsb_outcome_name(c->outcome);
}

json_object *dnsb_cli_outcomes(const dnsb_plan *plan)
{
	json_object *arr = json_object_new_array();
	char path[64];

	for (size_t i = 0; arr && i < dnsb_plan_count(plan); i++) {
		const dnsb_change *c = dnsb_plan_change((dnsb_plan *)plan, i);
		const dnsb_rrset *r = c->kind == DNSB_CHANGE_DELETE ? &c->old : &c->new_set;
		json_object *o = json_object_new_object();

		json_path(path, sizeof(path), c);
		json_object_object_add(o, "path", json_object_new_string(path));
		json_object_object_add(o, "kind", json_object_new_string(c->kind == DNSB_CHANGE_CREATE ? "create" :
					c->kind == DNSB_CHANGE_UPDATE ? "update" : "delete"));
		json_object_object_add(o, "dnsName", r->owner ? json_object_new_string(r->owner) : NULL);
		json_object_object_add(o, "recordType", json_object_new_string(r->type ? dnsb_type_name(r->type) : "unknown"));
		json_object_object_add(o, "outcome", json_object_new_string(outcome_word(c)));
		if (c->reason != DNSB_REASON_NONE)
			json_object_object_add(o, "reason", json_object_new_string(dnsb_reason_name(c->reason)));
		if (c->outcome == DNSB_OUTCOME_DROPPED)
			json_object_object_add(o, "cause", json_object_new_string(dnsb_cause_name(dnsb_change_cause(c))));
		if (c->txt_owner)
			json_object_object_add(o, "owner", json_object_new_string(c->txt_owner));
		if (c->message && c->outcome != DNSB_OUTCOME_APPLIED && c->outcome != DNSB_OUTCOME_ALREADY_APPLIED)
			json_object_object_add(o, "message", json_object_new_string(c->message));
		json_object_array_add(arr, o);
	}
	return arr;
}

int dnsb_cli_file_digest(char out[65], const char *path)
{
	unsigned char buf[65536], sum[32];
	unsigned len = 0;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	FILE *f = fopen(path, "rb");
	size_t n;
	int ok = md && f && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1;

	while (ok && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		EVP_DigestUpdate(md, buf, n);
	ok = ok && !ferror(f) && EVP_DigestFinal_ex(md, sum, &len) == 1;
	for (unsigned i = 0; ok && i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", sum[i]);
	if (f)
		fclose(f);
	EVP_MD_CTX_free(md);
	return ok ? 0 : -1;
}

int dnsb_cli_preview(dnsb_report *rep, dnsb_plan *plan, dnsb_provider *p, const dnsb_cli_engine *eng, char live[65],
		     dnsb_error *err)
{
	dnsb_engine_options o = eng->opts;

	o.preview = 1;
	o.dry_run = 0;
	o.thresholds = &eng->thresholds;
	o.live_digest = live;
	o.metrics = NULL;
	o.droplog = NULL;
	o.quarantine = NULL;
	o.on_batch = NULL;
	o.on_progress = NULL;
	o.on_outcome = NULL;
	live[0] = '\0';
	return dnsb_engine_apply(rep, p, plan, &o, err);
}

/* One change as a person reads it: what apply would do. */
static void print_change(FILE *f, const dnsb_change *c)
{
	const dnsb_rrset *r = c->kind == DNSB_CHANGE_DELETE ? &c->old : &c->new_set;
	char path[64];
	const char *what = c->outcome == DNSB_OUTCOME_APPLIED ? "apply"
			   : c->outcome == DNSB_OUTCOME_ALREADY_APPLIED ? "already in effect"
			   : c->reason == DNSB_REASON_CONFLICT ? "conflict"
			   : c->reason == DNSB_REASON_INVALID ? "invalid"
			   : c->reason == DNSB_REASON_NO_ZONE ? "no zone"
			   : c->reason == DNSB_REASON_HELD ? "held" : "unknown (the provider could not be read)";

	json_path(path, sizeof(path), c);
	fprintf(f, "%s %s %s %s: %s", path, c->kind == DNSB_CHANGE_CREATE ? "create" : c->kind == DNSB_CHANGE_UPDATE ?
		"update" : "delete", r->owner ? r->owner : "(no name)", r->type ? dnsb_type_name(r->type) : "unknown", what);
	if (c->outcome == DNSB_OUTCOME_DROPPED && c->reason == DNSB_REASON_CONFLICT)
		fprintf(f, " (%s%s%s)", dnsb_cause_name(dnsb_change_cause(c)), c->txt_owner ? ", owner " : "",
			c->txt_owner ? c->txt_owner : "");
	else if (c->message && c->outcome != DNSB_OUTCOME_APPLIED && c->outcome != DNSB_OUTCOME_ALREADY_APPLIED)
		fprintf(f, ": %s", c->message);
	fputc('\n', f);
}

static void print_text(const dnsb_report *r, const dnsb_plan *plan, const char *checksum)
{
	for (size_t i = 0; i < dnsb_plan_count(plan); i++)
		print_change(stderr, dnsb_plan_change((dnsb_plan *)plan, i));
	for (size_t i = 0; i < r->zone_count; i++) {
		const dnsb_zone_report *z = &r->zones[i];
		fprintf(stderr, "zone %s: %zu changes: %zu would apply, %zu already in effect, %zu would be dropped, %zu "
			"held or unread\n", z->zone[0] ? z->zone : "(none)", z->changes, z->applied, z->already_applied,
			z->dropped, z->failed);
	}
	fprintf(stderr, "checksum %s (apply --checksum %s applies only this plan on this live state)\n", checksum,
		checksum);
}

static void print_json(const dnsb_report *r, dnsb_plan *plan, const char *plan_digest, const char *live,
		       const char *checksum, int code)
{
	json_object *o = json_object_new_object(), *zones = json_object_new_array();

	json_object_object_add(o, "outcomes", dnsb_cli_outcomes(plan));
	for (size_t i = 0; i < r->zone_count; i++) {
		json_object *z = json_object_new_object();
		json_object_object_add(z, "zone", json_object_new_string(r->zones[i].zone));
		json_object_object_add(z, "changes", json_object_new_int64((int64_t)r->zones[i].changes));
		json_object_object_add(z, "applied", json_object_new_int64((int64_t)r->zones[i].applied));
		json_object_object_add(z, "already_applied", json_object_new_int64((int64_t)r->zones[i].already_applied));
		json_object_object_add(z, "dropped", json_object_new_int64((int64_t)r->zones[i].dropped));
		json_object_object_add(z, "failed", json_object_new_int64((int64_t)r->zones[i].failed));
		json_object_array_add(zones, z);
	}
	json_object_object_add(o, "zones", zones);
	json_object_object_add(o, "reads", json_object_new_int64((int64_t)r->reads));
	json_object_object_add(o, "plan_digest", json_object_new_string(plan_digest));
	json_object_object_add(o, "live_digest", json_object_new_string(live));
	json_object_object_add(o, "checksum", json_object_new_string(checksum));
	json_object_object_add(o, "exit_code", json_object_new_int(code));
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* Exit code of a preview, as apply's would be. */
static int code_of(int rc, const dnsb_report *r)
{
	return rc < 0 ? DNSB_EXIT_INTERNAL : r->held ? DNSB_EXIT_USAGE : r->failed ? DNSB_EXIT_FAILED
	       : r->dropped ? DNSB_EXIT_DROPPED : DNSB_EXIT_OK;
}

/* Preview `path` on p into *plan and *rep; the checksum "PLAN:LIVE" into checksum (130 bytes).
 * @return 0, or the exit code after saying why */
static int preview_file(dnsb_plan **plan, dnsb_report *rep, const char *path, dnsb_provider *p,
			const dnsb_cli_engine *eng, char plan_digest[65], char live[65], char checksum[130])
{
	dnsb_error err = { 0 };
	int rc;

	if (dnsb_cli_file_digest(plan_digest, path) < 0 || (rc = dnsb_plan_load(plan, path, &err)) < 0) {
		dnsb_log(DNSB_LOG_ERROR, "%s", err.message[0] ? err.message : "the plan cannot be read");
		return DNSB_EXIT_USAGE;
	}
	if ((rc = dnsb_cli_preview(rep, *plan, p, eng, live, &err)) < 0) {
		dnsb_log(DNSB_LOG_ERROR, "preview: %s", err.message);
		return DNSB_EXIT_INTERNAL;
	}
	snprintf(checksum, 130, "%s:%s", plan_digest, live);
	return 0;
}

int dnsb_cli_checksum_check(const char *want, const char *path, dnsb_provider *p, const dnsb_cli_engine *eng)
{
	char plan_digest[65], live[65], checksum[130];
	dnsb_plan *plan = NULL;
	dnsb_report rep = { 0 };
	int code = preview_file(&plan, &rep, path, p, eng, plan_digest, live, checksum);

	if (code == 0 && strcmp(want, checksum) != 0) {
		int plan_same = strncmp(want, plan_digest, 64) == 0 && want[64] == ':';
		dnsb_log(DNSB_LOG_ERROR, "--checksum: %s changed since the preview: nothing sent (run `dnsbatch plan` "
			 "again and check what it says)", !plan_same ? "the plan" : "the live state (the provider's "
			 "RRsets at the plan's names)");
		code = DNSB_EXIT_USAGE;
	}
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	return code;
}

int dnsb_cmd_plan(int argc, char **argv)
{
	plan_args a = { .eng = DNSB_CLI_ENGINE_INIT };
	char plan_digest[65] = "", live[65] = "", checksum[130] = "";
	dnsb_provider *p = NULL;
	dnsb_plan *plan = NULL;
	dnsb_report rep = { 0 };
	dnsb_error err = { 0 };
	int code;

	if (dnsb_config_new(&a.cfg) < 0)
		return DNSB_EXIT_INTERNAL;
	code = dnsb_cli_parse("plan", argc, argv, dnsb_cli_plan_options, &a.eng, a.cfg, usage, on_option, &a);
	if (code < 0 && (a.plan == NULL || a.provider == NULL)) {
		fprintf(stderr, "dnsbatch plan: --plan and --provider are required (see --help)\n");
		code = DNSB_EXIT_USAGE;
	}
	if (code < 0 && a.eng.quiet)
		dnsb_log_set_level(DNSB_LOG_ERROR);
	if (code < 0 && dnsb_provider_open(&p, a.provider, a.cfg, &err) < 0) {
		dnsb_log(DNSB_LOG_ERROR, "provider %s: %s", a.provider, err.message);
		code = DNSB_EXIT_USAGE;
	}
	if (code < 0 && (code = preview_file(&plan, &rep, a.plan, p, &a.eng, plan_digest, live, checksum)) == 0) {
		code = code_of(0, &rep);
		if (a.output && strcmp(a.output, "json") == 0)
			print_json(&rep, plan, plan_digest, live, checksum, code);
		if (!a.eng.quiet)
			print_text(&rep, plan, checksum);
	}
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
	dnsb_config_free(a.cfg);
	return code;
}
