/* droplog_bound.h - internal: drop-log lines within their bounds (droplog_bound.c). */
#ifndef DNSB_DROPLOG_BOUND_H
#define DNSB_DROPLOG_BOUND_H

#include <json-c/json.h>

/*
 * Bound every string of a drop-log line: a dnsName or ownedRecord at 253
 * octets, a target at 65535, any other string (message, code, owner) at 4096,
 * cut on a UTF-8 boundary. When something is cut, *line is replaced by a cut
 * copy (its old reference released; the original, which shares the plan's
 * endpoints, is never changed) holding "truncated": [{"field": "$.message",
 * "octets": 2097170}, ...], each field's path and original length.
 * @return 0, or DNSB_ENOMEM (*line is then unchanged)
 */
int dnsb_droplog_bound(json_object **line);

#endif
