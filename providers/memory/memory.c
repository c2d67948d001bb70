/*
 * memory.c - the in-process provider: zone stores plus a deterministic fault
 * script (see dnsbatch/memory.h for the script's syntax).
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ldns/ldns.h>

#include "dnsbatch/memory.h"
#include "dnsbatch/sys/provider.h"
#include "applier/core/clock.h"
#include "providers/registry.h"
#include "providers/common/store.h"

typedef enum fault_action {
	F_LATENCY, F_TRANSIENT, F_COMMIT_TRANSIENT, F_RATE_LIMIT, F_FATAL, F_CONFLICT, F_WRONG_HINT, F_READ_TRANSIENT,
	F_WRITE
} fault_action;

typedef struct fault_rule {
	unsigned long first, last;  /* submission (or, for read-transient, read) numbers, 1-based,
				       inclusive; last 0 = no end */
	double probability;         /* < 0: by number only */
	fault_action action;
	double value;               /* latency or Retry-After seconds; < 0 none */
	dnsb_rrset *write;          /* F_WRITE: the RRset another client puts (owned), else NULL */
} fault_rule;

typedef struct memory_state {
	pthread_mutex_t lock;
	dnsb_store **stores;        /* one per provider zone, same order */
	size_t zone_count;
	fault_rule *rules;
	size_t rule_count;
	uint64_t rng;
	unsigned long submissions;
	unsigned long reads;        /* read and list calls, for read-transient rules */
	int hints;
	/* dnsb_memory_set_flush's, or NULL: called (state NULL) by the flush op, which is a no-op without it */
	int (*flush)(void *state, const char *zone, int hold, double timeout, dnsb_error *err);
} memory_state;


/* Seconds: a finite decimal from 0 to a day (a fault script is for tests, not for sleeping forever). */
static int parse_number(double *out, const char *s, size_t len)
{
	char buf[64], *end;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	return (*end != '\0' || errno != 0 || !(*out >= 0) || *out > 86400 || !isdigit((unsigned char)buf[0])) ? -1 : 0;
}

/* A whole number in decimal digits only, no sign, no exponent, in [min, max]. */
static int parse_whole(unsigned long long *out, const char *s, size_t len, unsigned long long min,
		       unsigned long long max)
{
	char buf[32], *end;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtoull(buf, &end, 10);
	return (*end != '\0' || errno != 0 || *out < min || *out > max) ? -1 : 0;
}

static void rrset_free(dnsb_rrset *r)
{
	if (r != NULL)
		dnsb_rrset_clear(r);
	free(r);
}

/*
 * The record of a write= rule, "OWNER TTL [IN] TYPE RDATA" as in a zone file,
 * read by ldns into *out (malloc'd). @return 0, 1 when it is not one record, DNSB_ENOMEM
 */
static int parse_record(dnsb_rrset **out, const char *text, size_t len)
{
	dnsb_rrset_list list = { 0 };
	ldns_rr *rr = NULL;
	char *line = strndup(text, len);
	int rc = 1;

	*out = NULL;
	if (line == NULL)
		return DNSB_ENOMEM;
	if (ldns_rr_new_frm_str(&rr, line, 0, NULL, NULL) == LDNS_STATUS_OK && rr != NULL) {
		rc = dnsb_rrset_list_add_ldns_rr(&list, rr, NULL);
		rc = rc == DNSB_ENOMEM ? rc : rc < 0 ? 1 : 0;
	}
	if (rc == 0 && list.count == 1 && (*out = malloc(sizeof(**out))) != NULL) {
		**out = list.items[0];
		memset(&list.items[0], 0, sizeof(list.items[0]));
	} else if (rc == 0) {
		rc = list.count == 1 ? DNSB_ENOMEM : 1;
	}
	dnsb_rrset_list_clear(&list);
	ldns_rr_free(rr);
	free(line);
	return rc;
}

