/* apply.c - `dnsbatch apply`: one plan file, once; SIGINT, SIGTERM, SIGHUP or SIGQUIT stops it between batches. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* sigaction */
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "cli.h"

typedef struct apply_args {
	const char *plan, *provider, *drop_log, *output, *log_format, *checksum;
	int dry_run;
	int summary;            /* --summary: the totals only, no dry run batches */
	uint64_t drop_log_max;  /* bytes, 0 = no limit */
	double progress_interval; /* seconds between progress lines off a terminal */
	dnsb_cli_engine eng;    /* the engine flags, shared with serve */
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
		"\n");
	dnsb_cli_options_help(f, dnsb_cli_apply_options, 25);
	fprintf(f, "  --%-23s print the version\n\n", "version");
	dnsb_cli_engine_help(f, 0);
	fprintf(f,
		"\n"
		"exit: 0 all applied or already in effect; 2 usage error, unreadable plan, unwritable\n"
		"drop log, metrics file or zone directory, or provider setup (credentials, server id,\n"
		"zones; a DNS server refusing the TSIG key or the zone before anything applied): nothing\n"
		"sent or applied; 3 some changes dropped (with --dry-run: some are invalid or in no\n"
		"zone); 4 some changes failed (retry later), or stopped by a signal; 1 internal error.\n"
		"SIGINT/SIGTERM/SIGHUP/SIGQUIT: finish the batch in flight (a wait - backoff, rate budget,\n"
		"provider pacing or throttle - ends at once, its request not sent), then stop: the changes\n"
		"not sent are failed (reason deadline), the summary, drop log and metrics are written as\n"
		"for a whole run.\n"
		"SIGUSR1/SIGUSR2 are ignored; SIGPIPE too (a closed stderr loses log lines, nothing else).\n"
		"\n"
		"Secrets (TSIG keys) are read from files or the environment, never from the command line.\n");
	dnsb_cli_provider_help(f);
	if (dnsb_cli_help_provider() && strcmp(dnsb_cli_help_provider(), "memory") != 0)
		return;
	fprintf(f, "\n--memory-faults SCRIPT: rules WHEN:ACTION[=SEC] separated by commas. WHEN is N, N-M, *\n"
		   "or pX (probability X); ACTION is latency=S, transient, commit-transient (commit, then 502),\n"
		   "rate-limit[=S] (429 with Retry-After S), fatal, conflict, wrong-hint (with --memory-hints,\n"
		   "a refusal names a change that is not a culprit), read-transient (WHEN counts reads and\n"
		   "lists, not submissions: that read fails with 503), write=RECORD (another client writes\n"
		   "RECORD, 'OWNER TTL [IN] TYPE RDATA' with an absolute OWNER and no ',' or ';', just before\n"
		   "the submission: it replaces that owner and type's RRset); plus seed=N.\n"
		   "Example: --memory-faults '2:commit-transient,p0.1:transient,seed=7'\n"
		   "         --memory-faults '1:write=www.example.test. 300 A 198.51.100.1'\n");
}

enum {
	OPT_PLAN = DNSB_CLI_CODE_MIN, OPT_PROVIDER, OPT_DROP_LOG, OPT_OUTPUT, OPT_LOG_FORMAT, OPT_DRY_RUN,
	OPT_DROP_LOG_MAX_SIZE, OPT_PROGRESS_INTERVAL, OPT_SUMMARY, OPT_CHECKSUM
};

const dnsb_cli_option dnsb_cli_apply_options[] = {
	{ "plan", 1, OPT_PLAN, "FILE", "the plan (JSON)" },
	{ "provider", 1, OPT_PROVIDER, "NAME", "one of the providers below (--provider NAME --help: its flags)" },
	{ "drop-log", 1, OPT_DROP_LOG, "FILE", "append dropped and failed changes (JSON Lines, re-playable)" },
	{ "drop-log-max-size", 1, OPT_DROP_LOG_MAX_SIZE, "BYTES",
	  "past this size FILE is renamed FILE.1 (one kept) and a new\nFILE started; k/m/g suffix; 0 or absent = no limit" },
	{ "dry-run", 0, OPT_DRY_RUN, NULL, "validate, group and batch; print the batches; send nothing" },
	{ "output", 1, OPT_OUTPUT, "text|json", "summary format on stdout (text goes to stderr)" },
	{ "log-format", 1, OPT_LOG_FORMAT, "text|json", "diagnostics on stderr (default text); json: progress as JSON lines" },
	{ "progress-interval", 1, OPT_PROGRESS_INTERVAL, "SECONDS",
	  "off a terminal, one progress line at most this often\n(default 10); on a terminal one line is redrawn in place" },
	{ "summary", 0, OPT_SUMMARY, NULL, "print the totals only (a dry run's batches are not listed)" },
	{ "checksum", 1, OPT_CHECKSUM, "PLAN:LIVE",
	  "apply only if the plan and the live state are those `dnsbatch plan`\nprinted this checksum for; else exit 2, nothing sent" },
	{ NULL, 0, 0, NULL, NULL }
};

