#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `gpuperf dump` and the command table as a user meets them: a good trace
# prints its records; a damaged, cut or missing one gives one line naming
# the file and exit 1; a bad command line gives exit 2.
# usage: cli_dump.sh GPUPERF CORPUS_DIR
set -u
gpuperf=$1
corpus=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # check NAME EXPECTED_STATUS CMD...
	local name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL $name: exit $got, want $want"; sed 's/^/  stderr: /' "$tmp/err"; fail=1
	fi
}
expect() { # expect NAME FILE REGEX
	if ! grep -Eq -- "$3" "$2"; then
		echo "FAIL $1: no line matching '$3' in:"; sed 's/^/  /' "$2" | head -20; fail=1
	fi
}
lines() { wc -l <"$1"; }

check good 0 "$gpuperf" dump "$corpus/every_type.trace"
expect good-header "$tmp/out" '^# .*every_type.trace: format 2\.[0-9]+'
expect good-kernel "$tmp/out" '^kernel +start=[0-9]+ dur=[0-9]+ corr=[0-9]+'
expect good-end "$tmp/out" 'closed cleanly'
[ -s "$tmp/err" ] && { echo "FAIL good: stderr not empty"; fail=1; }

check stats 0 "$gpuperf" dump --stats "$corpus/gpu.trace"
expect stats-kernel "$tmp/out" '^kernel +[1-9][0-9]*$'

check truncated 1 "$gpuperf" dump "$corpus/gpu_truncated.trace"
expect truncated-msg "$tmp/err" "^gpuperf dump: '.*gpu_truncated.trace': offset [0-9]+: .*truncated"
[ "$(lines "$tmp/err")" -eq 1 ] || { echo "FAIL truncated: want one line on stderr"; fail=1; }
expect truncated-kept "$tmp/out" '^kernel '

check bitflip 1 "$gpuperf" dump "$corpus/gpu_bitflip.trace"
expect bitflip-msg "$tmp/err" "gpu_bitflip.trace': offset [0-9]+: "

head -c 100 "$corpus/gpu.trace" >"$tmp/short.trace"
check short 1 "$gpuperf" dump "$tmp/short.trace"
expect short-msg "$tmp/err" "^gpuperf dump: cannot read '.*short.trace': .*truncated"

check missing 1 "$gpuperf" dump "$tmp/nope.trace"
expect missing-msg "$tmp/err" "cannot open '.*nope.trace': No such file"

check not-trace 1 "$gpuperf" dump "$0"
expect not-trace-msg "$tmp/err" "not a gpuperf trace"

check usage-nofile 2 "$gpuperf" dump
check usage-opt 2 "$gpuperf" dump --bogus "$corpus/gpu.trace"
check usage-cmd 2 "$gpuperf" frobnicate
expect usage-cmd-msg "$tmp/err" "'frobnicate' is not a gpuperf command"
check no-args 2 "$gpuperf"
check help 0 "$gpuperf" help dump
expect help-text "$tmp/out" '^usage: gpuperf dump'
check version 0 "$gpuperf" --version
expect version-text "$tmp/out" '^gpuperf [0-9]+\.[0-9]+\.[0-9]+ \(trace format 2\.[0-9]+'

[ "$fail" -eq 0 ] && echo "cli_dump: all checks passed"
exit "$fail"
