/*
 * parse.c - the external-dns POST /records body to changes on RRsets.
 *
 * Structure errors (not JSON, not a plan) stop the parse with the JSON path;
 * a well-formed endpoint whose values are wrong becomes a change dropped as
 * `invalid`, so that one bad record never stops the rest.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <json-c/json.h>
#include <ldns/ldns.h>

#include "dnsbatch/log.h"
#include "dnsbatch/plan.h"
#include "applier/core/array.h"
#include "applier/core/par.h"
#include "applier/plan/internal.h"

struct dnsb_plan {
	dnsb_change *changes;
	size_t count;
	size_t capacity;
};

/* Where we are, for messages: "plan.json: $.create[3].targets[0]". */
typedef struct parse_ctx {
	const char *source;
	dnsb_error *err;
} parse_ctx;

static void clear_change(void *ctx, size_t i)
{
	dnsb_plan_change_clear(&((dnsb_plan *)ctx)->changes[i]);
}

void dnsb_plan_free(dnsb_plan *plan)
{
	if (plan == NULL)
		return;
	dnsb_par_for(plan->count, clear_change, plan); /* a long plan in two halves at once */
	free(plan->changes);
	free(plan);
}

size_t dnsb_plan_count(const dnsb_plan *plan)
{
	return plan->count;
}

dnsb_change *dnsb_plan_change(dnsb_plan *plan, size_t i)
{
	return i < plan->count ? &plan->changes[i] : NULL;
}

static dnsb_change *plan_append(dnsb_plan *plan)
{
	if (DNSB_ARRAY_RESERVE(plan->changes, plan->capacity, plan->count + 1, 64) < 0)
		return NULL;
	memset(&plan->changes[plan->count], 0, sizeof(dnsb_change));
	return &plan->changes[plan->count++];
}

static int add_change(dnsb_plan *plan, dnsb_change_kind kind, json_object *old_ep, json_object *new_ep, size_t index)
{
	dnsb_change *c = plan_append(plan);
	int rc;

	if (c == NULL)
		return DNSB_ENOMEM;
	c->kind = kind;
	c->plan_index = index;
	if (old_ep && (rc = dnsb_plan_read_side(c, old_ep, 1)) < 0)
		return rc;
	if (new_ep && (rc = dnsb_plan_read_side(c, new_ep, 0)) < 0)
		return rc;
	return dnsb_plan_finish_change(c);
}


static int find_lists(parse_ctx *ctx, json_object *root, json_object *lists[L_COUNT])
{
	memset(lists, 0, L_COUNT * sizeof(lists[0]));
	json_object_object_foreach(root, key, val) {
		int which = -1;
		for (int l = 0; l < L_COUNT; l++)
			if (strcasecmp(key, dnsb_plan_list_names[l]) == 0)
				which = l;
		if (which < 0) {
			/* external-dns's Go decoder ignores unknown fields; so do we, loudly. */
			dnsb_log(DNSB_LOG_WARN, "%s: $.%s: unknown key ignored", ctx->source, key);
			continue;
		}
		if (lists[which] != NULL)
			return dnsb_error_set(ctx->err, DNSB_EPARSE, "%s: $.%s: the list '%s' is given twice",
					      ctx->source, key, dnsb_plan_list_names[which]);
		if (val != NULL && !json_object_is_type(val, json_type_array))
			return dnsb_error_set(ctx->err, DNSB_EPARSE, "%s: $.%s: expected an array of endpoints",
					      ctx->source, key);
		lists[which] = val ? val : json_object_new_array(); /* null is an empty list */
		if (val == NULL)
			json_object_object_add(root, key, lists[which]);
	}
	return 0;
}

/* Let go of a list's endpoint once its change is built. @return 0 or DNSB_ENOMEM */
static int release(json_object *list, size_t i)
{
	return json_object_array_put_idx(list, i, NULL) == 0 ? 0 : DNSB_ENOMEM;
}

