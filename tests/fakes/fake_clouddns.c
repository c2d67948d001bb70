/*
 * fake_clouddns.c - a Cloud DNS v1 server for tests, over HTTPS
 * (libmicrohttpd with a certificate made at test time), behaving as the
 * documented API does (../shared/reference/provider-apis.md):
 *
 *   GET  /dns/v1/projects/P                                   projects.get (quotas)
 *   GET  /dns/v1/projects/P/managedZones                      managedZones.list (paginated)
 *   GET  /dns/v1/projects/P/managedZones/Z/rrsets             rrsets.list (paginated; name, type)
 *   POST /dns/v1/projects/P/managedZones/Z/changes            changes.create, atomic
 *   GET  /dns/v1/projects/P/managedZones/Z/changes/ID         changes.get
 *   POST /token                                               JWT bearer grant, RS256 verified
 *   GET  /computeMetadata/v1/instance/service-accounts/default/token   (Metadata-Flavor: Google)
 *   GET  /_fake/stats, GET /_fake/zone/Z                      for the tests: counters, a zone's RRsets
 *
 * changes.create checks, in order: per-change quotas (403 quotaExceeded),
 * each entry's data (400 invalid), deletions (404 notFound when missing, 412
 * conditionNotMet when the TTL or data differ), additions (409 alreadyExists),
 * the CNAME rule on the result (400 cnameResourceRecordSetConflict); each
 * reply lists every failing entry of its kind as entity.change.additions[i]
 * or deletions[i]. Then everything is applied at once.
 *
 * Faults are scripted (--faults): TARGET:WHEN:ACTION[=ARG], comma-separated.
 *   TARGET  create, list, zones, project, get, token, metadata, any
 *   WHEN    N, N-M, N- or * (the Nth request of that target, from 1)
 *   ACTION  latency=S; 500, 502, 503 (before anything is done); commit-502
 *           (the change is applied, the answer is a 502 page); 429[=S] (with
 *           Retry-After: S seconds, or =date:S for an HTTP-date); 403-rate;
 *           403-quota; 403-forbidden; 413; 401; reset (the connection is
 *           closed without an answer)
 *
 * TCP connections that carry API requests are counted (/_fake/stats
 * "connections"); the tests' own /_fake requests are not.
 *
 * usage: fake_clouddns --port-file FILE (--cert PEM --key PEM | --plain) [options]; see usage().
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <ldns/ldns.h>
#include <microhttpd.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

#include "dnsbatch/change.h"

#define BODY_MAX (16u << 20)

/* ---- state ---- */

typedef struct zone {
	char *name;        /* managed zone name */
	char *dns_name;    /* absolute, lower-case */
	dnsb_rrset *sets;
	size_t count, cap;
	json_object *changes; /* array of Change objects; id = index */
} zone;

enum target { T_CREATE, T_LIST, T_ZONES, T_PROJECT, T_GET, T_TOKEN, T_METADATA, T_ANY, T_COUNT };
static const char *const target_names[T_COUNT] = { "create", "list", "zones", "project", "get", "token", "metadata", "any" };

enum action {
	A_LATENCY, A_500, A_502, A_503, A_COMMIT_502, A_429, A_403_RATE, A_403_QUOTA, A_403_FORBIDDEN, A_413, A_401, A_RESET
};

typedef struct rule {
	int target;
	unsigned long first, last; /* last 0: no end */
	int action;
	double arg;                /* seconds */
	int date;                  /* 429: Retry-After as an HTTP-date */
} rule;

typedef struct token {
	char value[64];
	double issued;             /* monotonic */
} token;

static struct fake {
	pthread_mutex_t lock;
	const char *project;
	zone *zones;
	size_t zone_count;
	size_t page_size;
	double latency;
	rule *rules;
	size_t rule_count;
	unsigned long counts[T_COUNT];
	unsigned long connections, commits, unauthorized, faults, tokens_issued, jwt_refused;
	const char *static_token;
	EVP_PKEY *pubkey;
	const char *client_email;
	char token_uri[256];         /* the JWT's audience: --token-uri, else our own https://127.0.0.1:PORT/token */
	double token_expires_in, token_lifetime;
	token *tokens;
	size_t token_count;
	size_t quota_add, quota_del, quota_rdata;
	size_t enforce_add, enforce_del, enforce_rdata;
	char **invalid_owners;
	size_t invalid_count;
	FILE *log;
} F = { .lock = PTHREAD_MUTEX_INITIALIZER, .project = "test-project", .page_size = 100,
	.token_expires_in = 3600, .token_lifetime = -1, .quota_add = 1000, .quota_del = 1000, .quota_rdata = 100000 };

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_for(double s)
{
	struct timespec ts;

	if (!(s > 0))
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("fake_clouddns: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* ---- zones ---- */

static zone *zone_by_name(const char *name)
{
	for (size_t i = 0; i < F.zone_count; i++)
		if (strcmp(F.zones[i].name, name) == 0)
			return &F.zones[i];
	return NULL;
}

static long set_find(const zone *z, const char *owner, uint16_t type)
{
	for (size_t i = 0; i < z->count; i++)
		if (z->sets[i].type == type && strcmp(z->sets[i].owner, owner) == 0)
			return (long)i;
	return -1;
}

static void set_push(zone *z, dnsb_rrset *s)
{
	if (z->count == z->cap) {
		z->cap = z->cap ? z->cap * 2 : 64;
		if ((z->sets = realloc(z->sets, z->cap * sizeof(*z->sets))) == NULL)
			die("out of memory");
	}
	z->sets[z->count++] = *s;
	memset(s, 0, sizeof(*s));
}

/* Add one record to the zone, merging into its RRset. The RDATA is made canonical when the type allows. */
static void zone_add_record(zone *z, const char *owner, uint16_t type, uint32_t ttl, const char *rdata)
{
	char *canon = NULL;
	long i = set_find(z, owner, type);
	dnsb_rrset fresh = { 0 };

	if (dnsb_rdata_canonical(&canon, type, rdata, NULL) != 0 && (canon = strdup(rdata)) == NULL)
		die("out of memory");
	if (i < 0) {
		fresh.owner = strdup(owner);
		fresh.type = type;
		set_push(z, &fresh);
		i = (long)z->count - 1;
	}
	z->sets[i].ttl = ttl;
	dnsb_rrset_add_rdata(&z->sets[i], canon);
	free(canon);
}

static void add_zone(const char *spec)
{
	const char *eq = strchr(spec, '=');
	zone z = { 0 };
	char ns[64];

	if (eq == NULL)
		die("--zone %s: expected NAME=DNSNAME", spec);
	z.name = strndup(spec, (size_t)(eq - spec));
	if (dnsb_name_canonical(&z.dns_name, eq + 1, NULL) != 0)
		die("--zone %s: bad DNS name", spec);
	z.changes = json_object_new_array();
	/* What Cloud DNS creates with every zone. */
	zone_add_record(&z, z.dns_name, LDNS_RR_TYPE_SOA, 21600,
			"ns-cloud-a1.googledomains.com. cloud-dns-hostmaster.google.com. 1 21600 3600 259200 300");
	for (int i = 1; i <= 4; i++) {
		snprintf(ns, sizeof(ns), "ns-cloud-a%d.googledomains.com.", i);
		zone_add_record(&z, z.dns_name, LDNS_RR_TYPE_NS, 21600, ns);
	}
	if ((F.zones = realloc(F.zones, (F.zone_count + 1) * sizeof(zone))) == NULL)
		die("out of memory");
	F.zones[F.zone_count++] = z;
}

/* --records FILE: lines "ZONENAME OWNER TTL TYPE RDATA..." ('#' comments). */
static void load_records(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	unsigned n = 0;

	if (f == NULL)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char zname[128], owner[300], type[24], *canon_owner = NULL;
		unsigned ttl;
		int off = 0;
		zone *z;
		uint16_t code;

		n++;
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '#' || strspn(line, " \t") == strlen(line))
			continue;
		if (sscanf(line, "%127s %299s %u %23s %n", zname, owner, &ttl, type, &off) != 4 || off == 0)
			die("%s:%u: expected ZONENAME OWNER TTL TYPE RDATA", path, n);
		if ((z = zone_by_name(zname)) == NULL)
			die("%s:%u: no zone %s (give --zone before --records)", path, n, zname);
		if ((code = (uint16_t)ldns_get_rr_type_by_name(type)) == 0 ||
		    dnsb_name_canonical(&canon_owner, owner, NULL) != 0)
			die("%s:%u: bad owner or type", path, n);
		zone_add_record(z, canon_owner, code, ttl, line + off);
		free(canon_owner);
	}
	fclose(f);
}

