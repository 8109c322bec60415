#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs one injection-library scenario on the CUDA simulator and checks the trace against the ground truth.
# usage: run_inject.sh CASE
# env (set by CMake): GPINJ_SIM_LIB GPINJ_LIB GPINJ_CHECK GPINJ_SAMPLES GPINJ_EXIT_PATHS
#   GPINJ_OTHER GPINJ_SECURE_EXEC GPINJ_MARKER_LIB GPINJ_WORK; GPSIM_PRELOAD (optional):
#   sanitizer runtime to load first.
set -u
case=$1
dir="$GPINJ_WORK/$case"
rm -rf "$dir"
mkdir -p "$dir"
# Short periods keep the kill and signal cases fast.
export GPUPERF_FLUSH_MS=${GPUPERF_FLUSH_MS:-200}

fail() {
	echo "FAIL [$case]: $*"
	for f in "$dir"/stderr.txt; do [ -s "$f" ] && sed 's/^/  stderr: /' "$f" | head -20; done
	exit 1
}

for f in "$GPINJ_LIB" "$GPINJ_CHECK"; do
	[ -e "$f" ] || { echo "SKIP: $f not built"; exit 77; }
done

# traced [VAR=value ...] -- program args: the program under the library (CUDA_INJECTION64_PATH).
traced() {
	set -- GPUPERF_DIR="$dir" GPUPERF_SIM_LOG="$dir/truth.jsonl" \
		LD_LIBRARY_PATH="$GPINJ_SIM_LIB" CUDA_INJECTION64_PATH="$GPINJ_LIB" "$@"
	if [ -n "${GPSIM_PRELOAD:-}" ]; then
		set -- LD_PRELOAD="$GPSIM_PRELOAD${PRELOAD:+ $PRELOAD}" "$@"
	elif [ -n "${PRELOAD:-}" ]; then
		set -- LD_PRELOAD="$PRELOAD" "$@"
	fi
	# In the background (EXEC=1) the program must replace the subshell, so $! is its pid.
	if [ -n "${EXEC:-}" ]; then
		exec env "$@"
	fi
	env "$@"
}

bgpid=""
cleanup() {
	[ -n "$bgpid" ] && kill -KILL "$bgpid" 2>/dev/null
	return 0
}
trap cleanup EXIT

one_trace() {
	n=$(ls "$dir"/gpu-*.trace 2>/dev/null | wc -l)
	[ "$n" -eq 1 ] || fail "expected one trace file, found $n"
	ls "$dir"/gpu-*.trace
}

check() { # check [trace_check options]
	grep -qE "ERROR: [A-Za-z]+Sanitizer|runtime error:" "$dir/stderr.txt" 2>/dev/null &&
		fail "sanitizer report"
	t=$(one_trace) || exit 1
	"$GPINJ_CHECK" "$@" "$t" "$dir/truth.jsonl" >"$dir/check.txt" 2>&1 ||
		fail "trace_check: $(cat "$dir/check.txt")"
	cat "$dir/check.txt"
}

sample() { # sample NAME [ARGS] -- [check options]
	name=$1
	shift
	args=""
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do args="$args $1"; shift; done
	[ $# -gt 0 ] && shift
	exe="$GPINJ_SAMPLES/${name}_shared"
	[ -x "$exe" ] || { echo "SKIP: $exe not built"; exit 77; }
	# shellcheck disable=SC2086
	traced "$exe" $args >"$dir/stdout.txt" 2>"$dir/stderr.txt" ||
		fail "$name exited with status $?"
	grep -q " ok$" "$dir/stdout.txt" || fail "$name did not finish"
	[ -s "$dir/stderr.txt" ] && fail "$name under the library wrote to stderr"
	# main (or a thread's function) to _start or clone3: whole launch stacks
	check --min-frames 4 "$@"
	# the same trace as tests/e2e/gpu.sh reads it on a GPU, with no ground truth
	"$GPINJ_CHECK" --no-truth --min-frames 4 "$@" "$t" /dev/null >"$dir/check-no-truth.txt" 2>&1 ||
		fail "trace_check --no-truth: $(cat "$dir/check-no-truth.txt")"
}

wait_ready() { # wait_ready PID
	i=0
	while ! grep -q '^ready' "$dir/stdout.txt" 2>/dev/null; do
		kill -0 "$1" 2>/dev/null || fail "program died before it was ready"
		i=$((i + 1))
		[ $i -gt 200 ] && fail "program never got ready"
		sleep 0.05
	done
}

signal_case() { # signal_case SIGNAL NUMBER
	EXEC=1 traced "$GPINJ_EXIT_PATHS" wait >"$dir/stdout.txt" 2>"$dir/stderr.txt" &
	pid=$!
	bgpid=$pid
	wait_ready $pid
	kill -"$1" $pid
	wait $pid
	rc=$?
	bgpid=
	[ $rc -eq $((128 + $2)) ] || fail "exit status $rc after SIG$1, expected $((128 + $2))"
}

case $case in
vector_add) sample vector_add ;;
train_step) sample train_step ;;
memcpy_bench) sample memcpy_bench ;;
driver_api) sample driver_api ;;
multi_stream) sample multi_stream 8 -- --min-threads 8 ;;
cuda_graph) sample cuda_graph -- --graph ;;
graph_nodes)
	sample graph_nodes -- --graph
	# `gpuperf dump` names each graph kernel's, copy's and memset's graph and node
	for k in kernel memcpy memset; do
		"$GPINJ_GPUPERF" dump "$t" | grep -Eq "^$k .* graph=[1-9][0-9]* node=[1-9]" ||
			fail "gpuperf dump: no $k with its graph and node: $("$GPINJ_GPUPERF" dump "$t" | grep "^$k" | head -2)"
	done
	;;
