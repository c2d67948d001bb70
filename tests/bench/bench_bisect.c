/*
 * bench_bisect.c - the cost of isolating conflicts: the memory provider, batch size 1000, n changes
 * of which k conflict at seeded random positions, mean of 5 runs.
 *   bisect              no culprit lists: submissions beside the information-theoretic lower bound
 *                       L = ceil(n/1000) + ceil(log2 C(n,k)) (target ratio <= 1.20)
 *   bisect-hints        every refusal names all its culprits (as Route53 does): target <= k + 2
 *   bisect-wrong-hints  every refusal names a change that is not a culprit: target <= the no-list
 *                       figure + 1 per wrong list followed (one per batch at most)
 *   bisect-reads        reads per dropped group (verify before drop), no lists
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/dnsbatch.h"
#include "dnsbatch/memory.h"
#include "applier/core/clock.h"

static double fake_t;
static double fake_now(void *p) { (void)p; return fake_t; }
static void fake_sleep(void *p, double s) { (void)p; fake_t += s; }

static uint64_t rng_state;
static uint64_t rng(void)
{
	return dnsb_splitmix64(&rng_state);
}

static dnsb_plan *make_plan(size_t n)
{
	json_object *root = json_object_new_object(), *list = json_object_new_array();
	dnsb_plan *plan = NULL;
	char name[64], ip[32];

	for (size_t i = 0; i < n; i++) {
		json_object *ep = json_object_new_object(), *t = json_object_new_array();
		snprintf(name, sizeof(name), "host%zu.example.com", i);
		snprintf(ip, sizeof(ip), "10.%zu.%zu.%zu", (i >> 16) & 255, (i >> 8) & 255, i & 255);
		json_object_array_add(t, json_object_new_string(ip));
		json_object_object_add(ep, "dnsName", json_object_new_string(name));
		json_object_object_add(ep, "recordType", json_object_new_string("A"));
		json_object_object_add(ep, "targets", t);
		json_object_array_add(list, ep);
	}
	json_object_object_add(root, "create", list);
	const char *s = json_object_to_json_string(root);
	if (dnsb_plan_parse(&plan, s, strlen(s), "bench", NULL) < 0)
		abort();
	json_object_put(root);
	return plan;
}

static double log2_binomial(size_t n, size_t k)
{
	return (lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1)) / log(2.0);
}

typedef enum mode { PLAIN, HINTS, WRONG_HINTS } mode;

/* Mean submissions (and reads) over 5 seeded runs of n changes with k conflicts. */
static double mean_cost(size_t n, size_t k, mode m, double *reads)
{
	static const char *const zones[] = { "example.com." };
	dnsb_clock clock = { DNSB_CLOCK_VERSION, fake_now, fake_sleep, NULL, NULL };
	unsigned long total = 0, total_reads = 0;
	const int runs = 5;

	for (int run = 0; run < runs; run++) {
		dnsb_provider *p = NULL;
		dnsb_plan *plan = make_plan(n);
		dnsb_engine_options o = DNSB_ENGINE_OPTIONS_INIT;
		dnsb_report rep;
		char *hit = calloc(n, 1);

		rng_state = 1000 * n + 10 * k + (uint64_t)run;
		if (dnsb_memory_new(&p, zones, 1, m == WRONG_HINTS ? "*:wrong-hint" : NULL, NULL) < 0)
			abort();
		dnsb_memory_set_hints(p, m != PLAIN);
		for (size_t placed = 0; placed < k;) {
			size_t i = (size_t)(rng() % n);
			char *rd = (char *)"192.0.2.1";
			char owner[64];
			dnsb_rrset r = { 0 };
			if (hit[i])
				continue;
			hit[i] = 1;
			placed++;
			snprintf(owner, sizeof(owner), "host%zu.example.com.", i);
			r.owner = owner;
			r.type = 1;
			r.ttl = 300;
			r.rdata = &rd;
			r.rdata_count = 1;
			dnsb_memory_put(p, &r);
		}
		o.clock = &clock;
		o.seed = 1;
		if (dnsb_engine_apply(&rep, p, plan, &o, NULL) < 0 || rep.dropped != k || rep.applied != n - k)
			abort();
		total += rep.submissions;
		total_reads += rep.reads;
		dnsb_report_clear(&rep);
		dnsb_plan_free(plan);
		dnsb_provider_free(p);
		free(hit);
	}
	if (reads)
		*reads = (double)total_reads / runs;
	return (double)total / runs;
}

int main(void)
{
	static const size_t ns[] = { 1000, 10000 }, ks[] = { 0, 1, 10, 100 };

	dnsb_log_set_level(DNSB_LOG_ERROR);
	for (size_t a = 0; a < 2; a++) {
		for (size_t b = 0; b < 4; b++) {
			size_t n = ns[a], k = ks[b];
			double lower = ceil((double)n / 1000.0) + (k ? ceil(log2_binomial(n, k)) : 0), reads;
			double s = mean_cost(n, k, PLAIN, &reads);

			printf("bisect n=%zu k=%zu submissions=%.1f lower_bound=%.0f ratio=%.2f\n", n, k, s, lower, s / lower);
			if (k > 0)
				printf("bisect-reads n=%zu k=%zu reads=%.1f reads_per_dropped_group=%.2f\n", n, k, reads,
				       reads / (double)k);
		}
	}
	for (size_t b = 1; b < 4; b++) {
		size_t n = 1000, k = ks[b];
		double hint_reads, plain = mean_cost(n, k, PLAIN, NULL), hints = mean_cost(n, k, HINTS, &hint_reads);
		double wrong = mean_cost(n, k, WRONG_HINTS, NULL);

		printf("bisect-hints n=%zu k=%zu submissions=%.1f target=%zu reads_per_dropped_group=%.2f\n", n, k, hints,
		       k + 2, hint_reads / (double)k);
		printf("bisect-wrong-hints n=%zu k=%zu submissions=%.1f no_hints=%.1f extra=%.1f\n", n, k, wrong, plain,
		       wrong - plain);
	}
	return 0;
}
