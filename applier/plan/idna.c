/*
 * idna.c - an owner name as external-dns keys it: internationalised labels in
 * their ASCII (punycode) form.
 *
 * external-dns's plan compares names through idna.NormalizeDNSName
 * (internal/idna: golang.org/x/net/idna with MapForLookup, Transitional(true),
 * StrictDomainName(false)): "café" is "xn--caf-dma", "Straße" is "strasse",
 * underscores and "*" pass. A name written in UTF-8 would otherwise be stored
 * as raw octets (caf\195\169) and never match the punycode record a zone
 * already holds. libidn2's UTS #46 transitional processing is the same
 * profile. Go keeps what it cannot convert and warns; so does this, label by
 * label, so that one odd label does not stop the others.
 */
#include <stdlib.h>
#include <string.h>

#include <idn2.h>

#include "dnsbatch/common.h"
#include "applier/plan/internal.h"

static int ascii_only(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80)
			return 0;
	return 1;
}

/* Append one label (converted when it is not ASCII) to *out, growing it with room for a dot after.
 * @return 0 or DNSB_ENOMEM */
static int append_label(char **out, size_t *used, size_t *cap, const char *label, size_t len)
{
	char *in = NULL, *ascii = NULL;
	const char *text = label;
	size_t tlen = len;

	if (!ascii_only(label, len)) {
		if ((in = strndup(label, len)) == NULL)
			return DNSB_ENOMEM;
		if (idn2_to_ascii_8z(in, &ascii, IDN2_NFC_INPUT | IDN2_TRANSITIONAL) == IDN2_OK) {
			text = ascii;
			tlen = strlen(ascii);
		}
	}
	if (*used + tlen + 2 > *cap) {
		size_t grown_cap = *cap * 2 + tlen + 2;
		char *grown = realloc(*out, grown_cap);
		if (grown == NULL) {
			idn2_free(ascii);
			free(in);
			return DNSB_ENOMEM;
		}
		*out = grown;
		*cap = grown_cap;
	}
	memcpy(*out + *used, text, tlen);
	*used += tlen;
	(*out)[*used] = '\0';
	idn2_free(ascii);
	free(in);
	return 0;
}

int dnsb_name_to_ascii(char **out, const char *name)
{
	size_t used = 0, cap = strlen(name) + 16;
	char *s;

	*out = NULL;
	if (ascii_only(name, strlen(name)))
		return 0;
	if ((s = malloc(cap)) == NULL)
		return DNSB_ENOMEM;
	for (const char *p = name;;) {
		size_t len = strcspn(p, ".");
		if (append_label(&s, &used, &cap, p, len) != 0) {
			free(s);
			return DNSB_ENOMEM;
		}
		if (p[len] == '\0')
			break;
		s[used++] = '.';
		s[used] = '\0';
		p += len + 1;
	}
	*out = s;
	return 0;
}
