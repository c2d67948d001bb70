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

/*
 * A command-line cursor: `--name value` and `--name=value` both work.
 * dnsb_cli_take returns 1 and sets *value when argv[*i] is --name (moving *i
 * past the value), 0 when it is another flag, -1 when the value is missing
 * (after printing the error).
 */
int dnsb_cli_take(int argc, char **argv, int *i, const char *name, const char **value);

/*
 * If argv[*i] is a flag of any built-in provider, add it to cfg (boolean
 * flags get "") and return 1; 0 when it is not; -1 on a missing value or ENOMEM.
 */
int dnsb_cli_provider_flag(dnsb_config *cfg, int argc, char **argv, int *i);

/* Print every provider's flags (for --help). */
void dnsb_cli_provider_help(FILE *f);

/* Parse a whole number in [min, max] for flag `name`; prints the error. @return 0 or -1 */
int dnsb_cli_uint(unsigned long *out, const char *name, const char *value, unsigned long min, unsigned long max);
/* Parse seconds >= 0 for flag `name`; prints the error. @return 0 or -1 */
int dnsb_cli_seconds(double *out, const char *name, const char *value);

#endif
