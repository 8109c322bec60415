#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# attach.sh: `gpuperf record -p PID` (wall-clock: on-CPU + off-CPU) on a running
# CPU-bound and a context-switch-heavy program, next to profile-bpfcc and
# libbpf-tools' offcputime in the same run (root; see bench/RESULTS.md).
#
# usage: bench/cpu/attach.sh BUILD_DIR [REPS]
# Needs: root, BUILD_DIR/cli/gpuperf and BUILD_DIR/bench/cpu/{cpu_spin,pingpong},
# bpftool; optionally offcputime (Debian: libbpf-tools) and profile-bpfcc
# (bpfcc-tools + kernel headers, see bcc_headers.sh); a missing one is
# reported and skipped.
#
# Each measured run starts the workload blocked opening a FIFO (before its
# exec), attaches `gpuperf record -p` to that pid, waits until the recording
# runs, then opens the FIFO: the workload execs and runs entirely under the
# attached recorder (which follows the exec), and `record` ends when it
# exits. Measured as in run.sh: the workload's own CPU time, fastest of
# REPS runs (wall time is noise on a shared machine), and the BPF programs'
# run time per invocation. bcc's profile and offcputime run system-wide for
# all REPS runs of their row, as in run.sh.
set -eu

BUILD=${1:?usage: attach.sh BUILD_DIR [REPS]}
REPS=${2:-3}
BIN=$BUILD/bench/cpu
GP=$BUILD/cli/gpuperf
SPIN="$BIN/cpu_spin 1 1000"
PING="$BIN/pingpong 1000000 0"
. "$(dirname "$0")/lib.sh"

# attached_once ARGS...: one run of $WORK under `gpuperf record -q -p PID ARGS`;
# prints the workload's line
attached_once() {
	rm -rf "$TMP/go" "$TMP/rec"
	mkfifo "$TMP/go"
	# shellcheck disable=SC2086
	$WORK <"$TMP/go" >"$TMP/out" 2>&1 &
	w=$!
	"$GP" record -q -p "$w" -o "$TMP/rec" "$@" 2>"$TMP/err" &
	r=$!
	n=0
	while [ ! -f "$TMP/rec/cpu.trace" ] && [ $n -lt 200 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	sleep 0.3 # the agent writes cpu.trace before its start completes
	echo >"$TMP/go"
	wait "$w" || true
	wait "$r" || echo "gpuperf record failed: $(cat "$TMP/err")" >&2
	cat "$TMP/out"
}

# attached ARGS...: fastest CPU time of REPS attached runs
attached() {
	i=0
	: >"$TMP/times"
	while [ $i -lt "$REPS" ]; do
		attached_once "$@" | sed -n 's/.* \([0-9.]*\) s cpu.*/\1/p' >>"$TMP/times"
		i=$((i + 1))
	done
	sort -n "$TMP/times" | head -1
}

# what the last recording holds, from its record.json
last_counts() {
	python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["agent"]; print("    last run: %d samples, %d off-CPU spans, %d lost" % (a["samples"], a["offcpu_spans"], a["lost_sample"] + a["lost_offcpu"]))' \
		"$TMP/rec/record.json" 2>/dev/null || true
}

HZS="49 99 999 9999"
# One row per sampling frequency: the workload $WORK under `record -p -F HZ`.
attached_rows() {
	for hz in $HZS; do
		snap_start
		t=$(attached -F "$hz")
		snap_stop
		row "gpuperf record -p -F $hz (on+off-CPU)" "$t" "$base"
		last_counts
		bpf_cost '^(cs_|oc_)'
	done
}


WORK=$SPIN
echo "== CPU-bound, attached: $SPIN (1 thread, $(nproc) CPUs), fastest of $REPS"
base=$(fastest $SPIN)
row "alone" "$base" "$base"
attached_rows
have_bcc && bcc_rows "$HZS" "$SPIN" "$base"

WORK=$PING
echo "== context switches, attached: $PING (two threads on CPU 0), fastest of $REPS"
base=$(fastest $PING)
row "alone" "$base" "$base"
attached_rows
offcputime_row "$PING" "$base"
