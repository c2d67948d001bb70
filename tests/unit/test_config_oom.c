/*
 * test_config_oom.c - every allocation of a provider's configuration parse
 * failed in turn (the Nth malloc, calloc, realloc of the run: curl's torture
 * idea): each parse returns DNSB_ENOMEM (or DNSB_EIO when libc could not open
 * a file for want of memory) or succeeds, always with its dnsb_error filled
 * (code and message), never a crash. Covers
 * pdns, rfc2136 (a TSIG secret file) and google (a token in the environment).
 * Not under AddressSanitizer: it owns malloc.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnsbatch/config.h"
#include "providers/google/google.h"
#include "providers/pdns/pdns.h"
#include "providers/rfc2136/internal.h"

#ifndef __SANITIZE_ADDRESS__ /* AddressSanitizer owns malloc: the test is skipped in its build */

/* glibc's allocator under its exported names: the definitions below replace malloc for the process. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static long countdown = -1; /* allocations left before one fails; < 0: none fails */

/*
 * Fail this allocation? Never one ldns makes itself: ldns 1.8 asserts on its
 * own failed allocations (ldns_rdf_new_frm_str: "rd != NULL"), which no
 * caller can help; dnsbatch's own and libc's on its behalf are failed.
 */
static int fail_now(void *caller)
{
	Dl_info info;

	if (countdown < 0 || (dladdr(caller, &info) && info.dli_fname && strstr(info.dli_fname, "libldns")))
		return 0;
	if (countdown-- > 0)
		return 0;
	errno = ENOMEM; /* as glibc's malloc does */
	return 1;
}

void *malloc(size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}

typedef int (*parse_fn)(void *out, const dnsb_config *cfg, dnsb_error *err);
typedef void (*clear_fn)(void *out);

/* Fail allocation 0, 1, 2, ... of parse until one run needs no failure. */
static void torture(parse_fn parse, clear_fn clear, void *out, const dnsb_config *cfg)
{
	for (long n = 0;; n++) {
		dnsb_error err = { 0, "" };
		int rc;

		countdown = n;
		rc = parse(out, cfg, &err);
		countdown = -1;
		/* DNSB_ENOMEM, or an I/O error of a file libc could not open for want of memory: err filled */
		if (rc != 0 && (err.code != rc || err.message[0] == '\0' || (rc != DNSB_ENOMEM && rc != DNSB_EIO)))
			fail_msg("allocation %ld failed: rc %d with the error %d \"%.100s\" (DNSB_ENOMEM, filled, "
				 "expected)", n, rc, err.code, err.code ? err.message : "");
		if (rc == 0) {
			clear(out);
			if (n > 0 && n < 2000)
				return;
		}
		assert_true(n < 2000);
	}
}

static dnsb_config *config(const char *const *kv)
{
	dnsb_config *cfg;

	assert_int_equal(dnsb_config_new(&cfg), 0);
	for (; kv[0]; kv += 2)
		assert_int_equal(dnsb_config_add(cfg, kv[0], kv[1]), 0);
	return cfg;
}

static void test_pdns(void **state)
{
	char key[] = "/tmp/test_oom_key.XXXXXX";
	int fd = mkstemp(key);
	const char *kv[] = { "pdns-server", "http://127.0.0.1:8081/", "pdns-zone", "example.test", "pdns-zone",
			     "other.test", "pdns-api-key-file", key, NULL };
	dnsb_pdns_config c;
	dnsb_config *cfg;

	(void)state;
	assert_true(fd >= 0 && write(fd, "s3cret-key\n", 11) == 11);
	close(fd);
	cfg = config(kv);
	torture((parse_fn)dnsb_pdns_config_parse, (clear_fn)dnsb_pdns_config_clear, &c, cfg);
	dnsb_config_free(cfg);
	unlink(key);
}

static void test_rfc2136(void **state)
{
	char secret[] = "/tmp/test_oom_tsig.XXXXXX";
	int fd = mkstemp(secret);
	const char *kv[] = { "rfc2136-host", "127.0.0.1", "rfc2136-zone", "example.test", "rfc2136-zone", "other.test",
			     "rfc2136-tsig-secret-file", secret, "rfc2136-tsig-keyname", "k.example.test", NULL };
	dnsb_rfc2136_config c;
	dnsb_config *cfg;

	(void)state;
	assert_true(fd >= 0 && write(fd, "c2VjcmV0LXNlY3JldC1zZWNyZXQ=\n", 29) == 29);
	close(fd);
	cfg = config(kv);
	torture((parse_fn)dnsb_rfc2136_config_parse, (clear_fn)dnsb_rfc2136_config_clear, &c, cfg);
	dnsb_config_free(cfg);
	unlink(secret);
}

static void test_google(void **state)
{
	const char *kv[] = { "google-project", "p", "google-zone", "example.test=example", "google-zone",
			     "other.test=other", "google-api-endpoint", "https://127.0.0.1:1/dns/v1", NULL };
	dnsb_google_config c;
	dnsb_config *cfg;

	(void)state;
	setenv("DNSBATCH_GOOGLE_ACCESS_TOKEN", "ya29.not-a-real-token", 1);
	cfg = config(kv);
	torture((parse_fn)dnsb_google_config_parse, (clear_fn)dnsb_google_config_clear, &c, cfg);
	dnsb_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pdns),
		cmocka_unit_test(test_rfc2136),
		cmocka_unit_test(test_google),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
	puts("# SKIP test_config_oom: AddressSanitizer owns malloc");
	return 0;
}

#endif
