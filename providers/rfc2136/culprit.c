/*
 * culprit.c - which changes of a batch conflict. RFC 2136 replies never say
 * which prerequisite failed. A zone small enough (--rfc2136-snapshot-max) is
 * transferred once, at its first refused UPDATE, and kept in step with our
 * own UPDATEs (snapshot.c): every later batch is checked against it before
 * it is sent, and the changes it says the server would refuse are read
 * first; those the read confirms are named without sending anything (the
 * engine reads them again before it drops one), the rest is sent. After a
 * refusal the snapshot (or a fresh transfer) names the culprits; failing
 * that, prerequisite-only UPDATEs are binary-searched for the first one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "internal.h"

enum { SNAP_NEVER = -1, SNAP_NONE = 0, SNAP_HELD = 1 };

int dnsb_rfc2136_known_init(dnsb_rfc2136_known *known, const dnsb_rfc2136_config *cfg)
{
	size_t n = cfg->zone_count;

	memset(known, 0, sizeof(*known));
	known->snap = calloc(n ? n : 1, sizeof(*known->snap));
	known->state = calloc(n ? n : 1, sizeof(*known->state));
	if (known->snap == NULL || known->state == NULL || pthread_mutex_init(&known->lock, NULL) != 0) {
		free(known->snap);
		free(known->state);
		known->snap = NULL;
		known->state = NULL;
		return DNSB_ENOMEM;
	}
	known->zones = (const char *const *)cfg->zones;
	known->count = n;
	known->max = cfg->snapshot_max;
	for (size_t i = 0; i < n; i++)
		known->state[i] = known->max > 0 ? SNAP_NONE : SNAP_NEVER;
	return 0;
}

void dnsb_rfc2136_known_free(dnsb_rfc2136_known *known)
{
	if (known->snap == NULL)
		return;
	for (size_t i = 0; i < known->count; i++)
		dnsb_rfc2136_snapshot_clear(&known->snap[i]);
	free(known->snap);
	free(known->state);
	pthread_mutex_destroy(&known->lock);
	memset(known, 0, sizeof(*known));
}

/* The index of the configured zone, or -1. */
static long zone_index(const dnsb_rfc2136_known *known, const char *zone)
{
	for (size_t i = 0; i < known->count; i++)
		if (dnsb_rfc2136_same_name(known->zones[i], zone))
			return (long)i;
	return -1;
}

/* Transfer zone z into its snapshot. @return 1 when held */
static int transfer(dnsb_rfc2136_known *known, dnsb_rfc2136_net *net, long z, const char *zone)
{
	ldns_rr_list *rrs = ldns_rr_list_new();
	dnsb_rrset_list zone_sets = { 0 };
	dnsb_error e = { 0, "" };
	int rc = rrs ? dnsb_rfc2136_axfr(net, zone, rrs, known->max, &e) : DNSB_ENOMEM;

	if (rc == 0)
		rc = dnsb_rfc2136_rrsets_from_rrs(&zone_sets, rrs, NULL, 0);
	ldns_rr_list_deep_free(rrs);
	pthread_mutex_lock(&known->lock);
	/* A zone too large, a transfer refused, or one that got no answer (each refusal would wait for it
	 * again): not tried again in this provider's life. */
	if (rc == 0 && (rc = dnsb_rfc2136_snapshot_load(&known->snap[z], &zone_sets)) == 0)
		known->state[z] = SNAP_HELD;
	else
		known->state[z] = rc == DNSB_ENOMEM ? SNAP_NONE : SNAP_NEVER;
	pthread_mutex_unlock(&known->lock);
	dnsb_rrset_list_clear(&zone_sets);
	dnsb_log(DNSB_LOG_DEBUG, "rfc2136: snapshot of %s: %s", zone, rc == 0 ? "transferred" : e.message);
	return rc == 0;
}

/* The changes the snapshot says the server refuses: their indexes in `named`, what fails in `failed`. */
static size_t snapshot_named(const dnsb_rfc2136_snapshot *snap, dnsb_change *const *changes, size_t n,
			     size_t *named, dnsb_rfc2136_failed *failed)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (dnsb_rfc2136_snapshot_check(snap, changes, n, i, &failed[k]) != 0)
			named[k++] = i;
	return k;
}

/*
 * The changes zone z's snapshot, when one is held, says the server refuses (snapshot_named), into arrays made here:
 * *named and *failed, the caller's to free (also when 0 is returned). @return how many
 */
