#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bad_inputs.sh - `gpuperf diff` on bad input: one clear line on stderr naming the problem, exit 2.
# usage: bad_inputs.sh GPUPERF
set -u
GPUPERF=$1
DATA=$(cd "$(dirname "$0")" && pwd)/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect WANT_STATUS PATTERN ARGS...: exit status and a stderr line matching PATTERN (grep -E),
# or an empty stderr for PATTERN NONE.
expect() {
	want=$1 pat=$2
	shift 2
	"$GPUPERF" diff --color=never "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL: diff $*: exit $got, want $want"; sed 's/^/  stderr: /' "$tmp/err"; fail=1
	elif [ "$pat" = NONE ] && [ -s "$tmp/err" ]; then
		echo "FAIL: diff $*: stderr not empty:"; sed 's/^/  stderr: /' "$tmp/err"; fail=1
	elif [ "$pat" != NONE ] && ! grep -Eq -- "$pat" "$tmp/err"; then
		echo "FAIL: diff $*: stderr does not match /$pat/:"; sed 's/^/  stderr: /' "$tmp/err"; fail=1
	elif [ "$want" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -gt 2 ]; then
		echo "FAIL: diff $*: more than two lines on stderr"; cat "$tmp/err"; fail=1
	else
		echo "ok: diff $* -> $got: $(head -1 "$tmp/err")"
	fi
}

B=$DATA/base
expect 2 "schema version 2\.0 is not supported: this gpuperf reads 1\.x" "$B" "$DATA/bad/major2"
expect 2 "major2/summary.json" "$DATA/bad/major2" "$B"
expect 2 "not a gpuperf summary: schema is \"gpuperf-trace\", expected \"gpuperf-summary\"" \
	"$B" "$DATA/bad/wrong-schema"
expect 2 "'$DATA/nonexistent': No such file or directory" "$B" "$DATA/nonexistent"
expect 2 "no summary.json in this directory \(run 'gpuperf report" "$B" "$DATA/bad/no-summary"
expect 2 "empty\.json': empty file" "$B" "$DATA/bad/empty.json"
expect 2 "truncated\.json': invalid JSON: cut short" "$B" "$DATA/bad/truncated.json"
printf '{"schema": "gpuperf-summary", "schema_version": "1.0", "kernels": 5}' >"$tmp/s.json"
expect 2 "\"kernels\" is not an array" "$B" "$tmp/s.json"
# Usage errors.
expect 2 "expected two paths" "$B"
expect 2 "expected two paths" "$B" "$B" "$B"
expect 2 "both --base and --new" --base "$B"
expect 2 "unknown option '--bogus'" --bogus "$B" "$B"
expect 2 "invalid threshold 'x'" -t x "$B" "$B"
expect 2 "unknown metric 'kernal'" --threshold kernal=3 "$B" "$B"
expect 2 "invalid --min-time 'ten'" --min-time ten "$B" "$B"
expect 2 "invalid --color 'sometimes'" --color=sometimes "$B" "$B"
expect 2 "invalid regex" --ignore "(" "$B" "$B"
expect 2 "cannot read config '$tmp/none.json'" --config "$tmp/none.json" "$B" "$B"
printf '{"threshold": 5, "treshold": 3}' >"$tmp/c.json"
expect 2 "unknown key \"treshold\"" --config "$tmp/c.json" "$B" "$B"
expect 2 "--svg: cannot open '$DATA/noise/base1/profile.folded'" --svg "$tmp/d.svg" \
	"$DATA/noise/base1" "$DATA/noise/new"
# Valid but empty summaries: nothing to compare, success.
expect 0 NONE "$DATA/empty" "$DATA/empty"
grep -q "nothing to compare" "$tmp/out" || { echo "FAIL: empty: no 'nothing to compare'"; fail=1; }
# Regressions exit 1, with the table on stdout and nothing on stderr.
expect 1 NONE "$B" "$DATA/slower"
# Colors only when asked (stdout is not a terminal here).
"$GPUPERF" diff "$B" "$DATA/slower" | grep -q "$(printf '\033')" &&
	{ echo "FAIL: colors on a pipe"; fail=1; }
"$GPUPERF" diff --color=always "$B" "$DATA/slower" | grep -q "$(printf '\033')" ||
	{ echo "FAIL: no colors with --color=always"; fail=1; }
# --json=FILE and --markdown=FILE write files and keep the table on stdout.
"$GPUPERF" diff --json="$tmp/r.json" --markdown="$tmp/r.md" "$B" "$DATA/slower" >"$tmp/out"
[ $? -eq 1 ] && grep -q '"result":	"regression"' "$tmp/r.json" && grep -q '^### gpuperf diff' "$tmp/r.md" &&
	grep -q '^FAIL: ' "$tmp/out" || { echo "FAIL: --json=FILE --markdown=FILE"; fail=1; }
# help
"$GPUPERF" help diff | grep -q "Exit status: 0 no regression" || { echo "FAIL: help diff"; fail=1; }
exit $fail
