/*
 * secret.c - the registry of the secrets this process holds, which every
 * printed text is redacted against (secret.h; dnsb_error_set calls
 * dnsb_secret_redact, so nothing here sets an error), and the wiping free.
 * The secret file reader is secret_file.c.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/secret.h"
#include "dnsbatch/sys/provider.h"

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

void dnsb_secret_free(char *secret)
{
	if (secret == NULL)
		return;
	explicit_bzero(secret, strlen(secret));
	free(secret);
}
