#!/bin/sh
# adapter.sh — mcpx as the "client under test" of the official MCP conformance
# suite (npm @modelcontextprotocol/conformance, `conformance client` mode).
#
# The suite starts a test server for one scenario, then runs
#     sh -c "<--command> SERVER_URL"
# with MCP_CONFORMANCE_SCENARIO set to the scenario name, (from 0.2 on)
# MCP_CONFORMANCE_PROTOCOL_VERSION set to the protocol version its server
# speaks, and for some scenarios MCP_CONFORMANCE_CONTEXT set to a JSON object
# (credentials, the tool calls to make). The scenario's checks
# are recorded by the test server; this script only has to drive mcpx the way
# the scenario expects. It exits non-zero when mcpx fails or prints something
# other than what the scenario's server answers, which the suite reports as
# "CLIENT EXITED WITH ERROR" (a failed scenario).
#
# Usage (normally via scripts/conformance/run.sh):
#     MCP_CONFORMANCE_SCENARIO=initialize adapter.sh http://localhost:PORT
# Environment:
#     MCPX                      the mcpx binary (default: mcpx on PATH)
#     MCP_CONFORMANCE_PROTOCOL_VERSION
#                               set by the suite: every mcpx command gets
#                               --protocol-version with it, as a user who knows
#                               the server's version would pass it (mcpx
#                               defaults to 2025-11-25, and a 2026-07-28 server
#                               has no initialize)
#     MCPX_CONFORMANCE_TIMEOUT  mcpx --timeout for each call (default 20s, below
#                               the suite's own 30 s bound on the whole adapter)
set -u

MCPX=${MCPX:-mcpx}
TIMEOUT=${MCPX_CONFORMANCE_TIMEOUT:-20s}

die() {
	printf 'adapter: %s\n' "$*" >&2
	exit 1
}

[ $# -ge 1 ] || die "usage: MCP_CONFORMANCE_SCENARIO=NAME $0 SERVER_URL"
# The suite appends the URL as the last argument.
for url in "$@"; do :; done
scenario=${MCP_CONFORMANCE_SCENARIO:-}
[ -n "$scenario" ] || die "MCP_CONFORMANCE_SCENARIO is not set (run me through the conformance suite, or set it)"

command -v "$MCPX" >/dev/null 2>&1 || die "mcpx binary '$MCPX' not found (set MCPX)"
# The protocol version the scenario's server speaks (0.1.16 sets none).
proto=
if [ -n "${MCP_CONFORMANCE_PROTOCOL_VERSION:-}" ]; then
	proto="--protocol-version $MCP_CONFORMANCE_PROTOCOL_VERSION"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/mcpx-conformance.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$work"' EXIT HUP INT TERM
# Hermetic: no user config, stored token, cache or daemon of the caller is
# used, and no warm connection outlives the adapter (keep-alive off).
XDG_CONFIG_HOME=$work/config
XDG_STATE_HOME=$work/state
XDG_RUNTIME_DIR=$work/run
MCPX_CACHE_DIR=$work/cache
MCPX_KEEP_ALIVE=0
export XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR MCPX_CACHE_DIR MCPX_KEEP_ALIVE
unset MCPX_CONFIG

# mcpx_run ARGS...: runs mcpx (with --no-input and the timeout), its stdout in
# $out, echoing the command and its stderr to our stderr; returns mcpx's status.
mcpx_run() {
	printf '+ mcpx %s%s\n' "${proto:+$proto }" "$*" >&2
	# shellcheck disable=SC2086 # $proto is two words or none
	out=$("$MCPX" --no-input --timeout "$TIMEOUT" $proto "$@")
	rc=$?
	printf '%s\n' "$out" | sed 's/^/  | /' >&2
	return $rc
}

# expect WHAT GOT WANT: fails the adapter when GOT != WANT.
expect() {
	[ "$2" = "$3" ] || die "$1: got '$2', want '$3'"
}

# tool_listed NAME: the server's complete tool listing (as mcpx reads it) has NAME.
tool_listed() {
	mcpx_run --json catalog "$url" --kind tool --select 'items.#.id' || die "catalog failed (exit $rc)"
	printf '%s\n' "$out" | grep -qx "$1" || die "catalog does not list tool $1 (got: $out)"
}

# ctx KEY: a string field of MCP_CONFORMANCE_CONTEXT (node is on PATH under
# run.sh); ctx_json EXPR: the JSON of a JavaScript expression over the
# context c, one line.
ctx() {
	node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); process.stdout.write(String(c[process.argv[1]] ?? ""))' "$1"
}
ctx_json() {
	node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); for (const v of eval(process.argv[1])) console.log(JSON.stringify(v))' "$1"
}

