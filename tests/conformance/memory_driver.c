/*
 * memory_driver.c - the conformance suite's memory provider run (tests/conformance/drivers/memory.sh): the memory
 * provider loaded from a zone file, wrapped in a provider of its own whose ops meet the scenario's faults at the
 * provider boundary (tests/conformance/README.md's vocabulary), the real engine run over the plan with a drop log,
 * the figures written as `dnsbatch apply --output json` prints them, and the zone written back as a zone file.
 *
 *   memory_driver ZONEFILE PLAN DROPLOG SUMMARY FAULTFILE [--batch-size N] [--max-retries N] [--preview]
 *
 * SUMMARY carries the `outcomes` list as `dnsbatch apply --output json` and `dnsbatch plan --output json` print it
 * (path, outcome, reason: what run.sh compares). --preview runs the engine as `dnsbatch plan` does (nothing is
 * written; the zone file is still rewritten from the store, so a preview that wrote would be seen in the truth).
 * ZONEFILE (example.com.) is read and, after the run, rewritten with what the provider holds (the driver's truth).
 * Faults: lose-reply W (the W-th submission commits, its answer becomes a transient 502), oob-before W RECORD
 * (RECORD added to its RRset in the store just before the W-th submission), oob-after W RECORD (just after it), refuse W STATUS [...] (answered STATUS,
 * classed as the providers class it, nothing committed), refuse-match STRING [STATUS] (every submission holding a
 * change whose owner or RDATA holds STRING refused, 409 unless STATUS), fail-reads FROM [TO] (those reads and
 * lists: 503), fail-reads-after-refuse [COUNT] (once a submission was refused, the next COUNT reads),
 * fail-reads-after W [COUNT] (once the W-th submission was answered, the next COUNT reads), delay W SECONDS,
 * expire-credential W (from the W-th submission on: 401, fatal). Exit: the apply's exit code (0, 3, 4; 1 internal).
 */
#include <ldns/ldns.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "applier/core/provider.h"
#include "dnsbatch/dnsbatch.h"
#include "dnsbatch/droplog.h"
#include "dnsbatch/engine.h"
#include "dnsbatch/memory.h"

#define ZONE "example.com."
#define MAX_FAULTS 64

typedef struct fault {
	char verb[24];
	unsigned long from, to; /* W, or FROM..TO for fail-reads (to 0: to the end) */
	int status;
	double seconds;
	char text[1024];        /* oob-before's RECORD, refuse-match's STRING */
} fault;

typedef struct wrap {
	dnsb_provider *inner;
	fault faults[MAX_FAULTS];
	size_t nfaults;
	unsigned long writes, reads;
	int refused;               /* a submission was refused: fail-reads-after-refuse counts from here */
	unsigned long reads_after;
	unsigned long reads_past[MAX_FAULTS]; /* reads since a fail-reads-after fault's write */
} wrap;

/* One fault line into f. @return 0, or -1 for a line that is not one */
static int parse_fault(fault *f, const char *line)
{
	int used = 0;

	memset(f, 0, sizeof(*f));
	if (sscanf(line, "%23s %n", f->verb, &used) != 1)
		return -1;
	line += used;
	if (strcmp(f->verb, "refuse-match") == 0) {
		f->status = 409;
		return sscanf(line, "%1023s %d", f->text, &f->status) >= 1 ? 0 : -1;
	}
	if (strcmp(f->verb, "fail-reads-after-refuse") == 0) {
		if (sscanf(line, "%lu", &f->to) != 1)
			f->to = 0;
		return 0;
	}
	if (strcmp(f->verb, "fail-reads-after") == 0)
		return sscanf(line, "%lu %lu", &f->from, &f->to) >= 1 ? 0 : -1;
	if (strcmp(f->verb, "oob-before") == 0 || strcmp(f->verb, "oob-after") == 0) {
		if (sscanf(line, "%lu %n", &f->from, &used) != 1)
			return -1;
		snprintf(f->text, sizeof(f->text), "%s", line + used);
		f->text[strcspn(f->text, "\n")] = '\0';
		return 0;
	}
	if (strcmp(f->verb, "fail-reads") == 0)
		return sscanf(line, "%lu %lu", &f->from, &f->to) >= 1 ? 0 : -1;
	if (strcmp(f->verb, "refuse") == 0)
		return sscanf(line, "%lu %d", &f->from, &f->status) == 2 ? 0 : -1;
	if (strcmp(f->verb, "delay") == 0)
		return sscanf(line, "%lu %lf", &f->from, &f->seconds) == 2 ? 0 : -1;
	if (strcmp(f->verb, "lose-reply") == 0 || strcmp(f->verb, "expire-credential") == 0)
		return sscanf(line, "%lu", &f->from) == 1 ? 0 : -1;
	return -1;
}

