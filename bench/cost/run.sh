#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh - the fixed cost of one gpuperf command on a short program.
#
# usage: bench/cost/run.sh BUILD_DIR [--runs N] [--vs GPUPERF] [-- PROGRAM [ARGS...]]
#
# Runs, in turn, N rounds of: the program alone, `gpuperf record` (GPU side),
# `gpuperf record --cpu` and `gpuperf --cpu` (record --cpu, then report),
# each from its start to its exit (wall, ns clock). Prints each command's
# median and the median of the per-round differences against the program
# alone in the same round: what gpuperf adds, paired, so a machine whose
# speed drifts during the series moves both sides of a difference alike.
# The default program is BUILD/samples/vector_add_shared, on the CUDA
# simulator (BUILD/tests/sim/lib) when there is no GPU. --cpu needs root:
# without it only the GPU-side rows are measured. --vs GPUPERF adds another
# build's `record --cpu` and `--cpu` to every round (before/after a change).
set -eu

BUILD=${1:?usage: run.sh BUILD_DIR [--runs N] [-- PROGRAM [ARGS...]]}
shift
RUNS=11
VS=
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) RUNS=$2; shift 2 ;;
	--vs) VS=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
GPUPERF=$BUILD/cli/gpuperf
[ -x "$GPUPERF" ] || { echo "run.sh: no $GPUPERF" >&2; exit 2; }
if [ $# -eq 0 ]; then
	set -- "$BUILD/samples/vector_add_shared"
	[ -x "$1" ] || { echo "run.sh: no $1 (samples need CUDA)" >&2; exit 77; }
	if ! [ -e /dev/nvidia0 ] && [ -e "$BUILD/tests/sim/lib/libcudart.so.13" ]; then
		LD_LIBRARY_PATH=$BUILD/tests/sim/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		export LD_LIBRARY_PATH
	fi
fi
CPU=1
[ "$(id -u)" -eq 0 ] || { CPU=0; echo "run.sh: not root: the --cpu rows are skipped"; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# wall CMD...: run it (output discarded), print its wall time in ns.
wall() {
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1 </dev/null || { echo "run.sh: '$*' failed" >&2; exit 1; }
	e=$(date +%s%N)
	echo $((e - s))
}

: >"$TMP/t"
r=0
while [ "$r" -lt "$RUNS" ]; do
	p=$(wall "$@")
	rm -rf "$TMP/d"
	g=$(wall "$GPUPERF" record -q -o "$TMP/d" -- "$@")
	c=0
	a=0
	if [ "$CPU" -eq 1 ]; then
		rm -rf "$TMP/d"
		c=$(wall "$GPUPERF" record --cpu -q -o "$TMP/d" -- "$@")
		rm -rf "$TMP/d"
		a=$(wall "$GPUPERF" --cpu -q -o "$TMP/d" -- "$@")
	fi
	vc=0
	va=0
	if [ "$CPU" -eq 1 ] && [ -n "$VS" ]; then
		rm -rf "$TMP/d"
		vc=$(wall "$VS" record --cpu -q -o "$TMP/d" -- "$@")
		rm -rf "$TMP/d"
		va=$(wall "$VS" --cpu -q -o "$TMP/d" -- "$@")
	fi
	echo "$p $g $c $a $vc $va" >>"$TMP/t"
	r=$((r + 1))
done

# median COLUMN-EXPRESSION: the median over the rounds, in seconds.
median() {
	awk "{ print $1 }" "$TMP/t" | sort -n | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f", m / 1e9 }'
}

echo "program: $*"
echo "rounds: $RUNS (medians; differences taken within each round)"
printf '%-28s %9s %14s %8s\n' command "wall s" "- program s" ratio
printf '%-28s %9s %14s %8s\n' "program alone" "$(median '$1')" "" "1.00"
row() {
	m=$(median "$2")
	d=$(median "$2 - \$1")
	q=$(awk "{ print ($2) / \$1 }" "$TMP/t" | sort -n | awk '{ v[NR] = $1 } END {
		printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	printf '%-28s %9s %14s %8s\n' "$1" "$m" "+$d" "$q"
}
row "gpuperf record" '$2'
if [ "$CPU" -eq 1 ]; then
	row "gpuperf record --cpu" '$3'
	row "gpuperf --cpu (+ report)" '$4'
fi
if [ "$CPU" -eq 1 ] && [ -n "$VS" ]; then
	row "--vs: record --cpu" '$5'
	row "--vs: --cpu (+ report)" '$6'
fi
