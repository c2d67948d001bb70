/*
 * ratelimit_redis.c - the shared bucket's side in Redis (see ratelimit.h):
 * the URL by libcurl's URL API, the connection by hiredis, and one Lua script
 * run by EVALSHA (loaded again on NOSCRIPT). Every call has one deadline for
 * all its commands, its replies read with poll(2) against it (hiredis's own
 * timeout is per recv(2): a reply trickled a byte at a time never ends).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <curl/curl.h>
#include <hiredis/hiredis.h>

#include "applier/core/clock.h"
#include "applier/core/secret.h"
#include "applier/net/ratelimit_redis.h"
#include "dnsbatch/sys/provider.h"

/* The bucket's replies are a few dozen bytes: a reply past these bounds is refused before it is
 * read whole or allocated (a "*2147483647" would be a 16 GiB array). */
#define REPLY_MAX_BYTES (64u << 10)
#define REPLY_MAX_ELEMENTS 64

/*
 * GCRA with reservation. KEYS[1] holds the theoretical arrival time (TAT, in
 * microseconds of Redis's own clock, so instances need no synchronised
 * clocks), KEYS[2] the factor the rate is lowered by after a throttle.
 * take: ARGV = 'take', rate, burst, max wait (µs, 0 = none) ->
 *   {taken (1|0), wait in µs, rate in force × 1000}
 * slow: ARGV = 'slow', hold (ms) -> the new factor, as text
 */
static const char bucket_script[] =
	"if redis.replicate_commands then pcall(redis.replicate_commands) end\n"
	"local t = redis.call('TIME')\n"
	"local now = tonumber(t[1]) * 1000000 + tonumber(t[2])\n"
	"local factor = tonumber(redis.call('GET', KEYS[2]) or '1')\n"
	"if ARGV[1] == 'slow' then\n"
	"  factor = factor * 0.75\n"
	"  if factor < 0.1 then factor = 0.1 end\n"
	"  redis.call('SET', KEYS[2], tostring(factor), 'PX', tonumber(ARGV[2]))\n"
	"  return tostring(factor)\n"
	"end\n"
	"local rate = tonumber(ARGV[2]) * factor\n"
	"local burst = tonumber(ARGV[3])\n"
	"local max_wait = tonumber(ARGV[4])\n"
	"local step = 1000000 / rate\n"
	"local tat = tonumber(redis.call('GET', KEYS[1]) or '0')\n"
	"if tat < now then tat = now end\n"
	"local wait = tat + step - burst * step - now\n"
	"if wait < 0 then wait = 0 end\n"
	"if max_wait > 0 and wait > max_wait then return {0, math.floor(wait), math.floor(rate * 1000)} end\n"
	"redis.call('SET', KEYS[1], string.format('%.0f', tat + step), 'PX',"
	" math.ceil((tat + step - now) / 1000) + 1000)\n"
	"return {1, math.floor(wait), math.floor(rate * 1000)}\n";

struct dnsb_redis {
	redisContext *c;
	redisReplyObjectFunctions fn; /* hiredis's, with the array's size bounded (bounded_array) */
	double timeout;     /* seconds a call may take, connect included */
	double deadline;    /* monotonic: the call in progress must be done by then */
	char sha[41];       /* the script's SHA1 as Redis reported it on SCRIPT LOAD */
	char where[300];    /* "host:port", for messages */
};

/* hiredis's array maker, and the size it was last refused (per thread: the reader gives no context). */
static void *(*hiredis_create_array)(const redisReadTask *, int);
static _Thread_local long long refused_elements;

static char *url_part(CURLU *u, CURLUPart part)
{
	char *v = NULL, *copy;

	if (curl_url_get(u, part, &v, CURLU_URLDECODE) != CURLUE_OK || v == NULL)
		return NULL;
	copy = strdup(v);
	curl_free(v);
	return copy;
}

static int parse_db(dnsb_redis_target *out, CURLU *u, dnsb_error *err)
{
	char *path = url_part(u, CURLUPART_PATH), *end;
	const char *p = path ? path : "";
	int rc = 0;

	while (*p == '/')
		p++;
	if (*p) {
		out->db = strtol(p, &end, 10);
		if (*end || out->db < 0 || out->db > 100000)
			rc = dnsb_error_set(err, DNSB_EINVAL, "--rate-budget: the database \"%s\" is not a number", p);
	}
	free(path);
	return rc;
}

