/*
 * test_flags.c - typed flag tables (dnsbatch/sys/flag.h): each kind parsed
 * into its field, defaults, ranges (an out-of-range value gives the same
 * error, "--NAME: expected WHAT from MIN to MAX, got 'V'", for every numeric
 * kind), required flags, files, secrets (read by the one reader, never
 * quoted), repeatable flags; and the built-in backends' tables (the
 * descriptors of providers/registry.c): versioned, on ops of their name and
 * version, every flag declared once with a help line and a value name.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnsbatch/sys/flag.h"
#include "dnsbatch/sys/provider.h"

typedef struct settings {
	unsigned long count;
	uint16_t port;
	double ratio, wait, timeout;
	int on;
	char *name, *ca, *key;
	unsigned zones;
} settings;

static int take_zone(void *s, const char *v, dnsb_error *err)
{
	if (strchr(v, '/'))
		return dnsb_error_set(err, DNSB_EINVAL, "--t-zone %s: not a zone", v);
	((settings *)s)->zones++;
	return 0;
}

#define AT(field) DNSB_FLAG_AT(settings, field)

static const dnsb_flag table[] = {
	{ "t-name", DNSB_FLAG_STRING, "NAME", "a name", NULL, 0, 0, AT(name), 0, NULL, "the name of the thing", NULL },
	{ "t-count", DNSB_FLAG_UINT, "N", "a count", "7", 1, 10, AT(count), 0, NULL, NULL, NULL },
	{ "t-port", DNSB_FLAG_UINT, "PORT", "a port", "53", 1, 0, AT(port), 0, NULL, NULL, NULL },
	{ "t-ratio", DNSB_FLAG_DOUBLE, "X", "a ratio", "0.5", 0, 2, AT(ratio), 0, NULL, NULL, NULL },
	{ "t-wait", DNSB_FLAG_SECONDS, "SECONDS", "a wait", "1", 0, 60, AT(wait), 0, NULL, NULL, NULL },
	{ "t-timeout", DNSB_FLAG_SECONDS, "SECONDS", "a timeout", "10", 0, 100, AT(timeout), DNSB_FLAG_ABOVE_MIN, NULL,
	  NULL, NULL },
	{ "t-on", DNSB_FLAG_BOOL, NULL, "a switch", NULL, 0, 0, AT(on), 0, NULL, NULL, NULL },
	{ "t-ca", DNSB_FLAG_FILE, "FILE", "a file", NULL, 0, 0, AT(ca), 0, NULL, NULL, NULL },
	{ "t-key-file", DNSB_FLAG_SECRET_FILE, "FILE", "a key", NULL, 0, 0, AT(key), DNSB_FLAG_SECRET, "DNSB_TEST_KEY",
	  NULL, NULL },
	{ "t-zone", DNSB_FLAG_CUSTOM, "ZONE", "zones", NULL, 0, 0, 0, 0, DNSB_FLAG_REPEAT, NULL, NULL, take_zone },
	DNSB_FLAG_END
};

static void clear(settings *s)
{
	free(s->name);
	free(s->ca);
	dnsb_secret_free(s->key);
	memset(s, 0, sizeof(*s));
}

/* Parse pairs "key", "value", ... (NULL-ended) into s. @return the code; err filled */
static int parse(settings *s, dnsb_error *err, ...)
{
	dnsb_config *cfg;
	const char *k;
	va_list ap;
	int rc;

	memset(s, 0, sizeof(*s));
	assert_int_equal(dnsb_config_new(&cfg), 0);
	va_start(ap, err);
	while ((k = va_arg(ap, const char *)) != NULL)
		assert_int_equal(dnsb_config_add(cfg, k, va_arg(ap, const char *)), 0);
	va_end(ap);
	rc = dnsb_flags_parse(table, s, cfg, err);
	dnsb_config_free(cfg);
	return rc;
}

