#!/bin/sh
# check-layering.sh: data flows one way (argv -> commands -> client -> render
# -> output); only commands imports client, render, output and completions.
# Inside client, the connection (client) sits on its config, its OAuth
# tokens and its transports; the transports import nothing of mcpx's but
# internal packages, which are leaves (internal/fail, the error model, and
# internal/text import nothing of mcpx's at all, so that every package may
# import them), with one exception: internal/daemon,
# the warm-connection daemon (both ends of its socket), is a peer of the
# connection over the transports. It imports client/transport (the one
# arrow from internal/* back up into client/*); client, commands and test
# import it, and nothing else does (client/transport least of all).
# internal/schema is the one reader of JSON Schema (render's describe,
# commands' typing, forms and the snapshot diff): it sits on the JSON
# scanner internal/jsonscan, a leaf that render shares, and on text.
#
# Two checks over every package's imports, its tests' imports included:
#   - forward: each package imports only what the table in allowed() lists
#     (a package missing from the table fails, so a new one gets a rule);
#   - reverse: client, client/*, render, output and completions are imported
#     only by commands, cmd/mcpx, scripts/* and test (and client's own
#     packages by each other, as the forward table says; client/transport
#     by internal/daemon, the exception above);
#     internal/daemon only by client, commands, scripts/* and test.
set -euf # -f: the rules below are case patterns, not file names
cd "$(dirname "$0")/.."
mod=$(go list -m)

# allowed PKG: the packages of mcpx that PKG may import, as case patterns;
# "*" for any, nothing for none; exits 1 when PKG has no rule.
allowed() {
	case $1 in
	cmd/mcpx) echo 'commands internal/ascaller output' ;;
	commands) echo 'client client/* completions internal/* output render' ;;
	completions | output | render) echo 'internal/*' ;;
	client) echo 'client/auth client/transport internal/*' ;;
	client/auth) echo 'client/transport internal/*' ;;
	client/transport) echo 'internal/*' ;;
	internal/config) echo 'internal/fail internal/hermetic internal/text internal/userfile' ;;
	internal/daemon) echo 'client/transport internal/*' ;;
	internal/fail | internal/text | internal/jsonscan) echo '' ;;
	internal/schema) echo 'internal/jsonscan internal/text' ;;
	internal/*) echo 'internal/*' ;;
	test/fixture) echo 'internal/*' ;;
	test | scripts/*) echo '*' ;;
	*) return 1 ;;
	esac
}

# guarded DEP IMPORTER: fails when DEP may be imported only by the top of the
# tree and IMPORTER is not there.
guarded() {
	case $1 in
	internal/daemon)
		case $2 in client | commands | scripts/* | test) return 1 ;; esac
		return 0
		;;
	client | client/* | render | output | completions) ;;
	*) return 1 ;;
	esac
	case $2 in
	commands | cmd/mcpx | scripts/* | test) return 1 ;;
	client | client/*) case $1 in client | client/*) return 1 ;; esac ;;
	internal/daemon) case $1 in client/transport) return 1 ;; esac ;;
	esac
	return 0
}

status=0
edges=$(go list -f '{{$p := .ImportPath}}{{range .Imports}}{{$p}} imports {{.}}
{{end}}{{range .TestImports}}{{$p}} test-imports {{.}}
{{end}}{{range .XTestImports}}{{$p}} test-imports {{.}}
{{end}}' ./...)
edges=$(echo "$edges" | grep " $mod/" | sed "s# $mod/# #; s#^$mod/##")
for pkg in $(go list ./... | sed "s#^$mod/##"); do
	if ! allowed "$pkg" >/dev/null; then
		echo "layering: $pkg has no rule in scripts/check-layering.sh" >&2
		status=1
	fi
done
echo "$edges" | {
	while read -r pkg kind dep; do
		[ -n "$pkg" ] && [ "$dep" != "$pkg" ] || continue
		rule=$(allowed "$pkg") || continue
		[ "$kind" = imports ] && edge="$pkg imports $dep" || edge="$pkg's tests import $dep"
		ok=0
		for a in $rule; do
			# shellcheck disable=SC2254 # $a is a pattern
			case $dep in $a) ok=1 ;; esac
		done
		if [ $ok = 0 ]; then
			may=$rule
			[ -n "$may" ] || may="nothing of mcpx's" # not in ${rule:-...}, which bash misparses
			echo "layering: $edge (it may import only: $may)" >&2
			status=1
		fi
		if guarded "$dep" "$pkg"; then
			who='commands, cmd/mcpx, scripts and test'
			[ "$dep" = internal/daemon ] && who='client, commands, scripts and test'
			echo "layering: $edge (only $who may)" >&2
			status=1
		fi
	done
	exit $status
} || status=1
exit $status
