/* cli.h - the subcommands of the dnsbatch program and what they share. */
#ifndef DNSB_CLI_H
#define DNSB_CLI_H

#include "dnsbatch/dnsbatch.h"

/* Exit codes (docs/design.md §5.1). */
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
 * apply's outcomes when its provider could not be opened for a transient
 * reason (unopened.c): every change still pending ends failed (transient;
 * nothing was sent), a group with an invalid member dropped whole; each is
 * counted in `r` (cleared first; no zone is known, so r->zones stays empty),
 * in the metrics `m` and, dropped or failed, in the drop log `log` (NULL:
 * none; the failed lines bounded as the engine bounds them). `why` names the
 * open's failure, for each change's message (borrowed).
 * @return 0; DNSB_ENOMEM (the changes are failed all the same) or DNSB_EIO
 *         when the drop log could not be written, with `err` filled
 */
int dnsb_cli_fail_unopened(dnsb_report *r, dnsb_plan *plan, const char *why, dnsb_metrics *m, dnsb_droplog *log,
			   dnsb_error *err);

/* Table codes start here: getopt_long keeps 1, '?', ':', 'h' and 'V' for itself. */
#define DNSB_CLI_CODE_MIN 256
/* Codes of the engine flags (engine_flags.c); a subcommand's table stays below. */
#define DNSB_CLI_ENGINE_CODE 900

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
 * The engine settings `apply` and `serve` share (one set of flags for both):
 * --batch-size, --max-retries, --max-rate-limit-waits, --backoff-base,
 * --backoff-cap, --timeout, --seed, --metrics-file and --quiet.
 */
typedef struct dnsb_cli_engine {
	dnsb_engine_options opts;  /* starts as DNSB_ENGINE_OPTIONS_INIT */
	const char *metrics_file;  /* --metrics-file, NULL when absent */
	int quiet;                 /* --quiet: only errors on stderr */
	int timeout_set;           /* --timeout was given */
} dnsb_cli_engine;

#define DNSB_CLI_ENGINE_INIT { DNSB_ENGINE_OPTIONS_INIT, NULL, 0, 0 }

/* The engine flags as getopt_long options, codes from DNSB_CLI_ENGINE_CODE; ends with { NULL, 0, 0 }. */
extern const dnsb_cli_option dnsb_cli_engine_options[];
/* Take engine flag `code` with its value. @return 0, or DNSB_EXIT_USAGE after printing why */
int dnsb_cli_engine_take(dnsb_cli_engine *e, int code, const char *name, const char *value);
/* Print the engine flags for --help; `serve` marks those that mean nothing to it. */
void dnsb_cli_engine_help(FILE *f, int serve);

/*
 * Parse argv[1..argc-1] with getopt_long: `table`, the engine flags (when eng
 * is not NULL, taken into *eng), then (when cfg is not NULL) every built-in
 * provider's flags, added to cfg as given (switches get ""). --help and -h
 * print usage(stdout); --version prints the version. Long names are taken
 * only whole: a prefix (`--pdns-api-key` for --pdns-api-key-file) is an
 * unknown option, so a secret after it is never taken for a file name.
 * @param cmd  the subcommand's name, for messages ("apply")
 * @return -1 to go on; else the exit code: DNSB_EXIT_OK after --help or
 *         --version, DNSB_EXIT_USAGE after an unknown option or a missing or
 *         bad value (the message names it), DNSB_EXIT_INTERNAL out of memory,
 *         or the handler's
 */
int dnsb_cli_parse(const char *cmd, int argc, char **argv, const dnsb_cli_option *table, dnsb_cli_engine *eng,
		   dnsb_config *cfg, void (*usage)(FILE *), dnsb_cli_handler handler, void *ctx);

/*
 * Refuse the flags of a provider other than `provider` (`--pdns-server` with
 * `--provider zonefile`): the message names the flag and its provider. An
 * unknown provider passes (opening it says so).
 * @return 0, or DNSB_EXIT_USAGE after printing why
 */
int dnsb_cli_check_provider_flags(const char *cmd, const char *provider, const dnsb_config *cfg);

/*
 * Can `path` be written by replacing it (a temporary file beside it, then a
 * rename) or by appending? Its directory must exist and be writable, and it
 * must not be a directory: checked before anything is sent, so that a run
 * does not end on an unwritable output after doing its work.
 * @param flag  the flag that named it ("metrics-file"), for the message
 * @return 0, or -1 after printing why (name, directory, system error)
 */
int dnsb_cli_check_output(const char *cmd, const char *flag, const char *path);

/* Print "dnsbatch VERSION" on stdout. @return DNSB_EXIT_OK */
int dnsb_cli_version(void);

/* Print every provider's flags (for --help). */
void dnsb_cli_provider_help(FILE *f);

/* Parse a whole number in [min, max] for flag `name`; prints the error. @return 0 or -1 */
int dnsb_cli_uint(unsigned long *out, const char *name, const char *value, unsigned long min, unsigned long max);
/* Parse seconds >= 0 for flag `name`; prints the error. @return 0 or -1 */
int dnsb_cli_seconds(double *out, const char *name, const char *value);
/* Parse bytes for flag `name`: a whole number >= 0 with an optional binary suffix k, m or g (KiB, MiB,
 * GiB; "1m", "1MiB", "1mb"); prints the error. @return 0 or -1 */
int dnsb_cli_bytes(uint64_t *out, const char *name, const char *value);

/* The progress of `apply` on stderr (progress.c). */
typedef struct dnsb_cli_progress {
	int tty;          /* stderr is a terminal (and logs are text): one line, redrawn */
	int json;         /* --log-format json: JSON log lines */
	double interval;  /* seconds between two lines (a terminal's: 0.2) */
	double last;      /* engine clock seconds (elapsed) at the last line */
	int drawn;        /* a terminal line is showing */
	long rate_from;   /* changes done at the first call (settled before sending), -1 before it */
} dnsb_cli_progress;

/* @param interval  seconds between two lines off a terminal (--progress-interval, 10 by default) */
void dnsb_cli_progress_init(dnsb_cli_progress *p, int json_logs, double interval);
/* dnsb_engine_options.on_progress; payload is a dnsb_cli_progress. */
void dnsb_cli_progress_show(void *payload, const dnsb_progress *progress);
/* Erase the terminal line, if one shows (before the summary). */
void dnsb_cli_progress_clear(dnsb_cli_progress *p);

#endif
