/*
 * test_rfc2136.c - the rfc2136 provider without a DNS server: key files and
 * flags, the UPDATE message (prerequisites per change kind, order), the
 * class of every rcode, RRs back to RRsets, and network failures against
 * sockets that refuse or never answer. The real servers are in
 * tests/integration/test_rfc2136.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "applier/core/provider.h"
#include "providers/rfc2136/internal.h"
#include "unit/change_fixture.h"

/* What tsig-keygen -a hmac-sha256 writes (a throwaway key). */
#define SECRET "26B/b7HlQOhXC/zirCEzI9T21dKcV04ixTY3RydIE5I="
static const char keygen_file[] = "key \"dnsbatch-key\" {\n\talgorithm hmac-sha256;\n\tsecret \"" SECRET "\";\n};\n";

/* ---- helpers ---- */

static dnsb_change *change_new(dnsb_change_kind kind, const char *owner, uint16_t type, const char *old_rdata,
			       const char *new_rdata)
{
	return change_with_ttl(kind, owner, type, old_rdata, new_rdata, 600);
}

/* "owner class type ttl rdata" of one RR, e.g. "www.example.test. NONE CNAME 0". */
static char *rr_line(const ldns_rr *rr)
{
	char *owner = ldns_rdf2str(ldns_rr_owner(rr)), *cls = ldns_rr_class2str(ldns_rr_get_class(rr));
	char *type = ldns_rr_type2str(ldns_rr_get_type(rr)), *line;
	char rdata[256] = "";
	size_t len = 0;

	for (size_t i = 0; i < ldns_rr_rd_count(rr); i++) {
		char *f = ldns_rdf2str(ldns_rr_rdf(rr, i));
		len += (size_t)snprintf(rdata + len, sizeof(rdata) - len, " %s", f);
		free(f);
	}
	assert_true(asprintf(&line, "%s %s %s %u%s", owner, cls, type, ldns_rr_ttl(rr), rdata) > 0);
	free(owner);
	free(cls);
	free(type);
	return line;
}

/* Assert that an RR list holds exactly these lines, in order. */
static void assert_rrs(const ldns_rr_list *list, const char *const *want, size_t n)
{
	assert_int_equal(ldns_rr_list_rr_count(list), n);
	for (size_t i = 0; i < n; i++) {
		char *line = rr_line(ldns_rr_list_rr(list, i));
		assert_string_equal(line, want[i]);
		free(line);
	}
}

static ldns_pkt *build(dnsb_change **cs, size_t n)
{
	ldns_pkt *pkt = NULL;
	dnsb_error err = { 0, "" };

	assert_int_equal(dnsb_rfc2136_update_build(&pkt, "example.test.", cs, n, NULL, &err), 0);
	assert_non_null(pkt);
	return pkt;
}

/* ---- key files ---- */

static void test_keyfile_tsig_keygen(void **state)
{
	char *name, *alg, *secret;
	dnsb_error err = { 0, "" };

	(void)state;
	assert_int_equal(dnsb_rfc2136_keyfile_parse(&name, &alg, &secret, keygen_file, NULL, "k.conf", &err), 0);
	assert_string_equal(name, "dnsbatch-key");
	assert_string_equal(alg, "hmac-sha256");
	assert_string_equal(secret, SECRET);
	free(name);
	free(alg);
	free(secret);
}

static void test_keyfile_several_keys_and_comments(void **state)
{
	static const char text[] =
		"# two keys\n"
		"key other { algorithm hmac-sha512; secret \"b3RoZXI=\"; }; // trailing\n"
		"/* the one\n we want */ key \"Wanted.Example.\" {\n algorithm hmac-sha1;\n secret \"d2FudGVk\";\n};\n";
	char *name, *alg, *secret;
	dnsb_error err = { 0, "" };

	(void)state;
	assert_int_equal(dnsb_rfc2136_keyfile_parse(&name, &alg, &secret, text, "wanted.example", "k.conf", &err), 0);
	assert_string_equal(name, "Wanted.Example.");
	assert_string_equal(alg, "hmac-sha1");
	assert_string_equal(secret, "d2FudGVk");
	free(name);
	free(alg);
	free(secret);
	assert_int_equal(dnsb_rfc2136_keyfile_parse(&name, &alg, &secret, text, NULL, "k.conf", &err), 0);
	assert_string_equal(name, "other");
	free(name);
	free(alg);
	free(secret);
}

static void test_keyfile_errors_never_show_the_secret(void **state)
{
	static const char missing_alg[] = "key \"k\" {\n\tsecret \"" SECRET "\";\n};\n";
	static const char broken[] = "key \"k\" {\n\talgorithm hmac-sha256;\n\tsecret \"" SECRET "\"\n};\n";
	char *name, *alg, *secret;
	dnsb_error err = { 0, "" };

	(void)state;
	assert_int_equal(dnsb_rfc2136_keyfile_parse(&name, &alg, &secret, missing_alg, NULL, "k.conf", &err),
			 DNSB_EINVAL);
	assert_non_null(strstr(err.message, "has no algorithm"));
	assert_null(strstr(err.message, SECRET));
	assert_null(name);
	assert_int_equal(dnsb_rfc2136_keyfile_parse(&name, &alg, &secret, broken, NULL, "k.conf", &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "k.conf:4:"));
	assert_null(strstr(err.message, SECRET));
	assert_int_equal(dnsb_rfc2136_keyfile_parse(&name, &alg, &secret, keygen_file, "nope", "k.conf", &err),
			 DNSB_EINVAL);
	assert_non_null(strstr(err.message, "no key named \"nope\""));
	assert_int_equal(dnsb_rfc2136_keyfile_parse(&name, &alg, &secret, "", NULL, "k.conf", &err), DNSB_EINVAL);
}

static void test_algorithms(void **state)
{
	(void)state;
	assert_string_equal(dnsb_rfc2136_algorithm("hmac-sha256"), "hmac-sha256.");
	assert_string_equal(dnsb_rfc2136_algorithm("HMAC-SHA256."), "hmac-sha256.");
	assert_string_equal(dnsb_rfc2136_algorithm("hmac-sha512"), "hmac-sha512.");
	assert_string_equal(dnsb_rfc2136_algorithm("hmac-sha1"), "hmac-sha1.");
	assert_string_equal(dnsb_rfc2136_algorithm("hmac-md5"), "hmac-md5.sig-alg.reg.int.");
	/* ldns 1.8.3 spells it "hmac-shac384." and so never computes it. */
	assert_null(dnsb_rfc2136_algorithm("hmac-sha384"));
	assert_null(dnsb_rfc2136_algorithm("hmac-sha224"));
	assert_null(dnsb_rfc2136_algorithm("sha256"));
}

