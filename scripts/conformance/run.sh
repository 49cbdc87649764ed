#!/usr/bin/env bash
# scripts/conformance/run.sh [-r 0.1] [-b] [-o DIR] [-w VERSION] SCENARIO...  |  run.sh [...] all
# scripts/conformance/run.sh [-r 0.1] [-b] [-o DIR] [-w VERSION] -s VERSION [-s VERSION ...] [SCENARIO...]
# scripts/conformance/run.sh [-b] [-o DIR] -R REVISION [SCENARIO...]
#
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# client mode, pinned in test/conformance/package-lock.json) against mcpx, one
# scenario after the other, with scripts/conformance/adapter.sh as the client
# command. Two releases are pinned: the newest (0.2.0-alpha.12, the default)
# and, with -r 0.1, 0.1.16 (the npm alias conformance-0.1). `all` means every
# client scenario of that release; -s VERSION every client scenario the suite
# tags with that spec version (what `conformance list --client --spec-version
# VERSION` lists: 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28, extension in
# 0.2; draft instead of 2026-07-28 in 0.1; a date is not cumulative, so
# 2025-11-25 does not include the 2025-03-26 scenarios). -R REVISION runs the
# client scenarios that the suite's requirement set of REVISION lists (`list
# --client --requirements REVISION`: the scored ones and those "run and
# reported, but never scored", such as the extensions), each at the
# REVISION wire, as the suite's own `--requirements` does (but one after the
# other, and scored like any other run).
#
# Each scenario's server speaks the protocol version the scenario was
# introduced in, or 2025-11-25 (what `client --scenario` does); -w VERSION
# makes every scenario's server speak VERSION instead (`--spec-version
# VERSION --force`: a 2025-11-25 scenario at the 2026-07-28 wire gets the
# stateless server, and its 2026-07-28 checks such as SEP-837's
# application_type). The suite tells the client the version in
# MCP_CONFORMANCE_PROTOCOL_VERSION (0.1.16 does not).
#
# mcpx is not built here: $MCPX names the binary (default: mcpx on PATH). The
# suite needs Node >= 22: the node-OS-CPU package of test/conformance that
# npm installed for this platform provides it and is put first on PATH (make
# conformance-deps installs both); where npm has none (macOS on arm64), the
# node on PATH is used if it is 22 or later.
#
# A scenario passes when the suite's own verdict does: no check FAILURE or
# WARNING, the adapter exited 0 and did not time out; and (stricter than the
# suite) at least one check counted (SUCCESS or FAILURE): a scenario that
# allows the client's error and whose checks were all SKIPPED tested nothing
# (sep-2640-client-verify-* against a client that never lists skills). The
# summary gives, for each scenario, PASS or FAIL with the failing checks
# (name: message).
#
#   -r REL    the suite release: 0.2 (default; 0.2.0-alpha.12) or 0.1 (0.1.16)
#   -b        baseline mode: scenarios listed in scripts/conformance/expected-failures.yml
#             (expected-failures-0.1.yml with -r 0.1, expected-failures-VER.yml
#             with -w VER or -R VER) may fail (XFAIL); one that passes is
#             reported STALE and fails the run
#   -o DIR    keep the results in DIR (per scenario: suite.log, and the suite's own
#             <scenario>-<time>/checks.json, stdout.txt, stderr.txt); default: a
#             temporary directory, removed unless something failed
#   -t MS     the suite's bound on one adapter run (default 30000)
#   -s VER    add the client scenarios of spec version VER (repeatable; with
#             SCENARIO arguments too, each scenario runs once)
#   -w VER    run every scenario at the VER wire (see above)
#   -R REV    add the client scenarios of the requirement set REV, and run
#             every scenario at the REV wire (implies -w REV; 0.2 only)
#
# Exit: 0 when every scenario passed (or, with -b, failed as expected), 1 when
# one did not, 2 on a usage or setup error.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
deps=$root/test/conformance

usage() {
	echo "usage: scripts/conformance/run.sh [-r 0.1|0.2] [-b] [-o DIR] [-t MS] [-w VERSION] [-R REVISION] [-s VERSION]... SCENARIO... | all" >&2
	exit 2
}

