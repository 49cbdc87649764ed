#!/bin/sh
# check-layering.sh: data flows one way (argv -> commands -> client -> render
# -> output); only commands imports client, render, output and completions.
# Inside client, the connection (client) sits on its config, its OAuth
# tokens and its transports; the transports import nothing of mcpx's but
# internal packages, which are leaves. Fails when `go list -deps` shows an
# edge the table below does not allow.
set -eu
cd "$(dirname "$0")/.."
mod=$(go list -m)
status=0
allow() { # PKG ALLOWED... : the packages of mcpx that PKG may import
	pkg=$1
	shift
	for dep in $(go list -deps "./$pkg" | grep "^$mod/" | sed "s#^$mod/##"); do
		[ "$dep" = "$pkg" ] && continue
		ok=0
		for a in "$@"; do
			case $dep in "$a" | "$a"/*) ok=1 ;; esac
		done
		if [ $ok = 0 ]; then
			echo "layering: $pkg imports $dep (it may import only: ${*:-nothing of mcpx's})" >&2
			status=1
		fi
	done
}
allow render internal
allow output internal
allow completions internal
allow client client/auth client/config client/transport internal
allow client/auth client/config client/transport internal
allow client/config client/transport internal
allow client/transport internal
allow internal/text
allow internal/uritemplate
exit $status