/* A rule's WHEN (N, N-M, * or pX) into r. @return 0, or -1 when it is none of those */
static int parse_when(fault_rule *r, const char *when, size_t len)
{
	unsigned long long n;

	if (len == 1 && when[0] == '*') {
		r->first = 1;
		r->last = 0;
	} else if (len > 1 && when[0] == 'p') {
		if (parse_number(&r->probability, when + 1, len - 1) < 0 || r->probability > 1)
			return -1;
		r->last = 0;
	} else {
		const char *dash = memchr(when, '-', len);
		if (parse_whole(&n, when, dash ? (size_t)(dash - when) : len, 1, ~0UL) < 0)
			return -1;
		r->first = r->last = (unsigned long)n;
		if (dash) {
			if (parse_whole(&n, dash + 1, len - (size_t)(dash + 1 - when), r->first, ~0UL) < 0)
				return -1;
			r->last = (unsigned long)n;
		}
	}
	return 0;
}

static int parse_rule(memory_state *st, const char *rule, size_t len, size_t pos, dnsb_error *err)
{
	static const struct { const char *name; fault_action action; int takes_value; } actions[] = {
		{ "latency", F_LATENCY, 1 }, { "transient", F_TRANSIENT, 0 },
		{ "commit-transient", F_COMMIT_TRANSIENT, 0 }, { "rate-limit", F_RATE_LIMIT, 1 },
		{ "fatal", F_FATAL, 0 }, { "conflict", F_CONFLICT, 0 },
		{ "wrong-hint", F_WRONG_HINT, 0 }, { "read-transient", F_READ_TRANSIENT, 0 },
		{ "write", F_WRITE, 2 },
	};
	const char *colon = memchr(rule, ':', len), *eq, *act;
	fault_rule r = { 1, 0, -1.0, F_TRANSIENT, -1.0, NULL };
	size_t when_len, act_len;
	unsigned long long n;

	if (len > 5 && strncmp(rule, "seed=", 5) == 0) {
		if (parse_whole(&n, rule + 5, len - 5, 0, ~0ULL) < 0)
			goto bad;
		st->rng = (uint64_t)n;
		return 0;
	}
	if (colon == NULL)
		goto bad;
	when_len = (size_t)(colon - rule);
	if (parse_when(&r, rule, when_len) < 0)
		goto bad;
	act = colon + 1;
	act_len = len - when_len - 1;
	eq = memchr(act, '=', act_len);
	size_t name_len = eq ? (size_t)(eq - act) : act_len;
	size_t a;
	for (a = 0; a < sizeof(actions) / sizeof(actions[0]); a++)
		if (strlen(actions[a].name) == name_len && strncmp(actions[a].name, act, name_len) == 0)
			break;
	if (a == sizeof(actions) / sizeof(actions[0]))
		goto bad;
	r.action = actions[a].action;
	if (actions[a].takes_value == 2) {
		int rc = eq ? parse_record(&r.write, eq + 1, act_len - name_len - 1) : 1;
		if (rc != 0)
			return rc < 0 ? dnsb_error_set(err, rc, "--memory-faults: rule %zu: out of memory", pos)
				      : dnsb_error_set(err, DNSB_EINVAL, "--memory-faults: rule %zu '%.*s': write= takes "
						       "one record, 'OWNER TTL TYPE RDATA' (no ',' or ';')",
						       pos, (int)len, rule);
	} else if (eq) {
		if (!actions[a].takes_value || parse_number(&r.value, eq + 1, act_len - name_len - 1) < 0)
			goto bad;
	} else if (r.action == F_LATENCY) {
		goto bad;
	}
	fault_rule *grown = realloc(st->rules, (st->rule_count + 1) * sizeof(*grown));
	if (grown == NULL) {
		rrset_free(r.write);
		return dnsb_error_set(err, DNSB_ENOMEM, "--memory-faults: rule %zu: out of memory", pos);
	}
	st->rules = grown;
	st->rules[st->rule_count++] = r;
	return 0;
bad:
	return dnsb_error_set(err, DNSB_EINVAL,
			      "--memory-faults: rule %zu '%.*s' is not WHEN:ACTION[=SECONDS] "
			      "(WHEN: N, N-M, * or pX; ACTION: latency=S, transient, commit-transient, "
			      "rate-limit[=S], fatal, conflict, wrong-hint, read-transient, write=RECORD) or seed=N",
			      pos, (int)len, rule);
}

