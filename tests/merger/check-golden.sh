#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# check-golden.sh - compare the folded writer's and the SVG renderer's output with the golden files.
# usage: check-golden.sh GPUPERF FOLD_NORMALIZE [CHROME_TRACE]   (regenerate with update-golden.sh)
# CHROME_TRACE: the merger_chrome_trace test, which writes trace-small.json with --write-small.
set -u
GPUPERF=$1
FOLD_NORMALIZE=$2
CHROME_TRACE=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/data
. "$HERE/golden-cases.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for c in $GOLDEN_CASES; do
	if ! render_case "$c" "$tmp/$c"; then
		echo "FAIL: $c: render failed"
		fail=1
		continue
	fi
	if cmp -s "$tmp/$c" "$HERE/golden/$c"; then
		echo "ok: $c"
	else
		echo "FAIL: $c differs from golden/$c (intended? run tests/merger/update-golden.sh):"
		diff -u "$HERE/golden/$c" "$tmp/$c" | head -40
		fail=1
	fi
done
# Deterministic: a second render is byte-identical.
render_case small.svg "$tmp/again.svg" && cmp -s "$tmp/small.svg" "$tmp/again.svg" ||
	{ echo "FAIL: two renders of the same input differ"; fail=1; }
# The writer's output reads back to itself.
"$FOLD_NORMALIZE" "$tmp/small.folded" >"$tmp/again.folded" &&
	cmp -s "$tmp/small.folded" "$tmp/again.folded" ||
	{ echo "FAIL: folded output does not read back to itself"; fail=1; }
exit $fail
