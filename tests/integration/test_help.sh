#!/bin/bash
# test_help.sh - the help of the program, from the flag tables: `COMMAND --provider NAME --help` shows the engine
# flags and NAME's flags only; `COMMAND --help` names the providers and says how to see one's flags; `dnsbatch help
# COMMAND` is `COMMAND --help`; `dnsbatch help --json` is valid JSON listing exactly the flags --help prints, for
# every command and every provider. No server needed.
set -u
DNSBATCH=${DNSBATCH:-build/dnsbatch}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FAILED=0
check() {
	local what=$1
	shift
	if "$@" >/dev/null 2>&1; then echo "ok - $what"; else echo "not ok - $what"; FAILED=$((FAILED + 1)); fi
}
# The flags a help text lists: lines "  --NAME ...", sorted.
flags_of() { sed -n 's/^  \(--[a-z0-9][a-z0-9-]*\).*/\1/p' "$1" | sort -u; }

"$DNSBATCH" help --json >"$T/help.json"
check "help --json: exit 0, valid JSON" jq -e '.commands | length > 0' "$T/help.json"
check "help --json: the commands apply, serve, plan, records and drops" \
	jq -e '[.commands[].name] == ["apply", "serve", "plan", "records", "drops"]' "$T/help.json"
check "help --json: every flag has a name, an arg (or null), help, secret and default" \
	jq -e '[(.commands[].flags[], .providers[].flags[]) | (.name | startswith("--")) and has("arg") and
	        (.help | type == "string" and length > 0) and (.secret | type == "boolean") and has("default")] | all' \
	"$T/help.json"
check "help --json: the PowerDNS key file is a secret, --pdns-server is not" \
	jq -e '.providers[] | select(.name == "pdns") | .flags | (map(select(.name == "--pdns-api-key-file"))[0].secret)
	       and (map(select(.name == "--pdns-server"))[0].secret | not)' "$T/help.json"
check "help --json: --pdns-batch-change-size's default is 1000" \
	jq -e '.providers[] | select(.name == "pdns") | .flags[] | select(.name == "--pdns-batch-change-size") |
	       .default == "1000"' "$T/help.json"
mapfile -t providers < <(jq -r '.providers[].name' "$T/help.json")
check "help --json: the eight providers at least" [ "${#providers[@]}" -ge 8 ]

for cmd in apply serve records drops; do
	"$DNSBATCH" "$cmd" --help >"$T/$cmd.help"
	"$DNSBATCH" help "$cmd" >"$T/$cmd.help2"
	check "help $cmd is $cmd --help" cmp "$T/$cmd.help" "$T/$cmd.help2"
	jq -r --arg c "$cmd" '.commands[] | select(.name == $c) | .flags[].name' "$T/help.json" | sort -u >"$T/$cmd.json-flags"
	flags_of "$T/$cmd.help" >"$T/$cmd.help-flags"
	check "$cmd: help --json lists exactly the flags $cmd --help prints" diff "$T/$cmd.help-flags" "$T/$cmd.json-flags"
done

for cmd in apply serve records; do
	check "$cmd --help names every provider" \
		sh -c 'for p in "$@"; do grep -Eq "^  $p " "$0" || exit 1; done' "$T/$cmd.help" "${providers[@]}"
	check "$cmd --help says how to see a provider's flags" grep -q -- "--provider NAME --help" "$T/$cmd.help"
	check "$cmd --help lists no provider's flags" sh -c '! grep -Eq "^  --(pdns|rfc2136|google|aws|azure|cloudflare|memory)-" "$0"' \
		"$T/$cmd.help"
	for p in "${providers[@]}"; do
		"$DNSBATCH" "$cmd" --provider "$p" --help >"$T/$cmd.$p.help"
		# NAME's flags and those it shares (the rate budget's), beside the command's own.
		jq -r --arg p "$p" '.providers[] | select(.name == $p) | .flags[].name' "$T/help.json" | sort -u >"$T/$p.json-flags"
		flags_of "$T/$cmd.$p.help" | comm -23 - "$T/$cmd.help-flags" >"$T/$cmd.$p.help-flags"
		check "$cmd --provider $p --help: exactly $p's flags from help --json" diff "$T/$cmd.$p.help-flags" "$T/$p.json-flags"
	done
done
"$DNSBATCH" apply --provider pdns --help >"$T/pdns.help"
check "apply --provider pdns --help: the engine flags" grep -q -- "^  --batch-size N" "$T/pdns.help"
check "apply --provider pdns --help: pdns's flags" grep -q -- "^  --pdns-server URL" "$T/pdns.help"
check "apply --provider pdns --help: no other provider's" sh -c '! grep -Eq -- "--(rfc2136|google|aws|azure|cloudflare)-" "$0"' \
	"$T/pdns.help"
"$DNSBATCH" help apply --provider pdns >"$T/pdns.help2"
check "help apply --provider pdns is apply --provider pdns --help" cmp "$T/pdns.help" "$T/pdns.help2"
"$DNSBATCH" apply --provider=rfc2136 --help >"$T/rfc.help"
check "apply --provider=rfc2136 --help: rfc2136's flags" grep -q -- "^  --rfc2136-host HOST" "$T/rfc.help"
"$DNSBATCH" help no-such-command >/dev/null 2>&1
check "help of an unknown command: exit 2" [ $? = 2 ]
"$DNSBATCH" apply --provider no-such --help >"$T/unknown.help"
check "--provider of an unknown provider with --help: says so, names the known ones" \
	sh -c 'grep -q "unknown provider .no-such." "$0" && grep -Eq "^  pdns " "$0"' "$T/unknown.help"

[ "$FAILED" = 0 ]
