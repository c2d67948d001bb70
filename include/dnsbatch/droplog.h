/*
 * dnsbatch/droplog.h - the drop log: JSON Lines, one object per dropped or
 * failed change (docs/design.md §6.2):
 *   {"time":"2026-11-20T23:59:59Z","zone":"example.com.","outcome":"dropped",
 *    "reason":"conflict","status":409,"code":"alreadyExists","message":"...",
 *    "change":{"create":[{endpoint}]}}
 * `change` is the change in plan form, so `jq -c .change` gives plans that
 * `dnsbatch apply` takes back. The sidecar's quarantine adds two keys to the
 * lines of a group it holds, which it writes when the hold starts and when it
 * ends, not while it lasts (dnsb_droplog_write_quarantine):
 *   "quarantine":"start"|"again"|"end", "quarantine_seconds":60
 * A dropped change says what is in its way (dnsb_change.cause, from the read
 * that proved the drop):
 *   "cause":"exists", "current":[{endpoint held at its name}...],
 *   "owner":"other", "owner_resource":"ingress/default/legacy"
 * `current` comes with every conflict (empty when nothing is held there);
 * `owner` and `owner_resource` when external-dns's ownership TXT record for
 * the name says so.
 * Thread-safe; each line is written whole. With a maximum size the file is
 * rotated to FILE.1 (one kept); dnsb_droplog_reopen follows logrotate.
 */
#ifndef DNSBATCH_DROPLOG_H
#define DNSBATCH_DROPLOG_H

#include "change.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dnsb_droplog dnsb_droplog;

/**
 * One line saying what is in a dropped change's way, as the text log and
 * `dnsbatch drops --explain` print it:
 *   exists: held as 192.0.2.77 (TTL 300), owner "other" (ingress/default/legacy)
 * @param buf       receives the line, cut to fit, always NUL-terminated
 * @param cause     dnsb_cause_name of the drop ("exists"); NULL or "" = other
 * @param name      the change's owner name (FQDN), or NULL: held RRsets at
 *                  another name (what is in its group's way) show theirs
 * @param type      the change's record type ("A"): held RRsets of another
 *                  type are shown with theirs ("held as CNAME lb.example.com")
 * @param current   JSON array of the Endpoints held at the name (borrowed), or
 *                  NULL when nothing was read
 * @param owner, resource  the ownership record's owner and resource, or NULL
 */
void dnsb_drop_explain(char *buf, size_t size, const char *cause, const char *name, const char *type,
		       struct json_object *current, const char *owner, const char *resource);

/**
 * The words for a drop's cause in dnsb_drop_explain: `cause` itself, except a CNAME refused at its zone's apex
 * ("cname", type "CNAME", name equal to zone, both FQDNs, any trailing dot), which is said as such with the fix.
 * @return `cause` (borrowed) or a static string
 */
const char *dnsb_drop_cause_words(const char *cause, const char *name, const char *type, const char *zone);

/**
 * RRsets as a JSON array of Endpoints (dnsb_rrset_to_endpoint), as the drop
 * log's "current" shows what is held at a dropped change's name.
 * @param list  borrowed
 * @return a new json-c reference (the caller's), or NULL (ENOMEM)
 */
struct json_object *dnsb_droplog_current(const dnsb_rrset_list *list);

/** Drop log settings. Initialise with DNSB_DROPLOG_OPTIONS_INIT. */
typedef struct dnsb_droplog_options {
	unsigned version;
	/** Bytes, 0 = no limit. When a line would take the file past it, the file
	 *  is renamed FILE.1 (replacing an older FILE.1) and a new FILE started,
	 *  so each file holds at most max_size bytes (or one line, when a line
	 *  alone is longer). A process appending to the same file beside this one
	 *  keeps writing to FILE.1 until it reopens. */
	uint64_t max_size;
} dnsb_droplog_options;

#define DNSB_DROPLOG_OPTIONS_VERSION 1
#define DNSB_DROPLOG_OPTIONS_INIT { DNSB_DROPLOG_OPTIONS_VERSION, 0 }

/**
 * Open (create or append to) a drop log, without a size limit.
 * @param path  file name (copied)
 * @return 0, DNSB_EIO (the message names the file and the system error), DNSB_ENOMEM
 */
int dnsb_droplog_open(dnsb_droplog **out, const char *path, dnsb_error *err);

/**
 * Open (create or append to) a drop log with settings.
 * @param out   receives the log (the caller's; dnsb_droplog_free)
 * @param path  file name (copied); FILE.1 is its rotated file
 * @param opts  settings (borrowed, read during the call), NULL for the defaults
 * @return 0, DNSB_EINVAL (opts->version unknown), DNSB_EIO (the message names
 *         the file and the system error), DNSB_ENOMEM
 */
