#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh - time and peak RSS of `gpuperf report` on a synthetic recording
# (default: 10M GPU records, 1M CPU samples), against the cost of just
# reading the same traces, and per output format.
#
# usage: bench/report/run.sh BUILD_DIR [--steps N] [--samples S] [--every K]
#                            [--two-threads] [--sparse-ids] [--depth D] [--reps R]
#                            [--dir DIR] [--keep] [--no-formats]
# --steps N     gen_recording steps: 4 GPU records (+4 API calls, 3 launch-site
#               hits, 1 off-CPU span) each [2500000 = 10M GPU records]
# --samples S   CPU samples per thread (2 threads) every K-th step [1]
# --every K     [5]: 2 * S * N / K samples = 1M at the defaults
# --two-threads the loader thread makes a CUDA call every step too
#               (gen_recording -l -i): API calls of two threads interleaved in
#               time, their correlation ids from one counter, as CUPTI's are
# --sparse-ids  with --two-threads: the loader's ids in a range of their own
#               (gen_recording -l): the join's hash table instead of its array
# --depth D     D more frames in every launch stack and main-thread sample
#               (gen_recording -D): 4 + D frames a launch stack [0]
# --reps R      timed runs of each command, best wall time kept [1]
# --dir DIR     where the recording goes (reused when it is already there)
#               [a temporary directory, removed at exit unless --keep]
# --no-formats  time only -f all, not each format on its own
# Outputs go to a temporary directory and are removed after each run. Rows: wall and
# CPU time (user + sys) with their ratio to reading alone, GPU records/s, peak RSS and
# the bytes written, each per GPU record; then what the machine charges for the peak
# RSS (memory:) and for writing the output (disk:) on their own.
# Goals (issue): >= 5M GPU records/s end to end, peak RSS <= 100 B/GPU record.
set -eu

BUILD=${1:?usage: run.sh BUILD_DIR [--steps N] [--samples S] [--every K] [--reps R] [--dir DIR] [--keep]}
shift
STEPS=2500000
SAMPLES=1
EVERY=5
GENOPTS=
REPS=1
DIR=
KEEP=0
FORMATS=1
SPARSE=0
DEPTH=0
while [ $# -gt 0 ]; do
	case "$1" in
	--steps) STEPS=$2; shift 2 ;;
	--samples) SAMPLES=$2; shift 2 ;;
	--every) EVERY=$2; shift 2 ;;
	--two-threads) GENOPTS="-l -i"; shift ;;
	--sparse-ids) SPARSE=1; shift ;;
	--depth) DEPTH=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--dir) DIR=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--no-formats) FORMATS=0; shift ;;
	*) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ "$SPARSE" = 0 ] || [ -n "$GENOPTS" ] || { echo "run.sh: --sparse-ids goes with --two-threads" >&2; exit 2; }
[ "$SPARSE" = 0 ] || GENOPTS=-l
GENOPTS="$GENOPTS -D $DEPTH"
GPUPERF=$BUILD/cli/gpuperf
GEN=$BUILD/tests/report/gen_recording
TOUCH=$BUILD/bench/report/touch_mem
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "run.sh: needs GNU time (apt-get install time)" >&2; exit 77; }
[ -x "$GEN" ] || { echo "run.sh: no $GEN (configure with tests on and build gen_recording)" >&2; exit 77; }
TMP=$(mktemp -d)
OWN_DIR=0
if [ -z "$DIR" ]; then
	DIR=$TMP/rec
	OWN_DIR=1
fi
cleanup() {
	if [ "$OWN_DIR" = 1 ] && [ "$KEEP" = 1 ]; then
		rm -rf "$TMP/out" "$TMP/t" "$TMP/stats"
		echo "recording kept in $DIR"
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT

if [ ! -f "$DIR/cpu.trace" ]; then
	mkdir -p "$DIR"
	"$TIME" -f "%e" -o "$TMP/t" "$GEN" -n "$STEPS" -s "$SAMPLES" -k "$EVERY" $GENOPTS "$DIR"
	echo "generated in $(cat "$TMP/t") s: $DIR"
fi
TRACES=$(ls "$DIR"/cpu.trace "$DIR"/gpu-*.trace)
# Count what the recording holds (it may come from --dir, made with other options).
"$GPUPERF" dump --stats $TRACES >"$TMP/stats"
NGPU=$(awk '$1 == "kernel" || $1 == "memcpy" || $1 == "memset" { n += $2 } END { print n + 0 }' "$TMP/stats")
NSAMP=$(awk '$1 == "cpu_sample" { n += $2 } END { print n + 0 }' "$TMP/stats")
NAPI=$(awk '$1 == "api" { n += $2 } END { print n + 0 }' "$TMP/stats")
[ "$NGPU" -gt 0 ] || { echo "run.sh: no GPU records in $DIR" >&2; exit 1; }
echo "recording: $NGPU GPU records, $NAPI API calls, $NSAMP CPU samples, $(du -cb $TRACES | tail -1 | cut -f1) bytes of traces"

# best_of CMD...: run REPS times, print "best_wall_s user_s sys_s max_rss_kib out_bytes"
# (out_bytes: what the command wrote to $TMP/out).
best_of() {
	best=""
	rss=0
	r=0
	while [ "$r" -lt "$REPS" ]; do
		rm -rf "$TMP/out"
		mkdir -p "$TMP/out"
		"$TIME" -f "%e %U %S %M" -o "$TMP/t" "$@" >/dev/null
		w=$(cut -d' ' -f1 "$TMP/t")
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$w
			u=$(cut -d' ' -f2 "$TMP/t")
			s=$(cut -d' ' -f3 "$TMP/t")
		fi
		m=$(cut -d' ' -f4 "$TMP/t")
		[ "$m" -gt "$rss" ] && rss=$m
		r=$((r + 1))
	done
	ob=$(du -sb "$TMP/out" | cut -f1)
	echo "$best $u $s $rss $ob"
}

# line LABEL "wall user sys rss out": one row; ratios against the read-only baseline (wall
# and CPU = user + sys), output bytes per GPU record.
line() {
	set -- "$1" $2
	awk -v l="$1" -v w="$2" -v u="$3" -v s="$4" -v m="$5" -v o="$6" -v n="$NGPU" -v bw="$BASE_WALL" -v bc="$BASE_CPU" \
		'BEGIN { printf "%-32s wall %6.2fs x%4.1f  cpu %6.2fs (user %6.2f sys %5.2f) x%4.1f  %5.2fM GPU rec/s  RSS %7d KiB %5.1f B/rec  out %6.1f B/rec\n",
			l, w, (bw > 0 ? w / bw : 0), u + s, u, s, (bc > 0 ? (u + s) / bc : 0),
			(w > 0 ? n / w / 1e6 : 0), m, m * 1024 / n, o / n }'
}