static int parse_faults(memory_state *st, const char *script, dnsb_error *err)
{
	size_t pos = 1;

	st->rng = 1;
	while (script && *script) {
		size_t len = strcspn(script, ",;");
		while (len > 0 && isspace((unsigned char)*script)) {
			script++;
			len--;
		}
		size_t trimmed = len;
		while (trimmed > 0 && isspace((unsigned char)script[trimmed - 1]))
			trimmed--;
		if (trimmed > 0) {
			int rc = parse_rule(st, script, trimmed, pos++, err);
			if (rc < 0)
				return rc;
		}
		script += len;
		if (*script)
			script++;
	}
	return 0;
}

static dnsb_store *store_for(memory_state *st, const char *zone)
{
	for (size_t i = 0; i < st->zone_count; i++)
		if (strcmp(dnsb_store_apex(st->stores[i]), zone) == 0)
			return st->stores[i];
	return NULL;
}

/* Does rule r fire for request `number` (a submission, or a read for read-transient)? Under st->lock. */
static int rule_hits(memory_state *st, const fault_rule *r, unsigned long number)
{
	return r->probability >= 0 ? dnsb_uniform01(&st->rng) < r->probability
				   : number >= r->first && (r->last == 0 || number <= r->last);
}

/*
 * Like Route53's InvalidChangeBatch, name every failing change of a refused
 * batch, not only the first: each later part is tried on its own and undone.
 */
static int name_every_culprit(dnsb_store *store, dnsb_change *const *changes, size_t n, dnsb_result *out)
{
	size_t start = out->culprit_count ? out->culprits[0] + 1 : n;

	while (start < n) {
		dnsb_result part;
		int rc = dnsb_store_apply(store, changes + start, n - start, 0, &part);
		if (rc < 0)
			return rc;
		if (part.cls == DNSB_CLASS_OK) {
			dnsb_store_undo(store);
			break;
		}
		dnsb_result_add_culprit_note(out, start + part.culprits[0], part.message);
		start += part.culprits[0] + 1;
	}
	return 0;
}

/* A wrong culprit: the first change the reply does not name, or none when every change is named. */
static void name_wrong_culprit(dnsb_result *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int named = 0;
		for (size_t j = 0; j < out->culprit_count && !named; j++)
			named = out->culprits[j] == i;
		if (!named) {
			out->culprit_count = 0;
			dnsb_result_add_culprit(out, i);
			return;
		}
	}
	out->culprit_count = 0;
}

/* Apply to the store, and shape the culprit list as the hints setting and a wrong-hint rule say. */
static int apply_to_store(memory_state *st, dnsb_store *store, dnsb_change *const *changes, size_t n,
			  int wrong_hint, dnsb_result *out)
{
	int rc = dnsb_store_apply(store, changes, n, 1, out);

	if (rc < 0 || out->cls == DNSB_CLASS_OK)
		return rc;
	if (st->hints && (rc = name_every_culprit(store, changes, n, out)) < 0)
		return rc;
	if (!st->hints)
		out->culprit_count = 0;
	else if (wrong_hint)
		name_wrong_culprit(out, n);
	return 0;
}

