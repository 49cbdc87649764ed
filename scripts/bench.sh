#!/usr/bin/env bash
# scripts/bench.sh [-n N] [-w W] [-t hyperfine|benchrun] [-s catalog|catalogmem|complete|hosts|read|snapshot|startup|warm|all]
#
# catalog: times a one-shot `mcpx catalog SRV` against a floor
# (scripts/benchfloor: a minimal program doing the same JSON-RPC exchange with
# the same server over stdio) and prints the ratio mcpx/floor of the median
# wall times. Targets: the built-in demo server, and server-everything (2025
# and current) when `make interop-deps` has installed them. Aim: <= 1.10.
#
# complete: one TAB of the live completion, as the bash script calls it
# (`mcpx __complete bash 9 WORDBREAKS LINE`), against a floor timed in the same
# run (scripts/benchfloor -op prompts|complete: the same server command, for
# demo `bin/mcpx serve-demo`, and the same JSON-RPC exchange, nothing else).
# Stage 2, `mcpx prompt SRV <TAB>`: start the server, initialize, prompts/list
# to the last page, print the names, stop it. An argument's value, `mcpx
# prompt SRV NAME ARG=<TAB>`: initialize, completion/complete. Same targets as
# catalog (config in $MCPX_CONFIG; MCPX_COMPLETE_TIMEOUT=60s, so that a slow
# server start is timed, not cut off by the 2s budget). Prints per TAB the
# floor and mcpx medians, the overhead (mcpx - floor, in ms) with its standard
# error, the ratio, and a verdict. Aim: overhead <= 20 ms. Stage 1, `mcpx
# prompt <TAB>` (server names from the config, no server), is reported in
# absolute ms next to `mcpx --version` and `true`, its floors.
#
# read: `mcpx read` of a 50 MiB resource from a stdio fixture that streams it
# (scripts/benchserver blob-stream): --pattern over 50 MiB of text in MB/s,
# against `--raw` of the same text (the transfer without the filter) and GNU
# grep -n -C2 over the same bytes in a file; and spilling a 50 MiB blob (time,
# and peak RSS as a multiple of the blob), against `-o FILE` of the same blob.
# Aims: >= 200 MB/s, RSS <= 4x. Runs: N/5 (at least 3), warm-up 1.
#
# catalogmem: peak RSS of `mcpx catalog` against one tools/list message of
# tiny tools (scripts/benchserver many-tools: {"name":"tNNNNNNN",
# "inputSchema":{}} each, $MCPX_FIXTURE_ITEMS of them, default 3200000, a
# 117 MB message), as a multiple of the 128 MiB message ceiling: --json,
# text, --json with a secret to mask, and `invoke` of the first tool (the
# listing, read and scanned up to it: what catalog builds on). One run
# each (GNU time).
# Aim: a bounded multiple of the ceiling, whatever the number of items
# (before items were written as rendered: 4.4 GB, 2.0 GB in text).
#
# startup: `mcpx --version` against a hello-world Go program built the same
# way (scripts/benchhello), and the same mcpx built with GOWORK=off, as `go
# install github.com/mcpx-cli/mcpx/cmd/mcpx@VERSION` builds it: without the
# patched copies in third_party/ (see third_party/README.md). Prints
# the medians and the ratios to hello world, the minor page faults of one run
# and the bytes allocated by package inits; then the same two builds on a
# one-shot `mcpx --json invoke demo add a=1 b=2` (two mcpx processes: the
# client and the demo server). Aim: `mcpx --version` <= 2x hello world.
#
# warm: warm connections (WARM CONNECTIONS in mcpx(1)), timed in one run
# against `mcpx daemon status` (start-up, the socket checks, one hello and
# its reply, and no MCP at all: the least any warm call costs) and `mcpx
# --version`: a warm `invoke` (the daemon already holds the server) and the
# one-shot invoke of the same tool, on server-everything (current, else
# 2025, else demo); a warm `catalog` of a 1000-tool stdio server
# (scripts/benchserver many-tools) and its one-shot catalog. The daemon is
# the run's own (XDG_RUNTIME_DIR in the temporary directory) and is stopped
# at the end. Aims: warm invoke <= 1.3x `mcpx daemon status` and >= 30x
# faster than one-shot; warm catalog within the same bound plus its
# rendering.
#
# hosts: what the hosts' files cost (CONFIGURATION in mcpx(1)): `mcpx
# servers` with a 50 MiB ~/.claude.json (Claude Code's history, 200
# projects, two servers) against the same with a small one, timed in the
# same run: the file skimmed on every run (no state directory), and read
# back from the state directory (the file unchanged since the last run); a
# TAB (`mcpx __complete zsh -- invoke ''`) with each, and with an 8 MiB
# ~/.cursor/mcp.json of 30000 servers, against its 2 s budget. Peak RSS of
# one run each (GNU time). Aims: the 50 MiB file adds at most 50 ms and
# 20 MiB to a command; every TAB within its budget.
#
# snapshot: `mcpx snapshot` of a 1000-tool stdio server (scripts/benchserver
# many-tools) against `mcpx --json catalog` of the same server, timed in the
# same run, one-shot; then the diff of two 10 000-item snapshots
# (BenchmarkDiff10000 in internal/snapshot: unchanged, 1% and every item
# changed), in CPU ms per diff and bytes allocated. Aims: snapshot <= 1.2x
# catalog --json; a diff under 200 ms.
#
# Each command is run N times (default 30) after W warm-up runs (default 3).
# Timing uses hyperfine when it is installed (each command's runs back to
# back), else scripts/benchrun (the commands alternated). -t forces one.
#
# This is a report, not a test: it exits 0 whatever the ratios, and non-zero
# only when a build or a benchmarked command fails.
set -eu

