#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The injection library's checks on real CUDA: needs a GPU (nvidia-smi), else exits 77 (skipped).
#
# usage: gpu.sh BUILD_DIR
#   BUILD_DIR: a gpuperf build with samples (nvcc) and tests (trace_check).
# Runs every sample (static cudart, nvcc's default, and the libcudart.so
# build) with libgpuperf_inject.so as CUDA_INJECTION64_PATH, then with
# LD_PRELOAD, and checks each trace with trace_check --no-truth: the counts
# the sample reports, every GPU record joined to an API record that started
# before it, graph kernels joined to the graph launch, MONOTONIC times inside
# the run, no drops, a clean end. Also the exit paths of exit_paths
# (signals, fork, reset) and CUPTI being refused. Then `gpuperf report` of the
# GPU-only traces of some samples: trace.json and trace.pftrace read back and
# equal (check_trace_json.py, check_pftrace.py), with real CUPTI's kernel
# names, launch configurations and graph records (a graph launch's arrows
# to each of its kernels in both), and read by Perfetto's own trace
# processor where the run has one: GPUPERF_TRACE_PROCESSOR, else
# trace_processor_shell or trace_processor on PATH, else
# BUILD_DIR/trace_processor_shell (carried with the build to a GPU
# machine that cannot download it). As root, also `gpuperf record
# --cpu` + `report` of train_step: every kernel joined to the CPU stack that
# launched it. Without root's help (as nobody, no --cpu): `gpuperf record` of
# train_step by both routes, every kernel under the launch stack the injection
# library took. Then the figures of bench_inject (launch stacks off and on)
# and of record --cpu against record on launch_loop. Run it whenever a GPU is
# at hand and put what it printed in the change's note.
set -u
build=${1:-build}
lib="$build/cupti_inject/libgpuperf_inject.so"
check="$build/tests/inject/trace_check"
samples="$build/samples"
exitp="$build/tests/inject/exit_paths"
work="$build/tests/e2e/gpu-work"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "SKIP: no GPU (nvidia-smi does not work)"
	exit 77
fi
for f in "$lib" "$check" "$samples/vector_add"; do
	[ -e "$f" ] || { echo "FAIL: $f is not built"; exit 1; }
done
# The simulator must not be in the way.
unset LD_LIBRARY_PATH GPUPERF_SIM_LOG
rm -rf "$work"
mkdir -p "$work"
failures=0

fail() {
	echo "FAIL [$1]: $2"
	failures=$((failures + 1))
}

