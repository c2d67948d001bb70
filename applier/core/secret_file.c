/*
 * secret_file.c - the one reader of a secret file for every backend
 * (sys/provider.h: one limit, an error past it, the buffer wiped on every path,
 * no message quoting the content); what it reads is registered (secret.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/secret.h"
#include "dnsbatch/sys/provider.h"

#define SECRET_FILE_MAX DNSB_SECRET_FILE_MAX

int dnsb_secret_read_file(char **out, const char *path, const char *what, dnsb_error *err)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t len;
	int e;

	*out = NULL;
	if (f == NULL)
		return dnsb_error_set(err, errno == ENOENT ? DNSB_ENOTFOUND : DNSB_EIO, "%s %s: %s", what, path,
				      strerror(errno));
	if ((buf = malloc(SECRET_FILE_MAX + 1)) == NULL) {
		fclose(f);
		return dnsb_error_set(err, DNSB_ENOMEM, "%s %s: out of memory", what, path);
	}
	len = fread(buf, 1, SECRET_FILE_MAX + 1, f);
	e = ferror(f) ? errno : 0;
	fclose(f);
	buf[len > SECRET_FILE_MAX ? SECRET_FILE_MAX : len] = '\0';
	while (len > 0 && len <= SECRET_FILE_MAX && isspace((unsigned char)buf[len - 1]))
		buf[--len] = '\0';
	if (e || len == 0 || len > SECRET_FILE_MAX) {
		explicit_bzero(buf, SECRET_FILE_MAX + 1);
		free(buf);
		return dnsb_error_set(err, DNSB_EIO, "%s %s: %s", what, path,
				      e ? strerror(e) : len ? "over 64 KiB: not a secret" : "empty");
	}
	dnsb_secret_register(buf);
	*out = buf;
	return 0;
}