usage() {
	echo "usage: scripts/bench.sh [-n RUNS] [-w WARMUP] [-t hyperfine|benchrun] [-s catalog|catalogmem|complete|hosts|read|snapshot|startup|warm|all]" >&2
	exit 2
}

runs=30
warmup=3
tool=
section=all
while getopts n:w:t:s:h opt; do
	case $opt in
	n) runs=$OPTARG ;;
	w) warmup=$OPTARG ;;
	t) tool=$OPTARG ;;
	s) section=$OPTARG ;;
	*) usage ;;
	esac
done
case $section in catalog | catalogmem | complete | hosts | read | snapshot | startup | warm | all) ;; *) usage ;; esac
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $runs in '' | *[!0-9]* | 0) usage ;; esac
case $warmup in '' | *[!0-9]*) usage ;; esac
if [ -z "$tool" ]; then
	if command -v hyperfine >/dev/null 2>&1; then tool=hyperfine; else tool=benchrun; fi
fi
case $tool in hyperfine | benchrun) ;; *) usage ;; esac

cd "$(dirname "$0")/.."
root=$(pwd -P)
go=${GO:-go}

echo "building bin/mcpx, bin/benchfloor, bin/benchrun ..." >&2
# Built as `make build` builds it: static, stripped, with its build tags.
CGO_ENABLED=0 "$go" build -tags urfave_cli_no_template -trimpath -ldflags "-s -w" -o bin/mcpx ./cmd/mcpx
CGO_ENABLED=0 "$go" build -trimpath -ldflags "-s -w" -o bin/benchfloor ./scripts/benchfloor
"$go" build -o bin/benchrun ./scripts/benchrun
CGO_ENABLED=0 "$go" build -trimpath -ldflags "-s -w" -o bin/benchserver ./scripts/benchserver

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpx-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mcpx=$root/bin/mcpx
floor=$root/bin/benchfloor
everything=$root/test/interop/node_modules

# servers: writes $tmp/config.json (the server-everything versions that are
# installed; demo is built in) and sets targets to the server names.
servers() {
	targets="demo"
	printf '{"mcpServers":{' >"$tmp/config.json"
	sep=
	for v in 2025 current; do
		js=$everything/server-everything-$v/dist/index.js
		if [ ! -f "$js" ]; then
			echo "note: skipping server-everything-$v: $js is not installed (make interop-deps)" >&2
			continue
		fi
		if ! command -v node >/dev/null 2>&1; then
			echo "note: skipping server-everything-$v: node is not on PATH" >&2
			continue
		fi
		case $js in *'"'* | *'\'*) echo "note: skipping server-everything-$v: awkward path $js" >&2; continue ;; esac
		printf '%s"everything-%s":{"command":"node","args":["%s"]}' "$sep" "$v" "$js" >>"$tmp/config.json"
		sep=,
		targets="$targets everything-$v"
	done
	printf '}}\n' >>"$tmp/config.json"
}

# floor_argv TARGET [FLOOR-FLAG...]: prints the floor's argv, one word a line.
floor_argv() {
	local t=$1
	shift
	case $t in
	demo) printf '%s\n' "$floor" "$@" -argv0 mcpx -- "$mcpx" serve-demo ;;
	everything-*) printf '%s\n' "$floor" "$@" -- node "$everything/server-$t/dist/index.js" ;;
	esac
}

# shell_quote WORD...: the words single-quoted for hyperfine's -N splitting.
shell_quote() {
	local out= w
	for w in "$@"; do
		out="$out '${w//\'/\'\\\'\'}'"
	done
	printf '%s' "${out# }"
}

load_note() {
	[ -r /proc/loadavg ] && cut -d' ' -f1-3 /proc/loadavg || true
}

# timing LABEL ARGV... [::: LABEL ARGV...]: times the commands as benchrun
# does (N runs each after W warm-up runs) with $tool, into $tmp/timing in
# benchrun's format (RSS "-" with hyperfine).
timing() {
	if [ "$tool" != hyperfine ]; then
		"$root/bin/benchrun" -n "$runs" -warmup "$warmup" -- "$@" >"$tmp/timing"
		return
	fi
	local hf=() cur=() w
	for w in "$@" :::; do
		if [ "$w" != ::: ]; then
			cur+=("$w")
			continue
		fi
		hf+=(-n "${cur[0]}" "$(shell_quote "${cur[@]:1}")")
		cur=()
	done
	hyperfine -N --style none --warmup "$warmup" --runs "$runs" --export-json "$tmp/hf.json" "${hf[@]}" >/dev/null
	"$root/bin/benchrun" -hyperfine "$tmp/hf.json" >"$tmp/timing"
}

