#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# numbers.sh - the numbers a user reads agree with the recording and with each other.
# usage: numbers.sh CASE GPUPERF GEN_RECORDING PYTHON CHECK_PPROF
#   window   the window is record.json's start..end, not the first..last record
#   totals   every output states the same on- and off-CPU totals, without the
#            injection library's writer thread, and says what it left out
#   empty    a view without data (no on-CPU sample) is not written as an empty
#            file, which flamegraph.pl refuses; the others are
#   cpuonly  `gpuperf --cpu` of a program without CUDA (root, eBPF): its own
#            window, the processes counted once each, no join rate, no line on
#            an idle GPU, libc frames without symbol versions
set -u
CASE=$1
GPUPERF=$2
GEN=$3
PYTHON=$4
CHECK_PPROF=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

# json EXPR: a value of $tmp/r/summary.json (d is the document)
json() {
	"$PYTHON" -c "import json,sys; d=json.load(open('$tmp/r/summary.json')); print($1)"
}

# folded_total FILE: the sum of a folded file's weights
folded_total() {
	awk '{ s += $NF } END { printf "%d\n", s }' "$1"
}

case $CASE in
window)
	# 20 steps of 1 ms from 1 s; the recorder ran from 0.9 s to 1.1 s: 200 ms
	mkdir "$tmp/r" && "$GEN" -n 20 "$tmp/r" || exit 1
	cat >"$tmp/r/record.json" <<'EOF'
{ "command_line": ["train"], "start_monotonic_ns": 900000000, "end_monotonic_ns": 1100000000 }
EOF
	"$GPUPERF" report "$tmp/r" >"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
	grep -q '^recording: 200.00 ms wall' "$tmp/out" && ok "text report: 200.00 ms wall" ||
		bad "text report: $(head -1 "$tmp/out"), want 200.00 ms wall"
	w=$(json 'd["time"]["start_ns"], d["time"]["end_ns"], d["time"]["wall_ns"]')
	[ "$w" = "900000000 1100000000 200000000" ] && ok "summary.json time: $w" ||
		bad "summary.json time: $w, want 900000000 1100000000 200000000"
	# both threads appear at 1 s (their thread records) and live on to the end
	l=$(json '" ".join(str(t["lifetime_ns"]) for t in d["threads"])')
	[ "$l" = "100000000 100000000" ] && ok "thread lifetimes: $l" ||
		bad "thread lifetimes: $l, want 100000000 100000000"
	grep -q '^gpuperf wall-clock analysis: 200.00 ms recorded' "$tmp/r/analysis.txt" &&
		ok "analysis.txt: 200.00 ms recorded" ||
		bad "analysis.txt: $(head -1 "$tmp/r/analysis.txt")"
	# without record.json: the records' own extent (first to last record)
	rm "$tmp/r/record.json"
	"$GPUPERF" report "$tmp/r" >"$tmp/out" 2>&1 || exit 1
	grep -q '^recording: 19.89 ms wall' "$tmp/out" && ok "no record.json: the records' extent" ||
		bad "no record.json: $(head -1 "$tmp/out")"
	;;
totals)
	mkdir "$tmp/r" && "$GEN" -n 20 -s 2 -w "$tmp/r" || exit 1
	"$GPUPERF" report "$tmp/r" >"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
	# the program's: main 20 x 2 samples, loader 20 x 2 samples of 10101 ns; loader 20 x 400 us
	on=808080 off=8000000
	[ "$(json 'd["cpu"]["on_cpu_ns"], d["cpu"]["off_cpu_ns"]')" = "$on $off" ] &&
		ok "summary.json cpu: $on $off" ||
		bad "summary.json cpu: $(json 'd["cpu"]["on_cpu_ns"], d["cpu"]["off_cpu_ns"]'), want $on $off"
	# the writer's: 20 samples, 20 x 600 us + 70 us of short blocks
	[ "$(json 'd["cpu"]["left_out"]["on_cpu_ns"], d["cpu"]["left_out"]["off_cpu_ns"]')" = "202020 12070000" ] &&
		ok "summary.json cpu.left_out" || bad "summary.json cpu.left_out: $(json 'd["cpu"]["left_out"]')"
	[ "$(folded_total "$tmp/r/cpu.folded")" = $on ] && ok "cpu.folded: $on" ||
		bad "cpu.folded total $(folded_total "$tmp/r/cpu.folded"), want $on"
	[ "$(folded_total "$tmp/r/offcpu.folded")" = $off ] && ok "offcpu.folded: $off" ||
		bad "offcpu.folded total $(folded_total "$tmp/r/offcpu.folded"), want $off"
	grep -q gpuperf-writer "$tmp/r/profile.folded" && bad "profile.folded has the writer thread"
	"$PYTHON" "$CHECK_PPROF" "$tmp/r/profile.pb.gz" --total cpu=$on --total off_cpu=$off >"$tmp/pp" 2>&1 &&
		ok "profile.pb.gz: cpu $on, off_cpu $off" || { bad "profile.pb.gz:"; cat "$tmp/pp"; }
	t=$(json 'sum(t["on_cpu_ns"] for t in d["threads"]), sum(t["off_cpu_ns"] for t in d["threads"])')
	[ "$t" = "$on $off" ] && ok "summary.json threads: $t" || bad "summary.json threads sum: $t, want $on $off"
	grep -q '^totals: on-CPU 808.08 us, off-CPU 8.00 ms' "$tmp/r/analysis.txt" &&
		ok "analysis.txt totals" || bad "analysis.txt: no 'totals: on-CPU 808.08 us, off-CPU 8.00 ms'"
	grep -q "of 8.00 ms off-CPU" "$tmp/r/analysis.txt" && ok "analysis.txt: blocking reasons of 8.00 ms" ||
		bad "analysis.txt: $(grep 'blocking reasons by category' "$tmp/r/analysis.txt")"
	grep -q '^CPU: on-CPU 808.08 us, off-CPU 8.00 ms' "$tmp/out" && ok "text report totals" ||
		bad "text report: $(grep '^CPU:' "$tmp/out")"
	grep -q "left out.*gpuperf-writer.*on-CPU 202.02 us, off-CPU 12.07 ms" "$tmp/out" &&
		ok "text report says what it left out" || bad "text report: no line on the writer thread"
	grep -q "left out: the injection library's writer thread" "$tmp/r/analysis.txt" &&
		ok "analysis.txt says what it left out" || bad "analysis.txt: no line on the writer thread"
	;;
