/*
 * droplog.c - the drop log: one JSON line per dropped or failed change, built
 * with json-c (DESIGN §6); rotated past a size, reopened on request.
 */
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "dnsbatch/droplog.h"
#include "dnsbatch/log.h"
#include "dnsbatch/plan.h"
#include "applier/obs/droplog_bound.h"

struct dnsb_droplog {
	pthread_mutex_t lock;   /* one line at a time; file, lines and rotate_failed */
	FILE *file;
	char *path;             /* as opened: rotation and reopen use it */
	uint64_t max_size;      /* bytes, 0 = no limit */
	unsigned long lines;
	int rotate_failed;      /* a failed rotation was logged: not again until one works */
};

/*
 * path opened for appending. O_APPEND: runs append to one file, and a second
 * process appending at the same time (a one-shot beside the sidecar) never
 * overwrites our lines. Unbuffered: each line leaves in one write(2) (see
 * dnsb_droplog_write), and a failed write leaves no half line in a buffer to
 * prefix the next. @return the stream, or NULL with errno set
 */
static FILE *open_append(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	FILE *f;

	if (fd < 0)
		return NULL;
	if ((f = fdopen(fd, "a")) == NULL) {
		int saved = errno;

		close(fd);
		errno = saved;
		return NULL;
	}
	setvbuf(f, NULL, _IONBF, 0);
	return f;
}

/* A stream given up for a new file: its lines to disk first, as dnsb_droplog_flush would. */
static void close_synced(FILE *f)
{
	fflush(f);
	fsync(fileno(f));
	fclose(f);
}

int dnsb_droplog_open_ext(dnsb_droplog **out, const char *path, const dnsb_droplog_options *opts,
			  dnsb_error *err)
{
	dnsb_droplog *log;

	if (opts && opts->version != DNSB_DROPLOG_OPTIONS_VERSION)
		return dnsb_error_set(err, DNSB_EINVAL, "drop log options version %u, expected %u", opts->version,
				      DNSB_DROPLOG_OPTIONS_VERSION);
	log = calloc(1, sizeof(*log));
	if (!log || !(log->path = strdup(path))) {
		free(log);
		return dnsb_error_set(err, DNSB_ENOMEM, "%s: out of memory", path);
	}
	log->max_size = opts ? opts->max_size : 0;
	if (pthread_mutex_init(&log->lock, NULL) != 0) {
		free(log->path);
		free(log);
		return dnsb_error_set(err, DNSB_ENOMEM, "%s: cannot create a lock", path);
	}
	if ((log->file = open_append(path)) == NULL) {
		int saved = errno;

		pthread_mutex_destroy(&log->lock);
		free(log->path);
		free(log);
		return dnsb_error_set(err, DNSB_EIO, "%s: %s", path, strerror(saved));
	}
	*out = log;
	return 0;
}

int dnsb_droplog_open(dnsb_droplog **out, const char *path, dnsb_error *err)
{
	return dnsb_droplog_open_ext(out, path, NULL, err);
}

/* Would `len` more bytes take the file past max_size? An empty file takes any line: lines are never split. */
static int over_size(dnsb_droplog *log, size_t len)
{
	struct stat st;

	/* fstat, not a count of our own bytes: another process may append too. */
	if (log->max_size == 0 || fstat(fileno(log->file), &st) != 0 || st.st_size <= 0)
		return 0;
	return (uint64_t)st.st_size + len > log->max_size;
}

/*
 * FILE becomes FILE.1 (rename replaces an older one) and a new FILE is
 * started. Under the lock. When that fails the line still goes to the current
 * file, past the size (a drop is never lost to rotation), and the next write
 * tries again; the failure is logged once.
 */
static void rotate(dnsb_droplog *log)
{
	size_t n = strlen(log->path) + 3;
	char *rotated = malloc(n);
	FILE *f = NULL;
	int saved = ENOMEM;

	if (rotated != NULL) {
		snprintf(rotated, n, "%s.1", log->path);
		/* ENOENT: the file was moved away already (logrotate, before its SIGHUP): start a new one. */
		if (rename(log->path, rotated) != 0 && errno != ENOENT)
			saved = errno;
		else if ((f = open_append(log->path)) == NULL)
			saved = errno;
	}
	if (f != NULL) {
		close_synced(log->file);
		log->file = f;
		log->rotate_failed = 0;
	} else if (!log->rotate_failed) {
		log->rotate_failed = 1;
		dnsb_log(DNSB_LOG_ERROR, "drop log %s: cannot rotate it to %s.1: %s; writing on past its maximum size",
			 log->path, log->path, strerror(saved));
	}
	free(rotated);
}

