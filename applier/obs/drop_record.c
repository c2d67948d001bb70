/*
 * drop_record.c - the one writer of a dropped change's fields: the drop
 * log's line, the JSON log line's fields and GET /quarantine's entries are
 * built here with json-c (see drop_record.h), and so is the drop's identity
 * for the quarantine's notes.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "applier/core/secret.h"
#include "applier/obs/drop_record.h"
#include "dnsbatch/log.h"
#include "dnsbatch/plan.h"

struct dnsb_held_record {
	json_object *obj;
};

/* The RRset a change concerns: the old one for a deletion. */
static const dnsb_rrset *concerned(const dnsb_change *c)
{
	return c->kind == DNSB_CHANGE_DELETE ? &c->old : &c->new_set;
}

const char *dnsb_drop_kind(const dnsb_change *c)
{
	return c->kind == DNSB_CHANGE_CREATE ? "create" : c->kind == DNSB_CHANGE_UPDATE ? "update" : "delete";
}

/* `now` as RFC 3339 UTC to the second ("2026-11-20T23:59:59Z"). */
static void format_time(char *buf, size_t size, double now)
{
	time_t secs = (time_t)floor(now);
	struct tm tm;

	if (!isfinite(now) || !gmtime_r(&secs, &tm) ||
	    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, size, "1970-01-01T00:00:00Z");
}

/* A string field, or null when absent, so a consumer tells "no code" from "empty code". No secret this process
 * holds is in it (a provider's message, a culprit's note may quote one: issue 38 §4). */
static int add_string(json_object *obj, const char *key, const char *value)
{
	json_object *v = NULL;
	char *copy = NULL;

	if (value && (copy = strdup(value)) == NULL)
		return DNSB_ENOMEM;
	if (copy) {
		dnsb_secret_redact(copy);
		v = json_object_new_string(copy);
		free(copy);
		if (v == NULL)
			return DNSB_ENOMEM;
	}
	if (json_object_object_add(obj, key, v) != 0) {
		json_object_put(v);
		return DNSB_ENOMEM;
	}
	return 0;
}

/* A string field when present; nothing when absent. */
static int add_present(json_object *obj, const char *key, const char *value)
{
	return value ? add_string(obj, key, value) : 0;
}

/* `wall` (Unix seconds) as RFC 3339 UTC to the second. */
static int add_time(json_object *obj, const char *key, double wall)
{
	char when[32];

	format_time(when, sizeof(when), wall);
	return add_string(obj, key, when);
}

static int add_new(json_object *obj, const char *key, json_object *v)
{
	if (!v || json_object_object_add(obj, key, v) != 0) {
		json_object_put(v);
		return DNSB_ENOMEM;
	}
	return 0;
}

static const char *const quarantine_names[] = { NULL, "start", "again", "end" };

/* "quarantine" and, when the hold is set, "quarantine_seconds" (whole seconds as an integer). */
static int add_quarantine(json_object *obj, dnsb_droplog_quarantine event, double seconds)
{
	if (event == DNSB_DROPLOG_QUARANTINE_NONE)
		return 0;
	if (add_string(obj, "quarantine", quarantine_names[event]))
		return DNSB_ENOMEM;
	if (event == DNSB_DROPLOG_QUARANTINE_END)
		return 0;
	return add_new(obj, "quarantine_seconds", seconds == floor(seconds) && seconds < 9e15
							  ? json_object_new_int64((int64_t)seconds)
							  : json_object_new_double(seconds));
}

