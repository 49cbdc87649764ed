#!/bin/sh
# adapter.sh — mcpx as the "client under test" of the official MCP conformance
# suite (npm @modelcontextprotocol/conformance, `conformance client` mode).
#
# The suite starts a test server for one scenario, then runs
#     sh -c "<--command> SERVER_URL"
# with MCP_CONFORMANCE_SCENARIO set to the scenario name (and, for a few auth
# scenarios, MCP_CONFORMANCE_CONTEXT set to a JSON object). The scenario's checks
# are recorded by the test server; this script only has to drive mcpx the way
# the scenario expects. It exits non-zero when mcpx fails or prints something
# other than what the scenario's server answers, which the suite reports as
# "CLIENT EXITED WITH ERROR" (a failed scenario).
#
# Usage (normally via scripts/conformance/run.sh):
#     MCP_CONFORMANCE_SCENARIO=initialize adapter.sh http://localhost:PORT
# Environment:
#     MCPX                      the mcpx binary (default: mcpx on PATH)
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
	printf '+ mcpx %s\n' "$*" >&2
	out=$("$MCPX" --no-input --timeout "$TIMEOUT" "$@")
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

auth/*)
	# OAuth scenarios: the MCP endpoint answers 401 until the client has run the
	# authorization-code flow (PKCE, dynamic registration or the pre-registered
	# client of MCP_CONFORMANCE_CONTEXT); then the client lists tools and calls
	# test-tool. The test authorization server redirects /authorize straight
	# back to the redirect_uri with a code, so a plain HTTP GET that follows
	# redirects (node's fetch: node is on PATH under run.sh) plays the browser.
	#
	# mcpx itself never re-authorizes outside `mcpx login` (AUTHENTICATION in
	# mcpx(1)): a 403 insufficient_scope exits 6 naming the scopes
	# (error.scopes under --json). Like a user following the hint, the adapter
	# then logs in again with exactly those scopes, at most twice (three
	# authorizations in all: the retry limit that auth/scope-retry-limit
	# checks).
	ctx() { # ctx KEY: a string field of MCP_CONFORMANCE_CONTEXT (node is on PATH under run.sh)
		node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); process.stdout.write(String(c[process.argv[1]] ?? ""))' "$1"
	}
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
	auth/basic-cimd)
		# The authorization server supports client ID metadata documents:
		# the scenario expects this URL as the client id (it does not fetch it).
		oauth=', "oauth": {"clientMetadataUrl": "https://conformance-test.local/client-metadata.json"}'
		;;
	*)
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
		printf '+ mcpx login conformance --no-browser %s (config: %s)\n' "$*" "$(cat "$work/config.json")" >&2
		# Emptied here, not by the background command's redirection: that
		# happens in the child, and the loop below could read the last
		# login's URL before it does.
		: >"$work/login.err"
		"$MCPX" --config "$work/config.json" --timeout "$TIMEOUT" login conformance --no-browser "$@" 2>"$work/login.err" &
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
	# failure, $rc is mcpx's status, $op the operation and $scopes what a 403
	# asked for.
	use() {
		scopes=
		for op in "catalog conformance --kind tool" "invoke conformance test-tool"; do
			printf '+ mcpx --json %s\n' "$op" >&2
			# shellcheck disable=SC2086 # $op is split on purpose
			"$MCPX" --config "$work/config.json" --no-input --json --timeout "$TIMEOUT" $op >"$work/op.out" 2>"$work/op.err"
			rc=$?
			sed 's/^/  | /' "$work/op.out" "$work/op.err" >&2
			if [ $rc -ne 0 ]; then
				scopes=$(node -e 'const fs = require("fs");
const lines = fs.readFileSync(process.argv[1], "utf8").trim().split("\n");
try { const e = JSON.parse(lines[lines.length - 1]).error; process.stdout.write((e.scopes || []).join(" ")) } catch {}' "$work/op.err")
				return 1
			fi
		done
	}
	[ -n "$machine" ] || login
	tries=0
	until use; do
		[ $rc -eq 6 ] && [ -n "$scopes" ] && [ -z "$machine" ] || die "$op failed (exit $rc)"
		[ $tries -lt 2 ] || die "$op still refused (exit 6) after $tries more logins with the scopes the server named; giving up"
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
