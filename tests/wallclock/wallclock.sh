#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Wall-clock analysis for real (root, eBPF): attach to wallprog (threads that
# spin, sleep, wait on a futex, read a pipe, poll, stay blocked) with -p, report per thread
# and check the times, classes and files (check_wallclock.py); -t of one
# thread; -C of one CPU; -U and -K; -a (wallprog found, gpuperf left out); a
# pid that exits half-way; a pid that does not exist. Environment: tests/e2e/record_lib.sh,
# plus GP_WALLPROG (the test program) and GP_PYTHON.
set -u
. "$(dirname "$0")/../e2e/record_lib.sh"
need_bpf
here=$(cd "$(dirname "$0")" && pwd)
py=${GP_PYTHON:-python3}

# start_wallprog SECS FILE: run the test program for SECS s in the background
# ($! is its pid) and wait until it has written its ids to FILE
start_wallprog() {
	"$GP_WALLPROG" "$1" >"$2" &
	for _ in $(seq 50); do
		[ -s "$2" ] && break
		sleep 0.1
	done
}

start_wallprog 30 ids.txt
prog=$!
prog2=
trap 'kill "$prog" $prog2 2>/dev/null; wait "$prog" $prog2 2>/dev/null' EXIT
read -r pid spinner sleeper locker reader poller stuck <ids.txt || { echo "FAIL [$name]: wallprog did not start"; exit 1; }

# --- -p PID: every thread
"$GP" record -q -p "$pid" -d 2 -o all 2>err.txt
expect_status 0 $? "record -p $pid -d 2"
"$GP" report -q --per-thread all >report.txt 2>&1
expect_status 0 $? "report --per-thread"
"$py" "$here/check_wallclock.py" all "$pid" "$spinner" "$sleeper" "$locker" "$reader" "$poller" \
	"$stuck" ||
	fails=$((fails + 1))

# --- -t TID: the sleeper only
"$GP" record -q -t "$sleeper" -d 1 -o one 2>err.txt
expect_status 0 $? "record -t $sleeper -d 1"
"$GP" report -q --per-thread one >report.txt 2>&1
expect_status 0 $? "report -t recording"
tids=$(json one/summary.json '" ".join(str(t["tid"]) for t in d["threads"])')
[ "$tids" = "$sleeper" ] && ok "-t: only the sleeper in summary.json" ||
	fail "-t: threads in summary.json: '$tids', expected '$sleeper'"
cls=$(json one/summary.json 'd["threads"][0]["class"] if d["threads"] else ""')
[ "$cls" = sleeping ] && ok "-t: the sleeper is sleeping" || fail "-t: class '$cls'"
files=$(cd one && ls thread-*.folded 2>/dev/null | tr '\n' ' ')
[ "$files" = "thread-$sleeper-sleeper.folded " ] && ok "-t: one per-thread file" ||
	fail "-t: per-thread files '$files'"
grep -q "^ *$pid  *$sleeper  *sleeper .*sleeping" one/analysis.txt &&
	[ "$(grep -c "^ *$pid  *[0-9][0-9]*  " one/analysis.txt)" = 1 ] &&
	ok "-t: analysis.txt has the sleeper's line only" || fail "-t: analysis.txt: $(cat one/analysis.txt)"

# --- -C CPU: only samples and switch-outs on that CPU (gpuperf dump shows each one's);
# the spinner's CPU, so that there are samples to see. The spinner is pinned there for
# the recording: on a busy machine the scheduler may move it away for the whole second.
c=$(awk '{print $39}' "/proc/$pid/task/$spinner/stat")
taskset -p -c "$c" "$spinner" >/dev/null 2>&1 || echo "note [wallclock]: cannot pin the spinner to CPU $c"
"$GP" record -q -p "$pid" -C "$c" -d 1 -o cpu1 2>err.txt
taskset -p -c "0-$(($(nproc) - 1))" "$spinner" >/dev/null 2>&1
expect_status 0 $? "record -p $pid -C $c -d 1"
"$GP" dump cpu1/cpu.trace >dump.txt 2>&1
ns=$(grep -c "^cpu_sample .* pid=$pid " dump.txt)
no=$(grep "^offcpu .* pid=$pid " dump.txt | grep -vc " aggregate ")
other=$(grep -E "^(cpu_sample|offcpu) " dump.txt | grep -v " aggregate " | grep -vc " cpu=$c ")
[ $((ns + no)) -gt 0 ] && [ "$other" = 0 ] &&
	ok "-C $c: $ns samples and $no off-CPU spans, all on CPU $c" ||
	fail "-C $c: $ns samples, $no spans, $other on another CPU"
