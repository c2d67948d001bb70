/* apply.c - `dnsbatch apply`: one plan file, once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"

typedef struct apply_args {
	const char *plan, *provider, *drop_log, *metrics_file, *output, *log_format;
	int dry_run, quiet;
	uint64_t drop_log_max;  /* bytes, 0 = no limit */
	dnsb_engine_options opts;
	dnsb_config *cfg;
} apply_args;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dnsbatch apply --plan FILE --provider NAME [provider flags] [options]\n"
		"\n"
		"Apply a plan (the external-dns webhook POST /records body: create, updateOld, updateNew,\n"
		"delete, either capitalisation) to the provider's zones. Conflicting change groups are\n"
		"isolated by bisection, verified against the provider, then dropped and logged.\n"
		"\n"
		"  --plan FILE              the plan (JSON)\n"
		"  --provider NAME          one of the providers below (their flags follow)\n"
		"  --batch-size N           change groups per batch (default 1000)\n"
		"  --max-retries N          resubmissions after transient errors (default 5)\n"
		"  --max-rate-limit-waits N waits after rate limits, per batch (default 20)\n"
		"  --backoff-base SECONDS   first backoff ceiling (default 1)\n"
		"  --backoff-cap SECONDS    largest backoff (default 60); a Retry-After is a floor, capped\n"
		"                           at 10 x this and by the time left before --timeout\n"
		"  --timeout SECONDS        give up on what is not applied by then (default: none)\n"
		"  --seed N                 seed of the backoff jitter, for reproducible runs\n"
		"  --drop-log FILE          append dropped and failed changes (JSON Lines, re-playable)\n"
		"  --drop-log-max-size BYTES  past this size FILE is renamed FILE.1 (one kept) and a new\n"
		"                           FILE started; k/m/g suffix; 0 or absent = no limit\n"
		"  --metrics-file FILE      write Prometheus metrics (node_exporter textfile), atomically\n"
		"  --dry-run                validate, group and batch; print the batches; send nothing\n"
		"  --output text|json       summary format on stdout (text goes to stderr)\n"
		"  --log-format text|json   diagnostics on stderr (default text)\n"
		"  --quiet                  only errors on stderr\n"
		"\n"
		"exit: 0 all applied or already in effect, 2 usage or unreadable plan (nothing sent),\n"
		"3 some changes dropped (with --dry-run: some are invalid or in no zone), 4 some changes\n"
		"failed (retry later), 1 internal error.\n"
		"\n"
		"Secrets (TSIG keys) are read from files or the environment, never from the command line.\n");
	dnsb_cli_provider_help(f);
	fprintf(f, "\n--memory-faults SCRIPT: rules WHEN:ACTION[=SEC] separated by commas. WHEN is N, N-M, *\n"
		   "or pX (probability X); ACTION is latency=S, transient, commit-transient (commit, then 502),\n"
		   "rate-limit[=S] (429 with Retry-After S), fatal, conflict, wrong-hint (with --memory-hints,\n"
		   "a refusal names a change that is not a culprit), read-transient (WHEN counts reads and\n"
		   "lists, not submissions: that read fails with 503); plus seed=N.\n"
		   "Example: --memory-faults '2:commit-transient,p0.1:transient,seed=7'\n");
}

enum {
	OPT_PLAN = DNSB_CLI_CODE_MIN, OPT_PROVIDER, OPT_DROP_LOG, OPT_METRICS_FILE, OPT_OUTPUT, OPT_LOG_FORMAT,
	OPT_BATCH_SIZE, OPT_MAX_RETRIES, OPT_MAX_RATE_LIMIT_WAITS, OPT_SEED, OPT_BACKOFF_BASE, OPT_BACKOFF_CAP,
	OPT_TIMEOUT, OPT_DRY_RUN, OPT_QUIET, OPT_DROP_LOG_MAX_SIZE
};

static const dnsb_cli_option apply_options[] = {
	{ "plan", 1, OPT_PLAN }, { "provider", 1, OPT_PROVIDER }, { "drop-log", 1, OPT_DROP_LOG },
	{ "metrics-file", 1, OPT_METRICS_FILE }, { "output", 1, OPT_OUTPUT }, { "log-format", 1, OPT_LOG_FORMAT },
	{ "batch-size", 1, OPT_BATCH_SIZE }, { "max-retries", 1, OPT_MAX_RETRIES },
	{ "max-rate-limit-waits", 1, OPT_MAX_RATE_LIMIT_WAITS }, { "seed", 1, OPT_SEED },
	{ "backoff-base", 1, OPT_BACKOFF_BASE }, { "backoff-cap", 1, OPT_BACKOFF_CAP }, { "timeout", 1, OPT_TIMEOUT },
	{ "dry-run", 0, OPT_DRY_RUN }, { "quiet", 0, OPT_QUIET }, { "drop-log-max-size", 1, OPT_DROP_LOG_MAX_SIZE },
	{ NULL, 0, 0 }
};

