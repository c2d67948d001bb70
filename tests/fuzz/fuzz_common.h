/*
 * fuzz_common.h - the opening the libFuzzer harnesses share: libFuzzer's entry point declared, the input as a C
 * string, a change of a harness's fixed batch, a reply as the transport (applier/net/http.h) hands it to a backend,
 * and the two answers (unsigned, TSIG-signed) of the RFC 2136 harnesses. Header-only (static inline): each harness is one .c file
 * linked alone with libdnsbatch.a. The loopback TCP server of fuzz_http.c and fuzz_redis.c is loopback_server.h.
 */
#ifndef DNSB_TESTS_FUZZ_COMMON_H
#define DNSB_TESTS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/change.h"
#include "applier/net/http.h"
#include "providers/rfc2136/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (malloc'd: the caller frees it), or NULL when out of memory (the harness
 * skips the input). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (text == NULL)
		return NULL;
	memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

/* A change of `kind` to owner/type with one RDATA, TTL 300, for a harness's fixed batch (calloc'd, kept for the
 * process); aborts when out of memory or the RDATA does not parse (a harness's own fault). */
static inline dnsb_change *fuzz_change(dnsb_change_kind kind, const char *owner, uint16_t type, const char *rdata)
{
	dnsb_change *c = calloc(1, sizeof(*c));
	dnsb_rrset *r;

	if (c == NULL)
		abort();
	c->kind = kind;
	r = kind == DNSB_CHANGE_DELETE ? &c->old : &c->new_set;
	r->owner = strdup(owner);
	r->type = type;
	r->ttl = 300;
	if (r->owner == NULL || dnsb_rrset_add_rdata(r, rdata) != 0)
		abort();
	return c;
}

/* *resp as the transport fills it for a backend's classifier: `status`, the body (borrowed) of `len` octets,
 * Retry-After in seconds (-1: none) and the Content-Type (NULL: none). */
static inline void fuzz_reply(dnsb_http_response *resp, long status, char *body, size_t len, double retry_after,
			      const char *content_type)
{
	memset(resp, 0, sizeof(*resp));
	resp->status = status;
	resp->body = body;
	resp->body_len = len;
	resp->retry_after = retry_after;
	if (content_type != NULL)
		snprintf(resp->content_type, sizeof(resp->content_type), "%s", content_type);
}

/* What an RFC 2136 harness does with the input as the answer to `query` (built for `net`). */
typedef void (*fuzz_dns_answer)(const uint8_t *data, size_t size, const ldns_pkt *query, const dnsb_rfc2136_net *net);

/*
 * The input as the server's answer to `query` (taken: freed here), twice: to the query unsigned, then signed with
 * a TSIG key (hmac-sha256) set on *net, as a server with and one without a key would answer. *net (the harness's
 * static one) gets its server name on the first call.
 */
static inline void fuzz_dns_both(const uint8_t *data, size_t size, ldns_pkt *query, dnsb_rfc2136_net *net,
				 fuzz_dns_answer answer)
{
	if (net->server[0] == '\0')
		strcpy(net->server, "127.0.0.1#53");
	net->keyname = NULL;
	answer(data, size, query, net);
	net->keyname = "dnsbatch-key.";
	net->algorithm = "hmac-sha256.";
	net->secret = "c2VjcmV0IHNlY3JldCBzZWNyZXQgc2VjcmV0IDMyYg==";
	if (ldns_pkt_tsig_sign(query, net->keyname, net->secret, 300, net->algorithm, NULL) == LDNS_STATUS_OK)
		answer(data, size, query, net);
	ldns_pkt_free(query);
}

#endif