static size_t held_named(dnsb_rfc2136_known *known, long z, dnsb_change *const *changes, size_t n, size_t **named,
			 dnsb_rfc2136_failed **failed)
{
	size_t k = 0;

	*named = malloc((n ? n : 1) * sizeof(**named));
	*failed = malloc((n ? n : 1) * sizeof(**failed));
	pthread_mutex_lock(&known->lock);
	if (*named && *failed && known->state[z] == SNAP_HELD)
		k = snapshot_named(&known->snap[z], changes, n, *named, *failed);
	pthread_mutex_unlock(&known->lock);
	return k;
}

/*
 * Keep those of the k named changes that fail with `rcode`: a result has one
 * code for all it names, and each dropped change shows the rcode of its own
 * prerequisite; the others are named when the rest is sent again.
 * @return how many are kept
 */
static size_t same_rcode(size_t *named, dnsb_rfc2136_failed *failed, size_t k, int rcode)
{
	size_t kept = 0;

	for (size_t j = 0; j < k; j++) {
		if (failed[j].rcode != rcode)
			continue;
		named[kept] = named[j];
		failed[kept++] = failed[j];
	}
	return kept;
}

/* The RRsets read for keys put in the snapshot, in place of what it held there. */
static int refresh(dnsb_rfc2136_snapshot *snap, const dnsb_rrkey *keys, size_t nkeys, dnsb_rrset_list *read)
{
	int rc = 0;

	for (size_t i = 0; i < nkeys; i++)
		dnsb_rfc2136_snapshot_remove(snap, keys[i].owner, keys[i].type);
	for (size_t i = 0; rc == 0 && i < read->count; i++)
		rc = dnsb_rfc2136_snapshot_put(snap, &read->items[i]);
	return rc;
}

/*
 * Read the RRsets the `m` failed prerequisites name, put them in the
 * snapshot, and keep (in named and failed) the changes whose prerequisite
 * the read shows failing still.
 * @return how many are kept; 0 when none, or when the read failed (send: the server decides)
 */
static size_t confirm(dnsb_rfc2136_known *known, dnsb_rfc2136_net *net, long z, size_t *named,
		      dnsb_rfc2136_failed *failed, size_t m, double timeout)
{
	dnsb_rrkey *keys = NULL;
	size_t nkeys = 0, cap = 0, k = 0;
	dnsb_rrset_list read = { 0 };
	dnsb_error e = { 0, "" };
	int rc = 0;

	pthread_mutex_lock(&known->lock);
	for (size_t j = 0; rc == 0 && j < m; j++)
		rc = dnsb_rfc2136_snapshot_keys(&known->snap[z], &failed[j], &keys, &nkeys, &cap);
	pthread_mutex_unlock(&known->lock);
	if (rc == 0 && nkeys == 0)
		rc = dnsb_error_set(&e, DNSB_EINVAL, "nothing to read"); /* a name is never held back unread */
	if (rc == 0)
		rc = dnsb_rfc2136_read(net, keys, nkeys, timeout, &read, &e);
	pthread_mutex_lock(&known->lock);
	if (rc == 0 && known->state[z] == SNAP_HELD && (rc = refresh(&known->snap[z], keys, nkeys, &read)) == 0) {
		for (size_t j = 0; j < m; j++) {
			if ((failed[j].rcode = dnsb_rfc2136_snapshot_still(&known->snap[z], &failed[j])) == 0)
				continue;
			named[k] = named[j];
			failed[k++] = failed[j];
		}
	}
	if (rc == DNSB_ENOMEM) {
		dnsb_rfc2136_snapshot_clear(&known->snap[z]);
		known->state[z] = SNAP_NONE;
	}
	pthread_mutex_unlock(&known->lock);
	if (rc != 0)
		dnsb_log(DNSB_LOG_DEBUG, "rfc2136: pre-check of %s: %s", known->zones[z], e.message);
	dnsb_rrset_list_clear(&read);
	free(keys);
	return k;
}

