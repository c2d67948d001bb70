/*
 * failed_sum.c - failed changes told per zone and reason: one log line each
 * for the whole apply, with the count, the messages (a few, counted) and a few
 * example names; and at most DNSB_FAILED_DROPLOG_MAX drop-log lines each, then
 * one line saying how many more were left out.
 *
 * A body of 400,000 endpoints whose deadline passed before the first batch
 * made 400,000 stderr lines (52 MB) and 400,000 drop-log lines (112 MB, past
 * the default rotation size: every earlier drop rotated away), and writing
 * them took seconds after the deadline, when the answer was due. A failed
 * change is not lost: external-dns sends it again next interval, and the
 * metrics count each one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/droplog.h"
#include "dnsbatch/log.h"
#include "applier/core/array.h"
#include "applier/engine/internal.h"
#include "applier/obs/drop_record.h"

typedef struct failed_sum {
	const char *zone;            /* borrowed: the engine's zone name */
	dnsb_reason reason;
	tally t;                     /* the changes, by message */
	size_t logged;               /* those with a drop-log line of their own */
} failed_sum;

struct failed_sums {
	failed_sum *at;
	size_t n, cap;
};

failed_sums *dnsb_engine_failed_new(void)
{
	return calloc(1, sizeof(failed_sums));
}

static failed_sum *find(failed_sums *s, const char *zone, dnsb_reason reason)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->at[i].reason == reason && strcmp(s->at[i].zone, zone) == 0)
			return &s->at[i];
	if (DNSB_ARRAY_RESERVE(s->at, s->cap, s->n + 1, 8) < 0)
		return NULL;
	memset(&s->at[s->n], 0, sizeof(s->at[0]));
	s->at[s->n].zone = zone;
	s->at[s->n].reason = reason;
	return &s->at[s->n++];
}

int dnsb_engine_failed_add(failed_sums *s, const char *zone, const dnsb_change *c)
{
	failed_sum *f = s ? find(s, zone, c->reason) : NULL;
	const dnsb_rrset *r = c->kind == DNSB_CHANGE_DELETE ? &c->old : &c->new_set;
	char example[300];

	if (f == NULL)
		return 1; /* out of memory: the change is told on its own */
	if (f->t.nexamples < DNSB_TALLY_EXAMPLES)
		snprintf(example, sizeof(example), "%s %s %s", dnsb_drop_kind(c), r->owner ? r->owner : "(no name)",
			 dnsb_type_name(r->type));
	dnsb_tally_add(&f->t, c->message && *c->message ? c->message : "(no detail)",
		       f->t.nexamples < DNSB_TALLY_EXAMPLES ? example : NULL);
	if (f->logged >= DNSB_FAILED_DROPLOG_MAX)
		return 0;
	f->logged++;
	return 1;
}

/* "zone example.com.: 400000 changes failed: deadline (the apply deadline passed ...: 400000; e.g. create a A, ...)" */
static void log_one(const failed_sum *f)
{
	char line[4096];  /* dnsb_log keeps 4 KiB of a message */
	size_t len = (size_t)snprintf(line, sizeof(line), "zone %s: %zu change%s failed: %s ", f->zone[0] ? f->zone : "(none)",
				      f->t.count, f->t.count == 1 ? "" : "s", dnsb_reason_name(f->reason));

	dnsb_tally_print(line, sizeof(line), &len, &f->t);
	if (f->t.count > f->logged && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, "; the drop log has the first %zu, and one line for the %zu left out",
			 f->logged, f->t.count - f->logged);
	dnsb_log(DNSB_LOG_WARN, "%s", line);
}

int dnsb_engine_failed_log(failed_sums *s, dnsb_droplog *log, double wall)
{
	int rc = 0, w;

	if (s == NULL)
		return 0;
	for (size_t k = 0; k < s->n; k++) {
		failed_sum *f = &s->at[k];
		log_one(f);
		if (f->t.count > f->logged &&
		    (w = dnsb_droplog_write_omitted(log, f->zone, "failed", dnsb_reason_name(f->reason),
						    f->t.count - f->logged, wall)) != 0 && rc == 0)
			rc = w == DNSB_ENOMEM ? DNSB_ENOMEM : DNSB_EIO;
		dnsb_tally_clear(&f->t);
	}
	free(s->at);
	free(s);
	return rc;
}
