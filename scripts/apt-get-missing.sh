#!/bin/sh
# scripts/apt-get-missing.sh [COMMAND:]PACKAGE...: install, with apt-get,
# the packages whose command is not on PATH (COMMAND defaults to PACKAGE),
# and nothing else: no recommended packages, no upgrade of a package the
# machine has. apt upgrades every installed package built from the same
# source as one it installs (APT::Get::Upgrade-By-Source-Package: fish's
# libpcre2-32-0 would take libpcre2-8-0 along): that is turned off. When
# installing them would still upgrade or remove a package that is installed
# (a newer library a package needs), nothing is installed and it says what,
# so that the machine's packages are changed by its owner only. Quiet: apt's output goes to a log, shown when something fails.
# Without apt-get, or not as root, it names what to install and fails.
set -eu

missing=
for arg in "$@"; do
	cmd=${arg%%:*}
	pkg=${arg#*:}
	command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
done
[ -n "$missing" ] || exit 0
missing=${missing# }

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "the tests need $missing: install them (apt-get install --no-install-recommends $missing)" >&2
	exit 1
fi

log=$(mktemp "${TMPDIR:-/tmp}/apt-get-missing.XXXXXX")
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
apt() {
	# shellcheck disable=SC2086 # $missing is a list of words
	apt-get -q -o Dpkg::Use-Pty=0 -o APT::Color=0 -o APT::Get::Upgrade-By-Source-Package=false "$@" >>"$log" 2>&1 || {
		echo "apt-get $* failed:" >&2
		cat "$log" >&2
		exit 1
	}
}
echo "installing $missing (apt-get, log shown on failure) ..." >&2
apt update
# shellcheck disable=SC2086
apt install --simulate --no-upgrade --no-install-recommends $missing
changed=$(grep -E '^(Inst [^ ]+ \[|Remv )' "$log" | sed 's/^Inst /upgrade /; s/^Remv /remove /' || true)
if [ -n "$changed" ]; then
	echo "installing $missing would change packages this machine has:" >&2
	echo "$changed" | sed 's/^/  /' >&2
	echo "nothing was installed: install $missing yourself (apt-get install --no-install-recommends $missing)" >&2
	exit 1
fi
# shellcheck disable=SC2086
apt install -y --no-upgrade --no-install-recommends $missing
for arg in "$@"; do
	cmd=${arg%%:*}
	command -v "$cmd" >/dev/null 2>&1 || {
		echo "apt-get installed ${arg#*:}, yet $cmd is not on PATH:" >&2
		cat "$log" >&2
		exit 1
	}
done
