/*
 * zonefile.c - an RFC 1035 zone file as a provider, read and written with
 * ldns. The semantics are the store's (store.h). A batch is atomic across
 * processes: under an exclusive flock on PATH.lock, the file is re-read if
 * it changed, the batch applied in memory, the zone written to a temporary
 * file beside it as its author wrote it (zonefile_text.c: unchanged records
 * keep their lines and comments), fsync'd and renamed over the original;
 * temporary files left by a killed writer are removed under the lock; a
 * failed batch leaves the file untouched, byte for byte. The SOA serial is bumped
 * once per applied batch, so secondaries and `named` see the change.
 * Rewriting the file costs as much as the zone is large, so the provider
 * declares its commits deferred: while the engine holds a zone (zf_flush), the
 * lock stays taken, OK batches are applied in memory only, and the file is
 * written once when the hold ends, before the engine reports any of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dnsbatch/sys/log.h"
#include "dnsbatch/sys/provider.h"
#include "applier/core/atomic.h"
#include "applier/core/clock.h"
#include "providers/registry.h"
#include "providers/zonefile/zonefile_text.h"
#include "providers/common/store.h"

typedef struct zf_zone {
	char *path;
	char *lock_path;
	dnsb_store *store;
	struct stat seen;   /* the file as last read or written */
	unsigned holds;     /* nested holds (zf_flush); while > 0, hold_fd keeps the lock */
	int hold_fd;        /* the exclusive lock taken for the holds, -1 when none */
	int dirty;          /* batches applied in memory and not yet written */
} zf_zone;

typedef struct zf_state {
	pthread_mutex_t lock;
	zf_zone *zones;
	size_t count;
} zf_state;

static zf_zone *zone_of(zf_state *st, const char *apex)
{
	for (size_t i = 0; i < st->count; i++)
		if (strcmp(dnsb_store_apex(st->zones[i].store), apex) == 0)
			return &st->zones[i];
	return NULL;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Re-read the file when another process changed it since we last saw it. */
static int refresh(zf_zone *z, dnsb_error *err)
{
	struct stat now;
	int rc;

	if (stat(z->path, &now) < 0)
		return dnsb_error_set(err, DNSB_EIO, "%s: %s", z->path, strerror(errno));
	if (same_file(&now, &z->seen))
		return 0;
	if ((rc = dnsb_zonefile_check_text(z->path, err)) < 0 || (rc = dnsb_store_load(z->store, z->path, err)) < 0)
		return rc;
	z->seen = now;
	return 0;
}

/*
 * Take the zone's lock file; another process (an editor's script, a second
 * dnsbatch) may hold it. With a timeout (seconds, > 0) the wait polls every
 * 10 ms and gives up with DNSB_ETRANSIENT; 0 waits as long as it takes.
 * @return the locked descriptor, DNSB_EIO, DNSB_ETRANSIENT, or DNSB_EFATAL when
 *         permission is denied
 */
static int lock_zone(zf_zone *z, int how, double timeout, dnsb_error *err)
{
	int fd = open(z->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	double give_up = timeout > 0 ? dnsb_monotonic() + timeout : 0;
	const struct timespec tick = { 0, 10 * 1000 * 1000 };

	if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS))
		return dnsb_error_set(err, DNSB_EFATAL, "%s: %s (the lock file needs write access to the file or its "
				      "directory; retrying will not help)", z->lock_path, strerror(errno));
	if (fd < 0)
		return dnsb_error_set(err, DNSB_EIO, "%s: %s", z->lock_path, strerror(errno));
	while (flock(fd, give_up > 0 ? how | LOCK_NB : how) < 0) {
		if (errno == EWOULDBLOCK && dnsb_monotonic() < give_up) {
			nanosleep(&tick, NULL);
		} else if (errno != EINTR) {
			int rc = errno == EWOULDBLOCK ? DNSB_ETRANSIENT : DNSB_EIO;
			if (rc == DNSB_ETRANSIENT)
				dnsb_error_set(err, rc, "%s: held by another process for %.3g s", z->lock_path, timeout);
			else
				dnsb_error_set(err, rc, "%s: flock: %s", z->lock_path, strerror(errno));
			close(fd);
			return rc;
		}
	}
	return fd;
}

static void unlock_zone(int fd)
{
	flock(fd, LOCK_UN);
	close(fd);
}

/*
 * Remove the temporary files a writer killed mid-write left behind. Called
 * under the exclusive lock, so no live writer owns one of them.
 */