static int read_faults(wrap *w, const char *path)
{
	char line[2048];
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return path[0] ? -1 : 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;
		if (w->nfaults == MAX_FAULTS || parse_fault(&w->faults[w->nfaults], line) < 0) {
			fprintf(stderr, "memory_driver: %s: cannot meet fault: %s", path, line);
			fclose(f);
			return -1;
		}
		w->nfaults++;
	}
	fclose(f);
	return 0;
}

/* The W-th write's fault of that verb, or NULL. */
static const fault *fault_at(const wrap *w, const char *verb, unsigned long n)
{
	for (size_t i = 0; i < w->nfaults; i++)
		if (strcmp(w->faults[i].verb, verb) == 0 && w->faults[i].from == n)
			return &w->faults[i];
	return NULL;
}

static int expired(const wrap *w, unsigned long n)
{
	for (size_t i = 0; i < w->nfaults; i++)
		if (strcmp(w->faults[i].verb, "expire-credential") == 0 && n >= w->faults[i].from)
			return 1;
	return 0;
}

static int rrset_holds(const dnsb_rrset *r, const char *s)
{
	if (r->owner && strstr(r->owner, s))
		return 1;
	for (size_t i = 0; i < r->rdata_count; i++)
		if (strstr(r->rdata[i], s))
			return 1;
	return 0;
}

/* The refuse-match fault holding a change of the batch, or NULL. */
static const fault *matched(const wrap *w, dnsb_change *const *changes, size_t n)
{
	for (size_t i = 0; i < w->nfaults; i++) {
		if (strcmp(w->faults[i].verb, "refuse-match") != 0)
			continue;
		for (size_t k = 0; k < n; k++)
			if (rrset_holds(&changes[k]->old, w->faults[i].text) ||
			    rrset_holds(&changes[k]->new_set, w->faults[i].text))
				return &w->faults[i];
	}
	return NULL;
}

/* STATUS as the HTTP providers class it. */
static dnsb_class class_of(int status)
{
	if (status == 409 || status == 412 || status == 404)
		return DNSB_CLASS_CONFLICT;
	if (status == 429)
		return DNSB_CLASS_RATE_LIMITED;
	if (status == 401 || status == 403)
		return DNSB_CLASS_FATAL;
	if (status == 413)
		return DNSB_CLASS_TOO_LARGE;
	if (status >= 400 && status < 500)
		return DNSB_CLASS_INVALID;
	return DNSB_CLASS_TRANSIENT;
}