int dnsb_redis_target_parse(dnsb_redis_target *out, const char *url, dnsb_error *err)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *port = NULL;
	CURLUcode uc;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (u == NULL)
		return DNSB_ENOMEM;
	if ((uc = curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME)) != CURLUE_OK) {
		rc = dnsb_error_set(err, DNSB_EINVAL, "--rate-budget: not a redis://HOST:PORT[/DB] URL: %s",
				    curl_url_strerror(uc));
		goto done;
	}
	scheme = url_part(u, CURLUPART_SCHEME);
	if (scheme && strcmp(scheme, "rediss") == 0) {
		rc = dnsb_error_set(err, DNSB_EINVAL, "--rate-budget: rediss:// (TLS) needs hiredis >= 1.0 with SSL; "
				    "this build has hiredis %d.%d: use redis:// on a trusted network or a TLS tunnel",
				    HIREDIS_MAJOR, HIREDIS_MINOR);
		goto done;
	}
	if (scheme == NULL || strcmp(scheme, "redis") != 0) {
		rc = dnsb_error_set(err, DNSB_EINVAL, "--rate-budget: the scheme must be redis://");
		goto done;
	}
	out->host = url_part(u, CURLUPART_HOST);
	port = url_part(u, CURLUPART_PORT);
	out->port = port ? atoi(port) : 6379;
	out->user = url_part(u, CURLUPART_USER);
	out->password = url_part(u, CURLUPART_PASSWORD);
	if (out->host == NULL || out->port <= 0 || out->port > 65535)
		rc = dnsb_error_set(err, DNSB_EINVAL, "--rate-budget: no host or a bad port");
	else if ((rc = parse_db(out, u, err)) == 0 && out->password)
		/* A password on the command line is in /proc/PID/cmdline for every local user to read. */
		rc = dnsb_error_set(err, DNSB_EINVAL, "--rate-budget: the URL holds a password: give it in a file "
				    "(--rate-budget-password-file) or in the environment (DNSBATCH_REDIS_PASSWORD), "
				    "and the URL as redis://%sHOST:PORT[/DB]", out->user && *out->user ? "USER@" : "");
done:
	free(scheme);
	free(port);
	curl_url_cleanup(u);
	if (rc < 0)
		dnsb_redis_target_clear(out);
	return rc;
}

void dnsb_redis_target_clear(dnsb_redis_target *t)
{
	free(t->host);
	free(t->user);
	dnsb_secret_free(t->password);
	memset(t, 0, sizeof(*t));
}

/* hiredis's array maker, refusing a size no reply of the bucket has before anything is allocated. */
static void *bounded_array(const redisReadTask *task, int elements)
{
	if (elements > REPLY_MAX_ELEMENTS) {
		refused_elements = elements;
		return NULL; /* the reader fails ("out of memory"); command() names the size instead */
	}
	return hiredis_create_array(task, elements);
}

static void capture_hiredis_array(void)
{
	redisReader *reader = redisReaderCreate();

	if (reader) {
		hiredis_create_array = reader->fn->createArray;
		redisReaderFree(reader);
	}
}

/* Seconds left of the call in progress. */
static double time_left(dnsb_redis *r)
{
	return r->deadline - dnsb_monotonic();
}

/* The reply to the command written, read within the call's deadline. @return it, or NULL with err set */
static redisReply *read_reply(dnsb_redis *r, dnsb_error *err)
{
	void *reply = NULL;

	refused_elements = 0;
	for (;;) {
		struct pollfd p = { r->c->fd, POLLIN, 0 };
		double left;
		int n;

		if (redisGetReplyFromReader(r->c, &reply) != REDIS_OK)
			break;
		if (reply)
			return reply;
		if (r->c->reader->len - r->c->reader->pos > REPLY_MAX_BYTES) {
			dnsb_error_set(err, DNSB_ETRANSIENT, "redis %s: a reply over %u KiB refused (the bucket's "
				       "are a few bytes)", r->where, REPLY_MAX_BYTES >> 10);
			return NULL;
		}
		if ((left = time_left(r)) <= 0 || (n = poll(&p, 1, (int)(left * 1000.0) + 1)) == 0) {
			dnsb_error_set(err, DNSB_ETRANSIENT, "redis %s: no whole reply within the call's %.3g s",
				       r->where, r->timeout);
			return NULL;
		}
		if ((n < 0 && errno != EINTR) || (n > 0 && redisBufferRead(r->c) != REDIS_OK))
			break;
	}
	if (refused_elements)
		dnsb_error_set(err, DNSB_ETRANSIENT, "redis %s: a reply of %lld elements refused (the bucket's have 3)",
			       r->where, refused_elements);
	else
		dnsb_error_set(err, DNSB_ETRANSIENT, "redis %s: %s", r->where, r->c->errstr[0] ? r->c->errstr : "no answer");
	return NULL;
}