# peak_rss ARGV...: peak RSS in KiB of one run (the largest of the command and
# the children it waited for), or "-" without GNU time.
peak_rss() {
	if [ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
		/usr/bin/time -o "$tmp/rss" -f %M "$@" >/dev/null 2>&1 && tail -n 1 "$tmp/rss" && return
	fi
	echo -
}

bench_catalog() {
servers
load_before=$(load_note)

results=$tmp/results # TARGET mcpx-median floor-median mcpx-sd floor-sd mcpx-rss floor-rss
: >"$results"
for t in $targets; do
	mapfile -t fargv < <(floor_argv "$t")
	margv=("$mcpx" --config "$tmp/config.json" catalog "$t")

	# The floor must print what mcpx prints, or the ratio means nothing.
	"${margv[@]}" >"$tmp/mcpx.out" 2>"$tmp/mcpx.err" || {
		echo "bench: mcpx failed on $t:" >&2
		cat "$tmp/mcpx.err" >&2
		exit 1
	}
	"${fargv[@]}" >"$tmp/floor.out" 2>"$tmp/floor.err" || {
		echo "bench: the floor failed on $t:" >&2
		cat "$tmp/floor.err" >&2
		exit 1
	}
	if ! cut -f1,2 "$tmp/mcpx.out" | cmp -s - <(cut -f1,2 "$tmp/floor.out"); then
		echo "warning: $t: mcpx and the floor list different items:" >&2
		diff <(cut -f1,2 "$tmp/mcpx.out") <(cut -f1,2 "$tmp/floor.out") | head -n 20 >&2 || true
	fi
	items=$(wc -l <"$tmp/mcpx.out")
	echo "$t: $items items; timing $runs runs each (+$warmup warm-up) with $tool ..." >&2

	timing mcpx "${margv[@]}" ::: floor "${fargv[@]}"
	if [ "$tool" = hyperfine ]; then
		mrss=$(peak_rss "${margv[@]}")
		frss=$(peak_rss "${fargv[@]}")
	else
		mrss=$(awk -F'\t' '$1 == "mcpx" { print $8 }' "$tmp/timing")
		frss=$(awk -F'\t' '$1 == "floor" { print $8 }' "$tmp/timing")
	fi
	awk -F'\t' -v t="$t" -v mrss="$mrss" -v frss="$frss" '
		$1 == "mcpx" { mm = $4; ms = $5 }
		$1 == "floor" { fm = $4; fs = $5 }
		END { printf "%s %s %s %s %s %s %s\n", t, mm, fm, ms, fs, mrss, frss }' "$tmp/timing" >>"$results"
done

echo
echo "mcpx catalog SRV vs the floor (scripts/benchfloor), $runs runs each, timed with $tool"
awk '
	function kib(x) { return x == "-" ? "-" : sprintf("%.1f MiB", x / 1024) }
	BEGIN {
		printf "%-22s %12s %12s %8s %9s %9s %11s %11s\n", "target", "mcpx median", "floor median", "ratio", "mcpx sd", "floor sd", "mcpx RSS", "floor RSS"
	}
	{
		r = ($3 > 0) ? $2 / $3 : 0
		over = (r > 1.10) ? "  (over 1.10x)" : ""
		printf("%-22s %9.1f ms %9.1f ms %7.2fx %6.1f ms %6.1f ms %11s %11s%s\n", $1, $2, $3, r, $4, $5, kib($6), kib($7), over)
	}' "$results"
echo
echo "ratio = mcpx median / floor median wall time; aim: <= 1.10x."
echo "RSS = peak resident set of the run's process tree (the command or its server,"
echo "whichever peaked higher): for node servers it is mostly node's."
if [ -n "$load_before" ]; then
	echo "Load average before: $load_before, after: $(load_note) ($(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs);"
	echo "a busy machine widens the spread (sd) and blurs the ratio."
fi
}

# bench_read: mcpx read of 50 MiB, against baselines run in the same command.
bench_read() {
	local n=$((runs / 5)) size=$((50 << 20)) server=$root/bin/benchserver
	[ "$n" -ge 3 ] || n=3
	cat >"$tmp/read.json" <<-EOF
		{"mcpServers": {"big": {"command": "$server", "args": ["blob-stream"], "env": {"MCPX_FIXTURE_BYTES": "$size"}}}}
	EOF
	local m=("$mcpx" --config "$tmp/read.json" --cache-dir "$tmp/cache")
	"${m[@]}" read big x://text -o "$tmp/text.log"
	"${m[@]}" read big x://text --pattern ERROR >"$tmp/pattern.out" 2>/dev/null
	# The first page (51200 bytes of ASCII) of --pattern is the start of grep's output.
	if command -v grep >/dev/null 2>&1 && grep -n -C2 ERROR "$tmp/text.log" | head -c 51200 | cmp -s - <(head -c 51200 "$tmp/pattern.out"); then
		echo "read: the first page of --pattern ERROR is what grep -n -C2 prints" >&2
	else
		echo "warning: mcpx read --pattern and grep -n -C2 differ" >&2
	fi
	echo "read: timing $n runs each (+1 warm-up) with benchrun ..." >&2
	"$root/bin/benchrun" -n "$n" -warmup 1 -- \
		pattern "${m[@]}" read big x://text --pattern ERROR ::: \
		raw "${m[@]}" read big x://text --raw ::: \
		grep sh -c 'grep -n -C2 ERROR "$1" | wc -c' sh "$tmp/text.log" ::: \
		spill sh -c 'rm -rf "$1"; shift; exec "$@"' sh "$tmp/cache/mcp-resources" "${m[@]}" read big x://blob ::: \
		output "${m[@]}" read big x://blob -o "$tmp/blob.out" >"$tmp/read-timing"
	echo
	echo "mcpx read of $((size >> 20)) MiB from a stdio server (scripts/benchserver blob-stream), $n runs each"
	awk -F'\t' -v size="$size" '
		{ med[$1] = $4; sd[$1] = $5; rss[$1] = $8 }
		END {
			mb = size / 1e6
			printf "%-34s %10s %8s %10s\n", "command", "median", "sd", "peak RSS"
			split("pattern raw grep spill output", order, " ")
			for (i = 1; i <= 5; i++) {
				c = order[i]
				printf "%-34s %7.0f ms %5.0f ms %6.1f MiB\n", c, med[c], sd[c], rss[c] / 1024
			}
			printf "\n--pattern ERROR, end to end: %.0f MB/s (%.2fx the time of --raw; grep -n -C2 on a file: %.0f MB/s)\n", mb / (med["pattern"] / 1000), med["pattern"] / med["raw"], mb / (med["grep"] / 1000)
			f = med["pattern"] - med["raw"]
			if (f > 0) printf "the filter alone (pattern - raw): %.0f MB/s; aim >= 200 MB/s\n", mb / (f / 1000)
			printf "spill of a %d MiB blob: %.0f ms (%.2fx the time of -o FILE), peak RSS %.2fx the blob; aim <= 4x\n", size / 1048576, med["spill"], med["spill"] / med["output"], rss["spill"] * 1024 / size
		}' "$tmp/read-timing"
	echo "peak RSS: the largest of mcpx and its server (the server streams, ~12 MiB), so it is mcpx's."
	echo "Go benchmarks of the same steps: go test ./render -run '^$' -bench 'Grep50MiB|Spill50MiB'"
}

# bench_catalogmem: peak RSS of catalog over one huge tools/list message.
bench_catalogmem() {
	local items=${MCPX_FIXTURE_ITEMS:-3200000} server=$root/bin/benchserver
	if ! [ -x /usr/bin/time ] || ! /usr/bin/time -f %M true >/dev/null 2>&1; then
		echo "bench: catalogmem needs GNU time (/usr/bin/time -f)" >&2
		exit 1
	fi
	# The count goes through the environment (inheritEnv), not an "env"
	# entry, whose value would be a secret to mask; "secret" adds one.
	cat >"$tmp/mem.json" <<-EOF
		{"mcpServers": {
		  "big": {"command": "$server", "args": ["many-tools"], "inheritEnv": true},
		  "secret": {"command": "$server", "args": ["many-tools"], "inheritEnv": true, "env": {"API_TOKEN": "t0001234-not-a-real-token"}}
		}}
	EOF
	local m=("$mcpx" --config "$tmp/mem.json" --timeout 600s)
	local msg=$((items * 37 + 44)) # 36 bytes a tool and a comma, and the envelope
	echo "catalogmem: $items tools in one tools/list message of about $((msg / 1000000)) MB ..." >&2
	: >"$tmp/mem"
	run() {
		local label=$1
		shift
		MCPX_FIXTURE_ITEMS=$items /usr/bin/time -o "$tmp/rss" -f '%e %M' "$@" >"$tmp/mem.out" 2>"$tmp/mem.err" || true
		printf '%s\t%s\t%s\t%s\n' "$label" "$(tail -n 1 "$tmp/rss")" "$(wc -c <"$tmp/mem.out")" "$(grep -c . "$tmp/mem.err")" >>"$tmp/mem"
	}
	run "listing (invoke t0000000)" "${m[@]}" invoke big t0000000
	run "catalog --json" "${m[@]}" --json catalog big
	run "catalog (text)" "${m[@]}" catalog big
	run "catalog --json, a secret" "${m[@]}" --json catalog secret
	echo
	echo "mcpx catalog of one $((msg / 1000000)) MB tools/list message ($items tiny tools; message ceiling 128 MiB)"
	awk -F'\t' -v msg="$msg" '
		BEGIN { printf "%-26s %9s %11s %10s %10s %12s\n", "command", "time", "peak RSS", "x ceiling", "x message", "stdout" }
		{
			split($2, r, " ")
			printf "%-26s %7.1f s %7.0f MiB %9.2fx %9.2fx %9.0f MB\n", $1, r[1], r[2] / 1024, r[2] * 1024 / 134217728, r[2] * 1024 / msg, $3 / 1e6
		}' "$tmp/mem"
	echo "peak RSS: the largest of mcpx and its server (the server streams the message), so it is mcpx's."
	echo "A listing stops at the message ceiling counting each item's bytes and its place in the list"
	echo "(a warning then says how many were kept)."
}

# bench_complete: one bash TAB (`mcpx __complete bash ...`, as the script
# calls it) against its floor, timed in the same run. A subshell: it exports
# MCPX_CONFIG, as a user's config would be found, to keep the line plain, and
# a budget far above the 2s default, so that every timed TAB does the whole
# exchange (one cut short by the budget would time an empty answer).
bench_complete() (
	servers
	export MCPX_CONFIG=$tmp/config.json MCPX_COMPLETE_TIMEOUT=60s
	local wb=$' \t\n"\'><=;|&(:' # bash's default COMP_WORDBREAKS
	local res=$tmp/complete-results t line load_before
	load_before=$(load_note)
	: >"$res"

	# tab LINE FLOOR-ARGV...: checks that mcpx completing LINE suggests what
	# the floor prints, then times the two.
	tab() {
		local line=$1 m
		shift
		m=("$mcpx" __complete bash 9 "$wb" "$line")
		"${m[@]}" >"$tmp/mcpx.out" 2>"$tmp/mcpx.err" || {
			echo "bench: mcpx failed completing '$line<TAB>':" >&2
			cat "$tmp/mcpx.err" >&2
			exit 1
		}
		if [ ! -s "$tmp/mcpx.out" ]; then
			echo "bench: mcpx suggests nothing for '$line<TAB>' (a timeout or a failed server?)" >&2
			exit 1
		fi
		"$@" >"$tmp/floor.out" 2>"$tmp/floor.err" || {
			echo "bench: the floor failed for '$line<TAB>':" >&2
			cat "$tmp/floor.err" >&2
			exit 1
		}
		# mcpx prints a directive line, then the suggestions.
		if ! tail -n +2 "$tmp/mcpx.out" | cmp -s - "$tmp/floor.out"; then
			echo "warning: '$line<TAB>': mcpx and the floor suggest different things:" >&2
			diff <(tail -n +2 "$tmp/mcpx.out") "$tmp/floor.out" | head -n 20 >&2 || true
		fi
		echo "'$line<TAB>': $(($(wc -l <"$tmp/mcpx.out") - 1)) suggestions; timing $runs runs each (+$warmup warm-up) with $tool ..." >&2
		timing mcpx "${m[@]}" ::: floor "$@"
		awk -F'\t' -v line="$line<TAB>" '
			$1 == "mcpx" { mm = $4; ms = $5 }
			$1 == "floor" { fm = $4; fs = $5 }
			END { printf "%s\t%s\t%s\t%s\t%s\n", line, fm, mm, fs, ms }' "$tmp/timing" >>"$res"
	}

	# Stage 2: prompt names, live (initialize, prompts/list to the last page).
	for t in $targets; do
		mapfile -t f < <(floor_argv "$t" -op prompts)
		tab "mcpx prompt $t " "${f[@]}"
	done
	# An argument's value (initialize, completion/complete).
	for t in $targets; do
		case $t in
		demo) set -- summarize style ;;
		everything-2025) set -- complex_prompt style ;;
		everything-current) set -- completable-prompt department ;;
		*) continue ;;
		esac
		mapfile -t f < <(floor_argv "$t" -op complete -prompt "$1" -arg "$2")
		tab "mcpx prompt $t $1 $2=" "${f[@]}"
	done
	# Stage 1: server names from the config, no server started.
	line="mcpx prompt "
	"$mcpx" __complete bash 9 "$wb" "$line" >"$tmp/mcpx.out" 2>/dev/null || true
	echo "'$line<TAB>': $(($(wc -l <"$tmp/mcpx.out") - 1)) suggestions; timing $runs runs each (+$warmup warm-up) with $tool ..." >&2
	timing mcpx "$mcpx" __complete bash 9 "$wb" "$line" ::: version "$mcpx" --version ::: true true

	echo
	echo "one bash TAB (mcpx __complete) vs the floor (scripts/benchfloor -op prompts|complete), $runs runs each, timed with $tool"
	# +- is the standard error of the difference of the two medians
	# (1.25 sd / sqrt(N) each, for a normal spread): an overhead that is over
	# the aim by less than twice it may be noise. The node servers' own start
	# (hundreds of ms, and it varies) makes theirs wide.
	awk -F'\t' -v aim=20 -v n="$runs" '
		NR == FNR { w = (length($1) > w) ? length($1) : w; next }
		FNR == 1 { printf "%-*s %12s %12s %10s %8s %7s %9s %9s\n", w, "TAB at", "floor median", "mcpx median", "overhead", "+-", "ratio", "floor sd", "mcpx sd" }
		{
			d = $3 - $2
			se = 1.2533 * sqrt(($4 * $4 + $5 * $5) / n)
			r = ($2 > 0) ? $3 / $2 : 0
			note = (d > aim) ? "  (over " aim " ms" ((d - 2 * se > aim) ? ")" : ", but by less than 2x +-)") : ""
			printf "%-*s %9.1f ms %9.1f ms %+7.1f ms %5.1f ms %6.2fx %6.1f ms %6.1f ms%s\n", w, $1, $2, $3, d, se, r, $4, $5, note
			if (FNR == 1 || d > worst) { worst = d; wse = se; at = $1 }
			if (FNR == 1 || d < best) best = d
			if (d - 2 * se > aim) sure++
		}
		END {
			if (FNR == 0) exit
			printf "\nverdict: mcpx adds %.1f to %.1f ms over the floor; worst %.1f +- %.1f ms at %s: ", best, worst, worst, wse, at
			if (worst <= aim) print "within the " aim " ms aim"
			else if (sure) print "OVER the " aim " ms aim (by more than 2x +- at " sure " of " FNR " TABs)"
			else print "over the " aim " ms aim, but no TAB by more than 2x its +- (noise: rerun on a quieter machine, or with more runs)"
		}' "$res" "$res"
	awk -F'\t' '
		{ med[$1] = $4; sd[$1] = $5 }
		END {
			printf "no server (mcpx prompt <TAB>: server names from the config): %.1f ms (sd %.1f);", med["mcpx"], sd["mcpx"]
			printf " mcpx --version %.1f ms (%+.1f ms); true %.1f ms (%+.1f ms)\n", med["version"], med["mcpx"] - med["version"], med["true"], med["mcpx"] - med["true"]
		}' "$tmp/timing"
	echo
	echo "overhead = mcpx median - floor median, both timed in the same run; ratio = mcpx / floor; aim: overhead <= 20 ms;"
	echo "+- = standard error of the overhead (1.25 x sd / sqrt(runs) for each median)."
	echo "The floor spawns the same server command (for demo, bin/mcpx serve-demo) and does the same"
	echo "JSON-RPC exchange over stdio with nothing else, so the overhead is mcpx's own: its process"
	echo "start, config, the client library, and stopping the server."
	if [ -n "$load_before" ]; then
		echo "Load average before: $load_before, after: $(load_note) ($(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs);"
		echo "a busy machine widens the spread (sd) and blurs the overhead."
	fi
)

