#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bad_input.sh - `gpuperf report` on missing, empty, damaged and partial recordings:
# one clear line, the documented exit status, and every output that can be made.
# usage: bad_input.sh GPUPERF GEN_RECORDING
set -u
GPUPERF=$1
GEN=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# run WANT_STATUS WANT_REGEX ARGS...: exit status and a line of the output (the text
# report on stdout, errors on stderr) matching the regex.
run() {
	want=$1 re=$2
	shift 2
	"$GPUPERF" "$@" >"$tmp/err" 2>&1
	rc=$?
	if [ $rc -ne "$want" ]; then
		echo "FAIL: gpuperf $*: exit $rc, want $want"; sed 's/^/  /' "$tmp/err" | head -5; fail=1
	elif ! grep -Eq -- "$re" "$tmp/err"; then
		echo "FAIL: gpuperf $*: no line matching '$re' in its output:"; sed 's/^/  /' "$tmp/err" | head -5; fail=1
	else
		echo "ok: gpuperf $* -> $rc"
	fi
}
fresh() {
	rm -rf "$tmp/r"; mkdir "$tmp/r" && "$GEN" -n 20 "$tmp/r" || { echo "FAIL: gen_recording"; exit 1; }
}

run 2 'missing DIR' report
run 2 "unknown option '--bogus'" report --bogus "$tmp"
run 2 "invalid --format 'svg,png'" report --format svg,png "$tmp"
run 1 "'$tmp/nope' is not a directory" report "$tmp/nope"
mkdir "$tmp/empty"
run 1 'holds no cpu.trace or gpu-<pid>.trace' report "$tmp/empty"
printf 'not a trace at all, just text\n' >"$tmp/empty/gpu-1.trace"
run 1 'no readable trace' report "$tmp/empty"

# A GPU trace cut in the middle (the process was killed): what is intact is reported.
rm -rf "$tmp/r"; mkdir "$tmp/r" && "$GEN" -n 200 -c 4096 "$tmp/r" || exit 1
size=$(stat -c %s "$tmp/r/gpu-100.trace")
truncate -s $((size / 2)) "$tmp/r/gpu-100.trace"
run 0 'warning: .*gpu-100.trace' report "$tmp/r"
# ... said on stderr, the text report on stdout
"$GPUPERF" report "$tmp/r" >"$tmp/out" 2>"$tmp/err"
if grep -q 'warning: .*gpu-100.trace' "$tmp/err" && ! grep -q 'warning:' "$tmp/out" &&
	grep -q 'GPU records joined' "$tmp/out"; then
	echo "ok: the warning on stderr, the text report on stdout"
else
	echo "FAIL: warning not on stderr alone: stderr $(head -2 "$tmp/err"), stdout $(grep -c warning "$tmp/out") warnings"
	fail=1
fi
n=$(grep -c 'fwd_kernel' "$tmp/r/gpu.folded")
kernels=$(python3 -c 'import json,sys; print(sum(k["count"] for k in json.load(open(sys.argv[1]))["kernels"]))' "$tmp/r/summary.json")
[ "$n" -ge 1 ] && [ "$kernels" -gt 50 ] && [ "$kernels" -lt 400 ] ||
	{ echo "FAIL: truncated trace: want the intact half of the kernels, got $kernels"; fail=1; }

# A GPU trace without a CPU trace: its launch stacks are its own.
fresh
rm "$tmp/r/cpu.trace"
run 0 'launch stacks: 60 of 80 GPU records joined' report "$tmp/r"
grep -q '^train;main[^;]*;train_step[^;]*;forward[^;]*;cudaLaunchKernel;\[gpu\] fwd_kernel(float\*, int) ' "$tmp/r/gpu.folded" ||
	{ echo "FAIL: GPU-only report: kernels not under the function that launched them"; fail=1; }
# Launch stacks off (GPUPERF_STACKS=0), no CPU trace: everything under [no launch stack].
rm -rf "$tmp/r"; mkdir "$tmp/r" && "$GEN" -n 20 -S "$tmp/r" || { echo "FAIL: gen_recording -S"; exit 1; }
rm "$tmp/r/cpu.trace"
run 0 'launch stacks: 0 of 80 GPU records joined' report "$tmp/r"
grep -q '^train;\[no launch stack\];cudaLaunchKernel;\[gpu\] fwd_kernel(float\*, int) ' "$tmp/r/gpu.folded" ||
	{ echo "FAIL: GPU-only report: kernels not under [no launch stack]"; fail=1; }

# A CPU trace alone: a CPU-only report.
fresh
rm "$tmp/r/gpu-100.trace"
run 0 'on-CPU' report "$tmp/r"
[ -s "$tmp/r/cpu.folded" ] && [ -s "$tmp/r/offcpu.folded" ] && [ ! -s "$tmp/r/gpu.folded" ] ||
	{ echo "FAIL: CPU-only report: wrong outputs"; fail=1; }

# -o: a new directory is made; one that cannot be made or is a file fails at once.
fresh
run 0 'outputs in' report -o "$tmp/r/new" "$tmp/r"
[ -s "$tmp/r/new/summary.json" ] && [ ! -e "$tmp/r/summary.json" ] ||
	{ echo "FAIL: -o new directory: outputs not there (or not only there)"; fail=1; }
run 1 "cannot create the output directory '$tmp/r/no/such': No such file" report -o "$tmp/r/no/such" "$tmp/r"
run 1 "'$tmp/r/cpu.trace' is not a directory" report -o "$tmp/r/cpu.trace" "$tmp/r"
# A recording directory the user cannot write (not testable as root: root writes anywhere).
if [ "$(id -u)" != 0 ]; then
	chmod a-w "$tmp/r"
	run 1 "cannot write into '$tmp/r': .*-o DIR" report "$tmp/r"
	chmod u+w "$tmp/r"
fi
# one option parser for every command: options after DIR; the text report on stdout
fresh
"$GPUPERF" report "$tmp/r" -q >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] && [ -s "$tmp/r/summary.json" ]; then
	echo "ok: report DIR -q: quiet, outputs written"
else
	echo "FAIL: report DIR -q: exit $rc, stdout $(wc -l <"$tmp/out") lines, stderr: $(head -3 "$tmp/err")"; fail=1
fi
"$GPUPERF" report "$tmp/r" >"$tmp/out" 2>"$tmp/err"
if grep -q "^outputs in " "$tmp/out" && grep -q "GPU records joined" "$tmp/out" && [ ! -s "$tmp/err" ]; then
	echo "ok: report DIR: the text report on stdout, nothing on stderr"
else
	echo "FAIL: report DIR: stdout $(wc -l <"$tmp/out") lines, stderr: $(head -3 "$tmp/err")"; fail=1
fi
exit $fail