/* ---- flags ---- */

static dnsb_config *config(const char *const *kv)
{
	dnsb_config *cfg;

	assert_int_equal(dnsb_config_new(&cfg), 0);
	for (size_t i = 0; kv[i]; i += 2)
		assert_int_equal(dnsb_config_add(cfg, kv[i], kv[i + 1]), 0);
	return cfg;
}

static int parse(const char *const *kv, dnsb_rfc2136_config *out, dnsb_error *err)
{
	dnsb_config *cfg = config(kv);
	int rc = dnsb_rfc2136_config_parse(out, cfg, err);

	dnsb_config_free(cfg);
	return rc;
}

static void test_config_secret_from_env(void **state)
{
	const char *kv[] = { "rfc2136-host", "127.0.0.1", "rfc2136-port", "5300", "rfc2136-zone", "a.test",
			     "rfc2136-zone", "b.test", "rfc2136-tsig-keyname", "dnsbatch-key", NULL };
	dnsb_rfc2136_config c;
	dnsb_error err = { 0, "" };

	(void)state;
	setenv(DNSB_RFC2136_SECRET_ENV, SECRET "\n", 1);
	assert_int_equal(parse(kv, &c, &err), 0);
	unsetenv(DNSB_RFC2136_SECRET_ENV);
	assert_int_equal(c.port, 5300);
	assert_int_equal(c.zone_count, 2);
	assert_string_equal(c.zones[1], "b.test");
	assert_string_equal(c.keyname, "dnsbatch-key.");
	assert_string_equal(c.algorithm, "hmac-sha256.");
	assert_string_equal(c.secret, SECRET);
	assert_int_equal(c.batch_size, DNSB_RFC2136_BATCH_DEFAULT);
	assert_true(c.timeout == DNSB_RFC2136_TIMEOUT_DEFAULT);
	dnsb_rfc2136_config_clear(&c);
}

static void test_config_keyfile(void **state)
{
	char path[] = "/tmp/dnsb-rfc2136-key-XXXXXX";
	int fd = mkstemp(path);
	dnsb_rfc2136_config c;
	dnsb_error err = { 0, "" };

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, keygen_file, strlen(keygen_file)), (ssize_t)strlen(keygen_file));
	close(fd);
	{
		const char *kv[] = { "rfc2136-host", "::1", "rfc2136-zone", "a.test", "rfc2136-tsig-keyfile", path,
				     "rfc2136-batch-change-size", "7", "rfc2136-timeout", "0.5", NULL };
		assert_int_equal(parse(kv, &c, &err), 0);
		assert_string_equal(c.keyname, "dnsbatch-key.");
		assert_string_equal(c.algorithm, "hmac-sha256.");
		assert_string_equal(c.secret, SECRET);
		assert_int_equal(c.batch_size, 7);
		assert_true(c.timeout == 0.5);
		dnsb_rfc2136_config_clear(&c);
	}
	{
		const char *kv[] = { "rfc2136-host", "::1", "rfc2136-zone", "a.test", "rfc2136-tsig-keyfile", path,
				     "rfc2136-tsig-secret-alg", "hmac-sha512", NULL };
		assert_int_equal(parse(kv, &c, &err), DNSB_EINVAL);
		assert_non_null(strstr(err.message, "does not match"));
	}
	unlink(path);
	{
		const char *kv[] = { "rfc2136-host", "::1", "rfc2136-zone", "a.test", "rfc2136-tsig-keyfile", path, NULL };
		assert_int_equal(parse(kv, &c, &err), DNSB_ENOTFOUND);
		assert_non_null(strstr(err.message, "--rfc2136-tsig-keyfile"));
	}
}

static void test_config_errors_name_the_flag(void **state)
{
	static const struct {
		const char *kv[12];
		int rc;
		const char *says;
	} cases[] = {
		{ { "rfc2136-zone", "a.test", "rfc2136-insecure", "", NULL }, DNSB_EINVAL, "--rfc2136-host" },
		{ { "rfc2136-host", "127.0.0.1", "rfc2136-insecure", "", NULL }, DNSB_EINVAL, "--rfc2136-zone" },
		{ { "rfc2136-host", "127.0.0.1", "rfc2136-zone", "a.test", NULL }, DNSB_EINVAL, "--rfc2136-tsig-keyfile" },
		{ { "rfc2136-host", "127.0.0.1", "rfc2136-zone", "a.test", "rfc2136-insecure", "", "rfc2136-port", "0",
		    NULL }, DNSB_EINVAL, "rfc2136-port" },
		{ { "rfc2136-host", "127.0.0.1", "rfc2136-zone", "a.test", "rfc2136-insecure", "", "rfc2136-timeout",
		    "0", NULL }, DNSB_EINVAL, "--rfc2136-timeout" },
		{ { "rfc2136-host", "127.0.0.1", "rfc2136-zone", "a.test", "rfc2136-insecure", "",
		    "rfc2136-tsig-keyname", "k", NULL }, DNSB_EINVAL, "--rfc2136-insecure" },
		{ { "rfc2136-host", "127.0.0.1", "rfc2136-zone", "a.test", "rfc2136-tsig-secret-file", "/nonexistent/s",
		    "rfc2136-tsig-keyname", "k", NULL }, DNSB_ENOTFOUND, "/nonexistent/s" },
	};
	dnsb_rfc2136_config c;
	dnsb_error err;

	(void)state;
	unsetenv(DNSB_RFC2136_SECRET_ENV);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(parse(cases[i].kv, &c, &err), cases[i].rc);
		if (strstr(err.message, cases[i].says) == NULL)
			fail_msg("case %zu: '%s' does not mention %s", i, err.message, cases[i].says);
	}
}

