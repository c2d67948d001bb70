/* serve.c - `dnsbatch serve`: the external-dns webhook provider until SIGTERM or SIGINT; SIGHUP reopens the drop log */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/dnsbatch.h"
#include "dnsbatch/webhook.h"
#include "applier/core/stop.h"
#include "applier/obs/events.h"
#include "cli.h"

#define MAX_LIST 64

struct serve_args {
	const char *listen, *metrics_listen;
	const char *include[MAX_LIST], *exclude[MAX_LIST], *allowed_hosts[MAX_LIST];
	size_t include_count, exclude_count, allowed_host_count;
	const char *regex_include, *regex_exclude;
	size_t max_body;
	double apply_timeout;
	double request_timeout; /* seconds to receive a whole request */
	double listing_max_age; /* --listing-max-age: seconds; 0 given = never (the webhook's < 0) */
	const char *txt_wildcard;  /* --txt-wildcard-replacement, or NULL */
	const char *txt_owner_id;  /* --txt-owner-id, or NULL */
	const char *drop_log;
	uint64_t drop_log_max;  /* bytes, 0 = no limit; SERVE_DROP_LOG_MAX_DEFAULT unless given */
	const char *log_format;
	const char *provider;
	dnsb_cli_engine eng;     /* the engine flags, shared with apply */
	double quarantine_initial, quarantine_max;
	dnsb_events_options events;  /* --events, --events-emit, --kubernetes-*: reasons 0 = off */
	dnsb_config *cfg;
};

/* The drop log of a sidecar that runs for months is rotated by default: FILE and FILE.1, 200 MiB at most. */
/* Seconds a POST /release stays valid for the next POST /records (issue 33 §2). */
#define SERVE_RELEASE_TTL 900.0
#define SERVE_DROP_LOG_MAX_DEFAULT (UINT64_C(100) << 20)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dnsbatch serve --provider NAME [provider flags] [options]\n"
		"\n"
		"Serve the external-dns webhook provider API (external-dns --provider=webhook).\n"
		"\n");
	dnsb_cli_options_help(f, dnsb_cli_serve_options, 31);
	fprintf(f, "  --%-29s print the version\n", "version");
	fprintf(f,
		"\n"
		"POST /records answers 204 when no change failed (conflicts are dropped and logged), 503 when some\n"
		"failed (external-dns retries next interval), 400 for a body that is not a plan, 413 over the cap.\n"
		"SIGTERM/SIGINT: stop accepting, finish the apply in flight, flush the drop log, exit 0.\n"
		"SIGHUP: reopen the drop log at its path (after logrotate moved it away).\n");
	fputc('\n', f);
	dnsb_cli_engine_help(f, 1);
	dnsb_cli_provider_help(f);
}

/* Bytes, with an optional binary suffix: "33554432", "32m", "32MiB". */
static int parse_size(size_t *out, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end != '\0' || v == 0)
		return -1;
	*out = (size_t)v;
	return 0;
}

static int bad(const char *flag, const char *value, const char *why)
{
	fprintf(stderr, "dnsbatch serve: --%s %s: %s\n", flag, value ? value : "", why);
	return DNSB_EXIT_USAGE;
}

/* Seconds > 0: a zero deadline or backoff would make the server useless. */
static int positive_seconds(double *out, const char *name, const char *value)
{
	if (dnsb_cli_seconds(out, name, value) != 0)
		return -1;
	if (!(*out > 0)) {
		bad(name, value, "must be more than 0");
		return -1;
	}
	return 0;
}

enum {
	OPT_PROVIDER = DNSB_CLI_CODE_MIN, OPT_LISTEN, OPT_METRICS_LISTEN, OPT_DOMAIN_FILTER, OPT_EXCLUDE_DOMAINS,
	OPT_REGEX_FILTER, OPT_REGEX_EXCLUSION, OPT_MAX_BODY, OPT_APPLY_TIMEOUT, OPT_REQUEST_TIMEOUT, OPT_LISTING_MAX_AGE,
	OPT_QUARANTINE_BACKOFF,
	OPT_QUARANTINE_MAX, OPT_DROP_LOG, OPT_LOG_FORMAT,
	OPT_DROP_LOG_MAX_SIZE, OPT_ALLOWED_HOST, OPT_TXT_WILDCARD, OPT_TXT_OWNER_ID,
	OPT_EVENTS, OPT_EVENTS_EMIT, OPT_EVENTS_REFRESH, OPT_K8S_API, OPT_K8S_CA, OPT_K8S_TOKEN
};

