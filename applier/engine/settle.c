/*
 * settle.c - settling the groups a batch's refusals point at (docs/design.md §3.3,
 * verify before drop): one sent on its own, one part in effect and part not,
 * and the groups refused, which wait to be settled together by one read
 * (what is in effect is already_applied; the rest is dropped with what is in
 * its way when it was refused on its own or the read shows why, else sent on
 * its own).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/array.h"
#include "applier/engine/diagnose.h"
#include "applier/engine/internal.h"

/* At most this many refused groups wait for their read. */
#define REFUSED_BATCH 256

/* Send g on its own. @return 1 when it applied */
int dnsb_engine_try_alone(batch_run *br, group *g)
{
	dnsb_result r;

	switch (dnsb_engine_send(br, &g, 1, &r)) {
	case SENT_OK:
		dnsb_engine_finish(br->e, g, DNSB_OUTCOME_APPLIED, DNSB_REASON_NONE, NULL, NULL);
		return 1;
	case SENT_REFUSED:
		dnsb_engine_settle_lone(br, g, &r, 1);
		break;
	case SENT_TOO_LARGE:
		dnsb_engine_finish(br->e, g, DNSB_OUTCOME_DROPPED, DNSB_REASON_INVALID, &r, NULL);
		break;
	case SENT_OVER:
		break;
	}
	return 0;
}

/* What is in the way of the change that stopped the group, shown on c too (as diagnose.c does for a group). */
static void share_diagnosis(dnsb_change *c, const dnsb_change *why)
{
	c->cause = why->cause;
	dnsb_rrset_list_clear(&c->current);
	for (size_t i = 0; i < why->current.count; i++) {
		dnsb_rrset copy;
		if (dnsb_rrset_copy(&copy, &why->current.items[i]) < 0 || dnsb_rrset_list_push(&c->current, &copy) < 0)
			return; /* out of memory: the drop shows less of what is in the way */
	}
	free(c->txt_owner);
	free(c->txt_resource);
	c->txt_owner = why->txt_owner ? strdup(why->txt_owner) : NULL;
	c->txt_resource = why->txt_resource ? strdup(why->txt_resource) : NULL;
}

/* No conflict shown on c: what a drop's diagnosis put there is taken away. */
static void forget_diagnosis(dnsb_change *c)
{
	c->cause = DNSB_CAUSE_NONE;
	dnsb_rrset_list_clear(&c->current);
	free(c->txt_owner);
	free(c->txt_resource);
	c->txt_owner = c->txt_resource = NULL;
}

/* Why a change of a group that met a lost reply ends failed, not dropped: "unknown after a lost reply: ..." */
static void unknown_message(char *msg, size_t size, const char *what)
{
	snprintf(msg, size, "unknown after a lost reply, retried next time: a transient error may have hidden this "
		 "run's commit, changed since by another client; %s", what);
}

/* Every pending change of g failed (transient, unknown) with `msg`, no conflict shown on it. */
static void fail_unknown(engine *e, group *g, int status, const char *code, const char *msg)
{
	for (size_t i = 0; i < g->count; i++) {
		dnsb_change *c = g->changes[i];
		if (c->outcome != DNSB_OUTCOME_PENDING)
			continue;
		dnsb_engine_settle_change(e, c, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, status, code, msg);
		forget_diagnosis(c);
	}
}

/*
 * g met a transient answer, which may have hidden a commit of it (a lost
 * reply), and the rest was refused on its own: the part in effect may be this
 * run's own write, the rest's names taken since by another client. Whether g
 * landed is unknown: every change of g settled here, the rest's too, is
 * failed (transient), never dropped (issue 31 §1).
 */
static void settle_unknown(engine *e, group *g, const group *rest, const dnsb_change *why)
{
	char msg[DNSB_ERROR_MESSAGE_MAX * 2 + 512], what[DNSB_ERROR_MESSAGE_MAX * 2 + 256];
	int status = why->status;
	char code[64];

	snprintf(code, sizeof(code), "%s", why->code ? why->code : "");
	snprintf(what, sizeof(what), "part of the group is in effect while the rest was refused: %s %s: %s",
		 dnsb_change_owner(why) ? dnsb_change_owner(why) : "", dnsb_type_name(why->kind == DNSB_CHANGE_DELETE ?
										why->old.type : why->new_set.type),
		 why->message ? why->message : dnsb_reason_name(why->reason));
	if (why->outcome == DNSB_OUTCOME_FAILED && why->reason == DNSB_REASON_TRANSIENT && why->message)
		snprintf(msg, sizeof(msg), "%s", why->message); /* the rest's own: it says why already */
	else
		unknown_message(msg, sizeof(msg), what);
	for (size_t i = 0; i < rest->count; i++)
		if (rest->changes[i]->outcome == DNSB_OUTCOME_DROPPED)
			dnsb_engine_settle_change(e, rest->changes[i], DNSB_OUTCOME_PENDING, DNSB_REASON_NONE, 0, NULL,
						  NULL); /* settled again below, with the part in effect */
	fail_unknown(e, g, status, code, msg);
}

