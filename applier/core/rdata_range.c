/* rdata_range.c - numeric RDATA fields against their wire width (see rdata_range.h), from one table. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/rdata_range.h"

/* One numeric field: the type, its place among the RDATA's fields (from 0), its name, its width in bits. */
typedef struct numeric_field {
	uint16_t type;
	unsigned index;
	const char *name;
	unsigned bits;
} numeric_field;

/* Type codes (IANA), named here so the table reads as the RFCs do. */
enum { T_MX = 15, T_SRV = 33, T_NAPTR = 35, T_DS = 43, T_SSHFP = 44, T_TLSA = 52, T_SVCB = 64, T_HTTPS = 65,
       T_CAA = 257 };

static const numeric_field fields[] = {
	{ T_MX, 0, "preference", 16 },             /* RFC 1035 §3.3.9 */
	{ T_SRV, 0, "priority", 16 },              /* RFC 2782 */
	{ T_SRV, 1, "weight", 16 },
	{ T_SRV, 2, "port", 16 },
	{ T_NAPTR, 0, "order", 16 },               /* RFC 3403 §4.1 */
	{ T_NAPTR, 1, "preference", 16 },
	{ T_DS, 0, "key tag", 16 },                /* RFC 4034 §5.1 */
	{ T_DS, 1, "algorithm", 8 },
	{ T_DS, 2, "digest type", 8 },
	{ T_SSHFP, 0, "algorithm", 8 },            /* RFC 4255 §3.1 */
	{ T_SSHFP, 1, "fingerprint type", 8 },
	{ T_TLSA, 0, "certificate usage", 8 },     /* RFC 6698 §2.1 */
	{ T_TLSA, 1, "selector", 8 },
	{ T_TLSA, 2, "matching type", 8 },
	{ T_SVCB, 0, "priority", 16 },             /* RFC 9460 §2.2 */
	{ T_HTTPS, 0, "priority", 16 },
	{ T_CAA, 0, "flags", 8 },                  /* RFC 8659 §4.1 */
};

/* Fields are separated by blanks; ldns also takes the parentheses of a multi-line record as blanks. */
static int separator(char c)
{
	return isspace((unsigned char)c) || c == '(' || c == ')';
}

/*
 * The field at `index` (0-based) of rdata, copied into tok (cut at its size).
 * The numeric fields come first in every type of the table, before any
 * quoted string, so blanks alone separate them. @return 1, or 0 when rdata has fewer fields
 */
static int field_at(char *tok, size_t size, const char *rdata, unsigned index)
{
	const char *p = rdata;
	size_t n;

	for (unsigned i = 0;; i++) {
		while (*p && separator(*p))
			p++;
		if (*p == '\0')
			return 0;
		for (n = 0; p[n] && !separator(p[n]); n++)
			;
		if (i == index) {
			if (n >= size)
				n = size - 1;
			memcpy(tok, p, n);
			tok[n] = '\0';
			return 1;
		}
		p += n;
	}
}

/* @return 1 when tok is decimal digits, a sign allowed: a number ldns would convert (with wrapping) */
static int decimal(const char *tok)
{
	const char *d = tok + (*tok == '-' || *tok == '+');

	if (*d == '\0')
		return 0;
	for (; *d; d++)
		if (!isdigit((unsigned char)*d))
			return 0;
	return 1;
}

static int check_field(const numeric_field *f, const char *rdata, const char *type_name, dnsb_error *err)
{
	char tok[64];
	unsigned long long max = (1ULL << f->bits) - 1, v;
	char *end;

	if (!field_at(tok, sizeof(tok), rdata, f->index) || !decimal(tok))
		return 0; /* missing, or a mnemonic: ldns judges it */
	errno = 0;
	v = strtoull(tok + (*tok == '+'), &end, 10);
	if (*tok != '-' && errno == 0 && v <= max)
		return 0;
	return dnsb_error_set(err, DNSB_EINVAL, "%s %s %s is out of range (0 to %llu)", type_name, f->name, tok, max);
}

int dnsb_rdata_check_ranges(uint16_t type, const char *rdata, dnsb_error *err)
{
	static const struct { uint16_t type; const char *name; } names[] = {
		{ T_MX, "MX" }, { T_SRV, "SRV" }, { T_NAPTR, "NAPTR" }, { T_DS, "DS" }, { T_SSHFP, "SSHFP" },
		{ T_TLSA, "TLSA" }, { T_SVCB, "SVCB" }, { T_HTTPS, "HTTPS" }, { T_CAA, "CAA" },
	};
	const char *type_name = "";
	int rc;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].type == type)
			type_name = names[i].name;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].type == type && (rc = check_field(&fields[i], rdata, type_name, err)) < 0)
			return rc;
	return 0;
}