static int build_changes(parse_ctx *ctx, dnsb_plan *plan, json_object *lists[L_COUNT])
{
	size_t n_old = lists[L_UPDATE_OLD] ? json_object_array_length(lists[L_UPDATE_OLD]) : 0;
	size_t n_new = lists[L_UPDATE_NEW] ? json_object_array_length(lists[L_UPDATE_NEW]) : 0;
	int rc;

	for (int l = 0; l < L_COUNT; l++) {
		for (size_t i = 0; lists[l] && i < json_object_array_length(lists[l]); i++)
			if ((rc = dnsb_plan_check_shape(ctx->source, ctx->err, dnsb_plan_list_names[l], i,
							json_object_array_get_idx(lists[l], i))) < 0)
				return rc;
	}
	if (n_old != n_new)
		return dnsb_error_set(ctx->err, DNSB_EPARSE,
				      "%s: $.updateOld has %zu endpoints and $.updateNew %zu: they pair by position",
				      ctx->source, n_old, n_new);
	/* Each endpoint read is let go of at once (the change keeps what it needs): the tree shrinks as the plan grows. */
	for (size_t i = 0; lists[L_CREATE] && i < json_object_array_length(lists[L_CREATE]); i++)
		if ((rc = add_change(plan, DNSB_CHANGE_CREATE, NULL, json_object_array_get_idx(lists[L_CREATE], i), i)) < 0 ||
		    (rc = release(lists[L_CREATE], i)) < 0)
			return rc;
	for (size_t i = 0; i < n_old; i++)
		if ((rc = add_change(plan, DNSB_CHANGE_UPDATE, json_object_array_get_idx(lists[L_UPDATE_OLD], i),
				     json_object_array_get_idx(lists[L_UPDATE_NEW], i), i)) < 0 ||
		    (rc = release(lists[L_UPDATE_OLD], i)) < 0 || (rc = release(lists[L_UPDATE_NEW], i)) < 0)
			return rc;
	for (size_t i = 0; lists[L_DELETE] && i < json_object_array_length(lists[L_DELETE]); i++)
		if ((rc = add_change(plan, DNSB_CHANGE_DELETE, json_object_array_get_idx(lists[L_DELETE], i), NULL, i)) < 0 ||
		    (rc = release(lists[L_DELETE], i)) < 0)
			return rc;
	return 0;
}

