/*
 * dnsbatch/droplog.h - the drop log: JSON Lines, one object per dropped or
 * failed change (DESIGN §6):
 *   {"time":"2026-11-20T23:59:59Z","zone":"example.com.","outcome":"dropped",
 *    "reason":"conflict","status":409,"code":"alreadyExists","message":"...",
 *    "change":{"create":[{endpoint}]}}
 * `change` is the change in plan form, so `jq -c .change` gives plans that
 * `dnsbatch apply` takes back. Thread-safe; each line is written whole.
 */
#ifndef DNSBATCH_DROPLOG_H
#define DNSBATCH_DROPLOG_H

#include "change.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dnsb_droplog dnsb_droplog;

/**
 * Open (create or append to) a drop log.
 * @param path  file name (copied)
 * @return 0, DNSB_EIO (the message names the file and the system error), DNSB_ENOMEM
 */
int dnsb_droplog_open(dnsb_droplog **out, const char *path, dnsb_error *err);

/**
 * Append the line for one change.
 * @param zone    apex, or "" when the change has no zone (borrowed)
 * @param change  a change whose outcome is dropped or failed (borrowed)
 * @param now     Unix seconds, for the `time` field
 * @return 0, DNSB_EIO, DNSB_ENOMEM
 */
int dnsb_droplog_write(dnsb_droplog *log, const char *zone, const dnsb_change *change, double now);

/** Push written lines to the file (fflush + fsync). @return 0 or DNSB_EIO */
int dnsb_droplog_flush(dnsb_droplog *log);

/** Lines written since open. */
unsigned long dnsb_droplog_lines(dnsb_droplog *log);

/** Flush, close and free. NULL is a no-op. */
void dnsb_droplog_free(dnsb_droplog *log);

#ifdef __cplusplus
}
#endif
#endif