# Baseline: decoding every record of the traces and nothing else.
BASE_WALL=0
BASE_CPU=0
base=$(best_of "$GPUPERF" dump --stats $TRACES)
BASE_WALL=$(echo "$base" | cut -d' ' -f1)
BASE_CPU=$(echo "$base" | awk '{ print $2 + $3 }')
line "dump --stats (read only)" "$base"

# The default command: trace.pftrace when trace.json would pass 256 MiB (--gzip=auto).
all=$(best_of "$GPUPERF" report -q -o "$TMP/out" "$DIR")
line "report (default, -f all)" "$all"
if [ "$FORMATS" = 1 ]; then
	res=$(best_of "$GPUPERF" report -q --gzip=never -o "$TMP/out" "$DIR")
	line "report --gzip=never" "$res"
	for f in folded svg json pprof folded,svg,json folded,svg,pprof,json perfetto chrome; do
		res=$(best_of "$GPUPERF" report -q -f "$f" -o "$TMP/out" "$DIR")
		line "report -f $f" "$res"
	done
	res=$(best_of "$GPUPERF" report -q -f chrome --gzip=never -o "$TMP/out" "$DIR")
	line "report -f chrome --gzip=never" "$res"
	# What writing plain trace.json is up against: the output file system's write rate.
	rm -rf "$TMP/out" && mkdir -p "$TMP/out"
	"$TIME" -f "%e %U %S" -o "$TMP/t" dd if=/dev/zero of="$TMP/out/dd" bs=1M count=2048 conv=fdatasync 2>/dev/null
	awk '{ printf "write bandwidth (dd 2 GiB + fdatasync to the output directory): %.0f MB/s (sys %.2fs)\n", 2147.483648 / $1, $3 }' "$TMP/t"
fi
rm -rf "$TMP/out"
set -- $all
# The machine's price for the default report's peak RSS: mapping, first-touching and
# unmapping that many fresh pages, as a share of the report's wall time.
if [ -x "$TOUCH" ]; then
	mem=$("$TOUCH" $(($4 / 1024 + 1)) 3) || { echo "run.sh: $TOUCH failed" >&2; exit 1; }
	echo "$mem" | awk -v w="$1" -v m="$4" '{
		printf "memory: first touch and unmap of %d MiB (the peak RSS) alone: %.2fs, %.2f us/page, %.0f%% of the report'"'"'s wall time\n",
			m / 1024 + 1, $1, $2, (w > 0 ? 100 * $1 / w : 0) }'
fi
# The output device's price for the report's bytes: writing as many with O_DIRECT alone
# (4 MiB at a time, as the report's trace writer does; it keeps up to four in flight).
mkdir -p "$TMP/out"
blocks=$(($5 / 4194304 + 1))
if "$TIME" -f "%e" -o "$TMP/t" dd if=/dev/zero of="$TMP/out/dd" bs=4M count="$blocks" oflag=direct 2>/dev/null; then
	awk -v w="$1" -v b="$blocks" '{
		printf "disk: writing the report'"'"'s %d MiB with O_DIRECT alone: %.2fs (%.2f GB/s), %.0f%% of the report'"'"'s wall time\n",
			4 * b, $1, ($1 > 0 ? 4 * b * 1.048576 / 1000 / $1 : 0), (w > 0 ? 100 * $1 / w : 0) }' "$TMP/t"
fi
rm -rf "$TMP/out"
awk -v w="$1" -v m="$4" -v n="$NGPU" 'BEGIN {
	r = w > 0 ? n / w / 1e6 : 0; b = m * 1024 / n;
	printf "goal: >= 5M GPU records/s: %.2fM (%s); <= 100 B/GPU record: %.1f (%s)\n",
		r, (r >= 5 ? "met" : "not met"), b, (b <= 100 ? "met" : "not met") }'
