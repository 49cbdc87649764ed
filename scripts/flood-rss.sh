#!/usr/bin/env bash
# scripts/flood-rss.sh [-s SECONDS] [MCPX]
#
# The mcpx daemon's memory under a suspended caller whose server floods it
# (WARM CONNECTIONS in mcpx(1), "Bounded"): a warm `mcpx invoke` of the
# robust fixture's log-flood tool (scripts/benchserver robust: 2 MiB
# notifications/message until the call is cancelled), stopped with SIGSTOP
# once the flood has begun. The daemon's VmRSS is sampled every 0.2 s for
# SECONDS (default 20), or until its log says that it cut the caller off
# (then 2 s more); then the caller is let go on (SIGCONT), and its exit
# status and last stderr line are shown with the daemon's peak RSS
# (VmHWM).
#
# MCPX is the mcpx binary to measure (default: one built from this tree),
# e.g. one built from another commit, for a before/after. Linux only
# (/proc). Everything runs in a temporary directory of its own (its own
# daemon), removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=20
while getopts s: opt; do
	case $opt in
	s) secs=$OPTARG ;;
	*) echo "usage: $0 [-s SECONDS] [MCPX]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -m 700 "$tmp/run" "$tmp/state"
mcpx=${1:-}
if [ -z "$mcpx" ]; then
	go build -o "$tmp/mcpx" ./cmd/mcpx
	mcpx=$tmp/mcpx
fi
go build -o "$tmp/benchserver" ./scripts/benchserver
cat >"$tmp/config.json" <<EOF
{"mcpServers": {"flood": {"command": "$tmp/benchserver", "args": ["robust"], "env": {"ROBUST_LOG": "$tmp/robust.log"}}}}
EOF
export MCPX_CONFIG=$tmp/config.json XDG_RUNTIME_DIR=$tmp/run XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/xdg
unset MCPX_KEEP_ALIVE

# the daemon of this run: the mcpx whose environment names our runtime dir
daemon_pid() {
	local p
	for p in $(pgrep -x mcpx || true); do
		if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "XDG_RUNTIME_DIR=$tmp/run"; then
			if tr '\0' ' ' <"/proc/$p/cmdline" | grep -q __daemon; then
				echo "$p"
				return
			fi
		fi
	done
}
kib() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status" 2>/dev/null || true; }

"$mcpx" --keep-alive=1m invoke flood log-flood >"$tmp/out" 2>"$tmp/err" &
caller=$!
for _ in $(seq 1 500); do
	grep -qx flooding "$tmp/robust.log" 2>/dev/null && break
	sleep 0.01
done
kill -STOP "$caller"
d=$(daemon_pid)
[ -n "$d" ] || { echo "no daemon found" >&2; kill -9 "$caller"; exit 1; }
echo "caller $caller stopped; daemon $d: VmRSS at the start $(($(kib "$d" VmRSS) / 1024)) MiB"
peak=0
end=$((secs * 5))
for i in $(seq 1 "$end"); do
	rss=$(kib "$d" VmRSS)
	[ -n "$rss" ] || break
	[ "$rss" -gt "$peak" ] && peak=$rss
	if grep -q 'cut a caller off' "$tmp/state/mcpx/daemon.log" 2>/dev/null && [ "$end" -gt $((i + 10)) ]; then
		end=$((i + 10))
	fi
	[ "$i" -ge "$end" ] && break
	sleep 0.2
done
hwm=$(kib "$d" VmHWM)
kill -CONT "$caller"
status=0
wait "$caller" || status=$?
echo "daemon peak VmRSS sampled: $((peak / 1024)) MiB; VmHWM: $((${hwm:-0} / 1024)) MiB"
echo "caller exit status $status: $(tail -n 1 "$tmp/err" | cut -c1-200)"
grep 'cut a caller off' "$tmp/state/mcpx/daemon.log" || echo "(the daemon never cut the caller off)"
"$mcpx" daemon stop >/dev/null 2>&1 || true
