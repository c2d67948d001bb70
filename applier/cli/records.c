/* records.c - `dnsbatch records`: list the provider's zones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/sys/provider.h"
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: dnsbatch records --provider NAME [provider flags] [--zone APEX] [--output text|json]\n"
		   "\n"
		   "List every RRset of the provider's zones (or of one): text prints zone-file lines,\n"
		   "json prints external-dns Endpoints (as GET /records does).\n");
	dnsb_cli_provider_help(f);
}

static int print_zone(dnsb_provider *p, const char *zone, int json, json_object *all)
{
	dnsb_rrset_list list = { 0 };
	dnsb_error err = { 0 };
	int rc = dnsb_provider_list(p, zone, &list, &err);

	if (rc < 0) {
		fprintf(stderr, "dnsbatch records: %s: %s\n", zone, err.message);
		dnsb_rrset_list_clear(&list);
		return rc;
	}
	for (size_t i = 0; i < list.count; i++) {
		const dnsb_rrset *r = &list.items[i];
		if (json) {
			json_object_array_add(all, dnsb_rrset_to_endpoint(r));
			continue;
		}
		for (size_t k = 0; k < r->rdata_count; k++)
			printf("%s\t%u\tIN\t%s\t%s\n", r->owner, r->ttl, dnsb_type_name(r->type), r->rdata[k]);
	}
	dnsb_rrset_list_clear(&list);
	return 0;
}

int dnsb_cmd_records(int argc, char **argv)
{
	const char *provider = NULL, *zone = NULL, *output = "text";
	dnsb_config *cfg = NULL;
	dnsb_provider *p = NULL;
	dnsb_error err = { 0 };
	json_object *all = NULL;
	char *apex = NULL;
	int code = DNSB_EXIT_USAGE, r;

	if (dnsb_config_new(&cfg) < 0)
		return DNSB_EXIT_INTERNAL;
	for (int i = 1; i < argc; i++) {
		const char *v;
		if (strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			code = DNSB_EXIT_OK;
			goto done;
		}
		if ((r = dnsb_cli_take(argc, argv, &i, "provider", &v)) > 0)
			provider = v;
		else if (r == 0 && (r = dnsb_cli_take(argc, argv, &i, "zone", &v)) > 0)
			zone = v;
		else if (r == 0 && (r = dnsb_cli_take(argc, argv, &i, "output", &v)) > 0)
			output = v;
		else if (r == 0 && (r = dnsb_cli_provider_flag(cfg, argc, argv, &i)) == 0) {
			fprintf(stderr, "dnsbatch records: unknown option '%s'\n", argv[i]);
			goto done;
		}
		if (r < 0)
			goto done;
	}
	if (provider == NULL || (strcmp(output, "text") != 0 && strcmp(output, "json") != 0)) {
		usage(stderr);
		goto done;
	}
	if (dnsb_provider_open(&p, provider, cfg, &err) < 0) {
		fprintf(stderr, "dnsbatch records: provider %s: %s\n", provider, err.message);
		goto done;
	}
	if (zone && dnsb_name_canonical(&apex, zone, &err) < 0) {
		fprintf(stderr, "dnsbatch records: --zone: %s\n", err.message);
		goto done;
	}
	int held = apex == NULL;
	for (size_t z = 0; !held && z < dnsb_provider_zone_count(p); z++)
		held = strcmp(apex, dnsb_provider_zone(p, z)) == 0;
	if (!held) {
		fprintf(stderr, "dnsbatch records: zone %s is not configured for provider %s\n", apex, provider);
		goto done;
	}
	all = json_object_new_array();
	code = DNSB_EXIT_OK;
	for (size_t z = 0; z < dnsb_provider_zone_count(p); z++) {
		if (apex && strcmp(apex, dnsb_provider_zone(p, z)) != 0)
			continue;
		if (print_zone(p, dnsb_provider_zone(p, z), strcmp(output, "json") == 0, all) < 0)
			code = DNSB_EXIT_FAILED;
	}
	if (strcmp(output, "json") == 0)
		puts(json_object_to_json_string_ext(all, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
done:
	free(apex);
	json_object_put(all);
	dnsb_provider_free(p);
	dnsb_config_free(cfg);
	return code;
}
