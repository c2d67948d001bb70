/* serve.c - `dnsbatch serve`: run the external-dns webhook provider until SIGTERM or SIGINT. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/dnsbatch.h"
#include "dnsbatch/sys/provider.h"
#include "dnsbatch/webhook.h"

int dnsb_cmd_serve(int argc, char **argv);

/* Exit codes shared with `dnsbatch apply` (DESIGN §5). */
enum { EXIT_OK = 0, EXIT_INTERNAL = 1, EXIT_USAGE = 2 };

#define MAX_LIST 64

struct serve_args {
	const char *listen, *metrics_listen;
	const char *include[MAX_LIST], *exclude[MAX_LIST];
	size_t include_count, exclude_count;
	const char *regex_include, *regex_exclude;
	size_t max_body;
	double apply_timeout;
	const char *drop_log;
	const char *log_format;
	const char *provider;
	unsigned long batch_size, max_retries;
	double quarantine_initial, quarantine_max;
	dnsb_config *cfg;
};

static void usage(FILE *f)
{
	const dnsb_backend *const *b = dnsb_backends();

	fprintf(f,
		"usage: dnsbatch serve --provider NAME [provider flags] [options]\n"
		"\n"
		"Serve the external-dns webhook provider API (external-dns --provider=webhook).\n"
		"\n"
		"  --listen ADDR:PORT             provider API (default %s)\n"
		"  --metrics-listen ADDR:PORT     /healthz and /metrics (default %s; \"\" = on --listen only)\n"
		"  --domain-filter DOMAIN         offer only these domains (repeatable, or comma-separated)\n"
		"  --exclude-domains DOMAIN       leave these domains out (repeatable, or comma-separated)\n"
		"  --regex-domain-filter RE       offer names matching RE (POSIX extended); not with the lists\n"
		"  --regex-domain-exclusion RE    leave out names matching RE\n"
		"  --max-body-size BYTES          larger POST bodies get 413 (default 33554432; k/m/g suffix = KiB/MiB/GiB)\n"
		"  --apply-timeout SECONDS        deadline of one POST /records (default 50)\n"
		"  --drop-log FILE                append dropped and failed changes (JSON Lines)\n"
		"  --log-format text|json         diagnostics on stderr (default text)\n"
		"  --batch-size N                 change groups per batch (default 1000)\n"
		"  --max-retries N                resubmissions after transient errors (default 5)\n"
		"  --quarantine-backoff SECONDS   first quarantine of a conflicting group (default 60)\n"
		"  --quarantine-max SECONDS       longest quarantine (default 3600)\n"
		"\n"
		"POST /records answers 204 when no change failed (conflicts are dropped and logged), 503 when some\n"
		"failed (external-dns retries next interval), 400 for a body that is not a plan, 413 over the cap.\n"
		"SIGTERM/SIGINT: stop accepting, finish the apply in flight, flush the drop log, exit 0.\n",
		DNSB_WEBHOOK_LISTEN_DEFAULT, DNSB_WEBHOOK_METRICS_LISTEN_DEFAULT);
	for (size_t i = 0; b[i]; i++) {
		fprintf(f, "\nprovider %s: %s\n", b[i]->name, b[i]->summary);
		for (const dnsb_provider_flag *fl = b[i]->flags; fl && fl->name; fl++)
			fprintf(f, "  --%-28s %s\n", fl->name, fl->help);
	}
}

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

static int parse_seconds(double *out, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(v > 0))
		return -1;
	*out = v;
	return 0;
}

