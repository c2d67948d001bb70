/*
 * changelist.c - a batch as one Edge DNS change list (paths/change-lists.yaml,
 * add-change.yaml, submit.yaml of akamai-apis' config-dns v2):
 *   POST /changelists?zone=Z           201: a list on the zone's current version
 *   GET  recordsets of the batch's names  the pre-check (providers/common/precheck.h)
 *   POST /changelists/Z/recordsets/add-change   204, one per RRset: ADD, EDIT, DELETE
 *   POST /changelists/Z/submit?skipSignAndServeSafetyCheck=false   204: all or nothing;
 *        refused when the zone moved since the list was created (stale)
 * A change list is one per user and zone: a create refused because one
 * exists finds a leftover (a crash between create and submit); it is
 * deleted, never submitted, and the create made again. A list not submitted
 * is deleted before the answer is given.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "providers/akamai/akamai.h"

/* One request through the methods' call (signed). */
static int request(dnsb_akamai *a, const char *method, const char *url, const char *body, double give_up,
		   dnsb_http_response *resp, dnsb_error *err)
{
	return a->base.m->call(&a->base, method, url, body, give_up, resp, err);
}

/* DELETE /changelists/Z: best effort (a list left is found by the next create). @return 1 when deleted */
static int delete_list(dnsb_akamai *a, const dnsb_hb_zone *zone, double give_up, const char *why)
{
	char *url = dnsb_akamai_url(a, "/changelists/%s", zone->id);
	dnsb_http_response resp;
	dnsb_error e = { 0, "" };
	int done = 0;

	if (url && request(a, "DELETE", url, NULL, give_up, &resp, &e) == 0) {
		done = resp.status / 100 == 2 || resp.status == 404;
		if (!done)
			dnsb_akamai_reply_error(&resp, "DELETE changelist", &e);
		dnsb_http_response_clear(&resp);
	}
	if (!done)
		dnsb_log(DNSB_LOG_INFO, "akamai: zone %s: deleting the change list (%s) failed (%s): the next batch "
			 "removes it", zone->apex, why, url ? e.message : "out of memory");
	free(url);
	return done;
}

/* POST /changelists?zone=Z once. @return as request; *status the reply's */
static int create_once(dnsb_akamai *a, const dnsb_hb_zone *zone, double give_up, dnsb_http_response *resp,
		       dnsb_error *err)
{
	char *url = dnsb_akamai_url(a, "/changelists?zone=%s", zone->id);
	int rc;

	if (url == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	rc = request(a, "POST", url, NULL, give_up, resp, err);
	free(url);
	return rc;
}

/*
 * Create the batch's change list. A 409 saying a list exists is a leftover
 * of this user (a crash, a lost reply): deleted, never submitted, and the
 * create tried once more. @return 0 with out's class set, or a local error
 */
static int create_list(dnsb_akamai *a, const dnsb_hb_zone *zone, double give_up, dnsb_result *out, dnsb_error *err)
{
	dnsb_http_response resp;
	dnsb_akamai_problem pb;
	dnsb_error e = { 0, "" };
	int rc;

	for (int attempt = 0; attempt < 2; attempt++) {
		if ((rc = create_once(a, zone, give_up, &resp, &e)) != 0)
			return dnsb_result_from_error(out, rc, 0, "POST changelists", &e, err);
		dnsb_akamai_problem_read(&pb, &resp);
		if (resp.status == 409 && !pb.stale && attempt == 0) { /* the one conflict a create meets */
			dnsb_http_response_clear(&resp);
			dnsb_log(DNSB_LOG_WARN, "akamai: zone %s: a leftover change list of this API client (an apply that "
				 "stopped before its submit) is deleted, not submitted", zone->apex);
			if (delete_list(a, zone, give_up, "leftover"))
				a->leftovers++;
			continue;
		}
		dnsb_akamai_classify(out, &resp, NULL, 0);
		dnsb_http_response_clear(&resp);
		return 0;
	}
	return 0;
}

/* Read the batch's names and replay the batch over them: out's class is conflict when a change mismatches. */
static int precheck(dnsb_akamai *a, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n, double give_up,
		    dnsb_precheck *patch, dnsb_result *out, dnsb_error *err)
{
	dnsb_rrset_list held = { 0 };
	dnsb_rrkey *keys;
	dnsb_error e = { 0, "" };
	int k = dnsb_precheck_keys(&keys, changes, n), rc;

	memset(patch, 0, sizeof(*patch));
	if (k < 0)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = dnsb_akamai_read(&a->base, zone, keys, (size_t)k, give_up, &held, &e)) != 0)
		rc = dnsb_result_from_error(out, rc, 0, "pre-check read", &e, err);
	else if ((rc = dnsb_precheck_run(patch, out, changes, n, &held, NULL)) != 0)
		rc = dnsb_error_set(err, rc, "out of memory checking %zu changes", n);
	free(keys);
	dnsb_rrset_list_clear(&held);
	return rc;
}

/* The changes whose old or new RRset is the entry's are culprits of a refused add-change, with its message. */
static void entry_culprits(dnsb_result *out, const dnsb_precheck_entry *en, dnsb_change *const *changes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const dnsb_change *c = changes[i];
		int old = c->kind != DNSB_CHANGE_CREATE && c->old.type == en->type && strcmp(c->old.owner, en->owner) == 0;
		int new = c->kind != DNSB_CHANGE_DELETE && c->new_set.type == en->type &&
			  strcmp(c->new_set.owner, en->owner) == 0;
		if (old || new)
			dnsb_result_add_culprit_note(out, i, out->message[0] ? out->message : "refused by add-change");
	}
}