case $scenario in
initialize)
	# The scenario checks the initialize request (protocol version, clientInfo
	# name and version). Two mcpx paths initialize: a URL server (catalog; the
	# server advertises no capability, so the catalog is empty) and a configured
	# server under servers --probe (which reports what initialize returned).
	mcpx_run catalog "$url" || die "catalog failed (exit $rc)"
	expect "catalog of a server with no capabilities" "$out" ""
	cat >"$work/config.json" <<EOF
{"mcpServers": {"conformance": {"url": "$url"}}}
EOF
	mcpx_run --config "$work/config.json" --json servers --probe \
		--select 'servers.#(name=="conformance").probe' || die "servers --probe failed (exit $rc)"
	case $out in
	*'"server_name":"test-server"'*'"error":null'*) ;;
	*) die "servers --probe: want server_name test-server and no error, got: $out" ;;
	esac
	;;

tools_call)
	# The server offers add_numbers {a: number, b: number} (both required) and
	# answers "The sum of A and B is A+B"; the check ToolAddNumbers passes when
	# the tool is called. Calling it with typed pairs and with raw JSON checks
	# that mcpx typed the values by the schema (strings would concatenate).
	tool_listed add_numbers
	mcpx_run invoke "$url" add_numbers a=5 b=3 || die "invoke add_numbers a=5 b=3 failed (exit $rc)"
	expect "add_numbers a=5 b=3" "$out" "The sum of 5 and 3 is 8"
	mcpx_run invoke "$url" add_numbers 'a:=1.5' b=-2 || die "invoke add_numbers a:=1.5 b=-2 failed (exit $rc)"
	expect "add_numbers a:=1.5 b=-2" "$out" "The sum of 1.5 and -2 is -0.5"
	mcpx_run --json invoke "$url" add_numbers --args '{"a": 20, "b": 22}' --select 'content.0.text' ||
		die "invoke add_numbers --args failed (exit $rc)"
	expect "add_numbers --args {a:20,b:22}" "$out" "The sum of 20 and 22 is 42"
	;;

elicitation-sep1034-client-defaults)
	# The tool sends elicitation/create with a schema whose fields all have
	# defaults and none is required; without a terminal (--no-input) mcpx must
	# accept with those defaults (REQUESTS FROM SERVERS in mcpx(1)).
	tool_listed test_client_elicitation_defaults
	mcpx_run invoke "$url" test_client_elicitation_defaults || die "invoke failed (exit $rc)"
	;;

sse-retry)
	# The tools/call response stream is closed after a priming event with
	# retry: 500; the client must reconnect with GET (Last-Event-ID) after
	# ~500 ms and receive the result there.
	tool_listed test_reconnection
	mcpx_run invoke "$url" test_reconnection || die "invoke failed (exit $rc)"
	expect "test_reconnection" "$out" "Reconnection test completed successfully"
	;;

request-metadata)
	# 2026-07-28: every POST carries MCP-Protocol-Version and the _meta
	# protocolVersion, clientCapabilities and clientInfo. The server rejects
	# the first request with -32022 (data.supported: [2026-07-28]) and expects
	# the client to send it again at that version.
	mcpx_run catalog "$url" || die "catalog failed (exit $rc)"
	expect "catalog of a server with no capabilities" "$out" ""
	;;

sep-2322-client-request-state)
	# Multi round-trip requests: each tool answers input_required (an
	# elicitation, with or without requestState); mcpx answers it (no
	# terminal: accepted with no values, as no field is required or has a
	# default) and sends the call again with inputResponses, the
	# requestState unchanged and a new JSON-RPC id. test_mrtr_no_result_type answers without resultType:
	# complete, not retried.
	for t in test_mrtr_echo_state:echo-state-ok test_mrtr_unrelated:unrelated-ok \
		test_mrtr_no_state:no-state-ok test_mrtr_no_result_type:no-result-type-test-ok; do
		mcpx_run invoke "$url" "${t%%:*}" || die "invoke ${t%%:*} failed (exit $rc)"
		expect "${t%%:*}" "$out" "${t#*:}"
	done
	;;

