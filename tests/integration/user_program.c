/*
 * user_program.c - a program as a user of libdnsbatch writes it, built by test_install.sh and test_shared_lib.sh
 * with `pkg-config --cflags --libs dnsbatch` against an installed tree (checks.sh: user_program): it applies a
 * plan of two creations to the memory provider through the public API alone and prints
 * "VERSION applied=N rrsets=M" (DNSBATCH_VERSION of the installed headers). Exit 1 when any call fails.
 */
#include <stdio.h>
#include <string.h>
#include <dnsbatch/dnsbatch.h>
#include <dnsbatch/memory.h>

int main(void)
{
	static const char plan_json[] = "{\"create\":[{\"dnsName\":\"www.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.1\"]},"
					"{\"dnsName\":\"mail.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.2\"]}]}";
	const char *zones[] = { "example.com" };
	dnsb_provider *p = NULL;
	dnsb_plan *plan = NULL;
	dnsb_report rep;

	if (dnsb_memory_new(&p, zones, 1, NULL, NULL) != 0 ||
	    dnsb_plan_parse(&plan, plan_json, strlen(plan_json), "user", NULL) != 0 ||
	    dnsb_engine_apply(&rep, p, plan, NULL, NULL) != 0)
		return 1;
	printf("%s applied=%zu rrsets=%zu\n", DNSBATCH_VERSION, rep.applied, dnsb_memory_rrset_count(p));
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
	return 0;
}