static void test_defaults_and_values(void **state)
{
	dnsb_error err = { 0, "" };
	settings s;

	(void)state;
	unsetenv("DNSB_TEST_KEY");
	assert_int_equal(parse(&s, &err, "t-name", "x", NULL), 0);
	assert_string_equal(s.name, "x");
	assert_int_equal(s.count, 7);
	assert_int_equal(s.port, 53);
	assert_true(s.ratio == 0.5 && s.wait == 1 && s.timeout == 10);
	assert_int_equal(s.on, 0);
	assert_null(s.ca);
	assert_null(s.key);
	clear(&s);
	assert_int_equal(parse(&s, &err, "t-name", "y", "t-count", "3", "t-port", "65535", "t-ratio", "1.5", "t-wait",
			       "30s", "t-on", "", "t-zone", "a", "t-zone", "b", "t-name", "z", NULL),
			 0);
	assert_string_equal(s.name, "z"); /* the last one given */
	assert_int_equal(s.count, 3);
	assert_int_equal(s.port, 65535);
	assert_true(s.ratio == 1.5 && s.wait == 30);
	assert_int_equal(s.on, 1);
	assert_int_equal(s.zones, 2); /* a repeatable flag: every value taken */
	clear(&s);
}

/* The same error, word for word but the name, the kind and the bounds, for every numeric kind. */
static void test_out_of_range_reads_alike(void **state)
{
	static const struct {
		const char *flag, *value, *message;
	} cases[] = {
		{ "t-count", "11", "--t-count: expected a whole number from 1 to 10, got '11'" },
		{ "t-count", "0", "--t-count: expected a whole number from 1 to 10, got '0'" },
		{ "t-port", "65536", "--t-port: expected a whole number from 1 to 65535, got '65536'" },
		{ "t-ratio", "2.5", "--t-ratio: expected a number from 0 to 2, got '2.5'" },
		{ "t-wait", "61", "--t-wait: expected seconds from 0 to 60, got '61'" },
		{ "t-timeout", "0", "--t-timeout: expected seconds above 0 up to 100, got '0'" },
		{ "t-timeout", "101s", "--t-timeout: expected seconds above 0 up to 100, got '101s'" },
	};
	settings s;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dnsb_error err = { 0, "" };
		assert_int_equal(parse(&s, &err, "t-name", "x", cases[i].flag, cases[i].value, NULL), DNSB_EINVAL);
		assert_int_equal(err.code, DNSB_EINVAL);
		assert_string_equal(err.message, cases[i].message);
		clear(&s);
	}
}

static void test_not_a_value(void **state)
{
	dnsb_error err = { 0, "" };
	settings s;

	(void)state;
	assert_int_equal(parse(&s, &err, "t-name", "x", "t-count", "many", NULL), DNSB_EINVAL);
	assert_string_equal(err.message, "--t-count: expected a whole number from 1 to 10, got 'many'");
	clear(&s);
	assert_int_equal(parse(&s, &err, "t-name", "x", "t-wait", "soon", NULL), DNSB_EINVAL);
	assert_string_equal(err.message, "--t-wait: expected seconds (a number >= 0), got 'soon'");
	clear(&s);
	assert_int_equal(parse(&s, &err, "t-name", "x", "t-ratio", "1x", NULL), DNSB_EINVAL);
	assert_string_equal(err.message, "--t-ratio: expected a number, got '1x'");
	clear(&s);
	assert_int_equal(parse(&s, &err, "t-name", "x", "t-zone", "a/b", NULL), DNSB_EINVAL);
	assert_string_equal(err.message, "--t-zone a/b: not a zone");
	clear(&s);
}