static void remove_stale_temps(const zf_zone *z)
{
	char *pattern;
	glob_t found;

	if (asprintf(&pattern, "%s.dnsbatch.??????", z->path) < 0)
		return;
	if (glob(pattern, GLOB_NOSORT, NULL, &found) == 0) {
		for (size_t i = 0; i < found.gl_pathc; i++)
			if (unlink(found.gl_pathv[i]) == 0)
				dnsb_log(DNSB_LOG_WARN, "zone file %s: removed %s, left by a writer that was stopped",
					 z->path, found.gl_pathv[i]);
		globfree(&found);
	}
	free(pattern);
}

/*
 * The zone as its author wrote it (zonefile_text.c); the whole zone printed
 * anew only when the old file cannot be read back the same way.
 */
static int write_zone(zf_zone *z, FILE *f, dnsb_error *err)
{
	FILE *old = fopen(z->path, "r");
	dnsb_error why = { 0 };
	int rc = old ? dnsb_zonefile_rewrite(f, old, z->store, &why)
		     : dnsb_error_set(&why, DNSB_EPARSE, "cannot be read again (%s)", strerror(errno));

	if (old)
		fclose(old);
	if (rc != DNSB_EPARSE)
		return rc < 0 ? dnsb_error_set(err, rc, "%s", why.message) : 0;
	dnsb_log(DNSB_LOG_WARN, "zone file %s: written whole by ldns, its layout and comments not kept: %s", z->path,
		 why.message);
	if (fseek(f, 0, SEEK_SET) != 0 || ftruncate(fileno(f), 0) != 0)
		return dnsb_error_set(err, DNSB_EIO, "%s: %s", z->path, strerror(errno));
	return dnsb_store_write(z->store, f, err);
}

static int fill_zone(FILE *f, void *payload, dnsb_error *err)
{
	return write_zone(payload, f, err);
}

/* Replace the file with the zone atomically (core/atomic.c), keeping its owner and mode: named reads it. */
static int persist(zf_zone *z, dnsb_error *err)
{
	static const dnsb_atomic_options o = { "", ".dnsbatch.", 0644, 1 };
	int rc = dnsb_atomic_write(z->path, &o, fill_zone, z, err);

	if (rc == 0 && stat(z->path, &z->seen) < 0)
		memset(&z->seen, 0, sizeof(z->seen));
	return rc;
}

static int zf_submit(void *state, const char *zone, dnsb_change *const *changes, size_t n, double timeout,
		     dnsb_result *out, dnsb_error *err)
{
	zf_state *st = state;
	zf_zone *z;
	dnsb_error ferr = { 0 };
	int fd = -1, rc = 0;

	(void)err;
	pthread_mutex_lock(&st->lock);
	if ((z = zone_of(st, zone)) == NULL) {
		dnsb_result_set(out, DNSB_CLASS_FATAL, 404, "notFound", "no zone file for %s", zone);
		goto done;
	}
	if (z->holds == 0 && (fd = lock_zone(z, LOCK_EX, timeout, &ferr)) < 0) {
		dnsb_result_set(out, fd == DNSB_EFATAL ? DNSB_CLASS_FATAL : DNSB_CLASS_TRANSIENT, 0,
				fd == DNSB_ETRANSIENT ? "timeout" : fd == DNSB_EFATAL ? "permissionDenied" : "io", "%s",
				ferr.message);
		goto done;
	}
	/* What is held and not yet written is newer than the file: never read over it. */
	if (!z->dirty && (rc = refresh(z, &ferr)) < 0) {
		/* A zone file we cannot read is not going to fix itself between retries. */
		dnsb_result_set(out, rc == DNSB_ENOMEM ? DNSB_CLASS_TRANSIENT : DNSB_CLASS_FATAL, 0,
				rc == DNSB_EPARSE ? "badZoneFile" : "io", "%s", ferr.message);
		rc = rc == DNSB_ENOMEM ? rc : 0;
	} else if ((rc = dnsb_store_apply(z->store, changes, n, 1, out)) == 0 && out->cls == DNSB_CLASS_OK) {
		if (z->holds > 0) {
			z->dirty = 1;
		} else {
			remove_stale_temps(z);
			if ((rc = persist(z, &ferr)) < 0) {
				dnsb_store_undo(z->store);
				dnsb_result_set(out, DNSB_CLASS_TRANSIENT, 0, "io", "writing the zone file: %s", ferr.message);
				rc = rc == DNSB_ENOMEM ? rc : 0;
			}
		}
	}
	if (fd >= 0)
		unlock_zone(fd);
done:
	pthread_mutex_unlock(&st->lock);
	return rc;
}