# bench_startup: mcpx --version against hello world, and the build without
# the patched jsonschema (GOWORK=off), timed in one run.
bench_startup() {
	local up=$root/bin/mcpx-upstream hello=$root/bin/benchhello load_before
	echo "building bin/benchhello, bin/mcpx-upstream (GOWORK=off) ..." >&2
	CGO_ENABLED=0 "$go" build -trimpath -ldflags "-s -w" -o "$hello" ./scripts/benchhello
	GOWORK=off CGO_ENABLED=0 "$go" build -trimpath -ldflags "-s -w" -o "$up" ./cmd/mcpx
	load_before=$(load_note)
	local inv=(--json invoke demo add a=1 b=2)
	"$mcpx" "${inv[@]}" >/dev/null
	echo "startup: timing $runs runs each (+$warmup warm-up) with $tool ..." >&2
	timing hello "$hello" ::: mcpx "$mcpx" --version ::: upstream "$up" --version
	cp "$tmp/timing" "$tmp/startup"
	timing mcpx "$mcpx" "${inv[@]}" ::: upstream "$up" "${inv[@]}"
	cp "$tmp/timing" "$tmp/invoke"

	# faults ARGV...: minor page faults of one run, or "-" without GNU time.
	faults() {
		if [ -x /usr/bin/time ] && /usr/bin/time -f %R true >/dev/null 2>&1; then
			/usr/bin/time -o "$tmp/faults" -f %R "$@" >/dev/null 2>&1 && tail -n 1 "$tmp/faults" && return
		fi
		echo -
	}
	# initbytes ARGV...: bytes allocated by package inits (GODEBUG=inittrace=1).
	initbytes() {
		GODEBUG=inittrace=1 "$@" 2>&1 >/dev/null | awk '/^init /{ b += $8 } END { printf "%.0f\n", b }'
	}
	{
		echo "hello $(faults "$hello") $(initbytes "$hello") $(wc -c <"$hello")"
		echo "mcpx $(faults "$mcpx" --version) $(initbytes "$mcpx" --version) $(wc -c <"$mcpx")"
		echo "upstream $(faults "$up" --version) $(initbytes "$up" --version) $(wc -c <"$up")"
	} >"$tmp/startup-extra"

	echo
	echo "start-up: mcpx --version vs hello world (scripts/benchhello), built alike, $runs runs each, timed with $tool"
	awk -F'\t' '
		FNR == NR { split($0, f, " "); flt[f[1]] = f[2]; ib[f[1]] = f[3]; sz[f[1]] = f[4]; next }
		{ med[$1] = $4; sd[$1] = $5 }
		END {
			printf "%-34s %10s %8s %8s %8s %10s %9s\n", "", "median", "sd", "ratio", "faults", "init B", "size"
			n = split("hello mcpx upstream", k, " ")
			split("hello world|mcpx --version|mcpx --version, GOWORK=off", label, "|")
			for (i = 1; i <= n; i++) {
				r = (med["hello"] > 0) ? med[k[i]] / med["hello"] : 0
				over = (k[i] == "mcpx" && r > 2) ? "  (over 2x)" : ""
				printf "%-34s %7.1f ms %5.1f ms %7.2fx %8s %10s %6.1f MB%s\n", label[i], med[k[i]], sd[k[i]], r, flt[k[i]], ib[k[i]], sz[k[i]] / 1e6, over
			}
		}' "$tmp/startup-extra" "$tmp/startup"
	awk -F'\t' '
		{ med[$1] = $4; sd[$1] = $5 }
		END {
			printf "%-34s %7.1f ms %5.1f ms\n", "mcpx --json invoke demo add", med["mcpx"], sd["mcpx"]
			printf "%-34s %7.1f ms %5.1f ms %7.2fx of the above\n", "  the same, GOWORK=off", med["upstream"], sd["upstream"], (med["mcpx"] > 0 ? med["upstream"] / med["mcpx"] : 0)
		}' "$tmp/invoke"
	echo
	echo "ratio = median / hello world median, in one run; aim: mcpx --version <= 2x."
	echo "GOWORK=off builds as go install github.com/mcpx-cli/mcpx/cmd/mcpx@VERSION does: without"
	echo "the patched copies in third_party/ (see third_party/README.md)."
	echo "faults = minor page faults of one run; init B = bytes allocated by package inits."
	if [ -n "$load_before" ]; then
		echo "Load average before: $load_before, after: $(load_note) ($(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs);"
		echo "a busy machine widens the spread (sd) and blurs the ratio."
	fi
}

