#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `gpuperf record` without --cpu (no privileges needed): the GPU trace of a
# sample on the simulator, record.json, exit statuses, stdio passthrough,
# running as nobody, and bad command lines. Environment: record_lib.sh.
set -u
. "$(dirname "$0")/record_lib.sh"

have_cuda=1
if "$GP" --version | grep -q 'built without CUDA'; then
	# No injection library in this build: the checks below that run no CUDA
	# program only need record to find a file to put in CUDA_INJECTION64_PATH.
	echo "note: built without CUDA; GPU-side checks skipped"
	have_cuda=0
	export GPUPERF_INJECT_LIB=/dev/null
fi

# --- the GPU side of a sample: gpu-<pid>.trace with its kernels, record.json
if [ "$have_cuda" = 1 ] && [ -x "$GP_SAMPLES/vector_add_shared" ] && [ -d "$GP_SIM_LIB" ]; then
	sim "$GP" record -q -o gpu1 -- "$GP_SAMPLES/train_step_shared" 2 >out.txt 2>err.txt
	expect_status 0 $? "record train_step_shared"
	grep -q 'launches=48 ok' out.txt || fail "the sample's stdout did not pass through"
	set -- gpu1/gpu-*.trace
	if [ "$#" -ne 1 ] || [ ! -f "$1" ]; then
		fail "expected one gpu-<pid>.trace, got: $(ls gpu1)"
	else
		n=$(kernels "$1")
		[ "$n" = 48 ] && ok "gpu trace has 48 kernels" || fail "gpu trace has $n kernels, expected 48"
		clean_end "$1" || fail "gpu trace not closed cleanly"
		pid=${1#gpu1/gpu-}
		pid=${pid%.trace}
	fi
	if json_ok gpu1/record.json; then
		[ "$(json gpu1/record.json 'd["command_line"][1]')" = 2 ] || fail "record.json command_line"
		[ "$(json gpu1/record.json 'd["target"]["pid"]')" = "${pid:-x}" ] ||
			fail "record.json target.pid is not the trace's pid"
		[ "$(json gpu1/record.json 'd["target"]["exit_code"]')" = 0 ] || fail "record.json exit_code"
		[ "$(json gpu1/record.json 'd["options"]["cpu"]')" = False ] || fail "record.json options.cpu"
		[ "$(json gpu1/record.json 'd["options"]["freq_hz"]')" = 99 ] || fail "record.json freq_hz"
		[ "$(json gpu1/record.json 'd["start_realtime_ns"] > 1600000000 * 10**9')" = True ] ||
			fail "record.json start_realtime_ns"
		ok "record.json"
	else
		fail "record.json missing or not JSON"
	fi
	[ ! -e gpu1/cpu.trace ] || fail "cpu.trace written without --cpu"

	# --- as nobody: no privileges needed without --cpu; DIR is nobody's
	sim setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$GP" record -q -o gpu2 -- "$GP_SAMPLES/vector_add_shared" 1000 >/dev/null 2>err.txt
	expect_status 0 $? "record as nobody"
	set -- gpu2/gpu-*.trace
	[ -f "$1" ] && [ "$(kernels "$1")" = 1 ] || fail "as nobody: no gpu trace with 1 kernel"
	[ "$(stat -c %u gpu2)" = 65534 ] || fail "as nobody: DIR not owned by nobody"

	# --- default DIR name: gpuperf-<basename>-<date>-<time>, never reused
	sim "$GP" record -q -- "$GP_SAMPLES/vector_add_shared" 1000 >/dev/null 2>&1
	sim "$GP" record -q -- "$GP_SAMPLES/vector_add_shared" 1000 >/dev/null 2>&1
	n=$(ls -d gpuperf-vector_add_shared-[0-9]*-[0-9]* 2>/dev/null | wc -l)
	[ "$n" = 2 ] && ok "default DIR names, two distinct" || fail "default DIRs: found $n, expected 2"

	# --- --force reuses DIR and drops the old traces
	sim "$GP" record -q --force -o gpu1 -- "$GP_SAMPLES/vector_add_shared" 1000 >/dev/null 2>&1
	expect_status 0 $? "--force"
	[ "$(ls gpu1/gpu-*.trace | wc -l)" = 1 ] || fail "--force left old traces: $(ls gpu1)"
else
	echo "note: samples or simulator not built; GPU-side checks skipped"
fi

# --- exit status and stdio pass through
"$GP" record -q -o st1 -- sh -c 'exit 3' 2>/dev/null
expect_status 3 $? "program exits 3"
"$GP" record -q -o st2 -- sh -c 'kill -KILL $$' 2>/dev/null
expect_status 137 $? "program killed by SIGKILL"
"$GP" record -q -o st3 -- sh -c 'kill -SEGV $$' 2>/dev/null
expect_status 139 $? "program killed by SIGSEGV"
[ "$(json st3/record.json 'd["target"]["signal"]')" = 11 ] || fail "record.json target.signal"
out=$(printf 'line one\nline two\n' | "$GP" record -q -o st4 -- cat 2>/dev/null)
[ "$out" = "$(printf 'line one\nline two')" ] && ok "stdin/stdout pass through" ||
	fail "stdin/stdout: got '$out'"
err=$("$GP" record -q -o st5 -- sh -c 'echo to-stderr >&2' 2>&1 >/dev/null)
[ "$err" = to-stderr ] && ok "stderr passes through (--quiet)" || fail "stderr: got '$err'"
GPUPERF_KEEP_ME=yes "$GP" record -q -o st6 -- sh -c 'echo "$GPUPERF_KEEP_ME $GPUPERF_DIR"' \
	>env.txt 2>/dev/null
read -r keep gdir <env.txt
[ "$keep" = yes ] || fail "user GPUPERF_* variable not passed on"
case "$gdir" in /*/st6) ok "GPUPERF_DIR is DIR, absolute" ;; *) fail "GPUPERF_DIR='$gdir'" ;; esac

# --- SIGTERM to gpuperf is passed on to the program
"$GP" record -q -o term -- sleep 10 2>/dev/null &
gp=$!
sleep 0.5
kill -TERM "$gp"
wait "$gp"
expect_status 143 $? "SIGTERM to gpuperf"

# --- -d with --kill none: the recording stops, the program goes on
t0=$(date +%s%N)
"$GP" record -q -d 1 --kill none -o nokill -- sh -c 'sleep 2; echo late >late.txt' 2>/dev/null
st=$?
t1=$(date +%s%N)
expect_status 0 "$st" "-d 1 --kill none"
[ $(((t1 - t0) / 1000000)) -lt 1900 ] || fail "-d 1 --kill none: waited for the program"
[ "$(json nokill/record.json 'd["target"]["exit_code"]')" = None ] ||
	fail "--kill none: record.json exit_code not null"
sleep 1.5
[ -f late.txt ] && ok "--kill none: the program finished on its own" ||
	fail "--kill none: the program did not finish"

# --- a program that cannot start: 127 / 126, no DIR
"$GP" record -q -o nf -- ./no-such-program 2>err.txt
expect_status 127 $? "missing program"
grep -q "cannot run './no-such-program'" err.txt || fail "missing program: message: $(cat err.txt)"
[ ! -e nf ] || fail "missing program: DIR was created"
"$GP" record -q -o nf -- no-such-command-xyz 2>/dev/null
expect_status 127 $? "command not in PATH"
printf 'data\n' >notexec.txt
"$GP" record -q -o nx -- ./notexec.txt 2>/dev/null
expect_status 126 $? "program not executable"

# --- which injection library: GPUPERF_INJECT_LIB, else installed next to gpuperf
GPUPERF_INJECT_LIB=/no/such/lib.so "$GP" record -q -o badlib -- true 2>err.txt
expect_status 1 $? "GPUPERF_INJECT_LIB missing"
grep -q "cannot use GPUPERF_INJECT_LIB '/no/such/lib.so'" err.txt || fail "bad GPUPERF_INJECT_LIB: $(cat err.txt)"
lib=$("$GP" record -v -q -o lib1 -- true 2>&1 | sed -n 's/^gpuperf record: injection library //p')
if [ "$have_cuda" = 1 ] && [ -n "$lib" ] && [ -n "${GP_BUILD:-}" ]; then
	GPUPERF_INJECT_LIB=$lib "$GP" record -v -q -o lib2 -- true 2>&1 | grep -q "injection library $lib" ||
		fail "GPUPERF_INJECT_LIB not used"
	prefix=$work/prefix
	if cmake --install "$GP_BUILD" --prefix "$prefix" >/dev/null 2>&1; then
		got=$("$prefix/bin/gpuperf" record -v -q -o lib3 -- true 2>&1 |
			sed -n 's/^gpuperf record: injection library //p')
		case "$got" in
		"$prefix"/lib*/gpuperf/libgpuperf_inject.so) ok "installed gpuperf uses the installed library" ;;
		*) fail "installed gpuperf uses '$got'" ;;
		esac
	else
		fail "cmake --install failed"
	fi