static void test_config_secret_checks(void **state)
{
	const char *kv[] = { "rfc2136-host", "127.0.0.1", "rfc2136-zone", "a.test", "rfc2136-tsig-keyname", "k",
			     "rfc2136-tsig-secret-alg", "hmac-sha384", NULL };
	dnsb_rfc2136_config c;
	dnsb_error err = { 0, "" };

	(void)state;
	setenv(DNSB_RFC2136_SECRET_ENV, "not base64 !!! topsecret", 1);
	assert_int_equal(parse(kv, &c, &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "not base64"));
	assert_null(strstr(err.message, "topsecret"));
	/* issue 38 (fuzz_tsig): ldns's own check let these through, and then refused every one when signing */
	for (size_t i = 0; i < 5; i++) {
		static const char *const bad[] = { "-", "0", "====", "YQ==YQ==", "c2Vj-cmV0" };

		setenv(DNSB_RFC2136_SECRET_ENV, bad[i], 1);
		assert_int_equal(parse(kv, &c, &err), DNSB_EINVAL);
		if (strstr(err.message, "$" DNSB_RFC2136_SECRET_ENV " is not base64") == NULL)
			fail_msg("'%s': %s", bad[i], err.message);
	}
	setenv(DNSB_RFC2136_SECRET_ENV, SECRET, 1);
	assert_int_equal(parse(kv, &c, &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "hmac-sha384"));
	assert_null(strstr(err.message, SECRET));
	unsetenv(DNSB_RFC2136_SECRET_ENV);
}

/* ---- the UPDATE message ---- */

static void test_create_prerequisites(void **state)
{
	dnsb_change *cs[] = {
		change_new(DNSB_CHANGE_CREATE, "a.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.1"),
		change_new(DNSB_CHANGE_CREATE, "c.example.test.", LDNS_RR_TYPE_CNAME, NULL, "a.example.test."),
	};
	static const char *const pr[] = {
		"a.example.test. NONE A 0",      /* the RRset does not exist */
		"a.example.test. NONE CNAME 0",  /* no CNAME at the name */
		"c.example.test. NONE ANY 0",    /* a CNAME needs an unused name */
	};
	static const char *const up[] = {
		"a.example.test. IN A 600 192.0.2.1",
		"c.example.test. IN CNAME 600 a.example.test.",
	};
	ldns_pkt *pkt;
	char *zone;

	(void)state;
	pkt = build(cs, 2);
	assert_int_equal(ldns_pkt_get_opcode(pkt), LDNS_PACKET_UPDATE);
	assert_false(ldns_pkt_rd(pkt));
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_question(pkt)), 1);
	zone = rr_line(ldns_rr_list_rr(ldns_pkt_question(pkt), 0));
	/* The zone section: apex, class, SOA (a question carries no TTL on the wire). */
	assert_int_equal(strncmp(zone, "example.test. IN SOA ", 21), 0);
	free(zone);
	assert_rrs(ldns_pkt_answer(pkt), pr, 3);
	assert_rrs(ldns_pkt_authority(pkt), up, 2);
	ldns_pkt_free(pkt);
	changes_free(cs, 2);
}

static void test_update_and_delete_are_value_dependent(void **state)
{
	dnsb_change *cs[] = {
		change_new(DNSB_CHANGE_UPDATE, "u.example.test.", LDNS_RR_TYPE_A, "192.0.2.1", "192.0.2.2"),
		change_new(DNSB_CHANGE_DELETE, "d.example.test.", LDNS_RR_TYPE_TXT, "\"bye\"", NULL),
	};
	/* Exactly the old RDATA (all of it), TTL 0. */
	static const char *const pr[] = {
		"u.example.test. IN A 0 192.0.2.1",
		"u.example.test. IN A 0 192.0.2.9",
		"d.example.test. IN TXT 0 \"bye\"",
	};
	static const char *const up[] = {
		"u.example.test. ANY A 0",  /* deletions first */
		"d.example.test. ANY TXT 0",
		"u.example.test. IN A 600 192.0.2.2",
	};
	ldns_pkt *pkt;

	(void)state;
	assert_int_equal(dnsb_rrset_add_rdata(&cs[0]->old, "192.0.2.9"), 0);
	pkt = build(cs, 2);
	assert_rrs(ldns_pkt_answer(pkt), pr, 3);
	assert_rrs(ldns_pkt_authority(pkt), up, 3);
	ldns_pkt_free(pkt);
	changes_free(cs, 2);
}

static void test_switch_in_one_batch_keeps_what_the_removal_allows(void **state)
{
	/* A -> CNAME at s1, CNAME -> A at s2, as external-dns plans them: delete + create. */
	dnsb_change *cs[] = {
		change_new(DNSB_CHANGE_DELETE, "s1.example.test.", LDNS_RR_TYPE_A, "192.0.2.1", NULL),
		change_new(DNSB_CHANGE_CREATE, "s1.example.test.", LDNS_RR_TYPE_CNAME, NULL, "t.example.test."),
		change_new(DNSB_CHANGE_DELETE, "s2.example.test.", LDNS_RR_TYPE_CNAME, "t.example.test.", NULL),
		change_new(DNSB_CHANGE_CREATE, "s2.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.2"),
	};
	static const char *const pr[] = {
		"s1.example.test. IN A 0 192.0.2.1",
		"s1.example.test. NONE CNAME 0",  /* not NONE ANY: the A goes first */
		"s2.example.test. IN CNAME 0 t.example.test.",
		"s2.example.test. NONE A 0",      /* not NONE CNAME: the CNAME goes first */
	};
	static const char *const up[] = {
		"s1.example.test. ANY A 0",
		"s2.example.test. ANY CNAME 0",
		"s1.example.test. IN CNAME 600 t.example.test.",
		"s2.example.test. IN A 600 192.0.2.2",
	};
	ldns_pkt *pkt;

	(void)state;
	pkt = build(cs, 4);
	assert_rrs(ldns_pkt_answer(pkt), pr, 4);
	assert_rrs(ldns_pkt_authority(pkt), up, 4);
	ldns_pkt_free(pkt);
	changes_free(cs, 4);
}

