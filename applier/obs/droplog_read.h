/*
 * droplog_read.h - read a drop log back (the reader of `dnsbatch drops`): count its lines by zone, outcome, reason and
 * record type, and merge the changes into one plan, each distinct change once. Internal (not installed).
 */
#ifndef DNSBATCH_OBS_DROPLOG_READ_H
#define DNSBATCH_OBS_DROPLOG_READ_H

#include <stdio.h>

#include <json-c/json.h>

#include "dnsbatch/common.h"

/** One row of the summary: how many selected lines share zone, outcome, reason and record type. */
typedef struct dnsb_drops_row {
	char *zone;         /**< the line's zone, "-" when it had none (""); owned */
	char *outcome;      /**< "dropped", "failed", or "" when the line has none; owned */
	char *reason;       /**< "conflict", ..., or ""; owned */
	char *record_type;  /**< recordType of the change's first endpoint, or ""; owned */
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
	size_t lines;             /**< lines read, blank ones included */
} dnsb_drops;

/**
 * Read a drop log (JSON Lines, dnsbatch/droplog.h) from `f` to its end. Blank lines are skipped.
 * @param out      filled (the caller's; dnsb_drops_clear), also on error
 * @param f        open for reading (borrowed, left open)
 * @param path     the file name, for messages only (borrowed)
 * @param outcome  keep only lines with this outcome ("dropped", "failed"); NULL = every line (borrowed)
 * @param reason   keep only lines with this reason ("conflict", ...); NULL = every line (borrowed)
 * @return 0; DNSB_EPARSE for a line that is not one JSON object with a "change" object (the message says
 *         "PATH:LINE: not a drop log line" and why); DNSB_EIO when reading fails (PATH and the system error);
 *         DNSB_ENOMEM
 */
int dnsb_drops_read(dnsb_drops *out, FILE *f, const char *path, const char *outcome, const char *reason,
		    dnsb_error *err);

/** Free what a summary owns and zero it. NULL is a no-op. */
void dnsb_drops_clear(dnsb_drops *d);

#endif
