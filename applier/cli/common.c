/* common.c - command-line helpers shared by the subcommands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/provider.h"
#include "cli.h"

int dnsb_cli_take(int argc, char **argv, int *i, const char *name, const char **value)
{
	const char *arg = argv[*i];
	size_t len = strlen(name);

	if (strncmp(arg, "--", 2) != 0 || strncmp(arg + 2, name, len) != 0)
		return 0;
	if (arg[2 + len] == '=') {
		*value = arg + 3 + len;
		return 1;
	}
	if (arg[2 + len] != '\0')
		return 0;
	if (*i + 1 >= argc) {
		fprintf(stderr, "dnsbatch: --%s needs a value\n", name);
		return -1;
	}
	*value = argv[++*i];
	return 1;
}

int dnsb_cli_provider_flag(dnsb_config *cfg, int argc, char **argv, int *i)
{
	const dnsb_backend *const *b = dnsb_backends();

	for (size_t k = 0; b[k]; k++) {
		for (const dnsb_provider_flag *f = b[k]->flags; f && f->name; f++) {
			const char *value = "";
			int got;

			if (f->takes_value) {
				got = dnsb_cli_take(argc, argv, i, f->name, &value);
			} else {
				got = strncmp(argv[*i], "--", 2) == 0 && strcmp(argv[*i] + 2, f->name) == 0;
			}
			if (got < 0)
				return -1;
			if (got == 0)
				continue;
			if (dnsb_config_add(cfg, f->name, value) < 0) {
				fprintf(stderr, "dnsbatch: out of memory\n");
				return -1;
			}
			return 1;
		}
	}
	return 0;
}

void dnsb_cli_provider_help(FILE *f)
{
	const dnsb_backend *const *b = dnsb_backends();

	for (size_t k = 0; b[k]; k++) {
		fprintf(f, "\nprovider %s: %s\n", b[k]->name, b[k]->summary);
		for (const dnsb_provider_flag *fl = b[k]->flags; fl && fl->name; fl++)
			fprintf(f, "  --%-30s %s\n", fl->name, fl->help);
	}
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