/*
 * g is refused and the read shows it not in effect: dropped (a conflict, with
 * what is in its way), unless g met a lost reply. Then the read cannot tell
 * this run's own commit, changed since by another client (a record added to
 * the RRset it wrote, or its value replaced), from a conflict that was there
 * before: nothing proves this run's write did not land, so g is failed
 * (transient), never dropped (issue 31 §1).
 */
static void drop_refused(batch_run *br, group *g, const dnsb_rrset_list *held, const dnsb_result *res)
{
	char msg[DNSB_ERROR_MESSAGE_MAX * 2 + 512], what[DNSB_ERROR_MESSAGE_MAX + 128];

	if (!g->lost_reply) {
		dnsb_engine_diagnose(br->e, g, held);
		dnsb_engine_finish(br->e, g, DNSB_OUTCOME_DROPPED, DNSB_REASON_CONFLICT, res, NULL);
		return;
	}
	snprintf(what, sizeof(what), "the retry was refused (%s) while the read-back shows not exactly what it "
		 "wants", res->message[0] ? res->message : dnsb_class_name(res->cls));
	unknown_message(msg, sizeof(msg), what);
	fail_unknown(br->e, g, res->status, res->code, msg);
}

/*
 * After the rest of g was sent on its own: the changes of g found in effect
 * share its end. When the rest landed they are already_applied; when it did
 * not, the group did not land: they end as the rest did (a group lands or
 * drops as one, docs/design.md §4.3), naming the change that stopped it; but after a
 * transient answer a drop would be a guess (settle_unknown).
 */
static void settle_with_rest(engine *e, group *g, const group *rest)
{
	const dnsb_change *why = NULL;
	char msg[DNSB_ERROR_MESSAGE_MAX];

	for (size_t i = 0; i < rest->count && why == NULL; i++)
		if (rest->changes[i]->outcome != DNSB_OUTCOME_APPLIED &&
		    rest->changes[i]->outcome != DNSB_OUTCOME_ALREADY_APPLIED)
			why = rest->changes[i];
	if (why == NULL) {
		dnsb_engine_finish(e, g, DNSB_OUTCOME_ALREADY_APPLIED, DNSB_REASON_NONE, NULL, NULL);
		return;
	}
	if ((why->outcome == DNSB_OUTCOME_DROPPED || why->outcome == DNSB_OUTCOME_FAILED) &&
	    (g->lost_reply || rest->lost_reply)) {
		settle_unknown(e, g, rest, why);
		return;
	}
	snprintf(msg, sizeof(msg), "dropped with its group: %s %s %s: %s", dnsb_outcome_name(why->outcome),
		 dnsb_change_owner(why) ? dnsb_change_owner(why) : "", dnsb_type_name(why->kind == DNSB_CHANGE_DELETE ?
										why->old.type : why->new_set.type),
		 why->message ? why->message : dnsb_reason_name(why->reason));
	for (size_t i = 0; i < g->count; i++) {
		dnsb_change *c = g->changes[i];
		if (c->outcome != DNSB_OUTCOME_PENDING)
			continue;
		dnsb_engine_settle_change(e, c, why->outcome, why->reason, why->status, why->code, msg);
		share_diagnosis(c, why);
	}
}

/*
 * Part of the group is in effect (a record made out of band, its ownership
 * record not). The rest is sent once more on its own; the part in effect
 * shares its end (settle_with_rest): calling it dropped while it is in effect
 * would be false only if the group could land, and calling it
 * already_applied while its group is dropped would split the group.
 * @return 1 when it settled the group, 0 when no change is in effect
 */
