/*
 * test_webhook.c - the sidecar's HTTP API, driven by a client that speaks as
 * external-dns does, against an in-process server on a free loopback port
 * with the memory provider.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "dnsbatch/dnsbatch.h"
#include "dnsbatch/memory.h"
#include "dnsbatch/webhook.h"

/* The client is test code shared with the other webhook tests and the
 * benchmark; compiled into each binary so no build rule is needed. */
#include "extdns_client.c"

/* ------------------------------------------------------------------ */
/* fixtures                                                             */
/* ------------------------------------------------------------------ */

typedef struct fixture {
	dnsb_provider *provider;
	dnsb_webhook *wh;
	dnsb_metrics *metrics;
	dnsb_droplog *droplog;
	dnsb_quarantine *quarantine;
	dnsb_domain_filter *filter;
	extdns_client *client;      /* the provider API */
	extdns_client *monitor;     /* /healthz and /metrics */
	char droplog_path[64];
} fixture;

typedef struct setup_args {
	const char *faults;
	size_t max_body;
	const char *const *include;
	size_t include_count;
	const char *const *exclude;
	size_t exclude_count;
	const char *regex_include, *regex_exclude;
	double apply_timeout;
	double quarantine;      /* seconds of the first hold (and the longest); 0 = 60 */
} setup_args;

static const char *const zones[] = { "example.com", "example.org" };

