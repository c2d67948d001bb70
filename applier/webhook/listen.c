/* listen.c - a listen address ("HOST:PORT", "[V6]:PORT", ":PORT") into a socket address. */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dnsbatch/common.h"
#include "applier/webhook/internal.h"

static int copy_host(struct dnsb_listen_spec *out, const char *host, size_t len, const char *spec, dnsb_error *err)
{
	if (len >= sizeof(out->host))
		return dnsb_error_set(err, DNSB_EINVAL, "bad listen address \"%s\": host longer than %zu bytes",
				      spec, sizeof(out->host) - 1);
	memcpy(out->host, host, len);
	out->host[len] = '\0';
	return 0;
}

int dnsb_webhook_listen_split(struct dnsb_listen_spec *out, const char *spec, dnsb_error *err)
{
	const char *port;
	size_t digits;
	int rc;

	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');
		if (close == NULL || close[1] != ':')
			return dnsb_error_set(err, DNSB_EINVAL, "bad listen address \"%s\": expected [ADDR]:PORT", spec);
		rc = copy_host(out, spec + 1, (size_t)(close - spec - 1), spec, err);
		port = close + 2;
	} else {
		const char *colon = strrchr(spec, ':');
		if (colon == NULL)
			return dnsb_error_set(err, DNSB_EINVAL, "bad listen address \"%s\": expected HOST:PORT", spec);
		rc = copy_host(out, spec, (size_t)(colon - spec), spec, err);
		port = colon + 1;
	}
	if (rc != 0)
		return rc;
	digits = strspn(port, "0123456789");
	/* Five digits at most after leading zeros: strtoul never sees a number that could overflow. */
	while (digits > 1 && port[0] == '0')
		port++, digits--;
	if (digits == 0 || port[digits] != '\0' || digits > 5 || strtoul(port, NULL, 10) > 65535)
		return dnsb_error_set(err, DNSB_EINVAL, "bad listen address \"%s\": bad port (0 to 65535)", spec);
	out->port = (unsigned)strtoul(port, NULL, 10);
	return 0;
}

int dnsb_webhook_listen_resolve(struct sockaddr_storage *out, socklen_t *outlen, int *v6, const char *spec,
				dnsb_error *err)
{
	struct dnsb_listen_spec ls;
	struct addrinfo hints = { 0 }, *res = NULL;
	char port[8];
	int rc;

	rc = dnsb_webhook_listen_split(&ls, spec, err);
	if (rc != 0)
		return rc;
	snprintf(port, sizeof(port), "%u", ls.port);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	/* ":PORT" means every IPv4 interface, as 0.0.0.0 in the defaults. */
	hints.ai_family = ls.host[0] == '\0' ? AF_INET : AF_UNSPEC;
	rc = getaddrinfo(ls.host[0] ? ls.host : NULL, port, &hints, &res);
	if (rc != 0 || res == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "bad listen address \"%s\": %s", spec,
				      rc != 0 ? gai_strerror(rc) : "no address");
	if (res->ai_addrlen > sizeof(*out)) {
		freeaddrinfo(res);
		return dnsb_error_set(err, DNSB_EINVAL, "bad listen address \"%s\": address too long", spec);
	}
	memcpy(out, res->ai_addr, res->ai_addrlen);
	*outlen = res->ai_addrlen;
	*v6 = res->ai_family == AF_INET6;
	freeaddrinfo(res);
	return 0;
}
