/*
 * engine_flags.c - the engine settings `apply` and `serve` share: one typed
 * table (dnsbatch/sys/flag.h) for the parse, the help text and `help --json`.
 * It calls the library only (common.c calls it, never the other way).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int take_timeout(void *settings, const char *v, dnsb_error *err)
{
	dnsb_cli_engine *e = settings;

	e->timeout_set = 1;
	return dnsb_parse_seconds(&e->opts.timeout, "timeout", v, err);
}

static int take_metrics_file(void *settings, const char *v, dnsb_error *err)
{
	(void)err;
	((dnsb_cli_engine *)settings)->metrics_file = v; /* argv's: it lives as long as the run */
	return 0;
}

/* --max-update-percent, --max-delete-percent, --min-existing-rrsets: N, or ZONE=N for one zone (issue 33 §2). */
static int take_threshold(void *settings, char which, const char *name, const char *v, dnsb_error *err)
{
	if (dnsb_thresholds_set(&((dnsb_cli_engine *)settings)->thresholds, which, v) == 0)
		return 0;
	return dnsb_error_set(err, DNSB_EINVAL, "--%s: expected %s or ZONE=%s (at most %d zones), got '%s'", name,
			      which == 'm' ? "N" : "PERCENT (0-100)", which == 'm' ? "N" : "PERCENT",
			      DNSB_THRESHOLD_ZONES_MAX, v);
}

static int take_max_update(void *settings, const char *v, dnsb_error *err)
{
	return take_threshold(settings, 'u', "max-update-percent", v, err);
}

static int take_max_delete(void *settings, const char *v, dnsb_error *err)
{
	return take_threshold(settings, 'd', "max-delete-percent", v, err);
}

static int take_min_existing(void *settings, const char *v, dnsb_error *err)
{
	return take_threshold(settings, 'm', "min-existing-rrsets", v, err);
}

#define AT(field) DNSB_FLAG_AT(dnsb_cli_engine, field)

const dnsb_flag dnsb_cli_engine_flags[] = {
	{ "batch-size", DNSB_FLAG_UINT, "N", "change groups per batch (default 1000)", "1000", 1, 1000000,
	  AT(opts.batch_size), 0, NULL, NULL, NULL },
	{ "max-retries", DNSB_FLAG_UINT, "N", "resubmissions after transient errors, per batch (default 5)", "5", 0,
	  1000, AT(opts.max_retries), 0, NULL, NULL, NULL },
	{ "max-rate-limit-waits", DNSB_FLAG_UINT, "N", "waits after rate limits, per batch (default 20)", "20", 0, 100000,
	  AT(opts.max_rate_limit_waits), 0, NULL, NULL, NULL },
	{ "backoff-base", DNSB_FLAG_SECONDS, "SECONDS", "first backoff ceiling (default 1)", "1", 0, 0,
	  AT(opts.backoff_base), 0, NULL, NULL, NULL },
	{ "backoff-cap", DNSB_FLAG_SECONDS, "SECONDS",
	  "largest backoff (default 60); a Retry-After is a floor, capped\n"
	  "at 10 x this and by the time left before the deadline", "60", 0, 0, AT(opts.backoff_cap), 0, NULL, NULL,
	  NULL },
	{ "seed", DNSB_FLAG_UINT, "N", "seed of the backoff jitter, for reproducible runs", NULL, 1, 0, AT(opts.seed), 0,
	  NULL, NULL, NULL },
	{ "timeout", DNSB_FLAG_CUSTOM, "SECONDS", "give up on what is not applied by then (default: none)", NULL, 0, 0, 0,
	  0, 0, NULL, NULL, take_timeout },
	{ "metrics-file", DNSB_FLAG_CUSTOM, "FILE", "write Prometheus metrics (node_exporter textfile), atomically", NULL,
	  0, 0, 0, 0, 0, NULL, NULL, take_metrics_file },
	{ "quiet", DNSB_FLAG_BOOL, NULL, "only errors on stderr (no progress line either)", NULL, 0, 0, AT(quiet), 0, NULL,
	  NULL, NULL },
	{ "max-update-percent", DNSB_FLAG_CUSTOM, "P",
	  "hold a zone's updates that change something when they pass P% of\nits RRsets (default 30); ZONE=P for one "
	  "zone (repeat the flag)", NULL, 0, 0, 0, 0, DNSB_FLAG_REPEAT, NULL, NULL, take_max_update },
	{ "max-delete-percent", DNSB_FLAG_CUSTOM, "P", "the same for deletes (default 30); ZONE=P for one zone", NULL, 0,
	  0, 0, 0, DNSB_FLAG_REPEAT, NULL, NULL, take_max_delete },
	{ "min-existing-rrsets", DNSB_FLAG_CUSTOM, "N",
	  "zones with fewer RRsets are never over a percentage (default 10);\nZONE=N for one zone", NULL, 0, 0, 0, 0,
	  DNSB_FLAG_REPEAT, NULL, NULL, take_min_existing },
	{ "force", DNSB_FLAG_BOOL, NULL,
	  "hold nothing: thresholds off, the apex NS RRset may change\n(else always held); one-shot: a zone over a "
	  "threshold sends nothing, exit 2", NULL, 0, 0, AT(thresholds.force), 0, NULL, NULL, NULL },
	DNSB_FLAG_END
};

int dnsb_cli_engine_take(dnsb_cli_engine *e, int code, const char *name, const char *v)
{
	size_t i = (size_t)(code - DNSB_CLI_ENGINE_CODE), n = 0;
	dnsb_error err = { 0, "" };

	while (dnsb_cli_engine_flags[n].name)
		n++;
	if (code < DNSB_CLI_ENGINE_CODE || i >= n || strcmp(dnsb_cli_engine_flags[i].name, name) != 0) {
		fprintf(stderr, "dnsbatch: engine flag code %d unknown (a bug)\n", code);
		return DNSB_EXIT_INTERNAL;
	}
	if (dnsb_flag_take(&dnsb_cli_engine_flags[i], e, v ? v : "", &err) != 0) {
		fprintf(stderr, "dnsbatch: %s\n", err.message);
		return DNSB_EXIT_USAGE;
	}
	return 0;
}

const char *dnsb_cli_engine_flag_help(const dnsb_flag *f, int serve)
{
	if (!serve)
		return f->help;
	if (strcmp(f->name, "timeout") == 0)
		return "means nothing to serve: each POST /records has --apply-timeout";
	if (strcmp(f->name, "metrics-file") == 0)
		return "means nothing to serve: it serves /metrics on --metrics-listen";
	if (strcmp(f->name, "quiet") == 0)
		return "only errors on stderr";
	if (strcmp(f->name, "force") == 0)
		return "hold nothing: thresholds off, the apex NS RRset may change\n(else always held); held changes fail "
		       "(503) until released by POST\n/release?digest=D on the webhook port (the digest is logged;\nvalid 15 "
		       "minutes)";
	return f->help;
}

void dnsb_cli_engine_help(FILE *f, int serve)
{
	dnsb_flag table[sizeof(dnsb_cli_engine_flags) / sizeof(dnsb_cli_engine_flags[0])];

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		table[i] = dnsb_cli_engine_flags[i];
		if (table[i].name)
			table[i].help = dnsb_cli_engine_flag_help(&table[i], serve);
	}
	fprintf(f, "engine settings (apply and serve):\n");
	dnsb_flags_help(f, table, 25);
}
