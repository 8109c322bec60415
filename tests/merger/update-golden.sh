#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# update-golden.sh - regenerate tests/merger/golden/* after an intended change to a writer.
# usage: tests/merger/update-golden.sh [BUILD_DIR]   (default: build); review `git diff` after.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-build}
GPUPERF=$BUILD/cli/gpuperf
FOLD_NORMALIZE=$BUILD/report/tests/fold_normalize
CHROME_TRACE=$BUILD/report/tests/merger_chrome_trace
DATA=$HERE/data
for t in "$GPUPERF" "$FOLD_NORMALIZE" "$CHROME_TRACE"; do
	[ -x "$t" ] || { echo "update-golden: '$t' not built; build first or pass BUILD_DIR" >&2; exit 1; }
done
. "$HERE/golden-cases.sh"
for c in $GOLDEN_CASES; do
	render_case "$c" "$HERE/golden/$c"
	echo "wrote golden/$c"
done
