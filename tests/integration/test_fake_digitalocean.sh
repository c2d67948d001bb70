#!/usr/bin/env bash
#
# test_fake_digitalocean.sh - the DigitalOcean fake itself (tests/fakes/fake_digitalocean.py), driven with curl over
# HTTPS before any provider test leans on it: Bearer auth, records per value with ids, DigitalOcean's forms of the
# data, its 422 refusals, pagination and filters, the per-token rate limits and their headers, the schema check of
# every request, and the scripted faults. Each fake runs on a free loopback port and is stopped by PID.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/digitalocean_fake.sh

needs openssl jq curl python3
python3 -c 'import jsonschema' 2>/dev/null || { not_ok "python3-jsonschema is installed (make deps)"; exit 1; }
fake_scratch
R=/v2/domains/example.com/records
# post BODY: create a record; prints "STATUS ID-or-message"
post() { local s; s=$(req POST "$R" "$1"); echo "$s $(jq -r '.domain_record.id // .message' "$T/b")"; }
# names PATH: the "name type data" of a listing's records, one a line
names() { req GET "$1" >/dev/null; jq -r '.domain_records[] | "\(.name) \(.type) \(.data)"' "$T/b"; }

# ---- auth ----
start_do api || exit 1
eq "auth: no token is 401 unauthorized" "$(req GET "$R" '' -) $(jq -c . "$T/b")" \
	'401 {"id":"unauthorized","message":"Unable to authenticate you."}'
eq "auth: the 401 carries the rate-limit headers" "$(header ratelimit-limit)" 5000
eq "auth: an unknown token is 401" "$(req GET "$R" '' dop_v1_wrong)" 401
eq "auth: a token given is 200" "$(req GET "$R")" 200

# ---- a fresh domain, creates, DigitalOcean's forms ----
eq "list: a fresh domain holds its SOA and three NS at @, links {} and meta.total" \
	"$(jq -c '[[.domain_records[] | "\(.name) \(.type) \(.data)"], .links, .meta]' "$T/b")" \
	'[["@ SOA 1800","@ NS ns1.digitalocean.com","@ NS ns2.digitalocean.com","@ NS ns3.digitalocean.com"],{},{"total":4}]'
