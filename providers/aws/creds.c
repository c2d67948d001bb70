/*
 * creds.c - the AWS credential chain, in the order the issue and the SDKs
 * give: the environment, web identity (STS AssumeRoleWithWebIdentity: EKS
 * IRSA), container credentials (EKS Pod Identity, ECS), the shared
 * credentials file, IMDSv2. Temporary credentials are fetched anew
 * DNSB_AWS_REFRESH_MARGIN seconds before they expire, or after the service
 * called them expired. Keys are wiped when replaced; none is ever printed.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "applier/core/clock.h"
#include "applier/core/secret.h"
#include "dnsbatch/sys/log.h"
#include "providers/aws/aws.h"

void dnsb_aws_keys_clear(dnsb_aws_keys *k)
{
	if (k == NULL)
		return;
	dnsb_secret_free(k->access_key);
	dnsb_secret_free(k->secret);
	dnsb_secret_free(k->token);
	memset(k, 0, sizeof(*k));
}

time_t dnsb_aws_time(const char *text)
{
	struct tm tm = { 0 };
	const char *end;

	if (text == NULL || (end = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL)
		return 0;
	return timegm(&tm);
}

/* Take three strings as the keys (copied); NULL or "" token = none. @return 0 or DNSB_ENOMEM */
static int keys_set(dnsb_aws_keys *k, const char *id, const char *secret, const char *token, time_t expires)
{
	dnsb_aws_keys_clear(k);
	dnsb_secret_register(secret); /* every source's: redacted from all that is printed (an endpoint may echo) */
	dnsb_secret_register(token);
	k->access_key = strdup(id);
	k->secret = strdup(secret);
	k->token = token && *token ? strdup(token) : NULL;
	k->expires = expires;
	if (k->access_key == NULL || k->secret == NULL || (token && *token && k->token == NULL)) {
		dnsb_aws_keys_clear(k);
		return DNSB_ENOMEM;
	}
	return 0;
}

/* ---- the shared credentials file ---- */

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

int dnsb_aws_creds_file(dnsb_aws_keys *out, const char *path, const char *profile, dnsb_error *err)
{
	char *text, *save = NULL, *line, *id = NULL, *secret = NULL, *token = NULL;
	size_t len;
	int in = 0, found = 0, rc;

	memset(out, 0, sizeof(*out));
	/* The one reader of secret files: its limit (DNSB_SECRET_FILE_MAX), an error past it, the text wiped. */
	if ((rc = dnsb_secret_read_file(&text, path, "shared credentials file", err)) != 0)
		return rc;
	len = strlen(text);
	for (line = strtok_r(text, "\n", &save); rc == 0 && line; line = strtok_r(NULL, "\n", &save)) {
		char *s = trim(line), *eq, **slot = NULL;
		if (*s == '#' || *s == ';' || *s == '\0')
			continue;
		if (*s == '[') {
			char *close = strchr(s, ']');
			if (close)
				*close = '\0';
			in = strcmp(trim(s + 1), profile) == 0;
			found |= in;
			continue;
		}
		if (!in || (eq = strchr(s, '=')) == NULL)
			continue;
		*eq = '\0';
		s = trim(s);
		if (strcmp(s, "aws_access_key_id") == 0)
			slot = &id;
		else if (strcmp(s, "aws_secret_access_key") == 0)
			slot = &secret;
		else if (strcmp(s, "aws_session_token") == 0)
			slot = &token;
		if (slot) {
			dnsb_secret_free(*slot);
			if ((*slot = strdup(trim(eq + 1))) == NULL)
				rc = DNSB_ENOMEM;
		}
	}
	explicit_bzero(text, len);
	free(text);
	if (rc == 0 && !found)
		rc = dnsb_error_set(err, DNSB_ENOTFOUND, "shared credentials file %s has no profile [%s]", path, profile);
	else if (rc == 0 && (id == NULL || secret == NULL || !*id || !*secret))
		rc = dnsb_error_set(err, DNSB_EINVAL, "shared credentials file %s, profile [%s]: %s is missing", path,
				    profile, id == NULL || !*id ? "aws_access_key_id" : "aws_secret_access_key");
	else if (rc == 0)
		rc = keys_set(out, id, secret, token, 0);
	if (rc == DNSB_ENOMEM)
		dnsb_error_set(err, rc, "out of memory");
	dnsb_secret_free(id);
	dnsb_secret_free(secret);
	dnsb_secret_free(token);
	return rc;
}

