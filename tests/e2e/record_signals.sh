#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Ctrl-C under `gpuperf record --cpu`: the terminal's SIGINT reaches the
# whole process group; the program's death is the exit status and the
# traces are complete. A program that ignores SIGINT: a second Ctrl-C stops
# the recording and sends it SIGTERM. SIGTERM sent to gpuperf alone is
# passed on to the program. Environment: record_lib.sh.
set -u
. "$(dirname "$0")/record_lib.sh"
need_bpf

# start_group DIR ARGS...: gpuperf record --cpu -o DIR ARGS in its own session
# (process group = its pid, like a terminal's foreground job), SIGINT at its
# default disposition (a script's background job starts with it ignored).
start_group() {
	local dir=$1 i
	shift
	setsid env --default-signal=INT,QUIT "$GP" record --cpu -q -o "$dir" "$@" >/dev/null \
		2>"$dir.err" &
	gp=$!
	# the agent creates cpu.trace just before the program is released
	for i in $(seq 100); do
		[ -f "$dir/cpu.trace" ] && break
		sleep 0.05
	done
	sleep 0.5
}

# --- one Ctrl-C: the program dies of it, gpuperf exits 130, traces complete
start_group int1 -- sleep 10
t0=$(date +%s%N)
kill -INT -- "-$gp"
wait "$gp"
st=$?
t1=$(date +%s%N)
expect_status 130 "$st" "Ctrl-C"
[ $(((t1 - t0) / 1000000)) -lt 3000 ] || fail "Ctrl-C: gpuperf took $(((t1 - t0) / 1000000)) ms"
clean_end int1/cpu.trace && ok "Ctrl-C: cpu.trace closed cleanly" || fail "Ctrl-C: cpu.trace not closed"
[ "$(json int1/record.json 'd["target"]["signal"]')" = 2 ] || fail "Ctrl-C: record.json target.signal"

# --- the program ignores SIGINT: the second Ctrl-C stops the recording, SIGTERM ends it
start_group int2 -- sh -c 'trap "" INT; exec sleep 10'
kill -INT -- "-$gp"
sleep 1.3
kill -0 "$gp" 2>/dev/null || fail "ignored Ctrl-C: gpuperf exited after the first SIGINT"
kill -INT -- "-$gp"
wait "$gp"
st=$?
expect_status 143 "$st" "second Ctrl-C"
grep -q 'still running after SIGINT' int2.err || fail "second Ctrl-C: no 'still running' note"
grep -q 'interrupted: recording stopped; sending SIGTERM' int2.err ||
	fail "second Ctrl-C: no 'recording stopped' message: $(cat int2.err)"
clean_end int2/cpu.trace && ok "second Ctrl-C: cpu.trace closed cleanly" ||
	fail "second Ctrl-C: cpu.trace not closed"
json_ok int2/record.json || fail "second Ctrl-C: no record.json"

# --- SIGTERM to gpuperf alone (a service manager's stop): passed on to the program
start_group term -- sleep 10
kill -TERM "$gp"
wait "$gp"
st=$?
expect_status 143 "$st" "SIGTERM to gpuperf"
[ "$(json term/record.json 'd["target"]["signal"]')" = 15 ] ||
	fail "SIGTERM to gpuperf: record.json target.signal is not 15"

# --- -d with a program: recording stops, the program gets SIGTERM (nsys --kill default)
t0=$(date +%s%N)
"$GP" record --cpu -q -d 1 -o dur -- sleep 10 2>dur.err
st=$?
t1=$(date +%s%N)
expect_status 143 "$st" "-d 1 on sleep 10"
[ $(((t1 - t0) / 1000000)) -lt 5000 ] || fail "-d 1: took $(((t1 - t0) / 1000000)) ms"
clean_end dur/cpu.trace || fail "-d: cpu.trace not closed"

# --- nothing holds the program at a library load: with gpuperf itself
# frozen, it maps its libraries (the exec) and runs to its end, never stopped
rm -f held.started held.go
# only shell builtins until held.go: the exec is the first library load after it
"$GP" record --cpu --no-gpu -q -o held -- sh -c \
	'echo $$ >held.started; while [ ! -e held.go ]; do :; done; exec sleep 0.2' >/dev/null 2>held.err &
gp=$!
for _ in $(seq 100); do
	[ -s held.started ] && break
	sleep 0.05
done
prog=$(cat held.started)
kill -STOP "$gp" # from now on nothing of gpuperf's own could continue a held process
echo >held.go
states=
for _ in $(seq 60); do
	st=$(awk '{print $3}' "/proc/$prog/stat" 2>/dev/null)
	states="$states${st:-gone} "
	[ "$st" = Z ] || [ -z "$st" ] && break # exited (gpuperf, stopped, has not reaped it)
	sleep 0.05
done
kill -KILL "$gp"
wait "$gp" 2>/dev/null
case "$states" in
*T*) fail "held: the program (${prog:-?}) was stopped: states $states" ;;
*Z* | *gone*) ok "held: the program ran to its end while gpuperf was frozen" ;;
*) fail "held: the program (${prog:-?}) did not end in 3 s: states $states" ;;
esac

finish
