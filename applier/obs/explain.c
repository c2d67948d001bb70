/*
 * explain.c - what is in a dropped change's way, in one line, as the text log
 * and `dnsbatch drops --explain` print it:
 *   exists: held as 192.0.2.77 (TTL 300), owner "other" (ingress/default/legacy)
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "dnsbatch/droplog.h"

/* Append to buf (always NUL-terminated, cut at size). */
static void append(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

static const char *member(json_object *obj, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(obj, key, &v) && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

/* Is the Endpoint name `ep` the FQDN `name` (which may end in a dot)? */
static int same_name(const char *ep, const char *name)
{
	size_t len = strlen(ep);

	return name == NULL || (strncmp(ep, name, len) == 0 && (name[len] == '\0' || strcmp(name + len, ".") == 0));
}

const char *dnsb_drop_cause_words(const char *cause, const char *name, const char *type, const char *zone)
{
	size_t n = name ? strlen(name) : 0, z = zone ? strlen(zone) : 0;

	n -= n > 0 && name[n - 1] == '.';
	z -= z > 0 && zone[z - 1] == '.';
	if (cause && strcmp(cause, "cname") == 0 && type && strcmp(type, "CNAME") == 0 && n > 0 && n == z &&
	    strncasecmp(name, zone, n) == 0)
		return "cname at the zone apex (the apex holds SOA and NS, and a CNAME stands alone at its name: use "
		       "A/AAAA records, or the provider's alias)";
	return cause;
}

void dnsb_drop_explain(char *buf, size_t size, const char *cause, const char *name, const char *type,
		       json_object *current, const char *owner, const char *resource)
{
	size_t n = json_object_is_type(current, json_type_array) ? json_object_array_length(current) : 0;

	if (size == 0)
		return;
	buf[0] = '\0';
	append(buf, size, "%s", cause && *cause ? cause : "other");
	for (size_t i = 0; i < n; i++) {
		json_object *ep = json_object_array_get_idx(current, i), *targets = NULL, *ttl = NULL;
		const char *held_type = member(ep, "recordType"), *held_name = member(ep, "dnsName");
		size_t k = 0;

		append(buf, size, i == 0 ? ": held as " : "; ");
		if (held_name && !same_name(held_name, name))
			append(buf, size, "%s. %s ", held_name, held_type ? held_type : "");
		else if (held_type && type && strcmp(held_type, type) != 0)
			append(buf, size, "%s ", held_type);
		if (member(ep, "setIdentifier") && *member(ep, "setIdentifier"))
			append(buf, size, "set '%s' ", member(ep, "setIdentifier"));
		if (json_object_object_get_ex(ep, "targets", &targets) && json_object_is_type(targets, json_type_array))
			for (; k < json_object_array_length(targets); k++)
				append(buf, size, "%s%s", k ? ", " : "",
				       json_object_get_string(json_object_array_get_idx(targets, k)));
		if (json_object_object_get_ex(ep, "recordTTL", &ttl))
			append(buf, size, " (TTL %lld)", (long long)json_object_get_int64(ttl));
	}
	if (current && n == 0)
		append(buf, size, ": nothing held at the name");
	if (owner)
		append(buf, size, ", owner \"%s\"", owner);
	if (owner && resource)
		append(buf, size, " (%s)", resource);
}