# run NAME ROUTE EXE ARGS... -- CHECK_OPTS...: one traced run and its check.
run() {
	name=$1 route=$2 exe=$3
	shift 3
	args=""
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do args="$args $1"; shift; done
	[ $# -gt 0 ] && shift
	d="$work/$name-$route"
	mkdir -p "$d"
	if [ "$route" = preload ]; then
		# shellcheck disable=SC2086
		GPUPERF_DIR="$d" LD_PRELOAD="$lib" "$exe" $args >"$d/stdout.txt" 2>"$d/stderr.txt"
	else
		# shellcheck disable=SC2086
		GPUPERF_DIR="$d" CUDA_INJECTION64_PATH="$lib" "$exe" $args \
			>"$d/stdout.txt" 2>"$d/stderr.txt"
	fi
	rc=$?
	[ $rc -eq 0 ] || { fail "$name/$route" "exit status $rc: $(tail -3 "$d/stderr.txt")"; return; }
	[ -s "$d/stderr.txt" ] && fail "$name/$route" "stderr: $(head -3 "$d/stderr.txt")"
	# a fork child's trace (exit_paths fork prints "child PID status 0") is checked apart
	child=$(sed -n 's/^child \([0-9]*\) status 0$/\1/p' "$d/stdout.txt")
	if [ -n "$child" ]; then
		# it reads and holds no GPU work (CUDA is unusable after fork): trace_check's
		# counts, not its status, which asks for records
		"$check" --no-truth "$d/gpu-$child.trace" /dev/null >"$d/child.txt" 2>&1
		if grep -q "api=0 kernel=0 memcpy=0" "$d/child.txt" && grep -q "end=1" "$d/child.txt"; then
			echo "ok   $name/$route child: its trace reads, closed, with no GPU work"
		else
			fail "$name/$route" "child trace: $(cat "$d/child.txt")"
		fi
		mv "$d/gpu-$child.trace" "$d/child.trace.bin"
	fi
	# (the check's options stay in "$@": the trace is found without set --)
	trace=$(ls "$d"/gpu-*.trace 2>/dev/null)
	[ "$(printf '%s\n' "$trace" | grep -c .)" -eq 1 ] ||
		{ fail "$name/$route" "expected one trace, found: $trace"; return; }
	if "$check" --no-truth "$@" "$trace" /dev/null >"$d/check.txt" 2>&1; then
		echo "ok   $name/$route: $(tail -1 "$d/check.txt")"
	else
		fail "$name/$route" "$(cat "$d/check.txt")"
	fi
}

# Counts each sample reports on its summary line (see samples/README.md).
for route in injection preload; do
	for v in "" _shared; do
		# LD_PRELOAD only starts in a process that maps libcudart/libcuda at
		# start-up; a static-cudart program needs CUDA_INJECTION64_PATH.
		[ "$route" = preload ] && [ -z "$v" ] && continue
		run vector_add$v $route "$samples/vector_add$v" -- --kernels 1 --memcpys 3
		run train_step$v $route "$samples/train_step$v" -- --kernels 120
		run multi_stream$v $route "$samples/multi_stream$v" 8 -- \
			--kernels 256 --memcpys 256 --min-threads 8
		run memcpy_bench$v $route "$samples/memcpy_bench$v" -- \
			--kernels 0 --memcpys 120 --memsets 16
		run driver_api$v $route "$samples/driver_api$v" -- --kernels 20
		run cuda_graph$v $route "$samples/cuda_graph$v" -- --graph --kernels 80
		run launch_loop$v $route "$samples/launch_loop$v" 20000 -- --kernels 20000
	done
done
# The samples of the simulator's newer areas (graphs built node by node, host
# functions, managed memory, stream-ordered allocation, a driver-API program
# loading a cubin and a fatbin, a buffer grown through virtual memory, NVTX ranges): each prints "ok" only when its results are
# right; the trace's joins, times and end are checked, counts left to CUDA.
for v in "" _shared; do
	for s in graph_nodes graph_conditional host_callbacks managed_memory stream_alloc driver_module \
		expandable_memory nvtx_ranges; do
		[ -x "$samples/$s$v" ] || continue
		opts=""
		case $s in graph_nodes | graph_conditional | stream_alloc) opts="--graph" ;; esac
		# shellcheck disable=SC2086
		run $s$v injection "$samples/$s$v" -- $opts
		grep -q ' ok$' "$work/$s$v-injection/stdout.txt" 2>/dev/null ||
			fail "$s$v" "no ok line: $(tail -2 "$work/$s$v-injection/stdout.txt" 2>/dev/null)"
	done
done
# NVTX ranges with CUPTI as the NVTX tool (NVTX_INJECTION64_PATH naming libcupti, as
# CUPTI's documentation sets it up): the launches inside them stay joined and counted.
cupti_so=""
for c in "${CUDA_HOME:-/usr/local/cuda}/extras/CUPTI/lib64/libcupti.so.13" \
	"${CUDA_HOME:-/usr/local/cuda}/lib64/libcupti.so.13" \
	$(ldconfig -p 2>/dev/null | awk '/libcupti\.so\.13 / { print $NF }'); do
	[ -e "$c" ] && { cupti_so=$c; break; }
done
if [ -n "$cupti_so" ]; then
	export NVTX_INJECTION64_PATH="$cupti_so"
	for v in "" _shared; do
		# 8 copies in, and on a GPU the 2 of verify() out
		run nvtx_ranges$v-nvtx-tool injection "$samples/nvtx_ranges$v" -- --kernels 16 --memcpys 10
	done
	unset NVTX_INJECTION64_PATH
else
	echo "note nvtx_ranges: no libcupti.so.13 found: not run with CUPTI as the NVTX tool"
fi
# Whether CUPTI gives memory records for virtual memory (cuMemCreate, cuMemMap) is
# not documented, and the simulator gives none: say what this driver gave (the
# library's own records end in "from_call"; any other is CUPTI's).
for v in "" _shared; do
	for t in "$work"/expandable_memory$v-injection/gpu-*.trace; do
		[ -f "$t" ] || continue
		echo "note expandable_memory$v: memory records (4 chunks created and mapped):"
		"$build/cli/gpuperf" dump "$t" | grep '^memory' | sed 's/^/  /' | head -20
	done
done

