/*
 * release.c - POST /release?digest=D on the provider port (loopback): an
 * operator releases exactly the set of changes a safety threshold held, by
 * the digest its log line and failed changes carry (dnsbatch/threshold.h).
 * The grant is valid for a bounded time; the next POST /records holding that
 * same set sends it. No restart, no flag.
 */
#include <microhttpd.h>

#include "dnsbatch/log.h"
#include "dnsbatch/threshold.h"
#include "applier/core/clock.h"
#include "applier/webhook/internal.h"

enum MHD_Result dnsb_webhook_handle_release(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	const char *digest = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "digest");
	dnsb_release *r = wh->engine.thresholds ? wh->engine.thresholds->release : NULL;
	char zone[256] = "";
	int rc;

	if (r == NULL)
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_CONFLICT, "no safety thresholds here: nothing is held");
	rc = dnsb_release_grant(r, digest, dnsb_wall_clock(), zone, sizeof(zone));
	if (rc == DNSB_EINVAL)
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_BAD_REQUEST,
					       "POST /release?digest=D: D is the 64 hex digits a held set's log line gives");
	if (rc < 0) {
		dnsb_log(DNSB_LOG_WARN, "POST /release: no held set has digest %s (a changed set has another digest)", digest);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_NOT_FOUND,
					       "no held set has this digest (held sets are kept for a while; a changed "
					       "set has another digest)");
	}
	dnsb_log(DNSB_LOG_WARN, "POST /release: held set %s of zone %s released by an operator: the next POST /records "
		 "holding exactly this set sends it", digest, zone);
	return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_OK, "released: zone %s, digest %s", zone, digest);
}