/* A whole number in [min, max] into *out. @return 0 or DNSB_EXIT_USAGE */
static int take_uint(unsigned long *out, const char *name, const char *v, unsigned long min, unsigned long max)
{
	return dnsb_cli_uint(out, name, v, min, max) < 0 ? DNSB_EXIT_USAGE : 0;
}

static int take_seconds(double *out, const char *name, const char *v)
{
	return dnsb_cli_seconds(out, name, v) < 0 ? DNSB_EXIT_USAGE : 0;
}

static int on_option(void *ctx, int code, const char *name, const char *v)
{
	apply_args *a = ctx;
	unsigned long n = 0;
	int rc = 0;

	switch (code) {
	case OPT_PLAN: a->plan = v; break;
	case OPT_PROVIDER: a->provider = v; break;
	case OPT_DROP_LOG: a->drop_log = v; break;
	case OPT_METRICS_FILE: a->metrics_file = v; break;
	case OPT_OUTPUT: a->output = v; break;
	case OPT_LOG_FORMAT: a->log_format = v; break;
	case OPT_DRY_RUN: a->dry_run = 1; break;
	case OPT_QUIET: a->quiet = 1; break;
	case OPT_BATCH_SIZE:
		if ((rc = take_uint(&n, name, v, 1, 100000)) == 0)
			a->opts.batch_size = n;
		break;
	case OPT_MAX_RETRIES:
		if ((rc = take_uint(&n, name, v, 0, 1000)) == 0)
			a->opts.max_retries = (unsigned)n;
		break;
	case OPT_MAX_RATE_LIMIT_WAITS:
		if ((rc = take_uint(&n, name, v, 0, 100000)) == 0)
			a->opts.max_rate_limit_waits = (unsigned)n;
		break;
	case OPT_SEED:
		if ((rc = take_uint(&n, name, v, 1, ~0UL)) == 0)
			a->opts.seed = n;
		break;
	case OPT_BACKOFF_BASE: rc = take_seconds(&a->opts.backoff_base, name, v); break;
	case OPT_BACKOFF_CAP: rc = take_seconds(&a->opts.backoff_cap, name, v); break;
	case OPT_TIMEOUT: rc = take_seconds(&a->opts.timeout, name, v); break;
	case OPT_DROP_LOG_MAX_SIZE:
		rc = dnsb_cli_bytes(&a->drop_log_max, name, v) < 0 ? DNSB_EXIT_USAGE : 0;
		break;
	default:
		fprintf(stderr, "dnsbatch apply: unexpected argument '%s' (see --help)\n", v);
		rc = DNSB_EXIT_USAGE;
	}
	return rc;
}

/* @return -1 to go on, else the exit code */
static int parse_args(apply_args *a, int argc, char **argv)
{
	int rc = dnsb_cli_parse("apply", argc, argv, apply_options, a->cfg, usage, on_option, a);

	if (rc >= 0)
		return rc;
	if (a->plan == NULL || a->provider == NULL) {
		fprintf(stderr, "dnsbatch apply: --plan and --provider are required (see --help)\n");
		return DNSB_EXIT_USAGE;
	}
	if (a->output && strcmp(a->output, "text") != 0 && strcmp(a->output, "json") != 0) {
		fprintf(stderr, "dnsbatch apply: --output: expected text or json, got '%s'\n", a->output);
		return DNSB_EXIT_USAGE;
	}
	return -1;
}

static void change_line(FILE *f, const dnsb_change *c)
{
	const dnsb_rrset *r = c->kind == DNSB_CHANGE_DELETE ? &c->old : &c->new_set;

	fprintf(f, "  %-6s %s %u %s", c->kind == DNSB_CHANGE_CREATE ? "create" : c->kind == DNSB_CHANGE_UPDATE ? "update" : "delete",
		r->owner, r->ttl, dnsb_type_name(r->type));
	for (size_t i = 0; i < r->rdata_count; i++)
		fprintf(f, " %s%s", r->rdata[i], i + 1 < r->rdata_count ? "," : "");
	fputc('\n', f);
}

typedef struct dry_run_out {
	int json;
	json_object *batches;
} dry_run_out;

