#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# update-golden.sh - regenerate tests/diff/golden/* after an intended change to `gpuperf diff`'s output.
# usage: tests/diff/update-golden.sh [BUILD_DIR]   (default: build); review `git diff` after.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-build}
GPUPERF=$BUILD/cli/gpuperf
DATA=$HERE/data
[ -x "$GPUPERF" ] || { echo "update-golden: '$GPUPERF' not built; build first or pass BUILD_DIR" >&2; exit 1; }
. "$HERE/golden-cases.sh"
for c in $GOLDEN_CASES; do
	render_case "$c" "$HERE/golden/$c"
	echo "wrote golden/$c"
done
