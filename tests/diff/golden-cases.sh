# SPDX-License-Identifier: Apache-2.0
# golden-cases.sh - the golden cases of `gpuperf diff`, sourced by check-golden.sh and update-golden.sh.
# render_case NAME OUT: write case NAME's output, then "[exit N]", into OUT using $GPUPERF and $DATA.
GOLDEN_CASES="slower.txt slower.json slower.md by-site.txt noise.txt same.txt empty.txt config.txt"

render_case() {
	case "$1" in
	slower.txt)
		set -- "$2" diff --color=never "$DATA/base" "$DATA/slower" ;;
	slower.json)
		set -- "$2" diff --json "$DATA/base" "$DATA/slower/summary.json" ;;
	slower.md)
		set -- "$2" diff --markdown --by-site "$DATA/base" "$DATA/slower" ;;
	by-site.txt)
		set -- "$2" diff --color=never --by-site --threshold 5,site=20 "$DATA/base" \
			"$DATA/slower" ;;
	noise.txt)
		set -- "$2" diff --color=never --base "$DATA/noise/base1" "$DATA/noise/base2" \
			"$DATA/noise/base3" --new "$DATA/noise/new" ;;
	same.txt)
		set -- "$2" diff --color=never "$DATA/base" "$DATA/base" ;;
	empty.txt)
		set -- "$2" diff --color=never "$DATA/empty" "$DATA/empty" ;;
	config.txt)
		set -- "$2" diff --color=never --config "$DATA/ci.json" "$DATA/base" "$DATA/slower" ;;
	*)
		echo "unknown golden case $1" >&2
		return 1 ;;
	esac
	out=$1
	shift
	rc=0
	"$GPUPERF" "$@" >"$out" 2>&1 || rc=$?
	echo "[exit $rc]" >>"$out"
}
