/* re2.h - a C view of RE2, the regular expression dialect of Go's regexp (not installed). */
#ifndef DNSBATCH_WEBHOOK_RE2_H
#define DNSBATCH_WEBHOOK_RE2_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A compiled expression. Immutable, so it may be shared by threads. Opaque. */
typedef struct dnsb_re2 dnsb_re2;

/**
 * Compile a pattern in RE2 syntax (Go's regexp: `\d`, `(?i)`; no
 * backreferences or lookaround), UTF-8, leftmost-first as Go's default.
 * RE2 logs nothing.
 * @param pattern  NUL-terminated (borrowed, copied)
 * @param errbuf   receives RE2's reason on failure, NUL-terminated and
 *                 truncated to errlen; may be NULL when errlen is 0
 * @param errlen   size of errbuf in bytes
 * @return a new expression (the caller's; dnsb_re2_free), or NULL when
 *         the pattern does not compile or memory ran out (errbuf says which)
 */
dnsb_re2 *dnsb_re2_new(const char *pattern, char *errbuf, size_t errlen);

/**
 * Does the expression match anywhere in text? Unanchored, as Go's
 * Regexp.MatchString: anchor with `^` and `$` in the pattern.
 * @param re    from dnsb_re2_new (borrowed)
 * @param text  NUL-terminated UTF-8 (borrowed)
 * @return 1 on a match, 0 on none, -1 when RE2 failed (out of memory)
 */
int dnsb_re2_partial_match(const dnsb_re2 *re, const char *text);

/** Free an expression. NULL is a no-op. */
void dnsb_re2_free(dnsb_re2 *re);

#ifdef __cplusplus
}
#endif
#endif