/* ---- faults ---- */

static int parse_action(rule *r, const char *a)
{
	static const struct {
		const char *name;
		int action;
	} names[] = { { "500", A_500 }, { "502", A_502 }, { "503", A_503 }, { "commit-502", A_COMMIT_502 },
		      { "429", A_429 }, { "403-rate", A_403_RATE }, { "403-quota", A_403_QUOTA },
		      { "403-forbidden", A_403_FORBIDDEN }, { "413", A_413 }, { "401", A_401 }, { "reset", A_RESET },
		      { "latency", A_LATENCY } };
	const char *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);

	r->arg = -1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].name) != len || strncmp(names[i].name, a, len) != 0)
			continue;
		r->action = names[i].action;
		if (eq && strncmp(eq + 1, "date:", 5) == 0) {
			r->date = 1;
			eq += 5;
		}
		if (eq)
			r->arg = strtod(eq + 1, NULL);
		return r->action == A_LATENCY && r->arg < 0 ? -1 : 0;
	}
	return -1;
}

/* N, N-M, N- or *. @return 0 or -1 */
static int parse_when(rule *r, const char *when)
{
	char *end;

	if (strcmp(when, "*") == 0) {
		r->first = 1;
		return 0;
	}
	r->first = r->last = strtoul(when, &end, 10);
	if (*end == '-') {
		r->last = end[1] ? strtoul(end + 1, &end, 10) : 0;
		if (r->last == 0)
			end++;
	}
	return r->first == 0 || *end != '\0' || (r->last && r->last < r->first) ? -1 : 0;
}

static void parse_faults(const char *script)
{
	char *copy = strdup(script), *save = NULL;

	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *when = strchr(item, ':'), *act = when ? strchr(when + 1, ':') : NULL;
		rule r = { 0 };
		size_t t;

		if (act == NULL)
			die("--faults %s: expected TARGET:WHEN:ACTION", item);
		*when++ = '\0';
		*act++ = '\0';
		for (t = 0; t < T_COUNT && strcmp(target_names[t], item) != 0; t++)
			;
		if (t == T_COUNT)
			die("--faults: unknown target %s", item);
		r.target = (int)t;
		if (parse_when(&r, when) != 0)
			die("--faults: bad WHEN %s", when);
		if (parse_action(&r, act) != 0)
			die("--faults: bad ACTION %s", act);
		if ((F.rules = realloc(F.rules, (F.rule_count + 1) * sizeof(rule))) == NULL)
			die("out of memory");
		F.rules[F.rule_count++] = r;
	}
	free(copy);
}

static int rule_hits(const rule *r, unsigned long n)
{
	return n >= r->first && (r->last == 0 || n <= r->last);
}

/* Count a request of target t; its latency (summed) and first other fault. Lock held. */
static const rule *faults_for(int t, double *latency)
{
	unsigned long nt = ++F.counts[t], nany = ++F.counts[T_ANY];
	const rule *hit = NULL;

	*latency = F.latency;
	for (size_t i = 0; i < F.rule_count; i++) {
		const rule *r = &F.rules[i];
		if (!((r->target == t && rule_hits(r, nt)) || (r->target == T_ANY && rule_hits(r, nany))))
			continue;
		if (r->action == A_LATENCY)
			*latency += r->arg;
		else if (hit == NULL)
			hit = r;
	}
	if (hit)
		F.faults++;
	return hit;
}

/* ---- replies ---- */

typedef struct reply {
	unsigned status;
	char *body;
	const char *ctype;
	char retry_after[64];
	int reset;
} reply;

static void reply_json(reply *r, unsigned status, json_object *doc)
{
	r->status = status;
	r->body = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	r->ctype = "application/json; charset=UTF-8";
	json_object_put(doc);
}

static void reply_text(reply *r, unsigned status, const char *ctype, const char *text)
{
	r->status = status;
	r->body = strdup(text);
	r->ctype = ctype;
}

static const char *status_name(unsigned status)
{
	switch (status) {
	case 400: return "INVALID_ARGUMENT";
	case 401: return "UNAUTHENTICATED";
	case 403: return "PERMISSION_DENIED";
	case 404: return "NOT_FOUND";
	case 409: return "ALREADY_EXISTS";
	case 412: return "FAILED_PRECONDITION";
	case 413: return "OUT_OF_RANGE";
	case 429: return "RESOURCE_EXHAUSTED";
	case 503: return "UNAVAILABLE";
	default: return "UNKNOWN";
	}
}

/* The API's error object, errors[] accumulated one entry at a time. */
typedef struct api_error {
	unsigned status;
	json_object *errors;
	char first[512];
} api_error;

