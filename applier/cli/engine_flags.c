/* engine_flags.c - the engine settings `apply` and `serve` share: one set of flags, one help text. */
#include <stdio.h>

#include "cli.h"

enum {
	OPT_BATCH_SIZE = DNSB_CLI_ENGINE_CODE, OPT_MAX_RETRIES, OPT_MAX_RATE_LIMIT_WAITS, OPT_SEED, OPT_BACKOFF_BASE,
	OPT_BACKOFF_CAP, OPT_TIMEOUT, OPT_METRICS_FILE, OPT_QUIET,
	OPT_MAX_UPDATE_PERCENT, OPT_MAX_DELETE_PERCENT, OPT_MIN_EXISTING, OPT_FORCE /* issue 33 §2 */
};

const dnsb_cli_option dnsb_cli_engine_options[] = {
	{ "batch-size", 1, OPT_BATCH_SIZE }, { "max-retries", 1, OPT_MAX_RETRIES },
	{ "max-rate-limit-waits", 1, OPT_MAX_RATE_LIMIT_WAITS }, { "seed", 1, OPT_SEED },
	{ "backoff-base", 1, OPT_BACKOFF_BASE }, { "backoff-cap", 1, OPT_BACKOFF_CAP }, { "timeout", 1, OPT_TIMEOUT },
	{ "metrics-file", 1, OPT_METRICS_FILE }, { "quiet", 0, OPT_QUIET },
	{ "max-update-percent", 1, OPT_MAX_UPDATE_PERCENT }, { "max-delete-percent", 1, OPT_MAX_DELETE_PERCENT },
	{ "min-existing-rrsets", 1, OPT_MIN_EXISTING }, { "force", 0, OPT_FORCE }, { NULL, 0, 0 }
};

static int usage_if(int failed)
{
	return failed ? DNSB_EXIT_USAGE : 0;
}

/* A whole number in [min, max]. @return 0 or DNSB_EXIT_USAGE */
static int whole(unsigned long *out, const char *name, const char *v, unsigned long min, unsigned long max)
{
	return usage_if(dnsb_cli_uint(out, name, v, min, max) < 0);
}

int dnsb_cli_engine_take(dnsb_cli_engine *e, int code, const char *name, const char *v)
{
	unsigned long n = 0;
	int rc = 0;

	switch (code) {
	case OPT_BATCH_SIZE:
		if ((rc = whole(&n, name, v, 1, 1000000)) == 0)
			e->opts.batch_size = n;
		return rc;
	case OPT_MAX_RETRIES:
		if ((rc = whole(&n, name, v, 0, 1000)) == 0)
			e->opts.max_retries = (unsigned)n;
		return rc;
	case OPT_MAX_RATE_LIMIT_WAITS:
		if ((rc = whole(&n, name, v, 0, 100000)) == 0)
			e->opts.max_rate_limit_waits = (unsigned)n;
		return rc;
	case OPT_SEED:
		if ((rc = whole(&n, name, v, 1, ~0UL)) == 0)
			e->opts.seed = n;
		return rc;
	case OPT_BACKOFF_BASE: return usage_if(dnsb_cli_seconds(&e->opts.backoff_base, name, v) < 0);
	case OPT_BACKOFF_CAP: return usage_if(dnsb_cli_seconds(&e->opts.backoff_cap, name, v) < 0);
	case OPT_TIMEOUT:
		e->timeout_set = 1;
		return usage_if(dnsb_cli_seconds(&e->opts.timeout, name, v) < 0);
	case OPT_METRICS_FILE: e->metrics_file = v; return 0;
	case OPT_QUIET: e->quiet = 1; return 0;
	case OPT_FORCE: e->thresholds.force = 1; return 0;
	case OPT_MAX_UPDATE_PERCENT: case OPT_MAX_DELETE_PERCENT: case OPT_MIN_EXISTING:
		if (dnsb_thresholds_set(&e->thresholds, code == OPT_MAX_UPDATE_PERCENT ? 'u' : code == OPT_MAX_DELETE_PERCENT
					? 'd' : 'm', v) == 0)
			return 0;
		fprintf(stderr, "dnsbatch: --%s: expected %s or ZONE=%s (at most %d zones), got '%s'\n", name,
			code == OPT_MIN_EXISTING ? "N" : "PERCENT (0-100)", code == OPT_MIN_EXISTING ? "N" : "PERCENT",
			DNSB_THRESHOLD_ZONES_MAX, v);
		return DNSB_EXIT_USAGE;
	default:
		fprintf(stderr, "dnsbatch: engine flag code %d unknown (a bug)\n", code);
		return DNSB_EXIT_INTERNAL;
	}
}

void dnsb_cli_engine_help(FILE *f, int serve)
{
	fprintf(f,
		"engine settings (apply and serve):\n"
		"  --batch-size N           change groups per batch (default 1000)\n"
		"  --max-retries N          resubmissions after transient errors, per batch (default 5)\n"
		"  --max-rate-limit-waits N waits after rate limits, per batch (default 20)\n"
		"  --backoff-base SECONDS   first backoff ceiling (default 1)\n"
		"  --backoff-cap SECONDS    largest backoff (default 60); a Retry-After is a floor, capped\n"
		"                           at 10 x this and by the time left before the deadline\n"
		"  --seed N                 seed of the backoff jitter, for reproducible runs\n"
		"  --timeout SECONDS        %s\n"
		"  --metrics-file FILE      %s\n"
		"  --quiet                  only errors on stderr%s\n"
		"  --max-update-percent P   hold a zone's updates that change something when they pass P%% of\n"
		"                           its RRsets (default 30); ZONE=P for one zone (repeat the flag)\n"
		"  --max-delete-percent P   the same for deletes (default 30); ZONE=P for one zone\n"
		"  --min-existing-rrsets N  zones with fewer RRsets are never over a percentage (default 10);\n"
		"                           ZONE=N for one zone\n"
		"  --force                  hold nothing: thresholds off, the apex NS RRset may change\n"
		"                           (else always held)\n%s\n",
		serve ? "means nothing to serve: each POST /records has --apply-timeout"
		      : "give up on what is not applied by then (default: none)",
		serve ? "means nothing to serve: it serves /metrics on --metrics-listen"
		      : "write Prometheus metrics (node_exporter textfile), atomically",
		serve ? "" : " (no progress line either)",
		serve ? "                           held changes fail (503) until released by POST\n"
			"                           /release?digest=D on the webhook port (the digest is logged;\n"
			"                           valid 15 minutes)"
		      : "                           a zone over a threshold sends nothing: exit 2");
}
