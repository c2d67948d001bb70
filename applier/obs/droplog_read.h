/*
 * droplog_read.h - read a drop log back (the reader of `dnsbatch drops`): count its lines by zone, outcome, reason and
 * record type (or the fields of --by: cause, owner), keep them for --explain, and merge the changes into one plan, each distinct change once. Internal (not installed).
 */
#ifndef DNSBATCH_OBS_DROPLOG_READ_H
#define DNSBATCH_OBS_DROPLOG_READ_H

#include <stdio.h>

#include <json-c/json.h>

#include "dnsbatch/common.h"

/** At most this many fields group the summary (`dnsbatch drops --by`). */
#define DNSB_DROPS_BY_MAX 8

/** What to read: a filter, the grouping of the summary, and whether to keep the lines. Zeroed = defaults. */
typedef struct dnsb_drops_query {
	const char *outcome;  /**< keep only lines with this outcome ("dropped", "failed"); NULL = all (borrowed) */
	const char *reason;   /**< keep only lines with this reason ("conflict", ...); NULL = all (borrowed) */
	/** Fields the rows are grouped by, in order: zone, outcome, reason, type, cause, owner (the
	 *  external-dns owner of what is in the way, "-" when none); NULL-terminated, at most
	 *  DNSB_DROPS_BY_MAX; NULL = zone, outcome, reason, type (borrowed) */
	const char *const *by;
	int keep_lines;       /**< keep every selected line in dnsb_drops.lines_kept (for --explain) */
} dnsb_drops_query;

/**
 * Check a --by list ("cause,owner") and split it into fields (pointers into `buf`, a copy).
 * @param fields  receives up to DNSB_DROPS_BY_MAX names, NULL-terminated
 * @return 0, or DNSB_EINVAL naming the unknown field
 */
int dnsb_drops_parse_by(const char **fields, char *buf, size_t size, const char *list, dnsb_error *err);

/** One row of the summary: how many selected lines share the grouping fields' values. */
typedef struct dnsb_drops_row {
	char *values[DNSB_DROPS_BY_MAX]; /**< one per grouping field, "" when the line has none; owned */
	unsigned long count;
} dnsb_drops_row;

/** What a drop log holds. Zeroed = empty; free with dnsb_drops_clear. */
typedef struct dnsb_drops {
	dnsb_drops_row *rows;     /**< in the order each kind first appears; owned */
	size_t row_count;
	struct json_object *plan; /**< keys create, updateOld, updateNew, delete as the lines name them, each
				       distinct change once (the log is appended to run after run); lines of a
				       change in effect (outcome applied or already_applied: its quarantine
				       ended) are counted in rows but left out; owned */
	size_t selected;          /**< lines that passed the filter, repeats included */
	const char *by[DNSB_DROPS_BY_MAX + 1]; /**< the grouping fields the rows follow (static strings) */
	size_t by_count;
	struct json_object *lines_kept; /**< with keep_lines: every selected line, in order; owned */
	size_t lines;             /**< lines read, blank ones included */
} dnsb_drops;

/**
 * Read a drop log (JSON Lines, dnsbatch/droplog.h) from `f` to its end. Blank lines are skipped.
 * @param out      filled (the caller's; dnsb_drops_clear), also on error
 * @param f        open for reading (borrowed, left open)
 * @param path     the file name, for messages only (borrowed)
 * @param q        filter and grouping (borrowed); NULL = every line by zone, outcome, reason, type
 * @return 0; DNSB_EPARSE for a line that is not one JSON object with a "change" object (the message says
 *         "PATH:LINE: not a drop log line" and why); DNSB_EIO when reading fails (PATH and the system error);
 *         DNSB_ENOMEM
 */
int dnsb_drops_read(dnsb_drops *out, FILE *f, const char *path, const dnsb_drops_query *q, dnsb_error *err);

/** Free what a summary owns and zero it. NULL is a no-op. */
void dnsb_drops_clear(dnsb_drops *d);

#endif
