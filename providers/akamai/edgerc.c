/*
 * edgerc.c - one section of an .edgerc file into EdgeGrid credentials. The
 * format is the vendor's (akamai-edgegrid's edgerc.js): "[section]" headers,
 * "key = value" lines, '#' or ';' comment lines, a value optionally in
 * double or single quotes. No value is ever quoted back in a message.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/secret.h"
#include "providers/akamai/akamai.h"

void dnsb_akamai_creds_clear(dnsb_akamai_creds *c)
{
	if (c == NULL)
		return;
	free(c->host);
	free(c->client_token);
	dnsb_secret_free(c->client_secret);
	free(c->access_token);
	memset(c, 0, sizeof(*c));
}

/* [start, end) trimmed of white space, and of one pair of surrounding quotes. */
static void trim(const char **start, const char **end)
{
	while (*start < *end && isspace((unsigned char)**start))
		(*start)++;
	while (*end > *start && isspace((unsigned char)(*end)[-1]))
		(*end)--;
	if (*end - *start >= 2 && (**start == '"' || **start == '\'') && (*end)[-1] == **start) {
		(*start)++;
		(*end)--;
	}
}

/* The field of creds a key names, or NULL (a key this provider does not use). */
static char **field(dnsb_akamai_creds *c, const char *key, size_t len)
{
	static const char *const names[] = { "host", "client_token", "client_secret", "access_token" };
	char **fields[] = { &c->host, &c->client_token, &c->client_secret, &c->access_token };

	for (size_t i = 0; i < 4; i++)
		if (strlen(names[i]) == len && strncmp(names[i], key, len) == 0)
			return fields[i];
	return NULL;
}

/* One "key = value" line of the section. */
static int take_line(dnsb_akamai_creds *out, const char *line, const char *end, const char *where, unsigned lineno,
		     dnsb_error *err)
{
	const char *eq = memchr(line, '=', (size_t)(end - line)), *k = line, *ke = eq, *v, *ve = end;
	char **f, *copy;

	if (eq == NULL)
		return dnsb_error_set(err, DNSB_EINVAL, "%s:%u: expected key = value", where, lineno);
	trim(&k, &ke);
	v = eq + 1;
	trim(&v, &ve);
	if ((size_t)(ke - k) == 8 && strncmp(k, "max_body", 8) == 0) {
		char num[32], *stop;
		snprintf(num, sizeof(num), "%.*s", (int)(ve - v < 31 ? ve - v : 31), v);
		out->max_body = strtoul(num, &stop, 10);
		if (num[0] == '\0' || *stop != '\0' || out->max_body == 0)
			return dnsb_error_set(err, DNSB_EINVAL, "%s:%u: max_body is not a whole number > 0", where, lineno);
		return 0;
	}
	if ((f = field(out, k, (size_t)(ke - k))) == NULL)
		return 0;
	if ((copy = strndup(v, (size_t)(ve - v))) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "%s: out of memory", where);
	if (f == &out->client_secret) {
		dnsb_secret_free(*f);
		dnsb_secret_register(copy);
	} else {
		free(*f);
	}
	*f = copy;
	return 0;
}

int dnsb_akamai_edgerc_parse(dnsb_akamai_creds *out, const char *text, const char *section, const char *where,
			     dnsb_error *err)
{
	const char *p = text;
	int in = 0, found = 0, rc;
	unsigned lineno = 0;

	while (*p) {
		const char *end = p + strcspn(p, "\r\n"), *s = p, *e = end;
		lineno++;
		trim(&s, &e);
		if (s < e && *s == '[') {
			const char *close = memchr(s, ']', (size_t)(e - s));
			if (close == NULL)
				return dnsb_error_set(err, DNSB_EINVAL, "%s:%u: a section header without ']'", where, lineno);
			in = (size_t)(close - s - 1) == strlen(section) && strncmp(s + 1, section, strlen(section)) == 0;
			found |= in;
		} else if (in && s < e && *s != '#' && *s != ';' && (rc = take_line(out, s, e, where, lineno, err)) != 0) {
			return rc;
		}
		p = end + strspn(end, "\r\n");
	}
	if (!found)
		return dnsb_error_set(err, DNSB_ENOTFOUND, "%s: no section [%s]", where, section);
	if (out->max_body == 0)
		out->max_body = DNSB_AKAMAI_MAX_BODY;
	return 0;
}
