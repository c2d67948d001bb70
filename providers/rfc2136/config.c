/* config.c - the rfc2136 provider's flags and its TSIG key sources. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/secret.h"
#include "rfc2136.h"

/* A secret or key file is a few lines; refuse anything absurd. */
#define KEYFILE_MAX (64 * 1024)

void dnsb_rfc2136_config_clear(dnsb_rfc2136_config *cfg)
{
	if (cfg == NULL)
		return;
	free(cfg->host);
	for (size_t i = 0; i < cfg->zone_count; i++)
		free(cfg->zones[i]);
	free(cfg->zones);
	free(cfg->keyname);
	free(cfg->algorithm);
	dnsb_secret_free(cfg->secret);
	memset(cfg, 0, sizeof(*cfg));
}

const char *dnsb_rfc2136_algorithm(const char *name)
{
	static const struct {
		const char *name;
		const char *ldns;
	} table[] = {
		{ "hmac-sha256", "hmac-sha256." },
		{ "hmac-sha512", "hmac-sha512." },
		{ "hmac-sha1", "hmac-sha1." },
		{ "hmac-md5", "hmac-md5.sig-alg.reg.int." },
		{ "hmac-md5.sig-alg.reg.int", "hmac-md5.sig-alg.reg.int." },
	};
	size_t len = strlen(name);

	if (len > 0 && name[len - 1] == '.')
		len--;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strlen(table[i].name) == len && strncasecmp(table[i].name, name, len) == 0)
			return table[i].ldns;
	return NULL;
}

/*
 * Read a small file whole. Errors name the flag and the file, and say
 * nothing of the content: it is a secret.
 */
