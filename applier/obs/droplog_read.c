/* droplog_read.c - a drop log read back: counts by zone, outcome, reason and type (or --by), its lines, its changes as one plan. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "applier/core/array.h"
#include "applier/obs/droplog_read.h"

/* The state of one read: the summary being filled and its indexes. */
struct reader {
	dnsb_drops *out;
	struct json_object *row_index; /* JSON array of the four keys -> row number */
	struct json_object *seen;      /* a change's JSON text -> NULL: changes already in the plan */
	size_t row_cap;
};

static const char *str_field(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v) : "";
}

/* A line of a change in effect now: the end of a quarantine (dnsbatch/droplog.h), not a drop. */
static int in_effect(struct json_object *entry)
{
	const char *outcome = str_field(entry, "outcome");

	return strcmp(outcome, "applied") == 0 || strcmp(outcome, "already_applied") == 0;
}

/* The record type of a change in plan form: the first endpoint's recordType. */
static const char *record_type(struct json_object *change)
{
	json_object_object_foreach(change, key, list) {
		(void)key;
		if (json_object_is_type(list, json_type_array) && json_object_array_length(list) > 0)
			return str_field(json_object_array_get_idx(list, 0), "recordType");
	}
	return "";
}

/* The grouping fields --by knows, and the default grouping. */
static const char *const known_fields[] = { "zone", "outcome", "reason", "type", "cause", "owner", NULL };
static const char *const default_by[] = { "zone", "outcome", "reason", "type", NULL };

int dnsb_drops_parse_by(const char **fields, char *buf, size_t size, const char *list, dnsb_error *err)
{
	size_t n = 0;
	char *save = NULL;

	if (snprintf(buf, size, "%s", list) >= (int)size)
		return dnsb_error_set(err, DNSB_EINVAL, "--by: too long");
	for (char *f = strtok_r(buf, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		size_t k = 0;
		while (known_fields[k] && strcmp(known_fields[k], f) != 0)
			k++;
		if (known_fields[k] == NULL)
			return dnsb_error_set(err, DNSB_EINVAL, "--by: unknown field '%s' (zone, outcome, reason, type, "
					      "cause, owner)", f);
		if (n == DNSB_DROPS_BY_MAX)
			return dnsb_error_set(err, DNSB_EINVAL, "--by: at most %d fields", DNSB_DROPS_BY_MAX);
		fields[n++] = known_fields[k];
	}
	if (n == 0)
		return dnsb_error_set(err, DNSB_EINVAL, "--by: no field given");
	fields[n] = NULL;
	return 0;
}

/* A line's value of one grouping field. */
static const char *field_of(struct json_object *entry, struct json_object *change, const char *field)
{
	const char *v;

	if (strcmp(field, "type") == 0)
		return record_type(change);
	if (strcmp(field, "zone") == 0)
		return *(v = str_field(entry, "zone")) ? v : "-";
	if (strcmp(field, "owner") == 0)
		return *(v = str_field(entry, "owner")) ? v : "-";
	return str_field(entry, field);
}

static int add_row(struct reader *r, const char *const *values)
{
	dnsb_drops *d = r->out;
	dnsb_drops_row *row;
	int rc = 0;

	if (DNSB_ARRAY_RESERVE(d->rows, r->row_cap, d->row_count + 1, 8) < 0)
		return DNSB_ENOMEM;
	row = &d->rows[d->row_count];
	memset(row, 0, sizeof(*row));
	row->count = 1;
	d->row_count++; /* counted before the copies: dnsb_drops_clear frees what was copied */
	for (size_t i = 0; i < d->by_count; i++)
		if ((row->values[i] = strdup(values[i])) == NULL)
			rc = DNSB_ENOMEM;
	return rc;
}

/* The changes a line stands for: 1, or its "omitted" count (dnsb_droplog_write_omitted). */
static size_t weight_of(struct json_object *entry)
{
	struct json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(entry, "omitted", &v) || (n = json_object_get_int64(v)) < 1)
		return 1;
	return (size_t)n;
}

/* Count one line under its values of the grouping fields. */
static int count_line(struct reader *r, struct json_object *entry, struct json_object *change)
{
	const char *values[DNSB_DROPS_BY_MAX];
	struct json_object *key = json_object_new_array_ext((int)r->out->by_count), *n;
	const char *text;
	int rc = DNSB_ENOMEM;

	for (size_t i = 0; i < r->out->by_count; i++)
		values[i] = field_of(entry, change, r->out->by[i]);
	/* A JSON array as the index key: no separator character a field could hold makes two kinds one. */
	for (size_t i = 0; key && i < r->out->by_count; i++)
		if (json_object_array_add(key, json_object_new_string(values[i])) != 0)
			goto done;
	if (key == NULL || (text = json_object_to_json_string_ext(key, JSON_C_TO_STRING_PLAIN)) == NULL)
		goto done;
	if (json_object_object_get_ex(r->row_index, text, &n)) {
		r->out->rows[json_object_get_int64(n)].count += weight_of(entry);
		rc = 0;
	} else if ((rc = add_row(r, values)) == 0 &&
		   json_object_object_add(r->row_index, text, json_object_new_int64((int64_t)r->out->row_count - 1)) != 0) {
		rc = DNSB_ENOMEM;
	} else if (rc == 0) {
		r->out->rows[r->out->row_count - 1].count = weight_of(entry);
	}
done:
	json_object_put(key);
	return rc;
}