graph_conditional) sample graph_conditional -- --graph ;;
host_callbacks) sample host_callbacks ;;
launch_loop) sample launch_loop 20000 ;;
managed_memory) sample managed_memory ;;
stream_alloc) sample stream_alloc ;;
driver_module) sample driver_module -- --min-threads 2 ;;
# a buffer grown and shrunk through virtual memory: each cuMemCreate, cuMemMap,
# cuMemSetAccess, cuMemUnmap, cuMemRelease and the range's reserve and free recorded
expandable_memory)
	sample expandable_memory
	api=$("$GPINJ_GPUPERF" dump "$(one_trace)" | awk '$1 == "api" { n[$NF]++ } END { for (k in n) print k, n[k] }')
	for want in "cuMemAddressReserve 1" "cuMemCreate 4" "cuMemMap 4" "cuMemSetAccess 4" \
		"cuMemUnmap 4" "cuMemRelease 4" "cuMemAddressFree 1"; do
		echo "$api" | grep -qx "$want" || fail "want $want API records, have: $(echo "$api" | tr '\n' ' ')"
	done
	# each chunk's allocation and free, made by the library from the calls (no CUPTI record)
	n=$("$GPINJ_GPUPERF" dump "$(one_trace)" | grep -c '^memory .* from_call$')
	[ "$n" -eq 8 ] || fail "want 8 memory records of the library's own, have $n"
	;;
# NVTX ranges around the launches, with CUPTI as the NVTX tool (NVTX_INJECTION64_PATH):
# the ranges reach the simulated CUPTI beside the library, and the launches inside
# them are still exact
nvtx_ranges)
	export NVTX_INJECTION64_PATH="$GPINJ_SIM_LIB/libcupti.so.13"
	sample nvtx_ranges
	got=$(awk -F'"op":"' '/"type":"nvtx"/ { split($2, o, "\""); n[o[1]]++ }
		END { printf "start=%d end=%d push=%d pop=%d mark=%d", n["start"], n["end"], n["push"], n["pop"], n["mark"] }' \
		"$dir/truth.jsonl")
	[ "$got" = "start=1 end=1 push=32 pop=32 mark=8" ] ||
		fail "NVTX events in the simulator's log: $got, want start=1 end=1 push=32 pop=32 mark=8"
	;;
outer_corr_*)
	# Real CUPTI gives a driver call inside a runtime call the runtime call's id:
	# one launch stack record per id, every GPU record joined to the runtime call.
	export GPUPERF_SIM_NESTED_CORR=outer
	case ${case#outer_corr_} in
	multi_stream) sample multi_stream 8 -- --min-threads 8 ;;
	stream_alloc) sample stream_alloc ;;
	*) sample "${case#outer_corr_}" ;;
	esac
	;;
