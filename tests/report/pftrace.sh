#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# pftrace.sh - trace.pftrace shows what trace.json shows: the same slices, instants,
# arguments, flows and on-CPU samples with their stacks (those of cpu.folded, in
# both), read back by check_pftrace.py's own decoder under the trace processor's
# rules; protoc --decode_raw reads it too; a full disk is an error.
# usage: pftrace.sh GPUPERF GEN_RECORDING PYTHON CHECK_PFTRACE
set -u
GPUPERF=$1
GEN=$2
PYTHON=$3
CHECK=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# 300 steps: 1200 GPU records (3 kernels with no API call), samples on two threads,
# off-CPU spans, a memcpy and a memset per step; -x: the main thread preempted across
# the ends of two API calls, which must not cut either short; -d: a driver call inside
# each cudaLaunchKernel, which starts before the end of its parent, already written:
# its begin and end are timed on CLOCK_MONOTONIC, not on the sequence's incremental clock.
mkdir "$tmp/rec" && "$GEN" -n 300 -s 3 -x -d "$tmp/rec" || exit 1
"$GPUPERF" report -q -f chrome,perfetto "$tmp/rec" || { echo "FAIL: report"; exit 1; }
cp "$tmp/rec/trace.pftrace" "$tmp/quiet.pftrace"
"$GPUPERF" report -q -f folded "$tmp/rec" || { echo "FAIL: report -f folded"; exit 1; }
# each sample's stack in trace.json (stackFrames) is its stack in cpu.folded
"$PYTHON" "$(dirname "$CHECK")/check_trace_json.py" "$tmp/rec/trace.json" \
	--folded "$tmp/rec/cpu.folded" || fail=1
if "$PYTHON" "$CHECK" "$tmp/rec/trace.pftrace" --json "$tmp/rec/trace.json" \
	--folded "$tmp/rec/cpu.folded" --min-slices 3600 >"$tmp/check"; then
	cat "$tmp/check"
	grep -q ', 1200 events timed apart' "$tmp/check" ||
		{ echo "FAIL: the 600 nested driver calls' begin and end were not timed apart"; fail=1; }
	grep -q ', 1800 samples of 3 stacks,' "$tmp/check" ||
		{ echo "FAIL: not 1800 samples (3 per step, 2 threads) on their 3 stacks"; fail=1; }
else
	cat "$tmp/check"
	fail=1
fi
# Perfetto's own trace processor, where one is given (the CI machine has none)
if [ -n "${GPUPERF_TRACE_PROCESSOR:-}" ]; then
	"$PYTHON" "$(dirname "$0")/pftrace_tp.py" "$GPUPERF_TRACE_PROCESSOR" \
		"$tmp/rec/trace.pftrace" "$tmp/rec/trace.json" "$tmp/rec/cpu.folded" || fail=1
fi
if command -v protoc >/dev/null; then
	if ! protoc --decode_raw <"$tmp/rec/trace.pftrace" >"$tmp/raw"; then
		echo "FAIL: protoc --decode_raw cannot read trace.pftrace"; fail=1
	elif ! grep -qF '"void bwd_kernel<float>(float*, int)"' "$tmp/raw"; then
		echo "FAIL: no demangled kernel name in protoc's reading"; fail=1
	else
		echo "ok: protoc --decode_raw reads it"
	fi
fi
# the closing line of the text report (stdout) names what this run wrote, and only that
"$GPUPERF" report -f perfetto "$tmp/rec" >"$tmp/out" 2>/dev/null
line=$(grep '^outputs in ' "$tmp/out")
case "$line" in
*"trace.pftrace (ui.perfetto.dev)") echo "ok: $line" ;;
*) echo "FAIL: report -f perfetto says: $line"; fail=1 ;;
esac
# with -q, only the timelines are built (no views, no idle gaps): the same trace
cmp -s "$tmp/rec/trace.pftrace" "$tmp/quiet.pftrace" ||
	{ echo "FAIL: report -q -f chrome,perfetto wrote another trace.pftrace than report -f perfetto"; fail=1; }
# a link in place of the output (to /dev/full): refused, exit 1 with the file named
if [ -w /dev/full ]; then
	rm -f "$tmp/rec/trace.pftrace"
	ln -s /dev/full "$tmp/rec/trace.pftrace"
	"$GPUPERF" report -q -f perfetto "$tmp/rec" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 1 ] || ! grep -q "cannot write '.*trace.pftrace'" "$tmp/err"; then
		echo "FAIL: full disk: exit $rc, $(cat "$tmp/err")"; fail=1
	else
		echo "ok: full disk: $(cat "$tmp/err")"
	fi
fi
exit $fail