release=0.2 baseline=0 outdir='' timeout_ms=30000 versions=() wire='' requirements=''
while getopts r:bo:t:s:w:R: opt; do
	case $opt in
	r) release=$OPTARG ;;
	w) wire=$OPTARG ;;
	R) requirements=$OPTARG ;;
	b) baseline=1 ;;
	o) outdir=$OPTARG ;;
	t) timeout_ms=$OPTARG ;;
	s) versions+=("$OPTARG") ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || [ ${#versions[@]} -ge 1 ] || [ -n "$requirements" ] || usage
if [ -n "$requirements" ]; then
	[ -z "$wire" ] || [ "$wire" = "$requirements" ] || {
		echo "conformance: -R $requirements runs at the $requirements wire: -w $wire contradicts it" >&2
		exit 2
	}
	wire=$requirements
fi
[ -z "$wire" ] || [ "$release" = 0.2 ] || {
	echo "conformance: -w and -R need the 0.2 release (0.1.16 runs each scenario at its own version)" >&2
	exit 2
}
case $release in
0.2)
	package=$deps/node_modules/@modelcontextprotocol/conformance
	baseline_file=$here/expected-failures.yml
	;;
0.1)
	package=$deps/node_modules/conformance-0.1
	baseline_file=$here/expected-failures-0.1.yml
	;;
*)
	echo "conformance: -r $release: the pinned releases are 0.2 and 0.1" >&2
	exit 2
	;;
esac
[ -z "$wire" ] || baseline_file=$here/expected-failures-$wire.yml

nodebin=
for d in "$deps"/node_modules/node-*-*/bin; do
	if [ -x "$d/node" ]; then nodebin=$d; break; fi
done
if [ -z "$nodebin" ] && command -v node >/dev/null; then
	nodebin=$(dirname "$(command -v node)")
fi
suite=$package/dist/index.js
if [ -z "$nodebin" ] || [ ! -f "$suite" ]; then
	echo "conformance: $deps/node_modules is missing or incomplete: run make conformance-deps" >&2
	exit 2
fi
export PATH="$nodebin:$PATH"
node_version=$(node -v)
case $node_version in
v2[2-9].* | v[3-9][0-9].*) ;;
*)
	echo "conformance: $nodebin/node is $node_version; the suite needs Node >= 22" >&2
	exit 2
	;;
esac

MCPX=${MCPX:-mcpx}
if ! mcpx_path=$(command -v "$MCPX"); then
	echo "conformance: mcpx binary '$MCPX' not found: build it and set MCPX=/path/to/mcpx" >&2
	exit 2
