#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh: the CPU agent's overhead next to perf, profile-bpfcc and libbpf-tools' offcputime (root; see bench/RESULTS.md).
#
# usage: bench/cpu/run.sh BUILD_DIR [REPS]
# Needs: root, the agent built (BUILD_DIR/bench/cpu/{cpu_spin,pingpong,cpu_agent_run}),
# bpftool; optionally perf (Debian: linux-perf), offcputime (libbpf-tools),
# profile-bpfcc (bpfcc-tools + kernel headers: the running kernel's, or else
# Debian's linux-headers-*-amd64, see bcc_headers.sh).
#
# Two measures, because this machine is shared:
# - the workload's own CPU time (fastest of REPS runs). Without
#   CONFIG_IRQ_TIME_ACCOUNTING the sampling interrupts and the BPF programs
#   they run are charged to the task they interrupt, and other load on the
#   machine does not inflate it as it does wall time;
# - the BPF programs' own run time (kernel.bpf_stats_enabled), per invocation.
set -eu

BUILD=${1:?usage: run.sh BUILD_DIR [REPS]}
REPS=${2:-5}
BIN=$BUILD/bench/cpu
SPIN="$BIN/cpu_spin 1 1000"
PING="$BIN/pingpong 1000000 0"
. "$(dirname "$0")/lib.sh"

echo "== CPU-bound: $SPIN (1 thread, $(nproc) CPUs), fastest of $REPS"
base=$(fastest $SPIN)
row "alone" "$base" "$base"
for hz in 99 999 9999; do
	snap_start
	t=$(fastest "$BIN/cpu_agent_run" -c -F $hz -o "$TMP" -- $SPIN)
	snap_stop
	row "gpuperf agent -F $hz (user+kernel stacks)" "$t" "$base"
	sed -n 's/.*\(samples [0-9]*\).*/    last run: \1/p' "$TMP/err"
	bpf_cost '^cs_'
done
if command -v perf >/dev/null 2>&1; then
	for hz in 99 999 9999; do
		t=$(fastest perf record -q -g -F $hz -o "$TMP/perf.data" -- $SPIN)
		row "perf record -g -F $hz" "$t" "$base"
	done
else
	echo "perf: not installed (Debian: linux-perf)"
fi
have_bcc && bcc_rows "99 999 9999" "$SPIN" "$base"

echo "== context switches: $PING (two threads on CPU 0), fastest of $REPS"
base=$(fastest $PING)
row "alone" "$base" "$base"
for min in 1000 1; do
	snap_start
	t=$(fastest "$BIN/cpu_agent_run" -O -m $min -o "$TMP" -- $PING)
	snap_stop
	row "gpuperf agent off-CPU (min block $min us)" "$t" "$base"
	sed -n 's/.*samples [0-9]* offcpu \([0-9]*\).*/    last run: \1 spans/p' "$TMP/err"
	bpf_cost '^oc_'
done
offcputime_row "$PING" "$base"

# CFI unwinding (the default, GPUPERF_UNWIND=cfi: registers + a copy of up to 16 KiB of
# user stack per sample, unwound in the agent) against the frame-pointer
# walk (GPUPERF_UNWIND=fp). Per sample: the sampler's BPF run time plus the
# agent's CPU time / samples; bytes: the stack copied per sample. On
# cpu_spin and on a qsort through Debian's libc (no frame pointers there).
QSORT=$BUILD/cpu_agent/tests/progs/cfi_prog
echo "== CFI vs frame pointers, per on-CPU sample at 999 Hz, fastest of $REPS"
base=$(fastest $SPIN)
for uw in fp cfi; do
	snap_start
	t=$(GPUPERF_UNWIND=$uw fastest "$BIN/cpu_agent_run" -c -F 999 -o "$TMP" -- $SPIN)
	snap_stop
	row "gpuperf agent -F 999, GPUPERF_UNWIND=$uw" "$t" "$base"
	sed -n 's/^cpu_agent_run: //p' "$TMP/err" | sed 's/^/    last run: /'
	bpf_cost '^cs_'
done
if [ -x "$QSORT" ]; then
	for uw in fp cfi; do
		snap_start
		GPUPERF_UNWIND=$uw "$BIN/cpu_agent_run" -c -F 999 -o "$TMP" -- "$QSORT" 2 2>"$TMP/err"
		snap_stop
		echo "qsort through libc (cfi_prog 2, 2 threads), GPUPERF_UNWIND=$uw"
		sed -n 's/^cpu_agent_run: //p' "$TMP/err" | sed 's/^/    /'
		bpf_cost '^cs_'
	done
fi
# Per off-CPU span: the switch-out copies registers and the user stack (CFI)
# or walks frame pointers (fp); the BPF run time per context switch.
echo "== CFI vs frame pointers, per off-CPU span: $PING, fastest of $REPS"
base=$(fastest $PING)
for uw in fp cfi; do
	snap_start
	t=$(GPUPERF_UNWIND=$uw fastest "$BIN/cpu_agent_run" -O -m 1 -o "$TMP" -- $PING)
	snap_stop
	row "gpuperf agent off-CPU (min block 1 us), GPUPERF_UNWIND=$uw" "$t" "$base"
	sed -n 's/.*samples [0-9]* offcpu \([0-9]*\).*/    last run: \1 spans/p' "$TMP/err"
	bpf_cost '^oc_'
done
if command -v perf >/dev/null 2>&1; then
	t=$(fastest perf record -q --call-graph dwarf -F 999 -o "$TMP/perf.data" -- $SPIN)
	row "perf record --call-graph dwarf -F 999" "$t" "$base"
	if [ -x "$QSORT" ]; then
		perf record -q --call-graph dwarf -F 999 -o "$TMP/perf.data" -- "$QSORT" 2 2>/dev/null
		n=$(perf report -i "$TMP/perf.data" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3}')
		echo "    perf dwarf on cfi_prog 2: $(stat -c %s "$TMP/perf.data") bytes, ${n:-?} samples"
	fi
fi