# bench_warm: warm invoke and catalog against mcpx --version and one-shot.
bench_warm() {
	servers
	local srv=demo call=(add a=1 b=2) load_before
	case " $targets " in
	*" everything-current "*) srv=everything-current call=(echo message=hi) ;;
	*" everything-2025 "*) srv=everything-2025 call=(echo message=hi) ;;
	esac
	# the 1000-tool server, next to the others (the first entry when no
	# server-everything is installed)
	local tools1000='"tools1000":{"command":"'"$root"'/bin/benchserver","args":["many-tools"],"env":{"MCPX_FIXTURE_ITEMS":"1000"}}'
	case $targets in
	demo) sed -i 's#}}$#'"$tools1000"'}}#' "$tmp/config.json" ;;
	*) sed -i 's#}}$#,'"$tools1000"'}}#' "$tmp/config.json" ;;
	esac
	mkdir -p "$tmp/run" "$tmp/state"
	local env=(env XDG_RUNTIME_DIR="$tmp/run" XDG_STATE_HOME="$tmp/state" MCPX_CONFIG="$tmp/config.json")
	local warm=("${env[@]}" "$mcpx" --keep-alive=10m) cold=("${env[@]}" "$mcpx" --no-keep-alive)
	# the daemon and both servers started, and their listings cached
	"${warm[@]}" invoke "$srv" "${call[@]}" >/dev/null
	"${warm[@]}" catalog tools1000 >/dev/null
	load_before=$(load_note)
	echo "warm: timing $runs runs each (+$warmup warm-up) with $tool ..." >&2
	timing version "${env[@]}" "$mcpx" --version ::: status "${env[@]}" "$mcpx" daemon status ::: warm "${warm[@]}" invoke "$srv" "${call[@]}" ::: oneshot "${cold[@]}" invoke "$srv" "${call[@]}" \
		::: warmcat "${warm[@]}" catalog tools1000 ::: oneshotcat "${cold[@]}" catalog tools1000
	"${env[@]}" "$mcpx" daemon stop 2>/dev/null || true
	echo
	echo "warm connections: $srv and a 1000-tool server, $runs runs each, timed with $tool"
	awk -F'\t' -v srv="$srv" '
		{ med[$1] = $4; sd[$1] = $5 }
		END {
			v = med["version"]
			st = med["status"]
			printf "%-40s %10s %8s %12s %10s\n", "", "median", "sd", "x --version", "x status"
			n = split("version status warm oneshot warmcat oneshotcat", k, " ")
			split("mcpx --version|mcpx daemon status|warm invoke " srv "|one-shot invoke " srv "|warm catalog tools1000|one-shot catalog tools1000", label, "|")
			for (i = 1; i <= n; i++)
				printf "%-40s %7.1f ms %5.1f ms %11.2fx %9.2fx\n", label[i], med[k[i]], sd[k[i]], (v > 0 ? med[k[i]] / v : 0), (st > 0 ? med[k[i]] / st : 0)
			printf "\nwarm invoke: %.2fx mcpx daemon status (aim <= 1.3x), %.1fx faster than one-shot (aim >= 30x); %.2fx mcpx --version\n", \
				(st > 0 ? med["warm"] / st : 0), (med["warm"] > 0 ? med["oneshot"] / med["warm"] : 0), (v > 0 ? med["warm"] / v : 0)
			printf "warm catalog of 1000 tools: %.2fx mcpx daemon status (the bound plus rendering 1000 items)\n", (st > 0 ? med["warmcat"] / st : 0)
			printf "daemon status (start-up and one daemon round trip, no MCP): %.2fx mcpx --version\n", (v > 0 ? med["status"] / v : 0)
		}' "$tmp/timing"
	if [ -n "$load_before" ]; then
		echo "Load average before: $load_before, after: $(load_note) ($(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs)."
	fi
}

