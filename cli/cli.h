/* cli.h - the subcommands of the dnsbatch program and what they share. */
#ifndef DNSB_CLI_H
#define DNSB_CLI_H

#include "dnsbatch/dnsbatch.h"
#include "dnsbatch/sys/flag.h"

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
/* plan.c: `dnsbatch plan`, the preview (issue 33 §1). */
int dnsb_cmd_plan(int argc, char **argv);

/* Table codes start here: getopt_long keeps 1, '?', ':', 'h' and 'V' for itself. */
#define DNSB_CLI_CODE_MIN 256

/* The plural ending of a count in the summary and progress: "1 change", "2 changes"; "1 retry", "2 retries". */
#define DNSB_CLI_S(n) ((n) == 1 ? "" : "s")
#define DNSB_CLI_IES(n) ((n) == 1 ? "y" : "ies")
/* Codes of the engine flags (engine_flags.c); a subcommand's table stays below. */
#define DNSB_CLI_ENGINE_CODE 900

/* One long option of a subcommand's table; tables end with { NULL, 0, 0, NULL, NULL }. The table drives the
 * parse, the flags part of --help (dnsb_cli_options_help) and `dnsbatch help --json`. */
typedef struct dnsb_cli_option {
	const char *name;  /* without the leading "--" */
	int takes_value;   /* 1: --name VALUE or --name=VALUE; 0: a switch */
	int code;          /* DNSB_CLI_CODE_MIN..999, handed to the handler */
	const char *arg;   /* the value's name in --help ("FILE"), NULL for a switch */
	const char *help;  /* the help text: lines joined by '\n' (continuations indented under the first) */
} dnsb_cli_option;

/* Print a subcommand's table for --help: "  --NAME ARG   help", the help column at `width`. */
void dnsb_cli_options_help(FILE *f, const dnsb_cli_option *table, int width);

/* A subcommand as `dnsbatch help` and `help --json` see it (main.c's table). */
typedef struct dnsb_cli_command {
	const char *name;                  /* "apply" */
	int (*run)(int argc, char **argv);
	const dnsb_cli_option *options;    /* its own flags */
	int engine;                        /* 1: it takes the engine flags */
	int providers;                     /* 1: it takes --provider NAME and the providers' flags */
} dnsb_cli_command;

/* The flags tables of the subcommands (apply.c, serve.c, records.c, drops.c). */
extern const dnsb_cli_option dnsb_cli_apply_options[];
extern const dnsb_cli_option dnsb_cli_serve_options[];
extern const dnsb_cli_option dnsb_cli_plan_options[];
extern const dnsb_cli_option dnsb_cli_records_options[];
extern const dnsb_cli_option dnsb_cli_drops_options[];

/* `dnsbatch help --json`: every command's flags and every provider's, from the same tables, as JSON on `out`.
 * @return DNSB_EXIT_OK, or DNSB_EXIT_INTERNAL out of memory */
int dnsb_cli_help_json(FILE *out, const dnsb_cli_command *commands, size_t n);

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
	dnsb_thresholds thresholds; /* --max-update-percent, --max-delete-percent, --min-existing-rrsets, --force */
} dnsb_cli_engine;

#define DNSB_CLI_ENGINE_INIT { DNSB_ENGINE_OPTIONS_INIT, NULL, 0, 0, DNSB_THRESHOLDS_INIT }

/* The engine flags, typed (dnsbatch/sys/flag.h), into a dnsb_cli_engine; the i-th has getopt code
 * DNSB_CLI_ENGINE_CODE + i. Ends with DNSB_FLAG_END. */
extern const dnsb_flag dnsb_cli_engine_flags[];
/* Take engine flag `code` with its value. @return 0, or DNSB_EXIT_USAGE after printing why */
int dnsb_cli_engine_take(dnsb_cli_engine *e, int code, const char *name, const char *value);
/* Print the engine flags for --help; `serve` marks those that mean nothing to it. */
void dnsb_cli_engine_help(FILE *f, int serve);
/* The engine flag's help as `serve` (serve 1) or `apply` prints it. */
const char *dnsb_cli_engine_flag_help(const dnsb_flag *f, int serve);

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

/*
 * The providers part of --help. With --provider NAME on the command line
 * (dnsb_cli_parse notes it), NAME's flags and the flags it shares (the rate
 * budget's); without it, the providers' names and summaries and how to see
 * one's flags.
 */
void dnsb_cli_provider_help(FILE *f);
/* The provider named with --help (--provider NAME), or NULL: a command prints a provider's notes only for it. */
const char *dnsb_cli_help_provider(void);

/* The flags every command that takes providers' flags takes: --allow-core-dumps. */
extern const dnsb_cli_option dnsb_cli_provider_options[];

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

/* setup_fault.c: when nothing of `plan` was applied or in effect, no change was dropped as a conflict, and every failed
 * change failed on a DNS server's refusal of the key or the zone (TSIG BADSIG/BADKEY/BADTIME, NOTAUTH, REFUSED), the
 * first such change (borrowed): a setup fault, exit 2. Else NULL. */
const dnsb_change *dnsb_cli_setup_fault(dnsb_plan *plan, const dnsb_report *report);
/* plan.c: the outcomes of a plan's changes, one object per change in plan order: "path" ($.create[3]), "kind",
 * "dnsName", "recordType", "outcome" (applied, already_applied, dropped, failed, or held for reason held),
 * "reason", "cause" (drops), "owner" (the external-dns owner in the way), "message". A new reference. */
struct json_object *dnsb_cli_outcomes(const dnsb_plan *plan);
/* plan.c: the hex SHA-256 of a file's bytes into out (65 bytes). @return 0 or -1 (unreadable) */
int dnsb_cli_file_digest(char out[65], const char *path);
/* plan.c: run the engine as a preview of plan on p (nothing written; eng's settings and thresholds, no metrics,
 * drop log or callbacks); live receives the live-state digest. @return dnsb_engine_apply's */
int dnsb_cli_preview(dnsb_report *rep, dnsb_plan *plan, dnsb_provider *p, const dnsb_cli_engine *eng, char live[65],
		     dnsb_error *err);
/* plan.c: `apply --checksum WANT`: preview the plan file at path again; 0 when "PLAN:LIVE" is still WANT, else
 * DNSB_EXIT_USAGE after saying which changed (the plan, or the live state), or the preview's exit code. */
int dnsb_cli_checksum_check(const char *want, const char *path, dnsb_provider *p, const dnsb_cli_engine *eng);

#endif
