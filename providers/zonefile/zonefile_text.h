/*
 * zonefile_text.h - internal: writing a zone file back as its author wrote it
 * (providers/zonefile/zonefile_text.c).
 */
#ifndef DNSB_ZONEFILE_TEXT_H
#define DNSB_ZONEFILE_TEXT_H

#include <stdio.h>

#include "providers/common/store.h"

/*
 * Write the store's zone to `out`, keeping the old file's text where its
 * records are still held: unchanged records keep their lines and comments,
 * directives and blank lines stay, deleted records lose their lines, new
 * ones (absolute names, printed by ldns) go after their owner's last line or
 * at the end, and the SOA keeps its text with only the serial changed
 * (printed anew in its place when more than the serial changed).
 * @param old  the file as it is now, open for reading at its start (borrowed)
 * @return 0; DNSB_EPARSE when its text cannot be kept exactly: the old file
 *         no longer reads as the store read it, holds a NUL byte, or its
 *         end reads on past its last line (a '(' left open: ldns would read
 *         the records printed after it as part of it); the caller then
 *         writes the zone whole;
 *         DNSB_EINVAL when an RRset cannot be printed; DNSB_ENOMEM
 */
int dnsb_zonefile_rewrite(FILE *out, FILE *old, const dnsb_store *store, dnsb_error *err);

/*
 * Refuse a zone file that is not text: a NUL byte, which ldns skips
 * ("mx\0 IN A" reads as "mx IN A") where named does not, so that what the
 * file holds is in doubt. Called before the file is loaded.
 * @param path  the zone file (borrowed)
 * @return 0; DNSB_EPARSE naming the file and the line of the first NUL byte;
 *         DNSB_EIO when it cannot be read (err filled on every error)
 */
int dnsb_zonefile_check_text(const char *path, dnsb_error *err);

#endif