static void fixture_start(fixture *f, const setup_args *a)
{
	dnsb_webhook_options wo = DNSB_WEBHOOK_OPTIONS_INIT;
	dnsb_engine_options eo = DNSB_ENGINE_OPTIONS_INIT;
	dnsb_error err = { 0 };
	char url[64];
	int fd;

	memset(f, 0, sizeof(*f));
	assert_int_equal(dnsb_memory_new(&f->provider, zones, 2, a ? a->faults : NULL, &err), 0);
	assert_int_equal(dnsb_metrics_new(&f->metrics), 0);
	assert_int_equal(dnsb_quarantine_new(&f->quarantine, a && a->quarantine > 0 ? a->quarantine : 60,
					     a && a->quarantine > 0 ? a->quarantine : 3600), 0);
	strcpy(f->droplog_path, "/tmp/dnsbatch-test-droplog-XXXXXX");
	fd = mkstemp(f->droplog_path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(dnsb_droplog_open(&f->droplog, f->droplog_path, &err), 0);
	if (a)
		assert_int_equal(dnsb_domain_filter_new(&f->filter, a->include, a->include_count, a->exclude,
							a->exclude_count, a->regex_include, a->regex_exclude, &err), 0);
	/* Retries without real waiting: the engine's backoff is not under test here. */
	eo.max_retries = 1;
	eo.backoff_base = 0.001;
	eo.backoff_cap = 0.002;
	wo.listen = "127.0.0.1:0";
	wo.metrics_listen = "127.0.0.1:0";
	wo.filter = f->filter;
	wo.engine = &eo;
	wo.metrics = f->metrics;
	wo.droplog = f->droplog;
	wo.quarantine = f->quarantine;
	wo.probe_interval = 0.05;
	if (a && a->max_body)
		wo.max_body_size = a->max_body;
	if (a && a->apply_timeout > 0)
		wo.apply_timeout = a->apply_timeout;
	assert_int_equal(dnsb_webhook_start(&f->wh, f->provider, &wo, &err), 0);
	assert_true(dnsb_webhook_port(f->wh, 0) > 0);
	assert_true(dnsb_webhook_port(f->wh, 1) > 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", dnsb_webhook_port(f->wh, 0));
	f->client = extdns_client_new(url, 15);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", dnsb_webhook_port(f->wh, 1));
	f->monitor = extdns_client_new(url, 15);
	assert_non_null(f->client);
	assert_non_null(f->monitor);
}

static void fixture_stop(fixture *f)
{
	extdns_client_free(f->client);
	extdns_client_free(f->monitor);
	dnsb_webhook_free(f->wh);
	dnsb_droplog_free(f->droplog);
	dnsb_quarantine_free(f->quarantine);
	dnsb_metrics_free(f->metrics);
	dnsb_domain_filter_free(f->filter);
	dnsb_provider_free(f->provider);
	unlink(f->droplog_path);
}

static void put_rrset(dnsb_provider *p, const char *owner, uint16_t type, uint32_t ttl, const char *const *rdata, size_t n)
{
	dnsb_rrset rs = { 0 };
	dnsb_error err = { 0 };

	assert_int_equal(dnsb_name_canonical(&rs.owner, owner, &err), 0);
	rs.type = type;
	rs.ttl = ttl;
	for (size_t i = 0; i < n; i++) {
		char *canon = NULL;
		/* SOA is the server's own record: plans may not carry one, so the
		 * canonical form is not needed (nor offered) for it. */
		if (type == 6) {
			assert_int_equal(dnsb_rrset_add_rdata(&rs, rdata[i]), 0);
			continue;
		}
		assert_int_equal(dnsb_rdata_canonical(&canon, type, rdata[i], &err), 0);
		assert_int_equal(dnsb_rrset_add_rdata(&rs, canon), 0);
		free(canon);
	}
	assert_int_equal(dnsb_memory_put(p, &rs), 0);
	dnsb_rrset_clear(&rs);
}

/* The value of one series in /metrics, exactly as named with its labels; -1 when absent. */
/* The value of one series; or, for a series given without its closing brace
 * (some labels left out), the sum of the series it begins (-1 when none). */
static double metric(fixture *f, const char *series)
{
	extdns_reply r;
	double v = -1;
	size_t n = strlen(series);
	int prefix = n > 0 && series[n - 1] != '}';

	assert_int_equal(extdns_request(f->monitor, "GET", "/metrics", NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
	for (const char *line = r.body; line && *line;) {
		const char *nl = strchr(line, '\n');
		if (strncmp(line, series, n) == 0 && line[n] == ' ')
			v = strtod(line + n + 1, NULL);
		else if (prefix && strncmp(line, series, n) == 0 && line[n] == ',')
			v = (v < 0 ? 0 : v) + strtod(strchr(line + n, ' ') + 1, NULL); /* label values hold no blank here */
		line = nl ? nl + 1 : "";
	}
	extdns_reply_clear(&r);
	return v;
}

/* The sum of every series of one family in /metrics (name followed by '{' or ' '). */
static double metric_sum(fixture *f, const char *family)
{
	extdns_reply r;
	double sum = 0;
	size_t n = strlen(family);

	assert_int_equal(extdns_request(f->monitor, "GET", "/metrics", NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	for (const char *line = r.body; line && *line;) {
		const char *nl = strchr(line, '\n'), *sp = nl ? nl : line + strlen(line);
		while (sp > line && sp[-1] != ' ')
			sp--;
		if (strncmp(line, family, n) == 0 && (line[n] == '{' || line[n] == ' ') && sp > line)
			sum += strtod(sp, NULL);
		line = nl ? nl + 1 : "";
	}
	extdns_reply_clear(&r);
	return sum;
}

static double metric0(fixture *f, const char *series)
{
	double v = metric(f, series);
	return v < 0 ? 0 : v;
}

static size_t count_lines(const char *path, const char *needle)
{
	FILE *fp = fopen(path, "r");
	char line[8192];
	size_t n = 0;

	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp))
		if (needle == NULL || strstr(line, needle))
			n++;
	fclose(fp);
	return n;
}

static struct json_object *find_endpoint(struct json_object *arr, const char *name, const char *type)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *ep = json_object_array_get_idx(arr, i), *v;
		if (json_object_object_get_ex(ep, "dnsName", &v) && strcmp(json_object_get_string(v), name) == 0 &&
		    json_object_object_get_ex(ep, "recordType", &v) && strcmp(json_object_get_string(v), type) == 0)
			return ep;
	}
	return NULL;
}

static struct json_object *a_record(const char *name, const char *ip)
{
	const char *t[] = { ip };
	return extdns_endpoint(name, "A", 300, t, 1, "default", "ingress/default/app");
}

static struct json_object *list_of(int n, ...)
{
	struct json_object *a = json_object_new_array();
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		json_object_array_add(a, va_arg(ap, struct json_object *));
	va_end(ap);
	return a;
}

/* ------------------------------------------------------------------ */
/* negotiation                                                          */
/* ------------------------------------------------------------------ */

static void negotiate_expect(const setup_args *a, const char *expected)
{
	fixture f;
	struct json_object *filter = NULL;
	extdns_reply r;

	fixture_start(&f, a);
	assert_int_equal(extdns_negotiate(f.client, &filter), 0);
	assert_string_equal(json_object_to_json_string_ext(filter, JSON_C_TO_STRING_PLAIN), expected);
	json_object_put(filter);
	/* Byte for byte: the media type with no space, and Go's trailing newline. */
	assert_int_equal(extdns_request(f.client, "GET", "/", NULL, NULL, 0, &r), 0);
	assert_string_equal(r.content_type, "application/external.dns.webhook+json;version=1");
	assert_true(r.len > 0 && r.body[r.len - 1] == '\n');
	extdns_reply_clear(&r);
	fixture_stop(&f);
}

static void test_negotiate_empty(void **state)
{
	(void)state;
	negotiate_expect(NULL, "{}");
}

static void test_negotiate_lists(void **state)
{
	const char *inc[] = { "Example.org.", " example.com ", "" };
	const char *exc[] = { "skip.example.com,internal.example.org" };
	setup_args a = { .include = inc, .include_count = 3, .exclude = exc, .exclude_count = 1 };
	(void)state;
	negotiate_expect(&a, "{\"include\":[\"example.com\",\"example.org\"],"
			     "\"exclude\":[\"internal.example.org\",\"skip.example.com\"]}");
}

static void test_negotiate_regex(void **state)
{
	setup_args a = { .regex_include = "^(app|api)\\.example\\.com$", .regex_exclude = "^internal\\." };
	(void)state;
	negotiate_expect(&a, "{\"regexInclude\":\"^(app|api)\\\\.example\\\\.com$\",\"regexExclude\":\"^internal\\\\.\"}");
}

static void test_filter_rules(void **state)
{
	const char *inc[] = { "example.com", ".example.org" };
	const char *exc[] = { "skip.example.com" };
	dnsb_domain_filter *f = NULL;
	dnsb_error err = { 0 };
	(void)state;

	assert_int_equal(dnsb_domain_filter_new(&f, inc, 2, exc, 1, NULL, NULL, &err), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "example.com."), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "APP.Example.com"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "badexample.com"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "skip.example.com"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "a.skip.example.com"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "example.org"), 0);   /* ".example.org": subdomains only */
	assert_int_equal(dnsb_domain_filter_match(f, "www.example.org"), 1);
	assert_int_equal(dnsb_domain_filter_may_match_zone(f, "example.net."), 0);
	assert_int_equal(dnsb_domain_filter_may_match_zone(f, "sub.example.com."), 1);
	assert_int_equal(dnsb_domain_filter_may_match_zone(f, "com."), 1);
	dnsb_domain_filter_free(f);

	assert_int_equal(dnsb_domain_filter_new(&f, NULL, 0, NULL, 0, "example\\.com$", "^skip\\.", &err), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "app.example.com."), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "skip.example.com"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "example.org"), 0);
	dnsb_domain_filter_free(f);

	/* Exclusion alone: everything not excluded passes. */
	assert_int_equal(dnsb_domain_filter_new(&f, NULL, 0, NULL, 0, NULL, "^skip\\.", &err), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "example.org"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "skip.example.org"), 0);
	dnsb_domain_filter_free(f);

	/* Never both forms; bad regular expressions are named. */
	assert_int_equal(dnsb_domain_filter_new(&f, inc, 1, NULL, 0, "x", NULL, &err), DNSB_EINVAL);
	assert_null(f);
	assert_int_equal(dnsb_domain_filter_new(&f, NULL, 0, NULL, 0, "(", NULL, &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "--regex-domain-filter"));
	dnsb_domain_filter_match(NULL, "anything");
	dnsb_domain_filter_free(NULL);
}

/* ------------------------------------------------------------------ */
/* GET /records, POST /adjustendpoints                                  */
/* ------------------------------------------------------------------ */