"$GP" report -q cpu1 >report.txt 2>&1
expect_status 0 $? "report of the -C $c recording"

# --- -U / -K: only user / only kernel frames, in the trace and in the report
"$GP" record -q -p "$pid" -U -d 1 -o user 2>err.txt
expect_status 0 $? "record -p $pid -U -d 1"
"$GP" record -q -p "$pid" -K -d 1 -o kern 2>err.txt
expect_status 0 $? "record -p $pid -K -d 1"
"$GP" report -q user >report.txt 2>&1 && "$GP" report -q kern >>report.txt 2>&1
expect_status 0 $? "reports of the -U and -K recordings"
"$GP" dump user/cpu.trace >dump.txt 2>&1
n=$(grep -E "^(cpu_sample|offcpu) .* stack=" dump.txt | grep -c "|")
[ "$n" = 0 ] && ok "-U: no kernel frame in the trace" || fail "-U: $n records with kernel frames"
"$GP" dump kern/cpu.trace >dump.txt 2>&1
n=$(grep -E "^(cpu_sample|offcpu) .* stack=" dump.txt | grep -vc "stack=| ")
[ "$n" = 0 ] && ok "-K: no user frame in the trace" || fail "-K: $n records with user frames"
# kernel functions every blocked thread passes through, user functions of wallprog
kfn=';(do_syscall_64|entry_SYSCALL_64_after_hwframe|anon_pipe_read|pipe_read|hrtimer_nanosleep)[; ]'
ufn=';(hot_spin|sleepy_wait|lock_wait|io_wait|poll_wait|stuck_wait|start_thread)[; ]'
grep -Eq "$ufn" user/profile.folded && ! grep -Eq "$kfn" user/profile.folded &&
	ok "-U: the report has user frames only" || fail "-U: profile.folded: $(head -c 600 user/profile.folded)"
grep -Eq "$kfn" kern/profile.folded && ! grep -Eq "$ufn" kern/profile.folded &&
	ok "-K: the report has kernel frames only" || fail "-K: profile.folded: $(head -c 600 kern/profile.folded)"

# --- -a: system-wide for 1 s: wallprog by its names, gpuperf itself left out
"$GP" record -q -a -d 1 -o sys 2>err.txt &
gp=$!
wait "$gp"
expect_status 0 $? "record -a -d 1"
"$GP" report -q sys >report.txt 2>&1
expect_status 0 $? "report of the -a recording"
comm=$(json sys/summary.json '" ".join(p["comm"] for p in d["processes"] if p["pid"] == '"$pid"')')
[ "$comm" = wallprog ] && ok "-a: process $pid is there as wallprog" ||
	fail "-a: process $pid: '$comm'"
tname=$(json sys/summary.json '" ".join(t["name"] for t in d["threads"] if t["tid"] == '"$spinner"')')
[ "$tname" = spinner ] && ok "-a: its thread $spinner is there as spinner" ||
	fail "-a: thread $spinner: '$tname'"
# (by pid: other gpuperf processes of the machine are fair game)
self=$(json sys/summary.json 'sum(1 for p in d["processes"] if p["pid"] == '"$gp"')')
[ "$self" = 0 ] && ok "-a: gpuperf's own process ($gp) is left out" ||
	fail "-a: gpuperf's own process ($gp) was recorded"