static void test_required(void **state)
{
	dnsb_error err = { 0, "" };
	settings s;

	(void)state;
	assert_int_equal(parse(&s, &err, "t-count", "2", NULL), DNSB_EINVAL);
	assert_string_equal(err.message, "--t-name is required (the name of the thing)");
	clear(&s);
	assert_int_equal(parse(&s, &err, "t-name", "", NULL), DNSB_EINVAL); /* empty is absent */
	assert_string_equal(err.message, "--t-name is required (the name of the thing)");
	clear(&s);
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void test_files_and_secrets(void **state)
{
	char dir[] = "/tmp/dnsb-flags-XXXXXX", key[64], big[64], *huge;
	dnsb_error err = { 0, "" };
	settings s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(key, sizeof(key), "%s/key", dir);
	snprintf(big, sizeof(big), "%s/big", dir);
	write_file(key, "s3cr3t-value\n", 13);
	assert_int_equal(parse(&s, &err, "t-name", "x", "t-ca", key, "t-key-file", key, NULL), 0);
	assert_string_equal(s.ca, key);               /* a file: its path, checked readable */
	assert_string_equal(s.key, "s3cr3t-value");   /* a secret file: its content, trimmed */
	clear(&s);
	assert_int_equal(parse(&s, &err, "t-name", "x", "t-ca", "/nonexistent/ca.pem", NULL), DNSB_ENOTFOUND);
	assert_string_equal(err.message, "--t-ca /nonexistent/ca.pem: No such file or directory");
	clear(&s);
	/* Past the one limit of secret files: refused by name, never cut, never quoted. */
	assert_non_null(huge = malloc(DNSB_SECRET_FILE_MAX + 2));
	memset(huge, 'k', DNSB_SECRET_FILE_MAX + 1);
	write_file(big, huge, DNSB_SECRET_FILE_MAX + 1);
	free(huge);
	assert_int_equal(parse(&s, &err, "t-name", "x", "t-key-file", big, NULL), DNSB_EIO);
	assert_non_null(strstr(err.message, "--t-key-file"));
	assert_non_null(strstr(err.message, "over 64 KiB"));
	assert_null(strstr(err.message, "kkkk"));
	clear(&s);
	/* Absent: the variable holds the secret itself. */
	setenv("DNSB_TEST_KEY", "from-the-environment", 1);
	assert_int_equal(parse(&s, &err, "t-name", "x", NULL), 0);
	assert_string_equal(s.key, "from-the-environment");
	clear(&s);
	unsetenv("DNSB_TEST_KEY");
	unlink(key);
	unlink(big);
	rmdir(dir);
}

/* Every built-in backend: a versioned descriptor; each flag declared once over all of them, with help and kind. */
static void test_backend_tables(void **state)
{
	const dnsb_backend *const *b = dnsb_backends();
	const char *seen[512];
	size_t n = 0, backends = 0;

	(void)state;
	for (size_t k = 0; b[k]; k++, backends++) {
		assert_int_equal(b[k]->version, DNSB_BACKEND_VERSION);
		assert_non_null(b[k]->ops);
		assert_int_equal(b[k]->ops->version, DNSB_PROVIDER_OPS_VERSION);
		assert_string_equal(b[k]->ops->name, b[k]->name);
		assert_ptr_equal(dnsb_backend_find(b[k]->name), b[k]);
		assert_non_null(b[k]->summary);
		for (const dnsb_flag *f = b[k]->flags; f && f->name; f++) {
			for (size_t i = 0; i < n; i++)
				assert_string_not_equal(seen[i], f->name);
			assert_true(n < 512);
			seen[n++] = f->name;
			assert_true(f->help && *f->help);
			assert_true((f->kind == DNSB_FLAG_BOOL) == (f->arg == NULL));
			assert_true(f->kind != DNSB_FLAG_CUSTOM || f->take != NULL || (f->opts & DNSB_FLAG_MANUAL));
		}
	}
	for (const dnsb_flag *f = dnsb_backend_shared_flags(); f->name; f++)
		for (size_t i = 0; i < n; i++)
			assert_string_not_equal(seen[i], f->name);
	assert_true(backends >= 8);
	assert_null(dnsb_backend_find("no-such-backend"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_values),
		cmocka_unit_test(test_out_of_range_reads_alike),
		cmocka_unit_test(test_not_a_value),
		cmocka_unit_test(test_required),
		cmocka_unit_test(test_files_and_secrets),
		cmocka_unit_test(test_backend_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
