/*
 * alias.c - which hosted zone an alias target lies in: the canonical zone of
 * the AWS service that owns the target's name (load balancers by region,
 * CloudFront, Global Accelerator), else the provider's own hosted zone that
 * holds the target (an alias to another record of the account).
 */
#include <stdio.h>
#include <string.h>

#include "providers/aws/aws.h"

/*
 * Elastic Load Balancing's canonical hosted zones, one row per region, as
 * the AWS General Reference ("Elastic Load Balancing endpoints and quotas")
 * lists them. An Application or Classic Load Balancer's name ends in
 * <region>.elb.<domain>, a Network Load Balancer's in elb.<region>.<domain>;
 * "dualstack." names lie below the same suffixes. The domain is
 * amazonaws.com, amazonaws.com.cn in the China regions.
 */
typedef struct elb_region {
	const char *region;
	const char *alb;  /* Application and Classic Load Balancers */
	const char *nlb;  /* Network Load Balancers; NULL where not known */
} elb_region;

static const elb_region elb_regions[] = {
	{ "us-east-1", "Z35SXDOTRQ7X7K", "Z26RNL4JYFTOTI" },
	{ "us-east-2", "Z3AADJGX6KTTL2", "ZLMOA37VPKANP" },
	{ "us-west-1", "Z368ELLRRE2KJ0", "Z24FKFUX50B4VW" },
	{ "us-west-2", "Z1H1FL5HABSF5", "Z18D5FSROUN65G" },
	{ "ca-central-1", "ZQSVJUPU6J1EY", "Z2EPGBW3API2WT" },
	{ "ap-east-1", "Z3DQVH9N71FHZ0", "Z12Y7K3UBGUAD1" },
	{ "ap-south-1", "ZP97RAFLXTNZK", "ZVDDRBQ08TROA" },
	{ "ap-northeast-1", "Z14GRHDCWA56QT", "Z31USIVHYNEOWT" },
	{ "ap-northeast-2", "ZWKZPGTI48KDX", "ZIBE1TIR4HY56" },
	{ "ap-northeast-3", "Z5LXEXXYW11ES", NULL },
	{ "ap-southeast-1", "Z1LMS91P8CMLE5", "ZKVM4W9LS7TM" },
	{ "ap-southeast-2", "Z1GM3OXH4ZPM65", "ZCT6FZBF4DROD" },
	{ "eu-central-1", "Z215JYRZR1TBD5", "Z3F0SRJ5LGBH90" },
	{ "eu-west-1", "Z32O12XQLNTSW2", "Z2IFOLAFXWLO4F" },
	{ "eu-west-2", "ZHURV8PSTC4K8", "ZD4D7Y8KGAS4G" },
	{ "eu-west-3", "Z3Q77PNBQS71R4", "Z1CMS0P5QUZ6D5" },
	{ "eu-north-1", "Z23TAZ6LKFMNIO", "Z1UDT6IFJ4EJM" },
	{ "eu-south-1", "Z3ULH7SSC9OV64", "Z23146JA1KNAFP" },
	{ "sa-east-1", "Z2P70J7HTTTPLU", "ZTK26PT1VY4CU" },
	{ "me-south-1", "ZS929ML54UICD", "Z3QSRYVP46NYYV" },
	{ "af-south-1", "Z268VQBMOI5EKX", "Z203XCE67M25HM" },
	{ "cn-north-1", "Z1GDH35T77C1KE", "Z3QFB96KMJ7ED6" },
	{ "cn-northwest-1", "ZM7IZAIOVVDZF", "ZQEIKTCZ8352D" },
	{ "us-gov-west-1", "Z33AYJ8TM3BH4J", "ZMG1MZ2THAWF1" },
	{ "us-gov-east-1", "Z166TLBEWOO7G0", "Z1ZSMQQ6Q24QQ8" },
};

/* Global services: one hosted zone whatever the region. */
static const struct {
	const char *suffix;  /* absolute */
	const char *zone;
} global_services[] = {
	{ "cloudfront.net.", "Z2FDTNDATAQYW2" },
	{ "awsglobalaccelerator.com.", "Z2BJ6XQ5FK7U4H" },
};

