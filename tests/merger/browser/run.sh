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

missing() {
	if [ "${GPUPERF_REQUIRE_BROWSER:-0}" = 1 ]; then
		echo "FAIL: $1 (GPUPERF_REQUIRE_BROWSER=1)"
		exit 1
	fi
	echo "SKIP: $1"
	exit 77
}
command -v node >/dev/null 2>&1 || missing "node not found (apt-get install nodejs)"
CHROMIUM=${CHROMIUM:-}
if [ -z "$CHROMIUM" ]; then
	for c in chromium chromium-browser google-chrome; do
		if command -v "$c" >/dev/null 2>&1; then
			CHROMIUM=$(command -v "$c")
			break
		fi
	done
fi
[ -n "$CHROMIUM" ] || missing "chromium not found (apt-get install chromium)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GPUPERF" flamegraph --title "gpuperf browser test" "$FOLDED" -o "$tmp/fg.svg" 2>/dev/null || {
	echo "FAIL: gpuperf flamegraph failed"
	exit 1
}
grep -v '^this line' "$FOLDED" >"$tmp/in.folded"
exec node "$HERE/flamegraph_test.js" "$CHROMIUM" "$tmp/fg.svg" "$tmp/in.folded" $SHOT
