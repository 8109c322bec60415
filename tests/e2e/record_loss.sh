#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nothing lost silently, nothing read that root should not: a GPU trace cut
# by RLIMIT_FSIZE or a full disk counts its loss with the cause (summary.json,
# the text report); a SIGKILLed `record --cpu` keeps all but the last flush
# period; /tmp/perf-PID.map links and FIFOs are not followed; DIR/kallsyms
# holds only the symbols needed and names kernel frames as the whole table
# does. Environment: record_lib.sh.
set -u
. "$(dirname "$0")/record_lib.sh"
need_sim

loop=$GP_SAMPLES/launch_loop_shared
burn=${GP_BUILD:-}/cpu_agent/tests/progs/cpu_burn

# summary.json value: sj DIR EXPR
sj() { json "$1/summary.json" "$2"; }

# --- RLIMIT_FSIZE on the program: the GPU trace stops at 64 KiB, the loss is counted as EFBIG
sim "$GP" record -o fsz -- prlimit --fsize=65536 "$loop" 20000 >/dev/null 2>rec.txt
expect_status 0 $? "record under RLIMIT_FSIZE"
# record itself says so, from the trace's header, with the cause
grep -q "GPU records could not be written to gpu-[0-9]*.trace: File too large" rec.txt &&
	ok "RLIMIT_FSIZE: record names the GPU trace's loss and its cause" ||
	fail "RLIMIT_FSIZE: record's stderr: $(grep gpuperf rec.txt)"
[ "$(json fsz/record.json 'd["gpu_traces"][0]["lost_records"] > 1000')" = True ] &&
	ok "RLIMIT_FSIZE: record.json counts the GPU trace's lost records" ||
	fail "RLIMIT_FSIZE: record.json gpu_traces: $(json fsz/record.json 'd["gpu_traces"]')"
"$GP" report -o fsz_out fsz >report.txt 2>&1
lost=$(sj fsz_out 'd["drops"]["writer"]')
cause=$(sj fsz_out 'd["drop_causes"].get("writer", "")')
[ "${lost:-0}" -gt 1000 ] && [ "${cause#EFBIG}" != "$cause" ] &&
	ok "RLIMIT_FSIZE: drops.writer $lost, cause '$cause'" ||
	fail "RLIMIT_FSIZE: drops.writer '$lost', cause '$cause'"
grep -q "could not be written to the trace files: EFBIG" report.txt &&
	ok "RLIMIT_FSIZE: the text report names the cause" ||
	fail "RLIMIT_FSIZE: text report: $(grep warning report.txt)"
grep -q "no end mark" report.txt && fail "RLIMIT_FSIZE: the report blames a killed producer"
grep -q "lower -F" rec.txt && fail "RLIMIT_FSIZE: record advises a lower -F: $(cat rec.txt)"

need_bpf

# --- a full disk (a small tmpfs): GPU and CPU losses counted as ENOSPC, no -F advice
mkdir small
if mount -t tmpfs -o size=96k gpuperf-loss small 2>/dev/null; then
	sim "$GP" record --cpu -q -o small/rec -- "$loop" 20000 >/dev/null 2>rec.txt
	"$GP" report -o small_out small/rec >report.txt 2>&1
	lost=$(sj small_out 'd["drops"]["writer"]')
	cause=$(sj small_out 'd["drop_causes"].get("writer", "")')
	umount small
	[ "${lost:-0}" -gt 1000 ] && [ "${cause#ENOSPC}" != "$cause" ] &&
		ok "full disk: drops.writer $lost, cause '$cause'" ||
		fail "full disk: drops.writer '$lost', cause '$cause'"
	grep -q "could not be written to the trace files: ENOSPC" report.txt &&
		ok "full disk: the text report names the cause" ||
		fail "full disk: text report: $(grep warning report.txt)"
	grep -q "lower -F" rec.txt && fail "full disk: record advises a lower -F: $(cat rec.txt)"
else
	echo "note: cannot mount a tmpfs here; full-disk check skipped"
fi

