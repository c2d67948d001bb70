/* fuzz_zonefile.c - libFuzzer: any bytes as the zone file of example.com, loaded with ldns and written back. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dnsbatch/dnsbatch.h"
#include "dnsbatch/memory.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	const char *zones[] = { "example.com." };
	dnsb_provider *p = NULL;
	dnsb_rrset_list list = { 0 };
	FILE *f;

	if (path[0] == '\0')
		snprintf(path, sizeof(path), "/tmp/dnsb-fuzz-zone-%d", (int)getpid());
	if ((f = fopen(path, "wb")) == NULL)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	if (dnsb_memory_new(&p, zones, 1, NULL, NULL) < 0)
		return 0;
	if (dnsb_memory_load(p, "example.com.", path, NULL) == 0)
		dnsb_provider_list(p, "example.com.", &list, NULL);
	dnsb_rrset_list_clear(&list);
	dnsb_provider_free(p);
	return 0;
}