/* One command, argv style, within the call's deadline. @return the reply (the caller frees it), or NULL with err set */
static redisReply *command(dnsb_redis *r, int argc, const char **argv, dnsb_error *err)
{
	int done = 0;

	if (redisAppendCommandArgv(r->c, argc, argv, NULL) != REDIS_OK) {
		dnsb_error_set(err, DNSB_ETRANSIENT, "redis %s: %s", r->where, r->c->errstr[0] ? r->c->errstr : "no memory");
		return NULL;
	}
	/* The commands are small: the socket's send timeout (the call's) bounds this. */
	while (!done) {
		if (redisBufferWrite(r->c, &done) != REDIS_OK) {
			dnsb_error_set(err, DNSB_ETRANSIENT, "redis %s: %s", r->where, r->c->errstr);
			return NULL;
		}
	}
	return read_reply(r, err);
}

/* A command whose reply must not be an error. @return 0 or DNSB_ETRANSIENT */
static int command_ok(dnsb_redis *r, int argc, const char **argv, const char *what, dnsb_error *err)
{
	redisReply *reply = command(r, argc, argv, err);
	int rc = 0;

	if (reply == NULL)
		return DNSB_ETRANSIENT;
	if (reply->type == REDIS_REPLY_ERROR)
		rc = dnsb_error_set(err, DNSB_ETRANSIENT, "redis %s: %s refused: %.200s", r->where, what, reply->str);
	freeReplyObject(reply);
	return rc;
}

static int load_script(dnsb_redis *r, dnsb_error *err)
{
	const char *argv[] = { "SCRIPT", "LOAD", bucket_script };
	redisReply *reply = command(r, 3, argv, err);
	int rc = 0;

	if (reply == NULL)
		return DNSB_ETRANSIENT;
	if (reply->type != REDIS_REPLY_STRING || reply->len != 40)
		rc = dnsb_error_set(err, DNSB_ETRANSIENT, "redis %s: SCRIPT LOAD refused: %.200s", r->where,
				    reply->type == REDIS_REPLY_ERROR ? reply->str : "an unexpected reply");
	else
		memcpy(r->sha, reply->str, 41);
	freeReplyObject(reply);
	return rc;
}

static int authenticate(dnsb_redis *r, const dnsb_redis_target *t, dnsb_error *err)
{
	char db[24];
	const char *auth[] = { "AUTH", t->user, t->password };
	const char *select[] = { "SELECT", db };

	if (t->password) {
		dnsb_secret_register(t->password); /* a Redis may echo AUTH in its refusal */
		/* AUTH user password is Redis 6's ACL form; without a user, the legacy one-argument form. */
		int rc = t->user && *t->user ? command_ok(r, 3, auth, "AUTH", err)
					     : command_ok(r, 2, (const char *[]){ "AUTH", t->password }, "AUTH", err);
		if (rc < 0)
			return rc;
	}
	snprintf(db, sizeof(db), "%ld", t->db);
	return t->db ? command_ok(r, 2, select, "SELECT", err) : 0;
}

