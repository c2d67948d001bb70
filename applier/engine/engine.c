/*
 * engine.c - the batch engine's orchestration (docs/design.md §3): options, then
 * zones, groups, the quarantine, each zone's batches, and the tally. Every
 * change leaves with exactly one outcome. The stages live in the other files
 * of applier/engine/ (see internal.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/clock.h"
#include "applier/engine/internal.h"
#include "applier/engine/quarantine.h"

int dnsb_engine_check_options(const dnsb_engine_options *o, dnsb_error *err)
{
	if (o->version != DNSB_ENGINE_OPTIONS_VERSION)
		return dnsb_error_set(err, DNSB_EINVAL, "engine options version %u, expected %u", o->version,
				      DNSB_ENGINE_OPTIONS_VERSION);
	if (o->clock && o->clock->version != DNSB_CLOCK_VERSION)
		return dnsb_error_set(err, DNSB_EINVAL, "clock version %u, expected %u", o->clock->version,
				      DNSB_CLOCK_VERSION);
	if (o->batch_size == 0)
		return dnsb_error_set(err, DNSB_EINVAL, "--batch-size must be at least 1");
	if (!(o->backoff_base > 0) || !(o->backoff_cap >= o->backoff_base))
		return dnsb_error_set(err, DNSB_EINVAL, "backoff: need 0 < base (%g s) <= cap (%g s)",
				      o->backoff_base, o->backoff_cap);
	if (!(o->timeout >= 0))
		return dnsb_error_set(err, DNSB_EINVAL, "the timeout must be >= 0 seconds");
	return 0;
}

void dnsb_report_clear(dnsb_report *report)
{
	if (report == NULL)
		return;
	for (size_t i = 0; i < report->zone_count; i++)
		free(report->zones[i].zone);
	free(report->zones);
	memset(report, 0, sizeof(*report));
}

/* Per-zone state and the report's zone array. @return 0 or DNSB_ENOMEM */
static int engine_init(engine *e, dnsb_report *out, dnsb_provider *p, const dnsb_engine_options *o, dnsb_error *err)
{
	size_t zones = dnsb_provider_zone_count(p) + 1; /* the last slot: changes in no zone */

	e->o = o;
	e->p = p;
	e->limits = dnsb_provider_get_limits(p);
	e->zone_count = zones - 1;
	e->rep = out;
	e->err = err;
	e->clock = o->clock ? o->clock : dnsb_clock_system();
	e->rng = o->seed ? o->seed : (uint64_t)(dnsb_engine_now(e) * 1e9) ^ (uint64_t)dnsb_clock_wall(e->clock);
	e->started = dnsb_engine_now(e);
	e->deadline = o->timeout > 0 ? e->started + o->timeout : 0;
	if (o->deadline > 0 && (e->deadline == 0 || o->deadline < e->deadline))
		e->deadline = o->deadline;
	e->zone_slot = malloc(zones * sizeof(long));
	e->zone_stopped = calloc(zones, sizeof(int));
	e->zone_stop_message = calloc(zones, sizeof(char *));
	out->zones = calloc(zones, sizeof(dnsb_zone_report));
	if (!e->zone_slot || !e->zone_stopped || !e->zone_stop_message || !out->zones) {
		free(out->zones); /* no report to tally: its zone slots are not there */
		out->zones = NULL;
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory starting the apply");
	}
	for (size_t i = 0; i < zones; i++)
		e->zone_slot[i] = -1;
	return 0;
}

static void engine_release(engine *e)
{
	for (size_t z = 0; e->zone_stop_message && z <= e->zone_count; z++)
		free(e->zone_stop_message[z]);
	free(e->zone_stop_message);
	free(e->zone_stopped);
	free(e->zone_slot);
	free(e->quiet);
	free(e->recorded);
}

/*
 * Run a zone's batches. A provider that defers commits (a zone file) holds
 * them until the zone is done and writes them once, before any outcome is
 * told: what could not be written is failed, never reported applied. The
 * zone's drops are in the drop log, synced, before that write (with any
 * provider: before the zone is reported).
 */
