/* fuzz_listen.c - libFuzzer: any bytes as a listen address (--listen-address, --metrics-listen-address). */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "applier/webhook/internal.h"
#include "fuzz_common.h"

/* Only addresses getaddrinfo answers without asking DNS: a fuzzer must not send queries. */
static int numeric(const char *host)
{
	unsigned char buf[sizeof(struct in6_addr)];

	return host[0] == '\0' || inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec = fuzz_text(data, size);
	struct dnsb_listen_spec ls;
	struct sockaddr_storage ss;
	socklen_t len;
	dnsb_error err;
	int v6;

	if (spec == NULL)
		return 0;
	if (dnsb_webhook_listen_split(&ls, spec, &err) == 0) {
		if (ls.port > 65535 || strlen(ls.host) >= sizeof(ls.host))
			abort();
		if (numeric(ls.host) && dnsb_webhook_listen_resolve(&ss, &len, &v6, spec, &err) == 0 &&
		    len > sizeof(ss))
			abort();
	} else if (strstr(err.message, "bad listen address") == NULL) {
		abort();
	}
	free(spec);
	return 0;
}
