/* records.c - `dnsbatch records`: list the provider's zones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/sys/provider.h"
#include "dnsbatch/webhook.h"
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: dnsbatch records --provider NAME [provider flags] [--zone APEX] [--output text|json]\n"
		   "\n"
		   "List every RRset of the provider's zones (or of one): text prints zone-file lines\n"
		   "(an alias, which has none, as a comment),\n"
		   "json prints external-dns Endpoints as GET /records does (no SOA or DNSSEC records),\n"
		   "without a domain filter.\n\n");
	dnsb_cli_options_help(f, dnsb_cli_records_options, 25);
	fprintf(f, "  --%-23s print the version\n", "version");
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
			json_object *ep;

			/* The server's own records (SOA, DNSSEC) are never external-dns's: as GET /records. */
			if (!dnsb_webhook_type_listed(r->type))
				continue;
			ep = dnsb_rrset_to_endpoint(r);
			if (ep == NULL || json_object_array_add(all, ep) != 0) {
				json_object_put(ep);
				fprintf(stderr, "dnsbatch records: %s: out of memory\n", zone);
				dnsb_rrset_list_clear(&list);
				return DNSB_ENOMEM;
			}
			continue;
		}
		/* An alias has no zone-file form: a comment keeps the output a zone file. */
		if (r->alias != DNSB_ALIAS_NONE && r->rdata_count == 1)
			printf("; %s\tIN\t%s\talias to %s (evaluate-target-health %s)\n", r->owner,
			       dnsb_type_name(r->type), r->rdata[0], r->alias == DNSB_ALIAS_HEALTH ? "true" : "false");
		else
			for (size_t k = 0; k < r->rdata_count; k++)
				printf("%s\t%u\tIN\t%s\t%s\n", r->owner, r->ttl, dnsb_type_name(r->type),
				       r->rdata[k]);
	}
	dnsb_rrset_list_clear(&list);
	return 0;
}

struct records_args {
	const char *provider, *zone, *output;
};

enum { OPT_PROVIDER = DNSB_CLI_CODE_MIN, OPT_ZONE, OPT_OUTPUT };

const dnsb_cli_option dnsb_cli_records_options[] = {
	{ "provider", 1, OPT_PROVIDER, "NAME", "one of the providers below (--provider NAME --help: its flags)" },
	{ "zone", 1, OPT_ZONE, "APEX", "only this zone (default: every zone of the provider)" },
	{ "output", 1, OPT_OUTPUT, "text|json", "zone-file lines (default) or external-dns Endpoints" },
	{ NULL, 0, 0, NULL, NULL }
};

static int on_option(void *ctx, int code, const char *name, const char *v)
{
	struct records_args *a = ctx;

	(void)name;
	switch (code) {
	case OPT_PROVIDER: a->provider = v; return 0;
	case OPT_ZONE: a->zone = v; return 0;
	case OPT_OUTPUT: a->output = v; return 0;
	default:
		fprintf(stderr, "dnsbatch records: unexpected argument '%s' (see --help)\n", v);
		return DNSB_EXIT_USAGE;
	}
}

/* @return -1 to go on, else the exit code (--help, a bad or unknown option) */
static int parse_args(struct records_args *a, dnsb_config *cfg, int argc, char **argv)
{
	int rc = dnsb_cli_parse("records", argc, argv, dnsb_cli_records_options, NULL, cfg, usage, on_option, a);

	if (rc >= 0)
		return rc;
	if (a->provider == NULL || (strcmp(a->output, "text") != 0 && strcmp(a->output, "json") != 0)) {
		usage(stderr);
		return DNSB_EXIT_USAGE;
	}
	if ((rc = dnsb_cli_check_provider_flags("records", a->provider, cfg)) != 0)
		return rc;
	return -1;
}

/* Is `apex` (canonical, or NULL for every zone) one of the provider's zones? */
static int zone_held(dnsb_provider *p, const char *apex)
{
	int held = apex == NULL;

	for (size_t z = 0; !held && z < dnsb_provider_zone_count(p); z++)
		held = strcmp(apex, dnsb_provider_zone(p, z)) == 0;
	return held;
}

/* List the zones (or the one at apex) in the chosen form. @return the exit code */
static int list_zones(dnsb_provider *p, const char *apex, int json)
{
	json_object *all = json ? json_object_new_array() : NULL;
	int code = DNSB_EXIT_OK;

	if (json && all == NULL)
		return DNSB_EXIT_INTERNAL;
	for (size_t z = 0; z < dnsb_provider_zone_count(p); z++) {
		if (apex && strcmp(apex, dnsb_provider_zone(p, z)) != 0)
			continue;
		if (print_zone(p, dnsb_provider_zone(p, z), json, all) < 0)
			code = DNSB_EXIT_FAILED;
	}
	if (json)
		puts(json_object_to_json_string_ext(all, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(all);
	return code;
}

int dnsb_cmd_records(int argc, char **argv)
{
	struct records_args a = { NULL, NULL, "text" };
	dnsb_config *cfg = NULL;
	dnsb_provider *p = NULL;
	dnsb_error err = { 0 };
	char *apex = NULL;
	int code;

	if (dnsb_config_new(&cfg) < 0)
		return DNSB_EXIT_INTERNAL;
	if ((code = parse_args(&a, cfg, argc, argv)) >= 0)
		goto done;
	code = DNSB_EXIT_USAGE;
	if (dnsb_provider_open(&p, a.provider, cfg, &err) < 0) {
		fprintf(stderr, "dnsbatch records: provider %s: %s\n", a.provider, err.message);
		goto done;
	}
	if (a.zone && dnsb_name_canonical(&apex, a.zone, &err) < 0) {
		fprintf(stderr, "dnsbatch records: --zone: %s\n", err.message);
		goto done;
	}
	if (!zone_held(p, apex)) {
		fprintf(stderr, "dnsbatch records: zone %s is not configured for provider %s\n", apex, a.provider);
		goto done;
	}
	code = list_zones(p, apex, strcmp(a.output, "json") == 0);
done:
	free(apex);
	dnsb_provider_free(p);
	dnsb_config_free(cfg);
	return code;
}
