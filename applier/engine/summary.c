/*
 * summary.c - drops decided before sending (invalid, no_zone) summed up per
 * reason: one log line for the whole apply with the count, the details and a
 * few example names, however many changes there are (one body of 200,000
 * broken endpoints made 200,000 lines). The drop log still gets one line per
 * change: it is the re-playable record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/engine/internal.h"

#define DETAILS 4       /* details named per reason; changes with others are counted together */
#define EXAMPLES 3     /* example names per reason */
#define DETAIL_MAX 200  /* bytes of a detail kept (a message may quote a huge target) */

typedef struct detail {
	char *text;
	size_t count;
} detail;

typedef struct reason_sum {
	size_t count;
	detail details[DETAILS];
	size_t ndetails;
	size_t other;                /* changes whose detail is not among details[] */
	char *examples[EXAMPLES];
	size_t nexamples;
} reason_sum;

static const dnsb_reason summed[] = { DNSB_REASON_INVALID, DNSB_REASON_NO_ZONE };
#define NSUMMED (sizeof(summed) / sizeof(summed[0]))

struct drop_summary {
	reason_sum by[NSUMMED];      /* in the order of summed[] */
};

int dnsb_engine_summed(dnsb_reason reason)
{
	for (size_t i = 0; i < NSUMMED; i++)
		if (summed[i] == reason)
			return 1;
	return 0;
}

drop_summary *dnsb_engine_summary_new(void)
{
	return calloc(1, sizeof(drop_summary));
}

/* Past the change's place in the plan ("$.create[5].targets[0]") and name ("(bad.example.com A)"). */
static const char *after_place(const char *m)
{
	const char *p = m + strcspn(m, " :"), *q;

	if (p[0] == ' ' && p[1] == '(' && (q = strstr(p, "): ")) != NULL)
		p = q + 1;
	return p[0] == ':' && p[1] == ' ' ? p + 2 : m;
}

/*
 * What was wrong, the same for every change so: a parser message without
 * the change's place and name ("dnsName is missing", "A target
 * '999.1.1.1': ..."); a provider's message as it is.
 */
static void detail_of(char *buf, size_t size, const dnsb_change *c)
{
	const char *m = c->message ? c->message : "";

	if (c->reason == DNSB_REASON_NO_ZONE)
		m = "no configured zone holds the name";
	else if (strncmp(m, "dropped with its group: ", 24) == 0)
		m = "dropped with its group";
	else if (m[0] == '$' && m[1] == '.')
		m = after_place(m);
	snprintf(buf, size, "%s", *m ? m : "(no detail)");
}

/* Owner name and type, or the place in the plan when the endpoint has no usable name. */
static void example_of(char *buf, size_t size, const dnsb_change *c)
{
	const char *owner = dnsb_change_owner(c), *m = c->message ? c->message : "";

	if (owner != NULL)
		snprintf(buf, size, "%s %s", owner,
			 dnsb_type_name(c->kind == DNSB_CHANGE_DELETE ? c->old.type : c->new_set.type));
	else if (m[0] == '$' && m[1] == '.')
		snprintf(buf, size, "%.*s", (int)strcspn(m, " :"), m);
	else
		snprintf(buf, size, "(no name)");
}

void dnsb_engine_summary_add(drop_summary *s, const dnsb_change *c)
{
	reason_sum *r = NULL;
	char text[DETAIL_MAX + 1], example[128];
	size_t i;

	for (i = 0; i < NSUMMED && r == NULL; i++)
		if (summed[i] == c->reason)
			r = &s->by[i];
	if (r == NULL)
		return;
	r->count++;
	detail_of(text, sizeof(text), c);
	for (i = 0; i < r->ndetails && strcmp(r->details[i].text, text) != 0; i++)
		;
	if (i < r->ndetails)
		r->details[i].count++;
	else if (r->ndetails < DETAILS && (r->details[i].text = strdup(text)) != NULL)
		r->details[r->ndetails++].count = 1;
	else
		r->other++;
	if (r->nexamples < EXAMPLES) {
		example_of(example, sizeof(example), c);
		if ((r->examples[r->nexamples] = strdup(example)) != NULL)
			r->nexamples++;
	}
}

/* "dropped 200000 changes: invalid (dnsName is missing: 200000; e.g. $.create[0], $.create[1], $.create[2], ...)" */
static void log_reason(const reason_sum *r, dnsb_reason reason)
{
	char line[4096];  /* dnsb_log keeps 4 KiB of a message */
	size_t len = 0;

	/* snprintf says how much it would have written: past the end, nothing more is added. */
#define ADD(...) (void)(len < sizeof(line) && (len += (size_t)snprintf(line + len, sizeof(line) - len, __VA_ARGS__)))
	ADD("dropped %zu change%s: %s (", r->count, r->count == 1 ? "" : "s", dnsb_reason_name(reason));
	for (size_t i = 0; i < r->ndetails; i++)
		ADD("%s: %zu; ", r->details[i].text, r->details[i].count);
	if (r->other)
		ADD("other: %zu; ", r->other);
	ADD("e.g.");
	for (size_t i = 0; i < r->nexamples; i++)
		ADD(" %s%s", r->examples[i], i + 1 < r->nexamples ? "," : "");
	ADD("%s)", r->count > r->nexamples ? ", ..." : "");
#undef ADD
	dnsb_log(DNSB_LOG_WARN, "%s", line);
}

void dnsb_engine_summary_log(drop_summary *s)
{
	if (s == NULL)
		return;
	for (size_t k = 0; k < NSUMMED; k++) {
		reason_sum *r = &s->by[k];
		if (r->count > 0)
			log_reason(r, summed[k]);
		for (size_t i = 0; i < r->ndetails; i++)
			free(r->details[i].text);
		for (size_t i = 0; i < r->nexamples; i++)
			free(r->examples[i]);
	}
	free(s);
}
