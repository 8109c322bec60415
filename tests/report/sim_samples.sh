#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# sim_samples.sh - `gpuperf record --cpu` + `gpuperf report` on each sample, on the CUDA
# simulator, checked exactly against the simulator's log (check_sim.py); its
# trace.json passes check_trace_json.py; each
# sample's trace.pftrace shows what its trace.json shows (check_pftrace.py: graph
# launches' flows through their kernels, many streams, real symbols); FlameGraph's
# flamegraph.pl reads each folded file, and `go tool pprof` each profile.pb.gz,
# without a warning.
# usage: sim_samples.sh GPUPERF SAMPLES_BIN_DIR SAMPLES_SRC_DIR PYTHON
# env: LD_LIBRARY_PATH (the simulator), GPUPERF_REQUIRE_BPF=1 to fail instead of skip,
#      FLAMEGRAPH_PL (flamegraph.pl; required when CI is set).
set -u
GPUPERF=$1
BIN=$2
SRC=$3
PYTHON=$4
HERE=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" -ne 0 ]; then
	[ "${GPUPERF_REQUIRE_BPF:-}" = 1 ] && { echo "FAIL: needs root for eBPF (GPUPERF_REQUIRE_BPF=1)"; exit 1; }
	echo "SKIP: needs root for eBPF"; exit 77
fi
if [ -z "${FLAMEGRAPH_PL:-}" ] && [ -n "${CI:-}" ]; then
	echo "FAIL: no flamegraph.pl (install libdevel-nytprof-perl)"; exit 1