fp_walk_fails)
	# CUDA's libraries (and the simulator's) keep no frame pointers: a frame-pointer
	# walk from the callback ends inside them, and the launching function is lost.
	GPUPERF_STACKS_FP=1 traced "$GPINJ_SAMPLES/vector_add_shared" >"$dir/stdout.txt" \
		2>"$dir/stderr.txt" || fail "exited with status $?"
	t=$(one_trace) || exit 1
	"$GPINJ_CHECK" --min-frames 4 "$t" "$dir/truth.jsonl" >"$dir/check.txt" 2>&1 &&
		fail "a frame-pointer walk got whole stacks: $(cat "$dir/check.txt")"
	grep -q "launch stack of [0-3] frames" "$dir/check.txt" ||
		fail "not the expected failure: $(head -3 "$dir/check.txt")"
	echo "ok: frame pointers alone: $(grep -c 'launch stack of' "$dir/check.txt") stacks cut short"
	;;
stress_stacks)
	# 8 threads launching at once, each from a chain of its own depth, through the
	# simulator's frameless libraries: every stack exact and its own thread's.
	traced "$GPINJ_STRESS" 3000 >"$dir/stdout.txt" 2>"$dir/stderr.txt" ||
		fail "exited with status $?"
	# 8 busy threads on a few cores: a thread may sit preempted for long between a
	# call's end and CUPTI's stamp of it
	check --min-threads 8 --late-ms 2000
	gp=$GPINJ_GPUPERF
	[ -x "$gp" ] || { echo "SKIP: $gp not built"; exit 77; }
	"$gp" dump "$(one_trace)" >"$dir/dump.txt" || fail "gpuperf dump failed"
	python3 "$(dirname "$0")/check_stress.py" "$dir/stdout.txt" "$dir/dump.txt" 3000 \
		>"$dir/stress.txt" 2>&1 || fail "$(cat "$dir/stress.txt")"
	cat "$dir/stress.txt"
	;;
dlclose)
	# Kernels launched from a library dlopen'ed after start and dlclose'd before the end:
	# the trace names its mapping (recorded while it was mapped), so the report, run after
	# the process is gone, puts the kernels under plugin_launch_kernels. The first launches
	# from it, before the writer has refreshed the unwind tables, stop at its frame
	# (flagged truncated); 100000 launches give the writer time to catch up.
	traced "$GPINJ_DLCLOSE" "$GPINJ_PLUGIN" 100000 >"$dir/stdout.txt" 2>"$dir/stderr.txt" ||
		fail "exited with status $?"
	check
	"$GPINJ_GPUPERF" dump "$(one_trace)" | grep -q "^module .*$(basename "$GPINJ_PLUGIN")" ||
		fail "no module record for the dlclose'd library"
	"$GPINJ_GPUPERF" report -q "$dir" 2>"$dir/report.txt" || fail "report: $(cat "$dir/report.txt")"
	n=$(grep -c ';plugin_run;plugin_launch_kernels;cuLaunchKernel;\[gpu\] pk ' "$dir/gpu.folded")
	[ "$n" -ge 1 ] || fail "no kernel under plugin_launch_kernels: $(head -c 600 "$dir/gpu.folded")"
	# launches walked before the tables knew the library (if the writer had not refreshed
	# them yet): counted, and said
	tr=$("$GPINJ_GPUPERF" dump "$(one_trace)" | grep -c '^api_stack .* truncated')
	if [ "$tr" -gt 0 ]; then
		grep -q "$tr of [0-9]* launch stacks end early" "$dir/summary.json" ||
			fail "$tr truncated launch stacks not reported: $(grep -o '"warnings".*' "$dir/summary.json")"
	fi
	grep -q ';main;cuLaunchKernel;\[gpu\] pk ' "$dir/gpu.folded" ||
		fail "the kernel launched from main after the dlclose is not under main"
	echo "ok: kernels under the dlclose'd library's functions ($n stacks)"
	;;
many_threads)
	# 130 threads launching at once, 128 rings: the two threads left without one lose
	# their stacks, counted with the cause (EUSERS), every other call keeps its own.
	traced "$GPINJ_STRESS" 200 130 >"$dir/stdout.txt" 2>"$dir/stderr.txt" ||
		fail "exited with status $?"
	check --expect-drops --min-threads 130 --late-ms 2000
	lost=$("$GPINJ_GPUPERF" dump "$(one_trace)" |
		awk '$1 == "dropped" && $3 == "source=7" && / cause=87 / { split($4, c, "="); n += c[2] }
		     END { print n + 0 }')
	# 203 calls with a stack per thread: 200 launches, a memset, its cuMemAlloc and cuMemFree
	[ "$lost" -eq 406 ] || fail "$lost stacks counted lost for want of a ring, expected 2 x 203"
	grep -q "launch_stacks=25984 " "$dir/check.txt" ||
		fail "not every other call kept its stack: $(cat "$dir/check.txt")"
	echo "ok: 2 threads without a ring: $lost stacks counted lost (EUSERS)"
	;;
stacks_off)
	# GPUPERF_STACKS=0: no callback on the launch path, no api_stack record, the rest exact.
	GPUPERF_STACKS=0 sample launch_loop 2000 -- --no-stacks
	;;