static void test_records(void **state)
{
	const char *exc[] = { "hidden.example.com" };
	setup_args a = { .exclude = exc, .exclude_count = 1 };
	const char *two[] = { "192.0.2.2", "192.0.2.1" };
	const char *cname[] = { "LB.Example.net." };
	const char *txt[] = { "\"heritage=external-dns,external-dns/owner=default\"" };
	const char *mx[] = { "10 mail.example.com." };
	const char *soa[] = { "ns1.example.com. hostmaster.example.com. 1 7200 3600 1209600 300" };
	const char *hidden[] = { "192.0.2.9" };
	struct json_object *eps = NULL, *ep, *v;
	fixture f;
	long status;
	(void)state;

	fixture_start(&f, &a);
	put_rrset(f.provider, "app.example.com", 1, 60, two, 2);
	put_rrset(f.provider, "www.example.com", 5, 300, cname, 1);
	put_rrset(f.provider, "a-app.example.com", 16, 300, txt, 1);
	put_rrset(f.provider, "example.com", 15, 3600, mx, 1);
	put_rrset(f.provider, "example.com", 6, 3600, soa, 1);
	put_rrset(f.provider, "hidden.example.com", 1, 60, hidden, 1);
	put_rrset(f.provider, "x.example.org", 1, 60, hidden, 1);

	assert_int_equal(extdns_records(f.client, &eps, &status), 0);
	assert_int_equal(status, 200);
	assert_int_equal(json_object_array_length(eps), 5);
	/* One endpoint per RRset, every RDATA a target, no trailing dots. */
	ep = find_endpoint(eps, "app.example.com", "A");
	assert_non_null(ep);
	assert_true(json_object_object_get_ex(ep, "targets", &v));
	assert_int_equal(json_object_array_length(v), 2);
	assert_true(json_object_object_get_ex(ep, "recordTTL", &v));
	assert_int_equal(json_object_get_int(v), 60);
	ep = find_endpoint(eps, "www.example.com", "CNAME");
	assert_non_null(ep);
	json_object_object_get_ex(ep, "targets", &v);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), "lb.example.net");
	ep = find_endpoint(eps, "example.com", "MX");
	json_object_object_get_ex(ep, "targets", &v);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), "10 mail.example.com");
	/* TXT stays quoted, as the TXT registry reads it. */
	ep = find_endpoint(eps, "a-app.example.com", "TXT");
	json_object_object_get_ex(ep, "targets", &v);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), txt[0]);
	assert_non_null(find_endpoint(eps, "x.example.org", "A"));
	assert_null(find_endpoint(eps, "example.com", "SOA"));       /* the server's, not external-dns's */
	assert_null(find_endpoint(eps, "hidden.example.com", "A"));  /* excluded by the filter */
	json_object_put(eps);
	assert_int_equal(metric(&f, "dnsbatch_provider_requests_total{provider=\"memory\",operation=\"list\",class=\"ok\"}"), 2);
	fixture_stop(&f);
}

static void endpoint_expect(const char *owner, uint16_t type, uint32_t ttl, const char *rdata, const char *json)
{
	dnsb_rrset rs = { 0 };
	struct json_object *ep;

	rs.owner = (char *)(uintptr_t)owner;
	rs.type = type;
	rs.ttl = ttl;
	rs.rdata = (char **)(uintptr_t)&rdata;
	rs.rdata_count = 1;
	ep = dnsb_rrset_to_endpoint(&rs);
	assert_non_null(ep);
	assert_string_equal(json_object_to_json_string_ext(ep, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), json);
	json_object_put(ep);
}

static void test_endpoint_form(void **state)
{
	(void)state;
	/* Field order and trailing dots as endpoint.NewEndpointWithTTL leaves them. */
	endpoint_expect("app.example.com.", 1, 300, "192.0.2.1",
			"{\"dnsName\":\"app.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",\"recordTTL\":300}");
	endpoint_expect("example.com.", 15, 0, "0 .",
			"{\"dnsName\":\"example.com\",\"targets\":[\"0 .\"],\"recordType\":\"MX\"}");
	endpoint_expect("_sip._tcp.example.com.", 33, 60, "10 5 5060 sip.example.com.",
			"{\"dnsName\":\"_sip._tcp.example.com\",\"targets\":[\"10 5 5060 sip.example.com.\"],"
			"\"recordType\":\"SRV\",\"recordTTL\":60}");
	endpoint_expect("r.example.com.", 12, 60, "host.example.com.",
			"{\"dnsName\":\"r.example.com\",\"targets\":[\"host.example.com\"],\"recordType\":\"PTR\",\"recordTTL\":60}");
	assert_int_equal(dnsb_webhook_type_listed(6), 0);
	assert_int_equal(dnsb_webhook_type_listed(46), 0);
	assert_int_equal(dnsb_webhook_type_listed(2), 1);
}

static void test_adjustendpoints(void **state)
{
	struct json_object *in = list_of(2, a_record("app.example.com", "192.0.2.1"),
					 a_record("api.example.com", "192.0.2.2"));
	struct json_object *out = NULL;
	extdns_reply r;
	fixture f;
	long status;
	(void)state;

	fixture_start(&f, NULL);
	assert_int_equal(extdns_adjust(f.client, in, &out, &status), 0);
	assert_int_equal(status, 200);
	assert_true(json_object_equal(in, out));
	json_object_put(out);
	assert_int_equal(extdns_request(f.client, "POST", "/adjustendpoints", both_hdr, "{}", 2, &r), 0);
	assert_int_equal(r.status, 400);
	extdns_reply_clear(&r);
	json_object_put(in);
	fixture_stop(&f);
}

