#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# odd_input.sh - `gpuperf report` (and `diff --json`) on recordings that name odd
# or hostile things: module paths that are a FIFO or a device node, damaged module
# records, names that are not UTF-8, two recordings' traces in one directory; the
# code of a stripped library, named by the .eh_frame FDEs left in it; processes
# that share a name.
# usage: odd_input.sh CASE GPUPERF GEN_ODD_RECORDING PYTHON3 [LIB STRIPPED_LIB]
#   CASE: modules | empty-modules | utf8 | no-api | mixed | stripped | same-name
set -u
CASE=$1 GPUPERF=$2 GEN=$3 PY=$4 LIB=${5:-} STRIPPED=${6:-}
tmp=$(mktemp -d)
writer=
cleanup() {
	[ -n "$writer" ] && kill "$writer" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
die() { echo "FAIL: $*"; exit 1; }

# report DIR: gpuperf report under a time limit; what it prints (text report, warnings) in $tmp/text.
report() {
	timeout -s KILL 20 "$GPUPERF" report "$@" >"$tmp/text" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { sed 's/^/  /' "$tmp/text" | head -5; die "gpuperf report $*: exit $rc (137: it hung)"; }
}

# strict_json FILE...: each file is UTF-8 and JSON by Python's strict readers.
strict_json() {
	"$PY" - "$@" <<'EOF' || fail=1
import json, sys
for p in sys.argv[1:]:
    try:
        json.loads(open(p, 'rb').read().decode('utf-8', 'strict'))
        print('ok: %s is strict UTF-8 JSON' % p.rsplit('/', 1)[-1])
    except Exception as e:
        print('FAIL: %s: %s' % (p, e))
        sys.exit(1)
EOF
}

case $CASE in
modules)
	# A recorded module replaced by a FIFO, and module paths naming device nodes:
	# neither is opened for reading (a FIFO would hang the report, and opening a
	# device node runs its driver), and their frames stay [module+0xoff].
	# libfifo.so has no writer: opening it to read blocks for ever. libwatch.so
	# has one, blocked in open() until someone opens the FIFO to read it: it
	# says whether the report did.
	mkfifo "$tmp/libfifo.so" "$tmp/libwatch.so" || die mkfifo
	(exec 3>"$tmp/libwatch.so"; : >"$tmp/fifo-opened") &
	writer=$!
	mkdir "$tmp/r" && "$GEN" -m "$tmp/libfifo.so" -m "$tmp/libwatch.so" -m /dev/zero \
		-m /dev/null "$tmp/r" || die gen_odd_recording
	start=$(date +%s)
	report "$tmp/r"
	[ $(($(date +%s) - start)) -lt 20 ] || die "the report took $(($(date +%s) - start)) s"
	sleep 0.2
	[ -e "$tmp/fifo-opened" ] && { echo "FAIL: the report opened a FIFO"; fail=1; }
	for want in '\[libfifo.so+0x123\]' '\[libwatch.so+0x123\]' '\[zero+0x123\]' '\[null+0x123\]'; do
		grep -q "$want" "$tmp/r/cpu.folded" ||
			{ echo "FAIL: no frame $want in cpu.folded"; fail=1; }
	done
	# let the writer go (when the report did not)
	[ -e "$tmp/fifo-opened" ] || timeout 5 sh -c ': <"$1"' sh "$tmp/libwatch.so"
	wait "$writer" 2>/dev/null
	writer=
	;;
empty-modules)
	# Module records with end <= start: skipped with one warning, not "out of memory".
	mkdir "$tmp/r" && "$GEN" -e "$tmp/r" || die gen_odd_recording
	report "$tmp/r"
	want='2 module records with an empty address range skipped'
	grep -q "^warning: $want" "$tmp/text" || { echo "FAIL: no warning '$want'"; sed 's/^/  /' "$tmp/text"; fail=1; }
	grep -q "$want" "$tmp/r/summary.json" || { echo "FAIL: summary.json lacks the warning"; fail=1; }
	grep -q '^odd;main_\[j\];launch_\[j\];cudaLaunchKernel;\[gpu\] odd_kernel ' "$tmp/r/gpu.folded" ||
		{ echo "FAIL: the kernels are not under their launch stacks"; fail=1; }
	;;
utf8)
	# Process, thread, kernel and function names that are not UTF-8.
	mkdir "$tmp/r" && "$GEN" -u "$tmp/r" || die gen_odd_recording
	report "$tmp/r"
	[ -e "$tmp/r/trace.json" ] || die "no trace.json"
	strict_json "$tmp/r/summary.json" "$tmp/r/trace.json"
	# the replacement character where the bytes were, the valid text kept
	"$PY" -c 'import sys; d=open(sys.argv[1],"rb").read(); sys.exit(0 if "od\ufffdd".encode() in d and "odd_k\ufffd\ufffdernel".encode() in d else 1)' "$tmp/r/summary.json" ||
		{ echo "FAIL: summary.json: names not kept with U+FFFD"; fail=1; }
	timeout -s KILL 30 "$GPUPERF" diff --json "$tmp/r" "$tmp/r" >"$tmp/diff.json"
	rc=$?
	[ $rc -le 1 ] || die "gpuperf diff --json: exit $rc"
	strict_json "$tmp/diff.json"
	# a summary.json an older report wrote with raw bytes: diff --json is still UTF-8
	"$PY" - "$tmp/r/summary.json" "$tmp/old.json" <<'EOF' || die "cannot write old.json"
import sys
d = open(sys.argv[1], 'rb').read().replace('\ufffd'.encode(), b'\xff')
open(sys.argv[2], 'wb').write(d)
EOF
	timeout -s KILL 30 "$GPUPERF" diff --json "$tmp/old.json" "$tmp/r" >"$tmp/diff2.json"
	rc=$?
	[ $rc -le 1 ] || die "gpuperf diff --json (raw bytes): exit $rc"
	strict_json "$tmp/diff2.json"
	;;