json_object *dnsb_droplog_current(const dnsb_rrset_list *list)
{
	json_object *arr = json_object_new_array_ext((int)list->count);

	for (size_t i = 0; arr && i < list->count; i++) {
		json_object *ep = dnsb_rrset_to_endpoint(&list->items[i]);
		if (ep == NULL || json_object_array_add(arr, ep) != 0) {
			json_object_put(ep);
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

/* What is in a dropped change's way: cause, current (with_current), owner, owner_resource. @return 0 or DNSB_ENOMEM */
static int add_cause(json_object *obj, const dnsb_change *c, int with_current)
{
	dnsb_cause cause = dnsb_change_cause(c);

	if (cause == DNSB_CAUSE_NONE)
		return 0;
	if (add_string(obj, "cause", dnsb_cause_name(cause)))
		return DNSB_ENOMEM;
	if (with_current && c->cause != DNSB_CAUSE_NONE && c->reason == DNSB_REASON_CONFLICT &&
	    add_new(obj, "current", dnsb_droplog_current(&c->current)))
		return DNSB_ENOMEM;
	if (add_present(obj, "owner", c->txt_owner) || add_present(obj, "owner_resource", c->txt_resource))
		return DNSB_ENOMEM;
	return 0;
}

/* The drop log's keys before the cause: time, outcome and reason (with zone between), status, code, message, quarantine. */
static int add_line_head(json_object *obj, const dnsb_drop *d)
{
	const dnsb_change *c = d->change;
	if (add_time(obj, "time", d->time) || add_string(obj, "zone", d->zone ? d->zone : "") ||
	    add_string(obj, "outcome", dnsb_outcome_name(c->outcome)) ||
	    add_string(obj, "reason", dnsb_reason_name(c->reason)) ||
	    add_new(obj, "status", json_object_new_int(c->status)) || add_string(obj, "code", c->code) ||
	    add_string(obj, "message", c->message))
		return DNSB_ENOMEM;
	return add_quarantine(obj, d->event, d->seconds);
}

int dnsb_drop_record_add(json_object *obj, const dnsb_drop *d, dnsb_drop_form form)
{
	const dnsb_change *c = d->change;
	int rc;

	if ((unsigned)d->event > DNSB_DROPLOG_QUARANTINE_END)
		return DNSB_EINVAL;
	if (form == DNSB_DROP_LINE) {
		if ((rc = add_line_head(obj, d)) < 0 || (rc = add_cause(obj, c, 1)) < 0)
			return rc;
		return add_new(obj, "change", dnsb_change_to_plan_json(c));
	}
	if (add_string(obj, "zone", d->zone ? d->zone : ""))
		return DNSB_ENOMEM;
	if (form == DNSB_DROP_FIELDS && (add_string(obj, "outcome", dnsb_outcome_name(c->outcome)) ||
					 add_string(obj, "reason", dnsb_reason_name(c->reason))))
		return DNSB_ENOMEM;
	if ((rc = add_cause(obj, c, form == DNSB_DROP_FIELDS)) < 0)
		return rc;
	return add_present(obj, "message", c->message);
}

json_object *dnsb_drop_omitted_record(const char *zone, const char *outcome, const char *reason, size_t count,
				      double now)
{
	json_object *obj = json_object_new_object();
	char msg[200];

	snprintf(msg, sizeof(msg), "%zu more changes %s so (%s) in this apply, not written one by one: the log's "
		 "lines are bounded per zone and reason", count, outcome, reason);
	if (!obj || add_time(obj, "time", now) || add_string(obj, "zone", zone ? zone : "") ||
	    add_string(obj, "outcome", outcome) || add_string(obj, "reason", reason) ||
	    add_new(obj, "omitted", json_object_new_int64((int64_t)count)) || add_string(obj, "message", msg) ||
	    add_new(obj, "change", json_object_new_object())) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

json_object *dnsb_drop_record(const dnsb_drop *d, dnsb_drop_form form)
{
	json_object *obj = json_object_new_object();

	if (obj && dnsb_drop_record_add(obj, d, form) != 0) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

void dnsb_drop_log(const dnsb_drop *d, const char *held)
{
	const dnsb_change *c = d->change;
	const dnsb_rrset *r = concerned(c);
	const char *owner = r->owner ? r->owner : "(no name)", *type = dnsb_type_name(r->type);
	json_object *current, *fields;
	char why[768];

	if (c->cause == DNSB_CAUSE_NONE || c->reason != DNSB_REASON_CONFLICT) {
		dnsb_log(DNSB_LOG_WARN, "%s %s %s %s: %s%s%s%s", dnsb_outcome_name(c->outcome), dnsb_drop_kind(c), owner,
			 type, dnsb_reason_name(c->reason), c->message ? ": " : "", c->message ? c->message : "", held);
		return;
	}
	/* What is in the way, from the read that proved the drop (the provider's words are in the drop log). */
	current = dnsb_droplog_current(&c->current);
	dnsb_drop_explain(why, sizeof(why), dnsb_drop_cause_words(dnsb_cause_name(c->cause), owner, type, d->zone), owner,
			  type, current, c->txt_owner, c->txt_resource);
	json_object_put(current);
	fields = dnsb_drop_record(d, DNSB_DROP_FIELDS);
	dnsb_log_fields(DNSB_LOG_WARN, fields, "%s %s %s %s: %s%s", dnsb_outcome_name(c->outcome), dnsb_drop_kind(c),
			owner, type, why, held);
	json_object_put(fields);
}

/* {"kind", "dnsName", "recordType"} of one change: the RRset it concerns, named as its Endpoint names it. */
static json_object *change_name(const dnsb_change *c)
{
	json_object *ep = dnsb_rrset_to_endpoint(concerned(c)), *one = json_object_new_object(), *v;
	int fail = !ep || !one || add_string(one, "kind", dnsb_drop_kind(c));

	if (!fail && json_object_object_get_ex(ep, "dnsName", &v))
		fail = add_new(one, "dnsName", json_object_get(v));
	if (!fail && json_object_object_get_ex(ep, "recordType", &v))
		fail = add_new(one, "recordType", json_object_get(v));
	json_object_put(ep);
	if (fail) {
		json_object_put(one);
		return NULL;
	}
	return one;
}

dnsb_held_record *dnsb_held_record_new(const char *zone, const dnsb_change *const *changes, size_t n,
				       const dnsb_change *why)
{
	dnsb_held_record *r = malloc(sizeof(*r));
	json_object *list = json_object_new_array_ext((int)n);
	dnsb_drop d = { zone, why, 0, DNSB_DROPLOG_QUARANTINE_NONE, 0 };
	int fail = !r || !(r->obj = json_object_new_object()) || add_new(r->obj, "changes", list);

	for (size_t k = 0; !fail && k < n; k++) {
		json_object *one = change_name(changes[k]);
		if (!one || json_object_array_add(list, one) != 0) {
			json_object_put(one);
			fail = 1;
		}
	}
	if (!fail)
		fail = why ? dnsb_drop_record_add(r->obj, &d, DNSB_DROP_HELD) != 0 : add_string(r->obj, "zone", zone) != 0;
	if (fail) {
		dnsb_held_record_free(r);
		return NULL;
	}
	return r;
}

void dnsb_held_record_free(dnsb_held_record *r)
{
	if (r == NULL)
		return;
	json_object_put(r->obj);
	free(r);
}

json_object *dnsb_held_record_json(const dnsb_held_record *r)
{
	return r ? r->obj : NULL;
}

json_object *dnsb_held_record_entry(const dnsb_held_record *r, const char *zone, double first, double last,
				    unsigned attempts, double next_retry, double held_seconds)
{
	json_object *o = json_object_new_object();
	int fail = o == NULL;

	if (!fail && r) {
		json_object_object_foreach(r->obj, key, val)
			fail |= json_object_object_add(o, key, json_object_get(val)) != 0;
	}
	if (!fail && !json_object_object_get_ex(o, "zone", NULL))
		fail = add_string(o, "zone", zone);
	fail = fail || add_time(o, "first_seen", first) || add_time(o, "last_seen", last) ||
	       add_new(o, "attempts", json_object_new_int64(attempts)) || add_time(o, "next_retry", next_retry) ||
	       add_new(o, "held_seconds", json_object_new_double(held_seconds));
	if (fail) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* FNV-1a, 64 bits, from `h`. */
static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

void dnsb_drop_key(char *buf, size_t size, const dnsb_change *c)
{
	json_object *eo = dnsb_change_endpoint(c, 1), *en = dnsb_change_endpoint(c, 0);
	const char *old = eo ? json_object_to_json_string_ext(eo, JSON_C_TO_STRING_PLAIN) : "";
	const char *new = en ? json_object_to_json_string_ext(en, JSON_C_TO_STRING_PLAIN) : "";
	uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;

	a = fnv1a(fnv1a(fnv1a(a, old ? old : ""), "\x1e"), new ? new : "");
	b = fnv1a(fnv1a(fnv1a(b, new ? new : ""), "\x1e"), old ? old : "");
	snprintf(buf, size, "!%s|%d|%016llx%016llx", dnsb_reason_name(c->reason), (int)c->kind,
		 (unsigned long long)a, (unsigned long long)b);
	json_object_put(eo);
	json_object_put(en);
}