const dnsb_cli_option dnsb_cli_serve_options[] = {
	{ "provider", 1, OPT_PROVIDER, "NAME", "one of the providers below (--provider NAME --help: its flags)" },
	{ "listen", 1, OPT_LISTEN, "ADDR:PORT", "provider API (default " DNSB_WEBHOOK_LISTEN_DEFAULT ")" },
	{ "metrics-listen", 1, OPT_METRICS_LISTEN, "ADDR:PORT",
	  "/healthz and /metrics (default " DNSB_WEBHOOK_METRICS_LISTEN_DEFAULT "; \"\" = on --listen only)" },
	{ "allowed-host", 1, OPT_ALLOWED_HOST, "NAME",
	  "with --listen on a loopback address, also answer requests for this\nHost (repeatable; default: loopback "
	  "names and addresses only)" },
	{ "domain-filter", 1, OPT_DOMAIN_FILTER, "DOMAIN", "offer only these domains (repeatable, or comma-separated)" },
	{ "exclude-domains", 1, OPT_EXCLUDE_DOMAINS, "DOMAIN", "leave these domains out (repeatable, or comma-separated)" },
	{ "regex-domain-filter", 1, OPT_REGEX_FILTER, "RE", "offer names matching RE (RE2, Go syntax); not with the lists" },
	{ "regex-domain-exclusion", 1, OPT_REGEX_EXCLUSION, "RE", "leave out names matching RE" },
	{ "txt-wildcard-replacement", 1, OPT_TXT_WILDCARD, "S",
	  "as given to external-dns: the ownership TXT record of a wildcard\n\"*.D\" is \"a-S.D\"; GET /records returns it "
	  "with the wildcard" },
	{ "txt-owner-id", 1, OPT_TXT_OWNER_ID, "ID",
	  "as given to external-dns: records this owner holds are not counted\nas a foreign owner's "
	  "(dnsbatch_conflicting_owner_groups)" },
	{ "max-body-size", 1, OPT_MAX_BODY, "BYTES",
	  "larger POST bodies get 413; a GET /records answer over it is sent but\nwarned of and counted (external-dns's --webhook-provider-max-body-size)\n(default 33554432; k/m/g suffix = KiB/MiB/GiB)" },
	{ "apply-timeout", 1, OPT_APPLY_TIMEOUT, "SECONDS",
	  "answer POST /records within this (default 10); what is not\napplied by then is answered 503 and retried by "
	  "external-dns.\nGET /records lists within it too (503 past it: listed again next\nloop). "
	  "external-dns gives up after its read + write timeouts\n(5 s + 10 s) and exits: raise this only "
	  "with\nexternal-dns's --webhook-provider-write-timeout" },
	{ "listing-max-age", 1, OPT_LISTING_MAX_AGE, "SECONDS",
	  "the safety thresholds count a zone's RRsets from the listing\nGET /records made at most this long before "
	  "the POST /records\n(one external-dns loop: one listing; default 10; 0 = always\nlist anew)" },
	{ "request-timeout", 1, OPT_REQUEST_TIMEOUT, "SECONDS",
	  "a request must arrive whole (headers and body) within this,\nhowever steadily its bytes come (default 30), or "
	  "its\nconnection is closed; both ports" },
	{ "drop-log", 1, OPT_DROP_LOG, "FILE", "append dropped and failed changes (JSON Lines)" },
	{ "drop-log-max-size", 1, OPT_DROP_LOG_MAX_SIZE, "BYTES",
	  "past this size FILE is renamed FILE.1 (one kept) and a new FILE\nstarted; k/m/g suffix (default 100m, so a "
	  "long-running sidecar\nnever fills its volume: at most twice this on disk); 0 = no limit" },
	{ "log-format", 1, OPT_LOG_FORMAT, "text|json", "diagnostics on stderr (default text)" },
	{ "quarantine-backoff", 1, OPT_QUARANTINE_BACKOFF, "SECONDS", "first quarantine of a conflicting group (default 60)" },
	{ "quarantine-max", 1, OPT_QUARANTINE_MAX, "SECONDS", "longest quarantine (default 3600)" },
	{ "events", 0, OPT_EVENTS, NULL,
	  "post a Kubernetes Event on the object behind a record (its\nlabels.resource) when a change is dropped, "
	  "quarantined, held\nback or failed (off by default)" },
	{ "events-emit", 1, OPT_EVENTS_EMIT, "REASONS",
	  "only these: RecordDropped,RecordQuarantined,RecordHeld,RecordFailed" },
	{ "events-refresh", 1, OPT_EVENTS_REFRESH, "SECONDS",
	  "patch a repeating Event's series count at most this often\n(default 1800, as client-go; and once when stopping)" },
	{ "kubernetes-api", 1, OPT_K8S_API, "URL", "the API server (default: in-cluster, KUBERNETES_SERVICE_HOST/PORT)" },
	{ "kubernetes-ca-file", 1, OPT_K8S_CA, "FILE", "its CA (default: the service account's ca.crt in-cluster)" },
	{ "kubernetes-token-file", 1, OPT_K8S_TOKEN, "FILE",
	  "bearer token, re-read as it is rotated (default: the service\naccount's token)" },
	{ NULL, 0, 0, NULL, NULL }
};

