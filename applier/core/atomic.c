/* atomic.c - replace a file atomically: temporary file beside it, fsync, rename, fsync the directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "applier/core/atomic.h"

/* Make the rename itself durable. Best effort: some file systems refuse fsync on a directory. */
static void sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY) : -1;

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

/* Owner, group and mode of the target when asked (chown first: it clears set-id bits), else o->mode. */
static int set_owner(int fd, const char *path, const dnsb_atomic_options *o)
{
	struct stat st;

	if (o->keep_owner && stat(path, &st) == 0) {
		if (fchown(fd, st.st_uid, st.st_gid) < 0 && errno != EPERM)
			return -1;
		return fchmod(fd, st.st_mode & 07777);
	}
	return fchmod(fd, o->mode);
}

int dnsb_atomic_write(const char *path, const dnsb_atomic_options *o, dnsb_atomic_fill fill, void *payload,
		      dnsb_error *err)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *tmp = NULL;
	FILE *f = NULL;
	int fd, rc;

	if (asprintf(&tmp, "%.*s%s%s%sXXXXXX", slash ? (int)(slash - path + 1) : 0, path, o->prefix, base,
		     o->suffix) < 0)
		return DNSB_ENOMEM;
	if ((fd = mkstemp(tmp)) < 0) {
		rc = dnsb_error_set(err, DNSB_EIO, "%s: cannot create a temporary file: %s", path, strerror(errno));
		free(tmp);
		return rc;
	}
	if (set_owner(fd, path, o) < 0 || (f = fdopen(fd, "w")) == NULL) {
		rc = dnsb_error_set(err, DNSB_EIO, "%s: %s", tmp, strerror(errno));
		close(fd);
		goto fail;
	}
	errno = 0;
	if ((rc = fill(f, payload, err)) < 0) {
		fclose(f);
		goto fail;
	}
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		rc = dnsb_error_set(err, DNSB_EIO, "%s: %s", tmp, strerror(errno ? errno : EIO));
		fclose(f);
		goto fail;
	}
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		rc = dnsb_error_set(err, DNSB_EIO, "%s: %s", path, strerror(errno));
		goto fail;
	}
	sync_dir(path);
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	return rc;
}
