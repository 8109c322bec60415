# SPDX-License-Identifier: Apache-2.0
# Sourced by check-golden.sh and update-golden.sh: what `gpuperf report` writes for the
# synthetic recording of gen_recording, and how each file is made comparable.
# Needs GPUPERF, GEN, PYTHON.

GOLDEN_FILES="cpu.folded offcpu.folded gpu.folded profile.folded gpu_idle.folded
thread-100-train.folded thread-101-loader.folded summary.json trace.json profile.svg
analysis.txt report.txt"

# make_report DIR: generate the recording into DIR and report on it.
make_report() {
	mkdir -p "$1" && "$GEN" -n 20 -s 2 -u "$1" || return 1
	# report.txt: the text report (stdout; nothing else is said), with the directory's name taken out
	"$GPUPERF" report --per-thread "$1" >"$1/report.raw" 2>&1 || return 1
	sed "s|$1|DIR|g" "$1/report.raw" >"$1/report.txt" && rm "$1/report.raw" || return 1
	# the host and the tool version are the machine's, not the data's
	"$PYTHON" - "$1/summary.json" <<'PY' || return 1
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["host"] = {"hostname": "-", "kernel": "-", "machine": "-"}
d["tool"]["version"] = "-"
open(p, "w").write(json.dumps(d, indent=1, sort_keys=True) + "\n")
PY
}