/* The store whose zone holds owner (the longest apex it ends with), or NULL. */
static dnsb_store *store_holding(memory_state *st, const char *owner)
{
	dnsb_store *best = NULL;
	size_t best_len = 0, len = strlen(owner);

	for (size_t i = 0; i < st->zone_count; i++) {
		const char *apex = dnsb_store_apex(st->stores[i]);
		size_t alen = strlen(apex);
		int under = alen <= len && strcmp(owner + len - alen, apex) == 0 &&
			    (alen == len || owner[len - alen - 1] == '.' || strcmp(apex, ".") == 0);
		if (under && alen >= best_len) {
			best = st->stores[i];
			best_len = alen;
		}
	}
	return best;
}

/*
 * Another client's write= rules for submission `number`: each puts its RRset
 * (replacing one of the same owner and type) before the submission reaches
 * the zone. Under st->lock.
 */
static void other_writes(memory_state *st, unsigned long number)
{
	for (size_t i = 0; i < st->rule_count; i++) {
		const fault_rule *r = &st->rules[i];
		dnsb_store *store;
		if (r->action != F_WRITE || !rule_hits(st, r, number))
			continue;
		if ((store = store_holding(st, r->write->owner)) != NULL) /* dnsb_memory_new made sure */
			(void)dnsb_store_put(store, r->write); /* out of memory: the other client's write is lost */
	}
}

static int memory_submit(void *state, const char *zone, dnsb_change *const *changes, size_t n, double timeout,
			 dnsb_result *out, dnsb_error *err)
{
	memory_state *st = state;
	dnsb_store *store;
	const fault_rule *failure = NULL;
	double latency = 0;
	unsigned long number;
	int rc = 0, wrong_hint = 0;

	(void)err;
	pthread_mutex_lock(&st->lock);
	number = ++st->submissions;
	other_writes(st, number);
	for (size_t i = 0; i < st->rule_count; i++) {
		const fault_rule *r = &st->rules[i];
		if (r->action == F_READ_TRANSIENT || r->action == F_WRITE || !rule_hits(st, r, number))
			continue;
		if (r->action == F_LATENCY)
			latency += r->value;
		else if (r->action == F_WRONG_HINT)
			wrong_hint = 1;
		else if (failure == NULL)
			failure = r;
	}
	pthread_mutex_unlock(&st->lock);
	if (timeout > 0 && latency > timeout) {
		/* The client gives up first; this server never sees the request. */
		dnsb_sleep(timeout);
		dnsb_result_set(out, DNSB_CLASS_TRANSIENT, 0, "timeout",
				"no reply within %.3g s (submission %lu; latency %.3g s)", timeout, number, latency);
		return 0;
	}
	if (latency > 0)
		dnsb_sleep(latency);

	pthread_mutex_lock(&st->lock);
	store = store_for(st, zone);
	if (store == NULL) {
		dnsb_result_set(out, DNSB_CLASS_FATAL, 404, "notFound", "The 'parameters.managedZone' resource named '%s' does not exist.", zone);
	} else if (failure == NULL || failure->action == F_COMMIT_TRANSIENT) {
		rc = apply_to_store(st, store, changes, n, wrong_hint, out);
		if (rc == 0 && failure && out->cls == DNSB_CLASS_OK)
			dnsb_result_set(out, DNSB_CLASS_TRANSIENT, 502, "badGateway",
					"Bad Gateway (submission %lu was committed; the reply was lost)", number);
	} else if (failure->action == F_TRANSIENT) {
		dnsb_result_set(out, DNSB_CLASS_TRANSIENT, 503, "backendError", "Service unavailable (submission %lu)", number);
	} else if (failure->action == F_RATE_LIMIT) {
		dnsb_result_set(out, DNSB_CLASS_RATE_LIMITED, 429, "rateLimitExceeded",
				"Resource has been exhausted (e.g. check quota).");
		out->retry_after = failure->value;
	} else if (failure->action == F_FATAL) {
		dnsb_result_set(out, DNSB_CLASS_FATAL, 403, "forbidden", "Forbidden: the credentials were refused");
	} else {
		dnsb_result_set(out, DNSB_CLASS_CONFLICT, 409, "conflict", "Conflict injected by the fault script");
	}
	pthread_mutex_unlock(&st->lock);
	return rc;
}