static void api_error_add(api_error *e, const char *reason, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void api_error_add(api_error *e, const char *reason, const char *fmt, ...)
{
	json_object *entry = json_object_new_object();
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (e->errors == NULL)
		e->errors = json_object_new_array();
	if (json_object_array_length(e->errors) == 0)
		snprintf(e->first, sizeof(e->first), "%s", msg);
	json_object_object_add(entry, "message", json_object_new_string(msg));
	json_object_object_add(entry, "domain", json_object_new_string("global"));
	json_object_object_add(entry, "reason", json_object_new_string(reason));
	json_object_array_add(e->errors, entry);
}

static void reply_api_error(reply *r, api_error *e)
{
	json_object *doc = json_object_new_object(), *err = json_object_new_object();

	json_object_object_add(err, "code", json_object_new_int((int)e->status));
	json_object_object_add(err, "message", json_object_new_string(e->first));
	json_object_object_add(err, "errors", e->errors);
	json_object_object_add(err, "status", json_object_new_string(status_name(e->status)));
	json_object_object_add(doc, "error", err);
	e->errors = NULL;
	reply_json(r, e->status, doc);
}

static void reply_error(reply *r, unsigned status, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void reply_error(reply *r, unsigned status, const char *reason, const char *fmt, ...)
{
	api_error e = { status, NULL, "" };
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	api_error_add(&e, reason, "%s", msg);
	reply_api_error(r, &e);
}

static void reply_bad_gateway(reply *r)
{
	reply_text(r, 502, "text/html; charset=UTF-8",
		   "<!DOCTYPE html>\n<html lang=en><title>Error 502 (Server Error)!!1</title>"
		   "<p><b>502.</b> <ins>That's an error.</ins><p>The server encountered a temporary error. "
		   "<ins>That's all we know.</ins></html>\n");
}

/* The reply a scripted fault gives before anything is done (0 when it gives none). */
static int fault_reply(reply *r, const rule *f)
{
	switch (f->action) {
	case A_500:
		reply_error(r, 500, "internalError", "Internal Error");
		return 1;
	case A_502:
		reply_bad_gateway(r);
		return 1;
	case A_503:
		reply_error(r, 503, "backendError", "The service is currently unavailable.");
		return 1;
	case A_429:
		reply_error(r, 429, "rateLimitExceeded", "Resource has been exhausted (e.g. check quota).");
		if (f->date) {
			time_t when = time(NULL) + (time_t)ceil(f->arg);
			struct tm tm;
			strftime(r->retry_after, sizeof(r->retry_after), "%a, %d %b %Y %H:%M:%S GMT", gmtime_r(&when, &tm));
		} else {
			snprintf(r->retry_after, sizeof(r->retry_after), "%.0f", f->arg >= 0 ? f->arg : 1);
		}
		return 1;
	case A_403_RATE:
		reply_error(r, 403, "rateLimitExceeded", "Rate Limit Exceeded");
		return 1;
	case A_403_QUOTA:
		reply_error(r, 403, "quotaExceeded", "The change would exceed quota for additions per change.");
		return 1;
	case A_403_FORBIDDEN:
		reply_error(r, 403, "forbidden", "Forbidden");
		return 1;
	case A_413:
		reply_text(r, 413, "text/html; charset=UTF-8", "<html><title>413 Request Entity Too Large</title></html>\n");
		return 1;
	case A_401:
		reply_error(r, 401, "authError", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.");
		return 1;
	case A_RESET:
		r->reset = 1;
		return 1;
	default:
		return 0;
	}
}

/* ---- RRsets as JSON ---- */

static json_object *rrset_json(const dnsb_rrset *s)
{
	json_object *o = json_object_new_object(), *rd = json_object_new_array();

	json_object_object_add(o, "kind", json_object_new_string("dns#resourceRecordSet"));
	json_object_object_add(o, "name", json_object_new_string(s->owner));
	json_object_object_add(o, "type", json_object_new_string(dnsb_type_name(s->type)));
	json_object_object_add(o, "ttl", json_object_new_int64(s->ttl));
	for (size_t i = 0; i < s->rdata_count; i++)
		json_object_array_add(rd, json_object_new_string(s->rdata[i]));
	json_object_object_add(o, "rrdatas", rd);
	return o;
}

static int set_order(const void *a, const void *b)
{
	const dnsb_rrset *x = *(dnsb_rrset *const *)a, *y = *(dnsb_rrset *const *)b;
	int c = strcmp(x->owner, y->owner);

	return c ? c : (int)x->type - (int)y->type;
}

/* ---- tokens ---- */

static void issue_token(reply *r)
{
	unsigned char raw[16];
	token t = { "", mono() };
	json_object *doc = json_object_new_object();

	RAND_bytes(raw, sizeof(raw));
	strcpy(t.value, "ya29.fake-");
	for (size_t i = 0; i < sizeof(raw); i++)
		sprintf(t.value + strlen(t.value), "%02x", raw[i]);
	if ((F.tokens = realloc(F.tokens, (F.token_count + 1) * sizeof(token))) == NULL)
		die("out of memory");
	F.tokens[F.token_count++] = t;
	F.tokens_issued++;
	json_object_object_add(doc, "access_token", json_object_new_string(t.value));
	json_object_object_add(doc, "expires_in", json_object_new_int((int)F.token_expires_in));
	json_object_object_add(doc, "token_type", json_object_new_string("Bearer"));
	reply_json(r, 200, doc);
}

static int token_valid(const char *authz)
{
	double lifetime = F.token_lifetime >= 0 ? F.token_lifetime : F.token_expires_in;

	if (authz == NULL || strncmp(authz, "Bearer ", 7) != 0)
		return 0;
	authz += 7;
	if (F.static_token && strcmp(authz, F.static_token) == 0)
		return 1;
	for (size_t i = 0; i < F.token_count; i++)
		if (strcmp(F.tokens[i].value, authz) == 0)
			return mono() - F.tokens[i].issued < lifetime;
	return 0;
}

/* base64url (no padding) to bytes, through OpenSSL's decoder. @return length, or -1 */
static int b64url_decode(unsigned char *out, size_t cap, const char *in, size_t len)
{
	char *std = malloc(len + 4);
	size_t n = len;
	int got, pad;

	if (std == NULL || (len + 3) / 4 * 3 > cap) {
		free(std);
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		std[i] = in[i] == '-' ? '+' : in[i] == '_' ? '/' : in[i];
	while (n % 4)
		std[n++] = '=';
	pad = (int)(n - len);
	got = EVP_DecodeBlock(out, (const unsigned char *)std, (int)n);
	free(std);
	return got < 0 ? -1 : got - pad;
}

/* The claims of a JWT whose signature verified: issuer, scope, audience, times. @return NULL or why not */
static const char *claims_check(json_object *c)
{
	json_object *iss, *scope, *aud, *iat, *exp;
	time_t now = time(NULL);

	if (!json_object_object_get_ex(c, "iss", &iss) || !json_object_object_get_ex(c, "scope", &scope) ||
	    !json_object_object_get_ex(c, "aud", &aud) || !json_object_object_get_ex(c, "iat", &iat) ||
	    !json_object_object_get_ex(c, "exp", &exp))
		return "Invalid JWT: a claim is missing (iss, scope, aud, iat, exp)";
	if (F.client_email && strcmp(json_object_get_string(iss), F.client_email) != 0)
		return "Invalid JWT: iss is not the service account";
	if (strstr(json_object_get_string(scope), "ndev.clouddns.readwrite") == NULL)
		return "Invalid JWT: scope";
	if (strcmp(json_object_get_string(aud), F.token_uri) != 0)
		return "Invalid JWT: aud is not the token URI";
	if (json_object_get_int64(exp) <= now || json_object_get_int64(exp) - json_object_get_int64(iat) > 3600 ||
	    json_object_get_int64(iat) > now + 60)
		return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.";
	return NULL;
}

/* Check a JWT bearer assertion: RS256 signature by the service account's key, then its claims. @return NULL or why not */
static const char *jwt_check(const char *jwt)
{
	const char *dot1 = strchr(jwt, '.'), *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL, *why;
	unsigned char head[1024], claims[2048], sig[1024];
	int hl, cl, sl, ok;
	EVP_MD_CTX *md;
	json_object *h, *c, *alg;

	if (dot2 == NULL || strchr(dot2 + 1, '.'))
		return "Invalid JWT: not three parts";
	hl = b64url_decode(head, sizeof(head) - 1, jwt, (size_t)(dot1 - jwt));
	cl = b64url_decode(claims, sizeof(claims) - 1, dot1 + 1, (size_t)(dot2 - dot1 - 1));
	sl = b64url_decode(sig, sizeof(sig), dot2 + 1, strlen(dot2 + 1));
	if (hl < 0 || cl < 0 || sl <= 0)
		return "Invalid JWT: bad base64url";
	head[hl] = claims[cl] = '\0';
	md = EVP_MD_CTX_new();
	ok = F.pubkey && EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, F.pubkey) == 1 &&
	     EVP_DigestVerify(md, sig, (size_t)sl, (const unsigned char *)jwt, (size_t)(dot2 - jwt)) == 1;
	EVP_MD_CTX_free(md);
	if (!ok)
		return "Invalid JWT Signature.";
	h = json_tokener_parse((char *)head);
	c = json_tokener_parse((char *)claims);
	if (h == NULL || c == NULL || !json_object_object_get_ex(h, "alg", &alg) ||
	    strcmp(json_object_get_string(alg), "RS256") != 0)
		why = "Invalid JWT: header";
	else
		why = claims_check(c);
	json_object_put(h);
	json_object_put(c);
	return why;
}

/* ---- requests ---- */

typedef struct request {
	char *body;
	size_t len;
	int too_large;
	char grant_type[128];
	char *assertion;
	size_t assertion_len;
	double arrived;  /* monotonic seconds its headers came in (--log) */
} request;

typedef struct conn_state {
	int counted; /* carried an API request: counted once */
} conn_state;

static enum MHD_Result on_form(void *cls, enum MHD_ValueKind kind, const char *key, const char *filename,
			       const char *ctype, const char *encoding, const char *data, uint64_t off, size_t size)
{
	request *q = cls;

	(void)kind, (void)filename, (void)ctype, (void)encoding;
	if (strcmp(key, "grant_type") == 0 && off + size < sizeof(q->grant_type)) {
		memcpy(q->grant_type + off, data, size);
		q->grant_type[off + size] = '\0';
	} else if (strcmp(key, "assertion") == 0 && off + size < 65536) {
		q->assertion = realloc(q->assertion, off + size + 1);
		memcpy(q->assertion + off, data, size);
		q->assertion[off + size] = '\0';
		q->assertion_len = off + size;
	}
	return MHD_YES;
}

static void handle_token(struct MHD_Connection *conn, request *q, reply *r)
{
	struct MHD_PostProcessor *pp = MHD_create_post_processor(conn, 4096, on_form, q);
	json_object *doc;
	const char *why = "no assertion";

	if (pp == NULL) {
		reply_text(r, 400, "application/json", "{\"error\":\"invalid_request\",\"error_description\":\"not a form\"}");
		return;
	}
	MHD_post_process(pp, q->body ? q->body : "", q->len);
	MHD_destroy_post_processor(pp);
	doc = json_object_new_object();
	if (strcmp(q->grant_type, "urn:ietf:params:oauth:grant-type:jwt-bearer") != 0) {
		json_object_object_add(doc, "error", json_object_new_string("unsupported_grant_type"));
		json_object_object_add(doc, "error_description", json_object_new_string("Invalid grant_type"));
		reply_json(r, 400, doc);
	} else if (q->assertion == NULL || (why = jwt_check(q->assertion)) != NULL) {
		F.jwt_refused++;
		json_object_object_add(doc, "error", json_object_new_string("invalid_grant"));
		json_object_object_add(doc, "error_description", json_object_new_string(why));
		reply_json(r, 400, doc);
	} else {
		json_object_put(doc);
		issue_token(r);
	}
}

static void handle_metadata(struct MHD_Connection *conn, reply *r)
{
	const char *flavor = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Metadata-Flavor");

	if (flavor == NULL || strcmp(flavor, "Google") != 0)
		reply_text(r, 403, "text/html", "Missing Metadata-Flavor:Google header.\n");
	else
		issue_token(r);
}

static void handle_project(reply *r)
{
	json_object *doc = json_object_new_object(), *q = json_object_new_object();

	json_object_object_add(q, "kind", json_object_new_string("dns#quota"));
	json_object_object_add(q, "managedZones", json_object_new_int(10000));
	json_object_object_add(q, "rrsetsPerManagedZone", json_object_new_int(10000));
	json_object_object_add(q, "rrsetAdditionsPerChange", json_object_new_int((int)F.quota_add));
	json_object_object_add(q, "rrsetDeletionsPerChange", json_object_new_int((int)F.quota_del));
	json_object_object_add(q, "totalRrdataSizePerChange", json_object_new_int((int)F.quota_rdata));
	json_object_object_add(q, "resourceRecordsPerRrset", json_object_new_int(100));
	json_object_object_add(doc, "kind", json_object_new_string("dns#project"));
	json_object_object_add(doc, "id", json_object_new_string(F.project));
	json_object_object_add(doc, "number", json_object_new_string("123456789012"));
	json_object_object_add(doc, "quota", q);
	reply_json(r, 200, doc);
}

/* Page bounds from maxResults and pageToken (an offset, opaque to clients). */
static void page_bounds(struct MHD_Connection *conn, size_t total, size_t *from, size_t *to)
{
	const char *max = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "maxResults");
	const char *tok = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "pageToken");
	size_t size = F.page_size;

	if (max && strtoul(max, NULL, 10) > 0 && strtoul(max, NULL, 10) < size)
		size = strtoul(max, NULL, 10);
	*from = tok ? strtoul(tok, NULL, 10) : 0;
	if (*from > total)
		*from = total;
	*to = *from + size < total ? *from + size : total;
}

static void add_next_page(json_object *doc, size_t to, size_t total)
{
	char next[32];

	if (to < total) {
		snprintf(next, sizeof(next), "%zu", to);
		json_object_object_add(doc, "nextPageToken", json_object_new_string(next));
	}
}

static void handle_zones(struct MHD_Connection *conn, reply *r)
{
	const char *dns = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "dnsName");
	json_object *doc = json_object_new_object(), *list = json_object_new_array();
	zone **match = calloc(F.zone_count + 1, sizeof(zone *));
	size_t n = 0, from, to;

	for (size_t i = 0; i < F.zone_count; i++)
		if (dns == NULL || strcasecmp(dns, F.zones[i].dns_name) == 0)
			match[n++] = &F.zones[i];
	page_bounds(conn, n, &from, &to);
	for (size_t i = from; i < to; i++) {
		json_object *z = json_object_new_object();
		json_object_object_add(z, "kind", json_object_new_string("dns#managedZone"));
		json_object_object_add(z, "name", json_object_new_string(match[i]->name));
		json_object_object_add(z, "dnsName", json_object_new_string(match[i]->dns_name));
		json_object_object_add(z, "visibility", json_object_new_string("public"));
		json_object_array_add(list, z);
	}
	json_object_object_add(doc, "managedZones", list);
	add_next_page(doc, to, n);
	free(match);
	reply_json(r, 200, doc);
}

