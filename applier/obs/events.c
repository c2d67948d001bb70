/*
 * events.c - the Events recorder's queue and thread: the apply thread hands
 * over what its changes ask to be told without waiting (a full queue drops and
 * counts), the recorder's own thread aggregates and posts (events_series.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "applier/core/clock.h"
#include "applier/obs/events_int.h"
#include "dnsbatch/log.h"

int dnsb_events_parse_reasons(unsigned *out, const char *list, dnsb_error *err)
{
	static const unsigned bits[] = { DNSB_EVENT_DROPPED, DNSB_EVENT_QUARANTINED, DNSB_EVENT_HELD, DNSB_EVENT_FAILED };
	const char *p = list;

	*out = 0;
	while (p && *p) {
		size_t len = strcspn(p, ","), i = 0;
		for (; i < 4; i++) {
			const char *name = dnsb_event_reason_name(bits[i]);
			if (strlen(name) == len && strncmp(name, p, len) == 0)
				break;
		}
		if (len > 0 && i == 4)
			return dnsb_error_set(err, DNSB_EINVAL, "unknown reason '%.*s' (RecordDropped, RecordQuarantined, "
					      "RecordHeld, RecordFailed)", (int)len, p);
		*out |= len > 0 ? bits[i] : 0;
		p += len + (p[len] == ',');
	}
	return *out ? 0 : dnsb_error_set(err, DNSB_EINVAL, "no reason given");
}

void dnsb_events_on_outcome(void *recorder, const char *zone, const dnsb_change *change)
{
	dnsb_events *ev = recorder;
	dnsb_event_occ occ;
	int wake = 0, queued = 0, first_full = 0;

	(void)zone;
	if (ev == NULL || change == NULL || !dnsb_event_of_change(&occ, change, ev->o.reasons))
		return;
	pthread_mutex_lock(&ev->lock);
	if (ev->qlen < ev->o.queue_max && !ev->stopping) {
		wake = ev->qlen == 0; /* the thread waits only on an empty queue: one signal per batch of outcomes */
		ev->queue[ev->qlen++] = occ;
		queued = 1;
	} else {
		first_full = !ev->full;
		ev->full = 1;
	}
	pthread_mutex_unlock(&ev->lock);
	if (wake)
		pthread_cond_signal(&ev->cond);
	if (queued)
		return;
	/* Counted on the apply thread (the metrics have their own lock); logged once until the queue drains. */
	dnsb_metrics_event(ev->metrics, "queue_full");
	if (first_full)
		dnsb_log(DNSB_LOG_DEBUG, "Kubernetes Events: queue full, Events left out until it drains");
}

/* Take what is queued; wait up to a second when nothing is. @return how many, in ev->batch */
static size_t take(dnsb_events *ev, int *stopping)
{
	struct timespec ts = dnsb_wall_deadline(1.0);
	size_t n;

	pthread_mutex_lock(&ev->lock);
	if (ev->qlen == 0 && !ev->stopping)
		pthread_cond_timedwait(&ev->cond, &ev->lock, &ts);
	n = ev->qlen;
	memcpy(ev->batch, ev->queue, n * sizeof(*ev->queue));
	ev->qlen = 0;
	ev->full = 0;
	*stopping = ev->stopping;
	pthread_mutex_unlock(&ev->lock);
	return n;
}

static int all_posted(const dnsb_events *ev)
{
	for (size_t i = 0; i < ev->nseries; i++)
		if (ev->series[i].posted < ev->series[i].count && ev->series[i].tries == 0)
			return 0;
	return 1;
}

static void *recorder_main(void *arg)
{
	dnsb_events *ev = arg;
	int stopping = 0;

	for (;;) {
		size_t n = take(ev, &stopping);
		double now = dnsb_monotonic();

		for (size_t i = 0; i < n; i++)
			dnsb_events_aggregate(ev, &ev->batch[i], now);
		if (stopping) {
			/* What the API lacks, once, within the stop's bound; then no more. */
			while (!all_posted(ev) && dnsb_monotonic() < ev->stop_by && dnsb_monotonic() >= ev->api_down_until)
				dnsb_events_sync(ev, dnsb_monotonic(), 1);
			return NULL;
		}
		dnsb_events_sync(ev, now, 0);
		dnsb_events_finish(ev, now);
	}
}

static void instance_name(char *buf, size_t size, const char *given)
{
	const char *pod = getenv("POD_NAME");

	if (given && *given)
		snprintf(buf, size, "%s", given);
	else if (pod && *pod)
		snprintf(buf, size, "%s", pod);
	else if (gethostname(buf, size) != 0 || buf[0] == '\0')
		snprintf(buf, size, "dnsbatch");
	buf[size - 1] = '\0';
}

static void events_free(dnsb_events *ev)
{
	dnsb_k8s_client_free(ev->client);
	dnsb_k8s_uids_free(ev->uids);
	pthread_cond_destroy(&ev->cond);
	pthread_mutex_destroy(&ev->lock);
	free(ev->queue);
	free(ev->batch);
	free(ev->series);
	free(ev->buckets);
	free(ev);
}

int dnsb_events_start(dnsb_events **out, const dnsb_events_options *opts, dnsb_metrics *metrics, dnsb_error *err)
{
	dnsb_events *ev = calloc(1, sizeof(*ev));
	int rc;

	*out = NULL;
	if (ev == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	ev->o = *opts;
	ev->o.queue_max = opts->queue_max ? opts->queue_max : 1024;
	ev->o.refresh = opts->refresh > 0 ? opts->refresh : 1800.0;
	ev->metrics = metrics;
	instance_name(ev->instance, sizeof(ev->instance), opts->instance);
	pthread_mutex_init(&ev->lock, NULL);
	pthread_cond_init(&ev->cond, NULL);
	ev->queue = calloc(ev->o.queue_max, sizeof(*ev->queue));
	ev->batch = calloc(ev->o.queue_max, sizeof(*ev->batch));
	ev->buckets = calloc(DNSB_EVENTS_BUCKETS_MAX, sizeof(*ev->buckets));
	ev->uids = dnsb_k8s_uids_new();
	if (!ev->queue || !ev->batch || !ev->buckets || !ev->uids)
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	else
		rc = dnsb_k8s_client_new(&ev->client, &ev->o, err);
	ev->o.api_url = ev->o.ca_file = ev->o.token_file = ev->o.instance = NULL; /* borrowed: not kept */
	if (rc == 0 && (errno = pthread_create(&ev->thread, NULL, recorder_main, ev)) != 0)
		rc = dnsb_error_set(err, DNSB_ERROR, "Kubernetes Events: cannot start the thread: %s", strerror(errno));
	if (rc != 0) {
		events_free(ev);
		return rc;
	}
	*out = ev;
	return 0;
}

void dnsb_events_stop(dnsb_events *ev, double seconds)
{
	if (ev == NULL)
		return;
	pthread_mutex_lock(&ev->lock);
	ev->stopping = 1;
	ev->stop_by = dnsb_monotonic() + seconds;
	pthread_cond_signal(&ev->cond);
	pthread_mutex_unlock(&ev->lock);
	pthread_join(ev->thread, NULL);
	events_free(ev);
}