/* A read-transient rule firing for this read or list. Under st->lock. @return 0 or DNSB_ETRANSIENT */
static int read_fault(memory_state *st, dnsb_error *err)
{
	unsigned long number = ++st->reads;

	for (size_t i = 0; i < st->rule_count; i++)
		if (st->rules[i].action == F_READ_TRANSIENT && rule_hits(st, &st->rules[i], number))
			return dnsb_error_set(err, DNSB_ETRANSIENT, "read %lu: 503 Service unavailable (fault script)",
					      number);
	return 0;
}

static int memory_read(void *state, const char *zone, const dnsb_rrkey *keys, size_t n, double timeout,
		       dnsb_rrset_list *out, dnsb_error *err)
{
	memory_state *st = state;

	(void)timeout; /* reads have no latency rule: they answer at once */
	dnsb_store *store;
	int rc;

	pthread_mutex_lock(&st->lock);
	store = store_for(st, zone);
	if ((rc = read_fault(st, err)) == 0)
		rc = store ? dnsb_store_read(store, keys, n, out)
			   : dnsb_error_set(err, DNSB_ENOTFOUND, "zone %s is not held by this provider", zone);
	pthread_mutex_unlock(&st->lock);
	return rc;
}

static int memory_list(void *state, const char *zone, double timeout, dnsb_rrset_list *out, dnsb_error *err)
{
	memory_state *st = state;
	dnsb_store *store;
	int rc;

	(void)timeout; /* in memory: no wait but a fault script's */
	pthread_mutex_lock(&st->lock);
	store = store_for(st, zone);
	if ((rc = read_fault(st, err)) == 0)
		rc = store ? dnsb_store_list(store, out)
			   : dnsb_error_set(err, DNSB_ENOTFOUND, "zone %s is not held by this provider", zone);
	pthread_mutex_unlock(&st->lock);
	return rc;
}