static void test_probe_has_prerequisites_only(void **state)
{
	dnsb_change *cs[] = {
		change_new(DNSB_CHANGE_CREATE, "a.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.1"),
		change_new(DNSB_CHANGE_DELETE, "d.example.test.", LDNS_RR_TYPE_A, "192.0.2.3", NULL),
		change_new(DNSB_CHANGE_CREATE, "c.example.test.", LDNS_RR_TYPE_AAAA, NULL, "2001:db8::1"),
	};
	static const char *const pr[] = { "d.example.test. IN A 0 192.0.2.3", "c.example.test. NONE AAAA 0",
					  "c.example.test. NONE CNAME 0" };
	ldns_pkt *pkt = NULL;
	dnsb_error err = { 0, "" };

	(void)state;
	assert_int_equal(dnsb_rfc2136_probe_build(&pkt, "example.test.", cs, 3, 1, 2, &err), 0);
	assert_rrs(ldns_pkt_answer(pkt), pr, 3);
	assert_int_equal(ldns_rr_list_rr_count(ldns_pkt_authority(pkt)), 0);
	ldns_pkt_free(pkt);
	changes_free(cs, 3);
}

static void test_bad_record_is_named(void **state)
{
	dnsb_change *cs[] = {
		change_new(DNSB_CHANGE_CREATE, "a.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.1"),
		change_new(DNSB_CHANGE_CREATE, "b.example.test.", LDNS_RR_TYPE_A, NULL, "999.1.1.1"),
	};
	ldns_pkt *pkt = NULL;
	dnsb_error err = { 0, "" };
	size_t bad = 99;

	(void)state;
	assert_int_equal(dnsb_rfc2136_update_build(&pkt, "example.test.", cs, 2, &bad, &err), DNSB_EINVAL);
	assert_null(pkt);
	assert_int_equal(bad, 1);
	assert_non_null(strstr(err.message, "b.example.test. A '999.1.1.1'"));
	changes_free(cs, 2);
}

/* ---- classes ---- */

static void test_classify_table(void **state)
{
	static const struct {
		int rcode, tsig;
		dnsb_class cls;
		int status;
		const char *code;
	} table[] = {
		{ LDNS_RCODE_NOERROR, 0, DNSB_CLASS_OK, 0, "" },
		{ LDNS_RCODE_YXRRSET, 0, DNSB_CLASS_CONFLICT, 7, "YXRRSET" },
		{ LDNS_RCODE_NXRRSET, 0, DNSB_CLASS_CONFLICT, 8, "NXRRSET" },
		{ LDNS_RCODE_YXDOMAIN, 0, DNSB_CLASS_CONFLICT, 6, "YXDOMAIN" },
		{ LDNS_RCODE_NXDOMAIN, 0, DNSB_CLASS_CONFLICT, 3, "NXDOMAIN" },
		{ LDNS_RCODE_FORMERR, 0, DNSB_CLASS_INVALID, 1, "FORMERR" },
		{ LDNS_RCODE_SERVFAIL, 0, DNSB_CLASS_TRANSIENT, 2, "SERVFAIL" },
		{ LDNS_RCODE_NOTAUTH, 0, DNSB_CLASS_FATAL, 9, "NOTAUTH" },
		{ LDNS_RCODE_REFUSED, 0, DNSB_CLASS_FATAL, 5, "REFUSED" },
		{ LDNS_RCODE_NOTZONE, 0, DNSB_CLASS_FATAL, 10, "NOTZONE" },
		{ LDNS_RCODE_NOTIMPL, 0, DNSB_CLASS_FATAL, 4, "NOTIMP" },
		{ LDNS_RCODE_NOTAUTH, DNSB_RFC2136_BADSIG, DNSB_CLASS_FATAL, 16, "BADSIG" },
		{ LDNS_RCODE_NOTAUTH, DNSB_RFC2136_BADKEY, DNSB_CLASS_FATAL, 17, "BADKEY" },
		{ LDNS_RCODE_NOTAUTH, DNSB_RFC2136_BADTIME, DNSB_CLASS_FATAL, 18, "BADTIME" },
	};
	dnsb_change *cs[] = {
		change_new(DNSB_CHANGE_CREATE, "a.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.1"),
		change_new(DNSB_CHANGE_CREATE, "b.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.2"),
	};
	dnsb_result res;

	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		dnsb_rfc2136_classify(&res, table[i].rcode, table[i].tsig, "example.test.", cs, 2, "127.0.0.1#53");
		if (res.cls != table[i].cls || res.status != table[i].status || strcmp(res.code, table[i].code) != 0)
			fail_msg("rcode %d tsig %d: class %d status %d code %s", table[i].rcode, table[i].tsig,
				 res.cls, res.status, res.code);
		assert_int_equal(res.culprit_count, 0);
		if (table[i].cls != DNSB_CLASS_OK)
			assert_non_null(strstr(res.message, table[i].code));
	}
	changes_free(cs, 2);
}

static void test_classify_names_a_single_change(void **state)
{
	dnsb_change *cs[] = {
		change_new(DNSB_CHANGE_CREATE, "www.example.test.", LDNS_RR_TYPE_CNAME, NULL, "a.example.test."),
		change_new(DNSB_CHANGE_DELETE, "old.example.test.", LDNS_RR_TYPE_TXT, "\"x\"", NULL),
	};
	dnsb_result res;

	(void)state;
	dnsb_rfc2136_classify(&res, LDNS_RCODE_YXDOMAIN, 0, "example.test.", cs, 1, "127.0.0.1#53");
	assert_string_equal(res.message, "www.example.test. CNAME (create): 127.0.0.1#53 answered YXDOMAIN: the name "
					 "already holds other records, so a CNAME cannot be added");
	dnsb_rfc2136_classify(&res, LDNS_RCODE_NXRRSET, 0, "example.test.", cs + 1, 1, "127.0.0.1#53");
	assert_non_null(strstr(res.message, "old.example.test. TXT (delete)"));
	assert_non_null(strstr(res.message, "expected old RDATA"));
	dnsb_rfc2136_classify(&res, LDNS_RCODE_NOTAUTH, DNSB_RFC2136_BADSIG, "example.test.", cs, 2, "127.0.0.1#53");
	assert_string_equal(res.message, "127.0.0.1#53 answered NOTAUTH (TSIG error BADSIG): the TSIG secret does not "
					 "match the server's key");
	changes_free(cs, 2);
}

/* ---- RRs back to RRsets ---- */

