/* log.c - diagnostics to stderr, one write(2) per line, as text or JSON built with json-c; every secret the
 * process holds (applier/core/secret.h) redacted from each line. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L  /* clock_gettime, gmtime_r */
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "applier/core/clock.h"
#include "applier/core/secret.h"
#include "dnsbatch/common.h"
#include "dnsbatch/log.h"

/* Longest message kept, bytes, including the NUL (log.h: 4 KiB). */
#define MESSAGE_MAX 4096

/* Atomic although log.h asks for set-up before threads: a library cannot
 * make its caller keep that promise, and a torn read here is cheap to rule out. */
static atomic_int log_format = DNSB_LOG_TEXT;
static atomic_int log_level = DNSB_LOG_INFO;
static atomic_int line_drawn; /* a progress line is on stderr without its newline */

void dnsb_log_line_drawn(int drawn)
{
	atomic_store(&line_drawn, drawn != 0);
}

void dnsb_log_set_format(dnsb_log_format format)
{
	atomic_store(&log_format, format == DNSB_LOG_JSON ? DNSB_LOG_JSON : DNSB_LOG_TEXT);
}

void dnsb_log_set_level(dnsb_log_level level)
{
	atomic_store(&log_level, (int)level);
}

int dnsb_log_parse_format(dnsb_log_format *out, const char *word)
{
	if (word && strcmp(word, "text") == 0)
		*out = DNSB_LOG_TEXT;
	else if (word && strcmp(word, "json") == 0)
		*out = DNSB_LOG_JSON;
	else
		return DNSB_EINVAL;
	return 0;
}

static const char *level_name(dnsb_log_level level)
{
	switch (level) {
	case DNSB_LOG_DEBUG:
		return "debug";
	case DNSB_LOG_INFO:
		return "info";
	case DNSB_LOG_WARN:
		return "warn";
	default:
		return "error";
	}
}

/* All of buf to stderr. A short write only happens for lines beyond
 * PIPE_BUF on a pipe, where no single call could be atomic anyway. */
static void write_all(const char *buf, size_t len)
{
	if (atomic_exchange(&line_drawn, 0))
		write_all("\r\033[K", 4); /* the progress line erased first: its owner redraws it */
	while (len > 0) {
		ssize_t n = write(STDERR_FILENO, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;  /* nowhere left to report a failing stderr */
		}
		buf += n;
		len -= (size_t)n;
	}
}

/* "2026-11-20T23:59:59Z": RFC 3339, UTC, as the drop log writes it. */
static void format_now(char *buf, size_t size)
{
	time_t secs = (time_t)dnsb_wall_clock();
	struct tm tm;

	if (!gmtime_r(&secs, &tm) ||
	    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, size, "1970-01-01T00:00:00Z");
}

/* @return 1 when the JSON line was written; 0 when out of memory */
static int write_json(const char *when, const char *level, const char *msg, json_object *fields)
{
	json_object *obj = json_object_new_object();
	const char *text;
	char *line;
	size_t len;
	int ok = 0;

	if (!obj)
		return 0;
	if (json_object_object_add(obj, "time", json_object_new_string(when)) != 0 ||
	    json_object_object_add(obj, "level", json_object_new_string(level)) != 0 ||
	    json_object_object_add(obj, "msg", json_object_new_string(msg)) != 0)
		goto out;
	if (json_object_is_type(fields, json_type_object)) {
		json_object_object_foreach(fields, key, val) {
			if (strcmp(key, "time") != 0 && strcmp(key, "level") != 0 && strcmp(key, "msg") != 0 &&
			    json_object_object_add(obj, key, json_object_get(val)) != 0)
				goto out;
		}
	}
	text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		goto out;
	len = strlen(text);
	line = malloc(len + 2);
	if (!line)
		goto out;
	memcpy(line, text, len + 1);
	dnsb_secret_redact(line); /* the fields too; the line only shrinks */
	len = strlen(line);
	line[len] = '\n';
	write_all(line, len + 1);
	free(line);
	ok = 1;
out:
	json_object_put(obj);
	return ok;
}

static void log_va(dnsb_log_level level, json_object *fields, const char *fmt, va_list ap)
{
	char msg[MESSAGE_MAX], when[32], line[MESSAGE_MAX + 64];
	int saved = errno;  /* callers often log and then look at errno */
	int n;

	if ((int)level < atomic_load(&log_level))
		return;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n < 0)
		snprintf(msg, sizeof(msg), "(unformattable message)");
	dnsb_secret_redact(msg); /* whatever the message quotes (a reply echoing a key): no secret held is printed */
	format_now(when, sizeof(when));

	if (atomic_load(&log_format) == DNSB_LOG_JSON && write_json(when, level_name(level), msg, fields)) {
		errno = saved;
		return;
	}
	/* Text: one record per line, so an embedded newline (an ldns or
	 * provider message) must not start what looks like another record. */
	for (char *c = msg; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	n = snprintf(line, sizeof(line), "%s %s %s\n", when, level_name(level), msg);
	if (n > 0)
		write_all(line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	errno = saved;
}

void dnsb_log(dnsb_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_va(level, NULL, fmt, ap);
	va_end(ap);
}

void dnsb_log_fields(dnsb_log_level level, json_object *fields, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_va(level, fields, fmt, ap);
	va_end(ap);
}
