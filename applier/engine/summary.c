/*
 * summary.c - changes that share a fate told in one log line, however many
 * there are: a tally (the count, the details and a few example names), and
 * with it the drops decided before sending (invalid, no_zone) summed up per
 * reason (one body of 200,000 broken endpoints made 200,000 lines). The drop
 * log still gets one line per such drop: it is the re-playable record.
 * failed_sum.c tallies failed changes the same way, per zone and reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/engine/internal.h"

/* The changes dropped for one reason. */
typedef tally reason_sum;

void dnsb_tally_add(tally *t, const char *detail, const char *example)
{
	char text[DNSB_TALLY_TEXT + 1];
	size_t i;

	t->count++;
	snprintf(text, sizeof(text), "%s", detail);
	for (i = 0; i < t->ndetails && strcmp(t->details[i], text) != 0; i++)
		;
	if (i < t->ndetails)
		t->detail_count[i]++;
	else if (t->ndetails < DNSB_TALLY_DETAILS && (t->details[i] = strdup(text)) != NULL)
		t->detail_count[t->ndetails++] = 1;
	else
		t->other++;
	if (example != NULL && t->nexamples < DNSB_TALLY_EXAMPLES && (t->examples[t->nexamples] = strdup(example)) != NULL)
		t->nexamples++;
}

void dnsb_tally_print(char *line, size_t size, size_t *len, const tally *t)
{
	/* snprintf says how much it would have written: past the end, nothing more is added. */
#define ADD(...) (void)(*len < size && (*len += (size_t)snprintf(line + *len, size - *len, __VA_ARGS__)))
	ADD("(");
	for (size_t i = 0; i < t->ndetails; i++)
		ADD("%s: %zu; ", t->details[i], t->detail_count[i]);
	if (t->other)
		ADD("other: %zu; ", t->other);
	ADD("e.g.");
	for (size_t i = 0; i < t->nexamples; i++)
		ADD(" %s%s", t->examples[i], i + 1 < t->nexamples ? "," : "");
	ADD("%s)", t->count > t->nexamples ? ", ..." : "");
#undef ADD
}

void dnsb_tally_clear(tally *t)
{
	for (size_t i = 0; i < t->ndetails; i++)
		free(t->details[i]);
	for (size_t i = 0; i < t->nexamples; i++)
		free(t->examples[i]);
	memset(t, 0, sizeof(*t));
}

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

	uint16_t type = c->kind == DNSB_CHANGE_DELETE ? c->old.type : c->new_set.type;

	if (owner != NULL && type == 0)
		snprintf(buf, size, "%s", owner); /* a recordType not read: "TYPE0" would suggest a real type */
	else if (owner != NULL)
		snprintf(buf, size, "%s %s", owner, dnsb_type_name(type));
	else if (m[0] == '$' && m[1] == '.')
		snprintf(buf, size, "%.*s", (int)strcspn(m, " :"), m);
	else
		snprintf(buf, size, "(no name)");
}

void dnsb_engine_summary_add(drop_summary *s, const dnsb_change *c)
{
	reason_sum *r = NULL;
	char text[DNSB_TALLY_TEXT + 1], example[128];

	for (size_t i = 0; i < NSUMMED && r == NULL; i++)
		if (summed[i] == c->reason)
			r = &s->by[i];
	if (r == NULL)
		return;
	detail_of(text, sizeof(text), c);
	if (r->nexamples < DNSB_TALLY_EXAMPLES)
		example_of(example, sizeof(example), c);
	dnsb_tally_add(r, text, r->nexamples < DNSB_TALLY_EXAMPLES ? example : NULL);
}

/* "dropped 200000 changes: invalid (dnsName is missing: 200000; e.g. $.create[0], $.create[1], $.create[2], ...)" */
static void log_reason(const reason_sum *r, dnsb_reason reason)
{
	char line[4096];  /* dnsb_log keeps 4 KiB of a message */
	size_t len = (size_t)snprintf(line, sizeof(line), "dropped %zu change%s: %s ", r->count, r->count == 1 ? "" : "s",
				      dnsb_reason_name(reason));

	dnsb_tally_print(line, sizeof(line), &len, r);
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
		dnsb_tally_clear(r);
	}
	free(s);
}
