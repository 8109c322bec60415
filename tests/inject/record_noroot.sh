#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# record_noroot.sh - `gpuperf record` (no --cpu) + `gpuperf report` of every sample on the
# CUDA simulator, run as an unprivileged user (uid/gid 65534): the launch stacks come from
# the injection library alone. Checked exactly against the simulator's log
# (tests/report/check_sim.py: join rate 1, each kernel under the function that launched
# it, launch sites' file:line), plus: the launch stacks are the trace's own (api_stack
# records, no cpu.trace), profile.svg is written, trace.json draws each launch's flow, and
# every memcpy and memset sits under the function that asked for it.
# usage: record_noroot.sh GPUPERF SAMPLES_BIN_DIR SAMPLES_SRC_DIR PYTHON
# env: LD_LIBRARY_PATH (the simulator); GPUPERF_STACKS_FP=1 shows what a frame-pointer walk gives.
set -u
GPUPERF=$1
BIN=$2
SRC=$3
PYTHON=$4
HERE=$(cd "$(dirname "$0")" && pwd)
CHECK=$HERE/../report/check_sim.py
[ -x "$BIN/vector_add_shared" ] || { echo "SKIP: samples not built"; exit 77; }
if [ "$(id -u)" -eq 0 ]; then
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
else
	AS="" # already unprivileged
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp"
fail=0

# sample NAME ARGS -- KERNEL=FUNCTION...
sample() {
	name=$1
	shift
	args=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do args="$args $1"; shift; done
	[ $# -gt 0 ] && shift
	d=$tmp/$name
	# shellcheck disable=SC2086
	if ! $AS env GPUPERF_SIM_LOG="$tmp/$name.jsonl" "$GPUPERF" record -q -o "$d" -- \
		"$BIN/${name}_shared" $args >"$tmp/$name.out" 2>&1; then
		echo "FAIL: $name: record failed:"; sed 's/^/  /' "$tmp/$name.out" | tail -5; fail=1; return
	fi
	if [ -e "$d/cpu.trace" ] || ! "$GPUPERF" dump "$d"/gpu-*.trace | grep -q '^api_stack'; then
		echo "FAIL: $name: the launch stacks are not the GPU trace's own"; fail=1; return
	fi
	if ! $AS "$GPUPERF" report -q "$d" 2>"$tmp/$name.err" ||
		! $AS "$GPUPERF" report -q -f chrome "$d" 2>"$tmp/$name.err"; then
		echo "FAIL: $name: report failed:"; sed 's/^/  /' "$tmp/$name.err" | tail -5; fail=1; return
	fi
	if ! grep -q '"flow_out":true' "$d/trace.json" || ! [ -s "$d/profile.svg" ]; then
		echo "FAIL: $name: no flows in trace.json, or no profile.svg"; fail=1; return
	fi
	if out=$(env -u LD_PRELOAD "$PYTHON" "$CHECK" "$d" "$tmp/$name.jsonl" "$SRC" "$@"); then
		echo "ok: $name: $out"
	else
		echo "FAIL: $name:"; echo "$out" | sed 's/^/  /' | head -20; fail=1
	fi
}

sample vector_add -- vector_add_kernel=launch_vector_add
sample train_step -- sgd_kernel=launch_sgd gemm_tn_kernel=launch_gemm_weight_grad \
	gemm_nt_kernel=launch_gemm_input_grad bias_grad_kernel=launch_bias_grad \
	relu_grad_kernel=launch_relu_grad mse_grad_kernel=launch_mse_grad \
	reduce_sum_kernel=launch_reduce_sum bias_act_kernel=launch_bias_act gemm_nn_kernel=launch_gemm
# launch_sgd launches from two lines of optimizer_step: two sites, told apart by their caller
"$GPUPERF" report -f json -o "$tmp/train_step_text" "$tmp/train_step" >"$tmp/train_step.txt" 2>&1
n=$(grep -Ec 'launch_sgd\(.*\(train_step\.cu:[0-9]+\) <- optimizer_step\(model\*\) \(train_step\.cu:[0-9]+\) -> ' "$tmp/train_step.txt")
lines=$(grep -Eo '<- optimizer_step\(model\*\) \(train_step\.cu:[0-9]+\)' "$tmp/train_step.txt" | sort -u | wc -l)
if [ "$n" = 2 ] && [ "$lines" = 2 ]; then
	echo "ok: train_step: launch_sgd's two sites in the text report, each with its caller's line"
else
	echo "FAIL: train_step: launch_sgd's sites in the text report:"; grep launch_sgd "$tmp/train_step.txt"; fail=1
fi
sample multi_stream 8 -- 'scale_kernel=launch_scale(' 'offset_kernel=launch_offset('
sample memcpy_bench
# each copy and fill under the function that asked for it (samples/memcpy_bench.cu)
if ! out=$(env -u LD_PRELOAD "$PYTHON" - "$tmp/memcpy_bench/gpu.folded" <<'EOF'
import sys
want = {  # (api, leaf) -> the functions that make that call
    ("cudaMemcpy", "[memcpy HtoD]"): {"copy_pageable_sync", "copy_pinned_sync"},
    ("cudaMemcpy", "[memcpy DtoD]"): {"copy_pageable_sync"},
    ("cudaMemcpy", "[memcpy DtoH]"): {"copy_pageable_sync", "copy_pinned_sync", "fill_memset"},
    ("cudaMemcpyAsync", "[memcpy HtoD]"): {"copy_pageable_async", "copy_pinned_async"},
    ("cudaMemcpyAsync", "[memcpy DtoD]"): {"copy_pinned_async"},
    ("cudaMemcpyAsync", "[memcpy DtoH]"): {"copy_pageable_async", "copy_pinned_async"},
    ("cudaMemset", "[memset]"): {"fill_memset"},
    ("cudaMemsetAsync", "[memset]"): {"fill_memset"},
    ("cudaMemcpy2D", "[memcpy HtoD]"): {"copy_pitched_array"},
    ("cudaMemcpy2DToArray", "[memcpy DtoA]"): {"copy_pitched_array"},
    ("cudaMemcpy2DFromArray", "[memcpy AtoH]"): {"copy_pitched_array"},
}
seen, bad = set(), []
for line in open(sys.argv[1]):
    f = line.rpartition(" ")[0].split(";")
    key, fn = (f[-2], f[-1]), f[-3].split("(")[0]
    if key not in want or fn not in want[key]:
        bad.append(f"{key[1]} by {key[0]} under {fn}")
    seen.add(key)
bad += [f"no {k[1]} by {k[0]}" for k in want if k not in seen]
print("; ".join(bad) if bad else "every copy and fill under its function")
sys.exit(1 if bad else 0)
EOF
); then
	echo "FAIL: memcpy_bench: $out"; fail=1
else
	echo "ok: memcpy_bench: $out"
fi
sample driver_api -- saxpy=launch_saxpy_
sample cuda_graph -- _kernel=replay_graph
sample graph_nodes -- _kernel=replay_graph
sample host_callbacks -- produce_kernel=launch_produce consume_kernel=launch_consume
sample launch_loop 2000 -- 'tick=launch_tick('
sample managed_memory -- increment_kernel=launch_increment scale_kernel=launch_scale
sample stream_alloc -- fill_kernel=launch_fill square_kernel=launch_square
sample driver_module -- scale_rows=launch_from_cubin add_bias=launch_from_fatbin
exit $fail
