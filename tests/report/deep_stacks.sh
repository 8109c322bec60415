#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# deep_stacks.sh GPUPERF GEN_RECORDING: launch stacks of 34 frames (gen_recording
# -D 30) come out whole, in order, under each kernel, with the kernels' time.
set -u
gpuperf=$1
gen=$2
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

"$gen" -n 50 -D 30 "$d" || exit 1
"$gpuperf" report -q -f folded "$d" || exit 1
layers=$(seq -s '' -f 'layer_%g_[j];' 0 29)
# forward() launches fwd_kernel (200 us) once a step; backward() bwd_kernel (300 us)
for want in \
	"train;main_[j];${layers}train_step_[j];forward_[j];cudaLaunchKernel;[gpu] fwd_kernel(float*, int) 10000000" \
	"train;main_[j];${layers}train_step_[j];backward_[j];cudaLaunchKernel;[gpu] void bwd_kernel<float>(float*, int) 15000000"; do
	if ! grep -qxF "$want" "$d/gpu.folded"; then
		echo "deep_stacks: no line '$want' in gpu.folded:" >&2
		cat "$d/gpu.folded" >&2
		exit 1
	fi
done
echo "deep_stacks: ok"