/* Is `target` strictly below `suffix` (both absolute, lower-case)? */
static int below(const char *target, const char *suffix)
{
	return strcmp(target, suffix) != 0 && dnsb_name_in_zone(target, suffix);
}

const char *dnsb_aws_service_zone(const char *target)
{
	char suffix[128];

	for (size_t i = 0; i < sizeof(global_services) / sizeof(global_services[0]); i++)
		if (below(target, global_services[i].suffix))
			return global_services[i].zone;
	for (size_t i = 0; i < sizeof(elb_regions) / sizeof(elb_regions[0]); i++) {
		const elb_region *r = &elb_regions[i];
		const char *domain = strncmp(r->region, "cn-", 3) == 0 ? "amazonaws.com.cn" : "amazonaws.com";
		snprintf(suffix, sizeof(suffix), "%s.elb.%s.", r->region, domain);
		if (below(target, suffix))
			return r->alb;
		snprintf(suffix, sizeof(suffix), "elb.%s.%s.", r->region, domain);
		if (r->nlb && below(target, suffix))
			return r->nlb;
	}
	return NULL;
}

const char *dnsb_aws_alias_zone(const char *target, const dnsb_aws_zone *zones, size_t count, const char *current)
{
	const char *zone = dnsb_aws_service_zone(target);
	size_t best = 0, found = count;

	if (zone != NULL)
		return zone;
	for (size_t i = 0; i < count; i++) {
		size_t len = strlen(zones[i].apex);
		if (!dnsb_name_in_zone(target, zones[i].apex) || len < best)
			continue;
		/* Of two zones with one apex (a public and a private one), the batch's own. */
		if (len == best && !(current && strcmp(zones[i].id, current) == 0))
			continue;
		best = len;
		found = i;
	}
	return found < count ? zones[found].id : NULL;
}

/* The alias RRsets a change sends (its old one first), up to two. @return how many */
static size_t aliases_of(const dnsb_change *c, const dnsb_rrset **out)
{
	size_t k = 0;

	if (c->kind != DNSB_CHANGE_CREATE && c->old.alias != DNSB_ALIAS_NONE && c->old.rdata_count == 1)
		out[k++] = &c->old;
	if (c->kind != DNSB_CHANGE_DELETE && c->new_set.alias != DNSB_ALIAS_NONE && c->new_set.rdata_count == 1)
		out[k++] = &c->new_set;
	return k;
}

#define UNPLACED_FMT "alias target %s of %s %s lies in no AWS service zone dnsbatch knows nor in a hosted zone of this account%s"

int dnsb_aws_alias_unplaced(dnsb_result *res, dnsb_change *const *changes, size_t n, const dnsb_aws_zone *zones,
			    size_t count, const char *current)
{
	const dnsb_rrset *first = NULL;
	size_t unplaced = 0;

	for (size_t i = 0; i < n; i++) {
		const dnsb_rrset *sets[2], *bad = NULL;
		size_t k = aliases_of(changes[i], sets);
		char note[512];
		for (size_t j = 0; j < k && bad == NULL; j++)
			if (dnsb_aws_alias_zone(sets[j]->rdata[0], zones, count, current) == NULL)
				bad = sets[j];
		if (bad == NULL)
			continue;
		if (unplaced++ == 0) {
			dnsb_result_init(res);
			first = bad;
		}
		snprintf(note, sizeof(note), UNPLACED_FMT, bad->rdata[0], bad->owner, dnsb_type_name(bad->type), "");
		dnsb_result_add_culprit_note(res, i, note);
	}
	if (unplaced == 0)
		return 0;
	dnsb_result_set(res, DNSB_CLASS_INVALID, 0, "", UNPLACED_FMT, first->rdata[0], first->owner,
			dnsb_type_name(first->type), unplaced > 1 ? " (nor do those of the other changes named)" : "");
	return 1;
}