/* Start holding the zone's commits: its lock taken and kept, the file read if it changed. */
static int hold_zone(zf_zone *z, double timeout, dnsb_error *err)
{
	int fd, rc;

	if (z->holds > 0) {
		z->holds++;
		return 0;
	}
	if ((fd = lock_zone(z, LOCK_EX, timeout, err)) < 0)
		return fd;
	if ((rc = refresh(z, err)) < 0) {
		unlock_zone(fd);
		return rc;
	}
	z->hold_fd = fd;
	z->holds = 1;
	return 0;
}

/*
 * Write what is held; with the last hold, the lock goes. When the write
 * fails, none of it is committed: the zone is read again from the file, so
 * that nothing unwritten is seen as held.
 */
static int write_held(zf_zone *z, dnsb_error *err)
{
	dnsb_error lerr = { 0 };
	int rc = 0;

	if (z->dirty) {
		remove_stale_temps(z);
		if ((rc = persist(z, err)) < 0) {
			memset(&z->seen, 0, sizeof(z->seen));
			if (refresh(z, &lerr) < 0)
				dnsb_log(DNSB_LOG_WARN, "zone file %s: %s", z->path, lerr.message);
		}
		z->dirty = 0;
	}
	if (--z->holds == 0) {
		unlock_zone(z->hold_fd);
		z->hold_fd = -1;
	}
	return rc;
}

static int zf_flush(void *state, const char *zone, int hold, double timeout, dnsb_error *err)
{
	zf_state *st = state;
	zf_zone *z;
	int rc = 0;

	pthread_mutex_lock(&st->lock);
	if ((z = zone_of(st, zone)) == NULL)
		rc = dnsb_error_set(err, DNSB_ENOTFOUND, "no zone file for %s", zone);
	else if (hold)
		rc = hold_zone(z, timeout, err);
	else if (z->holds > 0)
		rc = write_held(z, err);
	pthread_mutex_unlock(&st->lock);
	return rc;
}

static int zf_read_or_list(zf_state *st, const char *zone, const dnsb_rrkey *keys, size_t n, int all,
			   double timeout, dnsb_rrset_list *out, dnsb_error *err)
{
	zf_zone *z;
	int fd = -1, rc;

	pthread_mutex_lock(&st->lock);
	if ((z = zone_of(st, zone)) == NULL) {
		rc = dnsb_error_set(err, DNSB_ENOTFOUND, "no zone file for %s", zone);
		goto done;
	}
	/* While held, the lock is ours and the store is newer than the file. */
	if (z->holds == 0 && (fd = lock_zone(z, LOCK_SH, timeout, err)) < 0) {
		rc = fd;
		goto done;
	}
	if ((rc = z->holds > 0 ? 0 : refresh(z, err)) == 0)
		rc = all ? dnsb_store_list(z->store, out) : dnsb_store_read(z->store, keys, n, out);
	if (z->holds == 0)
		unlock_zone(fd);
done:
	pthread_mutex_unlock(&st->lock);
	return rc;
}

static int zf_read(void *state, const char *zone, const dnsb_rrkey *keys, size_t n, double timeout,
		   dnsb_rrset_list *out, dnsb_error *err)
{
	return zf_read_or_list(state, zone, keys, n, 0, timeout, out, err);
}

static int zf_list(void *state, const char *zone, double timeout, dnsb_rrset_list *out, dnsb_error *err)
{
	return zf_read_or_list(state, zone, NULL, 0, 1, timeout, out, err);
}

