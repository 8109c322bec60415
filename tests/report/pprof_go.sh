#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# pprof_go.sh - profile.pb.gz as pprof's own tool reads it: `go tool pprof` -top,
# -traces, -tagfocus, -lines and -list, beside check_pprof.py's decoder.
#
# usage: pprof_go.sh GPUPERF GEN PYTHON
#          the synthetic recording (gen_recording): names, labels, weights known
#        pprof_go.sh --sim GPUPERF SAMPLES_BIN SAMPLES_SRC PYTHON
#          train_step recorded on the CUDA simulator (root: eBPF): -list and
#          -lines against samples/train_step.cu, the binary's build id
# env: GPUPERF_REQUIRE_BROWSER=1 to fail instead of skip without `go`
#      (CI installs golang-go); LD_LIBRARY_PATH (the simulator) for --sim.
set -u
# A sanitized build preloads ASan's runtime (the simulator is instrumented, the
# sample is not): only the recorded program gets it, not this shell, go or python,
# whose own leaks LeakSanitizer would report.
if [ -n "${LD_PRELOAD:-}" ] && [ -z "${GP_SIM_PRELOAD+x}" ]; then
	export GP_SIM_PRELOAD=$LD_PRELOAD
	exec env -u LD_PRELOAD "$0" "$@"
fi
HERE=$(cd "$(dirname "$0")" && pwd)
CHECK=$HERE/../merger/check_pprof.py
SIM=0
[ "${1:-}" = --sim ] && { SIM=1; shift; }

if ! command -v go >/dev/null 2>&1; then
	[ "${GPUPERF_REQUIRE_BROWSER:-}" = 1 ] && { echo "FAIL: go is not installed (GPUPERF_REQUIRE_BROWSER=1)"; exit 1; }
	echo "SKIP: go is not installed (Debian: golang-go)"; exit 77
fi
if [ "$SIM" = 1 ] && [ "$(id -u)" -ne 0 ]; then
	[ "${GPUPERF_REQUIRE_BPF:-}" = 1 ] && { echo "FAIL: needs root for eBPF (GPUPERF_REQUIRE_BPF=1)"; exit 1; }
	echo "SKIP: needs root for eBPF"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# pprof never symbolizes, fetches or looks for binaries: nothing leaves the machine
mkdir -p "$tmp/home"
export HOME="$tmp/home" PPROF_TMPDIR="$tmp/home" PPROF_BINARY_PATH="$tmp/home" GOTOOLCHAIN=local
d=$tmp/rec

pprof() {
	go tool pprof -symbolize=none "$@" "$d/profile.pb.gz" 2>&1
}

# expect WHAT PATTERN OUTPUT: OUTPUT has a line matching the extended regex PATTERN
expect() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		echo "ok: $1"
	else
		echo "FAIL: $1: no line matches '$2' in:"; printf '%s\n' "$3" | head -40 | sed 's/^/  /'
		fail=1
	fi
}

reject() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		echo "FAIL: $1: a line matches '$2' in:"; printf '%s\n' "$3" | head -40 | sed 's/^/  /'
		fail=1
	else
		echo "ok: $1"
	fi
}

check() {
	if out=$("$PYTHON" "$CHECK" "$d/profile.pb.gz" "$@"); then
		echo "$out"
	else
		echo "$out"; fail=1
	fi
}