static void memory_close(void *state)
{
	memory_state *st = state;

	if (st == NULL)
		return;
	for (size_t i = 0; i < st->zone_count; i++)
		dnsb_store_free(st->stores[i]);
	free(st->stores);
	for (size_t i = 0; i < st->rule_count; i++)
		rrset_free(st->rules[i].write);
	free(st->rules);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

/* Commits are made as they are answered; a test's flush (dnsb_memory_set_flush) sees the engine's holds. */
static int memory_flush(void *state, const char *zone, int hold, double timeout, dnsb_error *err)
{
	memory_state *st = state;

	return st->flush ? st->flush(NULL, zone, hold, timeout, err) : 0;
}

static const dnsb_provider_ops memory_ops =
	DNSB_PROVIDER_OPS_INIT_ALL("memory", memory_submit, memory_read, memory_list, memory_close, memory_flush, NULL);

int dnsb_memory_new(dnsb_provider **out, const char *const *zones, size_t zone_count,
		    const char *faults, dnsb_error *err)
{
	static const dnsb_provider_limits cloud_dns_limits = { .max_additions = 1000, .max_deletions = 1000,
								.max_rdata_bytes = 100000 };
	memory_state *st = calloc(1, sizeof(*st));
	dnsb_provider *p;
	int rc;

	*out = NULL;
	if (st == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "memory provider: out of memory");
	pthread_mutex_init(&st->lock, NULL);
	if ((rc = dnsb_provider_alloc(&p, &memory_ops, st)) < 0) /* st is closed (freed) on failure */
		return dnsb_error_set(err, rc, "memory provider: %s", rc == DNSB_ENOMEM ? "out of memory" : "bad ops version");
	if ((rc = parse_faults(st, faults, err)) < 0)
		goto fail;
	if ((st->stores = calloc(zone_count ? zone_count : 1, sizeof(dnsb_store *))) == NULL) {
		rc = dnsb_error_set(err, DNSB_ENOMEM, "memory provider: out of memory");
		goto fail;
	}
	for (size_t i = 0; i < zone_count; i++) {
		if ((rc = dnsb_provider_add_zone(p, zones[i], err)) < 0)
			goto fail;
		if ((rc = dnsb_store_new(&st->stores[i], dnsb_provider_zone(p, i))) < 0) {
			dnsb_error_set(err, rc, "memory provider: zone %s: out of memory", zones[i]);
			goto fail;
		}
		st->zone_count++;
	}
	for (size_t i = 0; i < st->rule_count; i++)
		if (st->rules[i].write && store_holding(st, st->rules[i].write->owner) == NULL) {
			rc = dnsb_error_set(err, DNSB_EINVAL, "--memory-faults: write=%s: no zone of this provider holds it",
					    st->rules[i].write->owner);
			goto fail;
		}
	/* Cloud DNS's limits, so that the engine batches here as it would there. */
	dnsb_provider_set_limits(p, &cloud_dns_limits);
	*out = p;
	return 0;
fail:
	dnsb_provider_free(p);
	return rc;
}

static memory_state *state_of(dnsb_provider *p)
{
	return dnsb_provider_state(p, &memory_ops);
}

int dnsb_memory_load(dnsb_provider *p, const char *zone, const char *path, dnsb_error *err)
{
	memory_state *st = state_of(p);
	dnsb_store *store;
	char *apex;
	int rc;

	if (st == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "not a memory provider");
	if ((rc = dnsb_name_canonical(&apex, zone, err)) < 0)
		return rc;
	pthread_mutex_lock(&st->lock);
	store = store_for(st, apex);
	rc = store ? dnsb_store_load(store, path, err)
		   : dnsb_error_set(err, DNSB_ENOTFOUND, "zone %s is not held by this provider", apex);
	pthread_mutex_unlock(&st->lock);
	free(apex);
	return rc;
}

int dnsb_memory_put(dnsb_provider *p, const dnsb_rrset *rrset)
{
	memory_state *st = state_of(p);
	long z = st ? dnsb_provider_zone_for(p, rrset->owner) : -1;
	dnsb_store *store = z < 0 ? NULL : store_for(st, dnsb_provider_zone(p, (size_t)z));
	int rc;

	if (store == NULL)
		return DNSB_ENOTFOUND;
	pthread_mutex_lock(&st->lock);
	rc = dnsb_store_put(store, rrset);
	pthread_mutex_unlock(&st->lock);
	return rc;
}

void dnsb_memory_set_flush(dnsb_provider *p, int (*flush)(void *state, const char *zone, int hold, double timeout,
							   dnsb_error *err))
{
	memory_state *st = state_of(p);

	if (st)
		st->flush = flush;
}

void dnsb_memory_set_hints(dnsb_provider *p, int on)
{
	memory_state *st = state_of(p);
	dnsb_provider_limits limits;

	if (st == NULL)
		return;
	limits = *dnsb_provider_get_limits(p);
	st->hints = on;
	limits.names_culprit = on;
	dnsb_provider_set_limits(p, &limits);
}

size_t dnsb_memory_rrset_count(dnsb_provider *p)
{
	memory_state *st = state_of(p);
	size_t n = 0;

	if (st == NULL)
		return 0;
	pthread_mutex_lock(&st->lock);
	for (size_t i = 0; i < st->zone_count; i++)
		n += dnsb_store_count(st->stores[i]);
	pthread_mutex_unlock(&st->lock);
	return n;
}

/* What memory_open's flags give: the apexes of --memory-zone and --memory-zonefile, in that order, each with the
 * file to load (NULL for an empty zone); the fault script; hints. All owned. */
typedef struct memory_settings {
	char **apex, **path;
	size_t count;
	char *faults;
	int hints;
} memory_settings;

static void memory_settings_clear(memory_settings *s)
{
	for (size_t i = 0; i < s->count; i++) {
		free(s->apex[i]);
		free(s->path[i]);
	}
	free(s->apex);
	free(s->path);
	free(s->faults);
}

/* Add one zone (apex and path taken, freed on an error). @return 0 or DNSB_ENOMEM */
static int push_zone(memory_settings *s, char *apex, char *path)
{
	char **a = apex ? realloc(s->apex, (s->count + 1) * sizeof(char *)) : NULL, **p;

	if (a)
		s->apex = a;
	p = a ? realloc(s->path, (s->count + 1) * sizeof(char *)) : NULL;
	if (p == NULL) {
		free(apex);
		free(path);
		return DNSB_ENOMEM;
	}
	s->path = p;
	s->apex[s->count] = apex;
	s->path[s->count++] = path;
	return 0;
}

static int take_zone(void *settings, const char *v, dnsb_error *err)
{
	(void)err;
	return push_zone(settings, strdup(v), NULL);
}

static int take_zonefile(void *settings, const char *v, dnsb_error *err)
{
	const char *eq = strchr(v, '=');
	char *path;

	if (eq == NULL || eq == v || eq[1] == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "--memory-zonefile: expected ZONE=PATH, got '%s'", v);
	if ((path = strdup(eq + 1)) == NULL)
		return DNSB_ENOMEM;
	return push_zone(settings, strndup(v, (size_t)(eq - v)), path);
}

#define AT(field) DNSB_FLAG_AT(memory_settings, field)

static const dnsb_flag memory_flags[] = {
	{ "memory-zone", DNSB_FLAG_CUSTOM, "APEX", "a zone held in memory, empty at start (repeatable)", NULL, 0, 0, 0, 0,
	  DNSB_FLAG_REPEAT, NULL, NULL, take_zone },
	{ "memory-zonefile", DNSB_FLAG_CUSTOM, "ZONE=PATH", "a zone held in memory, loaded from a zone file (repeatable)",
	  NULL, 0, 0, 0, 0, DNSB_FLAG_REPEAT, NULL, NULL, take_zonefile },
	{ "memory-faults", DNSB_FLAG_STRING, "SCRIPT",
	  "fault script, e.g. '2:commit-transient,p0.1:transient,seed=7' (see apply --help)", NULL, 0, 0, AT(faults), 0,
	  NULL, NULL, NULL },
	{ "memory-hints", DNSB_FLAG_BOOL, NULL, "error replies name the failing change", NULL, 0, 0, AT(hints), 0, NULL,
	  NULL, NULL },
	DNSB_FLAG_END
};

/* --provider memory: memory-zone APEX..., memory-zonefile APEX=PATH..., memory-faults, memory-hints. */
static int memory_open(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err)
{
	memory_settings s = { NULL, NULL, 0, NULL, 0 };
	int rc;

	*out = NULL;
	if ((rc = dnsb_flags_parse(memory_flags, &s, cfg, err)) == 0 && s.count == 0)
		rc = dnsb_error_set(err, DNSB_EINVAL,
				    "--provider memory needs --memory-zone APEX or --memory-zonefile ZONE=PATH");
	if (rc == 0 && (rc = dnsb_memory_new(out, (const char *const *)s.apex, s.count, s.faults, err)) == 0)
		dnsb_memory_set_hints(*out, s.hints);
	for (size_t i = 0; rc == 0 && i < s.count; i++)
		if (s.path[i] && (rc = dnsb_memory_load(*out, s.apex[i], s.path[i], err)) < 0) {
			dnsb_provider_free(*out);
			*out = NULL;
		}
	memory_settings_clear(&s);
	return rc;
}

const dnsb_backend dnsb_backend_memory = DNSB_BACKEND_INIT(
	"memory", "in-process zones for tests and benchmarks, with a deterministic fault script", memory_flags, NULL,
	memory_open, &memory_ops);
