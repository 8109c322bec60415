#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# browser.sh - render a differential flame graph with `gpuperf diff --svg` and run the flame graph's
# headless-Chromium test on it (tests/merger/browser): it loads, searches, zooms and keeps state.
# usage: browser.sh GPUPERF DATA_DIR [SCREENSHOT.png]
# Skips (77) without node or Chromium, unless GPUPERF_REQUIRE_BROWSER=1.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BROWSER=$HERE/../merger/browser
GPUPERF=$1
DATA=$2
SHOT=${3:-}

. "$BROWSER/find_browser.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GPUPERF" diff --svg "$tmp/diff.svg" "$DATA/base" "$DATA/slower" >/dev/null 2>"$tmp/err"
[ $? -le 1 ] && [ -s "$tmp/diff.svg" ] || {
	echo "FAIL: gpuperf diff --svg failed:"
	cat "$tmp/err"
	exit 1
}
# Widths, data-w and "Matched" follow the new profile, so the checks read its folded file.
node "$BROWSER/flamegraph_test.js" "$CHROMIUM" "$tmp/diff.svg" "$DATA/slower/gpu.folded" $SHOT