/* Line and column of a byte offset, for syntax errors. */
static void position(const char *json, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (json[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* Whether the syntax error at `off` of json[0..len) is a `]` or `}` right after a `,`: a trailing comma. */
static int trailing_comma(const char *json, size_t len, size_t off)
{
	size_t i = off;

	if (off >= len || (json[off] != ']' && json[off] != '}'))
		return 0;
	while (i > 0 && (json[i - 1] == ' ' || json[i - 1] == '\n' || json[i - 1] == '\r' || json[i - 1] == '\t'))
		i--;
	return i > 0 && json[i - 1] == ',';
}

static int parse_json(json_object **out, parse_ctx *ctx, const char *json, size_t len)
{
	json_tokener *tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	enum json_tokener_error jerr;
	size_t end, line, col;
	json_object *root;

	if (tok == NULL)
		return DNSB_ENOMEM;
	json_tokener_set_flags(tok, DNSB_PLAN_JSON_FLAGS);
	if (len > INT_MAX) {
		json_tokener_free(tok);
		return dnsb_error_set(ctx->err, DNSB_EPARSE, "%s: larger than 2 GiB", ctx->source);
	}
	root = json_tokener_parse_ex(tok, json, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue && root == NULL) {
		/* A bare number at the very end waits for a delimiter: the end of input is one. */
		root = json_tokener_parse_ex(tok, "", 1);
		if ((jerr = json_tokener_get_error(tok)) != json_tokener_success)
			jerr = json_tokener_continue; /* truly cut short */
		end = len;
	}
	if (jerr == json_tokener_success && root == NULL) {
		/* The document `null`: Go's decoder leaves plan.Changes empty, and
		 * external-dns's own webhook tests send it expecting success. */
		if ((root = json_object_new_object()) == NULL) {
			json_tokener_free(tok);
			return DNSB_ENOMEM;
		}
	}
	json_tokener_free(tok);
	if (root == NULL || jerr != json_tokener_success) {
		json_object_put(root);
		if (len >= 2 && ((unsigned char)json[0] == 0xFF || (unsigned char)json[0] == 0xFE) &&
		    ((unsigned char)json[1] ^ (unsigned char)json[0]) == 0x01)
			return dnsb_error_set(ctx->err, DNSB_EPARSE, "%s: not JSON: the text starts with a UTF-16 byte order "
					      "mark; a plan is UTF-8 (RFC 8259 §8.1): convert it with iconv -f UTF-16 -t UTF-8",
					      ctx->source);
		position(json, end, &line, &col);
		if (jerr == json_tokener_continue || jerr == json_tokener_success)
			return dnsb_error_set(ctx->err, DNSB_EPARSE, "%s:%zu:%zu: not JSON: unexpected end of input",
					      ctx->source, line, col);
		return dnsb_error_set(ctx->err, DNSB_EPARSE, "%s:%zu:%zu (offset %zu): not JSON: %s", ctx->source,
				      line, col, end, trailing_comma(json, len, end) ? "a comma before the closing bracket "
				      "(RFC 8259 JSON allows no trailing comma)" : json_tokener_error_desc(jerr));
	}
	for (size_t i = end; i < len; i++) {
		if (json[i] != ' ' && json[i] != '\n' && json[i] != '\r' && json[i] != '\t') {
			json_object_put(root);
			position(json, i, &line, &col);
			return dnsb_error_set(ctx->err, DNSB_EPARSE,
					      "%s:%zu:%zu (offset %zu): not JSON: data after the end of the document",
					      ctx->source, line, col, i);
		}
	}
	*out = root;
	return 0;
}

/* The plan's changes read, whichever way: duplicates marked, then *out. @return 0, or DNSB_ENOMEM */
static int finish(dnsb_plan **out, dnsb_plan *plan, parse_ctx *ctx)
{
	int rc = dnsb_plan_mark_duplicates(plan->changes, plan->count);

	if (rc == 0)
		rc = dnsb_plan_mark_create_delete(plan->changes, plan->count);

	if (rc < 0) {
		dnsb_plan_free(plan);
		return dnsb_error_set(ctx->err, rc, "%s: out of memory", ctx->source);
	}
	*out = plan;
	return 0;
}

int dnsb_plan_parse(dnsb_plan **out, const char *json, size_t len, const char *source, dnsb_error *err)
{
	parse_ctx ctx = { source ? source : "plan", err };
	json_object *root = NULL, *lists[L_COUNT];
	char where[640];
	dnsb_plan *plan;
	int rc;

	*out = NULL;
	if (len >= 3 && memcmp(json, "\xEF\xBB\xBF", 3) == 0) {
		json += 3; /* a UTF-8 byte order mark, which RFC 8259 §8.1 lets a parser ignore */
		len -= 3;
	}
	if ((plan = calloc(1, sizeof(*plan))) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "%s: out of memory", ctx.source);
	rc = dnsb_plan_stream(&plan->changes, &plan->count, json, len, ctx.source);
	if (rc == 0) {
		plan->capacity = plan->count;
		return finish(out, plan, &ctx);
	}
	free(plan);
	if (rc < 0)
		return dnsb_error_set(err, rc, "%s: out of memory", ctx.source);
	/* Not a plan json-c can read an endpoint at a time: the whole tree, which names what is wrong. */
	if ((rc = parse_json(&root, &ctx, json, len)) < 0)
		return rc;
	if (!dnsb_json_text_plainly_utf8(json, len) && dnsb_json_check_utf8(where, sizeof(where), root)) {
		json_object_put(root);
		return dnsb_error_set(err, DNSB_EPARSE, "%s: %s", ctx.source, where);
	}
	if ((rc = dnsb_plan_refuse_not_plan(ctx.source, err, root)) < 0) {
		json_object_put(root);
		return rc;
	}
	if ((plan = calloc(1, sizeof(*plan))) == NULL) {
		json_object_put(root);
		return dnsb_error_set(err, DNSB_ENOMEM, "%s: out of memory", ctx.source);
	}
	if ((rc = find_lists(&ctx, root, lists)) == 0)
		rc = build_changes(&ctx, plan, lists);
	json_object_put(root); /* the changes hold references to their endpoints */
	if (rc < 0) {
		if (rc == DNSB_ENOMEM)
			dnsb_error_set(err, rc, "%s: out of memory", ctx.source);
		dnsb_plan_free(plan);
		return rc;
	}
	return finish(out, plan, &ctx);
}

int dnsb_plan_load(dnsb_plan **out, const char *path, dnsb_error *err)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int rc;

	*out = NULL;
	if (f == NULL)
		return dnsb_error_set(err, DNSB_EIO, "%s: %s", path, strerror(errno));
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return dnsb_error_set(err, DNSB_EIO, "%s: %s: the plan is one file, external-dns's POST /records body "
				      "as JSON", path, strerror(EISDIR));
	}
	for (;;) {
		if (DNSB_ARRAY_RESERVE(buf, cap, len + 65536, 262144) < 0) {  /* at least 64 KiB free to read into */
			free(buf);
			fclose(f);
			return DNSB_ENOMEM;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		int saved = errno;
		free(buf);
		fclose(f);
		return dnsb_error_set(err, DNSB_EIO, "%s: %s", path, strerror(saved));
	}
	fclose(f);
	rc = dnsb_plan_parse(out, buf, len, path, err);
	free(buf);
	return rc;
}
