/* fuzz_keyfile.c - libFuzzer: any bytes as a BIND key file (tsig-keygen's format) for --rfc2136-tsig-keyfile. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "providers/rfc2136/internal.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *name, *alg, *secret;
	dnsb_error err;

	if (text == NULL)
		return 0;
	/* odd sizes ask for a named key, even ones take the only key */
	if (dnsb_rfc2136_keyfile_parse(&name, &alg, &secret, text, size % 2 ? "k" : NULL, "fuzz", &err) == 0) {
		free(name);
		free(alg);
		free(secret);
	}
	free(text);
	return 0;
}