int dnsb_rfc2136_precheck(dnsb_rfc2136_known *known, dnsb_rfc2136_net *net, const char *zone,
			  dnsb_change *const *changes, size_t n, double timeout, dnsb_result *out)
{
	long z = zone_index(known, zone);
	dnsb_rfc2136_failed *failed = NULL;
	size_t *named = NULL, k = z >= 0 ? held_named(known, z, changes, n, &named, &failed) : 0;
	char note[DNSB_ERROR_MESSAGE_MAX];

	if (k > 0)
		k = confirm(known, net, z, named, failed, k, timeout);
	if (k > 0) {
		k = same_rcode(named, failed, k, failed[0].rcode);
		/* Status 0: no server answered. The code is the rcode of the prerequisite the read shows failing. */
		dnsb_result_init(out);
		dnsb_result_set(out, DNSB_CLASS_CONFLICT, 0, dnsb_rfc2136_rcode_name(failed[0].rcode),
				"%zu of %zu changes conflict with what %s holds (read before sending; nothing sent): %s", k,
				n, net->server, dnsb_rfc2136_rcode_name(failed[0].rcode));
		for (size_t j = 0; j < k; j++) {
			dnsb_rfc2136_conflict_note(note, sizeof(note), changes[named[j]], failed[j].rcode);
			dnsb_result_add_culprit_note(out, named[j], note);
		}
		dnsb_log(DNSB_LOG_DEBUG, "rfc2136: pre-check %s: %zu of %zu changes conflict; nothing sent", zone, k, n);
	}
	free(named);
	free(failed);
	return k > 0;
}

/* Name the culprits the snapshot of zone z shows. @return how many */
static size_t name_from_snapshot(dnsb_rfc2136_known *known, long z, dnsb_change *const *changes, size_t n,
				 dnsb_result *out, const char *server)
{
	dnsb_rfc2136_failed *failed = NULL;
	size_t *named = NULL, k = held_named(known, z, changes, n, &named, &failed);
	char what[DNSB_ERROR_MESSAGE_MAX], note[DNSB_ERROR_MESSAGE_MAX + 128];

	k = same_rcode(named, failed, k, out->status);
	for (size_t j = 0; j < k; j++) {
		dnsb_rfc2136_conflict_note(what, sizeof(what), changes[named[j]], failed[j].rcode);
		snprintf(note, sizeof(note), "%s (%s refused the UPDATE with %s; its zone transfer shows this one)", what,
			 server, out->code);
		dnsb_result_add_culprit_note(out, named[j], note);
	}
	free(named);
	free(failed);
	return k;
}

void dnsb_rfc2136_name_culprits(dnsb_rfc2136_known *known, dnsb_rfc2136_net *net, const char *zone,
				dnsb_change *const *changes, size_t n, dnsb_result *out)
{
	long z = zone_index(known, zone);
	size_t k = 0;
	int state;

	if (z >= 0) {
		pthread_mutex_lock(&known->lock);
		state = known->state[z];
		pthread_mutex_unlock(&known->lock);
		/* A snapshot that let the batch through is behind the zone: transfer it again. */
		if (state == SNAP_HELD)
			k = name_from_snapshot(known, z, changes, n, out, net->server);
		if (k == 0 && state != SNAP_NEVER && transfer(known, net, z, zone))
			k = name_from_snapshot(known, z, changes, n, out, net->server);
	}
	if (k > 0)
		dnsb_log(DNSB_LOG_DEBUG, "rfc2136: UPDATE %s, %zu changes: %zu named by the snapshot", zone, n, k);
	else
		dnsb_rfc2136_find_culprit(net, zone, changes, n, out);
}

void dnsb_rfc2136_known_after(dnsb_rfc2136_known *known, const char *zone, dnsb_change *const *changes, size_t n,
			      dnsb_class cls)
{
	long z = zone_index(known, zone);

	if (z < 0 || cls == DNSB_CLASS_CONFLICT || cls == DNSB_CLASS_INVALID || cls == DNSB_CLASS_TOO_LARGE)
		return; /* nothing was committed */
	pthread_mutex_lock(&known->lock);
	if (known->state[z] == SNAP_HELD) {
		/* An answer that does not say whether the UPDATE was committed leaves the snapshot unsure. */
		if (cls != DNSB_CLASS_OK || dnsb_rfc2136_snapshot_commit(&known->snap[z], changes, n) != 0) {
			dnsb_rfc2136_snapshot_clear(&known->snap[z]);
			known->state[z] = SNAP_NONE;
		} else if (known->snap[z].count > known->max * DNSB_RFC2136_SNAPSHOT_GROWTH) {
			/* Grown by our own UPDATEs past what a transfer may hold: let it go for good. */
			dnsb_rfc2136_snapshot_clear(&known->snap[z]);
			known->state[z] = SNAP_NEVER;
		}
	}
	pthread_mutex_unlock(&known->lock);
}
