#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# check-golden.sh - `gpuperf report` on a synthetic recording: every output equals its golden
# file (regenerate after an intended change with tests/report/update-golden.sh).
# usage: check-golden.sh GPUPERF GEN_RECORDING PYTHON
set -u
GPUPERF=$1
GEN=$2
PYTHON=$3
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/golden-files.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
make_report "$tmp/a" || { echo "FAIL: report on the synthetic recording failed"; exit 1; }
for f in $GOLDEN_FILES; do
	if cmp -s "$tmp/a/$f" "$HERE/golden/$f"; then
		echo "ok: $f"
	else
		echo "FAIL: $f differs from golden/$f (intended? run tests/report/update-golden.sh):"
		diff -u "$HERE/golden/$f" "$tmp/a/$f" | head -40
		fail=1
	fi
done
# A second run gives the same bytes.
make_report "$tmp/b" || exit 1
for f in $GOLDEN_FILES; do
	cmp -s "$tmp/a/$f" "$tmp/b/$f" || { echo "FAIL: two reports differ in $f"; fail=1; }
done
exit $fail