/* Add v to a list of at most MAX_LIST. @return 0 or the exit code */
static int push(const char **list, size_t *count, const char *name, const char *v)
{
	if (*count == MAX_LIST)
		return bad(name, v, "too many");
	list[(*count)++] = v;
	return 0;
}

/* The Kubernetes Events flags. @return 0 or the exit code */
static int events_option(dnsb_events_options *e, int code, const char *name, const char *v)
{
	dnsb_error err = { 0 };

	switch (code) {
	case OPT_EVENTS: e->reasons = DNSB_EVENT_ALL; return 0;
	case OPT_K8S_API: e->api_url = v; return 0;
	case OPT_K8S_CA: e->ca_file = v; return 0;
	case OPT_K8S_TOKEN: e->token_file = v; return 0;
	case OPT_EVENTS_REFRESH: return positive_seconds(&e->refresh, name, v) != 0 ? DNSB_EXIT_USAGE : 0;
	default:
		return dnsb_events_parse_reasons(&e->reasons, v, &err) != 0 ? bad(name, v, err.message) : 0;
	}
}

static int on_option(void *ctx, int code, const char *name, const char *v)
{
	struct serve_args *a = ctx;

	switch (code) {
	case OPT_PROVIDER: a->provider = v; return 0;
	case OPT_LISTEN: a->listen = v; return 0;
	case OPT_METRICS_LISTEN: a->metrics_listen = v; return 0;
	case OPT_REGEX_FILTER: a->regex_include = v; return 0;
	case OPT_REGEX_EXCLUSION: a->regex_exclude = v; return 0;
	case OPT_DROP_LOG: a->drop_log = v; return 0;
	case OPT_LOG_FORMAT: a->log_format = v; return 0;
	case OPT_DROP_LOG_MAX_SIZE: return dnsb_cli_bytes(&a->drop_log_max, name, v) != 0 ? DNSB_EXIT_USAGE : 0;
	case OPT_DOMAIN_FILTER: return push(a->include, &a->include_count, name, v);
	case OPT_EXCLUDE_DOMAINS: return push(a->exclude, &a->exclude_count, name, v);
	case OPT_ALLOWED_HOST: return push(a->allowed_hosts, &a->allowed_host_count, name, v);
	case OPT_MAX_BODY:
		if (parse_size(&a->max_body, v) != 0)
			return bad(name, v, "expected a number of bytes > 0 (suffix k, m or g allowed)");
		return 0;
	case OPT_APPLY_TIMEOUT:
		return positive_seconds(&a->apply_timeout, name, v) != 0 ? DNSB_EXIT_USAGE : 0;
	case OPT_TXT_WILDCARD:
		a->txt_wildcard = v;
		return 0;
	case OPT_TXT_OWNER_ID:
		a->txt_owner_id = v;
		return 0;
	case OPT_REQUEST_TIMEOUT:
		return positive_seconds(&a->request_timeout, name, v) != 0 ? DNSB_EXIT_USAGE : 0;
	case OPT_LISTING_MAX_AGE:
		if (dnsb_cli_seconds(&a->listing_max_age, name, v) != 0)
			return DNSB_EXIT_USAGE;
		a->listing_max_age = a->listing_max_age > 0 ? a->listing_max_age : -1.0;
		return 0;
	case OPT_QUARANTINE_BACKOFF:
		return positive_seconds(&a->quarantine_initial, name, v) != 0 ? DNSB_EXIT_USAGE : 0;
	case OPT_QUARANTINE_MAX:
		return positive_seconds(&a->quarantine_max, name, v) != 0 ? DNSB_EXIT_USAGE : 0;
	case OPT_EVENTS:
	case OPT_EVENTS_EMIT:
	case OPT_EVENTS_REFRESH:
	case OPT_K8S_API:
	case OPT_K8S_CA:
	case OPT_K8S_TOKEN:
		return events_option(&a->events, code, name, v);
	default:
		fprintf(stderr, "dnsbatch serve: unknown argument '%s' (see --help)\n", v);
		return DNSB_EXIT_USAGE;
	}
}