# --- SIGKILL of record --cpu: all but the last flush period (GPUPERF_FLUSH_MS=1000) is kept
if [ -x "$burn" ]; then
	"$GP" record --cpu -q -F 99 -o killed -- "$burn" -s 6 >burn.txt 2>/dev/null &
	gp=$!
	for _ in $(seq 100); do grep -q '^tid' burn.txt && break; sleep 0.1; done
	sleep 3
	tid=$(awk '$1 == "tid" { print $2; exit }' burn.txt)
	# the CPU time the thread really had (a loaded machine gives it less than 3 s), in ticks
	ticks=$(awk '{ print $14 + $15 }' "/proc/$tid/stat" 2>/dev/null)
	kids=$(cat /proc/$gp/task/*/children 2>/dev/null)
	kill -9 "$gp" $kids 2>/dev/null
	wait "$gp" 2>/dev/null
	n=$("$GP" dump killed/cpu.trace 2>/dev/null | grep -c "^cpu_sample .* tid=$tid ")
	hz=$(getconf CLK_TCK)
	# all but the last flush period (1 s) of the thread's CPU time, at 99 Hz, halved for slack
	want=$(awk -v t="${ticks:-0}" -v hz="$hz" 'BEGIN { w = (t / hz - 1.0) * 99 / 2; print (w < 20 ? 20 : int(w)) }')
	[ "$n" -ge "$want" ] && ok "SIGKILL: $n samples of the burning thread kept (>= $want for $ticks ticks of CPU)" ||
		fail "SIGKILL: $n samples of thread '$tid' kept, expected >= $want for $ticks ticks of CPU"
else
	echo "note: cpu_burn not built ($burn); SIGKILL check skipped"
fi

# --- /tmp/perf-PID.map planted as a link to a root-only file, or as a FIFO
printf 'ffff 10 SECRET_ROOT_ONLY\n' >secret
chmod 600 secret
# (the program lives on a moment after planting, as a JIT would: the agent knows it when it exits)
timeout 20 "$GP" record --cpu -q -o link -- \
	sh -c 'ln -s "$1" /tmp/perf-$$.map; echo $$ >linkpid; sleep 0.3' sh "$PWD/secret" >/dev/null 2>&1
st=$?
grep -rqs SECRET_ROOT_ONLY link && fail "perf map link: the root-only file was copied into DIR"
[ "$st" = 0 ] && ! grep -rqs SECRET_ROOT_ONLY link && ok "perf map link: not followed" ||
	fail "perf map link: record exit status $st"
timeout 20 "$GP" record --cpu -q -o fifo -- sh -c 'mkfifo /tmp/perf-$$.map; echo $$ >fifopid; sleep 0.3' \
	>/dev/null 2>&1
st=$?
[ "$st" = 0 ] && ok "perf map FIFO: the recording finished" ||
	fail "perf map FIFO: record exit status $st (124: it hung)"
for f in linkpid fifopid; do
	[ -s $f ] && rm -f "/tmp/perf-$(cat $f).map"
done
"$GP" report -o fifo_out fifo >/dev/null 2>/dev/null
[ "$(sj fifo_out 'd["drops"]["perf_map"]')" = 1 ] &&
	ok "perf map FIFO: counted, '$(sj fifo_out 'd["drop_causes"].get("perf_map")')'" ||
	fail "perf map FIFO: drops.perf_map $(sj fifo_out 'd["drops"]["perf_map"]')"

# --- DIR/kallsyms: small, and it names kernel frames as all of /proc/kallsyms does
# (the whole table copied by the program, while the agent's own BPF programs, which samples
# can hit, are still loaded)
"$GP" record --cpu -q -F 499 -o ksym -- sh -c \
	'dd if=/dev/zero of=/dev/null bs=512 count=400000 2>/dev/null; cat /proc/kallsyms >whole'
size=$(stat -c %s ksym/kallsyms 2>/dev/null || echo missing)
[ "$size" != missing ] && [ "$size" -gt 0 ] && [ "$size" -lt 102400 ] &&
	ok "kallsyms: $size bytes" || fail "kallsyms: $size bytes, expected 1..102399"
"$GP" report -f folded -o ksym_small ksym >/dev/null 2>&1
mkdir ksym_full
cp ksym/cpu.trace ksym_full/
mv whole ksym_full/kallsyms
"$GP" report -f folded -o ksym_full_out ksym_full >/dev/null 2>&1
# Frames in BPF programs aside: a recorder running beside this one (a parallel test)
# has programs on the same tracepoints, which the program's syscalls pass through,
# and one unloaded between the two reads of the table is named in neither for sure.
nobpf() { sed 's/;bpf_prog_[^;]*\[bpf\]_\[k\].*//' "$1"; }
if [ -s ksym_small/cpu.folded ] &&
	[ "$(nobpf ksym_small/cpu.folded)" = "$(nobpf ksym_full_out/cpu.folded)" ] &&
	grep -Eq 'do_syscall_64|entry_SYSCALL|el0_svc' ksym_small/cpu.folded; then
	ok "kallsyms: kernel frames named as with the whole table"
else
	fail "kallsyms: frames differ from the whole table's: $(diff ksym_small/cpu.folded \
		ksym_full_out/cpu.folded | head -5)"
fi

finish
