#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Recordings written by the format-1 writer still read: the checked-in
# tests/report/data/format-1.0 traces (gen_recording -n 60 -c 4096 before
# zero-byte packing) hold record for record what today's writer writes from
# the same input, and report gives the same numbers from either.
# usage: format_compat.sh GPUPERF GEN_RECORDING FIXTURE_DIR
set -u
gpuperf=$1
gen=$2
old=$3
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/new" "$tmp/old"
"$gen" -n 60 -c 4096 -1 "$tmp/new" || { echo "FAIL gen_recording"; exit 1; }
cp "$old"/*.trace "$tmp/old/"
cp "$tmp/new/perf-100.map" "$tmp/new/kallsyms" "$tmp/old/"
for f in gpu-100 cpu; do
	for v in old new; do
		"$gpuperf" dump "$tmp/$v/$f.trace" >"$tmp/$v-$f.dump" 2>"$tmp/$v-$f.err" ||
			{ echo "FAIL dump $v/$f.trace:"; cat "$tmp/$v-$f.err"; fail=1; }
	done
	grep -q "^# .*: format 1\.0," "$tmp/old-$f.dump" || { echo "FAIL $f: the fixture is not format 1.0"; fail=1; }
	grep -q "^# .*: format 2\.[0-9]*," "$tmp/new-$f.dump" || { echo "FAIL $f: today's writer does not write 2.x"; fail=1; }
	grep -q "in [0-9]* chunks, closed cleanly" "$tmp/old-$f.dump" || { echo "FAIL $f: old file not read cleanly"; fail=1; }
	# The end record carries the time the file was closed; all else is equal.
	if ! diff <(grep -v -e '^#' -e '^end ' "$tmp/old-$f.dump") <(grep -v -e '^#' -e '^end ' "$tmp/new-$f.dump") >"$tmp/diff"; then
		echo "FAIL $f: format 1.0 and 2.x records differ:"; head -20 "$tmp/diff"; fail=1
	fi
	n=$(grep -vc -e '^#' "$tmp/old-$f.dump")
	[ "$n" -gt 500 ] || { echo "FAIL $f: only $n records in the fixture"; fail=1; }
done
for v in old new; do
	"$gpuperf" report -q -f json "$tmp/$v" 2>"$tmp/$v-report.err" ||
		{ echo "FAIL report $v:"; cat "$tmp/$v-report.err"; fail=1; }
done
python3 - "$tmp/old/summary.json" "$tmp/new/summary.json" <<'PY' || fail=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
ka = {k["name"]: (k["count"], k["total_ns"]) for k in a["kernels"]}
kb = {k["name"]: (k["count"], k["total_ns"]) for k in b["kernels"]}
if not ka or ka != kb:
    print("FAIL report: kernels differ", ka, kb); sys.exit(1)
PY
[ "$fail" -eq 0 ] && echo "format_compat: ok"
exit "$fail"