/* @return -1 to go on, else the exit code */
static int parse_args(struct serve_args *a, int argc, char **argv)
{
	int rc = dnsb_cli_parse("serve", argc, argv, dnsb_cli_serve_options, &a->eng, a->cfg, usage, on_option, a);

	if (rc >= 0)
		return rc;
	if (a->provider == NULL) {
		fprintf(stderr, "dnsbatch serve: --provider is required (see --help)\n");
		return DNSB_EXIT_USAGE;
	}
	if ((rc = dnsb_cli_check_provider_flags("serve", a->provider, a->cfg)) != 0)
		return rc;
	if (a->eng.timeout_set)
		dnsb_log(DNSB_LOG_WARN, "--timeout means nothing to serve (each POST /records has --apply-timeout): ignored");
	if (a->eng.metrics_file)
		dnsb_log(DNSB_LOG_WARN, "--metrics-file means nothing to serve (it serves /metrics): ignored");
	a->eng.opts.timeout = 0;
	if (a->quarantine_max < a->quarantine_initial)
		return bad("quarantine-max", NULL, "must not be less than --quarantine-backoff");
	return -1;
}

/* SIGHUP: the next drop goes to the file at the path; on failure, on to the old one. */
static void reopen_droplog(dnsb_droplog *droplog, const char *path)
{
	dnsb_error err = { 0 };

	if (droplog == NULL)
		dnsb_log(DNSB_LOG_INFO, "received SIGHUP: no drop log to reopen");
	else if (dnsb_droplog_reopen(droplog, &err) != 0)
		dnsb_log(DNSB_LOG_ERROR, "received SIGHUP: drop log not reopened, still writing to the old file: %s",
			 err.message);
	else
		dnsb_log(DNSB_LOG_INFO, "received SIGHUP: drop log reopened at %s", path);
}

static int zone_in_filter(void *filter, const char *apex)
{
	return dnsb_domain_filter_may_match_zone(filter, apex);
}

/*
 * Serve only the zones the domain filter leaves a name in (external-dns's
 * providers narrow their zone lists the same way). None left is a mistake
 * in the flags: say which zones there were.
 * @return 0, or DNSB_EINVAL with err set
 */
