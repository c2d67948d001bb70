/*
 * insync.c - --aws-wait-insync: after Route53 accepted a batch (PENDING),
 * poll GetChange until it says INSYNC (every Route53 server answers with the
 * change), within the time the engine gave the submission.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "providers/aws/aws.h"

/* The change's id from a ChangeResourceRecordSets reply: ChangeInfo/Id without "/change/". @return malloc'd or NULL */
static char *change_id(const char *reply, size_t len)
{
	char *id = dnsb_aws_xml_find(reply, len, "Id"), *bare;

	if (id == NULL || strncmp(id, "/change/", 8) != 0)
		return id;
	bare = strdup(id + 8);
	free(id);
	return bare;
}

/* One GetChange. @return 1 INSYNC, 0 PENDING, or a negative code (err set) */
static int poll_once(dnsb_aws *a, const char *url, double give_up, dnsb_error *err)
{
	dnsb_http_response resp;
	char *status;
	int rc = dnsb_hb_get(&a->base, url, "GetChange", give_up, &resp, NULL, err);

	if (rc != 0)
		return rc;
	status = dnsb_aws_xml_find(resp.body, resp.body_len, "Status");
	dnsb_http_response_clear(&resp);
	rc = status && strcmp(status, "INSYNC") == 0 ? 1 : 0;
	free(status);
	return rc;
}

/* Poll until INSYNC, a refusal, or no time for the next poll. @return as poll_once */
static int poll(dnsb_aws *a, const char *url, double start, double limit, unsigned *polls, dnsb_error *err)
{
	double delay = DNSB_AWS_INSYNC_FIRST;
	int rc = 0;

	while (rc == 0 || rc == DNSB_ETRANSIENT || rc == DNSB_ERATELIMIT) {
		if (dnsb_monotonic() + delay >= limit)
			return dnsb_error_set(err, DNSB_ETRANSIENT, "no time left for the next GetChange");
		if (dnsb_stop_sleep(delay)) /* a stop (a signal) ends the wait: the change was accepted, unconfirmed */
			return dnsb_error_set(err, DNSB_ETRANSIENT, "the apply was stopped before INSYNC");
		(*polls)++;
		rc = poll_once(a, url, limit, err);
		if (rc == DNSB_ETRANSIENT || rc == DNSB_ERATELIMIT)
			dnsb_log(DNSB_LOG_DEBUG, "aws: GetChange after %.1f s: %s", dnsb_monotonic() - start, err->message);
		delay = delay * 2 > DNSB_AWS_INSYNC_CAP ? DNSB_AWS_INSYNC_CAP : delay * 2;
	}
	return rc;
}

int dnsb_aws_wait_insync(dnsb_aws *a, const char *zone, const char *reply, size_t len, double give_up)
{
	double start = dnsb_monotonic(), limit = give_up > 0 ? give_up : start + DNSB_AWS_INSYNC_MAX;
	char *id = change_id(reply, len), *escaped = id ? dnsb_http_escape(id) : NULL, *url = NULL;
	dnsb_error err = { 0, "" };
	unsigned polls = 0;
	int rc;

	if (escaped == NULL || asprintf(&url, "%s" DNSB_AWS_API "/change/%s", a->cfg.endpoint, escaped) < 0) {
		dnsb_log(DNSB_LOG_WARN, "aws: %s: ChangeResourceRecordSets gave no change id to wait for; the batch is "
			 "committed", zone);
		free(id);
		free(escaped);
		return 0;
	}
	rc = poll(a, url, start, limit, &polls, &err);
	if (rc == 1)
		dnsb_log(DNSB_LOG_DEBUG, "aws: change %s of %s INSYNC after %.1f s (%u GetChange)", id, zone,
			 dnsb_monotonic() - start, polls);
	else
		dnsb_log(DNSB_LOG_WARN, "aws: change %s of %s not INSYNC after %.1f s waited (%u GetChange): %s; the "
			 "batch is committed (Route53 accepted it)", id, zone, dnsb_monotonic() - start, polls,
			 err.message);
	free(url);
	free(escaped);
	free(id);
	return rc == 1;
}
