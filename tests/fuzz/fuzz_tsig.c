/*
 * fuzz_tsig.c - libFuzzer: any bytes as the TSIG key of the rfc2136
 * provider, from each of its sources (the first byte % 3 picks one:
 * $DNSBATCH_RFC2136_TSIG_SECRET, --rfc2136-tsig-secret-file, or a BIND key
 * file for --rfc2136-tsig-keyfile; (first byte / 3) % 5 a
 * --rfc2136-tsig-secret-alg or none), read by dnsb_rfc2136_config_parse
 * (its base64 check), then used as dnsb_rfc2136_prepare uses it: an UPDATE
 * signed by ldns (which decodes the base64 again). A key accepted must
 * sign, and the signed message must verify with the same key.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnsbatch/config.h"
#include "providers/rfc2136/internal.h"
#include "fuzz_common.h"

static dnsb_change *change(void)
{
	static dnsb_change c;

	if (c.new_set.owner == NULL) {
		c.kind = DNSB_CHANGE_CREATE;
		c.new_set.owner = strdup("www.example.com.");
		c.new_set.type = LDNS_RR_TYPE_A;
		c.new_set.ttl = 300;
		if (c.new_set.owner == NULL || dnsb_rrset_add_rdata(&c.new_set, "192.0.2.1") != 0)
			abort();
	}
	return &c;
}

/* Sign an UPDATE with the key read, and check the signature with the same key. */
static void sign(const dnsb_rfc2136_config *cfg)
{
	dnsb_change *batch[] = { change() };
	dnsb_rfc2136_net net;
	ldns_pkt *pkt = NULL, *back = NULL;
	ldns_buffer *wire = NULL;
	size_t bad;
	dnsb_error err;

	if (dnsb_rfc2136_net_init(&net, cfg, &err) != 0)
		abort();
	net.keyname = cfg->keyname;
	net.algorithm = cfg->algorithm;
	net.secret = cfg->secret;
	if (dnsb_rfc2136_update_build(&pkt, "example.com.", batch, 1, &bad, &err) != 0)
		abort();
	if (dnsb_rfc2136_prepare(&net, pkt, &wire, NULL, &err) != 0) {
		fprintf(stderr, "a key accepted (%s, %s) does not sign: %s\n", cfg->keyname, cfg->algorithm, err.message);
		abort();
	}
	if (ldns_wire2pkt(&back, ldns_buffer_begin(wire), ldns_buffer_position(wire)) != LDNS_STATUS_OK ||
	    !ldns_pkt_tsig_verify(back, ldns_buffer_begin(wire), ldns_buffer_position(wire), cfg->keyname, cfg->secret,
				  NULL)) {
		fprintf(stderr, "a message signed with key %s (%s) does not verify with it\n", cfg->keyname,
			cfg->algorithm);
		abort();
	}
	ldns_pkt_free(back);
	ldns_buffer_free(wire);
	ldns_pkt_free(pkt);
	dnsb_rfc2136_net_close(&net);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *algs[] = { NULL, "hmac-sha512", "hmac-md5", "hmac-sha1.", "HMAC-SHA256" };
	static char path[64];
	dnsb_rfc2136_config parsed;
	dnsb_config *cfg = NULL;
	dnsb_error err;
	char *text;
	FILE *f;
	int source;

	if (size == 0)
		return 0;
	if (path[0] == '\0')
		snprintf(path, sizeof(path), "/tmp/dnsb-fuzz-tsig-%d", (int)getpid());
	source = data[0] % 3;
	if ((text = strndup((const char *)data + 1, size - 1)) == NULL || dnsb_config_new(&cfg) != 0) {
		free(text);
		return 0;
	}
	unsetenv(DNSB_RFC2136_SECRET_ENV);
	if (source == 0) {
		setenv(DNSB_RFC2136_SECRET_ENV, text, 1);
	} else if ((f = fopen(path, "wb")) != NULL) {
		fwrite(data + 1, 1, size - 1, f);
		fclose(f);
	}
	if (dnsb_config_add(cfg, "rfc2136-host", "127.0.0.1") != 0 || dnsb_config_add(cfg, "rfc2136-zone", "example.com") != 0 ||
	    (source == 1 && dnsb_config_add(cfg, "rfc2136-tsig-secret-file", path) != 0) ||
	    (source == 2 && dnsb_config_add(cfg, "rfc2136-tsig-keyfile", path) != 0) ||
	    (source != 2 && dnsb_config_add(cfg, "rfc2136-tsig-keyname", "dnsbatch-key") != 0) ||
	    (algs[(data[0] / 3) % 5] && dnsb_config_add(cfg, "rfc2136-tsig-secret-alg", algs[(data[0] / 3) % 5]) != 0))
		abort();
	if (dnsb_rfc2136_config_parse(&parsed, cfg, &err) == 0) {
		sign(&parsed);
		dnsb_rfc2136_config_clear(&parsed);
	}
	unsetenv(DNSB_RFC2136_SECRET_ENV);
	if (source != 0)
		unlink(path);
	dnsb_config_free(cfg);
	free(text);
	return 0;
}
