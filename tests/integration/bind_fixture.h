/*
 * bind_fixture.h - a real BIND for the rfc2136 C integration tests, started
 * through servers.sh by a bash that stops it by PID when told to, or when
 * the test process has gone; and a provider opened against it. Test code:
 * failures are cmocka asserts (or -1 from the setup).
 */
#ifndef DNSB_TEST_BIND_FIXTURE_H
#define DNSB_TEST_BIND_FIXTURE_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "applier/core/provider.h"

/* The harness, found beside this file (tests are run from the top directory). */
#define BIND_SERVERS_SH "tests/integration/servers.sh"

typedef struct bind_server {
	FILE *pipe;
	pid_t helper;   /* the bash that owns named; SIGTERM makes it stop named */
	unsigned port;
	char dir[128];
	char key[160];
} bind_server;

/*
 * Start named serving example.test: SOA, NS, ns1 A, then `records`, lines
 * for printf inside single quotes ("taken A 192.0.2.1\\n"). @return 0 or -1
 */
static inline int bind_start(bind_server *srv, const char *records)
{
	char script[2048];
	int pid;

	snprintf(script, sizeof(script),
		 "exec bash -c '"
		 ". " BIND_SERVERS_SH " || exit 1; "
		 "dnsb_servers_init; "
		 "printf \"\\$ORIGIN example.test.\\n\\$TTL 300\\n@ SOA ns1 h 1 3600 600 86400 300\\n@ NS ns1\\n"
		 "ns1 A 192.0.2.53\\n%s\" >\"$DNSB_SERVERS_TMP/zone.db\"; "
		 "dnsb_tsig_keygen \"$DNSB_SERVERS_TMP/key.conf\" || exit 1; "
		 "dnsb_start_named example.test \"$DNSB_SERVERS_TMP/zone.db\" \"$DNSB_SERVERS_TMP/key.conf\" >&2 || exit 1; "
		 "echo \"$$ $DNSB_SERVER_PORT $DNSB_SERVERS_TMP\"; "
		 "while kill -0 $PPID 2>/dev/null; do sleep 0.2 & wait $!; done'",
		 records);
	if ((srv->pipe = popen(script, "r")) == NULL)
		return -1;
	if (fscanf(srv->pipe, "%d %u %127s", &pid, &srv->port, srv->dir) != 3) {
		fprintf(stderr, "named did not start (see above)\n");
		pclose(srv->pipe);
		return -1;
	}
	srv->helper = pid;
	snprintf(srv->key, sizeof(srv->key), "%s/key.conf", srv->dir);
	return 0;
}

static inline void bind_stop(bind_server *srv)
{
	kill(srv->helper, SIGTERM);
	pclose(srv->pipe);
}

/* The server of a test program's group: cmocka's group setup and teardown start and stop it, its zone holding one
 * RRset besides the apex, "taken A 192.0.2.1". */
static bind_server bind_group_server;

static inline int bind_group_setup(void **state)
{
	(void)state;
	return bind_start(&bind_group_server, "taken A 192.0.2.1\\n");
}

static inline int bind_group_teardown(void **state)
{
	(void)state;
	bind_stop(&bind_group_server);
	return 0;
}

/* An rfc2136 provider for example.test on the server; `more` adds flag/value pairs (NULL-terminated, may be NULL). */
static inline dnsb_provider *bind_provider(const bind_server *srv, const char *const *more)
{
	char port[8];
	dnsb_config *cfg;
	dnsb_provider *p = NULL;
	dnsb_error err = { 0, "" };

	snprintf(port, sizeof(port), "%u", srv->port);
	assert_int_equal(dnsb_config_new(&cfg), 0);
	dnsb_config_add(cfg, "rfc2136-host", "127.0.0.1");
	dnsb_config_add(cfg, "rfc2136-port", port);
	dnsb_config_add(cfg, "rfc2136-zone", "example.test");
	dnsb_config_add(cfg, "rfc2136-tsig-keyfile", srv->key);
	for (size_t i = 0; more && more[i]; i += 2)
		dnsb_config_add(cfg, more[i], more[i + 1]);
	if (dnsb_provider_open(&p, "rfc2136", cfg, &err) != 0)
		fail_msg("open: %s", err.message);
	dnsb_config_free(cfg);
	return p;
}

#endif