/* Routes as external-dns's reference server (provider/webhook/api/httpapi.go) has them. */
static void test_routes(void **state)
{
	extdns_reply r;
	fixture f;
	(void)state;

	fixture_start(&f, NULL);
	/* Its mux sends any path it does not know to the negotiation handler. */
	assert_int_equal(extdns_request(f.client, "GET", "/nope", NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.content_type, EXTDNS_MEDIA_TYPE);
	assert_string_equal(r.body, "{}\n");
	extdns_reply_clear(&r);
	/* Other methods: 400, as RecordsHandler and AdjustEndpointsHandler answer them. */
	assert_int_equal(extdns_request(f.client, "DELETE", "/records", NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 400);
	extdns_reply_clear(&r);
	assert_int_equal(extdns_request(f.client, "GET", "/adjustendpoints", NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 400);
	extdns_reply_clear(&r);
	/* The metrics port serves only /healthz and /metrics. */
	assert_int_equal(extdns_request(f.monitor, "GET", "/records", NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 404);
	extdns_reply_clear(&r);
	/* ...and the API port serves them too. */
	assert_int_equal(extdns_request(f.client, "GET", "/metrics", NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	extdns_reply_clear(&r);
	fixture_stop(&f);
}

/* external-dns's own webhook tests send a null plan and expect success. */
static void test_null_plan(void **state)
{
	extdns_reply r;
	fixture f;
	(void)state;

	fixture_start(&f, NULL);
	assert_int_equal(extdns_request(f.client, "POST", "/records", post_hdr, "null", 4, &r), 0);
	assert_int_equal(r.status, 204);
	extdns_reply_clear(&r);
	fixture_stop(&f);
}

/*
 * Only external-dns drives the provider port: a browser's cross-origin
 * "simple" POST (text/plain) is refused with 415 and applies nothing; a
 * DNS-rebinding page (Host: its own name) gets 421; /healthz stays open.
 */
static void test_provider_port_guards(void **state)
{
	static const char *const text_plain[] = { "Content-Type: text/plain", NULL };
	static const char *const rebound[] = { "Host: attacker.example:8888", "Content-Type: " EXTDNS_MEDIA_TYPE, NULL };
	static const char *const local[] = { "Host: localhost:8888", "Content-Type: " EXTDNS_MEDIA_TYPE, NULL };
	static const char *const v6[] = { "Host: [::1]:8888", "Accept: " EXTDNS_MEDIA_TYPE, NULL };
	static const char *const rebound_get[] = { "Host: attacker.example", NULL };
	const char *plan = "{\"create\":[{\"dnsName\":\"x.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"}]}";
	struct json_object *eps = NULL;
	extdns_reply r;
	fixture f;
	(void)state;

	fixture_start(&f, NULL);
	assert_int_equal(extdns_request(f.client, "POST", "/records", text_plain, plan, strlen(plan), &r), 0);
	assert_int_equal(r.status, 415);
	extdns_reply_clear(&r);
	assert_int_equal(extdns_request(f.client, "POST", "/records", rebound, plan, strlen(plan), &r), 0);
	assert_int_equal(r.status, 421);
	extdns_reply_clear(&r);
	assert_int_equal(extdns_request(f.client, "GET", "/records", rebound_get, NULL, 0, &r), 0);
	assert_int_equal(r.status, 421);
	extdns_reply_clear(&r);
	assert_int_equal(extdns_records(f.client, &eps, NULL), 0);
	assert_null(find_endpoint(eps, "x.example.com", "A")); /* nothing applied */
	json_object_put(eps);
	assert_int_equal(extdns_request(f.client, "GET", "/", v6, NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	extdns_reply_clear(&r);
	assert_int_equal(extdns_request(f.client, "GET", "/healthz", rebound_get, NULL, 0, &r), 0);
	assert_int_not_equal(r.status, 421);
	extdns_reply_clear(&r);
	assert_int_equal(extdns_request(f.client, "POST", "/records", local, plan, strlen(plan), &r), 0);
	assert_int_equal(r.status, 204);
	extdns_reply_clear(&r);
	assert_int_equal(metric(&f, "dnsbatch_webhook_requests_total{route=\"/records\",method=\"POST\",code=\"415\"}"), 1);
	fixture_stop(&f);
}

/* A connection that is open and says nothing (or half a request line). */
static int idle_connection(unsigned port, int partial)
{
	struct sockaddr_in a = { 0 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (partial && write(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\n", 33) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * 300 idle connections on each port (half of them with unfinished headers)
 * must not keep the liveness probe or external-dns out: /healthz and GET /
 * still answer within 1 s.
 */
static void test_idle_connections(void **state)
{
	enum { IDLE = 300 };
	int fds[2][IDLE];
	extdns_reply r;
	fixture f;
	double t0, took;
	(void)state;

	fixture_start(&f, NULL);
	for (int p = 0; p < 2; p++) {
		for (int i = 0; i < IDLE; i++) {
			fds[p][i] = idle_connection(dnsb_webhook_port(f.wh, p), i % 2);
			assert_true(fds[p][i] >= 0);
		}
	}
	usleep(200 * 1000);
	t0 = now_s();
	assert_int_equal(extdns_request(f.monitor, "GET", "/healthz", NULL, NULL, 0, &r), 0);
	took = now_s() - t0;
	assert_int_equal(r.status, 200);
	extdns_reply_clear(&r);
	assert_true(took < 1.0);
	t0 = now_s();
	assert_int_equal(extdns_request(f.client, "GET", "/", NULL, NULL, 0, &r), 0);
	took = now_s() - t0;
	assert_int_equal(r.status, 200);
	extdns_reply_clear(&r);
	assert_true(took < 1.0);
	for (int p = 0; p < 2; p++)
		for (int i = 0; i < IDLE; i++)
			close(fds[p][i]);
	fixture_stop(&f);
}

/* ------------------------------------------------------------------ */
/* POST /records                                                        */
/* ------------------------------------------------------------------ */

/* Two records already there with other data: creating them conflicts. */
static void arrange_conflicts(fixture *f)
{
	const char *other[] = { "198.51.100.1" };
	put_rrset(f->provider, "taken.example.com", 1, 300, other, 1);
	put_rrset(f->provider, "busy.example.org", 1, 300, other, 1);
}

static struct json_object *conflict_plan(void)
{
	const char *old_t[] = { "192.0.2.50" }, *new_t[] = { "192.0.2.51" };
	struct json_object *create = list_of(5,
		a_record("app.example.com", "192.0.2.1"),
		a_record("taken.example.com", "192.0.2.2"),
		a_record("api.example.com", "192.0.2.3"),
		a_record("busy.example.org", "192.0.2.4"),
		a_record("web.example.org", "192.0.2.5"));
	struct json_object *uo = list_of(1, extdns_endpoint("gone.example.com", "A", 300, old_t, 1, "default", NULL));
	struct json_object *un = list_of(1, extdns_endpoint("gone.example.com", "A", 300, new_t, 1, "default", NULL));
	struct json_object *plan = extdns_changes(create, uo, un, NULL, 1);
	json_object_put(create);
	json_object_put(uo);
	json_object_put(un);
	return plan;
}

static void test_post_conflicts(void **state)
{
	struct json_object *plan = conflict_plan(), *eps = NULL;
	fixture f;
	long status;
	unsigned long subs, reads;
	(void)state;

	fixture_start(&f, NULL);
	arrange_conflicts(&f);
	/* 7 groups (each with its ownership TXT): app, api, web apply; taken,
	 * busy conflict; the update of gone.example.com conflicts (absent). */
	assert_int_equal(extdns_apply(f.client, plan, 0, &status), EXTDNS_OK);
	assert_int_equal(status, 204);
	assert_int_equal(extdns_records(f.client, &eps, NULL), 0);
	assert_non_null(find_endpoint(eps, "app.example.com", "A"));
	assert_non_null(find_endpoint(eps, "a-app.example.com", "TXT"));
	assert_non_null(find_endpoint(eps, "api.example.com", "A"));
	assert_non_null(find_endpoint(eps, "web.example.org", "A"));
	assert_non_null(find_endpoint(eps, "a-web.example.org", "TXT"));
	/* A group lands or drops whole: no ownership record for a conflict. */
	assert_null(find_endpoint(eps, "a-taken.example.com", "TXT"));
	assert_null(find_endpoint(eps, "a-busy.example.org", "TXT"));
	json_object_put(eps);
	/* 3 groups of 2 changes dropped: 6 lines, each a change in plan form. */
	assert_int_equal(count_lines(f.droplog_path, NULL), 6);
	assert_int_equal(count_lines(f.droplog_path, "\"reason\":\"conflict\""), 6);
	assert_int_equal(count_lines(f.droplog_path, "\"updateOld\""), 2);
	assert_int_equal(metric(&f, "dnsbatch_changes_total{zone=\"example.com.\",outcome=\"applied\"}"), 4);
	assert_int_equal(metric(&f, "dnsbatch_changes_total{zone=\"example.org.\",outcome=\"applied\"}"), 2);
	assert_int_equal(metric(&f, "dnsbatch_dropped_changes_total{zone=\"example.com.\",record_type=\"A\",reason=\"conflict\""), 2);
	assert_int_equal(metric(&f, "dnsbatch_dropped_changes_total{zone=\"example.com.\",record_type=\"A\",reason=\"conflict\",cause=\"exists\"}"), 1);
	assert_int_equal(metric(&f, "dnsbatch_dropped_changes_total{zone=\"example.com.\",record_type=\"A\",reason=\"conflict\",cause=\"missing\"}"), 1);
	assert_int_equal(metric(&f, "dnsbatch_dropped_changes_total{zone=\"example.com.\",record_type=\"TXT\",reason=\"conflict\""), 2);
	assert_int_equal(metric(&f, "dnsbatch_quarantined_groups"), 3);
	assert_int_equal(metric(&f, "dnsbatch_webhook_requests_total{route=\"/records\",method=\"POST\",code=\"204\"}"), 1);

	/* The same POST again: the three conflicting groups are quarantined, counted, not written again
	 * (their lines of the first POST say the quarantine started). */
	assert_int_equal(extdns_apply(f.client, plan, 0, &status), EXTDNS_OK);
	assert_int_equal(count_lines(f.droplog_path, "\"quarantine\":\"start\""), 6);
	assert_int_equal(count_lines(f.droplog_path, NULL), 6);
	assert_int_equal(metric(&f, "dnsbatch_dropped_changes_total{zone=\"example.com.\",record_type=\"A\",reason=\"quarantined\",cause=\"quarantined\"}"), 2);
	json_object_put(plan);

	/* What external-dns sends next: only what is still missing, i.e. the
	 * conflicting groups. They cost no provider request at all. */
	{
		const char *old_t[] = { "192.0.2.50" }, *new_t[] = { "192.0.2.51" };
		struct json_object *create = list_of(2, a_record("taken.example.com", "192.0.2.2"),
						     a_record("busy.example.org", "192.0.2.4"));
		struct json_object *uo = list_of(1, extdns_endpoint("gone.example.com", "A", 300, old_t, 1, "default", NULL));
		struct json_object *un = list_of(1, extdns_endpoint("gone.example.com", "A", 300, new_t, 1, "default", NULL));
		double before_submit = metric0(&f, "dnsbatch_provider_requests_total{provider=\"memory\",operation=\"submit\",class=\"ok\"}") +
				       metric0(&f, "dnsbatch_provider_requests_total{provider=\"memory\",operation=\"submit\",class=\"conflict\"}");
		double before_read = metric0(&f, "dnsbatch_provider_requests_total{provider=\"memory\",operation=\"read\",class=\"ok\"}");
		plan = extdns_changes(create, uo, un, NULL, 1);
		subs = dnsb_provider_submissions(f.provider);
		reads = dnsb_provider_reads(f.provider);
		assert_int_equal(extdns_apply(f.client, plan, 1 /* legacy keys */, &status), EXTDNS_OK);
		assert_int_equal(dnsb_provider_submissions(f.provider), subs);
		assert_int_equal(dnsb_provider_reads(f.provider), reads);
		assert_true(metric0(&f, "dnsbatch_provider_requests_total{provider=\"memory\",operation=\"submit\",class=\"ok\"}") +
			    metric0(&f, "dnsbatch_provider_requests_total{provider=\"memory\",operation=\"submit\",class=\"conflict\"}") ==
			    before_submit);
		assert_true(metric0(&f, "dnsbatch_provider_requests_total{provider=\"memory\",operation=\"read\",class=\"ok\"}") ==
			    before_read);
		assert_int_equal(count_lines(f.droplog_path, NULL), 6);
		json_object_put(create);
		json_object_put(uo);
		json_object_put(un);
		json_object_put(plan);
	}
	fixture_stop(&f);
}

/*
 * GET /quarantine (on the provider port only: the metrics port answers 404,
 * as it listens on every interface): what the sidecar holds back and why, newest
 * first; dnsbatch_conflicting_owner_groups counts the groups per owner of what
 * is in their way; once the holds run out the list is empty again.
 */
static void test_quarantine_endpoint(void **state)
{
	setup_args a = { .quarantine = 0.5 };
	const char *own[] = { "\"heritage=external-dns,external-dns/owner=other,external-dns/resource=ingress/x/taken\"" };
	struct json_object *plan = conflict_plan(), *held, *g, *v;
	extdns_reply r;
	fixture f;
	long status;
	int saw_taken = 0;
	(void)state;

	fixture_start(&f, &a);
	arrange_conflicts(&f);
	put_rrset(f.provider, "a-taken.example.com", 16, 300, own, 1);
	assert_int_equal(extdns_apply(f.client, plan, 0, &status), EXTDNS_OK);
	assert_int_equal(extdns_request(f.monitor, "GET", "/quarantine", NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 404);
	assert_null(strstr(r.body, "taken"));
	extdns_reply_clear(&r);
	assert_int_equal(extdns_request(f.client, "GET", "/quarantine", NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.content_type, "application/json");
	held = json_tokener_parse(r.body);
	extdns_reply_clear(&r);
	assert_true(json_object_is_type(held, json_type_array));
	assert_int_equal(json_object_array_length(held), 3); /* taken, busy, gone */
	for (size_t i = 0; i < 3; i++) {
		g = json_object_array_get_idx(held, i);
		assert_true(json_object_object_get_ex(g, "changes", &v) && json_object_array_length(v) == 2);
		assert_true(json_object_object_get_ex(g, "message", &v));
		assert_true(json_object_object_get_ex(g, "next_retry", &v) && strlen(json_object_get_string(v)) == 20);
		assert_true(json_object_object_get_ex(g, "attempts", &v) && json_object_get_int(v) == 1);
		v = json_object_array_get_idx(json_object_object_get(g, "changes"), 0);
		if (strcmp(json_object_get_string(json_object_object_get(v, "dnsName")), "taken.example.com") != 0)
			continue;
		saw_taken = 1;
		assert_string_equal(json_object_get_string(json_object_object_get(g, "cause")), "exists");
		assert_string_equal(json_object_get_string(json_object_object_get(g, "owner")), "other");
		assert_string_equal(json_object_get_string(json_object_object_get(g, "owner_resource")), "ingress/x/taken");
	}
	assert_true(saw_taken);
	json_object_put(held);
	assert_int_equal(metric(&f, "dnsbatch_conflicting_owner_groups{zone=\"example.com.\",foreign_owner=\"other\"}"), 1);
	assert_int_equal(metric(&f, "dnsbatch_conflicting_owner_groups{zone=\"example.com.\",foreign_owner=\"none\"}"), 1);
	usleep(700 * 1000); /* the holds run out */
	assert_int_equal(extdns_request(f.client, "GET", "/quarantine", NULL, NULL, 0, &r), 0);
	assert_string_equal(r.body, "[]");
	extdns_reply_clear(&r);
	assert_int_equal(metric(&f, "dnsbatch_conflicting_owner_groups{zone=\"example.com.\",foreign_owner=\"other\"}"), -1);
	json_object_put(plan);
	fixture_stop(&f);
}


static void test_post_transient(void **state)
{
	setup_args a = { .faults = "*:transient" };
	struct json_object *create = list_of(1, a_record("app.example.com", "192.0.2.1"));
	struct json_object *plan = extdns_changes(create, NULL, NULL, NULL, 1), *eps = NULL;
	fixture f;
	long status;
	(void)state;

	fixture_start(&f, &a);
	assert_int_equal(extdns_apply(f.client, plan, 0, &status), EXTDNS_SOFT_ERROR);
	assert_int_equal(status, 503);
	assert_int_equal(count_lines(f.droplog_path, "\"outcome\":\"failed\""), 2);
	assert_int_equal(count_lines(f.droplog_path, "\"reason\":\"transient\""), 2);
	assert_int_equal(extdns_records(f.client, &eps, NULL), 0);
	assert_int_equal(json_object_array_length(eps), 0);
	assert_true(metric(&f, "dnsbatch_retries_total{reason=\"transient\"}") >= 1);
	json_object_put(eps);
	json_object_put(create);
	json_object_put(plan);
	fixture_stop(&f);
}

static void post_raw(fixture *f, const char *body, long expect)
{
	static const char *const ct[] = { "Content-Type: " EXTDNS_MEDIA_TYPE, NULL };
	extdns_reply r;

	assert_int_equal(extdns_request(f->client, "POST", "/records", ct, body, strlen(body), &r), 0);
	if (r.status != expect)
		fail_msg("POST %s: got %ld, want %ld: %s", body, r.status, expect, r.body ? r.body : "");
	extdns_reply_clear(&r);
}

static void test_post_malformed(void **state)
{
	fixture f;
	struct json_object *eps = NULL;
	(void)state;

	fixture_start(&f, NULL);
	post_raw(&f, "{\"create\":[{\"dnsName\":\"app.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"}", 400);
	post_raw(&f, "not json", 400);
	post_raw(&f, "[]", 400);
	post_raw(&f, "{\"create\":{}}", 400);
	post_raw(&f, "{\"create\":[{\"dnsName\":\"app.example.com\",\"targets\":\"192.0.2.1\",\"recordType\":\"A\"}]}", 400);
	post_raw(&f, "{\"updateOld\":[{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"}],\"updateNew\":[]}", 400);
	post_raw(&f, "", 400);
	assert_int_equal(dnsb_provider_submissions(f.provider), 0);
	assert_int_equal(extdns_records(f.client, &eps, NULL), 0);
	assert_int_equal(json_object_array_length(eps), 0);
	json_object_put(eps);
	/* Well-formed JSON with an invalid record is not a 4xx: the record is
	 * dropped (reason invalid) and the rest applies. */
	post_raw(&f, "{\"create\":[{\"dnsName\":\"bad.example.com\",\"targets\":[\"not-an-ip\"],\"recordType\":\"A\"},"
		     "{\"dnsName\":\"good.example.com\",\"targets\":[\"192.0.2.7\"],\"recordType\":\"A\"}]}", 204);
	assert_int_equal(count_lines(f.droplog_path, "\"reason\":\"invalid\""), 1);
	/* An empty plan (external-dns sends none, but may) is fine. */
	post_raw(&f, "{}", 204);
	assert_int_equal(metric(&f, "dnsbatch_webhook_requests_total{route=\"/records\",method=\"POST\",code=\"400\"}"), 7);
	fixture_stop(&f);
}

static void test_post_oversized(void **state)
{
	static const char *const chunked[] = { "Content-Type: " EXTDNS_MEDIA_TYPE, "Transfer-Encoding: chunked", NULL };
	setup_args a = { .max_body = 1024 };
	size_t len = 4096;
	char *body = malloc(len + 1);
	extdns_reply r;
	fixture f;
	(void)state;

	memset(body, ' ', len);
	memcpy(body, "{\"create\":[]}", 13);
	body[len] = '\0';
	fixture_start(&f, &a);
	post_raw(&f, body, 413);                   /* Content-Length over the cap */
	assert_int_equal(extdns_request(f.client, "POST", "/records", chunked, body, len, &r), 0);
	assert_int_equal(r.status, 413);           /* no length: counted while read */
	extdns_reply_clear(&r);
	body[1000] = '\0';
	post_raw(&f, body, 204);                   /* under the cap */
	free(body);
	fixture_stop(&f);
}

/* ------------------------------------------------------------------ */
/* readiness, concurrency, shutdown                                     */
/* ------------------------------------------------------------------ */

/* The provider refuses its first five reads (the fault script's read-transient):
 * /healthz stays 503 until the probe's sixth read answers, then 200. */
static void test_healthz_waits_for_provider(void **state)
{
	setup_args a = { .faults = "1-5:read-transient" };
	fixture f;
	extdns_reply r;
	(void)state;

	fixture_start(&f, &a);
	assert_int_equal(extdns_request(f.monitor, "GET", "/healthz", NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 503);
	/* Before the probe's first read: "has not answered yet"; after a refused one, that read's fault. */
	assert_true(strstr(r.body, "not ready: provider memory has not answered yet") != NULL ||
		    strstr(r.body, "not ready: provider memory: ") != NULL);
	extdns_reply_clear(&r);
	for (int i = 0; i < 200 && !dnsb_webhook_ready(f.wh); i++)
		usleep(10 * 1000);
	assert_int_equal(dnsb_webhook_ready(f.wh), 1);
	assert_int_equal(extdns_request(f.monitor, "GET", "/healthz", NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	extdns_reply_clear(&r);
	/* Exactly six probes: five refused, one answered, and no more once ready. */
	usleep(150 * 1000);
	assert_int_equal(dnsb_provider_reads(f.provider), 6);
	assert_int_equal(metric(&f, "dnsbatch_provider_requests_total{provider=\"memory\",operation=\"read\",class=\"transient\"}"), 5);
	assert_int_equal(metric(&f, "dnsbatch_provider_requests_total{provider=\"memory\",operation=\"read\",class=\"ok\"}"), 1);
	fixture_stop(&f);
}

typedef struct post_job {
	fixture *f;
	const char *base;
	struct json_object *plan;
	long status;
	double seconds;
} post_job;

static void *post_thread(void *arg)
{
	post_job *j = arg;
	extdns_client *c = extdns_client_new(j->base, 30);
	double t0 = dnsb_clock_system()->now(NULL);
	extdns_apply(c, j->plan, 0, &j->status);
	j->seconds = dnsb_clock_system()->now(NULL) - t0;
	extdns_client_free(c);
	return NULL;
}

static void test_reads_during_apply(void **state)
{
	setup_args a = { .faults = "*:latency=0.6" };
	struct json_object *c1 = list_of(1, a_record("one.example.com", "192.0.2.1"));
	struct json_object *c2 = list_of(1, a_record("two.example.com", "192.0.2.2"));
	struct json_object *c3 = list_of(1, a_record("three.example.org", "192.0.2.3"));
	post_job jobs[3];
	pthread_t th[3];
	char base[64];
	fixture f;
	double t0, took;
	struct json_object *eps = NULL;
	(void)state;

	fixture_start(&f, &a);
	snprintf(base, sizeof(base), "http://127.0.0.1:%u", dnsb_webhook_port(f.wh, 0));
	jobs[0] = (post_job){ &f, base, extdns_changes(c1, NULL, NULL, NULL, 0), 0, 0 };
	jobs[1] = (post_job){ &f, base, extdns_changes(c2, NULL, NULL, NULL, 0), 0, 0 };
	jobs[2] = (post_job){ &f, base, extdns_changes(c3, NULL, NULL, NULL, 0), 0, 0 };
	for (int i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&th[i], NULL, post_thread, &jobs[i]), 0);
	usleep(150 * 1000);
	/* While applies run: GET /records and /metrics answer at once. */
	t0 = dnsb_clock_system()->now(NULL);
	assert_int_equal(extdns_records(f.client, &eps, NULL), 0);
	json_object_put(eps);
	assert_true(metric(&f, "dnsbatch_webhook_applies_in_flight") >= 1);
	took = dnsb_clock_system()->now(NULL) - t0;
	assert_true(took < 0.3);
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(jobs[i].status, 204);
		json_object_put(jobs[i].plan);
	}
	/* Same zone: one after the other; the other zone ran alongside. */
	assert_true(jobs[0].seconds + 0.05 >= 0.6);
	assert_true((jobs[0].seconds > 1.1) != (jobs[1].seconds > 1.1));
	assert_true(jobs[2].seconds < 1.1);
	json_object_put(c1);
	json_object_put(c2);
	json_object_put(c3);
	fixture_stop(&f);
}

static void test_apply_timeout(void **state)
{
	setup_args a = { .faults = "*:latency=0.8", .apply_timeout = 0.5 };
	struct json_object *c1 = list_of(1, a_record("one.example.com", "192.0.2.1"));
	struct json_object *c2 = list_of(3, a_record("two.example.com", "192.0.2.2"),
					 a_record("bad.example.com", "999.1.1.1"), a_record("x.nozone.test", "192.0.2.9"));
	post_job jobs[2];
	pthread_t th[2];
	char base[64];
	fixture f;
	(void)state;

	fixture_start(&f, &a);
	snprintf(base, sizeof(base), "http://127.0.0.1:%u", dnsb_webhook_port(f.wh, 0));
	jobs[0] = (post_job){ &f, base, extdns_changes(c1, NULL, NULL, NULL, 0), 0, 0 };
	jobs[1] = (post_job){ &f, base, extdns_changes(c2, NULL, NULL, NULL, 0), 0, 0 };
	/* Two plans for one zone: the second waits for the first, and the
	 * wait counts against its deadline. */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_create(&th[i], NULL, post_thread, &jobs[i]), 0);
		usleep(50 * 1000);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	/* The provider takes 0.8 s a request: each request gets only the time left
	 * (ops.submit's timeout), so neither answer waits for it. The first plan's
	 * request gives up at its deadline; the second plan waited for the zone
	 * and has no time left. Both are retryable, and the replies come in time. */
	assert_int_equal(jobs[0].status, 503);
	assert_true(jobs[0].seconds < 0.75);
	assert_int_equal(jobs[1].status, 503);
	assert_true(jobs[1].seconds < 0.75);
	/* failed/transient when the request went out and the deadline left no time to read
	 * back (the truth is unknown), failed/deadline when it never went out. */
	assert_int_equal(count_lines(f.droplog_path, "\"outcome\":\"failed\""), 2);
	/* Changes in = sum of outcomes, in the metrics too: the busy zone's change failed, the
	 * invalid one and the one in no zone counted as such (the engine settled all three). */
	assert_int_equal(metric(&f, "dnsbatch_changes_total{zone=\"example.com.\",outcome=\"failed\"}"), 2);
	assert_int_equal(metric(&f, "dnsbatch_changes_total{zone=\"example.com.\",outcome=\"dropped\"}"), 1);
	assert_int_equal(metric(&f, "dnsbatch_changes_total{zone=\"\",outcome=\"dropped\"}"), 1);
	assert_int_equal(metric_sum(&f, "dnsbatch_changes_total"), 1 + 3);
	assert_int_equal(metric(&f, "dnsbatch_dropped_changes_total{zone=\"example.com.\",record_type=\"A\",reason=\"invalid\",cause=\"invalid\"}"), 1);
	assert_int_equal(metric(&f, "dnsbatch_dropped_changes_total{zone=\"\",record_type=\"A\",reason=\"no_zone\",cause=\"no_zone\"}"), 1);
	for (int i = 0; i < 2; i++)
		json_object_put(jobs[i].plan);
	json_object_put(c1);
	json_object_put(c2);
	fixture_stop(&f);
}

static void test_graceful_shutdown(void **state)
{
	setup_args a = { .faults = "*:latency=0.5" };
	struct json_object *c1 = list_of(1, a_record("one.example.com", "192.0.2.1"));
	post_job job;
	pthread_t th;
	char base[64];
	fixture f;
	extdns_reply r;
	(void)state;

	fixture_start(&f, &a);
	snprintf(base, sizeof(base), "http://127.0.0.1:%u", dnsb_webhook_port(f.wh, 0));
	job = (post_job){ &f, base, extdns_changes(c1, NULL, NULL, NULL, 0), 0, 0 };
	assert_int_equal(pthread_create(&th, NULL, post_thread, &job), 0);
	usleep(150 * 1000);
	dnsb_webhook_shutdown(f.wh, 10);
	pthread_join(th, NULL);
	/* The apply in flight finished and its reply went out. */
	assert_int_equal(job.status, 204);
	assert_int_equal(dnsb_memory_rrset_count(f.provider), 1);
	/* Nothing listens any more. */
	assert_int_equal(extdns_request(f.client, "GET", "/healthz", NULL, NULL, 0, &r), -1);
	dnsb_webhook_shutdown(f.wh, 10); /* twice is fine */
	json_object_put(job.plan);
	json_object_put(c1);
	fixture_stop(&f);
}

static void test_start_errors(void **state)
{
	dnsb_webhook_options wo = DNSB_WEBHOOK_OPTIONS_INIT;
	dnsb_webhook *wh = NULL, *wh2 = NULL;
	dnsb_provider *p = NULL;
	dnsb_error err = { 0 };
	char addr[64];
	(void)state;

	assert_int_equal(dnsb_memory_new(&p, zones, 1, NULL, &err), 0);
	wo.listen = "127.0.0.1";
	assert_int_equal(dnsb_webhook_start(&wh, p, &wo, &err), DNSB_EINVAL);
	wo.listen = "127.0.0.1:99999";
	assert_int_equal(dnsb_webhook_start(&wh, p, &wo, &err), DNSB_EINVAL);
	wo.listen = "127.0.0.1:0";
	wo.metrics_listen = "";
	wo.apply_timeout = 0;
	assert_int_equal(dnsb_webhook_start(&wh, p, &wo, &err), DNSB_EINVAL);
	wo.apply_timeout = 5;
	assert_int_equal(dnsb_webhook_start(&wh, p, &wo, &err), 0);
	assert_int_equal(dnsb_webhook_port(wh, 1), 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", dnsb_webhook_port(wh, 0));
	wo.listen = addr;
	assert_int_equal(dnsb_webhook_start(&wh2, p, &wo, &err), DNSB_EIO);
	assert_non_null(strstr(err.message, addr));
	assert_null(wh2);
	dnsb_webhook_free(wh);
	dnsb_webhook_free(NULL);
	dnsb_provider_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_rules),
		cmocka_unit_test(test_negotiate_empty),
		cmocka_unit_test(test_negotiate_lists),
		cmocka_unit_test(test_negotiate_regex),
		cmocka_unit_test(test_endpoint_form),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_adjustendpoints),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_null_plan),
		cmocka_unit_test(test_quarantine_endpoint),
		cmocka_unit_test(test_provider_port_guards),
		cmocka_unit_test(test_idle_connections),
		cmocka_unit_test(test_post_conflicts),
		cmocka_unit_test(test_post_transient),
		cmocka_unit_test(test_post_malformed),
		cmocka_unit_test(test_post_oversized),
		cmocka_unit_test(test_healthz_waits_for_provider),
		cmocka_unit_test(test_reads_during_apply),
		cmocka_unit_test(test_apply_timeout),
		cmocka_unit_test(test_graceful_shutdown),
		cmocka_unit_test(test_start_errors),
	};
	int rc;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	dnsb_log_set_level(DNSB_LOG_ERROR);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
