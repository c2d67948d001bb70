/*
 * bench_overhead.c - engine overhead on a 100,000-change plan.
 *   bench_overhead gen FILE     write the plan (50,000 A records, each with its TXT ownership record)
 *   bench_overhead parse FILE   read and parse it with json-c only
 *   bench_overhead apply FILE   dnsb_plan_load + dnsb_engine_apply to the memory provider, no faults
 * Each mode prints its wall seconds (from the start of main) and peak RSS; run them as separate processes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <json-c/json.h>

#include "dnsbatch/dnsbatch.h"
#include "dnsbatch/memory.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int gen(const char *path)
{
	json_object *root = json_object_new_object(), *list = json_object_new_array();
	char name[64], owner[72], ip[32], txt[160];

	for (size_t i = 0; i < 50000; i++) {
		json_object *a = json_object_new_object(), *t = json_object_new_array(), *labels = json_object_new_object();
		snprintf(name, sizeof(name), "app%zu.k8s.example.com", i);
		snprintf(ip, sizeof(ip), "10.%zu.%zu.%zu", (i >> 16) & 255, (i >> 8) & 255, i & 255);
		json_object_array_add(t, json_object_new_string(ip));
		json_object_object_add(a, "dnsName", json_object_new_string(name));
		json_object_object_add(a, "targets", t);
		json_object_object_add(a, "recordType", json_object_new_string("A"));
		json_object_object_add(a, "recordTTL", json_object_new_int(300));
		json_object_object_add(labels, "owner", json_object_new_string("default"));
		snprintf(txt, sizeof(txt), "ingress/default/app%zu", i);
		json_object_object_add(labels, "resource", json_object_new_string(txt));
		json_object_object_add(a, "labels", labels);
		json_object_array_add(list, a);

		json_object *o = json_object_new_object(), *tt = json_object_new_array(), *ol = json_object_new_object();
		snprintf(owner, sizeof(owner), "a-app%zu.k8s.example.com", i);
		snprintf(txt, sizeof(txt), "\"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/app%zu\"", i);
		json_object_array_add(tt, json_object_new_string(txt));
		json_object_object_add(o, "dnsName", json_object_new_string(owner));
		json_object_object_add(o, "targets", tt);
		json_object_object_add(o, "recordType", json_object_new_string("TXT"));
		json_object_object_add(ol, "ownedRecord", json_object_new_string(name));
		json_object_object_add(o, "labels", ol);
		json_object_array_add(list, o);
	}
	json_object_object_add(root, "create", list);
	if (json_object_to_file_ext(path, root, JSON_C_TO_STRING_PLAIN) < 0)
		return 1;
	json_object_put(root);
	return 0;
}

int main(int argc, char **argv)
{
	double start = now();

	if (argc != 3)
		return 2;
	if (strcmp(argv[1], "gen") == 0)
		return gen(argv[2]);
	if (strcmp(argv[1], "parse") == 0) {
		json_object *root = json_object_from_file(argv[2]);
		if (root == NULL)
			return 1;
		printf("parse-only wall=%.3f s peak_rss=%ld KiB\n", now() - start, peak_rss_kib());
		json_object_put(root);
		return 0;
	}
	if (strcmp(argv[1], "apply") == 0) {
		const char *zones[] = { "example.com." };
		dnsb_provider *p = NULL;
		dnsb_plan *plan = NULL;
		dnsb_report rep;
		dnsb_error err = { 0 };
		dnsb_engine_options o = DNSB_ENGINE_OPTIONS_INIT;

		if (dnsb_plan_load(&plan, argv[2], &err) < 0 || dnsb_memory_new(&p, zones, 1, NULL, &err) < 0) {
			fprintf(stderr, "%s\n", err.message);
			return 1;
		}
		double parsed = now();
		o.seed = 1;
		if (dnsb_engine_apply(&rep, p, plan, &o, &err) < 0 || rep.applied != 100000)
			return 1;
		printf("engine wall=%.3f s (plan %.3f s, engine %.3f s) peak_rss=%ld KiB submissions=%lu applied=%zu\n",
		       now() - start, parsed - start, now() - parsed, peak_rss_kib(), rep.submissions, rep.applied);
		dnsb_report_clear(&rep);
		dnsb_plan_free(plan);
		dnsb_provider_free(p);
		return 0;
	}
	return 2;
}
