/*
 * fuzz_faults.c - libFuzzer: any bytes as the memory provider's fault script (--memory-faults), through the public
 * dnsb_memory_new; a script it accepts then answers a few submissions and lists, as the engine would ask them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/memory.h"
#include "dnsbatch/sys/provider.h"
#include "applier/core/provider.h"
#include "fuzz_common.h"

#define ZONE "example.test."

/* Submissions and lists made against an accepted script: enough to reach rules N-M of small N. */
#define ROUNDS 4

static void exercise(dnsb_provider *p)
{
	static char rdata[] = "192.0.2.1";
	static char *rdatas[] = { rdata };
	dnsb_change change = { 0 };
	dnsb_change *batch[] = { &change };
	dnsb_result res;
	dnsb_error err;

	change.kind = DNSB_CHANGE_CREATE;
	change.new_set.owner = (char *)"www." ZONE;
	change.new_set.type = 1; /* A */
	change.new_set.ttl = 300;
	change.new_set.rdata = rdatas;
	change.new_set.rdata_count = 1;
	for (int i = 0; i < ROUNDS; i++) {
		dnsb_rrset_list list = { 0 };
		dnsb_result_init(&res);
		(void)dnsb_provider_submit(p, ZONE, batch, 1, 0, &res, NULL, &err);
		if (res.cls > DNSB_CLASS_FATAL || res.culprit_count > DNSB_RESULT_CULPRITS_MAX)
			abort();
		(void)dnsb_provider_list(p, ZONE, &list, &err);
		dnsb_rrset_list_clear(&list);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *zones[] = { ZONE };
	char *script = fuzz_text(data, size);
	dnsb_provider *p = NULL;
	dnsb_error err;

	if (script == NULL)
		return 0;
	if (dnsb_memory_new(&p, zones, 1, script, &err) == 0) {
		/* latency rules sleep in real time: parse them, never wait on them */
		if (strstr(script, "latency") == NULL)
			exercise(p);
		dnsb_provider_free(p);
	} else if (err.code != DNSB_EINVAL && err.code != DNSB_ENOMEM) {
		abort();
	}
	free(script);
	return 0;
}
