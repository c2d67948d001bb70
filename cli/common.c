/* common.c - command-line helpers shared by the subcommands. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnsbatch/sys/provider.h"
#include "cli.h"

/* Provider flags get getopt codes from here on, table codes stay below. */
#define PROVIDER_CODE 1000

/* Every built-in provider's flags, in order, then the shared ones. @return how many (at most max) */
static size_t provider_flags(const dnsb_flag **out, size_t max)
{
	const dnsb_backend *const *b = dnsb_backends();
	size_t n = 0;

	for (size_t k = 0; b[k]; k++)
		for (const dnsb_flag *f = b[k]->flags; f && f->name; f++)
			if (n < max)
				out[n++] = f;
	for (const dnsb_flag *f = dnsb_backend_shared_flags(); f->name; f++)
		if (n < max)
			out[n++] = f;
	return n;
}

/* --provider NAME as given on the command line being parsed (for --help), or NULL. */
static const char *help_provider;

/* Note --provider NAME before the parse acts on --help, wherever it stands. */
static void note_provider(int argc, char **argv)
{
	help_provider = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--provider") == 0 && i + 1 < argc)
			help_provider = argv[++i];
		else if (strncmp(argv[i], "--provider=", 11) == 0)
			help_provider = argv[i] + 11;
	}
}

const dnsb_cli_option dnsb_cli_provider_options[] = {
	{ "allow-core-dumps", 0, 'D', NULL,
	  "let the process be dumped and traced (by default it is not: it holds secrets)" },
	{ NULL, 0, 0, NULL, NULL }
};

void dnsb_cli_options_help(FILE *f, const dnsb_cli_option *table, int width)
{
	for (const dnsb_cli_option *o = table; o && o->name; o++) {
		char left[96];
		int n = snprintf(left, sizeof(left), "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");

		fprintf(f, "  %-*s%s", width, left, n >= width ? " " : "");
		for (const char *h = o->help ? o->help : ""; *h; h++) /* a continuation line goes under the first */
			if (*h == '\n')
				fprintf(f, "\n  %-*s", width, "");
			else
				fputc(*h, f);
		fputc('\n', f);
	}
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

int dnsb_cli_check_output(const char *cmd, const char *flag, const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat st;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (slash == path ? 1 : (int)(slash - path)) : 1, slash ? path : ".");
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "dnsbatch %s: --%s %s: is a directory, not a file (nothing was sent)\n", cmd, flag, path);
		return -1;
	}
	errno = 0;
	if (stat(dir, &st) != 0) {
		fprintf(stderr, "dnsbatch %s: --%s %s: the directory %s: %s (nothing was sent)\n", cmd, flag, path, dir,
			strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "dnsbatch %s: --%s %s: %s is not a directory (nothing was sent)\n", cmd, flag, path, dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		fprintf(stderr, "dnsbatch %s: --%s %s: cannot write in %s: %s (nothing was sent)\n", cmd, flag, path, dir,
			strerror(errno));
		return -1;
	}
	return 0;
}

int dnsb_cli_version(void)
{
	printf("dnsbatch %s\n", DNSBATCH_VERSION);
	return DNSB_EXIT_OK;
}

static size_t table_len(const dnsb_cli_option *t)
{
	size_t n = 0;

	while (t && t[n].name)
		n++;
	return n;
}

/* --allow-core-dumps was given (subcommands that take provider flags). */
static int allow_core_dumps;

/*
 * A process that holds secrets (TSIG keys, API keys, tokens, the Redis
 * password: in its memory and its environment) is made non-dumpable and gets
 * no core file: a crashed serve's core held the TSIG secret twice, and a
 * dumpable process's memory is open to ptrace by its user. Done before any
 * secret is read, unless --allow-core-dumps.
 */
static void guard_secrets(const char *cmd)
{
	struct rlimit none = { 0, 0 };

	if (allow_core_dumps)
		return;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || setrlimit(RLIMIT_CORE, &none) != 0)
		fprintf(stderr, "dnsbatch %s: cannot turn core dumps off (%s): a crash may leave secrets in a core "
			"file\n", cmd, strerror(errno));
}

/* The getopt_long table: `table`, the engine flags when asked, the providers' flags (and --allow-core-dumps),
 * --help, --version. */
static size_t flags_len(const dnsb_flag *t)
{
	size_t n = 0;

	while (t && t[n].name)
		n++;
	return n;
}

static struct option *long_options(const dnsb_cli_option *table, int engine, const dnsb_flag **pf, size_t np)
{
	size_t nt = table_len(table), ne = engine ? flags_len(dnsb_cli_engine_flags) : 0, k = 0;
	struct option *opts = calloc(nt + ne + np + 4, sizeof(*opts));

	if (opts == NULL)
		return NULL;
	for (size_t i = 0; i < nt; i++, k++)
		opts[k] = (struct option){ table[i].name, table[i].takes_value ? required_argument : no_argument, NULL,
					   table[i].code };
	for (size_t i = 0; i < ne; i++, k++)
		opts[k] = (struct option){ dnsb_cli_engine_flags[i].name,
					   dnsb_cli_engine_flags[i].kind != DNSB_FLAG_BOOL ? required_argument : no_argument,
					   NULL, DNSB_CLI_ENGINE_CODE + (int)i };
	for (size_t i = 0; i < np; i++, k++)
		opts[k] = (struct option){ pf[i]->name, pf[i]->kind != DNSB_FLAG_BOOL ? required_argument : no_argument, NULL,
					   PROVIDER_CODE + (int)i };
	if (np > 0)
		opts[k++] = (struct option){ "allow-core-dumps", no_argument, NULL, 'D' };
	opts[k++] = (struct option){ "help", no_argument, NULL, 'h' };
	opts[k] = (struct option){ "version", no_argument, NULL, 'V' };
	return opts;
}

