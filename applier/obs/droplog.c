/*
 * droplog.c - the drop log: one JSON line per dropped or failed change, as
 * drop_record.c builds it (docs/design.md §6.2); rotated past a size, reopened on request.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L  /* fdopen, fsync */
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "applier/core/secret.h"
#include "applier/obs/drop_record.h"
#include "dnsbatch/droplog.h"
#include "dnsbatch/log.h"
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

/*
 * The stream's lines to disk: fflush, then fsync when it is a regular file. A
 * character device (/dev/null), a FIFO or a socket has no disk to reach, and
 * fsync refuses it (EINVAL): a drop log there is written once it is written.
 * @return 0, or -1 with errno set
 */
static int sync_stream(FILE *f)
{
	struct stat st;

	if (fflush(f) != 0)
		return -1;
	if (fstat(fileno(f), &st) != 0)
		return -1;
	return S_ISREG(st.st_mode) ? fsync(fileno(f)) : 0;
}

/* A stream given up for a new file: its lines to disk first, as dnsb_droplog_flush would. */
static void close_synced(FILE *f)
{
	(void)sync_stream(f);
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

/* One line out, whole, its reference released. @return 0, DNSB_EIO, DNSB_ENOMEM */
static int write_line(dnsb_droplog *log, json_object *obj)
{
	const char *text;
	char *line;
	size_t len;
	int rc = 0;

	if (dnsb_droplog_bound(&obj) != 0) { /* names and values within bounds, cuts said */
		json_object_put(obj);
		return DNSB_ENOMEM;
	}
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
	memcpy(line, text, len + 1);
	json_object_put(obj);
	/* A provider's message, a culprit's note, a target: no secret this process holds is written (issue 38
	 * §4). Secrets are tokens and base64, which JSON does not escape (no slash escaped here); the line
	 * only shrinks. */
	dnsb_secret_redact(line);
	len = strlen(line);
	line[len] = '\n';

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

int dnsb_droplog_write_quarantine(dnsb_droplog *log, const char *zone, const dnsb_change *change, double now,
				  dnsb_droplog_quarantine event, double seconds)
{
	json_object *obj;

	/* Like the metrics recorders, a missing log is simply not written. */
	if (!log)
		return 0;
	if (!change || (unsigned)event > DNSB_DROPLOG_QUARANTINE_END)
		return DNSB_EINVAL;
	obj = dnsb_drop_record(&(dnsb_drop){ zone, change, now, event, seconds }, DNSB_DROP_LINE);
	if (!obj)
		return DNSB_ENOMEM;
	return write_line(log, obj);
}

int dnsb_droplog_write_omitted(dnsb_droplog *log, const char *zone, const char *outcome, const char *reason,
			       size_t count, double now)
{
	json_object *obj;

	if (!log)
		return 0;
	if ((obj = dnsb_drop_omitted_record(zone, outcome, reason, count, now)) == NULL)
		return DNSB_ENOMEM;
	return write_line(log, obj);
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
	if (sync_stream(log->file) != 0)
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
