/* common.c - command-line helpers shared by the subcommands. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/provider.h"
#include "cli.h"

/* Provider flags get getopt codes from here on, table codes stay below. */
#define PROVIDER_CODE 1000

/* Every built-in provider's flags, in order. @return how many (at most max) */
static size_t provider_flags(const dnsb_provider_flag **out, size_t max)
{
	const dnsb_backend *const *b = dnsb_backends();
	size_t n = 0;

	for (size_t k = 0; b[k]; k++)
		for (const dnsb_provider_flag *f = b[k]->flags; f && f->name; f++)
			if (n < max)
				out[n++] = f;
	for (const dnsb_provider_flag *f = dnsb_backend_shared_flags(); f->name; f++)
		if (n < max)
			out[n++] = f;
	return n;
}

/* The option as the user wrote it, without a value: "--bogus" of "--bogus=1". */
static void print_bad(const char *cmd, const char *arg, int opt, int missing)
{
	char name[128];

	if (arg && arg[0] == '-' && arg[1] == '-')
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	else
		snprintf(name, sizeof(name), "-%c", opt > 32 && opt < 127 ? opt : '?');
	if (missing)
		fprintf(stderr, "dnsbatch %s: %s needs a value (see --help)\n", cmd, name);
	else
		fprintf(stderr, "dnsbatch %s: unknown option '%s' (see --help)\n", cmd, name);
}

int dnsb_cli_parse(const char *cmd, int argc, char **argv, const dnsb_cli_option *table, dnsb_config *cfg,
		   void (*usage)(FILE *), dnsb_cli_handler handler, void *ctx)
{
	const dnsb_provider_flag *pf[256];
	size_t nt = 0, np = cfg ? provider_flags(pf, sizeof(pf) / sizeof(pf[0])) : 0;
	struct option *opts;
	int c, idx, rc = -1;

	while (table[nt].name)
		nt++;
	if ((opts = calloc(nt + np + 2, sizeof(*opts))) == NULL)
		return DNSB_EXIT_INTERNAL;
	for (size_t k = 0; k < nt; k++)
		opts[k] = (struct option){ table[k].name, table[k].takes_value ? required_argument : no_argument, NULL,
					   table[k].code };
	for (size_t k = 0; k < np; k++)
		opts[nt + k] = (struct option){ pf[k]->name, pf[k]->takes_value ? required_argument : no_argument, NULL,
						PROVIDER_CODE + (int)k };
	opts[nt + np] = (struct option){ "help", no_argument, NULL, 'h' };
	optind = 0; /* glibc: start afresh */
	opterr = 0; /* the messages below name the subcommand */
	/* "-": operands come back in order as code 1; ":": a missing value is ':' */
	while (rc < 0 && (c = getopt_long(argc, argv, "-:h", opts, &idx)) != -1) {
		if (c == 'h') {
			usage(stdout);
			rc = DNSB_EXIT_OK;
		} else if (c == ':') {
			print_bad(cmd, argv[optind - 1], optopt, 1);
			rc = DNSB_EXIT_USAGE;
		} else if (c == '?') {
			print_bad(cmd, argv[optind - 1], optopt, 0);
			rc = DNSB_EXIT_USAGE;
		} else if (c >= PROVIDER_CODE) {
			if (dnsb_config_add(cfg, pf[c - PROVIDER_CODE]->name, optarg ? optarg : "") < 0) {
				fprintf(stderr, "dnsbatch: out of memory\n");
				rc = DNSB_EXIT_INTERNAL;
			}
		} else {
			int r = c == 1 ? handler(ctx, 0, NULL, optarg) : handler(ctx, c, opts[idx].name, optarg);
			if (r != 0)
				rc = r;
		}
	}
	free(opts);
	return rc;
}

void dnsb_cli_provider_help(FILE *f)
{
	const dnsb_backend *const *b = dnsb_backends();

	for (size_t k = 0; b[k]; k++) {
		fprintf(f, "\nprovider %s: %s\n", b[k]->name, b[k]->summary);
		for (const dnsb_provider_flag *fl = b[k]->flags; fl && fl->name; fl++)
			fprintf(f, "  --%-30s %s\n", fl->name, fl->help);
	}
	fprintf(f, "\nproviders aws (and the HTTP providers that read it): one rate budget for every instance of an account\n");
	for (const dnsb_provider_flag *fl = dnsb_backend_shared_flags(); fl->name; fl++)
		fprintf(f, "  --%-30s %s\n", fl->name, fl->help);
}

int dnsb_cli_uint(unsigned long *out, const char *name, const char *value, unsigned long min, unsigned long max)
{
	dnsb_error err = { 0, "" };

	if (dnsb_parse_uint(out, name, value, min, max, &err) < 0) {
		fprintf(stderr, "dnsbatch: %s\n", err.message);
		return -1;
	}
	return 0;
}

int dnsb_cli_seconds(double *out, const char *name, const char *value)
{
	dnsb_error err = { 0, "" };

	if (dnsb_parse_seconds(out, name, value, &err) < 0) {
		fprintf(stderr, "dnsbatch: %s\n", err.message);
		return -1;
	}
	return 0;
}

int dnsb_cli_bytes(uint64_t *out, const char *name, const char *value)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	errno = 0;
	v = strtoull(value, &end, 10);
	if (errno != 0 || end == value || value[0] < '0' || value[0] > '9')
		goto bad;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (shift && (*end == 'i' || *end == 'I'))
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end != '\0' || v > (UINT64_MAX >> shift))
		goto bad;
	*out = (uint64_t)v << shift;
	return 0;
bad:
	fprintf(stderr, "dnsbatch: --%s %s: expected a number of bytes (suffix k, m or g allowed)\n", name, value);
	return -1;
}
