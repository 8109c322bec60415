# SPDX-License-Identifier: Apache-2.0
# golden-cases.sh - the golden cases, sourced by check-golden.sh and update-golden.sh.
# render_case NAME OUT: write golden output NAME into OUT using $GPUPERF, $FOLD_NORMALIZE, $DATA.
GOLDEN_CASES="small.folded small.svg small-icicle.svg"
# trace.json from a hand-built timeline, when the caller has the test tool ($CHROME_TRACE).
[ -n "${CHROME_TRACE:-}" ] && GOLDEN_CASES="$GOLDEN_CASES trace-small.json"

render_case() {
	case "$1" in
	small.folded)
		"$FOLD_NORMALIZE" "$DATA/small.folded" >"$2" 2>/dev/null ;;
	small.svg)
		"$GPUPERF" flamegraph --title "Training step" --subtitle "hand-written sample" \
			"$DATA/small.folded" -o "$2" 2>/dev/null ;;
	small-icicle.svg)
		"$GPUPERF" flamegraph --inverted --units samples --width 800 --height 18 \
			--minwidth 2 "$DATA/small.folded" >"$2" 2>/dev/null ;;
	trace-small.json)
		"$CHROME_TRACE" --write-small "$2" 2>/dev/null ;;
	*)
		echo "unknown golden case $1" >&2
		return 1 ;;
	esac
}