static int parse_count(unsigned long *out, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end != '\0' || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

static const dnsb_provider_flag *backend_flag(const dnsb_backend *b, const char *name)
{
	for (const dnsb_provider_flag *f = b ? b->flags : NULL; f && f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

/* The provider is named once, anywhere on the line; its flags are known
 * only once it is, so find it before parsing the rest. */
static const char *find_provider(int argc, char **argv)
{
	const char *name = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--provider") == 0 && i + 1 < argc)
			name = argv[++i];
		else if (strncmp(argv[i], "--provider=", 11) == 0)
			name = argv[i] + 11;
	}
	return name;
}

static int bad(const char *flag, const char *value, const char *why)
{
	fprintf(stderr, "dnsbatch serve: --%s %s: %s\n", flag, value ? value : "", why);
	return EXIT_USAGE;
}

static int parse_args(struct serve_args *a, int argc, char **argv)
{
	const dnsb_backend *backend;

	a->provider = find_provider(argc, argv);
	if (a->provider == NULL) {
		fprintf(stderr, "dnsbatch serve: --provider is required (try --help)\n");
		return EXIT_USAGE;
	}
	backend = dnsb_backend_find(a->provider);
	if (backend == NULL) {
		fprintf(stderr, "dnsbatch serve: unknown provider '%s'\n", a->provider);
		return EXIT_USAGE;
	}
	for (int i = 1; i < argc; i++) {
		char name[128];
		const char *arg = argv[i], *value = NULL, *eq;
		const dnsb_provider_flag *pf;
		int takes_value;

		if (strncmp(arg, "--", 2) != 0) {
			fprintf(stderr, "dnsbatch serve: unexpected argument '%s'\n", arg);
			return EXIT_USAGE;
		}
		arg += 2;
		eq = strchr(arg, '=');
		if ((eq ? (size_t)(eq - arg) : strlen(arg)) >= sizeof(name))
			return bad(arg, NULL, "unknown flag");
		snprintf(name, sizeof(name), "%.*s", (int)(eq ? eq - arg : (long)strlen(arg)), arg);
		if (strcmp(name, "help") == 0) {
			usage(stdout);
			return -1;
		}
		pf = backend_flag(backend, name);
		takes_value = pf ? pf->takes_value : 1;
		if (eq)
			value = eq + 1;
		else if (takes_value) {
			if (i + 1 >= argc)
				return bad(name, NULL, "needs a value");
			value = argv[++i];
		}
		if (pf) {
			if (dnsb_config_add(a->cfg, name, value ? value : "") != 0)
				return EXIT_INTERNAL;
		} else if (strcmp(name, "provider") == 0) {
			/* found by find_provider */
		} else if (strcmp(name, "listen") == 0) {
			a->listen = value;
		} else if (strcmp(name, "metrics-listen") == 0) {
			a->metrics_listen = value;
		} else if (strcmp(name, "domain-filter") == 0) {
			if (a->include_count == MAX_LIST)
				return bad(name, value, "too many");
			a->include[a->include_count++] = value;
		} else if (strcmp(name, "exclude-domains") == 0) {
			if (a->exclude_count == MAX_LIST)
				return bad(name, value, "too many");
			a->exclude[a->exclude_count++] = value;
		} else if (strcmp(name, "regex-domain-filter") == 0) {
			a->regex_include = value;
		} else if (strcmp(name, "regex-domain-exclusion") == 0) {
			a->regex_exclude = value;
		} else if (strcmp(name, "max-body-size") == 0) {
			if (parse_size(&a->max_body, value) != 0)
				return bad(name, value, "expected a number of bytes > 0");
		} else if (strcmp(name, "apply-timeout") == 0) {
			if (parse_seconds(&a->apply_timeout, value) != 0)
				return bad(name, value, "expected seconds > 0");
		} else if (strcmp(name, "quarantine-backoff") == 0) {
			if (parse_seconds(&a->quarantine_initial, value) != 0)
				return bad(name, value, "expected seconds > 0");
		} else if (strcmp(name, "quarantine-max") == 0) {
			if (parse_seconds(&a->quarantine_max, value) != 0)
				return bad(name, value, "expected seconds > 0");
		} else if (strcmp(name, "batch-size") == 0) {
			if (parse_count(&a->batch_size, value) != 0 || a->batch_size == 0)
				return bad(name, value, "expected a whole number > 0");
		} else if (strcmp(name, "max-retries") == 0) {
			if (parse_count(&a->max_retries, value) != 0)
				return bad(name, value, "expected a whole number");
		} else if (strcmp(name, "drop-log") == 0) {
			a->drop_log = value;
		} else if (strcmp(name, "log-format") == 0) {
			a->log_format = value;
		} else {
			return bad(name, NULL, "unknown flag (see dnsbatch serve --help)");
		}
	}
	if (a->quarantine_max < a->quarantine_initial)
		return bad("quarantine-max", NULL, "must not be less than --quarantine-backoff");
	return 0;
}

/* Runs until SIGTERM or SIGINT; the server's threads inherit the blocked
 * mask, so the signal is taken here, by sigwait, and nowhere else. */
static int run(struct serve_args *a, dnsb_provider *provider, const dnsb_domain_filter *filter,
	       dnsb_droplog *droplog, dnsb_metrics *metrics, dnsb_quarantine *quarantine, const sigset_t *sigs)
{
	dnsb_webhook_options wo = DNSB_WEBHOOK_OPTIONS_INIT;
	dnsb_engine_options eo = DNSB_ENGINE_OPTIONS_INIT;
	dnsb_webhook *wh = NULL;
	dnsb_error err = { 0 };
	int sig = 0, rc;

	if (a->batch_size)
		eo.batch_size = a->batch_size;
	if (a->max_retries != (unsigned long)-1)
		eo.max_retries = (unsigned)a->max_retries;
	wo.listen = a->listen;
	wo.metrics_listen = a->metrics_listen;
	wo.filter = filter;
	wo.max_body_size = a->max_body;
	wo.apply_timeout = a->apply_timeout;
	wo.engine = &eo;
	wo.metrics = metrics;
	wo.droplog = droplog;
	wo.quarantine = quarantine;
	rc = dnsb_webhook_start(&wh, provider, &wo, &err);
	if (rc != 0) {
		dnsb_log(DNSB_LOG_ERROR, "serve: %s", err.message[0] ? err.message : dnsb_strerror(rc));
		return rc == DNSB_EINVAL ? EXIT_USAGE : EXIT_INTERNAL;
	}
	while (sigwait(sigs, &sig) != 0 || (sig != SIGTERM && sig != SIGINT))
		;
	dnsb_log(DNSB_LOG_INFO, "received %s: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	dnsb_webhook_free(wh);
	dnsb_log(DNSB_LOG_INFO, "stopped");
	return EXIT_OK;
}

int dnsb_cmd_serve(int argc, char **argv)
{
	struct serve_args a = { 0 };
	dnsb_domain_filter *filter = NULL;
	dnsb_provider *provider = NULL;
	dnsb_droplog *droplog = NULL;
	dnsb_metrics *metrics = NULL;
	dnsb_quarantine *quarantine = NULL;
	dnsb_error err = { 0 };
	dnsb_log_format fmt;
	sigset_t sigs;
	int rc;

	a.listen = DNSB_WEBHOOK_LISTEN_DEFAULT;
	a.metrics_listen = DNSB_WEBHOOK_METRICS_LISTEN_DEFAULT;
	a.max_body = DNSB_WEBHOOK_MAX_BODY_DEFAULT;
	a.apply_timeout = DNSB_WEBHOOK_APPLY_TIMEOUT_DEFAULT;
	a.max_retries = (unsigned long)-1;
	a.quarantine_initial = 60.0;
	a.quarantine_max = 3600.0;
	if (dnsb_config_new(&a.cfg) != 0)
		return EXIT_INTERNAL;
	rc = parse_args(&a, argc, argv);
	if (rc != 0) {
		dnsb_config_free(a.cfg);
		return rc < 0 ? EXIT_OK : rc;
	}
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
	if (rc == 0 && a.drop_log)
		rc = dnsb_droplog_open(&droplog, a.drop_log, &err);
	if (rc == 0)
		rc = dnsb_metrics_new(&metrics);
	if (rc == 0)
		rc = dnsb_quarantine_new(&quarantine, a.quarantine_initial, a.quarantine_max);
	if (rc != 0) {
		dnsb_log(DNSB_LOG_ERROR, "serve: %s", err.message[0] ? err.message : dnsb_strerror(rc));
		rc = rc == DNSB_EINVAL || rc == DNSB_ENOTFOUND ? EXIT_USAGE : EXIT_INTERNAL;
	} else {
		sigemptyset(&sigs);
		sigaddset(&sigs, SIGTERM);
		sigaddset(&sigs, SIGINT);
		pthread_sigmask(SIG_BLOCK, &sigs, NULL);
		/* A client that hangs up must not kill the process. */
		signal(SIGPIPE, SIG_IGN);
		rc = run(&a, provider, filter, droplog, metrics, quarantine, &sigs);
	}
	dnsb_droplog_free(droplog);
	dnsb_quarantine_free(quarantine);
	dnsb_metrics_free(metrics);
	dnsb_provider_free(provider);
	dnsb_domain_filter_free(filter);
	dnsb_config_free(a.cfg);
	return rc;
}