int dnsb_redis_connect(dnsb_redis **out, const dnsb_redis_target *t, double timeout, dnsb_error *err)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct timeval tv = { (time_t)timeout, (suseconds_t)((timeout - (double)(time_t)timeout) * 1e6) };
	dnsb_redis *r = calloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	if (r == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	pthread_once(&once, capture_hiredis_array);
	r->timeout = timeout;
	r->deadline = dnsb_monotonic() + timeout;
	snprintf(r->where, sizeof(r->where), "%s:%d", t->host, t->port);
	r->c = redisConnectWithTimeout(t->host, t->port, tv);
	if (r->c == NULL || r->c->err || hiredis_create_array == NULL) {
		rc = dnsb_error_set(err, DNSB_ETRANSIENT, "redis %s: %s", r->where,
				    r->c && r->c->err ? r->c->errstr : "cannot allocate a context");
		dnsb_redis_close(r);
		return rc;
	}
	r->fn = *r->c->reader->fn;
	r->fn.createArray = bounded_array;
	r->c->reader->fn = &r->fn;
	if (redisSetTimeout(r->c, tv) != REDIS_OK)
		rc = dnsb_error_set(err, DNSB_ETRANSIENT, "redis %s: cannot set the timeout", r->where);
	else if ((rc = authenticate(r, t, err)) == 0)
		rc = load_script(r, err);
	if (rc < 0) {
		dnsb_redis_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

void dnsb_redis_close(dnsb_redis *r)
{
	if (r == NULL)
		return;
	if (r->c)
		redisFree(r->c);
	free(r);
}

/* EVALSHA, loading the script again once when Redis lost it (restart, SCRIPT FLUSH, failover). */
static redisReply *run_script(dnsb_redis *r, const char *key, int argc, const char **args, dnsb_error *err)
{
	char tat[300], slow[300];
	const char *argv[12] = { "EVALSHA", r->sha, "2", tat, slow };
	redisReply *reply;

	snprintf(tat, sizeof(tat), "dnsbatch:{%s}:tat", key);
	snprintf(slow, sizeof(slow), "dnsbatch:{%s}:slow", key);
	for (int i = 0; i < argc && i < 7; i++)
		argv[5 + i] = args[i];
	for (int attempt = 0; attempt < 2; attempt++) {
		if ((reply = command(r, 5 + argc, argv, err)) == NULL)
			return NULL;
		if (reply->type != REDIS_REPLY_ERROR || strncmp(reply->str, "NOSCRIPT", 8) != 0 || attempt)
			break;
		freeReplyObject(reply);
		if (load_script(r, err) < 0)
			return NULL;
	}
	if (reply->type == REDIS_REPLY_ERROR) {
		dnsb_error_set(err, DNSB_ETRANSIENT, "redis %s: the bucket script failed: %.200s", r->where, reply->str);
		freeReplyObject(reply);
		return NULL;
	}
	return reply;
}

/* The three integers of a take, in range. @return 0, or DNSB_ETRANSIENT naming what makes no sense */
static int take_reply(dnsb_redis *r, const redisReply *reply, double rate, long long out[3], dnsb_error *err)
{
	if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 3)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "redis %s: the bucket script answered an unexpected shape",
				      r->where);
	for (int i = 0; i < 3; i++) {
		if (reply->element[i]->type != REDIS_REPLY_INTEGER)
			return dnsb_error_set(err, DNSB_ETRANSIENT, "redis %s: the bucket script answered a "
					      "non-number", r->where);
		out[i] = reply->element[i]->integer;
	}
	/* The script's rate is the configured one lowered (never below a tenth); its wait is never negative,
	 * nor, with every instance's wait capped, anywhere near a day. */
	if ((out[0] != 0 && out[0] != 1) || out[1] < 0 || (double)out[1] > DNSB_REDIS_WAIT_ABSURD * 1e6 ||
	    out[2] <= 0 || (double)out[2] > rate * 1000.0 * 1.001 + 1)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "redis %s: the bucket script answered nonsense "
				      "(taken %lld, a wait of %lld us, a rate of %lld/1000 s)", r->where, out[0],
				      out[1], out[2]);
	return 0;
}

int dnsb_redis_take(dnsb_redis *r, const char *key, double rate, double burst, double max_wait, double *wait,
		    double *eff_rate, dnsb_error *err)
{
	char a_rate[32], a_burst[32], a_max[32];
	const char *args[] = { "take", a_rate, a_burst, a_max };
	redisReply *reply;
	long long v[3];
	double w;
	int rc;

	r->deadline = dnsb_monotonic() + r->timeout;
	snprintf(a_rate, sizeof(a_rate), "%.6f", rate);
	snprintf(a_burst, sizeof(a_burst), "%.6f", burst);
	snprintf(a_max, sizeof(a_max), "%.0f", max_wait > 0 ? max_wait * 1e6 : 0.0);
	if ((reply = run_script(r, key, 4, args, err)) == NULL)
		return DNSB_ETRANSIENT;
	rc = take_reply(r, reply, rate, v, err);
	freeReplyObject(reply);
	if (rc < 0)
		return rc;
	w = (double)v[1] / 1e6;
	/* A token taken for a wait past max_wait is not one the caller can use: the script never does it,
	 * a server that does gets the wait bounded here. */
	*wait = v[0] && !(max_wait > 0 && w > max_wait) ? w : -w;
	*eff_rate = (double)v[2] / 1000.0;
	return 0;
}

int dnsb_redis_slow(dnsb_redis *r, const char *key, double hold, dnsb_error *err)
{
	char a_hold[32];
	const char *args[] = { "slow", a_hold };
	redisReply *reply;

	r->deadline = dnsb_monotonic() + r->timeout;
	snprintf(a_hold, sizeof(a_hold), "%.0f", hold * 1000.0);
	if ((reply = run_script(r, key, 2, args, err)) == NULL)
		return DNSB_ETRANSIENT;
	freeReplyObject(reply);
	return 0;
}
