/*
 * fuzz_zonefile_text.c - libFuzzer: any bytes as the zone file of
 * example.com, loaded into the zone-file provider's store (ldns), changed
 * by a few batches made from what it holds (a delete, a TTL update, a TXT
 * created beside an existing owner, a new name; the SOA serial bumped by
 * each), and written back by the text-preserving rewrite
 * (dnsb_zonefile_rewrite). When the rewrite succeeds, the text it wrote
 * must load again to exactly the store's RRsets: no record lost, none
 * added, no owner or TTL changed by a line it removed or kept.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnsbatch/change.h"
#include "dnsbatch/sys/provider.h"
#include "providers/common/store.h"
#include "providers/zonefile/zonefile_text.h"
#include "fuzz_common.h"

#define APEX "example.com."

static void apply_one(dnsb_store *s, dnsb_change *c)
{
	dnsb_change *batch[] = { c };
	dnsb_result res;

	dnsb_result_init(&res);
	if ((c->kind == DNSB_CHANGE_CREATE ? c->new_set.owner : c->old.owner) != NULL)
		(void)dnsb_store_apply(s, batch, 1, 1, &res);
	dnsb_rrset_clear(&c->old);
	dnsb_rrset_clear(&c->new_set);
}

static int by_key(const void *x, const void *y)
{
	const dnsb_rrset *a = x, *b = y;
	int c = strcmp(a->owner, b->owner);

	return c ? c : (int)a->type - (int)b->type;
}

/* Batches made from the zone's own RRsets (the SOA aside), each applied alone: those refused change nothing. */
static void change(dnsb_store *s, size_t size)
{
	dnsb_rrset_list held = { 0 };
	dnsb_change c;
	size_t a, b;

	if (dnsb_store_list(s, &held) != 0 || held.count == 0) {
		dnsb_rrset_list_clear(&held);
		return;
	}
	/* In a fixed order: the store's own may change from one run to the next. */
	qsort(held.items, held.count, sizeof(held.items[0]), by_key);
	a = size % held.count;
	b = (size / 7) % held.count;
	memset(&c, 0, sizeof(c));
	c.kind = DNSB_CHANGE_UPDATE;
	if (held.items[b].type != LDNS_RR_TYPE_SOA && dnsb_rrset_copy(&c.old, &held.items[b]) == 0 &&
	    dnsb_rrset_copy(&c.new_set, &held.items[b]) == 0)
		c.new_set.ttl = c.old.ttl + 60;
	apply_one(s, &c);
	c.kind = DNSB_CHANGE_CREATE;
	if ((c.new_set.owner = strdup(held.items[b].owner)) != NULL) {
		c.new_set.type = LDNS_RR_TYPE_TXT;
		c.new_set.ttl = 300;
		(void)dnsb_rrset_add_rdata(&c.new_set, "\"fuzz\"");
	}
	apply_one(s, &c);
	c.kind = DNSB_CHANGE_DELETE;
	if (a != b && held.items[a].type != LDNS_RR_TYPE_SOA)
		(void)dnsb_rrset_copy(&c.old, &held.items[a]);
	apply_one(s, &c);
	c.kind = DNSB_CHANGE_CREATE;
	if ((c.new_set.owner = strdup("fuzz-new." APEX)) != NULL) {
		c.new_set.type = LDNS_RR_TYPE_A;
		c.new_set.ttl = 120;
		(void)dnsb_rrset_add_rdata(&c.new_set, "192.0.2.77");
	}
	apply_one(s, &c);
	dnsb_rrset_list_clear(&held);
}

/* The rewritten text, for the report of a failure. */
static void dump(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");

	fprintf(stderr, "---- the rewritten zone file:\n");
	while (f && fgets(line, sizeof(line), f))
		fputs(line, stderr);
	fprintf(stderr, "----\n");
	if (f)
		fclose(f);
}

/* The rewritten file holds exactly what the store holds. */
static void check(const dnsb_store *s, const char *path)
{
	dnsb_store *again = NULL;
	dnsb_rrset_list held = { 0 };
	dnsb_error err;

	if (dnsb_store_new(&again, APEX) != 0)
		abort();
	if (dnsb_store_load(again, path, &err) != 0) {
		fprintf(stderr, "the rewritten zone does not load: %s\n", err.message);
		dump(path);
		abort();
	}
	if (dnsb_store_list(s, &held) != 0)
		abort();
	if (held.count != dnsb_store_count(again)) {
		fprintf(stderr, "the store holds %zu RRsets, the rewritten file %zu\n", held.count, dnsb_store_count(again));
		dump(path);
		abort();
	}
	for (size_t i = 0; i < held.count; i++) {
		const dnsb_rrset *got = dnsb_store_get(again, held.items[i].owner, held.items[i].type);
		if (got == NULL || !dnsb_rrset_equal(got, &held.items[i])) {
			fprintf(stderr, "%s type %u TTL %u (%zu values) reads back %s\n", held.items[i].owner,
				held.items[i].type, held.items[i].ttl, held.items[i].rdata_count,
				got ? "different" : "missing");
			dump(path);
			abort();
		}
	}
	dnsb_rrset_list_clear(&held);
	dnsb_store_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64], path2[64];
	dnsb_store *s = NULL;
	FILE *f, *old, *out;
	dnsb_error err;
	int rc;

	if (path[0] == '\0') {
		snprintf(path, sizeof(path), "/tmp/dnsb-fuzz-ztext-%d", (int)getpid());
		snprintf(path2, sizeof(path2), "/tmp/dnsb-fuzz-ztext-%d.out", (int)getpid());
	}
	if ((f = fopen(path, "wb")) == NULL)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	if (dnsb_store_new(&s, APEX) != 0)
		return 0;
	if (dnsb_store_load(s, path, &err) != 0) {
		dnsb_store_free(s);
		return 0;
	}
	change(s, size);
	old = fopen(path, "r");
	out = fopen(path2, "w");
	rc = old && out ? dnsb_zonefile_rewrite(out, old, s, &err) : -1;
	if (old)
		fclose(old);
	if (out)
		fclose(out);
	if (rc == 0)
		check(s, path2);
	dnsb_store_free(s);
	unlink(path);
	unlink(path2);
	return 0;
}
