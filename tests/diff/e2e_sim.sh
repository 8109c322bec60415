#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# e2e_sim.sh - `gpuperf diff` end to end on the CUDA simulator: record train_step twice as the
# base and once with gemm_nn_kernel 20% slower (GPUPERF_SIM_KERNEL_NS), `gpuperf report` each,
# then `gpuperf diff` must exit 1 naming exactly that kernel; base against base must exit 0.
# usage: e2e_sim.sh BUILD_DIR [ASAN_RUNTIME]
# Skips (77) when the simulator or samples are not built, or while `gpuperf report` is not
# available in this build.
set -u
build=$(cd "${1:-build}" && pwd)
asan=${2:-}
gpuperf=$build/cli/gpuperf
lib=$build/cupti_inject/libgpuperf_inject.so
simlib=$build/tests/sim/lib
sample=$build/samples/train_step_shared
work=$build/tests/diff/e2e-work
for f in "$gpuperf" "$lib" "$simlib/libcuda.so.1" "$sample"; do
	[ -e "$f" ] || { echo "SKIP: $f is not built (needs the CUDA Toolkit and samples)"; exit 77; }
done
rm -rf "$work"
mkdir -p "$work"

# record DIR KERNEL_NS: one run of the sample under the injection library, then its report.
record() {
	mkdir -p "$1"
	if ! env CUDA_INJECTION64_PATH="$lib" GPUPERF_DIR="$1" LD_LIBRARY_PATH="$simlib" \
		GPUPERF_SIM_KERNEL_NS="$2" ${asan:+LD_PRELOAD="$asan"} "$sample" 3 \
		>"$1/sample.out" 2>&1; then
		echo "FAIL: $sample under the injection library:"
		cat "$1/sample.out"
		exit 1
	fi
	if ! "$gpuperf" report "$1" >"$1/report.out" 2>&1; then
		if grep -q "not available" "$1/report.out"; then
			echo "SKIP: gpuperf report is not available in this build yet:"
			cat "$1/report.out"
			exit 77
		fi
		echo "FAIL: gpuperf report $1:"
		cat "$1/report.out"
		exit 1
	fi
	[ -s "$1/summary.json" ] || { echo "FAIL: gpuperf report wrote no $1/summary.json"; exit 1; }
}

# Fixed kernel durations, so that only the one override differs between the runs.
rest="gemm_tn_kernel=30000,gemm_nt_kernel=30000,bias_act_kernel=20000,mse_grad_kernel=20000"
rest="$rest,reduce_sum_kernel=20000,relu_grad_kernel=20000,bias_grad_kernel=20000,sgd_kernel=20000"
record "$work/base1" "gemm_nn_kernel=50000,$rest"
record "$work/base2" "gemm_nn_kernel=50000,$rest"
record "$work/slow" "gemm_nn_kernel=60000,$rest"

fail=0
# GPU idle time depends on how fast the host ran: not what this test is about.
"$gpuperf" diff --color=never --threshold gpu_idle=100000 --by-site --svg "$work/diff.svg" \
	--base "$work/base1" "$work/base2" --new "$work/slow" >"$work/diff.out" 2>&1
rc=$?
cat "$work/diff.out"
[ $rc -eq 1 ] || { echo "FAIL: diff base slow: exit $rc, want 1"; fail=1; }
kernels=$(grep -E '^regression +kernel ' "$work/diff.out" | sed -E 's/.*%  //; s/  \[.*//')
case "$kernels" in
gemm_nn_kernel*) [ "$(echo "$kernels" | wc -l)" -eq 1 ] || fail=1 ;;
*) fail=1 ;;
esac
[ $fail -eq 0 ] || echo "FAIL: the kernel regressions are not exactly gemm_nn_kernel: '$kernels'"
# Launch sites need the CPU side's launch stacks (gpuperf record --cpu, eBPF): only with them.
if grep -q '"api"' "$work/slow/summary.json"; then
	grep -Eq '^regression +site ' "$work/diff.out" ||
		{ echo "FAIL: --by-site names no launch site"; fail=1; }
else
	echo "note: no launch stacks in the recording (no CPU side): --by-site not checked"
fi
grep -q 'gemm_nn_kernel' "$work/diff.svg" || { echo "FAIL: diff.svg lacks gemm_nn_kernel"; fail=1; }

"$gpuperf" diff --color=never --threshold gpu_idle=100000 "$work/base1" "$work/base2" \
	>"$work/same.out" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: diff base1 base2: exit $rc, want 0:"; cat "$work/same.out"; fail=1; }
[ $fail -eq 0 ] && echo "ok: gpuperf diff names gemm_nn_kernel, 20% slower on the simulator"
exit $fail