static void zf_close(void *state)
{
	zf_state *st = state;

	if (st == NULL)
		return;
	for (size_t i = 0; i < st->count; i++) {
		dnsb_error err = { 0 };
		/* Closed while held (the engine always ends its holds): what was applied is still written. */
		while (st->zones[i].holds > 0)
			if (write_held(&st->zones[i], &err) < 0)
				dnsb_log(DNSB_LOG_WARN, "zone file %s: %s", st->zones[i].path, err.message);
		free(st->zones[i].path);
		free(st->zones[i].lock_path);
		dnsb_store_free(st->zones[i].store);
	}
	free(st->zones);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

static const dnsb_provider_ops zonefile_ops =
	DNSB_PROVIDER_OPS_INIT_ALL("zonefile", zf_submit, zf_read, zf_list, zf_close, zf_flush, NULL);

/*
 * Can the zone be written? Each write takes PATH.lock and writes a temporary
 * file beside PATH, so the directory must be writable (and the lock file, when
 * there is one). Found at open, before anything is sent, and named.
 * @return 0 or DNSB_EINVAL
 */
static int check_writable(const zf_zone *z, dnsb_error *err)
{
	const char *slash = strrchr(z->path, '/');
	char dir[4096];

	/* realpath gave an absolute path: the directory is what precedes the last slash, "/" for the root. */
	snprintf(dir, sizeof(dir), "%.*s", slash && slash != z->path ? (int)(slash - z->path) : 1, z->path);
	if (access(dir, W_OK | X_OK) != 0)
		return dnsb_error_set(err, DNSB_EINVAL, "zone file %s: cannot write in %s: %s (each write takes %s and "
				      "writes a temporary file beside the zone: give the user dnsbatch runs as write "
				      "access to the directory)", z->path, dir, strerror(errno), z->lock_path);
	if (access(z->lock_path, R_OK | W_OK) != 0 && errno != ENOENT)
		return dnsb_error_set(err, DNSB_EINVAL, "zone file %s: cannot write its lock file %s: %s", z->path,
				      z->lock_path, strerror(errno));
	return 0;
}

static int add_zone(dnsb_provider *p, zf_state *st, const char *spec, dnsb_error *err)
{
	const char *eq = strchr(spec, '=');
	char *apex = NULL;
	zf_zone *z, *grown;
	int rc;

	if (eq == NULL || eq == spec || eq[1] == '\0')
		return dnsb_error_set(err, DNSB_EINVAL, "--zonefile: expected ZONE=PATH, got '%s'", spec);
	if ((apex = strndup(spec, (size_t)(eq - spec))) == NULL)
		return DNSB_ENOMEM;
	rc = dnsb_provider_add_zone(p, apex, err);
	free(apex);
	if (rc < 0)
		return rc;
	if ((grown = realloc(st->zones, (st->count + 1) * sizeof(*grown))) == NULL)
		return DNSB_ENOMEM;
	st->zones = grown;
	z = &st->zones[st->count];
	memset(z, 0, sizeof(*z));
	z->hold_fd = -1;
	/* Work on the file a symbolic link points to: renaming over the link would fork the zone. */
	if ((z->path = realpath(eq + 1, NULL)) == NULL) {
		if (errno == ENOMEM)
			return DNSB_ENOMEM;
		return dnsb_error_set(err, DNSB_EIO, "%s: %s", eq + 1, strerror(errno));
	}
	if (asprintf(&z->lock_path, "%s.lock", z->path) < 0 ||
	    dnsb_store_new(&z->store, dnsb_provider_zone(p, dnsb_provider_zone_count(p) - 1)) < 0) {
		free(z->path);
		return DNSB_ENOMEM;
	}
	st->count++;
	if ((rc = refresh(z, err)) < 0)
		return rc;
	return check_writable(z, err);
}

/* What zonefile_open's flags fill: each --zonefile is opened (and locked) as it is read. */
typedef struct zf_settings {
	dnsb_provider *p;
	zf_state *st;
} zf_settings;

static int take_zonefile(void *settings, const char *spec, dnsb_error *err)
{
	zf_settings *s = settings;

	return add_zone(s->p, s->st, spec, err);
}

static const dnsb_flag zonefile_flags[] = {
	{ "zonefile", DNSB_FLAG_CUSTOM, "ZONE=PATH", "an RFC 1035 zone file holding ZONE (repeatable); PATH.lock is its lock",
	  NULL, 0, 0, 0, 0, DNSB_FLAG_REPEAT, NULL, NULL, take_zonefile },
	DNSB_FLAG_END
};

static int zonefile_open(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err)
{
	static const dnsb_provider_limits cloud_dns_limits = { .max_additions = 1000, .max_deletions = 1000,
								.max_rdata_bytes = 100000, .names_culprit = 1 };
	zf_settings s = { NULL, calloc(1, sizeof(zf_state)) };
	int rc;

	*out = NULL;
	if (s.st == NULL)
		return DNSB_ENOMEM;
	pthread_mutex_init(&s.st->lock, NULL);
	if ((rc = dnsb_provider_alloc(&s.p, &zonefile_ops, s.st)) < 0)
		return rc;
	if ((rc = dnsb_flags_parse(zonefile_flags, &s, cfg, err)) < 0)
		goto fail;
	if (s.st->count == 0) {
		rc = dnsb_error_set(err, DNSB_EINVAL, "--provider zonefile needs --zonefile ZONE=PATH (repeatable)");
		goto fail;
	}
	/* Same limits as Cloud DNS, whose semantics this provider follows; commits deferred (zf_flush). */
	dnsb_provider_set_limits(s.p, &cloud_dns_limits);
	*out = s.p;
	return 0;
fail:
	dnsb_provider_free(s.p);
	return rc;
}

const dnsb_backend dnsb_backend_zonefile = DNSB_BACKEND_INIT(
	"zonefile", "RFC 1035 zone files, written atomically with ldns (no server needed)", zonefile_flags, NULL,
	zonefile_open, &zonefile_ops);
