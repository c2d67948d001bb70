/* msg.c - the UPDATE message of a batch, its reply's class, and RRs read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* An RR with no RDATA: the prerequisite and deletion forms of RFC 2136 §2.4, §2.5. */
static ldns_rr *rr_empty(const char *owner, uint16_t type, ldns_rr_class cls)
{
	ldns_rr *rr = ldns_rr_new();
	ldns_rdf *dname = ldns_dname_new_frm_str(owner);

	if (rr == NULL || dname == NULL) {
		ldns_rr_free(rr);
		ldns_rdf_deep_free(dname);
		return NULL;
	}
	ldns_rr_set_owner(rr, dname);
	ldns_rr_set_type(rr, (ldns_rr_type)type);
	ldns_rr_set_class(rr, cls);
	ldns_rr_set_ttl(rr, 0);
	return rr;
}

static const char *type_name(uint16_t type)
{
	const ldns_rr_descriptor *d = ldns_rr_descript(type);

	return d && d->_name ? d->_name : dnsb_type_name(type);
}

/* One RR of an RRset, parsed by ldns from its presentation form. */
static int rr_from_rrset(ldns_rr **out, const dnsb_rrset *set, size_t i, uint32_t ttl, ldns_rr_class cls,
			 dnsb_error *err)
{
	char *line;
	ldns_status st;

	if (asprintf(&line, "%s %u IN %s %s", set->owner, ttl, type_name(set->type), set->rdata[i]) < 0)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	*out = NULL;
	st = ldns_rr_new_frm_str(out, line, 0, NULL, NULL);
	free(line);
	if (st != LDNS_STATUS_OK)
		return dnsb_error_set(err, st == LDNS_STATUS_MEM_ERR ? DNSB_ENOMEM : DNSB_EINVAL,
				      "%s %s '%s': %s", set->owner, type_name(set->type), set->rdata[i],
				      ldns_get_errorstr_by_id(st));
	ldns_rr_set_class(*out, cls);
	return 0;
}

/* Does a change of the batch take the RRset (owner, type) away? type 0: any type at owner. */
static int batch_removes(dnsb_change *const *changes, size_t n, const char *owner, uint16_t type)
{
	for (size_t i = 0; i < n; i++) {
		const dnsb_change *c = changes[i];
		if (c->kind == DNSB_CHANGE_CREATE || strcmp(c->old.owner, owner) != 0)
			continue;
		if (type != 0 && c->old.type != type)
			continue;
		/* An update that writes the same RRset back keeps it. */
		if (c->kind == DNSB_CHANGE_UPDATE && c->new_set.type == c->old.type &&
		    strcmp(c->new_set.owner, c->old.owner) == 0)
			continue;
		return 1;
	}
	return 0;
}

static int push(ldns_rr_list *list, ldns_rr *rr)
{
	if (rr == NULL)
		return DNSB_ENOMEM;
	if (!ldns_rr_list_push_rr(list, rr)) {
		ldns_rr_free(rr);
		return DNSB_ENOMEM;
	}
	return 0;
}

/*
 * Prerequisites that make a creation fail instead of being silently ignored
 * (BIND and Knot answer NOERROR to a CNAME added beside other data and drop
 * it). A removal of the same data in this batch happens first, so its
 * prerequisite is left out.
 */
static int prereq_create(dnsb_change *const *changes, size_t n, const dnsb_rrset *set, dnsb_rfc2136_prereq_fn fn,
			 void *payload)
{
	int rc = 0;

	if (set->type == LDNS_RR_TYPE_CNAME) {
		if (!batch_removes(changes, n, set->owner, 0))
			return fn(DNSB_RFC2136_NO_NAME, set->owner, LDNS_RR_TYPE_ANY, NULL, payload);
		/*
		 * The name must be unused except for what this batch removes;
		 * RFC 2136 cannot say "unused but for these", so only a CNAME
		 * is ruled out here.
		 */
		if (!batch_removes(changes, n, set->owner, LDNS_RR_TYPE_CNAME))
			rc = fn(DNSB_RFC2136_NO_RRSET, set->owner, LDNS_RR_TYPE_CNAME, NULL, payload);
		return rc;
	}
	if (!batch_removes(changes, n, set->owner, set->type))
		rc = fn(DNSB_RFC2136_NO_RRSET, set->owner, set->type, NULL, payload);
	if (rc == 0 && !batch_removes(changes, n, set->owner, LDNS_RR_TYPE_CNAME))
		rc = fn(DNSB_RFC2136_NO_RRSET, set->owner, LDNS_RR_TYPE_CNAME, NULL, payload);
	return rc;
}