static void print_batch(void *payload, const char *zone, unsigned long batch_no, dnsb_change *const *changes, size_t n)
{
	dry_run_out *d = payload;

	if (!d->json) {
		printf("batch %lu zone %s: %zu changes\n", batch_no, zone, n);
		for (size_t i = 0; i < n; i++)
			change_line(stdout, changes[i]);
		return;
	}
	json_object *b = json_object_new_object(), *list = json_object_new_array();
	json_object_object_add(b, "batch", json_object_new_int64((int64_t)batch_no));
	json_object_object_add(b, "zone", json_object_new_string(zone));
	for (size_t i = 0; i < n; i++)
		json_object_array_add(list, dnsb_change_to_plan_json(changes[i]));
	json_object_object_add(b, "changes", list);
	json_object_array_add(d->batches, b);
}

static void add_counts(json_object *o, size_t changes, size_t applied, size_t already, size_t dropped, size_t failed)
{
	json_object_object_add(o, "changes", json_object_new_int64((int64_t)changes));
	json_object_object_add(o, "applied", json_object_new_int64((int64_t)applied));
	json_object_object_add(o, "already_applied", json_object_new_int64((int64_t)already));
	json_object_object_add(o, "dropped", json_object_new_int64((int64_t)dropped));
	json_object_object_add(o, "failed", json_object_new_int64((int64_t)failed));
}

