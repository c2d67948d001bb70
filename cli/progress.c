/*
 * progress.c - where a long `apply` is, on stderr: on a terminal one line
 * redrawn in place; off a terminal, or with --log-format json, one log line
 * at most every --progress-interval seconds. Time is the engine's clock
 * (dnsb_progress.elapsed), so a test's clock drives it.
 */
#include <stdio.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"

/* A terminal line is redrawn at most this often, seconds. */
#define TTY_REDRAW 0.2

void dnsb_cli_progress_init(dnsb_cli_progress *p, int json_logs, double interval)
{
	p->tty = !json_logs && isatty(STDERR_FILENO);
	p->json = json_logs;
	p->interval = p->tty ? TTY_REDRAW : interval;
	p->last = 0;
	p->drawn = 0;
	p->rate_from = -1;
}

/* "1:02:03" or "2:03" for seconds >= 0. */
static void clock_text(char *buf, size_t size, double seconds)
{
	unsigned long s = seconds > 0 ? (unsigned long)(seconds + 0.5) : 0;

	if (s >= 3600)
		snprintf(buf, size, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, size, "%lu:%02lu", s / 60, s % 60);
}

/* Seconds left at the pace of the changes settled since the first call, or -1 while there is none. */
static double eta(dnsb_cli_progress *p, const dnsb_progress *pr)
{
	double done = (double)pr->done - (double)p->rate_from;

	if (done <= 0 || pr->elapsed <= 0)
		return -1;
	return pr->elapsed / done * (double)(pr->total - pr->done);
}

static void log_line(const dnsb_progress *pr, double left, const char *text)
{
	json_object *f = json_object_new_object();

	if (f) {
		json_object_object_add(f, "progress_done", json_object_new_int64((int64_t)pr->done));
		json_object_object_add(f, "progress_total", json_object_new_int64((int64_t)pr->total));
		json_object_object_add(f, "applied", json_object_new_int64((int64_t)pr->applied));
		json_object_object_add(f, "dropped", json_object_new_int64((int64_t)pr->dropped));
		json_object_object_add(f, "failed", json_object_new_int64((int64_t)pr->failed));
		json_object_object_add(f, "submissions", json_object_new_int64((int64_t)pr->submissions));
		json_object_object_add(f, "elapsed_seconds", json_object_new_double(pr->elapsed));
		if (left >= 0)
			json_object_object_add(f, "eta_seconds", json_object_new_double(left));
	}
	dnsb_log_fields(DNSB_LOG_INFO, f, "progress: %s", text);
	json_object_put(f);
}

void dnsb_cli_progress_show(void *payload, const dnsb_progress *pr)
{
	dnsb_cli_progress *p = payload;
	char text[256], took[32], rest[32];
	double left;

	if (p->rate_from < 0)
		p->rate_from = (long)pr->done; /* settled before sending: no measure of the pace */
	if (pr->final) {
		dnsb_cli_progress_clear(p);
		return;
	}
	if (pr->elapsed - p->last < p->interval)
		return;
	p->last = pr->elapsed;
	left = eta(p, pr);
	clock_text(took, sizeof(took), pr->elapsed);
	if (left >= 0)
		clock_text(rest, sizeof(rest), left);
	snprintf(text, sizeof(text), "%zu of %zu change%s (%.0f%%): %zu applied, %zu dropped, %zu failed; "
		 "%lu submission%s; %s elapsed, %s%s", pr->done, pr->total, DNSB_CLI_S(pr->total),
		 pr->total ? 100.0 * (double)pr->done / (double)pr->total : 100.0, pr->applied, pr->dropped, pr->failed,
		 pr->submissions, DNSB_CLI_S(pr->submissions), took, left >= 0 ? rest : "time left unknown",
		 left >= 0 ? " left" : "");
	if (!p->tty) {
		log_line(pr, left, text);
		return;
	}
	fprintf(stderr, "\r\033[Kdnsbatch: %s", text);
	fflush(stderr);
	p->drawn = 1;
	dnsb_log_line_drawn(1); /* a log line erases it before it is written */
}

void dnsb_cli_progress_clear(dnsb_cli_progress *p)
{
	if (p->drawn) {
		dnsb_log_line_drawn(0);
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->drawn = 0;
	}
}