/* Another client adds RECORD (zone-file syntax, owner relative to the zone) to its RRset in the store. */
static int oob_write(wrap *w, const char *record)
{
	ldns_rdf *origin = ldns_dname_new_frm_str(ZONE);
	ldns_rr *rr = NULL;
	dnsb_rrset_list list = { 0 };
	dnsb_error err = { 0 };
	char *owner = NULL;
	int rc = -1;

	if (origin && ldns_rr_new_frm_str(&rr, record, 300, origin, NULL) == LDNS_STATUS_OK &&
	    (owner = ldns_rdf2str(ldns_rr_owner(rr))) != NULL) {
		for (char *p = owner; *p; p++)
			*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
		dnsb_rrkey key = { owner, (uint16_t)ldns_rr_get_type(rr) };
		const dnsb_rrset *now;
		if (dnsb_provider_read(w->inner, ZONE, &key, 1, 0, &list, NULL, &err) == 0 &&
		    dnsb_rrset_list_add_ldns_rr(&list, rr, &err) == 0 &&
		    (now = dnsb_rrset_list_find(&list, owner, key.type)) != NULL)
			rc = dnsb_memory_put(w->inner, now);
	}
	if (rc != 0)
		fprintf(stderr, "memory_driver: oob-before: cannot write %s: %s\n", record, err.message);
	free(owner);
	ldns_rr_free(rr);
	ldns_rdf_deep_free(origin);
	dnsb_rrset_list_clear(&list);
	return rc;
}

static void sleep_for(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };

	nanosleep(&ts, NULL);
}

static int wrap_submit(void *state, const char *zone, dnsb_change *const *changes, size_t n, double timeout,
		       dnsb_result *out, dnsb_error *err)
{
	wrap *w = state;
	unsigned long k = ++w->writes;
	const fault *f;
	int rc;

	if (expired(w, k)) {
		dnsb_result_set(out, DNSB_CLASS_FATAL, 401, "unauthorized", "fault: the credential expired");
		return 0;
	}
	if ((f = fault_at(w, "refuse", k)) != NULL || (f = matched(w, changes, n)) != NULL) {
		int status = f->status;
		w->refused = 1;
		dnsb_result_set(out, class_of(status), status, "refused", "fault: refused (%d)", status);
		if (status == 429)
			out->retry_after = 0.01;
		return 0;
	}
	if ((f = fault_at(w, "delay", k)) != NULL)
		sleep_for(f->seconds);
	if ((f = fault_at(w, "oob-before", k)) != NULL && oob_write(w, f->text) != 0)
		return dnsb_error_set(err, DNSB_EIO, "oob-before %lu: the other client's write failed", k);
	rc = dnsb_provider_submit(w->inner, zone, changes, n, timeout, out, NULL, err);
	if (rc == 0 && (f = fault_at(w, "oob-after", k)) != NULL && oob_write(w, f->text) != 0)
		return dnsb_error_set(err, DNSB_EIO, "oob-after %lu: the other client's write failed", k);
	if (rc == 0 && out->cls == DNSB_CLASS_OK && fault_at(w, "lose-reply", k)) {
		dnsb_result_init(out);
		dnsb_result_set(out, DNSB_CLASS_TRANSIENT, 502, "lost", "fault: the reply was lost (committed)");
	}
	return rc;
}

static int read_fails(wrap *w, dnsb_error *err)
{
	unsigned long k = ++w->reads, after = w->refused ? ++w->reads_after : 0;

	for (size_t i = 0; i < w->nfaults; i++) {
		const fault *f = &w->faults[i];
		if (strcmp(f->verb, "fail-reads-after-refuse") == 0 && after && (f->to == 0 || after <= f->to))
			return dnsb_error_set(err, DNSB_ETRANSIENT, "fault: read %lu failed after a refusal (503)", k);
		if (strcmp(f->verb, "fail-reads-after") == 0 && w->writes >= f->from &&
		    (f->to == 0 || ++w->reads_past[i] <= f->to))
			return dnsb_error_set(err, DNSB_ETRANSIENT, "fault: read %lu failed after write %lu (503)", k,
					      f->from);
		if (strcmp(f->verb, "fail-reads") == 0 && k >= f->from && (f->to == 0 || k <= f->to))
			return dnsb_error_set(err, DNSB_ETRANSIENT, "fault: read %lu failed (503)", k);
	}
	return expired(w, w->writes + 1) ? dnsb_error_set(err, DNSB_EFATAL, "fault: the credential expired (401)") : 0;
}

