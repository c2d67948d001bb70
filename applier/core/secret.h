/*
 * secret.h - the secrets this process holds, so that no text it prints holds
 * one, whatever the text's source (issue 38 §4: a PowerDNS echoing X-API-Key
 * in an error body, a Redis echoing AUTH in its refusal). Every secret read
 * by dnsb_secret_read_file is registered; a backend registers the others it
 * takes (from the environment, a token it was issued) with
 * dnsb_secret_register. dnsb_error_set, dnsb_result_set and the log writer
 * pass their text through dnsb_secret_redact.
 */
#ifndef DNSBATCH_CORE_SECRET_H
#define DNSBATCH_CORE_SECRET_H

#include <stddef.h>

/** Secrets shorter than this are not registered: redacting them would redact common words. */
#define DNSB_SECRET_MIN_LEN 6

/** What a secret is replaced with in printed text. */
#define DNSB_SECRET_MASK "***"

/**
 * Register a secret (copied; the copy wiped at exit is not promised: the
 * process is made non-dumpable instead). Thread-safe. A secret already held,
 * NULL, or shorter than DNSB_SECRET_MIN_LEN is ignored; past 64 secrets the
 * oldest is forgotten (a token refreshed many times).
 */
void dnsb_secret_register(const char *secret);

/**
 * Replace every registered secret in `text` (NUL-terminated, changed in
 * place; it never grows) by DNSB_SECRET_MASK. Thread-safe.
 * @return how many were replaced
 */
size_t dnsb_secret_redact(char *text);

/** @return how many secrets are registered: once > 0, the process holds secrets */
size_t dnsb_secret_count(void);

#endif
