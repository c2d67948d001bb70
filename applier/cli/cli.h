/* cli.h - the subcommands of the dnsbatch program and what they share. */
#ifndef DNSB_CLI_H
#define DNSB_CLI_H

#include "dnsbatch/dnsbatch.h"

/* Exit codes (DESIGN §5). */
enum {
	DNSB_EXIT_OK = 0,        /* every change applied or already in effect */
	DNSB_EXIT_INTERNAL = 1,  /* a bug or an unexpected system failure */
	DNSB_EXIT_USAGE = 2,     /* bad command line, unreadable plan or provider setup: nothing sent */
	DNSB_EXIT_DROPPED = 3,   /* finished, some changes dropped */
	DNSB_EXIT_FAILED = 4     /* some changes failed (retryable) */
};

int dnsb_cmd_apply(int argc, char **argv);
int dnsb_cmd_records(int argc, char **argv);
int dnsb_cmd_drops(int argc, char **argv);
int dnsb_cmd_serve(int argc, char **argv);

/* Table codes start here: getopt_long keeps 1, '?', ':' and 'h' for itself. */
#define DNSB_CLI_CODE_MIN 256

/* One long option of a subcommand's table; tables end with { NULL, 0, 0 }. */
typedef struct dnsb_cli_option {
	const char *name;  /* without the leading "--" */
	int takes_value;   /* 1: --name VALUE or --name=VALUE; 0: a switch */
	int code;          /* DNSB_CLI_CODE_MIN..999, handed to the handler */
} dnsb_cli_option;

/*
 * The subcommand's handler: called once per option, in order, with its table
 * code, name and value (NULL for a switch), and with code 0 and value = the
 * argument for each operand (an argument that is not an option).
 * @return 0 to go on, else the exit code to stop with (after printing why)
 */
typedef int (*dnsb_cli_handler)(void *ctx, int code, const char *name, const char *value);

/*
 * Parse argv[1..argc-1] with getopt_long: `table`, then (when cfg is not NULL)
 * every built-in provider's flags, added to cfg as given (switches get "").
 * --help and -h print usage(stdout). Unique prefixes of long names are taken,
 * as getopt_long does.
 * @param cmd  the subcommand's name, for messages ("apply")
 * @return -1 to go on; else the exit code: DNSB_EXIT_OK after --help,
 *         DNSB_EXIT_USAGE after an unknown option or a missing value (the
 *         message names it), DNSB_EXIT_INTERNAL out of memory, or the handler's
 */
int dnsb_cli_parse(const char *cmd, int argc, char **argv, const dnsb_cli_option *table, dnsb_config *cfg,
		   void (*usage)(FILE *), dnsb_cli_handler handler, void *ctx);

/* Print every provider's flags (for --help). */
void dnsb_cli_provider_help(FILE *f);

/* Parse a whole number in [min, max] for flag `name`; prints the error. @return 0 or -1 */
int dnsb_cli_uint(unsigned long *out, const char *name, const char *value, unsigned long min, unsigned long max);
/* Parse seconds >= 0 for flag `name`; prints the error. @return 0 or -1 */
int dnsb_cli_seconds(double *out, const char *name, const char *value);
/* Parse bytes for flag `name`: a whole number >= 0 with an optional binary suffix k, m or g (KiB, MiB,
 * GiB; "1m", "1MiB", "1mb"); prints the error. @return 0 or -1 */
int dnsb_cli_bytes(uint64_t *out, const char *name, const char *value);

#endif