# bench_snapshot: snapshot against catalog --json of a 1000-tool server,
# and the 10 000-item diff (see the top of this file).
bench_snapshot() {
	local cfg=$tmp/snapshot-config.json load_before
	printf '{"mcpServers":{"tools1000":{"command":"%s/bin/benchserver","args":["many-tools"],"env":{"MCPX_FIXTURE_ITEMS":"1000"}}}}\n' "$root" >"$cfg"
	mkdir -p "$tmp/state"
	local env=(env MCPX_CONFIG="$cfg" XDG_STATE_HOME="$tmp/state" MCPX_KEEP_ALIVE=0)
	"${env[@]}" "$mcpx" snapshot tools1000 >/dev/null
	load_before=$(load_note)
	echo "snapshot: timing $runs runs each (+$warmup warm-up) with $tool ..." >&2
	timing catalog "${env[@]}" "$mcpx" --json catalog tools1000 ::: snapshot "${env[@]}" "$mcpx" snapshot tools1000
	echo
	echo "snapshot of a 1000-tool stdio server, $runs runs each, timed with $tool"
	awk -F'\t' '
		{ med[$1] = $4; sd[$1] = $5 }
		END {
			printf "%-32s %10s %8s\n", "", "median", "sd"
			printf "%-32s %7.1f ms %5.1f ms\n", "mcpx --json catalog tools1000", med["catalog"], sd["catalog"]
			printf "%-32s %7.1f ms %5.1f ms\n", "mcpx snapshot tools1000", med["snapshot"], sd["snapshot"]
			printf "\nsnapshot: %.2fx catalog --json (aim <= 1.2x)\n", (med["catalog"] > 0 ? med["snapshot"] / med["catalog"] : 0)
		}' "$tmp/timing"
	if [ -n "$load_before" ]; then
		echo "Load average before: $load_before, after: $(load_note) ($(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs)."
	fi
	echo
	echo "diff of two 10 000-item snapshots (go test -bench BenchmarkDiff10000 ./internal/snapshot; aim: < 200 cpu-ms/op)"
	"$go" test -run '^$' -bench BenchmarkDiff10000 -benchtime 5x -count 1 ./internal/snapshot | grep '^Benchmark'
}