fi
case $mcpx_path in
/*) ;;
*) mcpx_path=$PWD/$mcpx_path ;;
esac
export MCPX=$mcpx_path

if [ $# -eq 1 ] && [ "$1" = all ]; then
	mapfile -t scenarios < <(node "$suite" list --client | sed -n 's/^  - \([^ ]*\).*/\1/p')
	[ ${#scenarios[@]} -gt 0 ] || {
		echo "conformance: the suite listed no client scenario" >&2
		exit 2
	}
else
	scenarios=()
	if [ -n "$requirements" ]; then
		# The suite itself rejects an unknown revision (and names the valid ones).
		listed=$(node "$suite" list --client --requirements "$requirements") || exit 2
		# The client section's "  - NAME" lines, then the unscored ones that
		# are client scenarios ("    - NAME [client]").
		mapfile -t scenarios < <(printf '%s\n' "$listed" | awk '
			/^Client scenarios/ { client = 1; next }
			/^[^ ]/ { client = 0 }
			client && /^  - / { print $2 }
			/^    - .*\[client\]$/ { print $2 }')
		[ ${#scenarios[@]} -gt 0 ] || {
			echo "conformance: the requirement set $requirements lists no client scenario" >&2
			exit 2
		}
	fi
	for v in "${versions[@]}"; do
		# The suite itself rejects an unknown version (and names the valid ones).
		listed=$(node "$suite" list --client --spec-version "$v") || exit 2
		mapfile -t more < <(printf '%s\n' "$listed" | sed -n 's/^  - \([^ ]*\).*/\1/p')
		[ ${#more[@]} -gt 0 ] || {
			echo "conformance: the suite lists no client scenario for spec version $v" >&2
			exit 2
		}
		scenarios+=("${more[@]}")
	done
	scenarios+=("$@")
	# Each scenario once, in the order first named.
	mapfile -t scenarios < <(printf '%s\n' "${scenarios[@]}" | awk '!seen[$0]++')
fi

expected=()
if [ $baseline = 1 ]; then
	[ -f "$baseline_file" ] || {
		echo "conformance: $baseline_file is missing" >&2
		exit 2
	}
	mapfile -t expected < <(sed -n '/^client:/,/^[^ #]/s/^  - \([^ #]*\).*/\1/p' "$baseline_file")
fi
is_expected() {
	local e
	for e in "${expected[@]}"; do [ "$e" = "$1" ] && return 0; done
	return 1
}

keep=1
if [ -z "$outdir" ]; then
	outdir=$(mktemp -d "${TMPDIR:-/tmp}/mcpx-conformance-results.XXXXXX") || exit 2
	keep=0
fi
mkdir -p "$outdir" || exit 2

# summarize DIR: one line per failing/warning check of DIR/**/checks.json, and
# a first line "passed/total".
summarize() {
	node - "$1" <<'EOF'
const fs = require("fs"), path = require("path");
const dir = process.argv[2];
const files = fs.globSync("**/checks.json", { cwd: dir }).map((f) => path.join(dir, f));
if (files.length === 0) { console.log("no checks.json"); process.exit(0); }
const checks = JSON.parse(fs.readFileSync(files[0], "utf8"));
const counted = checks.filter((c) => c.status === "SUCCESS" || c.status === "FAILURE");
console.log(`${counted.filter((c) => c.status === "SUCCESS").length}/${counted.length} checks`);
for (const c of checks) {
	if (c.status !== "FAILURE" && c.status !== "WARNING") continue;
	const why = c.errorMessage || (c.details && c.details.message) || c.description;
	const name = c.name || c.id, text = String(why).replace(/\s+/g, " ");
	console.log(text === name ? `${c.status} ${name}` : `${c.status} ${name}: ${text}`);
}
EOF
}

wire_args=()
[ -z "$wire" ] || wire_args=(--spec-version "$wire" --force)
echo "conformance: $(node "$suite" --version 2>/dev/null || echo '?') on node $node_version, mcpx $MCPX, ${wire:+at the $wire wire, }results in $outdir"
failed=0
declare -a lines=()
for s in "${scenarios[@]}"; do
	sdir=$outdir/$(printf '%s' "$s" | tr '/' '_')
	rm -rf "$sdir"
	mkdir -p "$sdir"
	echo
	echo "=== $s"
	start=$(date +%s)
	# The suite runs `sh -c "<command> URL"`; the adapter path is quoted for that shell.
	node "$suite" client --command "'$here/adapter.sh'" --scenario "$s" "${wire_args[@]}" \
		--timeout "$timeout_ms" -o "$sdir" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >"$sdir/suite.log"
	rc=${PIPESTATUS[0]}
	secs=$(($(date +%s) - start))
	cat "$sdir/suite.log"
	mapfile -t detail < <(summarize "$sdir")
	if [ "$rc" -eq 0 ]; then verdict=PASS; else verdict=FAIL; fi
	if [ $verdict = PASS ] && [[ ${detail[0]} == 0/0\ checks ]]; then
		verdict=FAIL
		detail+=("no check counted (all SKIPPED or none): the scenario tested nothing")
	fi
	if grep -q 'CLIENT TIMED OUT' "$sdir/suite.log"; then
		detail+=("adapter timed out after ${timeout_ms} ms")
	elif code=$(sed -n 's/^Client exited with code \(.*\)/\1/p' "$sdir/suite.log" | head -n 1) && [ -n "$code" ]; then
		detail+=("adapter exited $code: $(grep -m1 '^adapter: ' "$sdir/suite.log" || echo 'see suite.log')")
	fi
	if [ $baseline = 1 ] && is_expected "$s"; then
		if [ $verdict = PASS ]; then
			verdict=STALE
			detail+=("passes but is listed in $(basename "$baseline_file"): remove it there")
			failed=1
		else
			verdict=XFAIL
		fi
	elif [ $verdict = FAIL ]; then
		failed=1
	fi
	lines+=("$(printf '%-5s %s (%s, %ss)' "$verdict" "$s" "${detail[0]}" "$secs")")
	for d in "${detail[@]:1}"; do lines+=("        $d"); done
done

echo
echo "=== conformance summary (mcpx $MCPX)"
printf '%s\n' "${lines[@]}"
if [ $failed = 0 ] && [ $keep = 0 ]; then
	rm -rf "$outdir"
else
	echo "results: $outdir"
fi
exit $failed
