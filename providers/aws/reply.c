/*
 * reply.c - what a Route53 reply means: the class of a
 * ChangeResourceRecordSets answer (docs/design.md §3.1, the reference's Route53
 * section) and every batch change its InvalidChangeBatch messages name.
 * No network here: unit-tested alone.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "providers/aws/aws.h"

/* Every <Message> of an error reply, and its <Code> (the root's name for <InvalidChangeBatch>). */
typedef struct messages {
	char code[64];
	char **text;
	size_t count;
} messages;

static void collect(messages *m, xmlNode *n)
{
	for (; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (strcmp((const char *)n->name, "Message") == 0) {
			xmlChar *t = xmlNodeGetContent(n);
			char **grown = t ? realloc(m->text, (m->count + 1) * sizeof(char *)) : NULL;
			if (grown) {
				m->text = grown;
				if ((m->text[m->count] = strdup((const char *)t)) != NULL)
					m->count++;
			}
			xmlFree(t);
		} else if (strcmp((const char *)n->name, "Code") == 0 && m->code[0] == '\0') {
			xmlChar *t = xmlNodeGetContent(n);
			if (t)
				snprintf(m->code, sizeof(m->code), "%s", (const char *)t);
			xmlFree(t);
		}
		collect(m, n->children);
	}
}

static void messages_read(messages *m, const char *xml, size_t len)
{
	xmlDocPtr doc = xml && len > 0 && len < 0x7fffffff ?
				xmlReadMemory(xml, (int)len, "reply.xml", NULL,
					      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING) :
				NULL;
	xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;

	memset(m, 0, sizeof(*m));
	if (root == NULL)
		return;
	if (strcmp((const char *)root->name, "InvalidChangeBatch") == 0)
		snprintf(m->code, sizeof(m->code), "InvalidChangeBatch");
	collect(m, root);
	xmlFreeDoc(doc);
}

static void messages_clear(messages *m)
{
	for (size_t i = 0; i < m->count; i++)
		free(m->text[i]);
	free(m->text);
}

void dnsb_aws_error_code(char *code, size_t size, const char *xml, size_t len)
{
	messages m;

	messages_read(&m, xml, len);
	snprintf(code, size, "%s", m.code);
	messages_clear(&m);
}

/* ---- culprits ---- */

/* The text between `open` and the next `close` after p, copied into dst. @return the end, or NULL */
static const char *between(char *dst, size_t size, const char *p, const char *open, const char *close)
{
	const char *start = strstr(p, open), *end;

	if (start == NULL)
		return NULL;
	start += strlen(open);
	if ((end = strstr(start, close)) == NULL || (size_t)(end - start) >= size)
		return NULL;
	memcpy(dst, start, (size_t)(end - start));
	dst[end - start] = '\0';
	return end;
}

/*
 * The (name, type) a message names: "[name='N', type='T'" (then maybe ", set-identifier='S'": into sid, which is
 * "" when the bracket names none, NULL for the other form) or "RRSet of type T with DNS name N ". @return 1 if found
 */
static int message_key(const char *msg, char *name, size_t nsize, char *type, size_t tsize, char *sid, size_t ssize,
		       int *keyed)
{
	const char *end;

	*keyed = 0;
	sid[0] = '\0';
	if ((end = between(name, nsize, msg, "[name='", "'")) != NULL &&
	    strncmp(end, "', type='", 9) == 0 && (end = between(type, tsize, end, "type='", "'")) != NULL) {
		*keyed = 1;
		if (strncmp(end, "', set-identifier='", 19) == 0 && between(sid, ssize, end, "set-identifier='", "'") == NULL)
			return 0;
		return 1;
	}
	if ((end = between(type, tsize, msg, "RRSet of type ", " ")) != NULL &&
	    between(name, nsize, end, "with DNS name ", " ") != NULL)
		return 1;
	return 0;
}

/* Is r keyed (owner, type), and, when `sid` is not NULL, with that set identifier ("" none)? */
static int keyed_as(const dnsb_rrset *r, const char *owner, uint16_t type, const char *sid)
{
	return r->type == type && strcmp(r->owner, owner) == 0 &&
	       (sid == NULL || strcmp(r->set_id ? r->set_id : "", sid) == 0);
}

