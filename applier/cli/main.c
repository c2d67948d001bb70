/* main.c - the dnsbatch program: dispatch to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dnsbatch COMMAND [options]\n"
		"\n"
		"Apply DNS record-set change batches to a provider without letting one conflicting\n"
		"record block the rest: conflicts are isolated by bisection, logged and dropped.\n"
		"\n"
		"commands:\n"
		"  apply     apply a plan file (the external-dns POST /records body) once\n"
		"  plan      preview: what apply would do now, change by change; writes nothing\n"
		"  serve     run the external-dns webhook provider (sidecar)\n"
		"  records   list the RRsets of the provider's zones\n"
		"  drops     summarise a drop log, or turn it back into a plan\n"
		"  version   print the version (also --version, and COMMAND --version)\n"
		"\n"
		"'dnsbatch COMMAND --help' describes each. Version %s.\n",
		DNSBATCH_VERSION);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int, char **);
	} commands[] = {
		{ "apply", dnsb_cmd_apply }, { "serve", dnsb_cmd_serve }, { "plan", dnsb_cmd_plan },
		{ "records", dnsb_cmd_records }, { "drops", dnsb_cmd_drops },
	};

	if (argc < 2) {
		usage(stderr);
		return DNSB_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return DNSB_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0)
		return dnsb_cli_version();
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "dnsbatch: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return DNSB_EXIT_USAGE;
}
