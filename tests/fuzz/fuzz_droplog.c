/* fuzz_droplog.c - libFuzzer: any bytes as a drop log read by `dnsbatch drops` (dnsb_drops_read), then its plan printed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "applier/obs/droplog_read.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	dnsb_drops d = { 0 };
	dnsb_error err;

	if (f == NULL)
		return 0;
	static const char *const by[] = { "cause", "owner", "type", NULL };
	dnsb_drops_query q = { size % 2 ? "dropped" : NULL, NULL, size % 3 ? by : NULL, (int)(size % 5 == 0) };

	if (dnsb_drops_read(&d, f, "fuzz.jsonl", &q, &err) == 0 && d.plan)
		(void)json_object_to_json_string(d.plan);
	dnsb_drops_clear(&d);
	fclose(f);
	return 0;
}
