/*
 * events_note.c - the Event one settled change makes: its reason, the object
 * its endpoint names (labels.resource), and a note that says what the drop log
 * says (the record, the cause, what is held and whose it is, the provider's
 * words), within Kubernetes' 1 kB.
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "applier/obs/drop_record.h"
#include "applier/obs/events_int.h"
#include "dnsbatch/droplog.h"

const char *dnsb_event_reason_name(unsigned reason)
{
	switch (reason) {
	case DNSB_EVENT_DROPPED: return "RecordDropped";
	case DNSB_EVENT_QUARANTINED: return "RecordQuarantined";
	case DNSB_EVENT_HELD: return "RecordHeld";
	default: return "RecordFailed";
	}
}

const char *dnsb_event_action(unsigned reason)
{
	switch (reason) {
	case DNSB_EVENT_DROPPED: return "Drop";
	case DNSB_EVENT_QUARANTINED: return "Quarantine";
	case DNSB_EVENT_HELD: return "Hold";
	default: return "Apply";
	}
}

/* Which of the four a settled change is; 0 for one in effect or pending. */
static unsigned reason_of(const dnsb_change *c)
{
	if (c->outcome == DNSB_OUTCOME_FAILED)
		return DNSB_EVENT_FAILED;
	if (c->outcome != DNSB_OUTCOME_DROPPED)
		return 0;
	if (c->reason == DNSB_REASON_QUARANTINED)
		return DNSB_EVENT_HELD;
	return c->reason == DNSB_REASON_CONFLICT ? DNSB_EVENT_QUARANTINED : DNSB_EVENT_DROPPED;
}

/* labels.resource of the change's endpoint (the new one, else the old), or NULL. */
static const char *resource_of(const dnsb_change *c)
{
	json_object *eps[2] = { c->endpoint_new, c->endpoint_old }, *labels, *v;

	for (int i = 0; i < 2; i++)
		if (eps[i] && json_object_object_get_ex(eps[i], "labels", &labels) &&
		    json_object_object_get_ex(labels, "resource", &v) && json_object_is_type(v, json_type_string) &&
		    *json_object_get_string(v))
			return json_object_get_string(v);
	return NULL;
}

/* Cut to at most max bytes without splitting a UTF-8 sequence. */
static void cut_utf8(char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	s[n] = '\0';
}

/* What is in a conflicting change's way, as the drop log explains it (explain.c). */
static void explain_conflict(char *buf, size_t size, const dnsb_change *c, const char *owner, const char *type)
{
	json_object *current = dnsb_droplog_current(&c->current);

	dnsb_drop_explain(buf, size, dnsb_cause_name(c->cause), owner, type, current, c->txt_owner, c->txt_resource);
	json_object_put(current);
}

/* What happened to the record, by reason: the note's middle. */
static void what_happened(char *buf, size_t size, unsigned reason, const dnsb_change *c, const char *owner,
			  const char *type)
{
	char why[768];

	switch (reason) {
	case DNSB_EVENT_QUARANTINED:
		explain_conflict(why, sizeof(why), c, owner, type);
		snprintf(buf, size, "dropped (conflict): %s; its change group is quarantined: held back, and tried "
			 "again when the hold runs out", why);
		break;
	case DNSB_EVENT_HELD:
		snprintf(buf, size, "held back: its change group conflicted before and stays quarantined (dnsbatch GET "
			 "/quarantine says what is in its way)");
		break;
	case DNSB_EVENT_DROPPED:
		snprintf(buf, size, "dropped (%s)", dnsb_reason_name(c->reason));
		break;
	default:
		snprintf(buf, size, "failed (%s), retried when external-dns sends the plan again",
			 dnsb_reason_name(c->reason));
	}
}

/* Into a buffer longer than the bound, then cut at a character's end: a cut that snprintf makes may split one. */
static void write_note(char *out, size_t out_size, unsigned reason, const dnsb_change *c, const char *record,
		       const char *owner, const char *type)
{
	const char *msg = c->message && *c->message && reason != DNSB_EVENT_HELD ? c->message : NULL;
	char note[2 * DNSB_EVENT_NOTE_MAX], middle[1024];

	what_happened(middle, sizeof(middle), reason, c, owner, type);
	snprintf(note, sizeof(note), "%s %s%s%s%s", record, middle, msg ? ". " : "",
		 msg ? (c->status ? "The provider said: " : "dnsbatch said: ") : "", msg ? msg : "");
	cut_utf8(note, out_size - 1 < DNSB_EVENT_NOTE_MAX ? out_size - 1 : DNSB_EVENT_NOTE_MAX);
	memcpy(out, note, strlen(note) + 1);
}

int dnsb_event_of_change(dnsb_event_occ *out, const dnsb_change *c, unsigned reasons)
{
	unsigned reason = reason_of(c);
	const dnsb_rrset *r = c->kind == DNSB_CHANGE_DELETE ? &c->old : &c->new_set;
	const char *res, *owner = r->owner ? r->owner : "(no name)", *type = dnsb_type_name(r->type);

	if ((reason & reasons) == 0 || (res = resource_of(c)) == NULL || strlen(res) >= sizeof(out->resource))
		return 0;
	out->reason = reason;
	snprintf(out->resource, sizeof(out->resource), "%s", res);
	snprintf(out->record, sizeof(out->record), "%s %s %s%s%s", dnsb_drop_kind(c), owner, type ? type : "?",
		 r->set_id ? " set " : "", r->set_id ? r->set_id : "");
	write_note(out->note, sizeof(out->note), reason, c, out->record, owner, type);
	return 1;
}
