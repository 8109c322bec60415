# SPDX-License-Identifier: Apache-2.0
# find_browser.sh - sourced by the browser tests: sets CHROMIUM (honouring an existing
# $CHROMIUM) and checks for node; without either, skips (77), or fails under
# GPUPERF_REQUIRE_BROWSER=1.

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
