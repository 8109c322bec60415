#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bash completion offers what a user expects at each <TAB>.
# usage: completion.sh COMPLETION_FILE
set -u
comp=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/run1" "$tmp/run2"
touch "$tmp/gpu.folded"

# expect 'LINE' 'CANDIDATES': complete the last word of LINE, an empty
# one when LINE ends with a space (bash splits --opt=val into --opt = val,
# as COMP_WORDBREAKS has '=').
expect() {
	local got words
	read -ra words <<<"$1"
	[[ $1 == *' ' ]] && words+=("")
	got=$(cd "$tmp" && bash -c 'source "$1"; shift; COMP_WORDS=("$@");
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _gpuperf; echo "${COMPREPLY[*]}"' \
		bash "$comp" "${words[@]}")
	if [ "$got" != "$2" ]; then
		echo "FAIL: '$1<TAB>' gives '$got', not '$2'"; fail=1
	fi
}

expect "gpuperf rep" "report"
expect "gpuperf d" "diff dump"
expect "gpuperf --c" "--cpu"
expect "gpuperf report --for" "--format"
expect "gpuperf report --format = " "folded svg trace chrome perfetto pprof json all"
expect "gpuperf report --format = svg,p" "svg,perfetto svg,pprof"
expect "gpuperf report --format=tr" "--format=trace"
expect "gpuperf report --format=" "--format=folded --format=svg --format=trace --format=chrome --format=perfetto --format=pprof --format=json --format=all"
expect "gpuperf report -f j" "json"
expect "gpuperf report --gzip = n" "never"
expect "gpuperf report -q r" "run1 run2"
expect "gpuperf report -o r" "run1 run2"
expect "gpuperf --cpu --no-g" "--no-gpu"
expect "gpuperf record --kill T" "TERM"
expect "gpuperf record -F 99 --min-b" "--min-block"
expect "gpuperf record -o run1 -- ./gpu.f" "./gpu.folded"
expect "gpuperf diff --color = al" "always"
expect "gpuperf flamegraph -u s" "samples"
expect "gpuperf flamegraph g" "gpu.folded"
expect "gpuperf help fl" "flamegraph"
expect "gpuperf dump --st" "--stats"
[ "$fail" -eq 0 ] && echo "completion: every case completes as expected"
exit "$fail"