static void handle_rrsets(struct MHD_Connection *conn, zone *z, reply *r)
{
	const char *name = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "name");
	const char *type = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "type");
	json_object *doc, *list;
	dnsb_rrset **match;
	uint16_t code = type ? (uint16_t)ldns_get_rr_type_by_name(type) : 0;
	size_t n = 0, from, to;

	if (type && name == NULL) {
		reply_error(r, 400, "invalid", "Invalid value for 'type': a type requires a name");
		return;
	}
	match = calloc(z->count + 1, sizeof(*match));
	for (size_t i = 0; i < z->count; i++)
		if ((name == NULL || strcasecmp(name, z->sets[i].owner) == 0) && (type == NULL || code == z->sets[i].type))
			match[n++] = &z->sets[i];
	qsort(match, n, sizeof(*match), set_order);
	page_bounds(conn, n, &from, &to);
	doc = json_object_new_object();
	list = json_object_new_array();
	for (size_t i = from; i < to; i++)
		json_object_array_add(list, rrset_json(match[i]));
	json_object_object_add(doc, "kind", json_object_new_string("dns#resourceRecordSetsListResponse"));
	json_object_object_add(doc, "rrsets", list);
	add_next_page(doc, to, n);
	free(match);
	reply_json(r, 200, doc);
}

