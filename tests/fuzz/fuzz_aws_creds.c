/*
 * fuzz_aws_creds.c - libFuzzer: any bytes as what the AWS credential chain
 * and Route53's GetChange read: the shared credentials file (two profiles),
 * a container-credentials or IMDS reply, an STS AssumeRoleWithWebIdentity
 * reply and its error code, a GetChange reply's status and change id, and the
 * timestamps they carry.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* memfd_create */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "providers/aws/aws.h"
#include "fuzz_common.h"

/* The credentials file, read as the chain reads it: from a path (a memfd's). */
static void credentials_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	dnsb_aws_keys keys;
	dnsb_error err;

	if (fd < 0 && (fd = memfd_create("credentials", MFD_CLOEXEC)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	for (int p = 0; p < 2; p++) {
		memset(&keys, 0, sizeof(keys));
		(void)dnsb_aws_creds_file(&keys, path, p ? "dev" : "default", &err);
		dnsb_aws_keys_clear(&keys);
	}
}

/* An STS or GetChange reply, as creds.c and insync.c read them. */
static void xml_replies(const char *text, size_t size)
{
	static const char *const fields[] = { "AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration",
					      "Status", "Id", "SubmittedAt" };
	char code[64];

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		char *v = dnsb_aws_xml_find(text, size, fields[i]);
		(void)dnsb_aws_time(v);
		free(v);
	}
	dnsb_aws_error_code(code, sizeof(code), text, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	dnsb_http_response resp;
	dnsb_aws_keys keys;
	dnsb_error err;

	if (text == NULL)
		return 0;
	credentials_file(data, size);
	fuzz_reply(&resp, 200, text, size, -1, NULL);
	memset(&keys, 0, sizeof(keys));
	(void)dnsb_aws_keys_from_json(&keys, &resp, "IMDS credentials", &err);
	dnsb_aws_keys_clear(&keys);
	xml_replies(text, size);
	(void)dnsb_aws_time(text);
	free(text);
	return 0;
}