http-standard-headers)
	# 2026-07-28 over HTTP: Mcp-Method on every POST, Mcp-Name on tools/call
	# (the tool), resources/read (the URI) and prompts/get (the prompt).
	# catalog lists tools, resources, templates and prompts; then one of each
	# operation, a tool name with a hyphen and a URI with %20 among them.
	mcpx_run catalog "$url" || die "catalog failed (exit $rc)"
	mcpx_run invoke "$url" test_headers || die "invoke test_headers failed (exit $rc)"
	expect "test_headers" "$out" "Headers test completed"
	mcpx_run invoke "$url" my-hyphenated-tool || die "invoke my-hyphenated-tool failed (exit $rc)"
	mcpx_run read "$url" 'file:///path/to/file%20name.txt' || die "read failed (exit $rc)"
	mcpx_run read "$url" 'https://example.com/resource?id=123' || die "read failed (exit $rc)"
	mcpx_run prompt "$url" test_prompt || die "prompt test_prompt failed (exit $rc)"
	;;

http-custom-headers)
	# x-mcp-header parameters are mirrored into Mcp-Param-NAME headers
	# (numbers and booleans as text, unsafe strings as =?base64?...?=, null
	# left out). The context names the calls to make, with their arguments.
	tool_listed test_custom_headers
	calls=$(ctx_json 'c.toolCalls.map((t) => [t.name, t.arguments])') || die "no toolCalls in MCP_CONFORMANCE_CONTEXT"
	[ -n "$calls" ] || die "no toolCalls in MCP_CONFORMANCE_CONTEXT"
	printf '%s\n' "$calls" >"$work/calls"
	while IFS= read -r call; do
		name=$(printf '%s' "$call" | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0, "utf8"))[0])')
		args=$(printf '%s' "$call" | node -e 'process.stdout.write(JSON.stringify(JSON.parse(require("fs").readFileSync(0, "utf8"))[1]))')
		mcpx_run invoke "$url" "$name" --args "$args" || die "invoke $name failed (exit $rc)"
		expect "$name" "$out" "Custom headers test completed"
	done <"$work/calls"
	;;

http-invalid-tool-headers)
	# Tools whose x-mcp-header annotations are invalid are left out of the
	# listing (with a warning); the valid one is kept and callable, and an
	# invalid one cannot be called (mcpx refuses a tool the server does not
	# list: exit 4, nothing sent).
	mcpx_run --json catalog "$url" --kind tool --select 'items.#.id' || die "catalog failed (exit $rc)"
	expect "the tools listed" "$out" valid_tool
	mcpx_run invoke "$url" valid_tool region=us-west1 || die "invoke valid_tool failed (exit $rc)"
	for t in invalid_empty_header invalid_duplicate_diff_case invalid_control_char_name; do
		if mcpx_run invoke "$url" "$t" value=x field1=a field2=b; then
			die "invoke $t: mcpx called a tool with invalid x-mcp-header annotations"
		fi
		[ "$rc" -eq 4 ] || die "invoke $t: want exit 4 (unknown tool), got $rc"
	done
	;;

json-schema-ref-no-deref)
	# A tool's inputSchema has a $ref to a network URL (a canary on the test
	# server): listing and describing the tool must not fetch it.
	tool_listed lookup_user
	mcpx_run describe "$url" lookup_user || die "describe failed (exit $rc)"
	;;

json-schema-2020-12-preservation)
	# The focal tool's inputSchema (2020-12: $schema, $defs with $anchor,
	# allOf/anyOf, if/then/else, additionalProperties) is sent back verbatim
	# as the schema argument of json_schema_echo: what describe --json shows
	# is what the server sent.
	mcpx_run --json describe "$url" json_schema_2020_12_tool --select input_schema || die "describe failed (exit $rc)"
	schema=$out
	mcpx_run invoke "$url" json_schema_echo --args "{\"schema\": $schema}" || die "invoke json_schema_echo failed (exit $rc)"
	expect "json_schema_echo" "$out" "echoed"
	;;

sep-2640-client-no-prefetch | sep-2640-client-verify-*)
	# Server-published skills (extension io.modelcontextprotocol/skills):
	# skills/list, then resources/read of skill:// files, each verified
	# against the listing's digest and size and SKILL.md's frontmatter
	# against the listing's. no-prefetch: listing reads no file;
	# verify-digest, verify-size, verify-frontmatter: SKILL.md is tampered
	# with, so the skill must be refused (nothing written, non-zero exit)
	# before the supporting file is read.
	"$MCPX" skills --help >/dev/null 2>&1 || die "mcpx has no skills command (server-published skills are not implemented)"
	case $scenario in
	sep-2640-client-no-prefetch)
		mcpx_run skills "$url" || die "skills failed (exit $rc)"
		case $out in
		*pdf-processing*) ;;
		*) die "skills does not list pdf-processing (got: $out)" ;;
		esac
		;;
	*)
		if mcpx_run skills get "$url" pdf-processing -o "$work/skill"; then
			die "skills get accepted a skill that fails verification"
		fi
		[ -z "$(ls -A "$work/skill" 2>/dev/null)" ] || die "skills get wrote files of a skill that fails verification"
		;;
	esac
	;;