static void test_rrsets_from_axfr(void **state)
{
	static const char *const rrs[] = {
		"example.test. 300 IN SOA ns1.example.test. h.example.test. 7 3600 600 86400 300",
		"WWW.Example.Test. 300 IN A 192.0.2.2",
		"ns1.example.test. 300 IN A 192.0.2.53",
		"www.example.test. 300 IN A 192.0.2.1",
		"t.example.test. 60 IN TXT \"hello world\" \"two\"",
		"c.example.test. 300 IN CNAME WWW.example.test.",
		"example.test. 300 IN SOA ns1.example.test. h.example.test. 7 3600 600 86400 300",
	};
	ldns_rr_list *list = ldns_rr_list_new();
	dnsb_rrset_list out = { 0 };
	const dnsb_rrset *www, *t, *c;
	char *canon = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(rrs) / sizeof(rrs[0]); i++) {
		ldns_rr *rr = NULL;
		assert_int_equal(ldns_rr_new_frm_str(&rr, rrs[i], 0, NULL, NULL), LDNS_STATUS_OK);
		ldns_rr_list_push_rr(list, rr);
	}
	assert_int_equal(dnsb_rfc2136_rrsets_from_rrs(&out, list, NULL, 0), 0);
	assert_int_equal(out.count, 5); /* SOA (once), A ns1, A www, TXT t, CNAME c */
	assert_int_equal(dnsb_rrset_list_find(&out, "example.test.", LDNS_RR_TYPE_SOA)->rdata_count, 1);
	www = dnsb_rrset_list_find(&out, "www.example.test.", LDNS_RR_TYPE_A);
	assert_non_null(www);
	assert_int_equal(www->rdata_count, 2);
	assert_string_equal(www->rdata[0], "192.0.2.1");
	assert_int_equal(www->ttl, 300);
	c = dnsb_rrset_list_find(&out, "c.example.test.", LDNS_RR_TYPE_CNAME);
	assert_string_equal(c->rdata[0], "www.example.test.");
	/* The same canonical form as the plan's RDATA, so verify-before-drop can compare. */
	t = dnsb_rrset_list_find(&out, "t.example.test.", LDNS_RR_TYPE_TXT);
	assert_int_equal(dnsb_rdata_canonical(&canon, LDNS_RR_TYPE_TXT, "\"hello world\" \"two\"", NULL), 0);
	assert_string_equal(t->rdata[0], canon);
	free(canon);
	dnsb_rrset_list_clear(&out);
	assert_int_equal(dnsb_rfc2136_rrsets_from_rrs(&out, list, "www.example.test.", LDNS_RR_TYPE_A), 0);
	assert_int_equal(out.count, 1);
	dnsb_rrset_list_clear(&out);
	ldns_rr_list_deep_free(list);
}

/* ---- network failures, against sockets of our own ---- */

static int listener(unsigned *port)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

static dnsb_provider *open_at(unsigned port, const char *timeout)
{
	char portstr[8];
	/* No snapshot: the scripted server answers one connection at a time, and transfers no zone. */
	const char *kv[] = { "rfc2136-host", "127.0.0.1", "rfc2136-port", portstr, "rfc2136-zone", "example.test",
			     "rfc2136-tsig-keyname", "dnsbatch-key", "rfc2136-timeout", timeout,
			     "rfc2136-snapshot-max", "0", NULL };
	dnsb_config *cfg;
	dnsb_provider *p = NULL;
	dnsb_error err = { 0, "" };

	snprintf(portstr, sizeof(portstr), "%u", port);
	cfg = config(kv);
	setenv(DNSB_RFC2136_SECRET_ENV, SECRET, 1);
	assert_int_equal(dnsb_provider_open(&p, "rfc2136", cfg, &err), 0);
	unsetenv(DNSB_RFC2136_SECRET_ENV);
	dnsb_config_free(cfg);
	assert_int_equal(dnsb_provider_zone_count(p), 1);
	assert_string_equal(dnsb_provider_zone(p, 0), "example.test.");
	assert_int_equal(dnsb_provider_get_limits(p)->max_changes, DNSB_RFC2136_BATCH_DEFAULT);
	assert_int_equal(dnsb_provider_get_limits(p)->names_culprit, 1);
	return p;
}

static void test_refused_connection_is_transient(void **state)
{
	unsigned port;
	int fd = listener(&port);
	dnsb_provider *p;
	dnsb_change *cs[] = { change_new(DNSB_CHANGE_CREATE, "a.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.1") };
	dnsb_result res;
	dnsb_error err = { 0, "" };
	dnsb_rrset_list out = { 0 };

	(void)state;
	close(fd); /* nothing listens there now */
	p = open_at(port, "2");
	assert_int_equal(dnsb_provider_submit(p, "example.test.", cs, 1, 0, &res, NULL, &err), 0);
	assert_int_equal(res.cls, DNSB_CLASS_TRANSIENT);
	assert_non_null(strstr(res.message, "Connection refused"));
	assert_int_equal(dnsb_provider_list(p, "example.test.", &out, &err), DNSB_ETRANSIENT);
	assert_null(strstr(err.message, SECRET));
	dnsb_provider_free(p);
	changes_free(cs, 1);
}

