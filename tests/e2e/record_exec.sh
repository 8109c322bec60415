#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `gpuperf record` of a CUDA program that execs another CUDA image: each
# image keeps its own GPU trace, and the report counts every image's kernels
# under one pid named by the exec chain. Environment: record_lib.sh
# (GP_EXEC: tests/e2e/progs/exec_chain).
set -u
. "$(dirname "$0")/record_lib.sh"

need_sim
if [ -z "${GP_EXEC:-}" ] || [ ! -x "$GP_EXEC" ]; then
	echo "SKIP [$name]: exec_chain not built (needs nvcc)"
	exit 77
fi

# The second image under its own name: comm is the name it was exec'd by.
ln -s "$GP_EXEC" exec_second
# A short flush period: the first image waits for two flushes before it execs.
GPUPERF_FLUSH_MS=50 sim "$GP" record -q -o ex -- "$GP_EXEC" 5 7 "$work/exec_second" \
	>out.txt 2>err.txt
expect_status 0 $? "record exec_chain"
pid=$(sed -n 's/^exec_chain: pid \([0-9]*\) 7 kernels ok$/\1/p' out.txt)
[ -n "$pid" ] || fail "the second image did not finish: $(cat out.txt err.txt)"
pid=${pid:-0}

# --- one trace per image: gpu-PID.trace (5 kernels), gpu-PID.1.trace (7, closed)
if [ -f "ex/gpu-$pid.trace" ] && [ -f "ex/gpu-$pid.1.trace" ]; then
	a=$(kernels "ex/gpu-$pid.trace")
	b=$(kernels "ex/gpu-$pid.1.trace")
	[ "$a/$b" = 5/7 ] && ok "each image's trace: 5 and 7 kernels" ||
		fail "kernels per image: $a/$b, expected 5/7"
	clean_end "ex/gpu-$pid.1.trace" || fail "the last image's trace not closed"
else
	fail "expected gpu-$pid.trace and gpu-$pid.1.trace, got: $(ls ex)"
fi

# --- the report: 12 kernels, one process named by its chain, each call its own kernels
"$GP" report -q ex >rep.txt 2>&1 || fail "report failed: $(cat rep.txt)"
s=ex/summary.json
if json_ok $s; then
	n=$(json $s 'sum(k["count"] for k in d["kernels"])')
	[ "$n" = 12 ] && ok "summary.json counts 12 kernels" || fail "summary.json counts $n kernels, expected 12"
	comm=$(json $s '[p["comm"] for p in d["processes"] if p["pid"] == '"$pid"']')
	[ "$comm" = "['exec_chain -> exec_second']" ] && ok "the process is named by its exec chain" ||
		fail "process $pid: comm $comm, expected ['exec_chain -> exec_second']"
	[ "$(json $s 'd["join"]["with_api"] == d["join"]["gpu_records"]')" = True ] ||
		fail "not every GPU record joined its API call: $(json $s 'd["join"]')"
	files=$(json $s 'sorted(f["file"] for f in d["clock_alignment"])')
	[ "$files" = "['gpu-$pid.1.trace', 'gpu-$pid.trace']" ] || fail "clock_alignment files: $files"
else
	fail "no summary.json"
fi
# CUPTI counts correlation ids from 1 in each image: a kernel of the second
# image must not join a call of the first one with the same id.
bad=$(grep '\[gpu\] exec_tick_kernel' ex/gpu.folded | grep -v ';__cudaLaunchKernel;\[gpu\]')
[ -z "$bad" ] && ok "every kernel under the launch that issued it" ||
	fail "kernels joined to the wrong call: $bad"
grep -q "gpu-$pid.trace.*exec'd" rep.txt ex/summary.json &&
	ok "the first image's missing end mark is put down to the exec" ||
	fail "no note that gpu-$pid.trace ended in an exec: $(grep -h 'end mark' rep.txt ex/summary.json)"

finish
