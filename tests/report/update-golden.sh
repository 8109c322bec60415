#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# update-golden.sh - regenerate tests/report/golden/* after an intended change to the report.
# usage: tests/report/update-golden.sh [BUILD_DIR]   (default: build); review `git diff` after.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-build}
GPUPERF=$BUILD/cli/gpuperf
GEN=$BUILD/tests/report/gen_recording
PYTHON=python3
for t in "$GPUPERF" "$GEN"; do
	[ -x "$t" ] || { echo "update-golden: '$t' not built; build first or pass BUILD_DIR" >&2; exit 1; }
done
. "$HERE/golden-files.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make_report "$tmp"
mkdir -p "$HERE/golden"
for f in $GOLDEN_FILES; do
	cp "$tmp/$f" "$HERE/golden/$f"
	echo "wrote golden/$f"
done