if [ -x "$exitp" ]; then
	# work() = 1 HtoD + 1 DtoH copy, 1 memset, N kernels.
	run exit_return injection "$exitp" return 0 -- --kernels 8 --memcpys 2 --memsets 1
	run exit_thread injection "$exitp" thread-exit -- --kernels 10 --memcpys 4 --memsets 2
	run exit_reset injection "$exitp" reset -- --kernels 12 --memcpys 4 --memsets 2
	run exit_fork injection "$exitp" fork -- --kernels 12 --memcpys 4 --memsets 2
	for sig in INT TERM; do
		d="$work/signal-$sig"
		mkdir -p "$d"
		GPUPERF_DIR="$d" CUDA_INJECTION64_PATH="$lib" "$exitp" wait >"$d/stdout.txt" 2>&1 &
		pid=$!
		i=0
		while ! grep -q '^ready' "$d/stdout.txt" && [ $i -lt 600 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		kill -"$sig" $pid
		wait $pid
		rc=$?
		case $sig in INT) expect=130 ;; TERM) expect=143 ;; esac
		[ $rc -eq $expect ] || fail "signal-$sig" "exit status $rc, expected $expect"
		if "$check" --no-truth --kernels 16 --memcpys 2 --memsets 1 "$d"/gpu-$pid.trace \
			/dev/null >"$d/check.txt" 2>&1; then
			echo "ok   signal-$sig: $(tail -1 "$d/check.txt")"
		else
			fail "signal-$sig" "$(cat "$d/check.txt")"
		fi
	done
	d="$work/no-cupti"
	mkdir -p "$d"
	GPUPERF_DIR="$d" GPUPERF_CUPTI_LIB=/nonexistent/libcupti.so CUDA_INJECTION64_PATH="$lib" \
		"$exitp" return 5 >/dev/null 2>"$d/stderr.txt"
	rc=$?
	if [ $rc -ne 5 ] || [ "$(wc -l <"$d/stderr.txt")" -ne 1 ]; then
		fail no-cupti "status $rc, stderr: $(cat "$d/stderr.txt")"
	else
		echo "ok   no-cupti: $(cat "$d/stderr.txt")"
	fi
fi

# The report of real CUDA traces (GPU only: no eBPF here), both timelines.
here=$(cd "$(dirname "$0")" && pwd)
tp=${GPUPERF_TRACE_PROCESSOR:-}
[ -n "$tp" ] || tp=$(command -v trace_processor_shell || command -v trace_processor || true)
[ -n "$tp" ] || { [ -x "$build/trace_processor_shell" ] && tp="$build/trace_processor_shell"; }
if [ -n "$tp" ]; then
	echo "trace processor: $tp ($("$tp" --version 2>&1 | head -1))"
else
	echo "trace processor: none (set GPUPERF_TRACE_PROCESSOR or put one at $build/trace_processor_shell)"
fi
for name in train_step_shared-injection multi_stream_shared-injection cuda_graph_shared-injection; do
	d="$work/$name"
	[ -d "$d" ] || continue
	if ! "$build/cli/gpuperf" report -q -f chrome,perfetto,json "$d" 2>"$d/report.txt"; then
		fail "report/$name" "$(cat "$d/report.txt")"
	elif ! out=$(python3 "$here/../merger/check_trace_json.py" "$d/trace.json" 2>&1); then
		fail "report/$name" "trace.json: $out"
	elif ! out=$(python3 "$here/../merger/check_pftrace.py" "$d/trace.pftrace" --json "$d/trace.json" 2>&1); then
		fail "report/$name" "trace.pftrace: $out"
	elif [ -n "$tp" ] && ! out=$(python3 "$here/../report/pftrace_tp.py" "$tp" "$d/trace.pftrace" \
		"$d/trace.json" 2>&1); then
		fail "report/$name" "trace processor: $out"
	else
		echo "ok   report/$name: $out"
	fi
done

# check_launch_stacks DIR: every GPU record joined to a launch stack, each
# kernel in gpu.folded right under the launch_* function that launched it.
check_launch_stacks() {
	python3 - "$1" <<'PY'
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
assert s["join"]["rate"] == 1, "join rate %s" % s["join"]
kernels = 0
for line in open(d + "/gpu.folded"):
    stack, _, ns = line.rpartition(" ")
    frames = stack.split(";")
    k = [i for i, f in enumerate(frames) if f.startswith("[gpu] ")]
    if not k:
        continue
    kernels += 1
    # [gpu] kernel under the API frame (cudaLaunchKernel, __cudaLaunchKernel, ...) under launch_*
    assert k[0] >= 2 and frames[k[0] - 2].startswith("launch_"), "kernel not under launch_*: " + stack
assert kernels > 0, "no kernel in gpu.folded"
print("join rate 1.0, %d kernel stacks under launch_* functions" % kernels)
PY
}

# The whole tool as a user runs it (root: eBPF): record --cpu + report of
# train_step; every GPU record joined to its launch stack, and each kernel
# in gpu.folded right under the launch_* function of the sample that
# launched it, as on the simulator (tests/report/sim_samples.sh).
if [ "$(id -u)" -ne 0 ] || [ ! -x "$build/cli/gpuperf" ]; then
	echo "skip record --cpu: needs root and the gpuperf command"
