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

#include "dnsbatch/memory.h"
#include "dnsbatch/sys/provider.h"
#include "applier/core/clock.h"
#include "store.h"

typedef enum fault_action {
	F_LATENCY, F_TRANSIENT, F_COMMIT_TRANSIENT, F_RATE_LIMIT, F_FATAL, F_CONFLICT
} fault_action;

typedef struct fault_rule {
	unsigned long first, last;  /* submission numbers, 1-based, inclusive; last 0 = no end */
	double probability;         /* < 0: by number only */
	fault_action action;
	double value;               /* latency or Retry-After seconds; < 0 none */
} fault_rule;

typedef struct memory_state {
	pthread_mutex_t lock;
	dnsb_store **stores;        /* one per provider zone, same order */
	size_t zone_count;
	fault_rule *rules;
	size_t rule_count;
	uint64_t rng;
	unsigned long submissions;
	int hints;
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

static int parse_rule(memory_state *st, const char *rule, size_t len, size_t pos, dnsb_error *err)
{
	static const struct { const char *name; fault_action action; int takes_value; } actions[] = {
		{ "latency", F_LATENCY, 1 }, { "transient", F_TRANSIENT, 0 },
		{ "commit-transient", F_COMMIT_TRANSIENT, 0 }, { "rate-limit", F_RATE_LIMIT, 1 },
		{ "fatal", F_FATAL, 0 }, { "conflict", F_CONFLICT, 0 },
	};
	const char *colon = memchr(rule, ':', len), *eq, *act;
	fault_rule r = { 1, 0, -1.0, F_TRANSIENT, -1.0 };
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
	if (when_len == 1 && rule[0] == '*') {
		r.first = 1;
		r.last = 0;
	} else if (when_len > 1 && rule[0] == 'p') {
		if (parse_number(&r.probability, rule + 1, when_len - 1) < 0 || r.probability > 1)
			goto bad;
		r.last = 0;
	} else {
		const char *dash = memchr(rule, '-', when_len);
		if (parse_whole(&n, rule, dash ? (size_t)(dash - rule) : when_len, 1, ~0UL) < 0)
			goto bad;
		r.first = r.last = (unsigned long)n;
		if (dash) {
			if (parse_whole(&n, dash + 1, when_len - (size_t)(dash + 1 - rule), r.first, ~0UL) < 0)
				goto bad;
			r.last = (unsigned long)n;
		}
	}
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
	if (eq) {
		if (!actions[a].takes_value || parse_number(&r.value, eq + 1, act_len - name_len - 1) < 0)
			goto bad;
	} else if (r.action == F_LATENCY) {
		goto bad;
	}
	fault_rule *grown = realloc(st->rules, (st->rule_count + 1) * sizeof(*grown));
	if (grown == NULL)
		return DNSB_ENOMEM;
	st->rules = grown;
	st->rules[st->rule_count++] = r;
	return 0;
bad:
	return dnsb_error_set(err, DNSB_EINVAL,
			      "--memory-faults: rule %zu '%.*s' is not WHEN:ACTION[=SECONDS] "
			      "(WHEN: N, N-M, * or pX; ACTION: latency=S, transient, commit-transient, "
			      "rate-limit[=S], fatal, conflict) or seed=N",
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

static void sleep_seconds(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int memory_submit(void *state, const char *zone, dnsb_change *const *changes, size_t n,
			 dnsb_result *out, dnsb_error *err)
{
	memory_state *st = state;
	dnsb_store *store;
	const fault_rule *failure = NULL;
	double latency = 0;
	unsigned long number;
	int rc = 0;

	(void)err;
	pthread_mutex_lock(&st->lock);
	number = ++st->submissions;
	for (size_t i = 0; i < st->rule_count; i++) {
		const fault_rule *r = &st->rules[i];
		int hit = r->probability >= 0 ? dnsb_uniform01(&st->rng) < r->probability
					      : number >= r->first && (r->last == 0 || number <= r->last);
		if (!hit)
			continue;
		if (r->action == F_LATENCY)
			latency += r->value;
		else if (failure == NULL)
			failure = r;
	}
	pthread_mutex_unlock(&st->lock);
	if (latency > 0)
		sleep_seconds(latency);

	pthread_mutex_lock(&st->lock);
	store = store_for(st, zone);
	if (store == NULL) {
		dnsb_result_set(out, DNSB_CLASS_FATAL, 404, "notFound", "The 'parameters.managedZone' resource named '%s' does not exist.", zone);
	} else if (failure == NULL || failure->action == F_COMMIT_TRANSIENT) {
		rc = dnsb_store_apply(store, changes, n, 1, out);
		if (!st->hints)
			out->hint = -1;
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

static int memory_read(void *state, const char *zone, const dnsb_rrkey *keys, size_t n,
		       dnsb_rrset_list *out, dnsb_error *err)
{
	memory_state *st = state;
	dnsb_store *store;
	int rc;

	pthread_mutex_lock(&st->lock);
	store = store_for(st, zone);
	rc = store ? dnsb_store_read(store, keys, n, out)
		   : dnsb_error_set(err, DNSB_ENOTFOUND, "zone %s is not held by this provider", zone);
	pthread_mutex_unlock(&st->lock);
	return rc;
}

static int memory_list(void *state, const char *zone, dnsb_rrset_list *out, dnsb_error *err)
{
	memory_state *st = state;
	dnsb_store *store;
	int rc;

	pthread_mutex_lock(&st->lock);
	store = store_for(st, zone);
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
	free(st->rules);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

static const dnsb_provider_ops memory_ops = {
	DNSB_PROVIDER_OPS_VERSION, "memory", memory_submit, memory_read, memory_list, memory_close
};

int dnsb_memory_new(dnsb_provider **out, const char *const *zones, size_t zone_count,
		    const char *faults, dnsb_error *err)
{
	memory_state *st = calloc(1, sizeof(*st));
	dnsb_provider *p;
	int rc;

	*out = NULL;
	if (st == NULL)
		return DNSB_ENOMEM;
	pthread_mutex_init(&st->lock, NULL);
	if ((rc = dnsb_provider_alloc(&p, &memory_ops, st)) < 0)
		return rc;
	if ((rc = parse_faults(st, faults, err)) < 0)
		goto fail;
	if ((st->stores = calloc(zone_count ? zone_count : 1, sizeof(dnsb_store *))) == NULL) {
		rc = DNSB_ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < zone_count; i++) {
		if ((rc = dnsb_provider_add_zone(p, zones[i], err)) < 0)
			goto fail;
		if ((rc = dnsb_store_new(&st->stores[i], p->zones[i])) < 0)
			goto fail;
		st->zone_count++;
	}
	/* Cloud DNS's limits, so that the engine batches here as it would there. */
	p->limits.max_additions = 1000;
	p->limits.max_deletions = 1000;
	p->limits.max_rdata_bytes = 100000;
	*out = p;
	return 0;
fail:
	dnsb_provider_free(p);
	return rc;
}

static memory_state *state_of(dnsb_provider *p)
{
	return p->ops == &memory_ops ? p->state : NULL;
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
	int rc;

	if (z < 0)
		return DNSB_ENOTFOUND;
	pthread_mutex_lock(&st->lock);
	rc = dnsb_store_put(st->stores[z], rrset);
	pthread_mutex_unlock(&st->lock);
	return rc;
}

void dnsb_memory_set_hints(dnsb_provider *p, int on)
{
	memory_state *st = state_of(p);

	if (st == NULL)
		return;
	st->hints = on;
	p->limits.names_culprit = on;
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

/* --provider memory: memory-zone APEX..., memory-zonefile APEX=PATH..., memory-faults, memory-hints. */
static int memory_open(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err)
{
	const char *zones[64], *v;
	char *specs[64];
	size_t n = 0, it = 0, nspec = 0;
	int rc;

	while ((v = dnsb_config_next(cfg, "memory-zone", &it)) != NULL && n < 64)
		zones[n++] = v;
	it = 0;
	while ((v = dnsb_config_next(cfg, "memory-zonefile", &it)) != NULL && n < 64) {
		const char *eq = strchr(v, '=');
		if (eq == NULL || eq == v || eq[1] == '\0') {
			rc = dnsb_error_set(err, DNSB_EINVAL, "--memory-zonefile: expected ZONE=PATH, got '%s'", v);
			goto done;
		}
		if ((specs[nspec] = strndup(v, (size_t)(eq - v))) == NULL) {
			rc = DNSB_ENOMEM;
			goto done;
		}
		zones[n++] = specs[nspec++];
	}
	if (n == 0) {
		rc = dnsb_error_set(err, DNSB_EINVAL, "--provider memory needs --memory-zone APEX or --memory-zonefile ZONE=PATH");
		goto done;
	}
	if ((rc = dnsb_memory_new(out, zones, n, dnsb_config_get(cfg, "memory-faults"), err)) < 0)
		goto done;
	dnsb_memory_set_hints(*out, dnsb_config_flag(cfg, "memory-hints"));
	it = 0;
	for (size_t i = 0; (v = dnsb_config_next(cfg, "memory-zonefile", &it)) != NULL; i++) {
		if ((rc = dnsb_memory_load(*out, specs[i], strchr(v, '=') + 1, err)) < 0) {
			dnsb_provider_free(*out);
			*out = NULL;
			break;
		}
	}
done:
	for (size_t i = 0; i < nspec; i++)
		free(specs[i]);
	return rc;
}

static const dnsb_provider_flag memory_flags[] = {
	{ "memory-zone", 1, "APEX: a zone held in memory, empty at start (repeatable)" },
	{ "memory-zonefile", 1, "ZONE=PATH: a zone held in memory, loaded from a zone file (repeatable)" },
	{ "memory-faults", 1, "SCRIPT: fault script, e.g. '2:commit-transient,p0.1:transient,seed=7' (see below)" },
	{ "memory-hints", 0, "error replies name the failing change" },
	{ NULL, 0, NULL }
};

const dnsb_backend dnsb_backend_memory = {
	"memory", "in-process zones for tests and benchmarks, with a deterministic fault script",
	memory_flags, memory_open
};
