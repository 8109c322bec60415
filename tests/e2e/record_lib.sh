# SPDX-License-Identifier: Apache-2.0
# Shared by the record_*.sh tests (sourced). Environment, set by CMake:
#   GP          the gpuperf binary
#   GP_SIM_LIB  the CUDA simulator's libraries (LD_LIBRARY_PATH for samples)
#   GP_SAMPLES  the samples' build directory
#   GP_FORK     tests/e2e/progs/fork_launch (nvcc -cudart shared), or empty
#   GP_PRELOAD  the ASan runtime when the simulator is instrumented, or empty
#   GP_WORK     a scratch directory for this test
#   GP_BUILD    the build tree (cmake --install from it), optional

fails=0
name=${0##*/}
name=${name%.sh}

fail() {
	echo "FAIL [$name]: $*"
	fails=$((fails + 1))
}

ok() {
	echo "ok   [$name]: $*"
}

# Under GPUPERF_REQUIRE_BPF=1 (CI) a missing BPF capability fails instead of skipping.
need_bpf() {
	local why=""

	[ "$(id -u)" = 0 ] || why="not running as root"
	[ -z "$why" ] && [ ! -r /sys/kernel/btf/vmlinux ] && why="the kernel exposes no BTF"
	[ -z "$why" ] && "$GP" --version | grep -q 'CPU side (--cpu): not built' &&
		why="gpuperf was built without the eBPF agent"
	[ -z "$why" ] && return 0
	if [ "${GPUPERF_REQUIRE_BPF:-}" = 1 ]; then
		echo "FAIL [$name]: $why, and GPUPERF_REQUIRE_BPF=1 requires BPF"
		exit 1
	fi
	echo "SKIP [$name]: $why (GPUPERF_REQUIRE_BPF=1 makes this a failure)"
	exit 77
}

need_sim() {
	if [ ! -x "$GP_SAMPLES/vector_add_shared" ] || [ ! -d "$GP_SIM_LIB" ]; then
		echo "SKIP [$name]: samples or simulator not built"
		exit 77
	fi
}

# sim CMD...: run with the simulator's libraries (and ASan's runtime first when needed).
sim() {
	if [ -n "${GP_PRELOAD:-}" ]; then
		LD_LIBRARY_PATH="$GP_SIM_LIB" LD_PRELOAD="$GP_PRELOAD" "$@"
	else
		LD_LIBRARY_PATH="$GP_SIM_LIB" "$@"
	fi
}

# Scratch directory that nobody (uid 65534) may also write to.
work=$GP_WORK/$name
rm -rf "$work"
mkdir -p "$work"
chmod 1777 "$work"
cd "$work" || exit 1
# the CFI table cache of `record --cpu` ($XDG_CACHE_HOME/gpuperf): this test's own
export XDG_CACHE_HOME=$work/xdg-cache

# expect_status WANT GOT WHAT
expect_status() {
	if [ "$2" = "$1" ]; then ok "$3: exit status $2"; else fail "$3: exit status $2, expected $1"; fi
}

# kernels FILE: number of kernel records in a trace (gpuperf dump --stats)
kernels() {
	"$GP" dump --stats "$1" 2>/dev/null | awk '$1 == "kernel" { n = $2 } END { print n + 0 }'
}

# clean_end FILE: the trace was closed (end record)
clean_end() {
	"$GP" dump --stats "$1" 2>/dev/null | grep -q 'closed cleanly'
}

json_ok() {
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null
}

# json FILE EXPR: a value of record.json (EXPR in Python over d)
json() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

finish() {
	if [ "$fails" -gt 0 ]; then
		echo "$name: $fails failed"
		exit 1
	fi
	echo "$name: all passed"
	exit 0
}