/* What makes a change unsendable, before any record is built. @return 0 or DNSB_EINVAL */
static int change_valid(const dnsb_change *c, dnsb_error *err)
{
	if (c->kind != DNSB_CHANGE_CREATE && c->old.rdata_count == 0)
		return dnsb_error_set(err, DNSB_EINVAL, "%s %s: the old RRset has no RDATA", c->old.owner,
				      type_name(c->old.type));
	if (c->kind != DNSB_CHANGE_DELETE && c->new_set.rdata_count == 0)
		return dnsb_error_set(err, DNSB_EINVAL, "%s %s: the new RRset has no RDATA", c->new_set.owner,
				      type_name(c->new_set.type));
	return 0;
}

/* dnsb_rfc2136_prereqs of a change already found valid. */
static int prereqs_of(dnsb_change *const *changes, size_t n, const dnsb_change *c, dnsb_rfc2136_prereq_fn fn,
		      void *payload)
{
	int rc;

	if (c->kind != DNSB_CHANGE_CREATE && (rc = fn(DNSB_RFC2136_EXACTLY, c->old.owner, c->old.type, &c->old,
						      payload)) != 0)
		return rc;
	/* An update to another name or type is a creation of the new RRset too. */
	if (c->kind == DNSB_CHANGE_CREATE || (c->kind == DNSB_CHANGE_UPDATE &&
					      (c->new_set.type != c->old.type || strcmp(c->new_set.owner, c->old.owner) != 0)))
		return prereq_create(changes, n, &c->new_set, fn, payload);
	return 0;
}

int dnsb_rfc2136_prereqs(dnsb_change *const *changes, size_t n, const dnsb_change *c, dnsb_rfc2136_prereq_fn fn,
			 void *payload)
{
	return change_valid(c, NULL) != 0 ? DNSB_EINVAL : prereqs_of(changes, n, c, fn, payload);
}

