/*
 * help_json.c - `dnsbatch help --json`: every command's flags and every
 * provider's, built with json-c from the tables the parse and --help read
 * (the commands' dnsb_cli_option tables, the engine's and the backends'
 * dnsb_flag tables), for man pages and shell completion:
 * {"commands":[{"name":"apply","flags":[{"name":"--plan","arg":"FILE",
 *   "help":"...","secret":false,"default":null}]}],
 *  "providers":[{"name":"pdns","summary":"...","flags":[...]}]}
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/sys/provider.h"
#include "cli.h"

/* One flag's object; NULL out of memory. */
static json_object *flag_object(const char *name, const char *arg, const char *help, int secret, const char *dflt,
				const char *kind)
{
	json_object *o = json_object_new_object();
	char dashed[128];

	if (o == NULL)
		return NULL;
	snprintf(dashed, sizeof(dashed), "--%s", name);
	if (json_object_object_add(o, "name", json_object_new_string(dashed)) != 0 ||
	    json_object_object_add(o, "arg", arg ? json_object_new_string(arg) : NULL) != 0 ||
	    json_object_object_add(o, "help", json_object_new_string(help ? help : "")) != 0 ||
	    json_object_object_add(o, "secret", json_object_new_boolean(secret)) != 0 ||
	    json_object_object_add(o, "default", dflt ? json_object_new_string(dflt) : NULL) != 0 ||
	    json_object_object_add(o, "kind", json_object_new_string(kind)) != 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int add(json_object *array, json_object *item)
{
	if (item == NULL || json_object_array_add(array, item) != 0) {
		json_object_put(item);
		return -1;
	}
	return 0;
}

static int add_options(json_object *flags, const dnsb_cli_option *t)
{
	for (; t && t->name; t++)
		if (add(flags, flag_object(t->name, t->arg, t->help, 0, NULL, t->takes_value ? "string" : "bool")) < 0)
			return -1;
	return 0;
}

/* `serve` 1 gives the engine flags' help as serve prints it. */
static int add_flags(json_object *flags, const dnsb_flag *t, int engine, int serve)
{
	for (; t && t->name; t++) {
		const char *help = engine ? dnsb_cli_engine_flag_help(t, serve) : t->help;
		int secret = (t->opts & DNSB_FLAG_SECRET) != 0;

		if (add(flags, flag_object(t->name, t->arg, help, secret, secret ? NULL : t->dflt,
					   dnsb_flag_kind_name(t->kind))) < 0)
			return -1;
	}
	return 0;
}

static json_object *command_object(const dnsb_cli_command *c)
{
	json_object *o = json_object_new_object(), *flags = json_object_new_array();
	static const dnsb_cli_option version[] = { { "version", 0, 'V', NULL, "print the version" },
						   { NULL, 0, 0, NULL, NULL } };

	if (o == NULL || flags == NULL || json_object_object_add(o, "name", json_object_new_string(c->name)) != 0 ||
	    json_object_object_add(o, "flags", flags) != 0) {
		json_object_put(o);
		json_object_put(flags);
		return NULL;
	}
	if (add_options(flags, c->options) < 0 || add_options(flags, version) < 0 ||
	    (c->engine && add_flags(flags, dnsb_cli_engine_flags, 1, strcmp(c->name, "serve") == 0) < 0) ||
	    (c->providers && add_options(flags, dnsb_cli_provider_options) < 0)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *provider_object(const dnsb_backend *b)
{
	json_object *o = json_object_new_object(), *flags = json_object_new_array();

	if (o == NULL || flags == NULL || json_object_object_add(o, "name", json_object_new_string(b->name)) != 0 ||
	    json_object_object_add(o, "summary", json_object_new_string(b->summary)) != 0 ||
	    json_object_object_add(o, "flags", flags) != 0) {
		json_object_put(o);
		json_object_put(flags);
		return NULL;
	}
	if (add_flags(flags, b->flags, 0, 0) < 0 || add_flags(flags, b->shared_flags, 0, 0) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *help_document(const dnsb_cli_command *commands, size_t n)
{
	json_object *doc = json_object_new_object(), *cmds = json_object_new_array(), *provs = json_object_new_array();
	const dnsb_backend *const *b = dnsb_backends();

	if (doc == NULL || cmds == NULL || provs == NULL || json_object_object_add(doc, "commands", cmds) != 0) {
		json_object_put(doc);
		json_object_put(cmds);
		json_object_put(provs);
		return NULL;
	}
	if (json_object_object_add(doc, "providers", provs) != 0) {
		json_object_put(provs);
		json_object_put(doc);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (add(cmds, command_object(&commands[i])) < 0)
			goto fail;
	for (size_t k = 0; b[k]; k++)
		if (add(provs, provider_object(b[k])) < 0)
			goto fail;
	return doc;
fail:
	json_object_put(doc);
	return NULL;
}

int dnsb_cli_help_json(FILE *out, const dnsb_cli_command *commands, size_t n)
{
	json_object *doc = help_document(commands, n);
	const char *text;

	if (doc == NULL || (text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_NOSLASHESCAPE)) == NULL) {
		json_object_put(doc);
		fprintf(stderr, "dnsbatch help: out of memory\n");
		return DNSB_EXIT_INTERNAL;
	}
	fprintf(out, "%s\n", text);
	json_object_put(doc);
	return DNSB_EXIT_OK;
}