uncompressed)
	# GPUPERF_ZLEVEL=0: every chunk as deflate's stored blocks, and the trace still exact.
	GPUPERF_ZLEVEL=0 GPUPERF_LOG=debug GPUPERF_LOG_FILE="$dir/log.txt" sample launch_loop 20000
	grep -Eq " ([0-9]+) of \1 chunks stored uncompressed" "$dir/log.txt" ||
		fail "not every chunk stored uncompressed: $(grep -o '[0-9]* of [0-9]* chunks' "$dir/log.txt")"
	t=$(one_trace) || exit 1
	# 40k records (API + kernel): compressed they take ~8 B each, stored ~3x that
	[ "$(stat -c %s "$t")" -gt 600000 ] || fail "an uncompressed trace of $(stat -c %s "$t") bytes"
	;;
preload)
	PRELOAD="$GPINJ_LIB" traced CUDA_INJECTION64_PATH= "$GPINJ_SAMPLES/vector_add_shared" \
		>"$dir/stdout.txt" 2>"$dir/stderr.txt" || fail "exited with status $?"
	grep -q '"type":"injection"' "$dir/truth.jsonl" && fail "the driver loaded an injection library"
	check
	;;
both_routes)
	PRELOAD="$GPINJ_LIB" traced "$GPINJ_SAMPLES/multi_stream_shared" 4 \
		>"$dir/stdout.txt" 2>"$dir/stderr.txt" || fail "exited with status $?"
	grep -q '"type":"injection".*"status":"ok"' "$dir/truth.jsonl" ||
		fail "the driver did not call InitializeInjection"
	[ -s "$dir/stderr.txt" ] && fail "stderr not empty"
	check --min-threads 4
	;;
cupti_drops)
	# The simulated CUPTI hands out only two small buffers' worth of records.
	GPUPERF_SIM_CUPTI_MAX_BUFFERS=2 GPUPERF_BUFFER_SIZE=16k \
		sample launch_loop 5000 -- --expect-drops
	grep -q "cupti=[1-9]" "$dir/check.txt" || fail "CUPTI's drops are not counted"
	;;
pool_drops)
	# One small buffer of ours: CUPTI asks again before the writer gave it back.
	GPUPERF_BUFFER_COUNT=1 GPUPERF_BUFFER_SIZE=16k sample launch_loop 20000 -- --expect-drops
	grep -q "declined_buffers=[1-9]" "$dir/check.txt" || fail "our declined buffers are not counted"
	;;
return_status)
	traced "$GPINJ_EXIT_PATHS" return 3 >"$dir/stdout.txt" 2>"$dir/stderr.txt"
	rc=$?
	[ $rc -eq 3 ] || fail "exit status $rc, expected 3"
	check
	;;
thread_exit)
	traced "$GPINJ_EXIT_PATHS" thread-exit >"$dir/stdout.txt" 2>"$dir/stderr.txt" ||
		fail "exit status $?"
	check --min-threads 2
	;;
device_reset)
	traced "$GPINJ_EXIT_PATHS" reset >"$dir/stdout.txt" 2>"$dir/stderr.txt" ||
		fail "exit status $?"
	check
	;;
reset_exit)
	# _exit() right after cudaDeviceReset: no atexit, so the reset itself must have
	# put everything on disk. Only the reset's own API records (CUPTI makes them
	# after our exit callback returns) cannot be there.
	traced "$GPINJ_EXIT_PATHS" reset-exit >"$dir/stdout.txt" 2>"$dir/stderr.txt" ||
		fail "exit status $?"
	check --no-end --skip-api Reset
	;;
sigint)
	signal_case INT 2
	check
	;;
sigterm)
	signal_case TERM 15
	check
	;;
