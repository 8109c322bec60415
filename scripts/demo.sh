#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's demo: profile a sample CUDA program (a small "training step")
# with `gpuperf --cpu` and show where the outputs are. On a machine without a
# GPU it runs on the CUDA simulator from tests/sim and says so; without root
# it records the GPU side only (`gpuperf record` + `gpuperf report`) and says so.
#
# usage: scripts/demo.sh [BUILD_DIR]      (default: build)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
gpuperf=$build/cli/gpuperf
sample=train_step_shared

die() { echo "demo: $*" >&2; exit 1; }

[ -x "$gpuperf" ] || die "no gpuperf in '$build': build first (cmake -S . -B build && cmake --build build)"
[ -x "$build/samples/$sample" ] || die "no samples in '$build': the CUDA Toolkit (nvcc) is needed to build them"

out=$(mktemp -d "${TMPDIR:-/tmp}/gpuperf-demo.XXXXXX")
rmdir "$out"
env_run=()
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
	echo "demo: GPU found: $(nvidia-smi -L | head -n 1)"
else
	simlib=$build/tests/sim/lib
	[ -e "$simlib/libcudart.so.13" ] || die "no GPU and no CUDA simulator in '$simlib' (configure with -DGPUPERF_BUILD_TESTS=ON)"
	echo "demo: no GPU on this machine: running on the CUDA simulator (test equipment that"
	echo "      replays the CUDA/CUPTI contract with known kernel durations; kernels compute nothing)"
	env_run+=("LD_LIBRARY_PATH=$simlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		"GPUPERF_SIM_KERNEL_NS=gemm_nn_kernel=400000,gemm_tn_kernel=300000,gemm_nt_kernel=300000,sgd_kernel=80000")
fi

if [ "$(id -u)" -eq 0 ]; then
	echo "demo: \$ gpuperf --cpu -o $out $sample 20"
	env "${env_run[@]}" "$gpuperf" --cpu -o "$out" "$build/samples/$sample" 20
else
	echo "demo: not root: recording the GPU side only (the CPU side needs root or CAP_BPF+CAP_PERFMON;"
	echo "      run 'sudo $0' for launch stacks, on-CPU and off-CPU time)"
	echo "demo: \$ gpuperf record -o $out $sample 20 && gpuperf report $out"
	env "${env_run[@]}" "$gpuperf" record -o "$out" "$build/samples/$sample" 20
	"$gpuperf" report "$out"
fi
echo
echo "demo: open $out/profile.svg in a browser, $out/trace.json in https://ui.perfetto.dev"