/* ---- changes.create ---- */

typedef struct entry {
	dnsb_rrset set;
	json_object *json;  /* as sent, borrowed */
} entry;

static int owner_invalid(const char *owner)
{
	for (size_t i = 0; i < F.invalid_count; i++)
		if (strcmp(F.invalid_owners[i], owner) == 0)
			return 1;
	return 0;
}

/* One ResourceRecordSet of the body into e; a problem adds an "invalid" error naming list[i]. */
static void parse_entry(zone *z, json_object *o, const char *list, size_t i, entry *e, api_error *bad, int addition)
{
	json_object *name, *type, *ttl, *rd;

	memset(&e->set, 0, sizeof(e->set));
	e->json = o;
	if (!json_object_object_get_ex(o, "name", &name) || !json_object_object_get_ex(o, "type", &type) ||
	    dnsb_name_canonical(&e->set.owner, json_object_get_string(name), NULL) != 0 ||
	    !dnsb_name_in_zone(e->set.owner, z->dns_name)) {
		api_error_add(bad, "invalid", "Invalid value for 'entity.change.%s[%zu].name': '%s'", list, i,
			      json_object_object_get_ex(o, "name", &name) ? json_object_get_string(name) : "");
		return;
	}
	if ((e->set.type = (uint16_t)ldns_get_rr_type_by_name(json_object_get_string(type))) == 0) {
		api_error_add(bad, "invalid", "Invalid value for 'entity.change.%s[%zu].type': '%s'", list, i,
			      json_object_get_string(type));
		return;
	}
	if (!json_object_object_get_ex(o, "ttl", &ttl) || json_object_get_int64(ttl) < 0 ||
	    json_object_get_int64(ttl) > 2147483647) {
		api_error_add(bad, "invalid", "Invalid value for 'entity.change.%s[%zu].ttl'", list, i);
		return;
	}
	e->set.ttl = (uint32_t)json_object_get_int64(ttl);
	if (!json_object_object_get_ex(o, "rrdatas", &rd) || !json_object_is_type(rd, json_type_array) ||
	    json_object_array_length(rd) == 0) {
		api_error_add(bad, "required", "Required field 'entity.change.%s[%zu].rrdata' not specified", list, i);
		return;
	}
	for (size_t j = 0; j < json_object_array_length(rd); j++) {
		const char *v = json_object_get_string(json_object_array_get_idx(rd, j));
		char *canon = NULL;
		if (dnsb_rdata_canonical(&canon, e->set.type, v ? v : "", NULL) != 0 ||
		    (addition && owner_invalid(e->set.owner))) {
			free(canon);
			if (addition) {
				api_error_add(bad, "invalid", "Invalid value for 'entity.change.%s[%zu].rrdata[%zu]': '%s'",
					      list, i, j, v ? v : "");
				return;
			}
			canon = strdup(v ? v : ""); /* a deletion that cannot match anything */
		}
		dnsb_rrset_add_rdata(&e->set, canon);
		free(canon);
	}
}

static void entries_clear(entry *es, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dnsb_rrset_clear(&es[i].set);
	free(es);
}

static entry *parse_list(zone *z, json_object *body, const char *list, size_t *n, api_error *bad, int addition)
{
	json_object *arr;
	entry *es;

	*n = json_object_object_get_ex(body, list, &arr) && json_object_is_type(arr, json_type_array) ?
		     json_object_array_length(arr) : 0;
	es = calloc(*n + 1, sizeof(entry));
	for (size_t i = 0; i < *n; i++)
		parse_entry(z, json_object_array_get_idx(arr, i), list, i, &es[i], bad, addition);
	return es;
}

static size_t rdata_size(const entry *es, size_t n)
{
	size_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += dnsb_rrset_rdata_bytes(&es[i].set);
	return s;
}

/* Per-change quotas. @return 1 when a reply was made */
static int check_quotas(reply *r, const entry *adds, size_t na, const entry *dels, size_t nd)
{
	if (F.enforce_add && na > F.enforce_add)
		reply_error(r, 403, "quotaExceeded", "The change would exceed quota for additions per change.");
	else if (F.enforce_del && nd > F.enforce_del)
		reply_error(r, 403, "quotaExceeded", "The change would exceed quota for deletions per change.");
	else if (F.enforce_rdata && rdata_size(adds, na) + rdata_size(dels, nd) > F.enforce_rdata)
		reply_error(r, 403, "quotaExceeded", "The change would exceed quota for total rrdata size per change.");
	else
		return 0;
	return 1;
}

static const char *type_name(uint16_t t)
{
	return dnsb_type_name(t);
}

/* Deletions: 404 for every missing RRset, else 412 for every one that differs. @return 1 when a reply was made */
static int check_deletions(reply *r, zone *z, const entry *dels, size_t nd, char *gone)
{
	api_error missing = { 404, NULL, "" }, stale = { 412, NULL, "" };

	for (size_t i = 0; i < nd; i++) {
		long k = set_find(z, dels[i].set.owner, dels[i].set.type);
		if (k < 0 || gone[k])
			api_error_add(&missing, "notFound", "The 'entity.change.deletions[%zu]' resource named '%s (%s)' does not exist.",
				      i, dels[i].set.owner, type_name(dels[i].set.type));
		else if (!dnsb_rrset_equal(&z->sets[k], &dels[i].set))
			api_error_add(&stale, "conditionNotMet", "Precondition not met for 'entity.change.deletions[%zu]'", i);
		else
			gone[k] = 1;
	}
	if (missing.errors) {
		json_object_put(stale.errors);
		reply_api_error(r, &missing);
		return 1;
	}
	if (stale.errors) {
		reply_api_error(r, &stale);
		return 1;
	}
	return 0;
}

static int check_additions(reply *r, zone *z, const entry *adds, size_t na, const char *gone)
{
	api_error exists = { 409, NULL, "" };

	for (size_t i = 0; i < na; i++) {
		long k = set_find(z, adds[i].set.owner, adds[i].set.type);
		int dup = k >= 0 && !gone[k];
		for (size_t j = 0; j < i && !dup; j++)
			dup = adds[j].set.type == adds[i].set.type && strcmp(adds[j].set.owner, adds[i].set.owner) == 0;
		if (dup)
			api_error_add(&exists, "alreadyExists", "The resource 'entity.change.additions[%zu]' named '%s (%s)' already exists",
				      i, adds[i].set.owner, type_name(adds[i].set.type));
	}
	if (exists.errors) {
		reply_api_error(r, &exists);
		return 1;
	}
	return 0;
}

