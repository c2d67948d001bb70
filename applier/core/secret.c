/*
 * secret.c - secrets: the one reader of a secret file for every backend
 * (sys/provider.h: one limit, an error past it, the buffer wiped on every path,
 * no message quoting the content), and the registry of the secrets this
 * process holds, which every printed text is redacted against (secret.h).
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/secret.h"
#include "dnsbatch/sys/provider.h"

#define SECRET_FILE_MAX DNSB_SECRET_FILE_MAX
#define REGISTRY_MAX 64

static struct {
	pthread_mutex_t lock;
	char *secret[REGISTRY_MAX];
	size_t len[REGISTRY_MAX];
	size_t count, next; /* next: the slot the next secret takes once full (the oldest) */
} reg = { PTHREAD_MUTEX_INITIALIZER, { NULL }, { 0 }, 0, 0 };

void dnsb_secret_register(const char *secret)
{
	size_t len = secret ? strlen(secret) : 0;
	char *copy;

	if (len < DNSB_SECRET_MIN_LEN)
		return;
	pthread_mutex_lock(&reg.lock);
	for (size_t i = 0; i < reg.count; i++)
		if (reg.len[i] == len && memcmp(reg.secret[i], secret, len) == 0)
			goto out;
	if ((copy = strdup(secret)) == NULL)
		goto out; /* out of memory: nothing better to do than print it unredacted later */
	if (reg.count < REGISTRY_MAX) {
		reg.secret[reg.count] = copy;
		reg.len[reg.count++] = len;
	} else {
		dnsb_secret_free(reg.secret[reg.next]);
		reg.secret[reg.next] = copy;
		reg.len[reg.next] = len;
		reg.next = (reg.next + 1) % REGISTRY_MAX;
	}
out:
	pthread_mutex_unlock(&reg.lock);
}

/* Replace each occurrence of one secret in text. @return how many */
static size_t redact_one(char *text, const char *secret, size_t len)
{
	static const size_t mask = sizeof(DNSB_SECRET_MASK) - 1; /* < DNSB_SECRET_MIN_LEN: the text shrinks */
	size_t n = 0;
	char *at;

	while ((at = strstr(text, secret)) != NULL) {
		memcpy(at, DNSB_SECRET_MASK, mask);
		memmove(at + mask, at + len, strlen(at + len) + 1);
		text = at + mask;
		n++;
	}
	return n;
}

size_t dnsb_secret_redact(char *text)
{
	size_t n = 0;

	if (text == NULL)
		return 0;
	pthread_mutex_lock(&reg.lock);
	for (size_t i = 0; i < reg.count; i++)
		n += redact_one(text, reg.secret[i], reg.len[i]);
	pthread_mutex_unlock(&reg.lock);
	return n;
}

size_t dnsb_secret_count(void)
{
	size_t n;

	pthread_mutex_lock(&reg.lock);
	n = reg.count;
	pthread_mutex_unlock(&reg.lock);
	return n;
}

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
