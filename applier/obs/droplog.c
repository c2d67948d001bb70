/* droplog.c - the drop log: one JSON line per dropped or failed change, built with json-c (DESIGN §6). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L  /* fdopen, fsync, gmtime_r */
#endif

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "dnsbatch/droplog.h"
#include "dnsbatch/plan.h"

struct dnsb_droplog {
	pthread_mutex_t lock;   /* one line at a time, and `lines` */
	FILE *file;
	unsigned long lines;
};

int dnsb_droplog_open(dnsb_droplog **out, const char *path, dnsb_error *err)
{
	dnsb_droplog *log;
	int fd;

	log = calloc(1, sizeof(*log));
	if (!log)
		return dnsb_error_set(err, DNSB_ENOMEM, "%s: out of memory", path);
	if (pthread_mutex_init(&log->lock, NULL) != 0) {
		free(log);
		return dnsb_error_set(err, DNSB_ENOMEM, "%s: cannot create a lock", path);
	}
	/* O_APPEND: runs append to one file, and a second process appending
	 * at the same time (a one-shot beside the sidecar) never overwrites
	 * our lines. */
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || !(log->file = fdopen(fd, "a"))) {
		int saved = errno;

		if (fd >= 0)
			close(fd);
		pthread_mutex_destroy(&log->lock);
		free(log);
		return dnsb_error_set(err, DNSB_EIO, "%s: %s", path, strerror(saved));
	}
	/* Unbuffered: each line leaves in one write(2) (see dnsb_droplog_write),
	 * and a failed write leaves no half line in a buffer to prefix the next. */
	setvbuf(log->file, NULL, _IONBF, 0);
	*out = log;
	return 0;
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

/* A string field, or null when absent, so a consumer tells "no code" from "empty code". */
static int add_string(json_object *obj, const char *key, const char *value)
{
	json_object *v = NULL;

	if (value && !(v = json_object_new_string(value)))
		return DNSB_ENOMEM;
	if (json_object_object_add(obj, key, v) != 0) {
		json_object_put(v);
		return DNSB_ENOMEM;
	}
	return 0;
}

/* The line's object, keys in the order of DESIGN §6. @return a new reference or NULL (ENOMEM) */
static json_object *build_line(const char *zone, const dnsb_change *change, double now)
{
	json_object *obj = json_object_new_object();
	json_object *plan, *status;
	char when[32];

	if (!obj)
		return NULL;
	format_time(when, sizeof(when), now);
	if (add_string(obj, "time", when) || add_string(obj, "zone", zone ? zone : "") ||
	    add_string(obj, "outcome", dnsb_outcome_name(change->outcome)) ||
	    add_string(obj, "reason", dnsb_reason_name(change->reason)))
		goto fail;
	status = json_object_new_int(change->status);
	if (!status || json_object_object_add(obj, "status", status) != 0) {
		json_object_put(status);
		goto fail;
	}
	if (add_string(obj, "code", change->code) || add_string(obj, "message", change->message))
		goto fail;
	plan = dnsb_change_to_plan_json(change);
	if (!plan || json_object_object_add(obj, "change", plan) != 0) {
		json_object_put(plan);
		goto fail;
	}
	return obj;

fail:
	json_object_put(obj);
	return NULL;
}

int dnsb_droplog_write(dnsb_droplog *log, const char *zone, const dnsb_change *change, double now)
{
	json_object *obj;
	const char *text;
	char *line;
	size_t len;
	int rc = 0;

	/* Like the metrics recorders, a missing log is simply not written. */
	if (!log)
		return 0;
	if (!change)
		return DNSB_EINVAL;
	obj = build_line(zone, change, now);
	if (!obj)
		return DNSB_ENOMEM;
	/* PLAIN: one line. NOSLASHESCAPE: keep "external-dns/owner" readable
	 * in TXT targets (an escaped slash is legal JSON, just noise). */
	text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text) {
		json_object_put(obj);
		return DNSB_ENOMEM;
	}
	len = strlen(text);
	line = malloc(len + 1);
	if (!line) {
		json_object_put(obj);
		return DNSB_ENOMEM;
	}
	memcpy(line, text, len);
	line[len] = '\n';
	json_object_put(obj);

	pthread_mutex_lock(&log->lock);
	/* One fwrite on an unbuffered O_APPEND stream is one write(2): the line
	 * is on disk (short of fsync) as soon as this returns, so a crash loses
	 * none, a reader (`tail -f`, `dnsbatch drops`) never sees half of one,
	 * and another process appending to the same file cannot split it. */
	if (fwrite(line, 1, len + 1, log->file) != len + 1) {
		clearerr(log->file);
		rc = DNSB_EIO;
	} else {
		log->lines++;
	}
	pthread_mutex_unlock(&log->lock);
	free(line);
	return rc;
}

int dnsb_droplog_flush(dnsb_droplog *log)
{
	int rc = 0;

	if (!log)
		return 0;
	pthread_mutex_lock(&log->lock);
	if (fflush(log->file) != 0 || fsync(fileno(log->file)) != 0)
		rc = DNSB_EIO;
	pthread_mutex_unlock(&log->lock);
	return rc;
}

unsigned long dnsb_droplog_lines(dnsb_droplog *log)
{
	unsigned long n;

	if (!log)
		return 0;
	pthread_mutex_lock(&log->lock);
	n = log->lines;
	pthread_mutex_unlock(&log->lock);
	return n;
}

void dnsb_droplog_free(dnsb_droplog *log)
{
	if (!log)
		return;
	(void)dnsb_droplog_flush(log);
	fclose(log->file);
	pthread_mutex_destroy(&log->lock);
	free(log);
}