static void test_silent_server_times_out(void **state)
{
	unsigned port;
	int fd = listener(&port); /* accepts (backlog) but never answers */
	dnsb_provider *p = open_at(port, "0.3");
	dnsb_change *cs[] = { change_new(DNSB_CHANGE_CREATE, "a.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.1") };
	dnsb_rrkey key = { "a.example.test.", LDNS_RR_TYPE_A };
	dnsb_rrset_list out = { 0 };
	dnsb_result res;
	dnsb_error err = { 0, "" };
	struct timespec t0, t1;
	double secs;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(dnsb_provider_submit(p, "example.test.", cs, 1, 0, &res, NULL, &err), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_int_equal(res.cls, DNSB_CLASS_TRANSIENT);
	assert_non_null(strstr(res.message, "no reply from 127.0.0.1#"));
	assert_true(secs >= 0.25 && secs < 2.0);
	assert_int_equal(dnsb_provider_read(p, "example.test.", &key, 1, 0, &out, NULL, &err), DNSB_ETRANSIENT);
	assert_int_equal(out.count, 0);
	dnsb_provider_free(p);
	close(fd);
	changes_free(cs, 1);
}

/* The engine's time left (ops timeout) bounds a request below --rfc2136-timeout. */
static void test_time_left_bounds_the_wait(void **state)
{
	unsigned port;
	int fd = listener(&port); /* accepts (backlog) but never answers */
	dnsb_provider *p = open_at(port, "10");
	dnsb_change *cs[] = { change_new(DNSB_CHANGE_CREATE, "a.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.1") };
	dnsb_rrkey keys[] = { { "a.example.test.", LDNS_RR_TYPE_A }, { "b.example.test.", LDNS_RR_TYPE_A } };
	dnsb_rrset_list out = { 0 };
	dnsb_result res;
	dnsb_error err = { 0, "" };
	double secs;

	(void)state;
	assert_int_equal(dnsb_provider_submit(p, "example.test.", cs, 1, 0.3, &res, &secs, &err), 0);
	assert_int_equal(res.cls, DNSB_CLASS_TRANSIENT);
	assert_non_null(strstr(res.message, "within 0.3 s"));
	assert_true(secs >= 0.25 && secs < 2.0);
	/* A read of two keys ends within the time left too. */
	assert_int_equal(dnsb_provider_read(p, "example.test.", keys, 2, 0.3, &out, &secs, &err), DNSB_ETRANSIENT);
	assert_true(secs >= 0.25 && secs < 1.0);
	dnsb_provider_free(p);
	close(fd);
	changes_free(cs, 1);
}

static void test_oversized_batch_is_too_large_without_sending(void **state)
{
	/* 300 TXT RRsets of 250 bytes: more than 64 KiB; nothing listens, nothing is needed. */
	enum { N = 300 };
	dnsb_change *cs[N];
	dnsb_provider *p = open_at(9, "1");
	dnsb_result res;
	dnsb_error err = { 0, "" };
	char owner[64], txt[260];

	(void)state;
	memset(txt, 'x', sizeof(txt));
	txt[0] = '"';
	txt[251] = '"';
	txt[252] = '\0';
	for (size_t i = 0; i < N; i++) {
		snprintf(owner, sizeof(owner), "t%zu.example.test.", i);
		cs[i] = change_new(DNSB_CHANGE_CREATE, owner, LDNS_RR_TYPE_TXT, NULL, txt);
	}
	assert_int_equal(dnsb_provider_submit(p, "example.test.", cs, N, 0, &res, NULL, &err), 0);
	assert_int_equal(res.cls, DNSB_CLASS_TOO_LARGE);
	assert_non_null(strstr(res.message, "DNS allows 65535"));
	dnsb_provider_free(p);
	changes_free(cs, N);
}

/* ---- a scripted server in a thread: replies built and signed with ldns ---- */

typedef struct fake_server {
	int listen_fd;
	unsigned port;
	pthread_t thread;
	/* The reply's rcode for a query; the query is borrowed. */
	int (*rcode_for)(const ldns_pkt *query);
	size_t requests_per_connection; /* close the connection after this many; 0 = never */
	int sign;                       /* sign replies with the key */
	int id_offset;                  /* added to the reply's ID */
	int reset;                      /* close with a TCP reset (RST), not FIN */
	size_t lose_at;                 /* this request (1-based) is read, counted and its connection closed unanswered */
	/* Adds records to a reply; may be NULL. */
	void (*fill)(const ldns_pkt *query, ldns_pkt *reply);
	_Atomic size_t connections, requests; /* counted by the thread */
	_Atomic size_t stop_after;            /* requests in all, then the thread ends */
} fake_server;

static int rcode_noerror(const ldns_pkt *query)
{
	(void)query;
	return LDNS_RCODE_NOERROR;
}

/* YXRRSET when a prerequisite names c.example.test., as a server would for "c exists". */
static int rcode_c_exists(const ldns_pkt *query)
{
	const ldns_rr_list *pr = ldns_pkt_answer(query);

	for (size_t i = 0; i < ldns_rr_list_rr_count(pr); i++) {
		char *owner = ldns_rdf2str(ldns_rr_owner(ldns_rr_list_rr(pr, i)));
		int hit = strcmp(owner, "c.example.test.") == 0;
		free(owner);
		if (hit)
			return LDNS_RCODE_YXRRSET;
	}
	return LDNS_RCODE_NOERROR;
}

static int fake_reply(fake_server *fs, int fd, const uint8_t *wire, size_t size)
{
	ldns_pkt *query = NULL, *reply;
	ldns_buffer *out = ldns_buffer_new(512);
	ldns_rdf *mac;
	int ok;

	if (ldns_wire2pkt(&query, wire, size) != LDNS_STATUS_OK)
		return 0;
	reply = ldns_pkt_clone(query);
	ldns_rr_free(ldns_pkt_tsig(reply));
	ldns_pkt_set_tsig(reply, NULL);
	ldns_pkt_set_qr(reply, true);
	ldns_pkt_set_rcode(reply, (uint8_t)fs->rcode_for(query));
	ldns_pkt_set_id(reply, (uint16_t)(ldns_pkt_id(query) + fs->id_offset));
	if (fs->fill)
		fs->fill(query, reply);
	mac = ldns_pkt_tsig(query) ? ldns_rr_rdf(ldns_pkt_tsig(query), 3) : NULL;
	/* No cmocka assert here: this is not the test's thread. A failure shows as a wrong reply. */
	ok = (!fs->sign || !mac ||
	      ldns_pkt_tsig_sign(reply, "dnsbatch-key.", SECRET, 300, "hmac-sha256.", mac) == LDNS_STATUS_OK) &&
	     ldns_pkt2buffer_wire(out, reply) == LDNS_STATUS_OK && ldns_tcp_send_query(out, fd, NULL, 0) > 0;
	ldns_buffer_free(out);
	ldns_pkt_free(reply);
	ldns_pkt_free(query);
	return ok;
}

static void *fake_run(void *arg)
{
	fake_server *fs = arg;
	struct timeval tv = { 5, 0 };

	while (fs->requests < fs->stop_after) {
		int fd = accept(fs->listen_fd, NULL, NULL);
		size_t on_this = 0;

		if (fd < 0)
			break;
		fs->connections++;
		while (fs->requests < fs->stop_after) {
			size_t size = 0;
			uint8_t *wire = ldns_tcp_read_wire_timeout(fd, &size, tv);
			if (wire == NULL)
				break;
			fs->requests++;
			on_this++;
			if (fs->lose_at && fs->requests == fs->lose_at) {
				free(wire); /* committed, say, and the reply lost: the connection closes */
				break;
			}
			fake_reply(fs, fd, wire, size);
			free(wire);
			if (fs->requests_per_connection && on_this == fs->requests_per_connection)
				break;
		}
		if (fs->reset) {
			struct linger lg = { 1, 0 };
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		}
		close(fd);
	}
	return NULL;
}

static void fake_start(fake_server *fs)
{
	fs->listen_fd = listener(&fs->port);
	assert_int_equal(pthread_create(&fs->thread, NULL, fake_run, fs), 0);
}

static void fake_stop(fake_server *fs)
{
	pthread_join(fs->thread, NULL);
	close(fs->listen_fd);
}

static void test_pooled_connection_closed_by_server_is_replaced(void **state)
{
	fake_server fs = { .rcode_for = rcode_noerror, .requests_per_connection = 1, .sign = 1, .stop_after = 3 };
	dnsb_change *cs[] = { change_new(DNSB_CHANGE_CREATE, "a.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.1") };
	dnsb_provider *p;
	dnsb_result res;
	dnsb_error err = { 0, "" };

	(void)state;
	fake_start(&fs);
	p = open_at(fs.port, "2");
	for (int i = 0; i < 3; i++) {
		/* The server closed the pooled connection after each reply: the next send must notice and reconnect. */
		assert_int_equal(dnsb_provider_submit(p, "example.test.", cs, 1, 0, &res, NULL, &err), 0);
		if (res.cls != DNSB_CLASS_OK)
			fail_msg("submission %d: class %d: %s", i, res.cls, res.message);
		usleep(20000); /* let the close arrive before the next send (one racing it is a lost reply: below) */
	}
	fake_stop(&fs);
	assert_int_equal(fs.connections, 3);
	assert_int_equal(fs.requests, 3);
	dnsb_provider_free(p);
	changes_free(cs, 1);
}

/*
 * The server reads an UPDATE on a pooled connection and closes it without a
 * reply (it may have committed it: a lost reply). The UPDATE is not sent
 * again on a fresh connection behind the engine's back, where a refusal of
 * this run's own commit would read as a conflict (conformance scenario 013 on
 * BIND): the answer is transient, and the engine reads back.
 */
static void test_update_closed_unanswered_not_sent_again(void **state)
{
	fake_server fs = { .rcode_for = rcode_noerror, .sign = 1, .lose_at = 2, .stop_after = 3 };
	dnsb_change *cs[] = { change_new(DNSB_CHANGE_CREATE, "a.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.1") };
	dnsb_provider *p;
	dnsb_result res;
	dnsb_error err = { 0, "" };

	(void)state;
	fake_start(&fs);
	p = open_at(fs.port, "2");
	assert_int_equal(dnsb_provider_submit(p, "example.test.", cs, 1, 0, &res, NULL, &err), 0);
	assert_int_equal(res.cls, DNSB_CLASS_OK);
	assert_int_equal(dnsb_provider_submit(p, "example.test.", cs, 1, 0, &res, NULL, &err), 0);
	if (res.cls != DNSB_CLASS_TRANSIENT)
		fail_msg("class %d (%s), expected transient; requests %zu", res.cls, res.message, (size_t)fs.requests);
	assert_int_equal(fs.requests, 2);
	assert_int_equal(dnsb_provider_submit(p, "example.test.", cs, 1, 0, &res, NULL, &err), 0);
	assert_int_equal(res.cls, DNSB_CLASS_OK);
	fake_stop(&fs);
	assert_int_equal(fs.requests, 3);
	dnsb_provider_free(p);
	changes_free(cs, 1);
}

static void test_reset_connection_neither_kills_nor_fails(void **state)
{
	/* A write on a reset connection fails (ECONNRESET; or EPIPE and SIGPIPE, which would end the process). */
	fake_server fs = { .rcode_for = rcode_noerror, .requests_per_connection = 1, .sign = 1, .reset = 1,
			   .stop_after = 3 };
	dnsb_change *cs[] = { change_new(DNSB_CHANGE_CREATE, "a.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.1") };
	dnsb_provider *p;
	dnsb_result res;
	dnsb_error err = { 0, "" };

	(void)state;
	fake_start(&fs);
	p = open_at(fs.port, "2");
	for (int i = 0; i < 3; i++) {
		assert_int_equal(dnsb_provider_submit(p, "example.test.", cs, 1, 0, &res, NULL, &err), 0);
		if (res.cls != DNSB_CLASS_OK)
			fail_msg("submission %d: class %d: %s", i, res.cls, res.message);
		usleep(20000); /* let the reset arrive before the next write */
	}
	fake_stop(&fs);
	assert_int_equal(fs.connections, 3);
	dnsb_provider_free(p);
	changes_free(cs, 1);
}

static void push_rr(ldns_pkt *pkt, ldns_pkt_section section, const char *text)
{
	ldns_rr *rr = NULL;

	if (ldns_rr_new_frm_str(&rr, text, 0, NULL, NULL) == LDNS_STATUS_OK)
		ldns_pkt_push_rr(pkt, section, rr);
}

/* What an authoritative server answers: a CNAME chain for x, a referral for the delegated sub. */
static void fill_answers(const ldns_pkt *query, ldns_pkt *reply)
{
	char *qname = ldns_rdf2str(ldns_rr_owner(ldns_rr_list_rr(ldns_pkt_question(query), 0)));

	if (strcmp(qname, "x.example.test.") == 0) {
		push_rr(reply, LDNS_SECTION_ANSWER, "x.example.test. 300 IN CNAME y.example.test.");
		push_rr(reply, LDNS_SECTION_ANSWER, "y.example.test. 300 IN A 192.0.2.7");
	} else if (strcmp(qname, "Y.example.test.") == 0 || strcmp(qname, "y.example.test.") == 0) {
		push_rr(reply, LDNS_SECTION_ANSWER, "Y.Example.Test. 60 IN A 192.0.2.8");
		push_rr(reply, LDNS_SECTION_ANSWER, "y.example.test. 60 IN A 192.0.2.7");
	} else if (strcmp(qname, "sub.example.test.") == 0) {
		push_rr(reply, LDNS_SECTION_AUTHORITY, "sub.example.test. 300 IN NS ns.sub.example.test.");
	} else {
		ldns_pkt_set_rcode(reply, LDNS_RCODE_NXDOMAIN);
		push_rr(reply, LDNS_SECTION_AUTHORITY,
			"example.test. 300 IN SOA ns1.example.test. h.example.test. 1 3600 600 86400 300");
	}
	free(qname);
}

static void test_read_takes_only_the_asked_rrset(void **state)
{
	fake_server fs = { .rcode_for = rcode_noerror, .sign = 1, .fill = fill_answers, .stop_after = 4 };
	const dnsb_rrkey keys[] = {
		{ "x.example.test.", LDNS_RR_TYPE_A },    /* a CNAME: no A of its own */
		{ "y.example.test.", LDNS_RR_TYPE_A },    /* two records, one RRset, case folded */
		{ "sub.example.test.", LDNS_RR_TYPE_NS }, /* from the referral */
		{ "gone.example.test.", LDNS_RR_TYPE_A }, /* NXDOMAIN: absent, not an error */
	};
	dnsb_rrset_list out = { 0 };
	dnsb_error err = { 0, "" };
	dnsb_provider *p;
	const dnsb_rrset *y, *sub;

	(void)state;
	fake_start(&fs);
	p = open_at(fs.port, "2");
	if (dnsb_provider_read(p, "example.test.", keys, 4, 0, &out, NULL, &err) != 0)
		fail_msg("read: %s", err.message);
	dnsb_provider_free(p);
	fake_stop(&fs);
	assert_int_equal(out.count, 2);
	y = dnsb_rrset_list_find(&out, "y.example.test.", LDNS_RR_TYPE_A);
	assert_non_null(y);
	assert_int_equal(y->rdata_count, 2);
	assert_int_equal(y->ttl, 60);
	sub = dnsb_rrset_list_find(&out, "sub.example.test.", LDNS_RR_TYPE_NS);
	assert_non_null(sub);
	assert_string_equal(sub->rdata[0], "ns.sub.example.test.");
	dnsb_rrset_list_clear(&out);
}

static void test_untrusted_replies_are_transient(void **state)
{
	dnsb_change *cs[] = { change_new(DNSB_CHANGE_CREATE, "a.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.1") };
	dnsb_result res;
	dnsb_error err = { 0, "" };

	(void)state;
	{
		fake_server fs = { .rcode_for = rcode_noerror, .sign = 0, .stop_after = 1 };
		dnsb_provider *p;
		fake_start(&fs);
		p = open_at(fs.port, "2");
		assert_int_equal(dnsb_provider_submit(p, "example.test.", cs, 1, 0, &res, NULL, &err), 0);
		fake_stop(&fs);
		assert_int_equal(res.cls, DNSB_CLASS_TRANSIENT);
		assert_non_null(strstr(res.message, "without a valid TSIG signature"));
		dnsb_provider_free(p);
	}
	{
		fake_server fs = { .rcode_for = rcode_noerror, .sign = 1, .id_offset = 1, .stop_after = 1 };
		dnsb_provider *p;
		fake_start(&fs);
		p = open_at(fs.port, "2");
		assert_int_equal(dnsb_provider_submit(p, "example.test.", cs, 1, 0, &res, NULL, &err), 0);
		fake_stop(&fs);
		assert_int_equal(res.cls, DNSB_CLASS_TRANSIENT);
		assert_non_null(strstr(res.message, "wrong ID"));
		dnsb_provider_free(p);
	}
	changes_free(cs, 1);
}

static void test_conflict_names_the_culprit(void **state)
{
	/* 1 UPDATE (fails) + probes [a,b) ok, [c..e) fails: [c] fails -> c is the culprit. */
	fake_server fs = { .rcode_for = rcode_c_exists, .sign = 1, .stop_after = 1000 };
	dnsb_change *cs[] = {
		change_new(DNSB_CHANGE_CREATE, "a.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.1"),
		change_new(DNSB_CHANGE_CREATE, "b.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.2"),
		change_new(DNSB_CHANGE_CREATE, "c.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.3"),
		change_new(DNSB_CHANGE_CREATE, "d.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.4"),
		change_new(DNSB_CHANGE_CREATE, "e.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.5"),
	};
	dnsb_provider *p;
	dnsb_result res;
	dnsb_error err = { 0, "" };

	(void)state;
	fake_start(&fs);
	p = open_at(fs.port, "2");
	assert_int_equal(dnsb_provider_submit(p, "example.test.", cs, 5, 0, &res, NULL, &err), 0);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 2);
	assert_string_equal(res.code, "YXRRSET");
	assert_non_null(strstr(res.message, "c.example.test. A (create)"));
	/* Whole batch, then ranges [0,2) ok, [2,3) fails: 3 messages in all. */
	assert_int_equal(fs.requests, 3);
	fs.stop_after = fs.requests; /* let the thread end */
	dnsb_provider_free(p);       /* closes the pooled connection: the thread's read ends */
	fake_stop(&fs);
	changes_free(cs, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keyfile_tsig_keygen),
		cmocka_unit_test(test_keyfile_several_keys_and_comments),
		cmocka_unit_test(test_keyfile_errors_never_show_the_secret),
		cmocka_unit_test(test_algorithms),
		cmocka_unit_test(test_config_secret_from_env),
		cmocka_unit_test(test_config_keyfile),
		cmocka_unit_test(test_config_errors_name_the_flag),
		cmocka_unit_test(test_config_secret_checks),
		cmocka_unit_test(test_create_prerequisites),
		cmocka_unit_test(test_update_and_delete_are_value_dependent),
		cmocka_unit_test(test_switch_in_one_batch_keeps_what_the_removal_allows),
		cmocka_unit_test(test_probe_has_prerequisites_only),
		cmocka_unit_test(test_bad_record_is_named),
		cmocka_unit_test(test_classify_table),
		cmocka_unit_test(test_classify_names_a_single_change),
		cmocka_unit_test(test_rrsets_from_axfr),
		cmocka_unit_test(test_refused_connection_is_transient),
		cmocka_unit_test(test_silent_server_times_out),
		cmocka_unit_test(test_time_left_bounds_the_wait),
		cmocka_unit_test(test_oversized_batch_is_too_large_without_sending),
		cmocka_unit_test(test_pooled_connection_closed_by_server_is_replaced),
		cmocka_unit_test(test_update_closed_unanswered_not_sent_again),
		cmocka_unit_test(test_reset_connection_neither_kills_nor_fails),
		cmocka_unit_test(test_read_takes_only_the_asked_rrset),
		cmocka_unit_test(test_untrusted_replies_are_transient),
		cmocka_unit_test(test_conflict_names_the_culprit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