writer_nice)
	# The writer thread runs at nice 10 (GPUPERF_WRITER_NICE), the program's threads at 0.
	for want in 10 3; do
		rm -f "$dir"/gpu-*.trace "$dir/stdout.txt" "$dir/truth.jsonl"
		set -- GPUPERF_WRITER_NICE=3
		[ $want = 10 ] && set -- GPUPERF_LOG=warn # the default
		EXEC=1 traced "$@" "$GPINJ_EXIT_PATHS" wait >"$dir/stdout.txt" 2>"$dir/stderr.txt" &
		pid=$!
		bgpid=$pid
		wait_ready $pid
		writer="" main=""
		for t in /proc/$pid/task/*; do
			# nice is field 19 of stat: the 17th after "pid (comm) "
			n=$(sed 's/^.*) //' "$t/stat" | cut -d' ' -f17)
			[ "$(cat "$t/comm")" = gpuperf-writer ] && writer=$n
			[ "${t##*/}" = "$pid" ] && main=$n
		done
		kill -TERM $pid
		wait $pid
		bgpid=
		[ "$writer" = "$want" ] || fail "writer thread at nice '$writer', expected $want"
		[ "$main" = 0 ] || fail "the program's main thread at nice '$main', expected 0"
		echo "writer thread at nice $writer, main thread at $main"
	done
	check
	;;
sigkill)
	EXEC=1 traced "$GPINJ_EXIT_PATHS" wait >"$dir/stdout.txt" 2>"$dir/stderr.txt" &
	pid=$!
	bgpid=$pid
	wait_ready $pid
	# Everything happened before "ready"; two flush periods later it is on disk.
	sleep 0.5
	kill -KILL $pid
	wait $pid
	bgpid=""
	check --no-end
	;;
fork)
	# Under ASan (GPSIM_PRELOAD), no leak check: gcc 12's LeakSanitizer locks
	# its allocator at exit, and in the child of fork() a lock that another
	# thread of the parent held at the fork is never released, so the child
	# hung there about one run in 130. Every other case checks for leaks.
	[ -n "${GPSIM_PRELOAD:-}" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	traced "$GPINJ_EXIT_PATHS" fork >"$dir/stdout.txt" 2>"$dir/stderr.txt" ||
		fail "exit status $?"
	child=$(sed -n 's/^child \([0-9]*\) status 0$/\1/p' "$dir/stdout.txt")
	[ -n "$child" ] || fail "no child line: $(cat "$dir/stdout.txt")"
	[ -f "$dir/gpu-$child.trace" ] || fail "the child has no trace of its own"
	mv "$dir/gpu-$child.trace" "$dir/child.trace.bin"
	check
	# The child's trace reads, and holds no GPU work (CUDA is unusable after fork).
	"$GPINJ_CHECK" --no-truth "$dir/child.trace.bin" /dev/null >"$dir/child.txt" 2>&1
	grep -q "api=0 kernel=0 memcpy=0" "$dir/child.txt" || fail "child trace: $(cat "$dir/child.txt")"
	grep -q "end=1" "$dir/child.txt" || fail "child trace not closed: $(cat "$dir/child.txt")"
	;;
chain_sigint)
	# A SIGINT handler installed after ours, chaining to the one it replaced: the
	# program dies of SIGINT as it does without the library, with its trace closed.
	env LD_LIBRARY_PATH="$GPINJ_SIM_LIB" ${GPSIM_PRELOAD:+LD_PRELOAD=$GPSIM_PRELOAD} \
		timeout -s KILL 20 "$GPINJ_EXIT_PATHS" chain-sigint >"$dir/plain.txt" 2>&1
	want=$?
	[ $want -eq 130 ] || fail "without the library: exit status $want, expected 130"
	traced timeout -s KILL 20 "$GPINJ_EXIT_PATHS" chain-sigint >"$dir/stdout.txt" 2>"$dir/stderr.txt"
	rc=$?
	case $rc in 124 | 137) fail "still running after 20 s (the handlers call each other)" ;; esac
	[ $rc -eq $want ] || fail "exit status $rc, expected $want as without the library"
	[ "$(grep -c '^handler$' "$dir/stdout.txt")" = 1 ] ||
		fail "the program's handler ran $(grep -c '^handler$' "$dir/stdout.txt") times, expected once"
	check
	;;
keep_sigint)
	# A handler that does not chain: the program goes on after SIGINT, and so does its trace.
	traced "$GPINJ_EXIT_PATHS" keep-sigint >"$dir/stdout.txt" 2>"$dir/stderr.txt" ||
		fail "exit status $?"
	grep -q "^handled 1, 12 kernels" "$dir/stdout.txt" || fail "program: $(cat "$dir/stdout.txt")"
	check
	grep -q " kernel=12 " "$dir/check.txt" || fail "expected 12 kernels: $(cat "$dir/check.txt")"
	;;