static int wrap_read(void *state, const char *zone, const dnsb_rrkey *keys, size_t n, double timeout,
		     dnsb_rrset_list *out, dnsb_error *err)
{
	wrap *w = state;
	int rc = read_fails(w, err);

	return rc ? rc : dnsb_provider_read(w->inner, zone, keys, n, timeout, out, NULL, err);
}

static int wrap_list(void *state, const char *zone, double timeout, dnsb_rrset_list *out, dnsb_error *err)
{
	wrap *w = state;
	int rc = read_fails(w, err);

	return rc ? rc : dnsb_provider_list_within(w->inner, zone, timeout, out, err);
}

static void wrap_close(void *state)
{
	(void)state; /* the wrap and its inner provider are main's */
}

static const dnsb_provider_ops wrap_ops = DNSB_PROVIDER_OPS_INIT("memory", wrap_submit, wrap_read, wrap_list, wrap_close);

/* What the store holds, as a zone file (ldns prints it). @return 0 or -1 */
static int write_zone(dnsb_provider *inner, const char *path)
{
	dnsb_rrset_list list = { 0 };
	dnsb_error err = { 0 };
	ldns_rr_list *rrs = ldns_rr_list_new();
	FILE *f = NULL;
	int rc = -1;

	if (rrs && dnsb_provider_list(inner, ZONE, &list, &err) == 0) {
		rc = 0;
		for (size_t i = 0; i < list.count && rc == 0; i++)
			rc = dnsb_rrset_to_ldns(rrs, &list.items[i], &err) == 0 ? 0 : -1;
	}
	if (rc == 0 && (f = fopen(path, "w")) != NULL) {
		fprintf(f, "$ORIGIN %s\n", ZONE);
		ldns_rr_list_print(f, rrs);
		rc = fclose(f) == 0 ? 0 : -1;
	} else if (rc == 0) {
		rc = -1;
	}
	if (rc != 0)
		fprintf(stderr, "memory_driver: %s: the zone cannot be written: %s\n", path, err.message);
	ldns_rr_list_deep_free(rrs);
	dnsb_rrset_list_clear(&list);
	return rc;
}

static void add_counts(json_object *o, size_t changes, size_t applied, size_t already, size_t dropped, size_t failed)
{
	json_object_object_add(o, "changes", json_object_new_int64((int64_t)changes));
	json_object_object_add(o, "applied", json_object_new_int64((int64_t)applied));
	json_object_object_add(o, "already_applied", json_object_new_int64((int64_t)already));
	json_object_object_add(o, "dropped", json_object_new_int64((int64_t)dropped));
	json_object_object_add(o, "failed", json_object_new_int64((int64_t)failed));
}

