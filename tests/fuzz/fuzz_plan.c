/* fuzz_plan.c - libFuzzer: any bytes as a plan; parse, then group and batch (dry run) against a memory zone. */
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "dnsbatch/dnsbatch.h"
#include "dnsbatch/memory.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static dnsb_provider *p;
	const char *zones[] = { "example.com.", "sub.example.com." };
	dnsb_plan *plan = NULL;
	dnsb_error err;

	if (p == NULL) {
		dnsb_log_set_level(DNSB_LOG_ERROR);
		if (dnsb_memory_new(&p, zones, 2, NULL, NULL) < 0)
			return 0;
	}
	if (dnsb_plan_parse(&plan, (const char *)data, size, "fuzz", &err) == 0) {
		dnsb_engine_options o = DNSB_ENGINE_OPTIONS_INIT;
		dnsb_report rep;
		o.dry_run = 1;
		o.batch_size = 3;
		if (dnsb_engine_apply(&rep, p, plan, &o, &err) == 0)
			dnsb_report_clear(&rep);
		for (size_t i = 0; i < dnsb_plan_count(plan); i++)
			json_object_put(dnsb_change_to_plan_json(dnsb_plan_change(plan, i)));
		dnsb_plan_free(plan);
	}
	return 0;
}
