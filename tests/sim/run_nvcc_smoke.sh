#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs the nvcc-built smoke program on the simulator with a test injection library and checks the outcome.
# usage: run_nvcc_smoke.sh SIM_LIB_DIR SMOKE_EXE PROBE_LIB WORK_DIR
# GPSIM_PRELOAD (optional): sanitizer runtime to preload, for ASan-built simulator libraries.
set -eu
libdir=$1 exe=$2 probe=$3 dir=$4
rm -rf "$dir"
mkdir -p "$dir"
# The program checks that a synchronize waits for this kernel's 5 ms.
export GPUPERF_SIM_KERNEL_NS="busy=5000000"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

run() {
	if [ -n "${GPSIM_PRELOAD:-}" ]; then
		env LD_LIBRARY_PATH="$libdir" LD_PRELOAD="$GPSIM_PRELOAD" "$@"
	else
		env LD_LIBRARY_PATH="$libdir" "$@"
	fi
}

# 1. Full run: the injection library is initialized exactly once, before the first API returns.
GPUPERF_SIM_LOG="$dir/truth.jsonl" GPSIM_PROBE_OUT="$dir/probe.txt" CUDA_INJECTION64_PATH="$probe" \
	run "$exe" >"$dir/out.txt" || fail "smoke program failed: $(cat "$dir/out.txt")"
grep -q "simulator" "$dir/out.txt" || fail "device name does not say it is simulated"
grep -q "^ok$" "$dir/out.txt" || fail "smoke program did not finish"
inits=$(grep -c "^InitializeInjection" "$dir/probe.txt")
[ "$inits" -eq 1 ] || fail "InitializeInjection called $inits times"
grep -q '"type":"injection".*"status":"ok"' "$dir/truth.jsonl" || fail "no injection line in the log"

# 2. Every kernel the simulator ran reached the CUPTI client and joined an API record.
truth=$(grep -c '"type":"kernel"' "$dir/truth.jsonl")
line=$(grep "^kernels=" "$dir/probe.txt")
kernels=$(echo "$line" | sed 's/kernels=\([0-9]*\).*/\1/')
matched=$(echo "$line" | sed 's/.*matched=\([0-9]*\).*/\1/')
[ "$truth" -gt 0 ] || fail "no kernels in the ground-truth log"
[ "$kernels" -eq "$truth" ] || fail "CUPTI saw $kernels kernels, the simulator ran $truth"
[ "$matched" -eq "$kernels" ] || fail "only $matched of $kernels kernels joined an API record"

# 3. A missing library, or one without InitializeInjection, is survived.
CUDA_INJECTION64_PATH=/nonexistent/libnothing.so GPUPERF_SIM_LOG="$dir/missing.jsonl" \
	run "$exe" >/dev/null || fail "program died on a missing injection library"
grep -q '"status":"dlopen_failed"' "$dir/missing.jsonl" || fail "missing library not logged"
CUDA_INJECTION64_PATH="$libdir/libcuda.so.1" GPUPERF_SIM_LOG="$dir/nosym.jsonl" \
	run "$exe" >/dev/null || fail "program died on a library without InitializeInjection"
grep -q '"status":"no_symbol"' "$dir/nosym.jsonl" || fail "missing symbol not logged"

# 4. The program's CUDA 13 host stubs bind to the simulator's versioned symbols.
if command -v nm >/dev/null; then
	nm -D --undefined-only "$exe" | grep -q '__cudaLaunchKernel@libcudart.so.13' ||
		fail "program does not use __cudaLaunchKernel@libcudart.so.13"
fi
echo "PASS"
