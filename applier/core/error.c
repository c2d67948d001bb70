/* error.c - return codes, error detail, and the names used in labels and logs. */
#include <stdarg.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "applier/core/secret.h"
#include "dnsbatch/common.h"
#include "dnsbatch/change.h"
#include "dnsbatch/sys/provider.h"

const char *dnsb_strerror(int code)
{
	switch (code) {
	case DNSB_OK: return "success";
	case DNSB_ERROR: return "internal error";
	case DNSB_ENOMEM: return "out of memory";
	case DNSB_EINVAL: return "invalid argument";
	case DNSB_EPARSE: return "not a valid plan";
	case DNSB_EIO: return "input/output error";
	case DNSB_ECONFLICT: return "conflict with existing data";
	case DNSB_ENOTFOUND: return "not found";
	case DNSB_ETRANSIENT: return "temporary failure";
	case DNSB_ERATELIMIT: return "rate limited";
	case DNSB_EFATAL: return "fatal provider error";
	case DNSB_ETOOLARGE: return "batch too large";
	case DNSB_EDEADLINE: return "deadline exceeded";
	case DNSB_EUSAGE: return "usage error";
	default: return "unknown error";
	}
}

int dnsb_error_set(dnsb_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	dnsb_secret_redact(err->message); /* a quoted reply may echo a key (issue 38 §4) */
	return code;
}

void dnsb_result_init(dnsb_result *res)
{
	res->cls = DNSB_CLASS_OK;
	res->status = 0;
	res->code[0] = '\0';
	res->message[0] = '\0';
	res->culprit_count = 0;
	res->notes_used = 0;
	res->retry_after = -1.0;
	res->races = 0;
}

void dnsb_result_add_culprit(dnsb_result *res, size_t index)
{
	if (res->culprit_count < DNSB_RESULT_CULPRITS_MAX) {
		res->culprit_note[res->culprit_count] = 0;
		res->culprits[res->culprit_count++] = index;
	}
}

void dnsb_result_add_culprit_note(dnsb_result *res, size_t index, const char *note)
{
	size_t len = note ? strlen(note) : 0, at = res->notes_used;

	if (res->culprit_count >= DNSB_RESULT_CULPRITS_MAX)
		return;
	dnsb_result_add_culprit(res, index);
	if (len == 0 || at + len + 1 > sizeof(res->notes))
		return;
	for (size_t i = 0; i < len; i++)
		res->notes[at + i] = iscntrl((unsigned char)note[i]) ? ' ' : note[i];
	res->notes[at + len] = '\0';
	res->notes_used = at + len + 1;
	res->culprit_note[res->culprit_count - 1] = (uint16_t)(at + 1);
}

const char *dnsb_result_note(const dnsb_result *res, size_t index)
{
	for (size_t k = 0; k < res->culprit_count; k++)
		if (res->culprits[k] == index && res->culprit_note[k] != 0)
			return res->notes + res->culprit_note[k] - 1;
	return NULL;
}

int dnsb_result_from_error(dnsb_result *out, int rc, int status, const char *what, const dnsb_error *e,
			   dnsb_error *err)
{
	switch (rc) {
	case DNSB_ETRANSIENT:
		dnsb_result_set(out, DNSB_CLASS_TRANSIENT, status, "", "%s: %s", what, e->message);
		return 0;
	case DNSB_ERATELIMIT:
		dnsb_result_set(out, DNSB_CLASS_RATE_LIMITED, status, "", "%s: %s", what, e->message);
		return 0;
	case DNSB_EFATAL:
	case DNSB_EINVAL:
		dnsb_result_set(out, DNSB_CLASS_FATAL, status, "", "%s: %s", what, e->message);
		return 0;
	default:
		return dnsb_error_set(err, rc, "%s", e->message[0] ? e->message : dnsb_strerror(rc));
	}
}

void dnsb_result_set(dnsb_result *res, dnsb_class cls, int status, const char *code, const char *fmt, ...)
{
	va_list ap;

	res->cls = cls;
	res->status = status;
	snprintf(res->code, sizeof(res->code), "%s", code ? code : "");
	va_start(ap, fmt);
	vsnprintf(res->message, sizeof(res->message), fmt, ap);
	va_end(ap);
	dnsb_secret_redact(res->message);
	/* One line: messages from providers end up in log lines and labels. */
	for (char *c = res->message; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
}

const char *dnsb_class_name(dnsb_class cls)
{
	static const char *const names[] = {
		"ok", "conflict", "invalid", "too_large", "rate_limited", "transient", "fatal"
	};

	return (unsigned)cls < sizeof(names) / sizeof(names[0]) ? names[cls] : "unknown";
}

const char *dnsb_outcome_name(dnsb_outcome outcome)
{
	static const char *const names[] = {
		"pending", "applied", "already_applied", "dropped", "failed"
	};

	return (unsigned)outcome < sizeof(names) / sizeof(names[0]) ? names[outcome] : "unknown";
}

const char *dnsb_reason_name(dnsb_reason reason)
{
	static const char *const names[] = {
		"", "conflict", "invalid", "no_zone", "quarantined", "transient", "rate_limited", "fatal", "deadline", "held"
	};

	return (unsigned)reason < sizeof(names) / sizeof(names[0]) ? names[reason] : "unknown";
}

const char *dnsb_cause_name(dnsb_cause cause)
{
	static const char *const names[] = {
		"", "exists", "differs", "missing", "cname", "invalid", "no_zone", "quarantined", "other"
	};

	return (unsigned)cause < sizeof(names) / sizeof(names[0]) ? names[cause] : "unknown";
}

dnsb_cause dnsb_change_cause(const dnsb_change *c)
{
	if (c->outcome != DNSB_OUTCOME_DROPPED)
		return DNSB_CAUSE_NONE;
	if (c->cause != DNSB_CAUSE_NONE)
		return c->cause;
	switch (c->reason) {
	case DNSB_REASON_INVALID: return DNSB_CAUSE_INVALID;
	case DNSB_REASON_NO_ZONE: return DNSB_CAUSE_NO_ZONE;
	case DNSB_REASON_QUARANTINED: return DNSB_CAUSE_QUARANTINED;
	default: return DNSB_CAUSE_OTHER;
	}
}