out=$(post '{"type":"A","name":"www","data":"192.0.2.1","ttl":300}')
check "create: an A record is 201 with an integer id" grep -qE '^201 [0-9]+$' <<<"$out"
WWW=${out#* }
eq "create: it is listed with every attribute, null where A uses none" "$(req GET "$R/$WWW") $(jq -c . "$T/b")" \
	"200 {\"domain_record\":{\"id\":$WWW,\"type\":\"A\",\"name\":\"www\",\"data\":\"192.0.2.1\",\"ttl\":300,\"priority\":null,\"port\":null,\"weight\":null,\"flags\":null,\"tag\":null}}"
eq "create: a CNAME's data without the trailing dot is 422" "$(post '{"type":"CNAME","name":"alias","data":"www.example.net"}')" \
	"422 Data needs to end with a dot (.)"
eq "create: an MX exchange without the dot is 422 too" \
	"$(post '{"type":"MX","name":"@","data":"mx.example.net","priority":10,"ttl":300}')" "422 Data needs to end with a dot (.)"
post '{"type":"CNAME","name":"alias","data":"WWW.Example.NET.","ttl":300}' >/dev/null
post '{"type":"CNAME","name":"home","data":"example.com.","ttl":300}' >/dev/null
post '{"type":"MX","name":"@","data":"mx.example.net.","priority":10,"ttl":300}' >/dev/null
post '{"type":"SRV","name":"_sip._tcp","data":"sip.example.net.","priority":1,"weight":2,"port":5060,"ttl":300}' >/dev/null
post '{"type":"CAA","name":"@","data":"letsencrypt.org.","flags":0,"tag":"issue","ttl":300}' >/dev/null
post '{"type":"TXT","name":"www","data":"v=spf1 -all"}' >/dev/null
eq "create: host names kept without the dot, the domain itself as @, a TTL not given 1800" "$(zone)" \
	"$(printf '%s\n' '@ 1800 NS ns1.digitalocean.com' '@ 1800 NS ns2.digitalocean.com' '@ 1800 NS ns3.digitalocean.com' \
		'@ 300 CAA 0 issue letsencrypt.org.' '@ 300 MX 10 mx.example.net' '_sip._tcp 300 SRV 1 2 5060 sip.example.net' \
		'alias 300 CNAME www.example.net' 'home 300 CNAME @' 'www 1800 TXT v=spf1 -all' 'www 300 A 192.0.2.1')"
eq "create: a CAA issue value naming a domain without the dot is 422" \
	"$(post '{"type":"CAA","name":"caa","data":"letsencrypt.org","flags":0,"tag":"issue"}')" "422 Data needs to end with a dot (.)"
eq "create: a CAA issue value ';' (no CA) is held as sent" \
	"$(post '{"type":"CAA","name":"caa","data":";","flags":0,"tag":"issuewild"}' | cut -d' ' -f1)" 201

# ---- 422 refusals ----
eq "422: a TTL under 30" "$(post '{"type":"A","name":"t","data":"192.0.2.9","ttl":29}')" "422 TTL must be at least 30 seconds"
eq "422: its body is DigitalOcean's error shape" "$(jq -r 'keys | join(",")' "$T/b") $(jq -r .id "$T/b")" \
	"id,message unprocessable_entity"
eq "422: a CNAME at the apex" "$(post '{"type":"CNAME","name":"@","data":"www.example.net."}')" \
	"422 CNAME records cannot be created at the root of the domain (@)"
eq "422: a CNAME beside an A" "$(post '{"type":"CNAME","name":"www","data":"www.example.net."}')" \
	"422 CNAME records cannot share a name with other records"
eq "422: an A beside a CNAME" "$(post '{"type":"A","name":"alias","data":"192.0.2.2"}')" \
	"422 records cannot share a name with a CNAME record"
eq "422: a second CNAME at a CNAME's name" "$(post '{"type":"CNAME","name":"alias","data":"other.example.net."}')" \
	"422 CNAME records cannot share a name with other records"
eq "422: a duplicate (same name, type and data)" "$(post '{"type":"A","name":"www","data":"192.0.2.1","ttl":600}')" \
	"422 A record with the same name, type and data already exists"
eq "422: an A whose data is no IPv4 address" "$(post '{"type":"A","name":"bad","data":"2001:db8::1"}')" \
	"422 Data must be a valid IPv4 address"
eq "422: an MX without priority" "$(post '{"type":"MX","name":"m","data":"mx.example.net."}' | cut -d' ' -f1)" 422
eq "422: a name ending in a dot (names are relative)" \
	"$(post '{"type":"A","name":"abs.example.com.","data":"192.0.2.3"}' | cut -d' ' -f1)" 422
eq "422: the refusals wrote nothing" "$(zone | wc -l)" 11
eq "422: the refusals are no schema problem" "$(stat .bad_schema)" 0

# ---- updates and deletes ----
ALIAS=$(req GET "$R?name=alias.example.com&type=CNAME" >/dev/null; jq -r '.domain_records[0].id' "$T/b")
eq "PUT: a CNAME updated without data is 422 (its stored data has no dot, doctl #919)" \
	"$(req PUT "$R/$ALIAS" '{"type":"CNAME","ttl":600}') $(jq -r .message "$T/b")" "422 Data needs to end with a dot (.)"
eq "PUT: with its data absolute it is 200" \
	"$(req PUT "$R/$ALIAS" '{"type":"CNAME","ttl":600,"data":"www.example.net."}') $(jq -c '.domain_record | [.id, .ttl, .data]' "$T/b")" \
	"200 [$ALIAS,600,\"www.example.net\"]"
eq "PATCH: the TTL alone keeps the rest" "$(req PATCH "$R/$WWW" '{"type":"A","ttl":900}') $(jq -c '.domain_record | [.ttl, .data]' "$T/b")" \
	'200 [900,"192.0.2.1"]'
eq "PUT: a TTL under 30 is 422, nothing changed" "$(req PUT "$R/$WWW" '{"type":"A","ttl":10}') $(zone | grep -c '^www 900 A')" "422 1"
SOA=$(req GET "$R?type=SOA" >/dev/null; jq -r '.domain_records[0].id' "$T/b")
eq "DELETE: the SOA cannot be deleted" "$(req DELETE "$R/$SOA")" 422
eq "DELETE: a record is 204 without a body" "$(req DELETE "$R/$WWW") $(wc -c <"$T/b")" "204 0"
eq "DELETE: then it is 404 not_found" "$(req GET "$R/$WWW") $(jq -r .id "$T/b")" "404 not_found"
eq "404: an unknown domain" "$(req GET /v2/domains/example.net/records) $(jq -r .id "$T/b")" "404 not_found"

# ---- pagination and filters ----
for i in 1 2 3 4 5 6 7; do post "{\"type\":\"A\",\"name\":\"p$i\",\"data\":\"192.0.2.$((10 + i))\",\"ttl\":300}" >/dev/null; done
TOTAL=$(req GET "$R" >/dev/null; jq -r .meta.total "$T/b")
eq "page: 20 by default (no links with fewer)" "$TOTAL $(jq -c '[(.domain_records | length), .links]' "$T/b")" "18 [18,{}]"
req GET "$R?per_page=5" >/dev/null
eq "page: the first page links next and last only" "$(jq -c '.links.pages | keys' "$T/b") $(jq -r .meta.total "$T/b")" \
	'["last","next"] 18'
eq "page: last names the last page" "$(jq -r .links.pages.last "$T/b")" "$URL$R?page=4&per_page=5"
req GET "$R?per_page=5&page=4" >/dev/null
eq "page: the last page links first and prev only, with what is left" \
	"$(jq -c '[(.links.pages | keys), (.domain_records | length)]' "$T/b")" '[["first","prev"],3]'
ids=() next="$R?per_page=5"
while [ -n "$next" ]; do
	req GET "$next" >/dev/null
	mapfile -t -O "${#ids[@]}" ids < <(jq -r '.domain_records[].id' "$T/b")
	next=$(jq -r '.links.pages.next // empty' "$T/b")
	next=${next#"$URL"}
done
eq "page: following next visits every record once" "${#ids[@]} $(printf '%s\n' "${ids[@]}" | sort -u | wc -l)" "18 18"
eq "page: per_page above 200 is off the schema (400)" "$(req GET "$R?per_page=201") $(jq -r .id "$T/b")" "400 bad_request"
eq "page: page 0 is off the schema (400)" "$(req GET "$R?page=0")" 400
eq "filter: name is a fully qualified name" "$(names "$R?name=p3.example.com")" "p3 A 192.0.2.13"
eq "filter: the apex is the domain's name, with type" "$(names "$R?name=example.com&type=MX")" "@ MX mx.example.net"
eq "filter: a relative name matches nothing" "$(names "$R?name=p3" | wc -l) $(jq -r .meta.total "$T/b")" "0 0"
eq "filter: a type outside the spec's enum is 400" "$(req GET "$R?type=PTR")" 400
eq "filter: an undeclared query parameter is 400" "$(req GET "$R?zone=example.com")" 400
eq "domains: listed with name, ttl and zone_file" "$(req GET /v2/domains) $(jq -c '[.domains[].name, .meta.total]' "$T/b")" \
	'200 ["example.com","example.org",2]'
eq "domains: one domain" "$(req GET /v2/domains/example.com) $(jq -r '.domain.zone_file' "$T/b" | grep -c 'IN MX 10 mx.example.net.')" "200 1"

# ---- the schema check of every request ----
before=$(stat .bad_schema)
eq "schema: a member the model does not declare is 422" \
	"$(post '{"type":"A","name":"s1","data":"192.0.2.50","proxied":true}' | cut -d' ' -f1)" 422
check "schema: its message names the member" grep -q "'proxied' was unexpected" "$T/b"
eq "schema: ttl as a string is 422" "$(post '{"type":"A","name":"s2","data":"192.0.2.51","ttl":"300"}' | cut -d' ' -f1)" 422
eq "schema: the read-only id sent is 422" "$(post '{"id":5,"type":"A","name":"s3","data":"192.0.2.52"}' | cut -d' ' -f1)" 422
eq "schema: a body without type is 422" "$(post '{"name":"s4","data":"192.0.2.53"}' | cut -d' ' -f1)" 422
eq "schema: a body that is not JSON is 400 bad_request" "$(req POST "$R" '{"type":') $(jq -r .id "$T/b")" "400 bad_request"
eq "schema: a record id that is no integer is 400" "$(req GET "$R/abc")" 400
eq "schema: a body on DELETE is 400" "$(req DELETE "$R/$ALIAS" '{"type":"CNAME"}')" 400
eq "schema: each counted, with its problem" "$(($(stat .bad_schema) - before)) $(stat '.problems | length')" "7 11"
eq "schema: none of them wrote anything" "$(zone | grep -c '^s[0-9]')" 0
eq "schema: every reply matched the response schemas" "$(stat .bad_response)" 0

# ---- rate limits ----
start_do rate --rate-minute 3 --rate-hour 5 --minute-seconds 2 || exit 1
t0=$(date +%s)
left=()
for i in 1 2 3; do req GET "$R" >/dev/null; left+=("$(header ratelimit-remaining)"); done
eq "rate: ratelimit-limit is the hourly limit, remaining counts down" "$(header ratelimit-limit) ${left[*]}" "5 4 3 2"
reset=$(header ratelimit-reset)
check "rate: ratelimit-reset is epoch seconds an hour after the oldest request" \
	test "$reset" -ge $((t0 + 3600)) -a "$reset" -le $((t0 + 3602))
eq "rate: the 4th request in the minute is 429 too_many_requests" "$(req GET "$R") $(jq -c . "$T/b")" \
	'429 {"id":"too_many_requests","message":"API Rate limit exceeded."}'
eq "rate: the burst 429 says remaining 0 and retry-after" "$(header ratelimit-remaining) $(header retry-after)" "0 2"
eq "rate: another token has a budget of its own" "$(req GET "$R" '' "$OTHER_TOKEN") $(header ratelimit-remaining)" "200 4"
sleep 2.1
eq "rate: once the minute frees, the request passes (the refused one was not counted)" \
	"$(req GET "$R") $(header ratelimit-remaining)" "200 1"
req GET "$R" >/dev/null
eq "rate: past the hourly limit, 429 without retry-after" "$(req GET "$R") $(header ratelimit-remaining) [$(header retry-after)]" \
	"429 0 []"
eq "rate: both kinds counted" "$(stat '"\(.burst_limited) \(.hourly_limited)"')" "1 1"

# ---- scripted faults ----
start_do faults --fault 502after --fault drop --fault refuse --status-at 5=503 || exit 1
eq "fault 502after: 502, the record written" "$(req POST "$R" '{"type":"A","name":"f1","data":"192.0.2.61"}') $(zone | grep -c '^f1 ')" \
	"502 1"
eq "fault drop: no reply (curl sees an empty reply), the record written" \
	"$(req POST "$R" '{"type":"A","name":"f2","data":"192.0.2.62"}') $(zone | grep -c '^f2 ')" "000 1"
eq "fault refuse: 422, nothing written" "$(req POST "$R" '{"type":"A","name":"f3","data":"192.0.2.63"}') $(zone | grep -c '^f3 ')" \
	"422 0"
eq "status-at: the 5th API request answers 503 service_unavailable" "$(req GET "$R") $(req GET "$R") $(jq -r .id "$T/b")" \
	"200 503 service_unavailable"
curl -s --cacert "$T/ca.pem" -X POST "$URL/_fake/fault/500" >/dev/null
eq "fault hook: a 500 appended, nothing written" "$(req DELETE "$R/$(req GET "$R?name=f1.example.com" >/dev/null; jq -r '.domain_records[0].id' "$T/b")") $(zone | grep -c '^f1 ')" \
	"500 1"
eq "faults: counted" "$(stat .faults) $(stat .dropped_replies)" "4 1"
clean_requests faults

[ "$failures" -eq 0 ]
