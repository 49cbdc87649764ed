#!/bin/sh
# dist-check builds the release archives twice, in two directories, and
# fails unless both runs wrote byte-identical files.
set -eu
cd "$(dirname "$0")/.."
a=$(mktemp -d) b=$(mktemp -d)
trap 'rm -rf "$a" "$b"' EXIT
v=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
make -s dist VERSION="$v" DISTDIR="$a" >/dev/null
make -s dist VERSION="$v" DISTDIR="$b" >/dev/null
if ! diff -r "$a" "$b"; then
	echo "dist-check: two builds of the same commit differ" >&2
	exit 1
fi
echo "dist-check: $(ls "$a" | wc -l) files identical"