if [ "$SIM" = 0 ]; then
	GPUPERF=$1 GEN=$2 PYTHON=$3
	mkdir -p "$d" && "$GEN" -n 20 -s 2 "$d" >/dev/null && "$GPUPERF" report -q "$d" ||
		{ echo "FAIL: recording or report failed"; exit 1; }
	# the same totals as the folded files
	total() { awk '{ s += $NF } END { print s + 0 }' "$d/$1"; }
	check --types cpu,off_cpu,gpu --default gpu --addresses \
		--total "cpu=$(total cpu.folded)" --total "off_cpu=$(total offcpu.folded)" \
		--total "gpu=$(total gpu.folded)" \
		--stack 'cpu=train;loader_main;load_batch;read=404040' \
		--stack 'off_cpu=train;loader_main;load_batch;read;[off-cpu];do_syscall_64;vfs_read;schedule=8000000' \
		--stack 'gpu=train;main;train_step;backward;cudaLaunchKernel;[gpu] void bwd_kernel<float>(float*, int)=6000000' \
		--system-name '[gpu] void bwd_kernel<float>(float*, int)=_Z10bwd_kernelIfEvPT_i' \
		--label cpu=pid --label cpu=tid --label cpu=process --label cpu=thread \
		--label gpu=device --label gpu=stream \
		--tag cpu:thread=loader=404040 --tag cpu:thread=train=404040 --tag gpu:device=0=11200000

	# pprof demangles (and cuts C++-looking names short) when it symbolizes, even locally
	out=$(go tool pprof -symbolize=local -top -sample_index=gpu "$d/profile.pb.gz" 2>&1)
	expect "-top keeps the template and parameters" \
		'^ +(6ms|6000us) +[0-9.]+% .* \[gpu\] void bwd_kernel<float>\(float\*, int\)$' "$out"
	reject "-top: no folded kind suffix" '_\[[kijw]\]' "$out"
	out=$(pprof -traces -sample_index=cpu)
	expect "-traces shows the thread label" '^ +thread: +loader$' "$out"
	expect "-traces shows the pid label" '^ +pid: +100$' "$out"
	out=$(pprof -traces -sample_index=gpu)
	expect "-traces shows the device label" '^ +device: +0$' "$out"
	out=$(pprof -top -sample_index=cpu -tagfocus=thread=loader)
	expect "-tagfocus=thread=loader keeps the loader's read" ' read$' "$out"
	reject "-tagfocus=thread=loader drops the main thread's forward" ' forward$' "$out"
	out=$(pprof -top -sample_index=cpu -tagignore=thread=loader)
	expect "-tagignore=thread=loader keeps forward" ' forward$' "$out"
	reject "-tagignore=thread=loader drops read" ' read$' "$out"
	exit $fail
fi

GPUPERF=$1 BIN=$2 SRC=$3 PYTHON=$4
if ! LD_PRELOAD=${GP_SIM_PRELOAD:-} "$GPUPERF" record --cpu -q -o "$d" -- "$BIN/train_step_shared" >"$tmp/rec.out" 2>&1 ||
	! "$GPUPERF" report -q "$d"; then
	echo "FAIL: recording or report failed:"; tail -5 "$tmp/rec.out"; exit 1
fi
bid=$(readelf -n "$BIN/train_step_shared" 2>/dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
line=$(grep -n 'gemm_nn_kernel<<<' "$SRC/train_step.cu" | cut -d: -f1)
check --addresses --build-ids ${bid:+--mapping "train_step_shared=$bid"} \
	--label gpu=device --label gpu=stream --label gpu=thread --label cpu=tid
out=$(pprof -sample_index=gpu -source_path "$SRC" -list '^launch_gemm\(')
expect "-list launch_gemm names train_step.cu" '^ROUTINE =+ launch_gemm\(.* in (.*/)?train_step\.cu$' "$out"
expect "-list launch_gemm puts GPU time on the launch line $line" \
	"^ +\\. +[0-9.]+[mun]?s +$line:.*gemm_nn_kernel<<<" "$out"
out=$(pprof -sample_index=gpu -lines -top)
expect "-lines -top names train_step.cu:$line" "launch_gemm\\(.* .*/train_step\\.cu:$line\$" "$out"
out=$(pprof -sample_index=gpu -top)
expect "the profile's main binary is the program" '^File: train_step_shared$' "$out"
expect "-top: a kernel with its parameters" '\[gpu\] gemm_nn_kernel\(float const\*, float const\*, float\*, int, int, int\)$' "$out"
# device and stream are strings (pprof drops a number label of 0): a regexp, not a range
out=$(pprof -sample_index=gpu -top '-tagfocus=device=^0$')
expect "-tagfocus=device=^0\$ keeps the GPU time" '\[gpu\] sgd_kernel' "$out"
out=$(pprof -sample_index=gpu -top '-tagfocus=device=^1$')
reject "-tagfocus=device=^1\$ keeps nothing" '\[gpu\] sgd_kernel' "$out"
exit $fail