/* One add-change per RRset of the patch; the first refusal ends it (out classified, culprits named). */
static int add_changes(dnsb_akamai *a, const dnsb_hb_zone *zone, const dnsb_precheck *patch,
		       dnsb_change *const *changes, size_t n, double give_up, dnsb_result *out, dnsb_error *err)
{
	char *url = dnsb_akamai_url(a, "/changelists/%s/recordsets/add-change", zone->id), *body = NULL;
	dnsb_http_response resp;
	dnsb_error e = { 0, "" };
	int rc = url ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");

	for (size_t i = 0; rc == 0 && out->cls == DNSB_CLASS_OK && i < patch->count; i++) {
		if ((rc = dnsb_akamai_change_body(&body, &patch->entries[i])) != 0) {
			rc = dnsb_error_set(err, rc, "out of memory");
			break;
		}
		rc = request(a, "POST", url, body, give_up, &resp, &e);
		free(body);
		if (rc != 0) {
			rc = dnsb_result_from_error(out, rc, 0, "POST add-change", &e, err);
			break;
		}
		dnsb_akamai_classify(out, &resp, NULL, 0); /* the request is of one RRset: its changes, not a text search */
		if (out->cls == DNSB_CLASS_INVALID || out->cls == DNSB_CLASS_CONFLICT)
			entry_culprits(out, &patch->entries[i], changes, n);
		dnsb_http_response_clear(&resp);
	}
	free(url);
	return rc;
}

/* POST submit; out classified. A stale answer is settled by the caller. */
static int submit_list(dnsb_akamai *a, const dnsb_hb_zone *zone, double give_up, dnsb_result *out, int *stale,
		       dnsb_error *err)
{
	char *url = dnsb_akamai_url(a, "/changelists/%s/submit?skipSignAndServeSafetyCheck=false", zone->id);
	dnsb_http_response resp;
	dnsb_akamai_problem pb;
	dnsb_error e = { 0, "" };
	int rc;

	*stale = 0;
	if (url == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	rc = request(a, "POST", url, NULL, give_up, &resp, &e);
	free(url);
	if (rc != 0) /* no reply: the submit may have been applied; the engine reads back */
		return dnsb_result_from_error(out, rc, 0, "POST submit", &e, err);
	dnsb_akamai_problem_read(&pb, &resp);
	*stale = pb.stale && resp.status >= 400;
	dnsb_akamai_classify(out, &resp, NULL, 0);
	dnsb_http_response_clear(&resp);
	return 0;
}

/*
 * A stale submit: the zone moved after the list was created. The batch's
 * names read again: the changes that mismatch now are the conflict; none
 * does (another name moved), the same batch can go again: transient.
 */
static int settle_stale(dnsb_akamai *a, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n,
			double give_up, dnsb_result *out, dnsb_error *err)
{
	dnsb_precheck again;
	int rc;

	dnsb_result_init(out);
	if ((rc = precheck(a, zone, changes, n, give_up, &again, out, err)) == 0 && out->cls == DNSB_CLASS_OK)
		dnsb_result_set(out, DNSB_CLASS_TRANSIENT, 409, "stale",
				"the change list went stale (the zone changed elsewhere), none of its names did: resubmit");
	else if (rc == 0 && out->cls == DNSB_CLASS_CONFLICT)
		dnsb_log(DNSB_LOG_DEBUG, "akamai: zone %s: stale change list: %zu of %zu changes meet a name that moved",
			 zone->apex, out->culprit_count, n);
	dnsb_precheck_clear(&again);
	return rc;
}

/* create -> pre-check -> add-change... -> submit, with the lock of the zone's one list held. */
static int run_list(dnsb_akamai *a, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n, double give_up,
		    dnsb_result *out, dnsb_error *err)
{
	dnsb_precheck patch = { 0 };
	int rc, stale = 0, submitted = 0;

	if ((rc = create_list(a, zone, give_up, out, err)) != 0 || out->cls != DNSB_CLASS_OK)
		return rc;
	if ((rc = precheck(a, zone, changes, n, give_up, &patch, out, err)) == 0 && out->cls == DNSB_CLASS_OK &&
	    patch.count > 0 && (rc = add_changes(a, zone, &patch, changes, n, give_up, out, err)) == 0 &&
	    out->cls == DNSB_CLASS_OK) {
		submitted = 1;
		rc = submit_list(a, zone, give_up, out, &stale, err);
	}
	if (!submitted || (rc == 0 && out->cls != DNSB_CLASS_OK && out->cls != DNSB_CLASS_TRANSIENT))
		delete_list(a, zone, give_up, submitted ? "refused" : "not submitted");
	if (rc == 0 && stale)
		rc = settle_stale(a, zone, changes, n, give_up, out, err);
	dnsb_log(DNSB_LOG_DEBUG, "akamai: zone %s: change list of %zu changes, %zu RRsets: %s, %zu culprits", zone->apex, n,
		 patch.count, dnsb_class_name(out->cls), out->culprit_count);
	dnsb_precheck_clear(&patch);
	return rc;
}

int dnsb_akamai_submit(dnsb_hb *b, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n, double give_up,
		       dnsb_result *out, dnsb_error *err)
{
	dnsb_akamai *a = (dnsb_akamai *)b;
	pthread_mutex_t *lock = &a->lists[zone - b->zones];
	int rc;

	pthread_mutex_lock(lock);
	rc = run_list(a, zone, changes, n, give_up, out, err);
	pthread_mutex_unlock(lock);
	return rc;
}