static void run_zone_held(engine *e, size_t zone, group **gs, size_t n)
{
	const char *name = dnsb_engine_zone_name(e, zone);
	dnsb_error ferr = { 0 };
	int held = !e->o->dry_run && dnsb_provider_flush(e->p, name, 1, dnsb_engine_time_left(e), &ferr) == 0;

	dnsb_engine_run_zone(e, gs, n);
	if (held)
		(void)dnsb_engine_record_zone(e, zone); /* a drop log that fails is the apply's error (e->rc) */
	if (!held || dnsb_provider_flush(e->p, name, 0, dnsb_engine_time_left(e), &ferr) == 0)
		return;
	for (size_t g = 0; g < n; g++)
		for (size_t i = 0; i < gs[g]->count; i++) {
			dnsb_change *c = gs[g]->changes[i];
			if (c->outcome != DNSB_OUTCOME_APPLIED && c->outcome != DNSB_OUTCOME_ALREADY_APPLIED)
				continue;
			dnsb_engine_settle_change(e, c, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, 0, "io", ferr.message);
		}
}

/* Zones in the provider's order; each zone's pending groups in plan order. */
static int run_zones(engine *e, group *groups, size_t ngroups)
{
	group **order = malloc((ngroups ? ngroups : 1) * sizeof(group *));

	if (order == NULL)
		return DNSB_ENOMEM;
	for (size_t z = 0; z < e->zone_count; z++) {
		size_t n = 0;
		for (size_t g = 0; g < ngroups; g++)
			if (groups[g].zone == z && dnsb_engine_group_open(&groups[g]))
				order[n++] = &groups[g];
		if (n > 0 && !e->o->preview)
			run_zone_held(e, z, order, n);
	}
	free(order);
	return 0;
}

int dnsb_engine_apply(dnsb_report *out, dnsb_provider *p, dnsb_plan *plan,
		      const dnsb_engine_options *opts, dnsb_error *err)
{
	static const dnsb_engine_options defaults = DNSB_ENGINE_OPTIONS_INIT;
	const dnsb_engine_options *o = opts ? opts : &defaults;
	int quarantine = o->quarantine && !o->dry_run && !o->preview;
	engine e = { 0 };
	group *groups = NULL;
	size_t ngroups = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = dnsb_engine_check_options(o, err)) < 0)
		return rc;
	if ((e.rc = engine_init(&e, out, p, o, err)) < 0)
		goto done;
	dnsb_engine_map_zones(&e, plan); /* may set e.rc (a detail not kept): the apply goes on, its error kept */
	if ((rc = dnsb_engine_make_groups(plan, e.zone_count, &groups, &ngroups)) < 0) {
		e.rc = dnsb_error_set(err, rc, "out of memory forming the change groups");
		goto done;
	}
	e.groups = groups;
	e.ngroups = ngroups;
	e.plan = plan;
	dnsb_engine_drop_invalid_groups(&e, groups, ngroups);
	/* A deadline already past (the sidecar's zones stayed busy) touches no quarantine entry. */
	if (quarantine && !(e.deadline > 0 && dnsb_engine_now(&e) >= e.deadline)) {
		e.qtoken = dnsb_quarantine_begin(o->quarantine);
		if ((rc = dnsb_engine_group_keys(groups, ngroups)) < 0)
			e.rc = rc;
		dnsb_engine_hold_back(&e, groups, ngroups);
		e.quarantine_on = 1;
	} else {
		quarantine = 0;
	}
	dnsb_engine_hold_thresholds(&e, groups, ngroups); /* threshold.c: before anything is sent */
	dnsb_engine_progress_start(&e, plan);
	if (o->preview)
		dnsb_engine_preview(&e, groups, ngroups); /* preview.c: reads only */
	if ((rc = run_zones(&e, groups, ngroups)) < 0)
		e.rc = rc;
	if (quarantine)
		dnsb_engine_release_held(&e, plan, groups, ngroups);
done:
	if (e.rc < 0 && !o->dry_run)
		dnsb_engine_fail_pending(&e, plan, e.rc);
	if (out->zones) {
		dnsb_engine_tally(&e, plan);
		dnsb_engine_progress_final(&e);
	}
	if (!o->dry_run)
		dnsb_metrics_set_last_apply(o->metrics, floor(dnsb_clock_wall(e.clock)));
	dnsb_engine_free_groups(groups, ngroups);
	engine_release(&e);
	if (e.rc < 0 && err && err->code != e.rc)
		dnsb_error_set(err, e.rc, "%s", dnsb_strerror(e.rc));
	return e.rc;
}
