# SPDX-License-Identifier: Apache-2.0
# lib.sh: what bench/cpu/run.sh and attach.sh share (sourced): a scratch
# directory, BPF run-time statistics on, the fastest CPU time of REPS runs,
# per-program BPF cost from bpftool snapshots, one result row, the
# profile-bpfcc and offcputime rows.
# Needs REPS set by the caller.

LIB_DIR=$(dirname "$0")
TMP=$(mktemp -d)
OLD_STATS=$(cat /proc/sys/kernel/bpf_stats_enabled)
snapper=""
cleanup() {
	[ -n "$snapper" ] && kill "$snapper" 2>/dev/null
	echo "$OLD_STATS" > /proc/sys/kernel/bpf_stats_enabled
	rm -rf "$TMP"
}
trap cleanup EXIT
echo 1 > /proc/sys/kernel/bpf_stats_enabled

# fastest CPU time of REPS runs of: $@ (the workload prints "... X s cpu ...")
fastest() {
	i=0
	: > "$TMP/times"
	while [ $i -lt "$REPS" ]; do
		"$@" 2>"$TMP/err" | sed -n 's/.* \([0-9.]*\) s cpu.*/\1/p' >> "$TMP/times"
		i=$((i + 1))
	done
	sort -n "$TMP/times" | head -1
}

# Snapshot `bpftool prog show` every 0.2 s while a measured command runs, so
# the counters of programs that are gone by the end are still there.
snap_start() {
	rm -f "$TMP/snap"
	( while :; do bpftool prog show > "$TMP/snap.tmp" 2>/dev/null &&
		mv "$TMP/snap.tmp" "$TMP/snap"; sleep 0.2; done ) &
	snapper=$!
}
snap_stop() {
	kill "$snapper" 2>/dev/null || true
	wait "$snapper" 2>/dev/null || true
	snapper=""
}
# "name: N runs, X ns/run" for every program whose name matches $1
bpf_cost() {
	awk -v pat="$1" '
		/ name / { n = ""; for (i = 1; i <= NF; i++) if ($i == "name") n = $(i + 1) }
		/run_time_ns/ && n ~ pat {
			for (i = 1; i <= NF; i++) {
				if ($i == "run_time_ns") t = $(i + 1)
				if ($i == "run_cnt") c = $(i + 1)
			}
			if (c > 0) printf "    bpf %-16s %10d runs %8.0f ns/run\n", n, c, t / c
		}' "$TMP/snap" 2>/dev/null || true
}

row() {
	printf '%-44s %8s s cpu  (x%.2f)\n' "$1" "$2" "$(echo "$2 $3" | awk '{print $1 / $2}')"
}

# Can profile-bpfcc run? It compiles against kernel headers: the running
# kernel's, or else Debian's merged by bcc_headers.sh (BCC_KERNEL_SOURCE).
have_bcc() {
	command -v profile-bpfcc >/dev/null 2>&1 || { echo "profile-bpfcc: not installed (Debian: bpfcc-tools)"; return 1; }
	if [ -z "${BCC_KERNEL_SOURCE:-}" ]; then
		kdir=$(sh "$LIB_DIR/bcc_headers.sh" "$TMP/kernel-headers") ||
			{ echo "profile-bpfcc: no kernel headers to compile against (Debian: linux-headers-*-amd64)"; return 1; }
		export BCC_KERNEL_SOURCE="$kdir"
	fi
}

# bcc_rows "HZ..." WORKLOAD BASE: one row per frequency for WORKLOAD (a
# command line) under profile-bpfcc (system-wide), against baseline BASE;
# stops at the first frequency it cannot run at, saying why.
bcc_rows() {
	for hz in $1; do
		profile-bpfcc -F "$hz" -f 600 >/dev/null 2>"$TMP/bcc.err" &
		bcc=$!
		n=0 # bcc compiles its program at start: wait until it is loaded
		while ! bpftool prog show 2>/dev/null | grep -q 'name do_perf_event' && [ $n -lt 300 ]; do
			kill -0 $bcc 2>/dev/null || break
			sleep 0.1
			n=$((n + 1))
		done
		if ! kill -0 $bcc 2>/dev/null; then
			echo "profile-bpfcc: cannot run here: $(grep -m1 -i 'error\|exception' "$TMP/bcc.err")"
			wait $bcc 2>/dev/null || true
			return
		fi
		snap_start
		_t=$(fastest $2) # $2 is a command line: split it
		snap_stop
		row "profile-bpfcc -F $hz (system-wide)" "$_t" "$3"
		bpf_cost '^do_perf_event'
		# TERM: a background job of a script starts with SIGINT ignored, and python keeps it so
		kill -TERM $bcc 2>/dev/null || true
		wait $bcc 2>/dev/null || true
	done
}

# Row for libbpf-tools' offcputime (system-wide) while workload $1 runs,
# against baseline $2; a note where it is not installed.
offcputime_row() {
	if ! command -v offcputime >/dev/null 2>&1; then
		echo "offcputime: not installed (Debian: libbpf-tools)"
		return
	fi
	snap_start
	offcputime 600 >/dev/null 2>&1 &
	_oc=$!
	sleep 3
	_t=$(fastest $1) # $1 is a command line: split it
	kill -INT $_oc 2>/dev/null || true
	wait $_oc 2>/dev/null || true
	snap_stop
	row "offcputime (libbpf-tools, system-wide)" "$_t" "$2"
	bpf_cost 'sched_switch'
}
