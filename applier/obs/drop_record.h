/*
 * drop_record.h - internal: one writer for what a dropped change shows. The
 * drop log's line, the JSON log line's fields and a GET /quarantine entry are
 * each a subset of the same keys, built by dnsb_drop_record_add, so that they
 * agree field by field (docs/design.md §6.2). The engine hands changes here and needs
 * no JSON of its own.
 */
#ifndef DNSBATCH_OBS_DROP_RECORD_H
#define DNSBATCH_OBS_DROP_RECORD_H

#include <stddef.h>

#include "dnsbatch/droplog.h"

/* One settled change as its records show it. */
typedef struct dnsb_drop {
	const char *zone;               /* apex, "" or NULL for none (borrowed) */
	const dnsb_change *change;      /* borrowed */
	double time;                    /* Unix seconds, for "time" (the drop log's form only) */
	dnsb_droplog_quarantine event;  /* what the quarantine did to its group */
	double seconds;                 /* START and AGAIN: the hold set, seconds; else unused */
} dnsb_drop;

/* Which keys, each form a subset of the drop log's line in its order. */
typedef enum dnsb_drop_form {
	/* The drop log's line (docs/design.md §6.2): time, zone, outcome, reason, status, code, message (code and
	 * message null when absent), quarantine, quarantine_seconds, cause, current, owner, owner_resource,
	 * change. */
	DNSB_DROP_LINE,
	/* The JSON log line's fields beside its text: zone, outcome, reason, cause, current, owner,
	 * owner_resource, message (absent ones left out). */
	DNSB_DROP_FIELDS,
	/* A held group's entry in GET /quarantine, from the change that conflicted: zone, cause, owner,
	 * owner_resource, message (absent ones left out). */
	DNSB_DROP_HELD
} dnsb_drop_form;

/*
 * Add the keys of `form` for d to obj.
 * @param obj  a json-c object (borrowed), keys added after those it has
 * @return 0, DNSB_EINVAL (d->event unknown), DNSB_ENOMEM (obj has part of them)
 */
int dnsb_drop_record_add(struct json_object *obj, const dnsb_drop *d, dnsb_drop_form form);

/* The object of `form` for d. @return a new json-c reference (the caller's), or NULL (ENOMEM, EINVAL) */
struct json_object *dnsb_drop_record(const dnsb_drop *d, dnsb_drop_form form);

/*
 * Log the warning line of a dropped or failed change: what is in its way
 * (from the read that proved a conflict; the JSON log adds the
 * DNSB_DROP_FIELDS keys), else its reason and the provider's message.
 * @param held  appended to the text ("; quarantined for 60 s"), "" for none
 */
void dnsb_drop_log(const dnsb_drop *d, const char *held);
/* The drop-log line standing for `count` changes left out of it (dnsb_droplog_write_omitted): a new
 * reference (the caller's), or NULL (ENOMEM). */
struct json_object *dnsb_drop_omitted_record(const char *zone, const char *outcome, const char *reason, size_t count,
					     double now);

/* "create", "update" or "delete". */
const char *dnsb_drop_kind(const dnsb_change *c);

/* What GET /quarantine shows of one held group: its changes and what is in its way. Opaque. */
typedef struct dnsb_held_record dnsb_held_record;

/*
 * @param zone     the group's zone apex (copied)
 * @param changes  the group's changes (read during the call)
 * @param why      the change that conflicted, for cause, owner, owner_resource and message; NULL = none
 * @return a new record (dnsb_held_record_free), or NULL (ENOMEM: the entry just has none)
 */
dnsb_held_record *dnsb_held_record_new(const char *zone, const dnsb_change *const *changes, size_t n,
				       const dnsb_change *why);
/* NULL is a no-op. */
void dnsb_held_record_free(dnsb_held_record *r);
/* The record as an object: "changes" (each {"kind", "dnsName", "recordType"}) then the DNSB_DROP_HELD keys.
 * @return borrowed from r (valid while r is), or NULL for a NULL r */
struct json_object *dnsb_held_record_json(const dnsb_held_record *r);

/*
 * A held group's entry in GET /quarantine: r's keys ("zone" when r has none),
 * then "first_seen", "last_seen", "next_retry" (RFC 3339, UTC), "attempts"
 * and "held_seconds".
 * @param r  borrowed, may be NULL
 * @param first, last, next_retry  Unix seconds
 * @return a new json-c reference (the caller's), or NULL (ENOMEM)
 */
struct json_object *dnsb_held_record_entry(const dnsb_held_record *r, const char *zone, double first, double last,
					   unsigned attempts, double next_retry, double held_seconds);

/*
 * A drop's identity for the quarantine's notes: reason, kind and the
 * endpoints as the plan gave them (not its message, which names the change's
 * place in the plan), hashed to 128 bits. Starts with "!", apart from groups'
 * keys. A collision would only keep one line off the logs.
 * @param buf  receives it, NUL-terminated; 96 bytes hold it whole
 */
void dnsb_drop_key(char *buf, size_t size, const dnsb_change *c);

#endif