/* The old RRset exists with exactly this RDATA (RFC 2136 §2.4.2; TTL 0, ignored). */
static int prereq_exact(ldns_rr_list *pr, const dnsb_rrset *old, dnsb_error *err)
{
	for (size_t i = 0; i < old->rdata_count; i++) {
		ldns_rr *rr;
		int rc = rr_from_rrset(&rr, old, i, 0, LDNS_RR_CLASS_IN, err);
		if (rc == 0)
			rc = push(pr, rr);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int add_rrset(ldns_rr_list *up, const dnsb_rrset *set, dnsb_error *err)
{
	for (size_t i = 0; i < set->rdata_count; i++) {
		ldns_rr *rr;
		int rc = rr_from_rrset(&rr, set, i, set->ttl, LDNS_RR_CLASS_IN, err);
		if (rc == 0)
			rc = push(up, rr);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* Where the prerequisites of one change go as records, for prereqs_of. */
typedef struct prereq_sink {
	ldns_rr_list *pr;
	dnsb_error *err;
} prereq_sink;

static int prereq_rr(dnsb_rfc2136_prereq_kind kind, const char *owner, uint16_t type, const dnsb_rrset *exact,
		     void *payload)
{
	prereq_sink *sink = payload;

	if (kind == DNSB_RFC2136_EXACTLY)
		return prereq_exact(sink->pr, exact, sink->err);
	/* NONE <type>: the RRset does not exist; NONE ANY: the name is unused (RFC 2136 §2.4.3, §2.4.5). */
	return push(sink->pr, rr_empty(owner, type, LDNS_RR_CLASS_NONE));
}

/*
 * Prerequisites and deletions of one change (its additions come later);
 * up NULL: the prerequisites only.
 */
static int build_change(ldns_rr_list *pr, ldns_rr_list *up, dnsb_change *const *changes, size_t n,
			const dnsb_change *c, dnsb_error *err)
{
	prereq_sink sink = { pr, err };
	int rc;

	if ((rc = change_valid(c, err)) != 0 || (rc = prereqs_of(changes, n, c, prereq_rr, &sink)) != 0)
		return rc;
	if (up && c->kind != DNSB_CHANGE_CREATE)
		return push(up, rr_empty(c->old.owner, c->old.type, LDNS_RR_CLASS_ANY));
	return 0;
}

/*
 * The UPDATE for changes[first, first + count), prerequisites computed in the
 * context of the whole batch; with prereq_only, no update section.
 */
static int build_message(ldns_pkt **out, const char *zone, dnsb_change *const *changes, size_t n, size_t first,
			 size_t count, int prereq_only, size_t *bad, dnsb_error *err)
{
	ldns_rr_list *pr = ldns_rr_list_new(), *up = ldns_rr_list_new();
	ldns_rdf *zone_rdf = NULL;
	int rc = DNSB_ENOMEM;
	size_t i;

	*out = NULL;
	if (bad)
		*bad = (size_t)-1;
	if (pr == NULL || up == NULL)
		goto done;
	for (i = first; i < first + count; i++)
		if ((rc = build_change(pr, prereq_only ? NULL : up, changes, n, changes[i], err)) != 0)
			goto bad_change;
	/* Additions after every deletion: "delete the CNAME, add an A" must see the CNAME gone. */
	for (i = first; i < first + count && !prereq_only; i++)
		if (changes[i]->kind != DNSB_CHANGE_DELETE && (rc = add_rrset(up, &changes[i]->new_set, err)) != 0)
			goto bad_change;
	if (ldns_rr_list_rr_count(pr) > 65535 || ldns_rr_list_rr_count(up) > 65535) {
		rc = dnsb_error_set(err, DNSB_ETOOLARGE, "%zu prerequisites and %zu updates do not fit one message",
				    ldns_rr_list_rr_count(pr), ldns_rr_list_rr_count(up));
		goto done;
	}
	if ((zone_rdf = ldns_dname_new_frm_str(zone)) == NULL) {
		rc = dnsb_error_set(err, DNSB_EINVAL, "zone '%s' is not a domain name", zone);
		goto done;
	}
	/* Takes the zone rdf, clones the lists. */
	if ((*out = ldns_update_pkt_new(zone_rdf, LDNS_RR_CLASS_IN, pr, up, NULL)) == NULL) {
		rc = DNSB_ENOMEM;
		goto done;
	}
	/* ldns starts from a query with RD; in an UPDATE that bit is Z and must be 0. */
	ldns_pkt_set_rd(*out, false);
	ldns_pkt_set_random_id(*out);
	rc = 0;
	goto done;
bad_change:
	if (bad)
		*bad = i;
done:
	ldns_rr_list_deep_free(pr);
	ldns_rr_list_deep_free(up);
	if (rc == DNSB_ENOMEM) /* the paths above that ran out of memory said nothing */
		dnsb_error_set(err, rc, "out of memory building an UPDATE of %zu changes", count);
	return rc;
}

int dnsb_rfc2136_update_build(ldns_pkt **out, const char *zone, dnsb_change *const *changes, size_t n,
			      size_t *bad, dnsb_error *err)
{
	return build_message(out, zone, changes, n, 0, n, 0, bad, err);
}

int dnsb_rfc2136_probe_build(ldns_pkt **out, const char *zone, dnsb_change *const *changes, size_t n, size_t first,
			     size_t count, dnsb_error *err)
{
	return build_message(out, zone, changes, n, first, count, 1, NULL, err);
}

const char *dnsb_rfc2136_rcode_name(int rcode)
{
	static const char *const names[] = {
		"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED", "YXDOMAIN", "YXRRSET",
		"NXRRSET", "NOTAUTH", "NOTZONE", "DSOTYPENI", "RCODE12", "RCODE13", "RCODE14", "RCODE15",
		"BADSIG", "BADKEY", "BADTIME", "BADMODE", "BADNAME", "BADALG", "BADTRUNC", "BADCOOKIE",
	};
	static _Thread_local char other[16];

	if (rcode >= 0 && (size_t)rcode < sizeof(names) / sizeof(names[0]))
		return names[rcode];
	snprintf(other, sizeof(other), "RCODE%d", rcode);
	return other;
}

/* "www.example.test. A (create)" for messages. */
static void describe_change(char *buf, size_t size, const dnsb_change *c)
{
	static const char *const kinds[] = { "create", "update", "delete" };
	const dnsb_rrset *set = c->kind == DNSB_CHANGE_CREATE ? &c->new_set : &c->old;

	snprintf(buf, size, "%s %s (%s)", set->owner ? set->owner : "?", type_name(set->type),
		 (unsigned)c->kind < 3 ? kinds[c->kind] : "?");
}

/* What a failed prerequisite means for one change, in words. */
static const char *conflict_meaning(const dnsb_change *c, int rcode)
{
	int cname = c->new_set.type == LDNS_RR_TYPE_CNAME;

	if (c->kind == DNSB_CHANGE_CREATE && rcode == LDNS_RCODE_YXRRSET)
		return cname ? "a CNAME already exists at that name" :
			       "the RRset already exists, or a CNAME is at that name";
	if (c->kind == DNSB_CHANGE_CREATE && rcode == LDNS_RCODE_YXDOMAIN)
		return "the name already holds other records, so a CNAME cannot be added";
	if (rcode == LDNS_RCODE_NXRRSET)
		return c->kind == DNSB_CHANGE_CREATE ? "a prerequisite of the batch failed" :
			"the RRset does not hold the expected old RDATA (changed or deleted since the plan was made)";
	return "a prerequisite failed";
}

void dnsb_rfc2136_conflict_note(char *buf, size_t size, const dnsb_change *c, int rcode)
{
	char what[300];

	describe_change(what, sizeof(what), c);
	snprintf(buf, size, "%s: %s", what, conflict_meaning(c, rcode));
}

/* What a failed prerequisite means for a batch, without knowing which change it was. */
static const char *batch_conflict_meaning(int rcode)
{
	switch (rcode) {
	case LDNS_RCODE_YXRRSET:
		return "an RRset to be created already exists, or a CNAME is at its name";
	case LDNS_RCODE_YXDOMAIN:
		return "a name that is to get a CNAME already holds other records";
	case LDNS_RCODE_NXRRSET:
		return "an RRset to be updated or deleted does not hold the expected old RDATA";
	default:
		return "a prerequisite failed";
	}
}

static void classify_conflict(dnsb_result *res, int rcode, const char *zone, dnsb_change *const *changes, size_t n,
			      const char *server)
{
	const char *name = dnsb_rfc2136_rcode_name(rcode);
	char what[300];

	if (n == 1) {
		describe_change(what, sizeof(what), changes[0]);
		dnsb_result_set(res, DNSB_CLASS_CONFLICT, rcode, name, "%s: %s answered %s: %s", what, server, name,
				conflict_meaning(changes[0], rcode));
		return;
	}
	/*
	 * RFC 2136 replies do not say which prerequisite failed, and the
	 * engine may hand this message to the one group bisection isolates:
	 * say what failed, not which change.
	 */
	dnsb_result_set(res, DNSB_CLASS_CONFLICT, rcode, name, "%s answered %s to an UPDATE of %zu changes to %s: %s",
			server, name, n, zone, batch_conflict_meaning(rcode));
}

void dnsb_rfc2136_classify(dnsb_result *res, int rcode, int tsig_error, const char *zone,
			   dnsb_change *const *changes, size_t n, const char *server)
{
	const char *name = dnsb_rfc2136_rcode_name(tsig_error ? tsig_error : rcode);

	dnsb_result_init(res);
	if (tsig_error != 0) {
		const char *why = tsig_error == DNSB_RFC2136_BADSIG  ? "the TSIG secret does not match the server's key" :
				  tsig_error == DNSB_RFC2136_BADKEY  ? "the server does not know this TSIG key name or algorithm" :
				  tsig_error == DNSB_RFC2136_BADTIME ? "the clocks differ by more than the TSIG fudge (300 s)" :
								    "the TSIG signature was rejected";
		dnsb_result_set(res, DNSB_CLASS_FATAL, tsig_error, name, "%s answered %s (TSIG error %s): %s", server,
				dnsb_rfc2136_rcode_name(rcode), name, why);
		return;
	}
	switch (rcode) {
	case LDNS_RCODE_NOERROR:
		return;
	case LDNS_RCODE_YXDOMAIN:
	case LDNS_RCODE_YXRRSET:
	case LDNS_RCODE_NXRRSET:
	case LDNS_RCODE_NXDOMAIN:
		classify_conflict(res, rcode, zone, changes, n, server);
		return;
	case LDNS_RCODE_FORMERR:
		dnsb_result_set(res, DNSB_CLASS_INVALID, rcode, name, "%s answered FORMERR: a record of this UPDATE is malformed%s",
				server, n == 1 ? "" : " (one of several)");
		return;
	case LDNS_RCODE_SERVFAIL:
		dnsb_result_set(res, DNSB_CLASS_TRANSIENT, rcode, name, "%s answered SERVFAIL for zone %s", server, zone);
		return;
	case LDNS_RCODE_NOTAUTH:
		dnsb_result_set(res, DNSB_CLASS_FATAL, rcode, name,
				"%s answered NOTAUTH: it is not authoritative for zone %s, or it requires a TSIG key", server,
				zone);
		return;
	case LDNS_RCODE_REFUSED:
		dnsb_result_set(res, DNSB_CLASS_FATAL, rcode, name,
				"%s answered REFUSED: updates to zone %s are not allowed for this key or address (allow-update, acl)",
				server, zone);
		return;
	case LDNS_RCODE_NOTZONE:
		dnsb_result_set(res, DNSB_CLASS_FATAL, rcode, name, "%s answered NOTZONE: a record is outside zone %s",
				server, zone);
		return;
	case LDNS_RCODE_NOTIMPL:
		dnsb_result_set(res, DNSB_CLASS_FATAL, rcode, name, "%s answered NOTIMP: it does not implement DNS UPDATE",
				server);
		return;
	default:
		dnsb_result_set(res, DNSB_CLASS_FATAL, rcode, name, "%s answered %s to an UPDATE of zone %s", server, name,
				zone);
		return;
	}
}

int dnsb_rfc2136_rrsets_from_rrs(dnsb_rrset_list *out, ldns_rr_list *rrs, const char *only_owner,
				 uint16_t only_type)
{
	ldns_rdf *want = NULL;
	int rc = 0;

	if (only_owner && (want = ldns_dname_new_frm_str(only_owner)) == NULL)
		return DNSB_ENOMEM;
	/* Canonical order puts each RRset's records next to each other. */
	for (size_t i = 0; i < ldns_rr_list_rr_count(rrs); i++)
		ldns_rr2canonical(ldns_rr_list_rr(rrs, i));
	ldns_rr_list_sort(rrs);
	for (size_t i = 0; i < ldns_rr_list_rr_count(rrs) && rc == 0; i++) {
		ldns_rr *rr = ldns_rr_list_rr(rrs, i);
		uint16_t type = (uint16_t)ldns_rr_get_type(rr);

		if (type == LDNS_RR_TYPE_TSIG || type == LDNS_RR_TYPE_OPT || ldns_rr_get_class(rr) != LDNS_RR_CLASS_IN)
			continue;
		if (want && ((type != only_type && only_type != DNSB_RRKEY_ANY) ||
			     ldns_dname_compare(ldns_rr_owner(rr), want) != 0))
			continue;
		rc = dnsb_rrset_list_add_ldns_rr(out, rr, NULL);
	}
	ldns_rdf_deep_free(want);
	return rc;
}