int dnsb_engine_settle_partial(batch_run *br, group *g, const dnsb_rrset_list *held)
{
	group rest = *g;
	size_t marked = 0;

	if ((rest.changes = malloc(g->count * sizeof(dnsb_change *))) == NULL) {
		br->e->rc = DNSB_ENOMEM;
		return 0;
	}
	rest.count = 0;
	for (size_t i = 0; i < g->count; i++) {
		dnsb_change *c = g->changes[i];
		if (c->outcome == DNSB_OUTCOME_PENDING && dnsb_engine_change_in_effect(br->e, g, c, held))
			marked++;
		else if (c->outcome == DNSB_OUTCOME_PENDING)
			rest.changes[rest.count++] = c;
	}
	if (marked > 0) {
		if (rest.count > 0) {
			int was = br->no_defer;
			br->no_defer = 1; /* `rest` lives on this stack frame */
			dnsb_engine_try_alone(br, &rest);
			br->no_defer = was;
		}
		settle_with_rest(br->e, g, &rest);
	}
	free(rest.changes);
	return marked > 0;
}

int dnsb_engine_settle_upgrade(batch_run *br, group *g, const dnsb_rrset_list *held)
{
	if (dnsb_engine_upgrade_group(br, g, held) == 0)
		return 0;
	dnsb_engine_try_alone(br, g);
	return 1;
}

/*
 * Keep g, refused on its own (kind 1), found by elimination (2) or named by a
 * reply (3), for the batched read; the refusal's detail (`message`) is kept on
 * its changes meanwhile. @return 1 when kept
 */
static int defer(batch_run *br, group *g, const dnsb_result *res, int kind, const char *message)
{
	int lost = 0;

	if (DNSB_ARRAY_RESERVE(br->refused, br->refused_cap, br->nrefused + 1, 16) < 0)
		return 0; /* read it now, alone */
	for (size_t i = 0; i < g->count; i++)
		if (g->changes[i]->outcome == DNSB_OUTCOME_PENDING)
			lost |= dnsb_engine_set_detail(g->changes[i], res->status, res->code, message) != 0;
	if (lost)
		return 0; /* a detail not kept (out of memory) would be a drop with no message: read it now, alone */
	g->deferred = kind;
	br->refused[br->nrefused++] = g;
	br->nnamed += kind == 3;
	if (br->nrefused >= REFUSED_BATCH)
		dnsb_engine_settle_refused(br);
	return 1;
}

int dnsb_engine_defer_named(batch_run *br, group *g, const dnsb_result *res, const char *note)
{
	return defer(br, g, res, 3, note ? note : res->message);
}

/* One change's refusal as it was kept (defer). */
static dnsb_result kept_result(const group *g)
{
	dnsb_result r;

	dnsb_result_init(&r);
	r.cls = DNSB_CLASS_CONFLICT;
	for (size_t i = 0; i < g->count; i++) {
		const dnsb_change *c = g->changes[i];
		if (c->outcome != DNSB_OUTCOME_PENDING)
			continue;
		r.status = c->status;
		snprintf(r.code, sizeof(r.code), "%s", c->code ? c->code : "");
		snprintf(r.message, sizeof(r.message), "%s", c->message ? c->message : "");
		break;
	}
	return r;
}

/*
 * A culprit list is proven wrong when a group it named applies on its own:
 * lists are ignored for the rest of the batch, and the next one is read at
 * once. A read that proves every name right lets twice as many wait.
 */
static void judge_names(batch_run *br, size_t named, size_t wrong)
{
	engine *e = br->e;

	if (wrong > 0) {
		br->hints_on = 0;
		e->hint_trust = 0;
	} else if (named > 0) {
		e->hint_trust = e->hint_trust ? e->hint_trust * 2 : 1;
		if (e->hint_trust > REFUSED_BATCH)
			e->hint_trust = REFUSED_BATCH;
	}
}

/*
 * The groups refused, settled by one read: in effect (a lost commit of
 * ours), in part, or dropped with what is in their way when refused on their
 * own or the read shows it; else sent on their own. When the read fails, a
 * group refused on its own is failed/transient (the truth is unknown) and
 * one found by elimination or named by a reply is sent on its own.
 */