static int holds(const dnsb_change *c, const char *owner, uint16_t type, const char *sid)
{
	if (c->kind != DNSB_CHANGE_CREATE && keyed_as(&c->old, owner, type, sid))
		return 1;
	return c->kind != DNSB_CHANGE_DELETE && keyed_as(&c->new_set, owner, type, sid);
}

/* A new alias of `type` pointing at `target`? */
static int targets(const dnsb_change *c, const char *target, uint16_t type)
{
	return c->kind != DNSB_CHANGE_DELETE && c->new_set.alias != DNSB_ALIAS_NONE && c->new_set.type == type &&
	       c->new_set.rdata_count == 1 && strcmp(c->new_set.rdata[0], target) == 0;
}

/*
 * The Value an "Invalid Resource Record: FATAL problem: CODE (TEXT) encountered with 'V'" message quotes, into
 * dst (also the newer form, "Invalid Resource Record: 'FATAL problem: ... encountered with 'V''"). @return 1 if found
 */
static int refused_value(char *dst, size_t size, const char *msg)
{
	const char *start = strstr(msg, "encountered with '");
	size_t len;

	if (start == NULL)
		return 0;
	start += strlen("encountered with '");
	len = strlen(start);
	if (len > 0 && start[len - 1] == '\'')
		len--;
	if (len > 0 && start[len - 1] == '\'' && strstr(msg, "Record: 'FATAL") != NULL)
		len--;
	if (len == 0 || len >= size)
		return 0;
	memcpy(dst, start, len);
	dst[len] = '\0';
	return 1;
}

/* Does c write the RDATA `value` (presentation format, as sent in a <Value>)? */
static int writes_value(const dnsb_change *c, const char *value)
{
	if (c->kind == DNSB_CHANGE_DELETE || c->new_set.alias != DNSB_ALIAS_NONE)
		return 0;
	for (size_t i = 0; i < c->new_set.rdata_count; i++)
		if (strcmp(c->new_set.rdata[i], value) == 0)
			return 1;
	return 0;
}

/* For a refused value, name the one change writing it; none when several do. */
static void value_culprit(dnsb_result *res, const char *msg, dnsb_change *const *changes, size_t n)
{
	char value[4100];
	size_t found = n, hits = 0;

	if (!refused_value(value, sizeof(value), msg))
		return;
	for (size_t i = 0; i < n; i++)
		if (writes_value(changes[i], value)) {
			found = i;
			hits++;
		}
	if (hits == 1)
		dnsb_result_add_culprit_note(res, found, msg);
}

/*
 * Name the one change holding the message's (name, type, and the set identifier a bracketed name gives, none
 * when it gives none), or, for "Tried to
 * create an alias that targets N, type T in zone Z, ...", the one alias
 * pointing at N, or, for a refused value ("... encountered with 'V'"), the one
 * change writing V; none when several changes do.
 */
static void culprit(dnsb_result *res, const char *msg, dnsb_change *const *changes, size_t n)
{
	char name[1100], tname[32], sid[256], *owner;
	size_t found = n, hits = 0;
	int by_target = 0, keyed = 0;
	uint16_t type;

	if (!message_key(msg, name, sizeof(name), tname, sizeof(tname), sid, sizeof(sid), &keyed)) {
		const char *end = between(name, sizeof(name), msg, "an alias that targets ", ", type ");
		if (end == NULL || between(tname, sizeof(tname), end, ", type ", " in zone ") == NULL) {
			value_culprit(res, msg, changes, n);
			return;
		}
		by_target = 1;
	}
	type = (uint16_t)ldns_get_rr_type_by_name(tname);
	if (type == 0 || (owner = dnsb_aws_name_decode(name)) == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		if (by_target ? targets(changes[i], owner, type) : holds(changes[i], owner, type, keyed ? sid : NULL)) {
			found = i;
			hits++;
		}
	free(owner);
	if (hits == 1)
		dnsb_result_add_culprit_note(res, found, msg);
}

static int is_conflict(const char *msg)
{
	return strstr(msg, "already exists") || strstr(msg, "not found") || strstr(msg, "values provided do not match") ||
	       strstr(msg, "conflicting RRSet of type") || strstr(msg, "conflicts with other records");
}

/* The messages on one line, "; " between them, cut to fit. */
static void join(char *dst, size_t size, const messages *m)
{
	size_t k = 0;

	dst[0] = '\0';
	for (size_t i = 0; i < m->count && k + 1 < size; i++) {
		if (i > 0 && k + 3 < size) {
			memcpy(dst + k, "; ", 2);
			k += 2;
		}
		for (const char *p = m->text[i]; *p && k + 1 < size; p++)
			dst[k++] = iscntrl((unsigned char)*p) ? ' ' : *p;
		dst[k] = '\0';
	}
}

static int one_of(const char *code, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(code, list[i]) == 0)
			return 1;
	return 0;
}