/* Does the zone after the change hold, at owner, a CNAME (want_cname) or another type, other than entry `self`? */
static int holds_at(const zone *z, const char *gone, const entry *adds, size_t na, size_t self, const char *owner,
		    int want_cname)
{
	for (size_t k = 0; k < z->count; k++)
		if (!gone[k] && strcmp(z->sets[k].owner, owner) == 0 &&
		    (z->sets[k].type == LDNS_RR_TYPE_CNAME) == want_cname)
			return 1;
	for (size_t j = 0; j < na; j++)
		if (j != self && strcmp(adds[j].set.owner, owner) == 0 && (adds[j].set.type == LDNS_RR_TYPE_CNAME) == want_cname)
			return 1;
	return 0;
}

static int check_cnames(reply *r, zone *z, const entry *adds, size_t na, const char *gone)
{
	api_error bad = { 400, NULL, "" };

	for (size_t i = 0; i < na; i++) {
		int cname = adds[i].set.type == LDNS_RR_TYPE_CNAME;
		if (holds_at(z, gone, adds, na, i, adds[i].set.owner, !cname))
			api_error_add(&bad, "cnameResourceRecordSetConflict",
				      "The resource record set 'entity.change.additions[%zu]' is invalid because the DNS name '%s' may have either one CNAME resource record set or resource record sets of other types, but not both.",
				      i, adds[i].set.owner);
	}
	if (bad.errors) {
		reply_api_error(r, &bad);
		return 1;
	}
	return 0;
}

/* Apply: drop the deleted RRsets, add the new ones, record the Change. */
static void commit(zone *z, entry *adds, size_t na, const char *gone, json_object *body, reply *r)
{
	json_object *change = json_object_new_object(), *a, *d;
	size_t keep = 0;
	char id[32], when[64];
	time_t now = time(NULL);
	struct tm tm;

	for (size_t k = 0; k < z->count; k++) {
		if (gone[k])
			dnsb_rrset_clear(&z->sets[k]);
		else
			z->sets[keep++] = z->sets[k];
	}
	z->count = keep;
	for (size_t i = 0; i < na; i++)
		set_push(z, &adds[i].set);
	F.commits++;
	snprintf(id, sizeof(id), "%zu", json_object_array_length(z->changes));
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S.000Z", gmtime_r(&now, &tm));
	json_object_object_add(change, "kind", json_object_new_string("dns#change"));
	json_object_object_add(change, "id", json_object_new_string(id));
	json_object_object_add(change, "status", json_object_new_string("done"));
	json_object_object_add(change, "startTime", json_object_new_string(when));
	a = json_object_object_get_ex(body, "additions", &a) ? json_object_get(a) : json_object_new_array();
	d = json_object_object_get_ex(body, "deletions", &d) ? json_object_get(d) : json_object_new_array();
	json_object_object_add(change, "additions", a);
	json_object_object_add(change, "deletions", d);
	json_object_array_add(z->changes, json_object_get(change));
	reply_json(r, 200, change);
}

static void handle_create(zone *z, request *q, reply *r)
{
	json_object *body = q->body ? json_tokener_parse(q->body) : NULL;
	api_error bad = { 400, NULL, "" };
	entry *adds = NULL, *dels = NULL;
	size_t na = 0, nd = 0;
	char *gone;

	if (body == NULL || !json_object_is_type(body, json_type_object)) {
		json_object_put(body);
		reply_error(r, 400, "parseError", "Parse Error");
		return;
	}
	adds = parse_list(z, body, "additions", &na, &bad, 1);
	dels = parse_list(z, body, "deletions", &nd, &bad, 0);
	gone = calloc(z->count + 1, 1);
	if (na + nd == 0)
		reply_error(r, 400, "required", "The 'entity.change' parameter is required but was missing.");
	else if (!check_quotas(r, adds, na, dels, nd)) {
		if (bad.errors)
			reply_api_error(r, &bad);
		else if (!check_deletions(r, z, dels, nd, gone) && !check_additions(r, z, adds, na, gone) &&
			 !check_cnames(r, z, adds, na, gone))
			commit(z, adds, na, gone, body, r);
	}
	json_object_put(bad.errors);
	free(gone);
	entries_clear(adds, na);
	entries_clear(dels, nd);
	json_object_put(body);
}

static void handle_change_get(zone *z, const char *id, reply *r)
{
	char *end;
	unsigned long i = strtoul(id, &end, 10);

	if (*id == '\0' || *end != '\0' || i >= json_object_array_length(z->changes))
		reply_error(r, 404, "notFound", "The 'parameters.changeId' resource named '%s' does not exist.", id);
	else
		reply_json(r, 200, json_object_get(json_object_array_get_idx(z->changes, i)));
}

/* ---- admin ---- */

static void handle_stats(reply *r)
{
	json_object *doc = json_object_new_object(), *req = json_object_new_object();

	for (int t = 0; t < T_COUNT; t++)
		json_object_object_add(req, target_names[t], json_object_new_int64((int64_t)F.counts[t]));
	json_object_object_add(doc, "connections", json_object_new_int64((int64_t)F.connections));
	json_object_object_add(doc, "requests", req);
	json_object_object_add(doc, "commits", json_object_new_int64((int64_t)F.commits));
	json_object_object_add(doc, "unauthorized", json_object_new_int64((int64_t)F.unauthorized));
	json_object_object_add(doc, "faults", json_object_new_int64((int64_t)F.faults));
	json_object_object_add(doc, "tokens_issued", json_object_new_int64((int64_t)F.tokens_issued));
	json_object_object_add(doc, "jwt_refused", json_object_new_int64((int64_t)F.jwt_refused));
	reply_json(r, 200, doc);
}

static void handle_dump(const char *name, reply *r)
{
	zone *z = zone_by_name(name);
	json_object *doc, *list;
	dnsb_rrset **all;

	if (z == NULL) {
		reply_text(r, 404, "text/plain", "no such zone\n");
		return;
	}
	all = calloc(z->count + 1, sizeof(*all));
	for (size_t i = 0; i < z->count; i++)
		all[i] = &z->sets[i];
	qsort(all, z->count, sizeof(*all), set_order);
	doc = json_object_new_object();
	list = json_object_new_array();
	for (size_t i = 0; i < z->count; i++)
		json_object_array_add(list, rrset_json(all[i]));
	json_object_object_add(doc, "rrsets", list);
	free(all);
	reply_json(r, 200, doc);
}

/* ---- routing ---- */

/* The API path below /dns/v1/projects/: project, zone, what (rrsets, changes, changes/ID). */
typedef struct route {
	int target;     /* -1: not an API path */
	char project[128], zone[128], rest[256];
} route;