auth/*)
	# OAuth scenarios: the MCP endpoint answers 401 until the client has run the
	# authorization-code flow (PKCE, dynamic registration or the pre-registered
	# client of MCP_CONFORMANCE_CONTEXT); then the client lists tools and calls
	# test-tool. The test authorization server redirects /authorize straight
	# back to the redirect_uri with a code, so a plain HTTP GET that follows
	# redirects (node's fetch: node is on PATH under run.sh) plays the browser.
	#
	# mcpx itself never re-authorizes outside `mcpx login` (AUTHENTICATION in
	# mcpx(1)): a 401 or a 403 insufficient_scope exits 6 with a hint. Like a
	# user following it, the adapter then logs in again: with --scope for
	# each scope of the 403's hint (error.login_scopes under --json: the
	# refused token's and the required ones; else error.scopes), plainly after a 401 ("log in with: mcpx login
	# SRV"; the stored token was refused), at most twice (three
	# authorizations in all: the retry limit that auth/scope-retry-limit
	# checks).
	oauth=
	machine=
	client_id=$(ctx client_id)
	case $scenario in
	auth/client-credentials-*)
		# Machine to machine: the context gives the client id and its secret
		# (client_secret_basic) or a PEM private key (private_key_jwt); the
		# config names them ("grant": "client_credentials") and mcpx obtains
		# the token itself on the first command: no login.
		machine=1
		MCPX_CONFORMANCE_CLIENT_SECRET=$(ctx client_secret)
		MCPX_CONFORMANCE_PRIVATE_KEY=$(ctx private_key_pem)
		export MCPX_CONFORMANCE_CLIENT_SECRET MCPX_CONFORMANCE_PRIVATE_KEY
		if [ -n "$MCPX_CONFORMANCE_PRIVATE_KEY" ]; then
			cred='"privateKey": "${MCPX_CONFORMANCE_PRIVATE_KEY}"'
		else
			cred='"clientSecret": "${MCPX_CONFORMANCE_CLIENT_SECRET}"'
		fi
		oauth=", \"oauth\": {\"grant\": \"client_credentials\", \"clientId\": \"$client_id\", $cred}"
		;;
	auth/wif-jwt-bearer)
		# Workload identity federation (SEP-1933): a workload's JWT (what a CI
		# system hands a job) exchanged with the JWT-bearer grant (RFC 7523),
		# no person, no login: "grant": "jwt-bearer" (AUTHENTICATION in
		# mcpx(1)) with the assertion in an environment variable. The
		# context's wrong_audience_jwt and
		# expired_jwt are for broken clients: not used.
		machine=1
		MCPX_CONFORMANCE_WORKLOAD_JWT=$(ctx valid_jwt)
		export MCPX_CONFORMANCE_WORKLOAD_JWT
		oauth=", \"oauth\": {\"grant\": \"jwt-bearer\", \"clientId\": \"$client_id\", \"assertionEnv\": \"MCPX_CONFORMANCE_WORKLOAD_JWT\"}"
		;;
	auth/enterprise-managed-authorization | auth/cross-app-access-complete-flow)
		# Enterprise-managed authorization (SEP-990; 0.1.16 named it
		# cross-app-access-complete-flow): the person's ID token
		# from the enterprise IdP (the context hands one over, as an IdP
		# login would have) exchanged at the IdP for an ID-JAG (RFC 8693),
		# then the ID-JAG presented at the authorization server with the
		# JWT-bearer grant and client_secret_basic: "grant": "id-jag"
		# (AUTHENTICATION in mcpx(1)), no login.
		machine=1
		MCPX_CONFORMANCE_CLIENT_SECRET=$(ctx client_secret)
		MCPX_CONFORMANCE_ID_TOKEN=$(ctx idp_id_token)
		export MCPX_CONFORMANCE_CLIENT_SECRET MCPX_CONFORMANCE_ID_TOKEN
		idp="{\"issuer\": \"$(ctx idp_issuer)\", \"clientId\": \"$(ctx idp_client_id)\", \"idTokenEnv\": \"MCPX_CONFORMANCE_ID_TOKEN\"}"
		oauth=", \"oauth\": {\"grant\": \"id-jag\", \"clientId\": \"$client_id\", \"clientSecret\": \"\${MCPX_CONFORMANCE_CLIENT_SECRET}\", \"idp\": $idp}"
		;;
	auth/basic-cimd)
		# The authorization server supports client ID metadata documents:
		# the scenario expects this URL as the client id (it does not fetch it).
		oauth=', "oauth": {"clientMetadataUrl": "https://conformance-test.local/client-metadata.json"}'
		;;
	*)
		# auth/dpop and auth/dpop-nonce are run like the others: mcpx is to
		# use DPoP by itself when the authorization server advertises it
		# (dpop_signing_alg_values_supported).
		if [ -n "$client_id" ]; then
			MCPX_CONFORMANCE_CLIENT_SECRET=$(ctx client_secret)
			export MCPX_CONFORMANCE_CLIENT_SECRET
			oauth=", \"oauth\": {\"clientId\": \"$client_id\", \"clientSecret\": \"\${MCPX_CONFORMANCE_CLIENT_SECRET}\"}"
		fi
		;;
	esac
	printf '{"mcpServers": {"conformance": {"url": "%s"%s}}}\n' "$url" "$oauth" >"$work/config.json"
	# login ARGS...: mcpx login conformance --no-browser ARGS, following the
	# authorization URL it prints on stderr the way a browser would.
	login() {
		printf '+ mcpx %slogin conformance --no-browser %s (config: %s)\n' "${proto:+$proto }" "$*" "$(cat "$work/config.json")" >&2
		# Emptied here, not by the background command's redirection: that
		# happens in the child, and the loop below could read the last
		# login's URL before it does.
		: >"$work/login.err"
		# shellcheck disable=SC2086 # $proto is two words or none
		"$MCPX" --config "$work/config.json" --timeout "$TIMEOUT" $proto login conformance --no-browser "$@" 2>"$work/login.err" &
		login=$!
		authurl='' i=0
		while [ $i -lt 100 ] && kill -0 "$login" 2>/dev/null; do
			authurl=$(grep -o 'https\{0,1\}://[^][:space:]"<>'"'"']*response_type=code[^][:space:]"<>'"'"']*' "$work/login.err" | head -n 1)
			[ -n "$authurl" ] && break
			sleep 0.1
			i=$((i + 1))
		done
		if [ -n "$authurl" ]; then
			printf '+ GET %s (following redirects)\n' "$authurl" >&2
			node -e 'fetch(process.argv[1]).then((r) => { if (!r.ok) { console.error(`adapter: the authorization URL ended in HTTP ${r.status}`) } }, (e) => console.error(`adapter: GET of the authorization URL failed: ${e.message}`))' "$authurl"
		fi
		wait "$login"
		rc=$?
		sed 's/^/  | /' "$work/login.err" >&2
		[ $rc -eq 0 ] || die "login failed (exit $rc)"
	}
	# use: list the tools and call test-tool with the stored token; on a
	# failure, $rc is mcpx's status, $op the operation, $status the HTTP
	# status of an authentication error and $scopes the scopes a 403 names.
	use() {
		status='' scopes=''
		for op in "catalog conformance --kind tool" "invoke conformance test-tool"; do
			printf '+ mcpx %s--json %s\n' "${proto:+$proto }" "$op" >&2
			# shellcheck disable=SC2086 # $proto and $op are split on purpose
			"$MCPX" --config "$work/config.json" --no-input --json --timeout "$TIMEOUT" $proto $op >"$work/op.out" 2>"$work/op.err"
			rc=$?
			sed 's/^/  | /' "$work/op.out" "$work/op.err" >&2
			if [ $rc -ne 0 ]; then
				# shellcheck disable=SC2046 # the status, then each scope
				set -- $(node -e 'const fs = require("fs");
const lines = fs.readFileSync(process.argv[1], "utf8").trim().split("\n");
try { const e = JSON.parse(lines[lines.length - 1]).error; process.stdout.write([e.status || 0, ...(e.status === 403 ? e.login_scopes || e.scopes || [] : [])].join(" ")) } catch {}' "$work/op.err")
				status=${1:-}
				[ $# -eq 0 ] || shift
				scopes=$*
				return 1
			fi
		done
	}
	[ -n "$machine" ] || login
	tries=0
	until use; do
		if [ "$rc" -ne 6 ] || [ -n "$machine" ]; then
			die "$op failed (exit $rc)"
		fi
		case $status in
		401) ;;
		403) [ -n "$scopes" ] || die "$op failed (exit 6: HTTP 403 naming no scope)" ;;
		*) die "$op failed (exit $rc)" ;;
		esac
		[ $tries -lt 2 ] || die "$op still refused (exit 6, HTTP $status) after $tries more logins as the hints said; giving up"
		tries=$((tries + 1))
		set --
		for s in $scopes; do set -- "$@" --scope "$s"; done
		login "$@"
	done
	;;

*)
	die "no mapping for scenario '$scenario' (add one to $0)"
	;;
esac
