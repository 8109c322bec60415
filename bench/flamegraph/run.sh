#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh - time `gpuperf flamegraph` against flamegraph.pl on one generated folded file.
#
# usage: bench/flamegraph/run.sh BUILD_DIR [--stacks N] [--reps R] [--flamegraph-pl PATH]
# flamegraph.pl (github.com/brendangregg/FlameGraph, not shipped with gpuperf)
# comes from --flamegraph-pl or $FLAMEGRAPH_PL; without it only gpuperf is timed.
# Reports wall time (best of R), peak RSS (GNU time's %M) and output size.
set -eu

BUILD=${1:?usage: run.sh BUILD_DIR [--stacks N] [--reps R] [--flamegraph-pl PATH]}
shift
STACKS=200000
REPS=3
FGPL=${FLAMEGRAPH_PL:-}
while [ $# -gt 0 ]; do
	case "$1" in
	--stacks) STACKS=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--flamegraph-pl) FGPL=$2; shift 2 ;;
	*) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
GPUPERF=$BUILD/cli/gpuperf
GEN=$BUILD/bench/flamegraph/gen_folded
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "run.sh: needs GNU time (apt-get install time)" >&2; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$GEN" "$STACKS" >"$TMP/in.folded"
echo "input: $STACKS stacks, $(wc -c <"$TMP/in.folded") bytes, $(tr ';' '\n' <"$TMP/in.folded" | wc -l) frames"

# best_of CMD...: run REPS times, print "best_wall_s max_rss_kib".
best_of() {
	best=""
	rss=0
	r=0
	while [ "$r" -lt "$REPS" ]; do
		"$TIME" -f "%e %M" -o "$TMP/t" "$@"
		w=$(cut -d' ' -f1 "$TMP/t")
		m=$(cut -d' ' -f2 "$TMP/t")
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$w; fi
		[ "$m" -gt "$rss" ] && rss=$m
		r=$((r + 1))
	done
	echo "$best $rss"
}

ours=$(best_of "$GPUPERF" flamegraph "$TMP/in.folded" -o "$TMP/ours.svg")
set -- $ours
printf '%-22s wall %7ss  peak RSS %7s KiB  svg %9s bytes  frames %s\n' "gpuperf flamegraph" "$1" "$2" \
	"$(wc -c <"$TMP/ours.svg")" "$(grep -c '</title><rect' "$TMP/ours.svg")"
ours_wall=$1

if [ -n "$FGPL" ] && [ -f "$FGPL" ]; then
	"$TIME" -f "%e %M" -o "$TMP/t" perl "$FGPL" --countname ns "$TMP/in.folded" >"$TMP/pl.svg" 2>/dev/null
	set -- $(cat "$TMP/t")
	printf '%-22s wall %7ss  peak RSS %7s KiB  svg %9s bytes  frames %s\n' "flamegraph.pl" "$1" "$2" \
		"$(wc -c <"$TMP/pl.svg")" "$(grep -c '</title><rect' "$TMP/pl.svg")"
	awk -v a="$1" -v b="$ours_wall" 'BEGIN { if (b > 0) printf "speedup: %.1fx (flamegraph.pl wall / gpuperf wall)\n", a / b }'
else
	echo "flamegraph.pl: not given (--flamegraph-pl PATH or FLAMEGRAPH_PL); comparison skipped"
fi