int dnsb_droplog_open_ext(dnsb_droplog **out, const char *path, const dnsb_droplog_options *opts,
			  dnsb_error *err);

/**
 * Append the line for one change.
 * @param zone    apex, or "" when the change has no zone (borrowed)
 * @param change  a change whose outcome is dropped or failed (borrowed)
 * @param now     Unix seconds, for the `time` field
 * @return 0, DNSB_EIO, DNSB_ENOMEM
 */
int dnsb_droplog_write(dnsb_droplog *log, const char *zone, const dnsb_change *change, double now);

/**
 * Append the line standing for `count` changes of one zone, outcome and reason
 * that got no line of their own (the engine writes at most 1,000 failed lines
 * per zone and reason in one apply):
 *   {"time":"...","zone":"example.com.","outcome":"failed","reason":"deadline",
 *    "omitted":399000,"message":"399000 more changes ...","change":{}}
 * Its `change` is empty: `dnsbatch drops --plan` adds nothing for it.
 * @param zone     apex, or "" (borrowed)
 * @param outcome  dnsb_outcome_name of the changes ("failed")
 * @param reason   dnsb_reason_name of the changes ("deadline")
 * @param count    changes left out
 * @param now      Unix seconds, for the `time` field
 * @return 0 (also when log is NULL), DNSB_EIO, DNSB_ENOMEM
 */
int dnsb_droplog_write_omitted(dnsb_droplog *log, const char *zone, const char *outcome, const char *reason,
			       size_t count, double now);

/** What the sidecar's quarantine did to the group of a line's change (docs/design.md §5.3), key "quarantine". */
typedef enum dnsb_droplog_quarantine {
	DNSB_DROPLOG_QUARANTINE_NONE = 0,   /**< no key: the line dnsb_droplog_write writes */
	DNSB_DROPLOG_QUARANTINE_START = 1,  /**< "start": it conflicted and is held back for
					         quarantine_seconds; no line while it stays held */
	DNSB_DROPLOG_QUARANTINE_AGAIN = 2,  /**< "again": its hold ran out, it was tried and conflicted
					         again: held back for quarantine_seconds more */
	DNSB_DROPLOG_QUARANTINE_END = 3     /**< "end": its hold ran out, it was tried and is in effect now
					         (outcome applied or already_applied). Not a drop: `dnsbatch
					         drops --plan` leaves it out of the plan */
} dnsb_droplog_quarantine;

/**
 * Append the line for one change, with what its quarantine did.
 * @param zone     apex, or "" when the change has no zone (borrowed)
 * @param change   the change (borrowed): dropped or failed; applied or
 *                 already_applied with DNSB_DROPLOG_QUARANTINE_END
 * @param now      Unix seconds, for the `time` field
 * @param event    what the quarantine did; NONE writes what dnsb_droplog_write does
 * @param seconds  START and AGAIN: the hold now set, in seconds ("quarantine_seconds"); else unused
 * @return 0, DNSB_EINVAL (change NULL or event unknown), DNSB_EIO, DNSB_ENOMEM
 */
int dnsb_droplog_write_quarantine(dnsb_droplog *log, const char *zone, const dnsb_change *change, double now,
				  dnsb_droplog_quarantine event, double seconds);

/**
 * Reopen the file at its path, created if absent: after logrotate (`create`
 * mode) has moved the file away, the next line goes to a new file at the
 * path. Lines already written stay in the old file, which is synced and closed.
 * Thread-safe: writes on other threads wait for it. Not async-signal-safe:
 * call it from a sigwait loop, not from a signal handler.
 * @return 0 (also for a NULL log); DNSB_EIO when the path cannot be opened (the
 *         message names the file and the system error; lines keep going to the
 *         old file)
 */
int dnsb_droplog_reopen(dnsb_droplog *log, dnsb_error *err);

/** Push written lines to the file (fflush, and fsync when it is a regular file: a device such as
 *  /dev/null, a FIFO or a socket is not synced). @return 0 or DNSB_EIO */
int dnsb_droplog_flush(dnsb_droplog *log);

/** Lines written since open, across rotations and reopens. */
unsigned long dnsb_droplog_lines(dnsb_droplog *log);

/** Flush, close and free. NULL is a no-op. */
void dnsb_droplog_free(dnsb_droplog *log);

#ifdef __cplusplus
}
#endif
#endif