static void route_of(const char *method, const char *url, route *rt)
{
	static const char prefix[] = "/dns/v1/projects/";
	int get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;
	char rest[256] = "";

	memset(rt, 0, sizeof(*rt));
	rt->target = -1;
	if (strcmp(url, "/token") == 0 && post) {
		rt->target = T_TOKEN;
		return;
	}
	if (strcmp(url, "/computeMetadata/v1/instance/service-accounts/default/token") == 0 && get) {
		rt->target = T_METADATA;
		return;
	}
	if (strncmp(url, prefix, sizeof(prefix) - 1) != 0)
		return;
	if (sscanf(url + sizeof(prefix) - 1, "%127[^/]/managedZones/%127[^/]/%255s", rt->project, rt->zone, rest) == 3) {
		snprintf(rt->rest, sizeof(rt->rest), "%s", rest);
		if (strcmp(rest, "rrsets") == 0 && get)
			rt->target = T_LIST;
		else if (strcmp(rest, "changes") == 0 && post)
			rt->target = T_CREATE;
		else if (strncmp(rest, "changes/", 8) == 0 && get)
			rt->target = T_GET;
	} else if (sscanf(url + sizeof(prefix) - 1, "%127[^/]/%255s", rt->project, rest) == 2) {
		if (strcmp(rest, "managedZones") == 0 && get)
			rt->target = T_ZONES;
	} else if (sscanf(url + sizeof(prefix) - 1, "%127[^/]", rt->project) == 1 && get &&
		   strchr(url + sizeof(prefix) - 1, '/') == NULL) {
		rt->target = T_PROJECT;
	}
}

/* An API request, authorised. Lock held. */
static void handle_api(struct MHD_Connection *conn, const route *rt, request *q, reply *r)
{
	zone *z = NULL;

	if (!token_valid(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization"))) {
		F.unauthorized++;
		reply_error(r, 401, "authError", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.");
		return;
	}
	if (strcmp(rt->project, F.project) != 0) {
		reply_error(r, 403, "forbidden", "The caller does not have permission");
		return;
	}
	if (rt->target == T_PROJECT) {
		handle_project(r);
		return;
	}
	if (rt->target == T_ZONES) {
		handle_zones(conn, r);
		return;
	}
	if ((z = zone_by_name(rt->zone)) == NULL) {
		reply_error(r, 404, "notFound", "The 'parameters.managedZone' resource named '%s' does not exist.", rt->zone);
		return;
	}
	if (rt->target == T_LIST)
		handle_rrsets(conn, z, r);
	else if (rt->target == T_CREATE)
		handle_create(z, q, r);
	else
		handle_change_get(z, rt->rest + 8, r);
}

/* Count the connection the first time it carries an API request. */
static void count_connection(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	conn_state *cs = info ? info->socket_context : NULL;

	if (cs && !cs->counted) {
		cs->counted = 1;
		F.connections++;
	}
}

static void serve(struct MHD_Connection *conn, const char *method, const char *url, request *q, reply *r)
{
	const rule *fault;
	double latency;
	route rt;

	if (strcmp(url, "/_fake/stats") == 0 || strncmp(url, "/_fake/zone/", 12) == 0) {
		pthread_mutex_lock(&F.lock);
		if (url[7] == 's')
			handle_stats(r);
		else
			handle_dump(url + 12, r);
		pthread_mutex_unlock(&F.lock);
		return;
	}
	route_of(method, url, &rt);
	pthread_mutex_lock(&F.lock);
	count_connection(conn);
	if (rt.target < 0) {
		pthread_mutex_unlock(&F.lock);
		reply_error(r, 404, "notFound", "Not Found");
		return;
	}
	fault = faults_for(rt.target, &latency);
	pthread_mutex_unlock(&F.lock);
	sleep_for(latency);
	if (fault && fault_reply(r, fault))
		return;
	pthread_mutex_lock(&F.lock);
	if (rt.target == T_TOKEN)
		handle_token(conn, q, r);
	else if (rt.target == T_METADATA)
		handle_metadata(conn, r);
	else
		handle_api(conn, &rt, q, r);
	pthread_mutex_unlock(&F.lock);
	if (fault && fault->action == A_COMMIT_502 && r->status == 200) {
		free(r->body);
		reply_bad_gateway(r); /* the change is in; the answer is lost */
	}
}

/* --log: one line per request, with the query's name, a change's entries, the status and when the request came
 * (monotonic seconds: the gap between two requests is the client's wait). */
static void log_request(struct MHD_Connection *conn, const char *method, const char *url, const request *q,
			const reply *r)
{
	const char *name = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "name");
	json_object *body = strcmp(method, "POST") == 0 && q->body && strstr(url, "/changes") ? json_tokener_parse(q->body) : NULL;

	pthread_mutex_lock(&F.lock);
	fprintf(F.log, "%s %s%s%s", method, url, name ? "?name=" : "", name ? name : "");
	for (int k = 0; body && k < 2; k++) {
		json_object *list;
		if (!json_object_object_get_ex(body, k ? "deletions" : "additions", &list))
			continue;
		fprintf(F.log, " %s:", k ? "del" : "add");
		for (size_t i = 0; i < json_object_array_length(list) && i < 8; i++) {
			json_object *o = json_object_array_get_idx(list, i), *v;
			fprintf(F.log, " %s", json_object_object_get_ex(o, "name", &v) ? json_object_get_string(v) : "?");
		}
		if (json_object_array_length(list) > 8)
			fprintf(F.log, " ...(%zu)", json_object_array_length(list));
	}
	fprintf(F.log, " -> %u%s at %.3f\n", r->status, r->reset ? " reset" : "", q->arrived);
	fflush(F.log);
	pthread_mutex_unlock(&F.lock);
	json_object_put(body);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	request *q = *con_cls;
	reply r = { 0 };
	struct MHD_Response *resp;
	enum MHD_Result ret;

	(void)cls, (void)version;
	if (q == NULL) {
		if ((q = calloc(1, sizeof(request))) != NULL)
			q->arrived = mono();
		*con_cls = q;
		return q ? MHD_YES : MHD_NO;
	}
	if (*upload_data_size > 0) {
		if (q->len + *upload_data_size > BODY_MAX) {
			q->too_large = 1;
		} else {
			q->body = realloc(q->body, q->len + *upload_data_size + 1);
			memcpy(q->body + q->len, upload_data, *upload_data_size);
			q->len += *upload_data_size;
			q->body[q->len] = '\0';
		}
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (q->too_large)
		reply_text(&r, 413, "text/plain", "too large\n");
	else
		serve(conn, method, url, q, &r);
	if (F.log)
		log_request(conn, method, url, q, &r);
	if (r.reset)
		return MHD_NO;
	resp = MHD_create_response_from_buffer(strlen(r.body), r.body, MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(resp, "Content-Type", r.ctype);
	if (r.retry_after[0])
		MHD_add_response_header(resp, "Retry-After", r.retry_after);
	ret = MHD_queue_response(conn, r.status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	request *q = *con_cls;

	(void)cls, (void)conn, (void)toe;
	if (q == NULL)
		return;
	free(q->body);
	free(q->assertion);
	free(q);
	*con_cls = NULL;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	(void)cls, (void)conn;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		*socket_context = calloc(1, sizeof(conn_state));
	} else {
		free(*socket_context);
		*socket_context = NULL;
	}
}

/* ---- main ---- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		die("%s: %s", path, strerror(errno));
	if ((buf = malloc((size_t)len + 1)) == NULL || fread(buf, 1, (size_t)len, f) != (size_t)len)
		die("%s: cannot read", path);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

static void load_pubkey(const char *path)
{
	FILE *f = fopen(path, "r");

	if (f == NULL || (F.pubkey = PEM_read_PUBKEY(f, NULL, NULL, NULL)) == NULL)
		die("--pubkey %s: not a PEM public key", path);
	fclose(f);
}

static void usage(void)
{
	fputs("usage: fake_clouddns --port-file FILE (--cert PEM --key PEM | --plain) [--port N] [--metadata-port-file FILE]\n"
	      "  [--project P] [--zone NAME=DNSNAME]... [--records FILE] [--page-size N] [--latency S]\n"
	      "  [--faults SCRIPT] [--static-token T] [--pubkey PEM] [--client-email E] [--token-uri URL]\n"
	      "  [--token-expires-in S] [--token-lifetime S] [--quota-additions N] [--quota-deletions N]\n"
	      "  [--quota-rrdata N] [--enforce-additions N] [--enforce-deletions N] [--enforce-rrdata N]\n"
	      "  [--invalid OWNER]... [--log FILE]\n",
	      stderr);
	exit(2);
}

typedef struct options {
	const char *port_file, *cert, *key, *metadata_port_file;
	int plain;
	unsigned port;
} options;

static void parse_args(int argc, char **argv, options *o)
{
	int enforced = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int takes = strcmp(a, "--plain") != 0;
		if (takes && v == NULL)
			usage();
		if (strcmp(a, "--plain") == 0) o->plain = 1;
		else if (strcmp(a, "--port-file") == 0) o->port_file = v;
		else if (strcmp(a, "--metadata-port-file") == 0) o->metadata_port_file = v;
		else if (strcmp(a, "--port") == 0) o->port = (unsigned)strtoul(v, NULL, 10);
		else if (strcmp(a, "--cert") == 0) o->cert = v;
		else if (strcmp(a, "--key") == 0) o->key = v;
		else if (strcmp(a, "--project") == 0) F.project = v;
		else if (strcmp(a, "--zone") == 0) add_zone(v);
		else if (strcmp(a, "--records") == 0) load_records(v);
		else if (strcmp(a, "--page-size") == 0) F.page_size = strtoul(v, NULL, 10);
		else if (strcmp(a, "--latency") == 0) F.latency = strtod(v, NULL);
		else if (strcmp(a, "--faults") == 0) parse_faults(v);
		else if (strcmp(a, "--static-token") == 0) F.static_token = v;
		else if (strcmp(a, "--pubkey") == 0) load_pubkey(v);
		else if (strcmp(a, "--client-email") == 0) F.client_email = v;
		else if (strcmp(a, "--token-uri") == 0) snprintf(F.token_uri, sizeof(F.token_uri), "%s", v);
		else if (strcmp(a, "--token-expires-in") == 0) F.token_expires_in = strtod(v, NULL);
		else if (strcmp(a, "--token-lifetime") == 0) F.token_lifetime = strtod(v, NULL);
		else if (strcmp(a, "--quota-additions") == 0) F.quota_add = strtoul(v, NULL, 10);
		else if (strcmp(a, "--quota-deletions") == 0) F.quota_del = strtoul(v, NULL, 10);
		else if (strcmp(a, "--quota-rrdata") == 0) F.quota_rdata = strtoul(v, NULL, 10);
		else if (strcmp(a, "--enforce-additions") == 0) F.enforce_add = strtoul(v, NULL, 10), enforced |= 1;
		else if (strcmp(a, "--enforce-deletions") == 0) F.enforce_del = strtoul(v, NULL, 10), enforced |= 2;
		else if (strcmp(a, "--enforce-rrdata") == 0) F.enforce_rdata = strtoul(v, NULL, 10), enforced |= 4;
		else if (strcmp(a, "--invalid") == 0) {
			F.invalid_owners = realloc(F.invalid_owners, (F.invalid_count + 1) * sizeof(char *));
			if (dnsb_name_canonical(&F.invalid_owners[F.invalid_count++], v, NULL) != 0)
				die("--invalid %s: bad name", v);
		} else if (strcmp(a, "--log") == 0) {
			if ((F.log = fopen(v, "a")) == NULL)
				die("--log %s: %s", v, strerror(errno));
		} else
			usage();
		i += takes;
	}
	/* A quota is enforced as advertised unless a test lowers it behind the client's back. */
	if (!(enforced & 1)) F.enforce_add = F.quota_add;
	if (!(enforced & 2)) F.enforce_del = F.quota_del;
	if (!(enforced & 4)) F.enforce_rdata = F.quota_rdata;
	if (o->port_file == NULL || (!o->plain && (o->cert == NULL || o->key == NULL)) || F.page_size == 0)
		usage();
}

static struct MHD_Daemon *start(int plain, unsigned port, char *cert, char *key)
{
	struct sockaddr_in sa;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!plain)
		return MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR,
					(struct sockaddr *)&sa, MHD_OPTION_HTTPS_MEM_CERT, cert, MHD_OPTION_HTTPS_MEM_KEY,
					key, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
					MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL, MHD_OPTION_CONNECTION_TIMEOUT,
					(unsigned)120, MHD_OPTION_END);
	return MHD_start_daemon(flags, 0, NULL, NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_NOTIFY_CONNECTION,
				on_connection, NULL, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120, MHD_OPTION_END);
}