no-api)
	# GPU work of a process that made no API call at all (a lane without
	# threads: the idle-gap pass must not sort a NULL list, UB that aborts
	# the sanitizer build).
	mkdir "$tmp/r" && "$GEN" -k "$tmp/r" || die gen_odd_recording
	report "$tmp/r"
	grep -q '^odd;\[unknown API\];\[gpu\] odd_kernel 1000000$' "$tmp/r/gpu.folded" ||
		{ echo "FAIL: the kernels are not under [unknown API]"; cat "$tmp/r/gpu.folded"; fail=1; }
	;;
mixed)
	# cpu.trace of one recording beside the GPU trace of another.
	mkdir "$tmp/a" "$tmp/b" "$tmp/m" &&
		"$GEN" -p 100 -t 1 "$tmp/a" && "$GEN" -p 200 -t 500 "$tmp/b" || die gen_odd_recording
	report "$tmp/a"
	grep -q 'belong' "$tmp/text" && { echo "FAIL: one recording said not to belong together"; sed 's/^/  /' "$tmp/text"; fail=1; }
	cp "$tmp/a/cpu.trace" "$tmp/a/perf-100.map" "$tmp/b/gpu-200.trace" "$tmp/b/perf-200.map" "$tmp/m/"
	report "$tmp/m"
	grep -q '^warning: cpu.trace and the GPU trace of process 200 do not belong together' "$tmp/text" ||
		{ echo "FAIL: no warning that the traces do not belong together:"; sed 's/^/  /' "$tmp/text"; fail=1; }
	n=$("$PY" -c 'import json,sys; print(sum("not belong together" in w for w in json.load(open(sys.argv[1]))["warnings"]))' "$tmp/m/summary.json")
	[ "$n" = 1 ] || { echo "FAIL: summary.json: want one such warning, got $n"; fail=1; }
	;;
stripped)
	# A library stripped of every symbol (strip --strip-all), two of its
	# functions sampled at every byte: one frame per function, named by the
	# offset of its first byte (its FDE's start), as perf shows it, not one
	# [lib+0x...] per sampled address. The offsets are the unstripped copy's
	# (nm), whose code is the same bytes.
	args= want=
	for fn in fde_mix fde_sum; do
		set -- $(nm -S "$LIB" | awk -v f="$fn" '$4 == f { print $1, $2 }')
		[ $# -eq 2 ] || die "nm: no $fn in $LIB"
		start=$((0x$1)) size=$((0x$2))
		[ "$size" -ge 32 ] || die "$fn is $size bytes: too few addresses to sample"
		off=$start
		while [ $off -lt $((start + size)) ]; do
			args="$args -a $(printf %x $off)"
			off=$((off + 1))
		done
		want="$want$(printf '[libsymfix_fde.so+0x%x]' $start)
"
	done
	mkdir "$tmp/r" && "$GEN" -m "$STRIPPED" $args "$tmp/r" || die gen_odd_recording
	report "$tmp/r"
	# the leaves of the worker thread's samples in the library
	got=$(grep -o '\[libsymfix_fde\.so+0x[0-9a-f]*\] [0-9]*$' "$tmp/r/cpu.folded" |
		sed 's/ [0-9]*$//' | grep -v '+0x123\]$' | sort -u)
	if [ "$got" != "$(printf %s "$want" | sort -u)" ]; then
		echo "FAIL: want one frame per function:"
		printf %s "$want" | sed 's/^/  /'
		echo "got $(printf '%s\n' "$got" | wc -l) frames:"
		printf '%s\n' "$got" | head -5 | sed 's/^/  /'
		fail=1
	fi
	;;
same-name)
	# Four processes named odd (a build's cc1, an MPI job's ranks): one root,
	# odd, with each process a [pid] frame under it, not four roots. A
	# thread's own graph (--per-thread) starts at its stack, without either.
	mkdir "$tmp/r" && "$GEN" -S 3 "$tmp/r" || die gen_odd_recording
	report --per-thread "$tmp/r"
	roots=$(cut -d';' -f1 "$tmp/r/cpu.folded" | sort -u | tr '\n' ' ')
	[ "$roots" = "odd " ] || { echo "FAIL: cpu.folded: want the one root 'odd', got: $roots"; fail=1; }
	pids=$(cut -d';' -f2 "$tmp/r/cpu.folded" | sort -u | tr '\n' ' ')
	[ "$pids" = "[100] [110] [120] [130] " ] ||
		{ echo "FAIL: cpu.folded: want [100] [110] [120] [130] under odd, got: $pids"; fail=1; }
	for p in 110 120 130; do
		grep -qx "odd;\[$p\];main_\[j\];launch_\[j\];main_\[j\] 100000" "$tmp/r/cpu.folded" ||
			{ echo "FAIL: cpu.folded: no 100 us of process $p under odd;[$p]"; fail=1; }
	done
	grep -q '^odd;\[100\];main_\[j\];launch_\[j\];cudaLaunchKernel;\[gpu\] odd_kernel ' "$tmp/r/gpu.folded" ||
		{ echo "FAIL: gpu.folded: the kernels are not under odd;[100]"; fail=1; }
	grep -qx 'main_\[j\];launch_\[j\];main_\[j\] 100000' "$tmp/r/thread-110-main.folded" ||
		{ echo "FAIL: thread-110-main.folded keeps a process frame"; head -2 "$tmp/r/thread-110-main.folded"; fail=1; }
	;;
*)
	die "unknown case '$CASE'"
	;;
esac
[ $fail -eq 0 ] && echo "ok: $CASE"
exit $fail