static int on_option(void *ctx, int code, const char *name, const char *v)
{
	apply_args *a = ctx;
	int rc = 0;

	switch (code) {
	case OPT_PLAN: a->plan = v; break;
	case OPT_PROVIDER: a->provider = v; break;
	case OPT_DROP_LOG: a->drop_log = v; break;
	case OPT_OUTPUT: a->output = v; break;
	case OPT_LOG_FORMAT: a->log_format = v; break;
	case OPT_DRY_RUN: a->dry_run = 1; break;
	case OPT_SUMMARY: a->summary = 1; break;
	case OPT_CHECKSUM: a->checksum = v; break;
	case OPT_PROGRESS_INTERVAL:
		rc = dnsb_cli_seconds(&a->progress_interval, name, v) < 0 ? DNSB_EXIT_USAGE : 0;
		break;
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
	int rc = dnsb_cli_parse("apply", argc, argv, dnsb_cli_apply_options, &a->eng, a->cfg, usage, on_option, a);

	if (rc >= 0)
		return rc;
	if (a->plan == NULL || a->provider == NULL) {
		fprintf(stderr, "dnsbatch apply: --plan and --provider are required (see --help)\n");
		return DNSB_EXIT_USAGE;
	}
	if ((rc = dnsb_cli_check_provider_flags("apply", a->provider, a->cfg)) != 0)
		return rc;
	if (a->eng.metrics_file && !a->dry_run && dnsb_cli_check_output("apply", "metrics-file", a->eng.metrics_file) != 0)
		return DNSB_EXIT_USAGE;
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

/*
 * A dry run's batches. In JSON each batch is printed as it is cut, as an
 * element of the summary's "dry_run_batches" (the summary's other fields
 * follow at the end, print_json): a plan's batches are never all in memory.
 */
typedef struct dry_run_out {
	int json;
	int opened;  /* "{"dry_run_batches":[" printed and not yet closed */
	dnsb_plan_writer *writer; /* JSON: each change in plan form, to stdout */
} dry_run_out;

static void print_batch(void *payload, const char *zone, unsigned long batch_no, dnsb_change *const *changes, size_t n)
{
	dry_run_out *d = payload;

	if (!d->json) {
		printf("batch %lu zone %s: %zu change%s\n", batch_no, zone, n, DNSB_CLI_S(n));
		for (size_t i = 0; i < n; i++)
			change_line(stdout, changes[i]);
		return;
	}
	/* Written as it goes: {"batch":N,"zone":"...","changes":[...]}, each change serialised on its own. */
	json_object *z = json_object_new_string(zone);
	printf("%s{\"batch\":%lu,\"zone\":%s,\"changes\":[", d->opened ? "," : "{\"dry_run_batches\":[", batch_no,
	       z ? json_object_to_json_string_ext(z, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE) : "null");
	json_object_put(z);
	d->opened = 1;
	dnsb_plan_writer_changes(d->writer, changes, n); /* a change short of memory is written null */
	fputs("]}", stdout);
}

static void add_counts(json_object *o, size_t changes, size_t applied, size_t already, size_t dropped, size_t failed)
{
	json_object_object_add(o, "changes", json_object_new_int64((int64_t)changes));
	json_object_object_add(o, "applied", json_object_new_int64((int64_t)applied));
	json_object_object_add(o, "already_applied", json_object_new_int64((int64_t)already));
	json_object_object_add(o, "dropped", json_object_new_int64((int64_t)dropped));
	json_object_object_add(o, "failed", json_object_new_int64((int64_t)failed));
}

static void print_json(const dnsb_report *r, int exit_code, dry_run_out *dry, const dnsb_plan *plan)
{
	json_object *o = json_object_new_object(), *zones = json_object_new_array();
	const char *text;

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
	if (!dry->json && plan) /* change by change, as `dnsbatch plan` predicts them (issue 33 §1) */
		json_object_object_add(o, "outcomes", dnsb_cli_outcomes(plan));
	json_object_object_add(o, "exit_code", json_object_new_int(exit_code));
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	/* A dry run's batches were printed as they came: the summary's fields follow them in one object. */
	if (dry->json && !dry->opened)
		fputs("{\"dry_run_batches\":[", stdout);
	if (dry->json)
		printf("],%s\n", text + 1);
	else
		puts(text);
	dry->opened = 0;
	json_object_put(o);
}

/* The summary on stderr: plain lines for a person, or log lines when the logs are JSON. */
static void print_text(const dnsb_report *r, int dry_run, int json_logs)
{
	if (dry_run) {
		if (json_logs)
			dnsb_log(DNSB_LOG_INFO, "dry run: %zu change%s, %lu batch%s, %zu dropped before sending; nothing sent",
				 r->changes, DNSB_CLI_S(r->changes), r->batches, r->batches == 1 ? "" : "es", r->dropped);
		else
			fprintf(stderr, "dnsbatch: dry run: %zu change%s, %lu batch%s, %zu dropped before sending; nothing sent\n",
				r->changes, DNSB_CLI_S(r->changes), r->batches, r->batches == 1 ? "" : "es", r->dropped);
		return;
	}
#define SUMMARY_FMT "%zu change%s: %zu applied, %zu already applied, %zu dropped, %zu failed " \
		    "(%lu batch%s, %lu submission%s, %lu read%s, %lu bisection%s, %lu retr%s, %.3f s waited)"
#define SUMMARY_ARGS r->changes, DNSB_CLI_S(r->changes), r->applied, r->already_applied, r->dropped, r->failed, \
		     r->batches, r->batches == 1 ? "" : "es", r->submissions, DNSB_CLI_S(r->submissions), r->reads, \
		     DNSB_CLI_S(r->reads), r->bisections, DNSB_CLI_S(r->bisections), r->retries, DNSB_CLI_IES(r->retries), \
		     r->backoff_seconds
	if (json_logs)
		dnsb_log(DNSB_LOG_INFO, SUMMARY_FMT, SUMMARY_ARGS);
	else
		fprintf(stderr, "dnsbatch: " SUMMARY_FMT "\n", SUMMARY_ARGS);
	for (size_t i = 0; i < r->zone_count; i++) {
		const dnsb_zone_report *z = &r->zones[i];
		const char *name = *z->zone ? z->zone : "(no zone)";
		if (json_logs)
			dnsb_log(DNSB_LOG_INFO, "zone %s: %zu change%s: %zu applied, %zu already applied, %zu dropped, %zu failed",
				 name, z->changes, DNSB_CLI_S(z->changes), z->applied, z->already_applied, z->dropped, z->failed);
		else
			fprintf(stderr, "  %-24s %zu change%s: %zu applied, %zu already applied, %zu dropped, %zu failed\n",
				name, z->changes, DNSB_CLI_S(z->changes), z->applied, z->already_applied, z->dropped, z->failed);
	}
}

/* The signal that asked the apply to stop (SIGINT, SIGTERM, SIGHUP or SIGQUIT), 0 while none; the engine reads it
 * between batches, and the waits of the rate budget end at once (dnsb_stop_request). */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	if (!stop_signal)
		stop_signal = sig; /* a second signal changes nothing: the batch in flight still finishes */
	dnsb_stop_request();
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGQUIT";
}

/*
 * SIGINT, SIGTERM, SIGHUP (a closed terminal) and SIGQUIT stop the apply
 * between batches instead of killing it mid-write: the summary, drop log and
 * metrics are still written. SIGUSR1 and SIGUSR2 are ignored (nothing here
 * answers them). SIGPIPE is ignored: a log shipper that died must not kill the
 * run between writing a zone and writing its drop log; a log line to a closed
 * pipe is then lost (EPIPE), nothing else.
 */
static void catch_stop_signals(void)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;

	if (dnsb_stop_init() < 0)
		dnsb_log(DNSB_LOG_WARN, "no pipe for the stop signal (%s): a rate-budget wait runs its course",
			 strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		sigaction(stops[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
}

/* --log-format and --quiet. @return 0 or DNSB_EXIT_USAGE */
static int set_up_logs(const apply_args *a)
{
	dnsb_log_format fmt;

	if (a->log_format) {
		if (dnsb_log_parse_format(&fmt, a->log_format) < 0) {
			fprintf(stderr, "dnsbatch apply: --log-format: expected text or json, got '%s'\n", a->log_format);
			return DNSB_EXIT_USAGE;
		}
		dnsb_log_set_format(fmt);
	}
	if (a->eng.quiet)
		dnsb_log_set_level(DNSB_LOG_ERROR);
	return 0;
}

/* The exit code of a finished apply, the drop log flushed and the metrics file written. */
static int finish(const apply_args *a, int rc, dnsb_plan *plan, const dnsb_report *report, dnsb_droplog *droplog,
		  dnsb_metrics *metrics, dnsb_error *err)
{
	int code = rc < 0 ? DNSB_EXIT_INTERNAL
		   : report->held ? DNSB_EXIT_USAGE /* a safety threshold: the operator must pass --force (issue 33 §2) */
		   : report->failed ? DNSB_EXIT_FAILED
		   : report->dropped ? DNSB_EXIT_DROPPED : DNSB_EXIT_OK; /* a dry run too: invalid or out of every zone */
	const dnsb_change *fault = code == DNSB_EXIT_FAILED ? dnsb_cli_setup_fault(plan, report) : NULL;

	if (fault) {
		dnsb_log(DNSB_LOG_ERROR, "setup fault: provider %s refused the key or the zone (%s) before anything was "
			 "applied: fix the key, the server's policy or the zone, then run again (a retry alone meets the same "
			 "refusal)", a->provider, fault->code);
		code = DNSB_EXIT_USAGE;
	}

	if (rc < 0)
		dnsb_log(DNSB_LOG_ERROR, "apply: %s", err->message);
	if (stop_signal)
		dnsb_log(DNSB_LOG_WARN, "stopped by %s after the batch in flight: the changes not sent are counted failed; "
			 "run the same plan again to apply them", signal_name(stop_signal));
	if (droplog && dnsb_droplog_flush(droplog) < 0) {
		dnsb_log(DNSB_LOG_ERROR, "%s: the drop log could not be written", a->drop_log);
		code = DNSB_EXIT_INTERNAL;
	}
	dnsb_metrics_set_exit(metrics, code); /* so that a cron job's run can be alerted on */
	if (a->eng.metrics_file && !a->dry_run && dnsb_metrics_write_file(metrics, a->eng.metrics_file, err) < 0) {
		dnsb_log(DNSB_LOG_ERROR, "%s", err->message);
		code = DNSB_EXIT_INTERNAL;
	}
	return code;
}

/* A run that ends before the engine (the plan unreadable, the provider's setup refused): its metrics file still says
 * when and how it ended, for the alert on a cron job. */
static void early_metrics(const apply_args *a, int code)
{
	dnsb_metrics *m = NULL;
	dnsb_error err = { 0 };

	if (!a->eng.metrics_file || a->dry_run || code == DNSB_EXIT_OK || dnsb_metrics_new(&m) < 0)
		return;
	dnsb_metrics_set_last_apply(m, (double)(long long)dnsb_wall_clock());
	dnsb_metrics_set_exit(m, code);
	if (dnsb_metrics_write_file(m, a->eng.metrics_file, &err) < 0)
		dnsb_log(DNSB_LOG_ERROR, "%s", err.message);
	dnsb_metrics_free(m);
}

int dnsb_cmd_apply(int argc, char **argv)
{
	apply_args a = { .eng = DNSB_CLI_ENGINE_INIT, .progress_interval = 10.0 };
	dnsb_engine_options *o = &a.eng.opts;
	dnsb_error err = { 0 };
	dnsb_provider *p = NULL;
	dnsb_plan *plan = NULL;
	dnsb_metrics *metrics = NULL;
	dnsb_budget_stats budget;
	dnsb_droplog *droplog = NULL;
	dnsb_droplog_options dopts = DNSB_DROPLOG_OPTIONS_INIT;
	dnsb_report report = { 0 };
	dry_run_out dry = { 0 };
	dnsb_cli_progress progress;
	char unopened[DNSB_ERROR_MESSAGE_MAX]; /* why the provider could not be opened, when transient */
	int json_logs, code = DNSB_EXIT_USAGE, rc;

	if (dnsb_config_new(&a.cfg) < 0)
		return DNSB_EXIT_INTERNAL;
	if ((rc = parse_args(&a, argc, argv)) >= 0 || (rc = set_up_logs(&a)) != 0) {
		code = rc;
		goto done;
	}
	json_logs = a.log_format && strcmp(a.log_format, "json") == 0;
	catch_stop_signals(); /* before the provider opens: its probe may write, and wait on the rate budget */
	if ((rc = dnsb_plan_load(&plan, a.plan, &err)) < 0) {
		dnsb_log(DNSB_LOG_ERROR, "%s", err.message);
		code = rc == DNSB_ENOMEM ? DNSB_EXIT_INTERNAL : DNSB_EXIT_USAGE;
		early_metrics(&a, code);
		goto done;
	}
	if ((rc = dnsb_provider_open(&p, a.provider, a.cfg, &err)) < 0) {
		dnsb_log(DNSB_LOG_ERROR, "provider %s: %s (nothing was sent)", a.provider, err.message);
		if (rc != DNSB_ETRANSIENT || a.dry_run) {
			code = rc == DNSB_ENOMEM ? DNSB_EXIT_INTERNAL : rc == DNSB_ETRANSIENT ? DNSB_EXIT_FAILED
											  : DNSB_EXIT_USAGE;
			early_metrics(&a, code);
			goto done;
		}
		/* transient (a 5xx on the zone's first read): every change failed, told as an apply tells it */
		snprintf(unopened, sizeof(unopened), "%s", err.message);
	}
	if ((rc = dnsb_metrics_new(&metrics)) < 0) {
		code = DNSB_EXIT_INTERNAL;
		goto done;
	}
	dopts.max_size = a.drop_log_max;
	if (a.drop_log && !a.dry_run && (rc = dnsb_droplog_open_ext(&droplog, a.drop_log, &dopts, &err)) < 0) {
		dnsb_log(DNSB_LOG_ERROR, "%s (nothing was sent)", err.message);
		goto done;
	}
	dry.json = a.dry_run && !a.summary && a.output && strcmp(a.output, "json") == 0;
	if (dry.json && (dry.writer = dnsb_plan_writer_new(stdout)) == NULL) {
		code = DNSB_EXIT_INTERNAL;
		goto done;
	}
	if (a.dry_run) {
		o->dry_run = 1;
		o->on_batch = a.summary ? NULL : print_batch;
		o->payload = &dry;
	} else if (!a.eng.quiet) {
		dnsb_cli_progress_init(&progress, json_logs, a.progress_interval);
		o->on_progress = dnsb_cli_progress_show;
		o->progress_payload = &progress;
	}
	o->metrics = metrics;
	o->droplog = droplog;
	o->stop = &stop_signal;
	o->thresholds = &a.eng.thresholds;
	if (p && a.checksum && !a.dry_run && (code = dnsb_cli_checksum_check(a.checksum, a.plan, p, &a.eng)) != 0)
		goto done;
	if (p != NULL) {
		rc = dnsb_engine_apply(&report, p, plan, o, &err);
	} else if ((rc = dnsb_engine_fail_unopened(&report, plan, unopened, o, &err)) != DNSB_EINVAL &&
		   report.failed > 0) { /* the engine told each change; this says what to do */
		dnsb_log(DNSB_LOG_WARN, "%zu changes failed (transient): nothing was sent; apply the same plan again",
			 report.failed);
	}
	if (p && dnsb_provider_budget_stats(p, &budget) == 0)
		dnsb_metrics_set_budget(metrics, &budget);
	if (rc == DNSB_EINVAL) {
		dnsb_log(DNSB_LOG_ERROR, "%s", err.message);
		goto done;
	}
	code = finish(&a, rc, plan, &report, droplog, metrics, &err);
	if (a.output && strcmp(a.output, "json") == 0)
		print_json(&report, code, &dry, a.summary ? NULL : plan); /* --summary: the totals only */
	if (!a.eng.quiet)
		print_text(&report, a.dry_run, json_logs);
done:
	if (dry.opened)
		fputs("]}\n", stdout); /* no summary: the batches printed still make a document */
	dnsb_plan_writer_free(dry.writer);
	dnsb_report_clear(&report);
	dnsb_droplog_free(droplog);
	dnsb_metrics_free(metrics);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
	dnsb_config_free(a.cfg);
	return code;
}