int dnsb_droplog_reopen(dnsb_droplog *log, dnsb_error *err)
{
	FILE *f;

	if (!log)
		return 0;
	if ((f = open_append(log->path)) == NULL)
		return dnsb_error_set(err, DNSB_EIO, "%s: %s", log->path, strerror(errno));
	pthread_mutex_lock(&log->lock);
	close_synced(log->file);
	log->file = f;
	log->rotate_failed = 0;
	pthread_mutex_unlock(&log->lock);
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

static const char *const quarantine_names[] = { NULL, "start", "again", "end" };

/* "quarantine" and, when the hold is set, "quarantine_seconds" (whole seconds as an integer). */
static int add_quarantine(json_object *obj, dnsb_droplog_quarantine event, double seconds)
{
	json_object *v;

	if (event == DNSB_DROPLOG_QUARANTINE_NONE)
		return 0;
	if (add_string(obj, "quarantine", quarantine_names[event]))
		return DNSB_ENOMEM;
	if (event == DNSB_DROPLOG_QUARANTINE_END)
		return 0;
	v = seconds == floor(seconds) && seconds < 9e15 ? json_object_new_int64((int64_t)seconds)
							 : json_object_new_double(seconds);
	if (!v || json_object_object_add(obj, "quarantine_seconds", v) != 0) {
		json_object_put(v);
		return DNSB_ENOMEM;
	}
	return 0;
}

/* Every RRset in the list as an Endpoint. @return a new array, or NULL (ENOMEM) */
json_object *dnsb_droplog_current(const dnsb_rrset_list *list)
{
	json_object *arr = json_object_new_array_ext((int)list->count);

	for (size_t i = 0; arr && i < list->count; i++) {
		json_object *ep = dnsb_rrset_to_endpoint(&list->items[i]);
		if (ep == NULL || json_object_array_add(arr, ep) != 0) {
			json_object_put(ep);
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

/* What is in a dropped change's way: cause, current, owner, owner_resource. @return 0 or DNSB_ENOMEM */
static int add_cause(json_object *obj, const dnsb_change *c)
{
	dnsb_cause cause = dnsb_change_cause(c);
	json_object *current;

	if (cause == DNSB_CAUSE_NONE)
		return 0;
	if (add_string(obj, "cause", dnsb_cause_name(cause)))
		return DNSB_ENOMEM;
	if (c->cause != DNSB_CAUSE_NONE && c->reason == DNSB_REASON_CONFLICT) {
		if ((current = dnsb_droplog_current(&c->current)) == NULL ||
		    json_object_object_add(obj, "current", current) != 0) {
			json_object_put(current);
			return DNSB_ENOMEM;
		}
	}
	if ((c->txt_owner && add_string(obj, "owner", c->txt_owner)) ||
	    (c->txt_resource && add_string(obj, "owner_resource", c->txt_resource)))
		return DNSB_ENOMEM;
	return 0;
}

/* The line's object, keys in the order of DESIGN §6. @return a new reference or NULL (ENOMEM) */
static json_object *build_line(const char *zone, const dnsb_change *change, double now,
			       dnsb_droplog_quarantine event, double seconds)
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
	if (add_string(obj, "code", change->code) || add_string(obj, "message", change->message) ||
	    add_quarantine(obj, event, seconds) || add_cause(obj, change))
		goto fail;
	plan = dnsb_change_to_plan_json(change);
	if (!plan || json_object_object_add(obj, "change", plan) != 0) {
		json_object_put(plan);
		goto fail;
	}
	if (dnsb_droplog_bound(&obj) != 0) /* names and values within bounds, cuts said */
		goto fail;
	return obj;

fail:
	json_object_put(obj);
	return NULL;
}

int dnsb_droplog_write_quarantine(dnsb_droplog *log, const char *zone, const dnsb_change *change, double now,
				  dnsb_droplog_quarantine event, double seconds)
{
	json_object *obj;
	const char *text;
	char *line;
	size_t len;
	int rc = 0;

	/* Like the metrics recorders, a missing log is simply not written. */
	if (!log)
		return 0;
	if (!change || (unsigned)event > DNSB_DROPLOG_QUARANTINE_END)
		return DNSB_EINVAL;
	obj = build_line(zone, change, now, event, seconds);
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
	if (over_size(log, len + 1))
		rotate(log);
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

int dnsb_droplog_write(dnsb_droplog *log, const char *zone, const dnsb_change *change, double now)
{
	return dnsb_droplog_write_quarantine(log, zone, change, now, DNSB_DROPLOG_QUARANTINE_NONE, 0);
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
	free(log->path);
	free(log);
}
