/* config.c - the rfc2136 provider's flags and its TSIG key sources. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "applier/core/secret.h"
#include "internal.h"

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
 * Check that a secret is a non-empty key in well-formed base64, as ldns
 * needs it to sign (it decodes the text again then). Whitespace between the
 * characters is allowed (BIND key files split long secrets); OpenSSL decodes,
 * and the key re-encoded must give the text back, so that a stray '=', a
 * '-' or a lone character ("0": no whole byte) are refused here, at start,
 * not by every UPDATE. The error names the source, never the secret.
 */
static int check_secret(const char *secret, const char *source, dnsb_error *err)
{
	size_t n = 0, len = strlen(secret), pads = 0;
	unsigned char *text = malloc(len + 1), *key = malloc(len + 1), *again = malloc(len + 4);
	int got, rc = 0;

	if (text == NULL || key == NULL || again == NULL) {
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		goto out;
	}
	for (const char *p = secret; *p; p++)
		if (!isspace((unsigned char)*p))
			text[n++] = (unsigned char)*p;
	text[n] = '\0';
	while (pads < 2 && pads < n && text[n - 1 - pads] == '=')
		pads++;
	if (n == 0) {
		rc = dnsb_error_set(err, DNSB_EINVAL, "the TSIG secret from %s is empty", source);
	} else if (n % 4 != 0 || (got = EVP_DecodeBlock(key, text, (int)n)) < 0 || (size_t)got != n / 4 * 3 ||
		   (size_t)got <= pads || EVP_EncodeBlock(again, key, got - (int)pads) != (int)n ||
		   memcmp(again, text, n) != 0) {
		rc = dnsb_error_set(err, DNSB_EINVAL, "the TSIG secret from %s is not base64 of a key (well-formed and padded, one byte at least)%s",
				    source, strstr(secret, "key") && strchr(secret, '{') ?
						    " (a BIND key file? give it as --rfc2136-tsig-keyfile)" : "");
	}
out:
	if (text)
		explicit_bzero(text, len + 1);
	if (key)
		explicit_bzero(key, len + 1);
	if (again)
		explicit_bzero(again, len + 4);
	free(text);
	free(key);
	free(again);
	if (rc == 0)
		dnsb_secret_register(secret); /* redacted from every printed text */
	return rc;
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
		if ((rc = dnsb_secret_read_file(&text, keyfile, "--rfc2136-tsig-keyfile", err)) != 0)
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
		if ((rc = dnsb_secret_read_file(&out->secret, secret_file, "--rfc2136-tsig-secret-file", err)) != 0)
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

/* One --rfc2136-zone, as given. */
static int add_zone(void *settings, const char *zone, dnsb_error *err)
{
	dnsb_rfc2136_config *out = settings;
	char **grown = realloc(out->zones, (out->zone_count + 1) * sizeof(char *));

	if (grown == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	out->zones = grown;
	if ((out->zones[out->zone_count] = strdup(zone)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	out->zone_count++;
	return 0;
}

#define AT(field) DNSB_FLAG_AT(dnsb_rfc2136_config, field)

/* The TSIG flags are read together by config_tsig (three sources, one key): declared here, MANUAL. */
const dnsb_flag dnsb_rfc2136_flags[] = {
	{ "rfc2136-host", DNSB_FLAG_STRING, "HOST", "address or name of the primary server", NULL, 0, 0, AT(host), 0,
	  NULL, "the primary server's address", NULL },
	{ "rfc2136-port", DNSB_FLAG_UINT, "PORT", "its port", "53", 1, 65535, AT(port), 0, NULL, NULL, NULL },
	{ "rfc2136-zone", DNSB_FLAG_CUSTOM, "APEX", "a zone to manage (repeatable)", NULL, 0, 0, 0, 0,
	  DNSB_FLAG_REPEAT, NULL, "repeat it for several zones", add_zone },
	{ "rfc2136-tsig-keyname", DNSB_FLAG_STRING, "NAME", "TSIG key name", NULL, 0, 0, 0, 0, DNSB_FLAG_MANUAL, NULL,
	  NULL, NULL },
	{ "rfc2136-tsig-secret-alg", DNSB_FLAG_STRING, "ALG",
	  "TSIG algorithm: hmac-sha256 (default), hmac-sha512, hmac-sha1, hmac-md5", NULL, 0, 0, 0, 0, DNSB_FLAG_MANUAL,
	  NULL, NULL, NULL },
	{ "rfc2136-tsig-secret-file", DNSB_FLAG_SECRET_FILE, "FILE",
	  "file holding the base64 TSIG secret (or $" DNSB_RFC2136_SECRET_ENV ")", NULL, 0, 0, 0, 0,
	  DNSB_FLAG_MANUAL | DNSB_FLAG_SECRET, DNSB_RFC2136_SECRET_ENV, NULL, NULL },
	{ "rfc2136-tsig-keyfile", DNSB_FLAG_SECRET_FILE, "FILE",
	  "BIND key file as tsig-keygen writes it (name, algorithm and secret)", NULL, 0, 0, 0, 0,
	  DNSB_FLAG_MANUAL | DNSB_FLAG_SECRET, NULL, NULL, NULL },
	{ "rfc2136-batch-change-size", DNSB_FLAG_UINT, "N", "changes per UPDATE message",
	  DNSB_FLAG_TEXT(DNSB_RFC2136_BATCH_DEFAULT), 1, 65535, AT(batch_size), 0, NULL, NULL, NULL },
	{ "rfc2136-timeout", DNSB_FLAG_SECONDS, "SECONDS", "seconds to wait for a connection or a reply",
	  DNSB_FLAG_TEXT(DNSB_RFC2136_TIMEOUT_DEFAULT), 0, 1e9, AT(timeout), DNSB_FLAG_ABOVE_MIN, NULL, NULL, NULL },
	{ "rfc2136-snapshot-max", DNSB_FLAG_UINT, "N",
	  "records a zone may hold to be transferred at its first refused UPDATE and kept, to name conflicts before "
	  "sending (default 1000; 0 = never)", DNSB_FLAG_TEXT(DNSB_RFC2136_SNAPSHOT_DEFAULT), 0, 100000000,
	  AT(snapshot_max), 0, NULL, NULL, NULL },
	{ "rfc2136-insecure", DNSB_FLAG_BOOL, NULL, "send unsigned updates (no TSIG)", NULL, 0, 0, AT(insecure), 0, NULL,
	  NULL, NULL },
	DNSB_FLAG_END
};

int dnsb_rfc2136_config_parse(dnsb_rfc2136_config *out, const dnsb_config *cfg, dnsb_error *err)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = dnsb_flags_parse(dnsb_rfc2136_flags, out, cfg, err)) == 0)
		rc = config_tsig(out, cfg, err);
	if (rc != 0)
		dnsb_rfc2136_config_clear(out);
	return rc == DNSB_ENOMEM ? dnsb_error_set(err, rc, "out of memory") : rc;
}