stderr_moved)
	# The program puts a data file on fd 2 after the library started: the library's
	# later lines (info and debug at exit) stay out of it.
	GPUPERF_LOG=debug traced "$GPINJ_EXIT_PATHS" stderr-to "$dir/data.txt" \
		>"$dir/stdout.txt" 2>"$dir/stderr.txt" || fail "exit status $?"
	printf 'data 1\ndata 2\n' | cmp -s - "$dir/data.txt" ||
		fail "the data file holds more than the program's data: $(head -3 "$dir/data.txt")"
	grep -q "gpuperf-inject.*recording to" "$dir/stderr.txt" ||
		fail "the start message did not go to the original stderr"
	grep -q "trace written" "$dir/stderr.txt" && fail "a line after the dup2 went to the old stderr"
	# check refuses a non-empty stderr.txt only on sanitizer reports
	check
	;;
secure_exec)
	# A setuid-root program run by nobody loads the library through
	# CUDA_INJECTION64_PATH (the driver honours it there): GPUPERF_CUPTI_LIB must
	# not be loaded nor GPUPERF_LOG_FILE created with root's rights.
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to make a setuid-root program"; exit 77; }
	command -v setpriv >/dev/null || { echo "SKIP: no setpriv"; exit 77; }
	case ",$(findmnt -n -o OPTIONS -T "$dir")," in
	*,nosuid,*) echo "SKIP: $dir is on a nosuid mount"; exit 77 ;;
	esac
	prog="$dir/secure_exec"
	cp "$GPINJ_SECURE_EXEC" "$prog" && chown root:root "$prog" && chmod 4755 "$prog" ||
		fail "cannot make a setuid program"
	mkdir -m 700 "$dir/root-only"
	mkdir -m 1777 "$dir/out"
	chmod 755 "$dir"
	(cd "$dir/out" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env CUDA_INJECTION64_PATH="$GPINJ_LIB" GPUPERF_DIR="$dir/out" \
		GPUPERF_CUPTI_LIB="$GPINJ_MARKER_LIB" GPINJ_MARKER="$dir/root-only/marker" \
		GPUPERF_LOG_FILE="$dir/root-only/log" "$prog") >"$dir/stdout.txt" 2>"$dir/stderr.txt"
	rc=$?
	grep -q "^secure=1 euid=0" "$dir/stdout.txt" ||
		{ echo "SKIP: the setuid bit took no effect: $(head -1 "$dir/stdout.txt")"; exit 77; }
	[ $rc -eq 0 ] || fail "exit status $rc: $(cat "$dir/stdout.txt")"
	[ -e "$dir/root-only/marker" ] && fail "GPUPERF_CUPTI_LIB was loaded with root's rights"
	[ -e "$dir/root-only/log" ] && fail "GPUPERF_LOG_FILE was created with root's rights"
	ls "$dir/out"/gpu-*.trace >/dev/null 2>&1 && fail "a trace was written"
	[ "$(wc -l <"$dir/stderr.txt")" -eq 1 ] || fail "expected one line on stderr"
	grep -q "secure execution.*running untraced" "$dir/stderr.txt" || fail "unclear message"
	cat "$dir/stderr.txt"
	;;
no_cupti)
	GPUPERF_CUPTI_LIB=/nonexistent/libcupti.so.13 traced "$GPINJ_EXIT_PATHS" return 5 \
		>"$dir/stdout.txt" 2>"$dir/stderr.txt"
	rc=$?
	[ $rc -eq 5 ] || fail "exit status $rc, expected 5"
	[ "$(wc -l <"$dir/stderr.txt")" -eq 1 ] || fail "expected one line on stderr"
	grep -q "CUPTI is not available.*running untraced" "$dir/stderr.txt" || fail "unclear message"
	ls "$dir"/gpu-*.trace >/dev/null 2>&1 && fail "a trace was written"
	cat "$dir/stderr.txt"
	;;
subscribe_fails)
	PRELOAD="$GPINJ_OTHER" traced "$GPINJ_EXIT_PATHS" return 4 \
		>"$dir/stdout.txt" 2>"$dir/stderr.txt"
	rc=$?
	[ $rc -eq 4 ] || fail "exit status $rc, expected 4"
	[ "$(wc -l <"$dir/stderr.txt")" -eq 1 ] || fail "expected one line on stderr"
	grep -q "cannot subscribe to CUPTI.*another profiler.*running untraced" "$dir/stderr.txt" ||
		fail "unclear message"
	cat "$dir/stderr.txt"
	;;
*)
	echo "run_inject.sh: unknown case '$case'"
	exit 2
	;;
esac
echo "PASS [$case]"
