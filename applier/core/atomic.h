/*
 * atomic.h - the one atomic file writer: a temporary file beside the
 * target, filled, fsync'd, renamed over it, and the directory fsync'd, so a
 * reader sees the old file or the new one, never part of one.
 */
#ifndef DNSBATCH_CORE_ATOMIC_H
#define DNSBATCH_CORE_ATOMIC_H

#include <stdio.h>
#include <sys/types.h>

#include "dnsbatch/common.h"

typedef struct dnsb_atomic_options {
	const char *prefix;  /* the temporary file's name: PREFIX + target's base name + SUFFIX + 6 random chars */
	const char *suffix;
	mode_t mode;         /* the new file's mode when the target does not exist (or keep_owner is 0) */
	int keep_owner;      /* 1: the new file takes the target's owner, group and mode (a daemon reads it) */
} dnsb_atomic_options;

/* Writes the content. @return 0, or a negative DNSB_E* code with err filled */
typedef int (*dnsb_atomic_fill)(FILE *f, void *payload, dnsb_error *err);

/*
 * Replace `path` atomically with what `fill` writes.
 * @param path  the target (borrowed); its directory must be writable
 * @return 0; DNSB_EIO naming the file and the system's reason; or fill's own
 *         code. On any error the target is untouched and the temporary file removed.
 */
int dnsb_atomic_write(const char *path, const dnsb_atomic_options *o, dnsb_atomic_fill fill, void *payload,
		      dnsb_error *err);

#endif
