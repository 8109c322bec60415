#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's demo: run a sample CUDA program (a small "training step") with
# the gpuperf injection library and show what was recorded. On a machine
# without a GPU it uses the CUDA simulator from tests/sim and says so.
#
# usage: scripts/demo.sh [BUILD_DIR]      (default: build)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
gpuperf=$build/cli/gpuperf
inject=$build/cupti_inject/libgpuperf_inject.so
sample=train_step_shared

die() { echo "demo: $*" >&2; exit 1; }

[ -x "$gpuperf" ] || die "no gpuperf in '$build': build first (cmake -S . -B build && cmake --build build)"
[ -x "$build/samples/$sample" ] || die "no samples in '$build': the CUDA Toolkit (nvcc) is needed to build them"

out=$(mktemp -d "${TMPDIR:-/tmp}/gpuperf-demo.XXXXXX")
env_run=()
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
	echo "demo: GPU found: $(nvidia-smi -L | head -n 1)"
else
	simlib=$build/tests/sim/lib
	[ -e "$simlib/libcudart.so.13" ] || die "no GPU and no CUDA simulator in '$simlib' (configure with -DGPUPERF_BUILD_TESTS=ON)"
	echo "demo: no GPU on this machine: running on the CUDA simulator (test equipment that"
	echo "      replays the CUDA/CUPTI contract with known kernel durations; kernels compute nothing)"
	env_run+=("LD_LIBRARY_PATH=$simlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "GPUPERF_SIM_LOG=$out/sim-truth.jsonl")
fi
if [ -e "$inject" ]; then
	env_run+=("CUDA_INJECTION64_PATH=$inject" "GPUPERF_DIR=$out")
fi

echo "demo: \$ $sample 5"
env "${env_run[@]}" "$build/samples/$sample" 5

shopt -s nullglob
traces=("$out"/gpu-*.trace)
if [ "${#traces[@]}" -gt 0 ]; then
	echo
	echo "demo: recorded $(basename "${traces[0]}"); record counts:"
	"$gpuperf" dump --stats "${traces[@]}"
	echo
	echo "demo: the first GPU kernels, each with the correlation id of the API call that launched it:"
	"$gpuperf" dump "${traces[0]}" | grep -m 5 '^kernel' || true
elif [ -e "$out/sim-truth.jsonl" ]; then
	echo
	echo "demo: the injection library is not built yet; the simulator's own log of what ran:"
	grep -c '"type":"kernel"' "$out/sim-truth.jsonl" | sed 's/^/  kernels: /'
	grep -c '"type":"api"' "$out/sim-truth.jsonl" | sed 's/^/  API calls: /'
fi
echo
echo "demo: output in $out"