# bench_hosts: mcpx servers and a TAB with large host files, against the
# same with small ones, in one run (see the top of this file).
bench_hosts() {
	local d=$tmp/hosts load_before
	mkdir -p "$d/small/work" "$d/big/work" "$d/many/.cursor" "$d/many/work"
	local servers='"mcpServers": {"sentry": {"type": "http", "url": "https://mcp.sentry.dev/mcp"}, "local": {"command": "npx", "args": ["-y", "server"]}}'
	printf '{"numStartups": 3, "projects": {"/p": {"history": []}}, %s}\n' "$servers" >"$d/small/.claude.json"
	# 200 projects of 100 history entries of 2.5 KB, quotes, backslashes and
	# line breaks in them as in a conversation: 50 MiB
	awk -v servers="$servers" 'BEGIN {
		line = "a line of a conversation, code and its output: fmt.Println(\\\"hello, world\\\") prints it\\n"
		text = ""
		for (i = 0; i < 29; i++) text = text line
		printf "{\"numStartups\": 3, \"projects\": {"
		for (p = 0; p < 200; p++) {
			printf "%s\"/home/u/project%d\": {\"allowedTools\": [], \"history\": [", (p ? ", " : ""), p
			for (h = 0; h < 100; h++) printf "%s{\"display\": \"%s\", \"pastedContents\": {}}", (h ? ", " : ""), text
			printf "], \"mcpServers\": {}}"
		}
		printf "}, %s}\n", servers
	}' >"$d/big/.claude.json"
	awk 'BEGIN {
		printf "{\"mcpServers\": {"
		for (i = 0; i < 30000; i++)
			printf "%s\n  \"srv%05d\": {\"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-github\"], \"env\": {\"GITHUB_TOKEN\": \"${env:GITHUB_TOKEN}\"}}", (i ? "," : ""), i
		printf "\n}}\n"
	}' >"$d/many/.cursor/mcp.json"
	# unchanged for a while, as the state directory wants before it remembers
	touch -d '1 hour ago' "$d/big/.claude.json" "$d/many/.cursor/mcp.json"
	local size
	size=$(wc -c <"$d/big/.claude.json")
	at() { # at HOME STATE ARGV...: mcpx with HOME, no config of its own
		local home=$1 state=$2
		shift 2
		printf '%s\n' env -u MCPX_CONFIG HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_STATE_HOME="$state" MCPX_COMPLETE_TIMEOUT=60s MCPX_KEEP_ALIVE=0 "$mcpx" "$@"
	}
	local small big skim tsmall tbig tmany
	mapfile -t small < <(at "$d/small" "$d/small/state" servers)
	mapfile -t skim < <(at "$d/big" /dev/null servers)
	mapfile -t big < <(at "$d/big" "$d/big/state" servers)
	mapfile -t tsmall < <(at "$d/small" "$d/small/state" __complete zsh -- invoke '')
	mapfile -t tbig < <(at "$d/big" "$d/big/state" __complete zsh -- invoke '')
	mapfile -t tmany < <(at "$d/many" "$d/many/state" __complete zsh -- invoke '')
	(cd "$d/big/work" && "${big[@]}" >/dev/null) # the state directory gets the skim
	[ -n "$(ls "$d/big/state/mcpx/hosts" 2>/dev/null)" ] || echo "warning: hosts: nothing was remembered in the state directory" >&2
	load_before=$(load_note)
	echo "hosts: $((size / 1048576)) MiB ~/.claude.json; timing $runs runs each (+$warmup warm-up) with $tool ..." >&2
	cd "$d/big/work"
	timing small "${small[@]}" ::: skim "${skim[@]}" ::: big "${big[@]}" ::: tsmall "${tsmall[@]}" ::: tbig "${tbig[@]}" ::: tmany "${tmany[@]}"
	: >"$tmp/hostrss"
	for k in small skim big tsmall tbig tmany; do
		local -n argv=$k
		printf '%s %s\n' "$k" "$(peak_rss "${argv[@]}")" >>"$tmp/hostrss"
	done
	cd "$root"
	echo
	echo "host files: mcpx servers and one TAB, $runs runs each, timed with $tool"
	awk -F'\t' -v rssfile="$tmp/hostrss" '
		BEGIN { while ((getline l < rssfile) > 0) { split(l, f, " "); rss[f[1]] = f[2] } }
		{ med[$1] = $4; sd[$1] = $5 }
		END {
			n = split("small skim big tsmall tbig tmany", k, " ")
			split("servers, small ~/.claude.json|servers, 50 MiB, skimmed|servers, 50 MiB, remembered|TAB, small ~/.claude.json|TAB, 50 MiB, remembered|TAB, 30000 servers in cursor", label, "|")
			printf "%-32s %10s %8s %9s %10s %11s\n", "", "median", "sd", "x small", "added", "peak RSS"
			for (i = 1; i <= n; i++) {
				base = (k[i] ~ /^t/) ? med["tsmall"] : med["small"]
				brss = (k[i] ~ /^t/) ? rss["tsmall"] : rss["small"]
				printf "%-32s %7.1f ms %5.1f ms %8.2fx %+7.1f ms %7.1f MiB (%+.1f)\n", label[i], med[k[i]], sd[k[i]], (base > 0 ? med[k[i]] / base : 0), med[k[i]] - base, rss[k[i]] / 1024, (rss[k[i]] - brss) / 1024
			}
			printf "\naims: a 50 MiB ~/.claude.json adds at most 50 ms and 20 MiB (skimmed: %+.1f ms, %+.1f MiB; remembered: %+.1f ms, %+.1f MiB);\n", \
				med["skim"] - med["small"], (rss["skim"] - rss["small"]) / 1024, med["big"] - med["small"], (rss["big"] - rss["small"]) / 1024
			printf "every TAB within its 2 s budget (the slowest here: %.0f ms)\n", (med["tmany"] > med["tbig"] ? med["tmany"] : med["tbig"])
		}' "$tmp/timing"
	if [ -n "$load_before" ]; then
		echo "Load average before: $load_before, after: $(load_note) ($(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs)."
	fi
}

case $section in
warm) bench_warm ;;
startup) bench_startup ;;
catalog) bench_catalog ;;
catalogmem) bench_catalogmem ;;
read) bench_read ;;
snapshot) bench_snapshot ;;
complete) bench_complete ;;
hosts) bench_hosts ;;
all)
	bench_startup
	echo
	bench_catalog
	echo
	bench_complete
	echo
	bench_read
	echo
	bench_catalogmem
	echo
	bench_hosts
	echo
	bench_snapshot
	;;
esac