static int narrow_zones(dnsb_provider *p, const dnsb_domain_filter *filter, dnsb_error *err)
{
	size_t before = dnsb_provider_zone_count(p), total = 0;
	char names[512] = "";

	for (size_t i = 0; i < before && total < sizeof(names); i++)
		total += (size_t)snprintf(names + total, sizeof(names) - total, "%s%s", i ? ", " : "",
					   dnsb_provider_zone(p, i));
	if (dnsb_provider_retain_zones(p, zone_in_filter, (void *)filter) == 0 && before > 0)
		return dnsb_error_set(err, DNSB_EINVAL, "no zone of provider %s lies within the domain filter "
				      "(its zones: %s)", dnsb_provider_name(p), names);
	if (dnsb_provider_zone_count(p) < before)
		dnsb_log(DNSB_LOG_INFO, "domain filter: serving %zu of %zu zones of provider %s",
			 dnsb_provider_zone_count(p), before, dnsb_provider_name(p));
	return 0;
}

/* Runs until SIGTERM or SIGINT; the server's threads inherit the blocked
 * mask, so the signal is taken here, by sigwait, and nowhere else. SIGHUP
 * reopens the drop log (logrotate's `create` mode moved it away). */
static int run(struct serve_args *a, dnsb_provider *provider, const dnsb_domain_filter *filter,
	       dnsb_droplog *droplog, dnsb_metrics *metrics, dnsb_quarantine *quarantine, dnsb_events *events,
	       const sigset_t *sigs)
{
	dnsb_webhook_options wo = DNSB_WEBHOOK_OPTIONS_INIT;
	dnsb_engine_options eo = a->eng.opts;
	dnsb_webhook *wh = NULL;
	dnsb_error err = { 0 };
	int sig = 0, rc;

	wo.listen = a->listen;
	wo.metrics_listen = a->metrics_listen;
	wo.filter = filter;
	wo.max_body_size = a->max_body;
	wo.apply_timeout = a->apply_timeout;
	wo.request_timeout = a->request_timeout;
	wo.listing_max_age = a->listing_max_age;
	wo.txt_wildcard_replacement = a->txt_wildcard;
	wo.txt_owner_id = a->txt_owner_id;
	wo.engine = &eo;
	a->eng.thresholds.whole_zone = 0; /* the sidecar: what is under the threshold applies, the rest waits */
	if (dnsb_release_new(&a->eng.thresholds.release, SERVE_RELEASE_TTL) < 0)
		return DNSB_EXIT_INTERNAL;
	eo.thresholds = &a->eng.thresholds;
	if (events) { /* --events: each apply's outcomes go to the recorder, through the engine's observer */
		eo.on_outcome = dnsb_events_on_outcome;
		eo.outcome_payload = events;
	}
	wo.metrics = metrics;
	wo.droplog = droplog;
	wo.quarantine = quarantine;
	wo.allowed_hosts = a->allowed_hosts;
	wo.allowed_host_count = a->allowed_host_count;
	rc = dnsb_webhook_start(&wh, provider, &wo, &err);
	if (rc != 0) {
		dnsb_log(DNSB_LOG_ERROR, "serve: %s", err.message[0] ? err.message : dnsb_strerror(rc));
		dnsb_release_free(a->eng.thresholds.release);
		return rc == DNSB_EINVAL ? DNSB_EXIT_USAGE : DNSB_EXIT_INTERNAL;
	}
	for (;;) {
		if (sigwait(sigs, &sig) != 0)
			continue;
		if (sig == SIGTERM || sig == SIGINT)
			break;
		if (sig == SIGHUP)
			reopen_droplog(droplog, a->drop_log);
	}
	dnsb_stop_request(); /* the rate budget's waits end at once: the apply in flight finishes sooner */
	dnsb_log(DNSB_LOG_INFO, "received %s: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	dnsb_webhook_free(wh);
	dnsb_release_free(a->eng.thresholds.release);
	dnsb_log(DNSB_LOG_INFO, "stopped");
	return DNSB_EXIT_OK;
}

int dnsb_cmd_serve(int argc, char **argv)
{
	struct serve_args a = { .eng = DNSB_CLI_ENGINE_INIT, .events = DNSB_EVENTS_OPTIONS_INIT };
	dnsb_domain_filter *filter = NULL;
	dnsb_provider *provider = NULL;
	dnsb_droplog *droplog = NULL;
	dnsb_metrics *metrics = NULL;
	dnsb_quarantine *quarantine = NULL;
	dnsb_events *events = NULL;
	dnsb_error err = { 0 };
	dnsb_log_format fmt;
	sigset_t sigs;
	int rc;

	a.listen = DNSB_WEBHOOK_LISTEN_DEFAULT;
	a.metrics_listen = DNSB_WEBHOOK_METRICS_LISTEN_DEFAULT;
	a.max_body = DNSB_WEBHOOK_MAX_BODY_DEFAULT;
	a.apply_timeout = DNSB_WEBHOOK_APPLY_TIMEOUT_DEFAULT;
	a.request_timeout = DNSB_WEBHOOK_REQUEST_TIMEOUT_DEFAULT;
	a.drop_log_max = SERVE_DROP_LOG_MAX_DEFAULT;
	a.quarantine_initial = 60.0;
	a.quarantine_max = 3600.0;
	if (dnsb_config_new(&a.cfg) != 0)
		return DNSB_EXIT_INTERNAL;
	rc = parse_args(&a, argc, argv);
	if (rc >= 0) {
		dnsb_config_free(a.cfg);
		return rc;
	}
	if (a.eng.quiet)
		dnsb_log_set_level(DNSB_LOG_ERROR);
	if (a.log_format) {
		if (dnsb_log_parse_format(&fmt, a.log_format) != 0) {
			dnsb_config_free(a.cfg);
			return bad("log-format", a.log_format, "expected text or json");
		}
		dnsb_log_set_format(fmt);
	}

	rc = dnsb_domain_filter_new(&filter, a.include, a.include_count, a.exclude, a.exclude_count,
				    a.regex_include, a.regex_exclude, &err);
	if (rc == 0)
		rc = dnsb_provider_open(&provider, a.provider, a.cfg, &err);
	if (rc == 0)
		rc = narrow_zones(provider, filter, &err);
	if (rc == 0 && a.drop_log) {
		dnsb_droplog_options dopts = DNSB_DROPLOG_OPTIONS_INIT;
		dopts.max_size = a.drop_log_max;
		rc = dnsb_droplog_open_ext(&droplog, a.drop_log, &dopts, &err);
	}
	if (rc == 0)
		rc = dnsb_metrics_new(&metrics);
	if (rc == 0)
		rc = dnsb_quarantine_new(&quarantine, a.quarantine_initial, a.quarantine_max);
	if (rc == 0 && a.events.reasons)
		rc = dnsb_events_start(&events, &a.events, metrics, &err);
	if (rc != 0) {
		dnsb_log(DNSB_LOG_ERROR, "serve: %s", err.message[0] ? err.message : dnsb_strerror(rc));
		rc = rc == DNSB_EINVAL || rc == DNSB_ENOTFOUND ? DNSB_EXIT_USAGE : DNSB_EXIT_INTERNAL;
	} else {
		/* A shell starts background jobs with SIGINT ignored; POSIX lets an
		 * ignored signal be discarded even while blocked, so restore the
		 * default action before waiting for it. */
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigemptyset(&sigs);
		sigaddset(&sigs, SIGTERM);
		sigaddset(&sigs, SIGINT);
		sigaddset(&sigs, SIGHUP);
		pthread_sigmask(SIG_BLOCK, &sigs, NULL);
		/* A client that hangs up must not kill the process. */
		signal(SIGPIPE, SIG_IGN);
		/* Without its pipe a stop wakes no wait (stop.h): the applies in flight would sleep theirs out. */
		if (dnsb_stop_init() < 0)
			dnsb_log(DNSB_LOG_WARN, "serve: no stop pipe (%s): a stop will not end the waits in flight", strerror(errno));
		rc = run(&a, provider, filter, droplog, metrics, quarantine, events, &sigs);
	}
	dnsb_events_stop(events, 3.0); /* what the API lacks, for 3 s at most */
	dnsb_droplog_free(droplog);
	dnsb_quarantine_free(quarantine);
	dnsb_metrics_free(metrics);
	dnsb_provider_free(provider);
	dnsb_domain_filter_free(filter);
	dnsb_config_free(a.cfg);
	return rc;
}
