# SPDX-License-Identifier: Apache-2.0
# lib.sh: what bench/cpu/run.sh and attach.sh share (sourced): a scratch
# directory, BPF run-time statistics on, the fastest CPU time of REPS runs,
# per-program BPF cost from bpftool snapshots, one result row.
# Needs REPS set by the caller.

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