empty)
	mkdir "$tmp/r" && "$GEN" -n 20 -s 0 -l "$tmp/r" || exit 1
	"$GPUPERF" report "$tmp/r" >"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
	[ -e "$tmp/r/cpu.folded" ] && bad "cpu.folded written without any on-CPU sample ($(wc -c <"$tmp/r/cpu.folded") bytes)"
	[ -e "$tmp/r/cpu.svg" ] && bad "cpu.svg written without any on-CPU sample"
	for f in offcpu gpu profile gpu_idle; do
		[ -s "$tmp/r/$f.folded" ] && ok "$f.folded written" || bad "$f.folded missing or empty"
	done
	;;
cpuonly)
	if [ "$(id -u)" -ne 0 ]; then
		[ "${GPUPERF_REQUIRE_BPF:-}" = 1 ] && { echo "FAIL: needs root for eBPF (GPUPERF_REQUIRE_BPF=1)"; exit 1; }
		echo "SKIP: needs root for eBPF"; exit 77
	fi
	# sh, two true and a sleep: 4 processes; each makes fork, exec and exit records
	"$GPUPERF" --cpu -o "$tmp/r" -- sh -c '/bin/true; /bin/true; sleep 0.02' >"$tmp/out" 2>&1 ||
		{ cat "$tmp/out"; exit 1; }
	grep -q '^recording: .* wall, 4 processes,' "$tmp/out" && ok "text report: 4 processes" ||
		bad "text report: $(grep '^recording:' "$tmp/out"), want 4 processes"
	grep -Eq '[0-9]+ process(es)?$' "$tmp/out" && bad "record counts process records as processes: $(grep 'cpu.trace' "$tmp/out")"
	# the window is the recorder's: well under a second, not since some older record
	w=$(json 'd["time"]["wall_ns"]')
	[ "$w" -gt 20000000 ] && [ "$w" -lt 5000000000 ] && ok "wall $w ns" || bad "wall: $w ns"
	[ "$(json 'd["join"]["rate"]')" = None ] && ok "join.rate null without GPU records" ||
		bad "join.rate: $(json 'd["join"]["rate"]'), want null"
	grep -q 'GPU was idle' "$tmp/out" && bad "text report speaks of an idle GPU: $(grep 'GPU was idle' "$tmp/out")"
	grep -q '@GLIBC' "$tmp/r/offcpu.folded" && bad "symbol versions in frames: $(grep -o '[^;]*@GLIBC[^;]*' "$tmp/r/offcpu.folded" | head -1)"
	grep -q 'nanosleep' "$tmp/r/offcpu.folded" && ok "sleep's off-CPU stack is there" ||
		bad "no nanosleep frame in offcpu.folded"
	# no GPU work: no GPU views, and no empty file flamegraph.pl would refuse
	for f in "$tmp"/r/*.folded; do
		[ -s "$f" ] || bad "$(basename "$f") is empty"
	done
	[ -e "$tmp/r/gpu.folded" ] && bad "gpu.folded written without GPU work"
	;;
*)
	echo "numbers.sh: unknown case '$CASE'" >&2
	exit 2
	;;
esac
exit $fail