fi

# --- bad command lines: one message, status 2
usage() { # WANT_REGEX ARGS...
	local want=$1
	shift
	"$GP" record "$@" >/dev/null 2>err.txt
	local st=$?
	if [ "$st" != 2 ]; then
		fail "record $*: exit status $st, expected 2"
	elif ! grep -Eq -- "$want" err.txt; then
		fail "record $*: message '$(head -1 err.txt)' does not match '$want'"
	else
		ok "record $*: usage error"
	fi
}
mkdir -p exists
usage "unrecognized option|invalid option" --no-such-option -- true
usage "missing PROGRAM" -o x
usage "'exists' exists" -o exists -- true
usage "invalid --freq 'x': expected an integer in \[1, 10000\]" -F x -- true
usage "invalid --freq '0'" -F 0 -- true
usage "invalid --freq '10001'" -F 10001 -- true
usage "invalid --freq '-5'" --freq=-5 -- true
usage "invalid --duration" -d 1.5 -- true
usage "invalid --pid '1,x'" -p 1,x
usage "invalid --cpus '3-1'" -C 3-1 -- true
usage "invalid --min-block" --min-block 12us -- true
usage "-U and -K" -U -K -- true
usage "give no PROGRAM" -p 1 -- true
usage "exclude each other" -p 1 -a
usage "invalid --kill" --kill BOGUS -- true
[ ! -e x ] || fail "a usage error created DIR"

# --- help
"$GP" record --help | grep -q '^usage: gpuperf record' || fail "record --help"
"$GP" help record | grep -q 'Exit status' || fail "gpuperf help record"
"$GP" --version | grep -q '^gpuperf ' || fail "--version"
"$GP" --version | grep -q 'CUPTI\|without CUDA' || fail "--version shows no CUPTI line"
"$GP" --version | grep -q 'libbpf\|not built' || fail "--version shows no libbpf line"

finish