static int read_small_file(char **out, const char *path, const char *flag, dnsb_error *err)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t len;

	if (f == NULL)
		return dnsb_error_set(err, errno == ENOENT ? DNSB_ENOTFOUND : DNSB_EIO, "--%s %s: %s", flag,
				      path, strerror(errno));
	if ((buf = malloc(KEYFILE_MAX + 1)) == NULL) {
		fclose(f);
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	len = fread(buf, 1, KEYFILE_MAX + 1, f);
	if (ferror(f)) {
		int e = errno;
		fclose(f);
		dnsb_secret_free(buf);
		return dnsb_error_set(err, DNSB_EIO, "--%s %s: %s", flag, path, strerror(e));
	}
	fclose(f);
	if (len > KEYFILE_MAX) {
		explicit_bzero(buf, KEYFILE_MAX + 1);
		free(buf);
		return dnsb_error_set(err, DNSB_EINVAL, "--%s %s: larger than %d bytes, not a key file", flag,
				      path, KEYFILE_MAX);
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* Check that a secret is base64 (ldns decodes it when signing). */
static int check_secret(const char *secret, const char *source, dnsb_error *err)
{
	ldns_rdf *rdf = NULL;

	if (*secret == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "the TSIG secret from %s is empty", source);
	if (ldns_str2rdf_b64(&rdf, secret) != LDNS_STATUS_OK || rdf == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "the TSIG secret from %s is not base64%s", source,
				      strstr(secret, "key") && strchr(secret, '{') ?
					      " (a BIND key file? give it as --rfc2136-tsig-keyfile)" : "");
	ldns_rdf_deep_free(rdf);
	dnsb_secret_register(secret); /* redacted from every printed text */
	return 0;
}

/* ---- BIND key file: key "name" { algorithm a; secret "s"; }; ---- */

typedef struct keyfile_lexer {
	const char *p;
	unsigned line;
	char tok[1024];
	int quoted;
} keyfile_lexer;

/* Next token into lx->tok: a word, a quoted string, or one of { } ;.
 * @return 1, 0 at the end, -1 on a syntax error. */
static int lex_next(keyfile_lexer *lx)
{
	size_t n = 0;

	for (;;) {
		while (isspace((unsigned char)*lx->p)) {
			if (*lx->p == '\n')
				lx->line++;
			lx->p++;
		}
		if (*lx->p == '#' || (lx->p[0] == '/' && lx->p[1] == '/')) {
			while (*lx->p && *lx->p != '\n')
				lx->p++;
		} else if (lx->p[0] == '/' && lx->p[1] == '*') {
			const char *end = strstr(lx->p + 2, "*/");
			if (end == NULL)
				return -1;
			for (; lx->p < end; lx->p++)
				if (*lx->p == '\n')
					lx->line++;
			lx->p = end + 2;
		} else {
			break;
		}
	}
	lx->quoted = 0;
	if (*lx->p == '\0')
		return 0;
	if (strchr("{};", *lx->p)) {
		lx->tok[0] = *lx->p++;
		lx->tok[1] = '\0';
		return 1;
	}
	if (*lx->p == '"') {
		lx->quoted = 1;
		for (lx->p++; *lx->p && *lx->p != '"'; lx->p++) {
			if (*lx->p == '\n' || n + 1 >= sizeof(lx->tok))
				return -1;
			lx->tok[n++] = *lx->p;
		}
		if (*lx->p != '"')
			return -1;
		lx->p++;
	} else {
		while (*lx->p && !isspace((unsigned char)*lx->p) && !strchr("{};\"", *lx->p)) {
			if (n + 1 >= sizeof(lx->tok))
				return -1;
			lx->tok[n++] = *lx->p++;
		}
	}
	lx->tok[n] = '\0';
	return 1;
}

static int lex_expect(keyfile_lexer *lx, const char *what)
{
	return lex_next(lx) == 1 && !lx->quoted && strcmp(lx->tok, what) == 0;
}

int dnsb_rfc2136_same_name(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la && a[la - 1] == '.')
		la--;
	if (lb && b[lb - 1] == '.')
		lb--;
	return la == lb && strncasecmp(a, b, la) == 0;
}

/* One key statement of a key file, its strings owned. */
typedef struct key_stmt {
	char *name, *algorithm, *secret;
} key_stmt;

static void key_stmt_clear(key_stmt *k)
{
	free(k->name);
	free(k->algorithm);
	dnsb_secret_free(k->secret);
	memset(k, 0, sizeof(*k));
}

/* Replace *slot by a copy of the current token. @return 0 or DNSB_ENOMEM */
static int take_token(char **slot, const keyfile_lexer *lx)
{
	char *copy = strdup(lx->tok);

	if (copy == NULL)
		return DNSB_ENOMEM;
	dnsb_secret_free(*slot);
	*slot = copy;
	return 0;
}

static int is_value(const keyfile_lexer *lx)
{
	return lx->quoted || strchr("{};", lx->tok[0]) == NULL;
}

/*
 * The rest of a key statement after the word "key": NAME { CLAUSE VALUE; ... };
 * @return 0; DNSB_EPARSE on a syntax error; DNSB_ENOMEM
 */
static int parse_key_stmt(keyfile_lexer *lx, key_stmt *k)
{
	int rc;

	if (lex_next(lx) != 1 || !is_value(lx))
		return DNSB_EPARSE;
	if ((rc = take_token(&k->name, lx)) != 0)
		return rc;
	if (!lex_expect(lx, "{"))
		return DNSB_EPARSE;
	for (;;) {
		char clause[32];

		if (lex_next(lx) != 1)
			return DNSB_EPARSE;
		if (!lx->quoted && strcmp(lx->tok, "}") == 0)
			break;
		snprintf(clause, sizeof(clause), "%.31s", lx->tok);
		if (lex_next(lx) != 1 || !is_value(lx))
			return DNSB_EPARSE;
		/* Other clauses of a key statement do not concern us. */
		if (strcasecmp(clause, "algorithm") == 0 && (rc = take_token(&k->algorithm, lx)) != 0)
			return rc;
		if (strcasecmp(clause, "secret") == 0 && (rc = take_token(&k->secret, lx)) != 0)
			return rc;
		if (!lex_expect(lx, ";"))
			return DNSB_EPARSE;
	}
	return lex_expect(lx, ";") ? 0 : DNSB_EPARSE;
}

int dnsb_rfc2136_keyfile_parse(char **name, char **algorithm, char **secret, const char *text,
			       const char *want, const char *path, dnsb_error *err)
{
	keyfile_lexer lx = { text, 1, "", 0 };
	key_stmt found = { NULL, NULL, NULL }, k = { NULL, NULL, NULL };
	int r, rc = 0, any = 0;

	*name = *algorithm = *secret = NULL;
	while (rc == 0 && (r = lex_next(&lx)) != 0) {
		if (r < 0 || lx.quoted || strcasecmp(lx.tok, "key") != 0) {
			rc = DNSB_EPARSE;
			break;
		}
		if ((rc = parse_key_stmt(&lx, &k)) != 0)
			break;
		any = 1;
		if (found.name == NULL && (want == NULL || dnsb_rfc2136_same_name(want, k.name))) {
			found = k;
			memset(&k, 0, sizeof(k));
		}
		key_stmt_clear(&k);
	}
	key_stmt_clear(&k);
	if (rc == DNSB_EPARSE)
		dnsb_error_set(err, DNSB_EINVAL,
			       "%s:%u: not a BIND key file (expected key \"name\" { algorithm ...; secret \"...\"; };)", path,
			       lx.line);
	else if (rc == 0 && found.name == NULL)
		rc = any && want ? dnsb_error_set(err, DNSB_EINVAL, "%s: no key named \"%s\"", path, want) :
				   dnsb_error_set(err, DNSB_EINVAL, "%s: no key statement (expected key \"name\" { ... };)",
						  path);
	else if (rc == 0 && (found.algorithm == NULL || found.secret == NULL))
		rc = dnsb_error_set(err, DNSB_EINVAL, "%s: key \"%s\" has no %s", path, found.name,
				    found.algorithm == NULL ? "algorithm" : "secret");
	if (rc != 0) {
		key_stmt_clear(&found);
		return rc == DNSB_EPARSE ? DNSB_EINVAL : rc;
	}
	*name = found.name;
	*algorithm = found.algorithm;
	*secret = found.secret;
	return 0;
}

/* Trim the whitespace and newline that editors and `echo` leave in a secret file. */
static void trim(char *s)
{
	size_t len = strlen(s), start = 0;

	while (len > 0 && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
	while (isspace((unsigned char)s[start]))
		start++;
	memmove(s, s + start, len - start + 1);
}

static int set_keyname(dnsb_rfc2136_config *out, const char *name, dnsb_error *err)
{
	dnsb_error e;

	if (dnsb_name_canonical(&out->keyname, name, &e) != 0)
		return dnsb_error_set(err, DNSB_EINVAL, "TSIG key name: %s", e.message);
	return 0;
}

/* The algorithm of a key file's key; a --rfc2136-tsig-secret-alg must agree. */
static int keyfile_algorithm(dnsb_rfc2136_config *out, const char *flag_alg, const char *kalg, const char *keyfile,
			     dnsb_error *err)
{
	const char *ldns_alg = dnsb_rfc2136_algorithm(kalg);

	if (flag_alg && !dnsb_rfc2136_same_name(flag_alg, kalg) &&
	    (ldns_alg == NULL || dnsb_rfc2136_algorithm(flag_alg) != ldns_alg))
		return dnsb_error_set(err, DNSB_EINVAL,
				      "--rfc2136-tsig-secret-alg %s does not match algorithm %s of the key in %s",
				      flag_alg, kalg, keyfile);
	if (ldns_alg == NULL)
		return dnsb_error_set(err, DNSB_EINVAL,
				      "%s: TSIG algorithm %s is not usable (ldns 1.8.3 computes hmac-sha1, hmac-sha256, hmac-sha512, hmac-md5; its hmac-sha384 is broken): use hmac-sha256",
				      keyfile, kalg);
	return (out->algorithm = strdup(ldns_alg)) ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

/* Secret, key name and algorithm from one of the three sources. */
static int config_tsig(dnsb_rfc2136_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	const char *secret_file = dnsb_config_get(cfg, "rfc2136-tsig-secret-file");
	const char *keyfile = dnsb_config_get(cfg, "rfc2136-tsig-keyfile");
	const char *keyname = dnsb_config_get(cfg, "rfc2136-tsig-keyname");
	const char *alg = dnsb_config_get(cfg, "rfc2136-tsig-secret-alg");
	const char *env = getenv(DNSB_RFC2136_SECRET_ENV);
	char *text = NULL;
	int rc;

	if (out->insecure) {
		if (secret_file || keyfile || keyname)
			return dnsb_error_set(err, DNSB_EINVAL,
					      "--rfc2136-insecure cannot be combined with a TSIG key (--rfc2136-tsig-*)");
		return 0;
	}
	if (secret_file && keyfile)
		return dnsb_error_set(err, DNSB_EINVAL,
				      "give either --rfc2136-tsig-secret-file or --rfc2136-tsig-keyfile, not both");
	if (keyfile) {
		char *kname, *kalg;
		if ((rc = read_small_file(&text, keyfile, "rfc2136-tsig-keyfile", err)) != 0)
			return rc;
		rc = dnsb_rfc2136_keyfile_parse(&kname, &kalg, &out->secret, text, keyname, keyfile, err);
		dnsb_secret_free(text);
		if (rc != 0)
			return rc;
		out->secret_source = "--rfc2136-tsig-keyfile";
		rc = set_keyname(out, kname, err);
		free(kname);
		if (rc == 0)
			rc = keyfile_algorithm(out, alg, kalg, keyfile, err);
		free(kalg);
		return rc != 0 ? rc : check_secret(out->secret, keyfile, err);
	}
	if (secret_file) {
		if ((rc = read_small_file(&out->secret, secret_file, "rfc2136-tsig-secret-file", err)) != 0)
			return rc;
		trim(out->secret);
		out->secret_source = "--rfc2136-tsig-secret-file";
	} else if (env && *env) {
		if ((out->secret = strdup(env)) == NULL)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		trim(out->secret);
		out->secret_source = "$" DNSB_RFC2136_SECRET_ENV;
	} else {
		return dnsb_error_set(err, DNSB_EINVAL,
				      "no TSIG secret: give --rfc2136-tsig-secret-file, --rfc2136-tsig-keyfile or $" DNSB_RFC2136_SECRET_ENV
				      " (or --rfc2136-insecure for unsigned updates)");
	}
	if ((rc = check_secret(out->secret, out->secret_source, err)) != 0)
		return rc;
	if (keyname == NULL || *keyname == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "--rfc2136-tsig-keyname is required with a TSIG secret from %s",
				      out->secret_source);
	if ((rc = set_keyname(out, keyname, err)) != 0)
		return rc;
	if (alg == NULL)
		alg = "hmac-sha256";
	if (dnsb_rfc2136_algorithm(alg) == NULL)
		return dnsb_error_set(err, DNSB_EINVAL,
				      "--rfc2136-tsig-secret-alg %s is not usable (ldns 1.8.3 computes hmac-sha1, hmac-sha256, hmac-sha512, hmac-md5; its hmac-sha384 is broken): use hmac-sha256",
				      alg);
	return (out->algorithm = strdup(dnsb_rfc2136_algorithm(alg))) ? 0
									: dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

int dnsb_rfc2136_config_parse(dnsb_rfc2136_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	const char *host = dnsb_config_get(cfg, "rfc2136-host"), *zone;
	unsigned long port, batch, snap;
	size_t iter = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (host == NULL || *host == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "--rfc2136-host is required (the primary server's address)");
	if ((out->host = strdup(host)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = dnsb_config_uint(&port, cfg, "rfc2136-port", 53, 1, 65535, err)) != 0)
		goto fail;
	out->port = (unsigned)port;
	if ((rc = dnsb_config_uint(&batch, cfg, "rfc2136-batch-change-size", DNSB_RFC2136_BATCH_DEFAULT, 1, 65535,
				   err)) != 0)
		goto fail;
	out->batch_size = batch;
	if ((rc = dnsb_config_uint(&snap, cfg, "rfc2136-snapshot-max", DNSB_RFC2136_SNAPSHOT_DEFAULT, 0, 100000000,
				   err)) != 0)
		goto fail;
	out->snapshot_max = snap;
	if ((rc = dnsb_config_seconds(&out->timeout, cfg, "rfc2136-timeout", DNSB_RFC2136_TIMEOUT_DEFAULT, err)) != 0)
		goto fail;
	if (out->timeout <= 0) {
		rc = dnsb_error_set(err, DNSB_EINVAL, "--rfc2136-timeout must be more than 0 seconds");
		goto fail;
	}
	while ((zone = dnsb_config_next(cfg, "rfc2136-zone", &iter)) != NULL) {
		char **grown = realloc(out->zones, (out->zone_count + 1) * sizeof(char *));
		if (grown == NULL) {
			rc = DNSB_ENOMEM;
			goto fail;
		}
		out->zones = grown;
		if ((out->zones[out->zone_count] = strdup(zone)) == NULL) {
			rc = DNSB_ENOMEM;
			goto fail;
		}
		out->zone_count++;
	}
	if (out->zone_count == 0) {
		rc = dnsb_error_set(err, DNSB_EINVAL, "--rfc2136-zone is required (repeat it for several zones)");
		goto fail;
	}
	out->insecure = dnsb_config_flag(cfg, "rfc2136-insecure");
	if ((rc = config_tsig(out, cfg, err)) != 0)
		goto fail;
	return 0;
fail:
	dnsb_rfc2136_config_clear(out);
	return rc == DNSB_ENOMEM ? dnsb_error_set(err, rc, "out of memory") : rc;
}