static void print_json(const dnsb_report *r, int exit_code, json_object *batches)
{
	json_object *o = json_object_new_object(), *zones = json_object_new_array();

	add_counts(o, r->changes, r->applied, r->already_applied, r->dropped, r->failed);
	json_object_object_add(o, "batches", json_object_new_int64((int64_t)r->batches));
	json_object_object_add(o, "submissions", json_object_new_int64((int64_t)r->submissions));
	json_object_object_add(o, "reads", json_object_new_int64((int64_t)r->reads));
	json_object_object_add(o, "retries", json_object_new_int64((int64_t)r->retries));
	json_object_object_add(o, "bisections", json_object_new_int64((int64_t)r->bisections));
	json_object_object_add(o, "backoff_seconds", json_object_new_double(r->backoff_seconds));
	for (size_t i = 0; i < r->zone_count; i++) {
		const dnsb_zone_report *z = &r->zones[i];
		json_object *zo = json_object_new_object();
		json_object_object_add(zo, "zone", json_object_new_string(z->zone));
		add_counts(zo, z->changes, z->applied, z->already_applied, z->dropped, z->failed);
		json_object_object_add(zo, "batches", json_object_new_int64((int64_t)z->batches));
		json_object_object_add(zo, "submissions", json_object_new_int64((int64_t)z->submissions));
		json_object_object_add(zo, "reads", json_object_new_int64((int64_t)z->reads));
		json_object_object_add(zo, "bisections", json_object_new_int64((int64_t)z->bisections));
		json_object_array_add(zones, zo);
	}
	json_object_object_add(o, "zones", zones);
	if (batches)
		json_object_object_add(o, "dry_run_batches", json_object_get(batches));
	json_object_object_add(o, "exit_code", json_object_new_int(exit_code));
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* The summary on stderr: plain lines for a person, or log lines when the logs are JSON. */
static void print_text(const dnsb_report *r, int dry_run, int json_logs)
{
	if (dry_run) {
		if (json_logs)
			dnsb_log(DNSB_LOG_INFO, "dry run: %zu changes, %lu batches, %zu dropped before sending; nothing sent",
				 r->changes, r->batches, r->dropped);
		else
			fprintf(stderr, "dnsbatch: dry run: %zu changes, %lu batches, %zu dropped before sending; nothing sent\n",
				r->changes, r->batches, r->dropped);
		return;
	}
#define SUMMARY_FMT "%zu changes: %zu applied, %zu already applied, %zu dropped, %zu failed " \
		    "(%lu batches, %lu submissions, %lu reads, %lu bisections, %lu retries, %.3f s waited)"
#define SUMMARY_ARGS r->changes, r->applied, r->already_applied, r->dropped, r->failed, r->batches, r->submissions, \
		     r->reads, r->bisections, r->retries, r->backoff_seconds
	if (json_logs)
		dnsb_log(DNSB_LOG_INFO, SUMMARY_FMT, SUMMARY_ARGS);
	else
		fprintf(stderr, "dnsbatch: " SUMMARY_FMT "\n", SUMMARY_ARGS);
	for (size_t i = 0; i < r->zone_count; i++) {
		const dnsb_zone_report *z = &r->zones[i];
		const char *name = *z->zone ? z->zone : "(no zone)";
		if (json_logs)
			dnsb_log(DNSB_LOG_INFO, "zone %s: %zu changes: %zu applied, %zu already applied, %zu dropped, %zu failed",
				 name, z->changes, z->applied, z->already_applied, z->dropped, z->failed);
		else
			fprintf(stderr, "  %-24s %zu changes: %zu applied, %zu already applied, %zu dropped, %zu failed\n",
				name, z->changes, z->applied, z->already_applied, z->dropped, z->failed);
	}
}

int dnsb_cmd_apply(int argc, char **argv)
{
	apply_args a = { .opts = DNSB_ENGINE_OPTIONS_INIT };
	dnsb_error err = { 0 };
	dnsb_provider *p = NULL;
	dnsb_plan *plan = NULL;
	dnsb_metrics *metrics = NULL;
	dnsb_budget_stats budget;
	dnsb_droplog *droplog = NULL;
	dnsb_droplog_options dopts = DNSB_DROPLOG_OPTIONS_INIT;
	dnsb_report report = { 0 };
	dry_run_out dry = { 0 };
	dnsb_log_format fmt;
	int code = DNSB_EXIT_USAGE, rc;

	if (dnsb_config_new(&a.cfg) < 0)
		return DNSB_EXIT_INTERNAL;
	if ((rc = parse_args(&a, argc, argv)) >= 0) {
		code = rc;
		goto done;
	}
	if (a.log_format) {
		if (dnsb_log_parse_format(&fmt, a.log_format) < 0) {
			fprintf(stderr, "dnsbatch apply: --log-format: expected text or json, got '%s'\n", a.log_format);
			goto done;
		}
		dnsb_log_set_format(fmt);
	}
	if (a.quiet)
		dnsb_log_set_level(DNSB_LOG_ERROR);
	if ((rc = dnsb_plan_load(&plan, a.plan, &err)) < 0) {
		dnsb_log(DNSB_LOG_ERROR, "%s", err.message);
		code = rc == DNSB_ENOMEM ? DNSB_EXIT_INTERNAL : DNSB_EXIT_USAGE;
		goto done;
	}
	if ((rc = dnsb_provider_open(&p, a.provider, a.cfg, &err)) < 0) {
		dnsb_log(DNSB_LOG_ERROR, "provider %s: %s", a.provider, err.message);
		code = rc == DNSB_ENOMEM ? DNSB_EXIT_INTERNAL : DNSB_EXIT_USAGE;
		goto done;
	}
	if ((rc = dnsb_metrics_new(&metrics)) < 0) {
		code = DNSB_EXIT_INTERNAL;
		goto done;
	}
	dopts.max_size = a.drop_log_max;
	if (a.drop_log && !a.dry_run && (rc = dnsb_droplog_open_ext(&droplog, a.drop_log, &dopts, &err)) < 0) {
		dnsb_log(DNSB_LOG_ERROR, "%s", err.message);
		goto done;
	}
	dry.json = a.output && strcmp(a.output, "json") == 0;
	if (a.dry_run) {
		a.opts.dry_run = 1;
		a.opts.on_batch = print_batch;
		a.opts.payload = &dry;
		if (dry.json)
			dry.batches = json_object_new_array();
	}
	a.opts.metrics = metrics;
	a.opts.droplog = droplog;
	rc = dnsb_engine_apply(&report, p, plan, &a.opts, &err);
	if (dnsb_provider_budget_stats(p, &budget) == 0)
		dnsb_metrics_set_budget(metrics, &budget);
	if (rc == DNSB_EINVAL) {
		dnsb_log(DNSB_LOG_ERROR, "%s", err.message);
		goto done;
	}
	if (rc < 0)
		dnsb_log(DNSB_LOG_ERROR, "apply: %s", err.message);
	code = rc < 0 ? DNSB_EXIT_INTERNAL
	       : report.failed ? DNSB_EXIT_FAILED
	       : report.dropped ? DNSB_EXIT_DROPPED : DNSB_EXIT_OK; /* a dry run too: invalid or out of every zone */
	if (droplog && dnsb_droplog_flush(droplog) < 0) {
		dnsb_log(DNSB_LOG_ERROR, "%s: the drop log could not be written", a.drop_log);
		code = DNSB_EXIT_INTERNAL;
	}
	if (a.metrics_file && !a.dry_run && dnsb_metrics_write_file(metrics, a.metrics_file, &err) < 0) {
		dnsb_log(DNSB_LOG_ERROR, "%s", err.message);
		code = DNSB_EXIT_INTERNAL;
	}
	if (dry.json || (a.output && strcmp(a.output, "json") == 0))
		print_json(&report, code, dry.batches);
	if (!a.quiet)
		print_text(&report, a.dry_run, a.log_format && strcmp(a.log_format, "json") == 0);
done:
	json_object_put(dry.batches);
	dnsb_report_clear(&report);
	dnsb_droplog_free(droplog);
	dnsb_metrics_free(metrics);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
	dnsb_config_free(a.cfg);
	return code;
}