/* Each change's outcome in apply's words, by its JSON path in the plan (cli/plan.c's dnsb_cli_outcomes). */
static json_object *outcomes(dnsb_plan *plan)
{
	json_object *arr = json_object_new_array();
	char path[64];

	for (size_t i = 0; arr && i < dnsb_plan_count(plan); i++) {
		const dnsb_change *c = dnsb_plan_change(plan, i);
		json_object *o = json_object_new_object();
		int held = c->outcome == DNSB_OUTCOME_FAILED && c->reason == DNSB_REASON_HELD;

		snprintf(path, sizeof(path), "$.%s[%zu]", c->kind == DNSB_CHANGE_CREATE ? "create" :
			 c->kind == DNSB_CHANGE_UPDATE ? "updateNew" : "delete", c->plan_index);
		json_object_object_add(o, "path", json_object_new_string(path));
		json_object_object_add(o, "outcome", json_object_new_string(held ? "held" : dnsb_outcome_name(c->outcome)));
		if (c->reason != DNSB_REASON_NONE)
			json_object_object_add(o, "reason", json_object_new_string(dnsb_reason_name(c->reason)));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* The figures as `dnsbatch apply --output json` prints them (the counts the judge reads, the outcomes). */
static int write_summary(const char *path, const dnsb_report *r, dnsb_plan *plan, int code)
{
	json_object *o = json_object_new_object();
	int rc;

	add_counts(o, r->changes, r->applied, r->already_applied, r->dropped, r->failed);
	json_object_object_add(o, "submissions", json_object_new_int64((int64_t)r->submissions));
	json_object_object_add(o, "reads", json_object_new_int64((int64_t)r->reads));
	json_object_object_add(o, "retries", json_object_new_int64((int64_t)r->retries));
	json_object_object_add(o, "bisections", json_object_new_int64((int64_t)r->bisections));
	json_object_object_add(o, "exit_code", json_object_new_int(code));
	json_object_object_add(o, "outcomes", outcomes(plan));
	rc = json_object_to_file_ext(path, o, JSON_C_TO_STRING_PLAIN) == 0 ? 0 : -1;
	json_object_put(o);
	return rc;
}

/* The wrapped provider around a memory provider loaded from the zone file. @return 0 or -1 */
static int open_providers(dnsb_provider **outer, wrap *w, const char *zonefile)
{
	const char *zones[] = { ZONE };
	dnsb_error err = { 0 };

	if (dnsb_memory_new(&w->inner, zones, 1, NULL, &err) < 0 || dnsb_memory_load(w->inner, ZONE, zonefile, &err) < 0 ||
	    dnsb_provider_alloc(outer, &wrap_ops, w) < 0 || dnsb_provider_add_zone(*outer, ZONE, &err) < 0) {
		fprintf(stderr, "memory_driver: %s: %s\n", zonefile, err.message);
		return -1;
	}
	dnsb_provider_set_limits(*outer, dnsb_provider_get_limits(w->inner));
	return 0;
}

static int run(wrap *w, char **argv, int argc)
{
	dnsb_engine_options o = DNSB_ENGINE_OPTIONS_INIT;
	dnsb_report report = { 0 };
	dnsb_error err = { 0 };
	dnsb_provider *p = NULL;
	dnsb_plan *plan = NULL;
	dnsb_droplog *log = NULL;
	int rc = -1, code = 1;

	o.backoff_base = 0.01;
	o.backoff_cap = 0.05;
	o.seed = 1;
	for (int i = 6; i < argc; i++) {
		if (strcmp(argv[i], "--preview") == 0)
			o.preview = 1;
		else if (strcmp(argv[i], "--batch-size") == 0 && i + 1 < argc)
			o.batch_size = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--max-retries") == 0 && i + 1 < argc)
			o.max_retries = (unsigned)strtoul(argv[++i], NULL, 10);
	}
	if (open_providers(&p, w, argv[1]) == 0 && dnsb_plan_load(&plan, argv[2], &err) == 0 &&
	    dnsb_droplog_open(&log, argv[3], &err) == 0) {
		o.droplog = log;
		rc = dnsb_engine_apply(&report, p, plan, &o, &err);
		if (dnsb_droplog_flush(log) < 0)
			rc = -1;
		code = rc < 0 ? 1 : report.failed ? 4 : report.dropped ? 3 : 0;
		if (rc < 0)
			fprintf(stderr, "memory_driver: apply: %s\n", err.message);
		if (write_summary(argv[4], &report, plan, code) < 0 || write_zone(w->inner, argv[1]) < 0)
			code = 1;
	} else if (err.message[0]) {
		fprintf(stderr, "memory_driver: %s\n", err.message);
	}
	dnsb_report_clear(&report);
	dnsb_droplog_free(log);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
	return code;
}

int main(int argc, char **argv)
{
	wrap *w;
	int code;

	if (argc < 6) {
		fprintf(stderr, "usage: memory_driver ZONEFILE PLAN DROPLOG SUMMARY FAULTFILE [--batch-size N] "
				"[--max-retries N] [--preview]\n");
		return 2;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return 1;
	if (read_faults(w, argv[5]) < 0) {
		free(w);
		return 2;
	}
	code = run(w, argv, argc);
	dnsb_provider_free(w->inner);
	free(w);
	return code;
}