/*
 * Was the long option opts[idx] written whole in `arg`? getopt_long takes any
 * unique prefix, so `--pdns-api-key SECRET` was taken as --pdns-api-key-file
 * and the secret quoted in the error about a missing file (issue 38 §4).
 */
static int written_whole(const char *arg, const char *name)
{
	size_t len = strlen(name);

	return arg && arg[0] == '-' && arg[1] == '-' && strncmp(arg + 2, name, len) == 0 &&
	       (arg[2 + len] == '\0' || arg[2 + len] == '=');
}

int dnsb_cli_parse(const char *cmd, int argc, char **argv, const dnsb_cli_option *table, dnsb_cli_engine *eng,
		   dnsb_config *cfg, void (*usage)(FILE *), dnsb_cli_handler handler, void *ctx)
{
	const dnsb_flag *pf[256];
	size_t np = cfg ? provider_flags(pf, sizeof(pf) / sizeof(pf[0])) : 0;
	struct option *opts = long_options(table, eng != NULL, pf, np);
	int c, idx, rc = -1;

	if (opts == NULL)
		return DNSB_EXIT_INTERNAL;
	note_provider(argc, argv);
	optind = 0; /* glibc: start afresh */
	opterr = 0; /* the messages below name the subcommand */
	/* "-": operands come back in order as code 1; ":": a missing value is ':' */
	for (int at = 1; rc < 0; at = optind) {
		idx = -1; /* set by getopt_long for a long option only */
		if ((c = getopt_long(argc, argv, "-:hV", opts, &idx)) == -1)
			break;
		if (idx >= 0 && at < argc && !written_whole(argv[at], opts[idx].name)) {
			print_bad(cmd, argv[at], 0, 0); /* the name as written, never its value */
			rc = DNSB_EXIT_USAGE;
		} else if (c == 'h') {
			usage(stdout);
			rc = DNSB_EXIT_OK;
		} else if (c == 'V') {
			rc = dnsb_cli_version();
		} else if (c == 'D') {
			allow_core_dumps = 1;
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
		} else if (c >= DNSB_CLI_ENGINE_CODE && eng) {
			int r = dnsb_cli_engine_take(eng, c, opts[idx].name, optarg);
			if (r != 0)
				rc = r;
		} else {
			int r = c == 1 ? handler(ctx, 0, NULL, optarg) : handler(ctx, c, opts[idx].name, optarg);
			if (r != 0)
				rc = r;
		}
	}
	free(opts);
	if (rc < 0 && cfg)
		guard_secrets(cmd);
	return rc;
}

/* Is `name` a flag of backend b? */
static int flag_of(const dnsb_backend *b, const char *name)
{
	return dnsb_flags_find(b->flags, name) != NULL;
}

int dnsb_cli_check_provider_flags(const char *cmd, const char *provider, const dnsb_config *cfg)
{
	const dnsb_backend *const *b = dnsb_backends(), *mine = NULL;

	for (size_t k = 0; b[k] && !mine; k++)
		if (strcmp(b[k]->name, provider) == 0)
			mine = b[k];
	if (mine == NULL)
		return 0;
	for (size_t i = 0; i < dnsb_config_count(cfg); i++) {
		const char *key = dnsb_config_key(cfg, i);
		if (flag_of(mine, key))
			continue;
		for (size_t k = 0; b[k]; k++)
			if (flag_of(b[k], key)) {
				fprintf(stderr, "dnsbatch %s: --%s is a flag of provider %s, not of %s (see --help)\n", cmd,
					key, b[k]->name, provider);
				return DNSB_EXIT_USAGE;
			}
	}
	return 0;
}

/* One provider's flags, and those it shares. */
static void one_provider_help(FILE *f, const dnsb_backend *b)
{
	fprintf(f, "\nprovider %s: %s\n", b->name, b->summary);
	dnsb_flags_help(f, b->flags, 30);
	if (b->shared_flags) {
		fprintf(f, "\nthe account's rate budget, one for every instance (provider %s reads it):\n", b->name);
		dnsb_flags_help(f, b->shared_flags, 30);
	}
}

const char *dnsb_cli_help_provider(void)
{
	return help_provider;
}

void dnsb_cli_provider_help(FILE *f)
{
	const dnsb_backend *const *b = dnsb_backends(), *mine = help_provider ? dnsb_backend_find(help_provider) : NULL;

	fputc('\n', f);
	dnsb_cli_options_help(f, dnsb_cli_provider_options, 30);
	if (mine) {
		one_provider_help(f, mine);
		return;
	}
	if (help_provider)
		fprintf(f, "\nunknown provider '%s'.", help_provider);
	fprintf(f, "\nproviders (--provider NAME):\n");
	for (size_t k = 0; b[k]; k++)
		fprintf(f, "  %-12s %s\n", b[k]->name, b[k]->summary);
	fprintf(f, "\nA provider's flags: 'dnsbatch COMMAND --provider NAME --help' (or 'dnsbatch help --json').\n");
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
