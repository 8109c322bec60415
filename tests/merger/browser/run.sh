#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh - render the sample with `gpuperf flamegraph` and check it in headless Chromium.
# usage: run.sh GPUPERF FILE.folded [SCREENSHOT.png]
# Skips (77) without node or Chromium, unless GPUPERF_REQUIRE_BROWSER=1.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
GPUPERF=$1
FOLDED=$2
SHOT=${3:-}

. "$HERE/find_browser.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GPUPERF" flamegraph --title "gpuperf browser test" "$FOLDED" -o "$tmp/fg.svg" 2>/dev/null || {
	echo "FAIL: gpuperf flamegraph failed"
	exit 1
}
grep -v '^this line' "$FOLDED" >"$tmp/in.folded"
exec node "$HERE/flamegraph_test.js" "$CHROMIUM" "$tmp/fg.svg" "$tmp/in.folded" $SHOT
