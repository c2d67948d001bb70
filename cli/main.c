/* main.c - the dnsbatch program: dispatch to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "version_report.h"

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
		"  help      'help COMMAND' is 'COMMAND --help'; 'help --json' lists every flag as JSON\n"
		"\n"
		"'dnsbatch COMMAND --help' describes each; 'dnsbatch COMMAND --provider NAME --help' adds\n"
		"that provider's flags. Version %s.\n",
		DNSBATCH_VERSION);
}

static const dnsb_cli_command commands[] = {
	{ "apply", dnsb_cmd_apply, dnsb_cli_apply_options, 1, 1 },
	{ "serve", dnsb_cmd_serve, dnsb_cli_serve_options, 1, 1 },
	{ "plan", dnsb_cmd_plan, dnsb_cli_plan_options, 1, 1 },
	{ "records", dnsb_cmd_records, dnsb_cli_records_options, 0, 1 },
	{ "drops", dnsb_cmd_drops, dnsb_cli_drops_options, 0, 0 },
};
#define COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const dnsb_cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < COMMANDS; i++)
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

/*
 * `dnsbatch help`: the usage; `help --json`: every command's and provider's
 * flags as JSON; `help COMMAND [ARGS]`: `COMMAND ARGS --help` (so `help
 * apply --provider pdns` shows pdns's flags).
 */
static int help(int argc, char **argv)
{
	const dnsb_cli_command *c;
	char *args[64];
	int n = 0;

	if (argc < 3) {
		usage(stdout);
		return DNSB_EXIT_OK;
	}
	if (strcmp(argv[2], "--json") == 0)
		return dnsb_cli_help_json(stdout, commands, COMMANDS);
	if ((c = find_command(argv[2])) == NULL || argc > 60) {
		fprintf(stderr, "dnsbatch help: unknown command '%s'\n", argv[2]);
		usage(stderr);
		return DNSB_EXIT_USAGE;
	}
	for (int i = 2; i < argc; i++)
		args[n++] = argv[i];
	args[n++] = (char *)"--help";
	args[n] = NULL;
	return c->run(n, args);
}

int main(int argc, char **argv)
{
	const dnsb_cli_command *c;

	if (argc < 2) {
		usage(stderr);
		return DNSB_EXIT_USAGE;
	}
	if (strcmp(argv[1], "help") == 0)
		return help(argc, argv);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return DNSB_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0)
		return dnsb_cli_version();
	if (strcmp(argv[1], "version") == 0)
		return dnsb_cli_version_report();
	if ((c = find_command(argv[1])) != NULL)
		return c->run(argc - 1, argv + 1);
	fprintf(stderr, "dnsbatch: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return DNSB_EXIT_USAGE;
}
