/* version_report.c - `dnsbatch version`: the libraries it runs with and the features built in. */
#include <stdio.h>

#include <curl/curl.h>
#include <hiredis/hiredis.h>
#include <idn2.h>
#include <json-c/json.h>
#include <ldns/ldns.h>
#include <libxml/parser.h>
#include <microhttpd.h>
#include <openssl/crypto.h>

#include "cli.h"
#include "version_report.h"
#include "dnsbatch/sys/provider.h"

/* One "  NAME VERSION" line per library, each from the library's own version call. */
static void print_libraries(void)
{
	const curl_version_info_data *curl = curl_version_info(CURLVERSION_NOW);

	printf("libraries (as loaded):\n");
	printf("  libcurl %s (%s)\n", curl->version, curl->ssl_version ? curl->ssl_version : "no TLS");
	printf("  json-c %s\n", json_c_version());
	printf("  ldns %s\n", ldns_version());
	printf("  %s\n", OpenSSL_version(OPENSSL_VERSION)); /* "OpenSSL 3.0.x DATE" */
	printf("  libmicrohttpd %s\n", MHD_get_version());
	printf("  libidn2 %s\n", idn2_check_version(NULL));
	/* hiredis 0.14 has no version call: the version of the headers built with. */
	printf("  hiredis %d.%d.%d (built with; it has no run-time version call)\n", HIREDIS_MAJOR, HIREDIS_MINOR,
	       HIREDIS_PATCH);
	printf("  libxml2 %s\n", xmlParserVersion);
}

static void print_features(void)
{
	const dnsb_backend *const *b = dnsb_backends();

	printf("features:\n  providers:");
	for (size_t i = 0; b && b[i]; i++)
		printf(" %s", b[i]->name);
	printf("\n  webhook server (serve), Prometheus metrics, drop log, Redis rate budget, IDNA (libidn2),"
	       " RE2 domain filters\n");
#if defined(__SANITIZE_ADDRESS__)
	printf("  built with AddressSanitizer\n");
#endif
}

int dnsb_cli_version_report(void)
{
	printf("dnsbatch %s\n", DNSBATCH_VERSION);
	print_libraries();
	print_features();
	return DNSB_EXIT_OK;
}