/* Append each endpoint list of a change to the plan's list of the same key, once per distinct change. */
static int merge_change(struct reader *r, struct json_object *change)
{
	const char *text = json_object_to_json_string_ext(change, JSON_C_TO_STRING_PLAIN);

	if (text == NULL)
		return DNSB_ENOMEM;
	if (json_object_object_get_ex(r->seen, text, NULL))
		return 0;
	if (json_object_object_add(r->seen, text, NULL) != 0)
		return DNSB_ENOMEM;
	json_object_object_foreach(change, key, list) {
		struct json_object *dest;
		if (!json_object_is_type(list, json_type_array))
			continue;
		if (!json_object_object_get_ex(r->out->plan, key, &dest)) {
			if ((dest = json_object_new_array()) == NULL ||
			    json_object_object_add(r->out->plan, key, dest) != 0) {
				json_object_put(dest);
				return DNSB_ENOMEM;
			}
		}
		for (size_t i = 0; i < json_object_array_length(list); i++)
			if (json_object_array_add(dest, json_object_get(json_object_array_get_idx(list, i))) != 0)
				return DNSB_ENOMEM;
	}
	return 0;
}

/* One line of `len` bytes (it may hold NUL bytes: all of it must be the one JSON object). */
static int parse_line(struct json_object **entry, const char *line, size_t len, const char *path, size_t lineno,
		      dnsb_error *err)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error jerr;
	size_t used;

	*entry = NULL;
	if (len > (size_t)INT32_MAX) {
		json_tokener_free(tok);
		return dnsb_error_set(err, DNSB_EPARSE, "%s:%zu: not a drop log line (longer than 2 GiB)", path, lineno);
	}
	if (tok == NULL)
		return DNSB_ENOMEM;
	*entry = json_tokener_parse_ex(tok, line, (int)len);
	jerr = *entry ? json_tokener_success : json_tokener_get_error(tok);
	if (jerr == json_tokener_continue)
		jerr = json_tokener_error_parse_eof;
	used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (jerr != json_tokener_success)
		return dnsb_error_set(err, DNSB_EPARSE, "%s:%zu: not a drop log line (column %zu: %s)", path, lineno,
				      used + 1, json_tokener_error_desc(jerr));
	if (strspn(line + used, " \t\r\n") != len - used) {
		json_object_put(*entry);
		*entry = NULL;
		return dnsb_error_set(err, DNSB_EPARSE, "%s:%zu: not a drop log line (column %zu: text after the JSON object)",
				      path, lineno, used + 1);
	}
	return 0;
}

static int read_line(struct reader *r, const char *line, size_t len, size_t lineno, const char *path,
		     const dnsb_drops_query *q, dnsb_error *err)
{
	struct json_object *entry, *change;
	int rc;

	if (strspn(line, " \t\r\n") == len)
		return 0;
	if ((rc = parse_line(&entry, line, len, path, lineno, err)) != 0)
		return rc;
	if (!json_object_is_type(entry, json_type_object) || !json_object_object_get_ex(entry, "change", &change) ||
	    !json_object_is_type(change, json_type_object)) {
		json_object_put(entry);
		return dnsb_error_set(err, DNSB_EPARSE, "%s:%zu: not a drop log line (a JSON object with a \"change\" object)",
				      path, lineno);
	}
	if ((q->outcome && strcmp(q->outcome, str_field(entry, "outcome")) != 0) ||
	    (q->reason && strcmp(q->reason, str_field(entry, "reason")) != 0)) {
		json_object_put(entry);
		return 0;
	}
	r->out->selected += weight_of(entry);
	rc = count_line(r, entry, change);
	/* A change in effect (its quarantine ended) is counted, never replayed. */
	if (rc == 0 && !in_effect(entry))
		rc = merge_change(r, change);
	if (rc == 0 && r->out->lines_kept && json_object_array_add(r->out->lines_kept, json_object_get(entry)) != 0) {
		json_object_put(entry);
		rc = DNSB_ENOMEM;
	}
	json_object_put(entry);
	return rc == DNSB_ENOMEM ? dnsb_error_set(err, rc, "%s:%zu: out of memory", path, lineno) : rc;
}

int dnsb_drops_read(dnsb_drops *out, FILE *f, const char *path, const dnsb_drops_query *q, dnsb_error *err)
{
	static const dnsb_drops_query all = { NULL, NULL, NULL, 0 };
	struct reader r = { out, json_object_new_object(), json_object_new_object(), 0 };
	const char *const *by;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	q = q ? q : &all;
	by = q->by ? q->by : default_by;
	while (out->by_count < DNSB_DROPS_BY_MAX && by[out->by_count])
		out->by[out->by_count] = by[out->by_count], out->by_count++;
	if (r.row_index == NULL || r.seen == NULL || (out->plan = json_object_new_object()) == NULL ||
	    (q->keep_lines && (out->lines_kept = json_object_new_array()) == NULL))
		rc = dnsb_error_set(err, DNSB_ENOMEM, "%s: out of memory", path);
	while (rc == 0 && (len = getline(&line, &cap, f)) > 0)
		rc = read_line(&r, line, (size_t)len, ++out->lines, path, q, err);
	if (rc == 0 && ferror(f))
		rc = dnsb_error_set(err, DNSB_EIO, "%s: %s", path, strerror(errno));
	free(line);
	json_object_put(r.row_index);
	json_object_put(r.seen);
	return rc;
}

void dnsb_drops_clear(dnsb_drops *d)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < d->row_count; i++)
		for (size_t k = 0; k < DNSB_DROPS_BY_MAX; k++)
			free(d->rows[i].values[k]);
	free(d->rows);
	json_object_put(d->plan);
	json_object_put(d->lines_kept);
	memset(d, 0, sizeof(*d));
}