void dnsb_engine_settle_refused(batch_run *br)
{
	size_t n = 0, named = 0, wrong = 0;
	group **gs = br->refused;
	dnsb_rrset_list held = { 0 };
	dnsb_error rerr = { 0, "" };
	char msg[DNSB_ERROR_MESSAGE_MAX * 2 + 64];
	int read, was = br->no_defer;

	int kind[REFUSED_BATCH];

	for (size_t i = 0; i < br->nrefused; i++) {
		int k = br->refused[i]->deferred;
		br->refused[i]->deferred = 0;
		if (dnsb_engine_group_open(br->refused[i])) {
			kind[n] = k;
			gs[n++] = br->refused[i]; /* the run's end may have settled some */
		}
	}
	br->refused = NULL;
	br->nrefused = br->refused_cap = br->nnamed = 0;
	read = n > 0 && dnsb_engine_read_back(br->e, gs, n, 1, &held, &rerr) == 0;
	br->no_defer = 1; /* a part settled alone again is read at once */
	for (size_t i = 0; i < n; i++) {
		group *g = gs[i];
		dnsb_result res = kept_result(g);
		int alone = kind[i] == 1;

		if (br->over)
			break; /* the run ended: its end settled what was open */
		named += kind[i] == 3;
		if (!read && alone) {
			snprintf(msg, sizeof(msg), "%s; verifying it failed: %s", res.message, rerr.message);
			dnsb_engine_finish(br->e, g, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, &res, msg);
		} else if (!read) {
			wrong += dnsb_engine_try_alone(br, g) && kind[i] == 3;
		} else if (dnsb_engine_group_in_effect(br->e, g, &held)) {
			dnsb_engine_finish(br->e, g, DNSB_OUTCOME_ALREADY_APPLIED, DNSB_REASON_NONE, &res, NULL);
		} else if (dnsb_engine_settle_upgrade(br, g, &held)) {
			continue;
		} else if (dnsb_engine_settle_partial(br, g, &held)) {
			continue;
		} else if (alone || dnsb_engine_cause_shown(br->e, g, &held)) {
			drop_refused(br, g, &held, &res);
		} else {
			wrong += dnsb_engine_try_alone(br, g) && kind[i] == 3;
		}
	}
	br->no_defer = was;
	judge_names(br, named, wrong);
	dnsb_rrset_list_clear(&held);
	free(gs);
}

/*
 * One group that a refusal points at: refused on its own (`alone`), named by a
 * reply, or the last suspect of a search. Read back first: in effect ends
 * already_applied; a group refused on its own, or whose refusal the read
 * explains, is dropped; any other is sent on its own (docs/design.md §3.3).
 */
void dnsb_engine_settle_lone(batch_run *br, group *g, const dnsb_result *res, int alone)
{
	dnsb_rrset_list held = { 0 };
	dnsb_error rerr = { 0, "" };
	char msg[DNSB_ERROR_MESSAGE_MAX * 2 + 64];

	if (res->cls == DNSB_CLASS_INVALID) {
		if (alone)
			dnsb_engine_finish(br->e, g, DNSB_OUTCOME_DROPPED, DNSB_REASON_INVALID, res, NULL);
		else
			dnsb_engine_try_alone(br, g);
		return;
	}
	if (res->cls == DNSB_CLASS_CONFLICT && !br->no_defer && defer(br, g, res, alone ? 1 : 2, res->message))
		return; /* settled with the other refused groups, by one read */
	if (dnsb_engine_read_back(br->e, &g, 1, 1, &held, &rerr) < 0) {
		/* Unverified: dropping could lose a change that is in fact applied. */
		snprintf(msg, sizeof(msg), "%s; verifying it failed: %s", res->message, rerr.message);
		if (alone)
			dnsb_engine_finish(br->e, g, DNSB_OUTCOME_FAILED, DNSB_REASON_TRANSIENT, res, msg);
		else
			dnsb_engine_try_alone(br, g);
	} else if (dnsb_engine_group_in_effect(br->e, g, &held)) {
		dnsb_engine_finish(br->e, g, DNSB_OUTCOME_ALREADY_APPLIED, DNSB_REASON_NONE, res, NULL);
	} else if (dnsb_engine_settle_upgrade(br, g, &held)) {
		/* sent again, the missing ownership record as a create */
	} else if (dnsb_engine_settle_partial(br, g, &held)) {
		/* settled change by change */
	} else if (alone || dnsb_engine_cause_shown(br->e, g, &held)) {
		drop_refused(br, g, &held, res);
	} else {
		dnsb_engine_try_alone(br, g);
	}
	dnsb_rrset_list_clear(&held);
}