# --- a pid that exits half-way through -d: data kept, the exit noted, exit status 0
# (3 s: under ASan on a loaded machine attaching alone can take a second)
start_wallprog 3 ids2.txt
prog2=$!
read -r pid2 spinner2 _ <ids2.txt
"$GP" record -p "$pid2" -d 20 -o gone 2>err.txt
expect_status 0 $? "record -p $pid2 -d 20 of a process that exits after 3 s"
wait "$prog2"
grep -q "process $pid2 (wallprog) exited with status 0 after" err.txt &&
	ok "exit: record says the process exited" || fail "exit: record said: $(cat err.txt)"
att=$(json gone/record.json '[(a["pid"], a["comm"], a["exit_code"]) for a in d["attached"]]')
[ "$att" = "[($pid2, 'wallprog', 0)]" ] && ok "exit: record.json attached: $att" ||
	fail "exit: record.json attached: $att"
"$GP" report gone >report.txt 2>&1
expect_status 0 $? "report of the recording whose process exited"
grep -Eq "process $pid2 \(wallprog( \[$pid2\])?\) exited .* with status 0" report.txt &&
	ok "exit: report's text notes the exit" || fail "exit: report said: $(cat report.txt)"
# (under ASan, LeakSanitizer's tracer is a forked child named wallprog too:
# the report then tells the two apart as "wallprog [PID]")
grep -Eq "process $pid2 \(wallprog( \[$pid2\])?\) exited .* recording, with status 0" gone/analysis.txt &&
	ok "exit: analysis.txt notes the exit" || fail "exit: analysis.txt: $(cat gone/analysis.txt)"
inside=$(json gone/summary.json '[p["exit_offset_ns"] <= d["time"]["wall_ns"] for p in d["processes"] if p["pid"] == '"$pid2"']')
[ "$inside" = "[True]" ] && ok "exit: the exit lies inside the recording's wall time" ||
	fail "exit: exit_offset_ns past time.wall_ns: $(grep exited gone/analysis.txt)"
ex=$(json gone/summary.json '[(p["exit_status"], "exit_offset_ns" in p) for p in d["processes"] if p["pid"] == '"$pid2"']')
[ "$ex" = "[(0, True)]" ] && ok "exit: summary.json has the exit status and time" ||
	fail "exit: summary.json process: $ex"
cls=$(json gone/summary.json '" ".join(t["class"] for t in d["threads"] if t["tid"] == '"$spinner2"')')
[ "$cls" = cpu-bound ] && ok "exit: the data until the exit is kept (spinner cpu-bound)" ||
	fail "exit: spinner class '$cls'"

# --- -t: the recording ends when every named thread has exited, not at -d
start_wallprog 3 ids3.txt
prog3=$!
read -r pid3 _ sleeper3 _ <ids3.txt
t0=$SECONDS
"$GP" record -q -t "$sleeper3" -d 20 -o gone_t 2>err.txt
st=$?
took=$((SECONDS - t0))
wait "$prog3"
expect_status 0 "$st" "record -t $sleeper3 -d 20 of a thread that exits after 3 s"
[ "$took" -lt 10 ] && ok "-t: the recording ended when the thread exited (${took} s, -d 20)" ||
	fail "-t: the recording ran ${took} s after its only thread exited"
"$GP" report -q gone_t >report.txt 2>&1
expect_status 0 $? "report of the -t recording whose thread exited"
cls=$(json gone_t/summary.json '" ".join(t["class"] for t in d["threads"] if t["tid"] == '"$sleeper3"')')
[ "$cls" = sleeping ] && ok "-t exit: the thread's data is kept (sleeping)" ||
	fail "-t exit: sleeper class '$cls'"

# --- a pid that does not exist: a clear message before anything starts, exit 1, no DIR
nopid=4194000
while [ -e "/proc/$nopid" ]; do nopid=$((nopid - 1)); done
"$GP" record -q -p "$nopid" -d 1 -o nopid 2>err.txt
st=$?
[ "$st" = 1 ] || fail "no such pid: exit status $st, expected 1"
grep -q "no process $nopid" err.txt || fail "no such pid: message: $(cat err.txt)"
[ ! -e nopid ] || fail "no such pid: DIR was created"
[ "$st" = 1 ] && [ ! -e nopid ] && ok "no such pid: refused with '$(tail -1 err.txt)'"

finish