/* ---- choosing the source ---- */

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static int dup_env(char **slot, const char *name)
{
	const char *v = env(name);

	return v == NULL || (*slot = strdup(v)) != NULL ? 0 : DNSB_ENOMEM;
}

/* The shared credentials file: $AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials. */
static int file_path(char *buf, size_t size)
{
	const char *v = env("AWS_SHARED_CREDENTIALS_FILE"), *home = env("HOME");

	if (v)
		return snprintf(buf, size, "%s", v) < (int)size ? 0 : -1;
	if (home == NULL)
		return -1;
	return snprintf(buf, size, "%s/.aws/credentials", home) < (int)size ? 0 : -1;
}

static int init_source(dnsb_aws_creds *c, const dnsb_aws_config *cfg, dnsb_error *err)
{
	const char *profile = cfg->profile ? cfg->profile : "default";
	char path[4096];

	if (env("AWS_ACCESS_KEY_ID") && env("AWS_SECRET_ACCESS_KEY")) {
		c->source = DNSB_AWS_CREDS_ENV;
		snprintf(c->describe, sizeof(c->describe), "$AWS_ACCESS_KEY_ID");
		if (keys_set(&c->keys, env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"), env("AWS_SESSION_TOKEN"), 0) != 0)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		return 0;
	}
	if (env("AWS_ROLE_ARN") && env("AWS_WEB_IDENTITY_TOKEN_FILE")) {
		c->source = DNSB_AWS_CREDS_WEB_IDENTITY;
		snprintf(c->describe, sizeof(c->describe), "web identity (role %.200s)", env("AWS_ROLE_ARN"));
		c->session_name = strdup(env("AWS_ROLE_SESSION_NAME") ? env("AWS_ROLE_SESSION_NAME") : "dnsbatch");
		if (dup_env(&c->role_arn, "AWS_ROLE_ARN") != 0 || dup_env(&c->token_file, "AWS_WEB_IDENTITY_TOKEN_FILE") != 0 ||
		    c->session_name == NULL)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		return 0;
	}
	if (env("AWS_CONTAINER_CREDENTIALS_FULL_URI") || env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")) {
		c->source = DNSB_AWS_CREDS_CONTAINER;
		/* ECS gives a path on its fixed agent address; EKS Pod Identity a full URI. */
		if (env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")) {
			if (asprintf(&c->container_url, DNSB_AWS_ECS_AGENT "%s", env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")) < 0)
				return c->container_url = NULL, dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		} else if (dup_env(&c->container_url, "AWS_CONTAINER_CREDENTIALS_FULL_URI") != 0) {
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		}
		snprintf(c->describe, sizeof(c->describe), "container credentials (%.200s)", c->container_url);
		if (dup_env(&c->container_auth_file, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE") != 0 ||
		    (c->container_auth_file == NULL && dup_env(&c->container_auth, "AWS_CONTAINER_AUTHORIZATION_TOKEN") != 0))
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		dnsb_secret_register(c->container_auth);
		return 0;
	}
	if (file_path(path, sizeof(path)) == 0 && access(path, F_OK) == 0) {
		c->source = DNSB_AWS_CREDS_FILE;
		snprintf(c->describe, sizeof(c->describe), "shared credentials file %.150s [%.60s]", path, profile);
		return dnsb_aws_creds_file(&c->keys, path, profile, err);
	}
	if (cfg->profile)
		return dnsb_error_set(err, DNSB_EINVAL, "profile %s: no shared credentials file (%s)", cfg->profile,
				      env("AWS_SHARED_CREDENTIALS_FILE") ? "$AWS_SHARED_CREDENTIALS_FILE" : "~/.aws/credentials");
	if (env("AWS_EC2_METADATA_DISABLED") && strcasecmp(env("AWS_EC2_METADATA_DISABLED"), "true") == 0)
		return dnsb_error_set(err, DNSB_EINVAL,
				      "no AWS credentials: none in the environment, no web identity, no container credentials, "
				      "no shared credentials file, and $AWS_EC2_METADATA_DISABLED");
	c->source = DNSB_AWS_CREDS_IMDS;
	snprintf(c->describe, sizeof(c->describe),
		 "the EC2 instance metadata service (no keys in the environment, no web identity, no container "
		 "credentials, no shared credentials file)");
	return 0;
}

int dnsb_aws_creds_init(dnsb_aws_creds *c, const dnsb_aws_config *cfg, dnsb_error *err)
{
	const char *imds = env("AWS_EC2_METADATA_SERVICE_ENDPOINT");
	dnsb_error e = { 0, "" };
	int rc;

	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	c->sts_endpoint = strdup(cfg->sts_endpoint);
	c->imds_endpoint = strndup(imds ? imds : DNSB_AWS_IMDS_DEFAULT, strlen(imds ? imds : DNSB_AWS_IMDS_DEFAULT) -
				   ((imds && imds[strlen(imds) - 1] == '/') ? 1 : 0));
	if (c->sts_endpoint == NULL || c->imds_endpoint == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = init_source(c, cfg, &e)) != 0)
		return dnsb_error_set(err, rc, "%s", rc == DNSB_ENOMEM ? "out of memory" : e.message);
	return 0;
}

void dnsb_aws_creds_clear(dnsb_aws_creds *c)
{
	if (c == NULL)
		return;
	dnsb_aws_keys_clear(&c->keys);
	free(c->role_arn);
	free(c->token_file);
	free(c->session_name);
	free(c->container_url);
	free(c->container_auth_file);
	dnsb_secret_free(c->container_auth);
	free(c->sts_endpoint);
	free(c->imds_endpoint);
	pthread_mutex_destroy(&c->lock);
	memset(c, 0, sizeof(*c));
}

/* ---- fetching temporary credentials ---- */

/* A small file's content, trailing white space removed (a token), by the one secret reader (its limit, an error
 * past it: never a token cut short). @return malloc'd (dnsb_secret_free), or NULL with err set (DNSB_EFATAL: a
 * credential that cannot be read stops the provider; DNSB_ENOMEM) */
static char *read_secret_file(const char *path, const char *what, dnsb_error *err)
{
	char *text;
	int rc = dnsb_secret_read_file(&text, path, what, err);

	if (rc == 0)
		return text; /* registered: redacted from all that is printed */
	if (rc != DNSB_ENOMEM && err)
		err->code = DNSB_EFATAL;
	return NULL;
}

static double time_left(double give_up)
{
	double left;

	if (give_up <= 0)
		return DNSB_AWS_TIMEOUT;
	left = give_up - dnsb_monotonic();
	return left > 0.001 ? left : 0.001;
}

/* A non-2xx answer of a credential source: 5xx and 429 may pass, the rest is final. */
static int source_refused(const dnsb_http_response *resp, const char *what, dnsb_error *err)
{
	char code[64] = "";

	dnsb_aws_error_code(code, sizeof(code), resp->body, resp->body_len);
	return dnsb_error_set(err, resp->status >= 500 || resp->status == 429 ? DNSB_ETRANSIENT : DNSB_EFATAL,
			      "%s: HTTP %ld%s%s", what, resp->status, code[0] ? " " : "", code);
}

static int fetch_web_identity(dnsb_aws_creds *c, dnsb_http *http, double give_up, dnsb_aws_keys *out, dnsb_error *err)
{
	const char *headers[] = { "Content-Type: application/x-www-form-urlencoded", "Accept: application/xml", NULL };
	char *token = read_secret_file(c->token_file, "$AWS_WEB_IDENTITY_TOKEN_FILE", err), *body = NULL, *url = NULL;
	char *e_token = NULL, *e_role = NULL, *e_name = NULL, *id = NULL, *secret = NULL, *session = NULL, *exp = NULL;
	dnsb_http_response resp = { 0 };
	int rc = 0;

	if (token == NULL)
		return err->code;
	e_token = dnsb_http_escape(token);
	e_role = dnsb_http_escape(c->role_arn);
	e_name = dnsb_http_escape(c->session_name);
	if (e_token == NULL || e_role == NULL || e_name == NULL ||
	    asprintf(&body, "Action=AssumeRoleWithWebIdentity&RoleArn=%s&RoleSessionName=%s&Version=2011-06-15&WebIdentityToken=%s",
		     e_role, e_name, e_token) < 0 || asprintf(&url, "%s/", c->sts_endpoint) < 0) {
		body = NULL;
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	if (rc == 0) {
		dnsb_http_request req = { "POST", url, headers, body, strlen(body), time_left(give_up) };
		rc = dnsb_http_do_uncounted(http, &req, &resp, err);
	}
	if (rc == 0 && resp.status / 100 != 2)
		rc = source_refused(&resp, "STS AssumeRoleWithWebIdentity", err);
	if (rc == 0) {
		id = dnsb_aws_xml_find(resp.body, resp.body_len, "AccessKeyId");
		secret = dnsb_aws_xml_find(resp.body, resp.body_len, "SecretAccessKey");
		session = dnsb_aws_xml_find(resp.body, resp.body_len, "SessionToken");
		exp = dnsb_aws_xml_find(resp.body, resp.body_len, "Expiration");
		if (id == NULL || secret == NULL || session == NULL)
			rc = dnsb_error_set(err, DNSB_ETRANSIENT, "STS AssumeRoleWithWebIdentity: no credentials in the reply");
		else if ((rc = keys_set(out, id, secret, session, dnsb_aws_time(exp))) != 0)
			dnsb_error_set(err, rc, "out of memory");
	}
	dnsb_http_response_clear(&resp);
	dnsb_secret_free(token);
	dnsb_secret_free(e_token);
	dnsb_secret_free(body);
	dnsb_secret_free(id);
	dnsb_secret_free(secret);
	dnsb_secret_free(session);
	free(exp);
	free(e_role);
	free(e_name);
	free(url);
	return rc;
}

/* {"AccessKeyId", "SecretAccessKey", "Token", "Expiration"}: the container and IMDS answer. */
int dnsb_aws_keys_from_json(dnsb_aws_keys *out, const dnsb_http_response *resp, const char *what, dnsb_error *err)
{
	json_object *doc = json_tokener_parse(resp->body), *id, *secret, *token, *exp;
	int rc;

	if (doc && json_object_object_get_ex(doc, "AccessKeyId", &id) &&
	    json_object_object_get_ex(doc, "SecretAccessKey", &secret)) {
		const char *t = json_object_object_get_ex(doc, "Token", &token) ? json_object_get_string(token) : NULL;
		const char *x = json_object_object_get_ex(doc, "Expiration", &exp) ? json_object_get_string(exp) : NULL;
		rc = keys_set(out, json_object_get_string(id), json_object_get_string(secret), t, dnsb_aws_time(x));
		if (rc != 0)
			dnsb_error_set(err, rc, "out of memory");
	} else {
		rc = dnsb_error_set(err, DNSB_ETRANSIENT, "%s: no credentials in the reply", what);
	}
	json_object_put(doc);
	return rc;
}

static int fetch_container(dnsb_aws_creds *c, dnsb_http *http, double give_up, dnsb_aws_keys *out, dnsb_error *err)
{
	char *token = NULL, *auth = NULL;
	const char *headers[] = { NULL, NULL };
	dnsb_http_response resp = { 0 };
	int rc = 0;

	if (c->container_auth_file) {
		if ((token = read_secret_file(c->container_auth_file, "$AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", err)) ==
		    NULL)
			return err->code;
		if (asprintf(&auth, "Authorization: %s", token) < 0)
			auth = NULL;
		dnsb_secret_free(token);
		if (auth == NULL)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		headers[0] = auth;
	} else if (c->container_auth) {
		if (asprintf(&auth, "Authorization: %s", c->container_auth) < 0)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		headers[0] = auth;
	}
	dnsb_http_request req = { "GET", c->container_url, headers, NULL, 0, time_left(give_up) };
	if ((rc = dnsb_http_do_uncounted(http, &req, &resp, err)) == 0)
		rc = resp.status / 100 == 2 ? dnsb_aws_keys_from_json(out, &resp, "container credentials", err) :
					      source_refused(&resp, "container credentials", err);
	if (resp.body)
		explicit_bzero(resp.body, resp.body_len);
	dnsb_http_response_clear(&resp);
	dnsb_secret_free(auth);
	return rc;
}

static int fetch_imds(dnsb_aws_creds *c, dnsb_http *http, double give_up, dnsb_aws_keys *out, dnsb_error *err)
{
	const char *ttl[] = { "X-aws-ec2-metadata-token-ttl-seconds: 21600", NULL };
	const char *with_token[] = { NULL, NULL };
	char *url = NULL, *header = NULL, *role = NULL;
	dnsb_http_response resp = { 0 };
	int rc;

	if (asprintf(&url, "%s/latest/api/token", c->imds_endpoint) < 0)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	dnsb_http_request req = { "PUT", url, ttl, "", 0, time_left(give_up) };
	rc = dnsb_http_do_uncounted(http, &req, &resp, err);
	free(url);
	url = NULL;
	if (rc == 0 && resp.status != 200)
		rc = source_refused(&resp, "IMDSv2 token", err);
	if (rc == 0)
		dnsb_secret_register(trim(resp.body)); /* the IMDSv2 session token */
	if (rc == 0 && asprintf(&header, "X-aws-ec2-metadata-token: %s", trim(resp.body)) < 0)
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory"), header = NULL;
	dnsb_http_response_clear(&resp);
	with_token[0] = header;
	if (rc == 0 && asprintf(&url, "%s/latest/meta-data/iam/security-credentials/", c->imds_endpoint) < 0)
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory"), url = NULL;
	if (rc == 0) {
		req = (dnsb_http_request){ "GET", url, with_token, NULL, 0, time_left(give_up) };
		if ((rc = dnsb_http_do_uncounted(http, &req, &resp, err)) == 0 && resp.status != 200)
			rc = source_refused(&resp, "IMDS role", err);
		if (rc == 0 && (role = dnsb_http_escape(trim(resp.body))) == NULL)
			rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		dnsb_http_response_clear(&resp);
		free(url);
		url = NULL;
	}
	if (rc == 0 && asprintf(&url, "%s/latest/meta-data/iam/security-credentials/%s", c->imds_endpoint, role) < 0)
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory"), url = NULL;
	if (rc == 0) {
		req = (dnsb_http_request){ "GET", url, with_token, NULL, 0, time_left(give_up) };
		if ((rc = dnsb_http_do_uncounted(http, &req, &resp, err)) == 0)
			rc = resp.status == 200 ? dnsb_aws_keys_from_json(out, &resp, "IMDS credentials", err) :
						  source_refused(&resp, "IMDS credentials", err);
		if (resp.body)
			explicit_bzero(resp.body, resp.body_len);
		dnsb_http_response_clear(&resp);
	}
	free(url);
	free(role);
	dnsb_secret_free(header);
	return rc;
}

static int fetch(dnsb_aws_creds *c, dnsb_http *http, double give_up, dnsb_aws_keys *out, dnsb_error *err)
{
	switch (c->source) {
	case DNSB_AWS_CREDS_WEB_IDENTITY:
		return fetch_web_identity(c, http, give_up, out, err);
	case DNSB_AWS_CREDS_CONTAINER:
		return fetch_container(c, http, give_up, out, err);
	case DNSB_AWS_CREDS_IMDS:
		return fetch_imds(c, http, give_up, out, err);
	default:
		return dnsb_error_set(err, DNSB_EFATAL, "the credentials from %s were refused as expired", c->describe);
	}
}

int dnsb_aws_creds_get(char **userpwd, char **token_header, dnsb_aws_creds *c, dnsb_http *http, int refused,
		       double give_up, dnsb_error *err)
{
	dnsb_error e = { 0, "" };
	int rc = 0;

	*userpwd = *token_header = NULL;
	pthread_mutex_lock(&c->lock);
	int stale = c->keys.access_key == NULL || refused ||
		    (c->keys.expires != 0 && dnsb_clock_wall(c->clock) + DNSB_AWS_REFRESH_MARGIN >= (double)c->keys.expires);
	if (stale) {
		dnsb_aws_keys fresh = { 0 };
		if ((rc = fetch(c, http, give_up, &fresh, &e)) == 0) {
			dnsb_aws_keys_clear(&c->keys);
			c->keys = fresh;
			c->fetches++;
			dnsb_log(DNSB_LOG_DEBUG, "aws: credentials from %s%s", c->describe,
				 c->keys.expires ? ", temporary" : "");
		}
	}
	if (rc == 0 && (asprintf(userpwd, "%s:%s", c->keys.access_key, c->keys.secret) < 0 ||
			(c->keys.token && asprintf(token_header, "X-Amz-Security-Token: %s", c->keys.token) < 0))) {
		*userpwd = NULL;
		rc = DNSB_ENOMEM;
		e.code = rc;
		snprintf(e.message, sizeof(e.message), "out of memory");
	}
	pthread_mutex_unlock(&c->lock);
	if (rc != 0) {
		dnsb_secret_free(*userpwd);
		*userpwd = *token_header = NULL;
		return dnsb_error_set(err, rc, "credentials from %s: %s", c->describe, e.message);
	}
	return 0;
}