/* Write the port a daemon is bound to, atomically (the tests poll for the file). @return the port */
static unsigned write_port(struct MHD_Daemon *d, const char *path)
{
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((f = fopen(tmp, "w")) == NULL || fprintf(f, "%u\n", (unsigned)info->port) < 0 || fclose(f) != 0 ||
	    rename(tmp, path) != 0)
		die("%s: cannot write the port", path);
	return info->port;
}

int main(int argc, char **argv)
{
	options o = { 0 };
	char *cert = NULL, *key = NULL;
	struct MHD_Daemon *d, *md = NULL;
	sigset_t set;
	unsigned port;
	int sig;

	parse_args(argc, argv, &o);
	if (!o.plain) {
		if (!MHD_is_feature_supported(MHD_FEATURE_TLS))
			die("libmicrohttpd has no TLS support");
		cert = slurp(o.cert);
		key = slurp(o.key);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((d = start(o.plain, o.port, cert, key)) == NULL)
		die("cannot start the server on 127.0.0.1:%u", o.port);
	/* A metadata server speaks plain HTTP: a second listener, sharing the tokens. */
	if (o.metadata_port_file && (md = start(1, 0, NULL, NULL)) == NULL)
		die("cannot start the metadata listener");
	pthread_mutex_lock(&F.lock);
	port = (unsigned)MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
	if (F.token_uri[0] == '\0')
		snprintf(F.token_uri, sizeof(F.token_uri), "%s://127.0.0.1:%u/token", o.plain ? "http" : "https", port);
	pthread_mutex_unlock(&F.lock);
	if (md)
		write_port(md, o.metadata_port_file);
	write_port(d, o.port_file);
	sigwait(&set, &sig);
	if (md)
		MHD_stop_daemon(md);
	MHD_stop_daemon(d);
	free(cert);
	free(key);
	return 0;
}
