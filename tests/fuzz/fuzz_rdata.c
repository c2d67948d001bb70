/* fuzz_rdata.c - libFuzzer: RDATA of any type (first two bytes) and owner names through ldns canonicalisation. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/change.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *out = NULL;
	uint16_t type;

	if (size < 2)
		return 0;
	type = (uint16_t)(data[0] << 8 | data[1]);
	if ((text = malloc(size - 1)) == NULL)
		return 0;
	memcpy(text, data + 2, size - 2);
	text[size - 2] = '\0';
	if (dnsb_rdata_canonical(&out, type, text, NULL) == 0) {
		char *again = NULL;
		/* canonical form is a fixed point */
		if (dnsb_rdata_canonical(&again, type, out, NULL) != 0 || strcmp(again, out) != 0)
			abort();
		free(again);
	}
	free(out);
	out = NULL;
	if (dnsb_name_canonical(&out, text, NULL) == 0)
		free(out);
	free(text);
	return 0;
}
