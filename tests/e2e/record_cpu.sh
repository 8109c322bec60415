#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `gpuperf record --cpu` for real (root, eBPF): both traces of a sample,
# launch stacks (the injection library's; no uprobe ever), a forking CUDA
# program, sudo's user, no privileges, --pid attach, and the `gpuperf --cpu`
# shorthand. Environment: record_lib.sh.
set -u
. "$(dirname "$0")/record_lib.sh"
need_bpf
need_sim

# --- a sample with both sides: cpu.trace (samples, off-CPU) + gpu-<pid>.trace (launch stacks)
sim "$GP" record --cpu -q -o both -- "$GP_SAMPLES/train_step_shared" 2 >out.txt 2>err.txt
expect_status 0 $? "record --cpu train_step_shared"
[ -f both/cpu.trace ] || fail "no cpu.trace: $(cat err.txt)"
set -- both/gpu-*.trace
[ -f "$1" ] && [ "$(kernels "$1")" = 48 ] || fail "--cpu: gpu trace missing or not 48 kernels"
pid=${1#both/gpu-}
pid=${pid%.trace}
# the injection library took every launch's stack
n=$("$GP" dump "$1" 2>/dev/null | grep -c "^api_stack ")
[ "$n" -ge 48 ] && ok "gpu trace: $n launch stacks by correlation id" ||
	fail "gpu trace: $n api_stack records, expected >= 48"
n=$("$GP" dump both/cpu.trace 2>/dev/null | grep -Ec "^launch_site(_id)? ")
[ "$n" = 0 ] && ok "cpu.trace: no launch-site records" ||
	fail "cpu.trace: $n launch-site records: the agent wrote launch sites"
clean_end both/cpu.trace || fail "cpu.trace not closed cleanly"
[ "$(json both/record.json 'd["options"]["cpu"] and d["options"]["gpu"]')" = True ] ||
	fail "record.json options"
"$GP" report -f json -o both_out both >/dev/null 2>&1
[ "$(json both_out/summary.json 'd["join"]["rate"] == 1')" = True ] && ok "--cpu: every GPU record joined" ||
	fail "--cpu: join rate $(json both_out/summary.json 'd["join"]')"

# --- no uprobe, ever: while the program runs, gpuperf holds no kprobe-type BPF
# program (what a uprobe runs) and no uprobe link; GPUPERF_STACKS=0 only turns
# the injection library's launch stacks off, nothing takes their place
for stacks in 1 0; do
	rm -f gp.pid
	GPUPERF_STACKS=$stacks sim "$GP" record --cpu -q -o "probes$stacks" -- \
		sh -c 'echo $PPID >gp.pid; sleep 0.5; exec "$0" 2' "$GP_SAMPLES/train_step_shared" \
		>out.txt 2>err.txt &
	bg=$!
	# the program starts once the agent is attached: gpuperf is its parent
	for _ in $(seq 100); do [ -s gp.pid ] && break; sleep 0.1; done
	gp=$(cat gp.pid 2>/dev/null)
	probes=$(cat /proc/"${gp:-0}"/fdinfo/* 2>/dev/null |
		grep -Ec '^prog_type:[[:space:]]+2$|^link_type:[[:space:]]+uprobe')
	progs=$(cat /proc/"${gp:-0}"/fdinfo/* 2>/dev/null | grep -c '^prog_type:')
	wait "$bg"
	expect_status 0 $? "record --cpu, GPUPERF_STACKS=$stacks"
	[ -n "$gp" ] && [ "$progs" -gt 0 ] && [ "$probes" = 0 ] &&
		ok "GPUPERF_STACKS=$stacks: $progs BPF programs, no uprobe" ||
		fail "GPUPERF_STACKS=$stacks: gpuperf pid '$gp' held $progs BPF programs, $probes of them uprobes"
	n=$("$GP" dump "probes$stacks/cpu.trace" 2>/dev/null | grep -Ec "^launch_site(_id)? ")
	[ "$n" = 0 ] || fail "GPUPERF_STACKS=$stacks: cpu.trace: $n launch-site records"
done
set -- probes0/gpu-*.trace
n=$("$GP" dump "$1" 2>/dev/null | grep -c "^api_stack ")
[ -f "$1" ] && [ "$n" = 0 ] && ok "GPUPERF_STACKS=0: no launch stacks taken" ||
	fail "GPUPERF_STACKS=0: $n api_stack records in '$1'"

# --- a program that forks; parent and child launch kernels: two gpu traces
if [ -n "${GP_FORK:-}" ] && [ -x "$GP_FORK" ]; then
	sim "$GP" record --cpu -q -o fork -- "$GP_FORK" 3 >out.txt 2>err.txt
	expect_status 0 $? "record --cpu fork_launch"
	read -r _ _ ppid _ cpid _ <out.txt
	for p in "$ppid" "$cpid"; do
		[ -f "fork/gpu-$p.trace" ] && [ "$(kernels "fork/gpu-$p.trace")" = 3 ] ||
			fail "fork: gpu-$p.trace missing or without its 3 kernels ($(ls fork))"
		"$GP" dump "fork/gpu-$p.trace" 2>/dev/null | grep -q "^api_stack " ||
			fail "fork: no launch stacks of pid $p in its gpu trace"
	done
	ok "fork: both processes traced"
else
	echo "note: fork_launch not built; fork check skipped"
fi

# --- under sudo the program runs as the invoking user, and DIR is theirs
SUDO_UID=65534 SUDO_GID=65534 "$GP" record --cpu -q -o sudo -- sh -c 'id -u; id -g' >ids.txt 2>err.txt
expect_status 0 $? "record --cpu under sudo"
[ "$(tr '\n' ' ' <ids.txt)" = "65534 65534 " ] && ok "sudo: the program ran as 65534" ||
	fail "sudo: the program ran as '$(tr '\n' ' ' <ids.txt)'"
owners=$(find sudo -printf '%u:%g\n' | sort -u | tr '\n' ' ')
[ "$owners" = "nobody:nogroup " ] && ok "sudo: DIR and its files belong to the user" ||
	fail "sudo: owners are '$owners' ($(ls -la sudo))"

# --- without privileges: one clear message, exit 1, the program never starts
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$GP" record --cpu -o nopriv -- touch marker 2>err.txt
st=$?
[ "$st" = 1 ] || fail "no privileges: exit status $st, expected 1"
grep -q 'needs root or CAP_BPF and CAP_PERFMON: run with sudo' err.txt ||
	fail "no privileges: message: $(cat err.txt)"
[ ! -e marker ] || fail "no privileges: the program ran"
[ ! -e nopriv ] || fail "no privileges: DIR was created"
[ "$st" = 1 ] && [ ! -e marker ] && ok "no privileges: refused before starting"

# --- the agent cannot start (no such CPU): its reason, exit 1, the program never ran
"$GP" record --cpu -C 4000 -o badagent -- touch marker 2>err.txt
st=$?
[ "$st" = 1 ] || fail "agent failure: exit status $st, expected 1"
grep -q 'cannot start the CPU recorder: ' err.txt || fail "agent failure: message: $(cat err.txt)"
[ ! -e marker ] && [ ! -e badagent ] && ok "agent failure: program not started, no DIR" ||
	fail "agent failure: the program ran or DIR was left"

# --- --pid: attach to a running program for -d 1, CPU side only
sh -c 'while :; do :; done' &
spin=$!
"$GP" record -p "$spin" -d 1 -o attach 2>err.txt
st=$?
"$GP" record -q -p "$spin" -d 1 -o attach_q 2>err_q.txt
st_q=$?
kill -0 "$spin" 2>/dev/null && alive=1 || alive=0
kill "$spin" 2>/dev/null
wait "$spin" 2>/dev/null
expect_status 0 "$st" "record -p PID -d 1"
grep -q 'CPU side only' err.txt || fail "-p: no 'CPU side only' note on stderr"
expect_status 0 "$st_q" "record -q -p PID -d 1"
[ ! -s err_q.txt ] || fail "-q -p: stderr not empty: $(cat err_q.txt)"
[ "$alive" = 1 ] || fail "-p: the attached process did not survive the recording"
n=$("$GP" dump attach/cpu.trace 2>/dev/null | grep -c "^cpu_sample .* pid=$spin ")
[ "$n" -ge 5 ] && ok "-p: $n samples of pid $spin" || fail "-p: $n samples of pid $spin (< 5)"
[ "$(json attach/record.json 'd["options"]["pids"]')" = "[$spin]" ] || fail "-p: record.json pids"
ls attach/gpu-*.trace >/dev/null 2>&1 && fail "-p: a gpu trace appeared"

# --- the shorthand: gpuperf --cpu PROGRAM = record --cpu + report
sim "$GP" --cpu -q -o short -- "$GP_SAMPLES/vector_add_shared" 1000 >out.txt 2>err.txt
st=$?
[ -f short/cpu.trace ] && ls short/gpu-*.trace >/dev/null 2>&1 && json_ok short/record.json ||
	fail "shorthand: recording incomplete ($(ls short 2>&1))"
if "$GP" report short >/dev/null 2>&1; then
	expect_status 0 "$st" "gpuperf --cpu"
	[ -f short/profile.svg ] || fail "shorthand: no profile.svg"
	# -q: neither record nor the report says anything
	grep -q "GPU\|launch stacks\|outputs in" err.txt && fail "shorthand -q printed a report: $(head -3 err.txt)"
	sim "$GP" --cpu -o short2 -- "$GP_SAMPLES/vector_add_shared" 1000 >out.txt 2>err.txt
	grep -q "^outputs in " err.txt && ! grep -q "^outputs in " out.txt &&
		ok "shorthand: the text report on stderr, the program's stdout its own" ||
		fail "shorthand: report not on stderr ($(grep -c . out.txt) lines on stdout)"
else
	echo "note: 'gpuperf report' fails in this build; shorthand status $st not checked"
	grep -q 'the report failed; the recording is in' err.txt || fail "shorthand: no report note"
fi

finish