elif ! "$build/cli/gpuperf" record --cpu -q -o "$work/record-probe" -- true \
	>"$work/record-probe.txt" 2>&1; then
	echo "skip record --cpu: eBPF unavailable here: $(tail -1 "$work/record-probe.txt")"
else
	d="$work/record-train_step"
	rm -rf "$d"
	if ! GPUPERF_INJECT_LIB="$lib" "$build/cli/gpuperf" record --cpu -q -o "$d" -- \
		"$samples/train_step_shared" >"$work/record.txt" 2>&1; then
		fail record "$(tail -5 "$work/record.txt")"
	elif ! "$build/cli/gpuperf" report -q "$d" 2>"$work/record-report.txt"; then
		fail record "report: $(cat "$work/record-report.txt")"
	elif ! out=$(check_launch_stacks "$d" 2>&1); then
		fail record "$out"
	else
		echo "ok   record --cpu train_step: $out"
	fi
fi

# Launch stacks without root (issue: launch stacks in the program itself):
# `gpuperf record` without --cpu as an unprivileged user, both routes (static
# cudart, nvcc's default, and libcudart.so): every GPU record joined to the
# stack the injection library took, each kernel under a launch_* function.
nobody_run=""
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	nobody_run="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 1777 "$work"
fi
for exe in train_step train_step_shared; do
	d="$work/noroot-$exe"
	[ -x "$samples/$exe" ] || continue
	# shellcheck disable=SC2086
	if ! $nobody_run env GPUPERF_INJECT_LIB="$lib" "$build/cli/gpuperf" record -q -o "$d" -- \
		"$samples/$exe" >"$work/noroot-$exe.txt" 2>&1; then
		fail "noroot/$exe" "$(tail -5 "$work/noroot-$exe.txt")"
	elif [ -e "$d/cpu.trace" ] || ! "$build/cli/gpuperf" dump "$d"/gpu-*.trace | grep -q '^api_stack'; then
		fail "noroot/$exe" "the GPU trace carries no launch stacks"
	elif ! $nobody_run "$build/cli/gpuperf" report -q "$d" 2>"$work/noroot-$exe-report.txt"; then
		fail "noroot/$exe" "report: $(cat "$work/noroot-$exe-report.txt")"
	elif ! out=$(check_launch_stacks "$d" 2>&1); then
		fail "noroot/$exe" "$out"
	else
		echo "ok   record (${nobody_run:+as nobody, }no --cpu) $exe: $out"
	fi
done

# What launch stacks cost on real CUPTI (bench/inject, both routes): the
# launching thread's CPU per launch against the reference client, stacks off
# and on. Figures only: put them in the note and bench/RESULTS.md.
bench="$build/bench/inject/bench_inject"
ref="$build/bench/inject/libgpuperf_bench_ref_client.so"
if [ -x "$bench" ] && [ -e "$ref" ]; then
	for exe in launch_loop launch_loop_shared; do
		[ -x "$samples/$exe" ] || continue
		echo "bench_inject $exe (200000 launches, 5 rounds):"
		"$bench" -e "$samples/$exe" -i "$lib" -c "$ref" -n 200000 -r 5 2>&1 |
			grep -E '^(added|launch stacks|ratios|libgpuperf)' | sed 's/^/  /'
	done
fi
# record --cpu against record on launch_loop (root): the CPU side adds no cost per launch
if [ -n "$nobody_run" ] && [ -x "$samples/launch_loop_shared" ]; then
	for mode in record cpu; do
		best=""
		for _ in 1 2 3; do
			t0=$(date +%s%N)
			if [ "$mode" = cpu ]; then
				GPUPERF_INJECT_LIB="$lib" "$build/cli/gpuperf" record --cpu -q --force \
					-o "$work/cost-$mode" -- "$samples/launch_loop_shared" 1000000 >/dev/null 2>&1
			else
				GPUPERF_INJECT_LIB="$lib" "$build/cli/gpuperf" record -q --force \
					-o "$work/cost-$mode" -- "$samples/launch_loop_shared" 1000000 >/dev/null 2>&1
			fi
			t=$(( ($(date +%s%N) - t0) / 1000000 ))
			[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
		done
		eval "best_$mode=$best"
	done
	echo "launch_loop_shared 1000000: record ${best_record} ms, record --cpu ${best_cpu} ms (best of 3)"
fi

nvidia-smi -L
if [ $failures -ne 0 ]; then
	echo "gpu.sh: $failures failure(s)"
	exit 1
fi
echo "gpu.sh: all checks passed"
