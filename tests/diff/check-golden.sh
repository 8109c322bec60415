#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# check-golden.sh - compare `gpuperf diff`'s table, JSON and Markdown (and exit status) with golden/.
# usage: check-golden.sh GPUPERF   (regenerate with update-golden.sh)
set -u
GPUPERF=$1
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/data
. "$HERE/golden-cases.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for c in $GOLDEN_CASES; do
	render_case "$c" "$tmp/$c" || { echo "FAIL: $c: cannot render"; fail=1; continue; }
	if cmp -s "$tmp/$c" "$HERE/golden/$c"; then
		echo "ok: $c"
	else
		echo "FAIL: $c differs from golden/$c (intended? run tests/diff/update-golden.sh):"
		diff -u "$HERE/golden/$c" "$tmp/$c" | head -40
		fail=1
	fi
done
# The JSON is JSON.
if command -v python3 >/dev/null 2>&1; then
	sed '$d' "$tmp/slower.json" | python3 -m json.tool >/dev/null ||
		{ echo "FAIL: slower.json is not valid JSON"; fail=1; }
fi
exit $fail
