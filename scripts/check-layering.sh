#!/bin/sh
# check-layering.sh: data flows one way (argv -> commands -> client -> render
# -> output); only commands imports client, render, output and completions. Fails when
# `go list -deps` shows a forbidden edge.
set -eu
cd "$(dirname "$0")/.."
mod=$(go list -m)
status=0
check() { # PKG FORBIDDEN...
	pkg=$1
	shift
	deps=$(go list -deps "./$pkg/...")
	for bad in "$@"; do
		if printf '%s\n' "$deps" | grep -qx "$mod/$bad"; then
			echo "layering: $pkg imports $bad (only commands may)" >&2
			status=1
		fi
	done
}
check client render output commands completions
check render client output commands completions
check output client render commands completions
check completions client render output commands
exit $status