fi
[ -n "${FLAMEGRAPH_PL:-}" ] || echo "note: no flamegraph.pl: folded files not read by it"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# FlameGraph's reader on every folded file: exit 0, an SVG, and nothing on stderr
# (it warns "Ignored N lines with invalid format" and refuses an empty input).
flamegraph_pl() {
	[ -n "${FLAMEGRAPH_PL:-}" ] || return 0
	n=0
	for f in "$1"/*.folded; do
		[ -e "$f" ] || continue
		if ! env -u LD_PRELOAD perl "$FLAMEGRAPH_PL" --countname ns "$f" >"$tmp/fg.svg" 2>"$tmp/fg.err" ||
			[ -s "$tmp/fg.err" ] || ! grep -q '</svg>' "$tmp/fg.svg"; then
			echo "FAIL: $2: flamegraph.pl on $(basename "$f"):"
			sed 's/^/  /' "$tmp/fg.err" | head -3; fail=1
		fi
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || { echo "FAIL: $2: no folded file"; fail=1; }
}

# pprof's own reader on profile.pb.gz: every sample listed, nothing on stderr. It
# never symbolizes or fetches: HOME and its paths point into $tmp.
pprof_read() {
	command -v go >/dev/null 2>&1 || return 0
	if [ ! -s "$1/profile.pb.gz" ] ||
		! HOME=$tmp PPROF_TMPDIR=$tmp PPROF_BINARY_PATH=$tmp GOTOOLCHAIN=local \
			env -u LD_PRELOAD go tool pprof -symbolize=none -raw "$1/profile.pb.gz" \
			>"$tmp/pp.out" 2>"$tmp/pp.err" || [ -s "$tmp/pp.err" ] ||
		! grep -q '^Samples:' "$tmp/pp.out"; then
		echo "FAIL: $2: go tool pprof on profile.pb.gz:"
		sed 's/^/  /' "$tmp/pp.err" | head -3; fail=1
	fi
}

# sample NAME ARGS -- KERNEL=FUNCTION...
sample() {
	name=$1
	shift
	args=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do args="$args $1"; shift; done
	[ $# -gt 0 ] && shift
	d=$tmp/$name
	# shellcheck disable=SC2086
	if ! GPUPERF_SIM_LOG=$tmp/$name.jsonl "$GPUPERF" record --cpu -q -o "$d" -- "$BIN/${name}_shared" $args \
		>"$tmp/$name.out" 2>&1; then
		echo "FAIL: $name: record failed:"; sed 's/^/  /' "$tmp/$name.out" | tail -5; fail=1; return
	fi
	if ! "$GPUPERF" report -q "$d" 2>"$tmp/$name.err"; then
		echo "FAIL: $name: report failed:"; sed 's/^/  /' "$tmp/$name.err" | tail -5; fail=1; return
	fi
	if out=$(env -u LD_PRELOAD "$PYTHON" "$HERE/check_sim.py" "$d" "$tmp/$name.jsonl" "$SRC" "$@"); then
		echo "ok: $name: $out"
	else
		echo "FAIL: $name:"; echo "$out" | sed 's/^/  /' | head -20; fail=1
	fi
	flamegraph_pl "$d" "$name"
	# where its user stacks ended: all samples' counts are summed at the end
	env -u LD_PRELOAD "$PYTHON" -c '
import json, sys
e = json.load(open(sys.argv[1])).get("stack_ends") or {}
why = " ".join("%s=%d" % kv for kv in (e.get("reasons") or {}).items() if kv[1])
print(e.get("stacks", 0), e.get("root", 0), sys.argv[2], why)' "$d/summary.json" "$name" >>"$tmp/stack_ends"
	pprof_read "$d" "$name"
	# slices of one track nest: no kernel on a stream starts before the one before it ends
	if ! out=$(env -u LD_PRELOAD "$PYTHON" "$HERE/../merger/check_trace_json.py" "$d/trace.json" 2>&1); then
		echo "FAIL: $name: trace.json:"; echo "$out" | sed 's/^/  /' | head -5; fail=1
	fi
	if ! "$GPUPERF" report -q -f chrome,perfetto "$d" 2>"$tmp/$name.err" ||
		! out=$(env -u LD_PRELOAD "$PYTHON" "$HERE/../merger/check_pftrace.py" "$d/trace.pftrace" \
			--json "$d/trace.json"); then
		echo "FAIL: $name: trace.pftrace:"; echo "$out" | sed 's/^/  /'; fail=1
	fi
}

sample vector_add -- vector_add_kernel=launch_vector_add
sample train_step -- sgd_kernel=launch_sgd gemm_tn_kernel=launch_gemm_weight_grad \
	gemm_nt_kernel=launch_gemm_input_grad bias_grad_kernel=launch_bias_grad \
	relu_grad_kernel=launch_relu_grad mse_grad_kernel=launch_mse_grad \
	reduce_sum_kernel=launch_reduce_sum bias_act_kernel=launch_bias_act gemm_nn_kernel=launch_gemm
sample multi_stream 8 -- 'scale_kernel=launch_scale(' 'offset_kernel=launch_offset('
# three cudaMemcpy calls of one function, HtoD, DtoD, DtoH: three sites, one per line
sample memcpy_bench -- @copy_pageable_sync=75,76,77 @copy_pinned_async=106,108,109
sample driver_api -- saxpy=launch_saxpy_
sample cuda_graph -- _kernel=replay_graph
# a graph built node by node: every node's work under the cudaGraphLaunch of replay_graph
sample graph_nodes -- _kernel=replay_graph
sample graph_conditional -- _kernel=replay_graph
sample host_callbacks -- produce_kernel=launch_produce consume_kernel=launch_consume
sample launch_loop 2000 -- 'tick=launch_tick('
sample managed_memory -- increment_kernel=launch_increment scale_kernel=launch_scale
# the last step captured (its allocation and free become graph memory nodes) and replayed
sample stream_alloc -- fill_kernel=launch_fill square_kernel=launch_square \
	offset_kernel=replay_scratch_graph
sample driver_module -- scale_rows=launch_from_cubin add_bias=launch_from_fatbin
sample expandable_memory -- fill_kernel=launch_fill
# its NVTX ranges go to the simulated CUPTI as the NVTX tool, as they would to CUPTI
for d in $(echo "${LD_LIBRARY_PATH:-}" | tr : ' '); do
	[ -e "$d/libcupti.so.13" ] && { NVTX_INJECTION64_PATH=$d/libcupti.so.13; break; }
done
if [ -n "${NVTX_INJECTION64_PATH:-}" ]; then
	export NVTX_INJECTION64_PATH
	sample nvtx_ranges -- forward_kernel=launch_forward activation_kernel=launch_activation
	grep -q '"type":"nvtx"' "$tmp/nvtx_ranges.jsonl" ||
		{ echo "FAIL: nvtx_ranges: no NVTX event reached the simulated CUPTI"; fail=1; }
	unset NVTX_INJECTION64_PATH
else
	echo "FAIL: nvtx_ranges: no libcupti.so.13 of the simulator on LD_LIBRARY_PATH"; fail=1
fi
# CFI exists for every module of the samples, whose libraries ld.so loads right
# after exec: their user stacks reach the thread's root (issue: >= 99% where CFI
# exists), though they are unwound when read, often after the sample has exited
# (the agent reads a process's mappings as it maps libraries, and soon after).
# What may still end early: a sample read after its process is gone, of a library
# mapped while the agent was busy (unknown_module: the agent is late, more so
# under sanitizers, 2-3x slower, where the bar is lower), and a copy that stops at
# a stack page never touched (bad_frame).
# A run with few stacks (the first of a fresh machine, its caches cold) may miss a
# couple: up to 3 short is allowed whatever the count. bad_frame is the copy's
# limit, not the unwinder's: it is held to a budget of its own (5% of the
# stacks, at least 3), as it came to 3 of 104 in a clean-clone run.
min=98
[ "${GPUPERF_TEST_SANITIZED:-}" = 1 ] && min=93
read -r n root bf <<EOF_ENDS
$(awk '{ n += $1; r += $2; for (i = 4; i <= NF; i++) if ($i ~ /^bad_frame=/) { sub(/^bad_frame=/, "", $i); b += $i } }
	END { print n + 0, r + 0, b + 0 }' "$tmp/stack_ends")
EOF_ENDS
# stacks that do not end at a bad frame, and how many of them reach the root
m=$((n - bf))
if { [ "$m" -gt 0 ] && [ $((m - root)) -gt 3 ] && [ $((root * 100)) -lt $((m * min)) ]; } ||
	{ [ "$bf" -gt 3 ] && [ $((bf * 100)) -gt $((n * 5)) ]; }; then
	echo "FAIL: $root of $n user stacks reach their thread's root (under $min% of the $m not ended by a bad frame, and more than 3 short; or more than 5% and 3 bad frames: $bf):"
	awk '$1 != $2 { print "  " $3 ": " $2 " of " $1 ", " $4 " " $5 " " $6 }' "$tmp/stack_ends"
	fail=1
else
	echo "ok: $root of $n user stacks reach their thread's root ($bf end at a bad frame)"
fi
exit $fail