static dnsb_class class_of(const messages *m, long status)
{
	static const char *const fatal[] = { "AccessDenied", "InvalidClientTokenId", "SignatureDoesNotMatch",
					     "NoSuchHostedZone", "ExpiredToken", "UnrecognizedClientException",
					     "MissingAuthenticationToken", "IncompleteSignature", NULL };
	static const char *const slow[] = { "Throttling", "ThrottlingException", "PriorRequestNotComplete", NULL };
	int conflict = 0, shared = dnsb_hb_status_class(status);

	if (one_of(m->code, slow))
		return DNSB_CLASS_RATE_LIMITED;
	/* 2xx, 408 and 5xx, 413, 429: as every backend reads them. */
	if (shared != DNSB_HB_CLASS_OWN)
		return (dnsb_class)shared;
	if (one_of(m->code, fatal) || status == 401 || status == 403 || status == 404)
		return DNSB_CLASS_FATAL;
	if (status != 400)
		return DNSB_CLASS_FATAL;
	for (size_t i = 0; i < m->count; i++) {
		/* "Number of records limit of 1000 exceeded.", and any other per-request limit: split, never drop. */
		if (strstr(m->text[i], "limit of") && strstr(m->text[i], "exceeded"))
			return DNSB_CLASS_TOO_LARGE;
		conflict |= is_conflict(m->text[i]) != 0;
	}
	return conflict ? DNSB_CLASS_CONFLICT : DNSB_CLASS_INVALID;
}

void dnsb_aws_classify(dnsb_result *res, const dnsb_http_response *resp, dnsb_change *const *changes, size_t n)
{
	char text[sizeof(res->message)];
	messages m;
	dnsb_class cls;

	dnsb_result_init(res);
	messages_read(&m, resp->body, resp->body_len);
	cls = class_of(&m, resp->status);
	join(text, sizeof(text), &m);
	if (text[0] == '\0' && resp->body && cls != DNSB_CLASS_OK)
		snprintf(text, sizeof(text), "%.*s", (int)strcspn(resp->body, "\r\n"), resp->body);
	dnsb_result_set(res, cls, (int)resp->status, m.code, "%s", cls == DNSB_CLASS_OK ? "" : text);
	if (cls == DNSB_CLASS_RATE_LIMITED || cls == DNSB_CLASS_TRANSIENT)
		res->retry_after = resp->retry_after;
	if (cls == DNSB_CLASS_CONFLICT || cls == DNSB_CLASS_INVALID)
		for (size_t i = 0; i < m.count; i++)
			culprit(res, m.text[i], changes, n);
	messages_clear(&m);
}

int dnsb_aws_reply_error(const dnsb_http_response *resp, const char *what, dnsb_error *err)
{
	char text[400];
	messages m;
	int code;

	messages_read(&m, resp->body, resp->body_len);
	join(text, sizeof(text), &m);
	code = dnsb_hb_class_code(class_of(&m, resp->status));
	dnsb_error_set(err, code, "%s: HTTP %ld %s: %s", what, resp->status, m.code[0] ? m.code : "-", text);
	messages_clear(&m);
	return code;
}
