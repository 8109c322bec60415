#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Check `gpuperf report --per-thread` of a wallprog recording (wallclock.sh).

usage: check_wallclock.py DIR PID SPINNER SLEEPER LOCKER READER POLLER STUCK
Prints one "ok"/"FAIL" line per check; exit status 1 when any failed.
"""
import json
import math
import os
import sys

d = sys.argv[1]
pid, spinner, sleeper, locker, reader, poller, stuck = (int(x) for x in sys.argv[2:9])
fails = 0


def check(cond, what):
    global fails
    print(("ok   [wallclock]: " if cond else "FAIL [wallclock]: ") + what)
    if not cond:
        fails += 1


def folded(path):
    """(frames, weight) of each line; frames without flamegraph.pl's _[k] annotations."""
    out = []
    for line in open(path):
        stack, _, w = line.rstrip("\n").rpartition(" ")
        frames = [f[:-4] if f[-4:-3] == "_" and f.endswith("]") else f for f in stack.split(";")]
        out.append((frames, int(w)))
    return out


summary = json.load(open(os.path.join(d, "summary.json")))
rec = json.load(open(os.path.join(d, "record.json")))
window = rec["end_monotonic_ns"] - rec["start_monotonic_ns"]
threads = {t["tid"]: t for t in summary["threads"] if t["pid"] == pid}
names = {spinner: "spinner", sleeper: "sleeper", locker: "locker", reader: "reader",
         poller: "poller", stuck: "stuck"}

check(summary["schema_version"] == "1.10", "summary.json schema_version 1.10")

# every thread has its files
for tid, name in names.items():
    for ext in ("folded", "svg"):
        f = os.path.join(d, "thread-%d-%s.%s" % (tid, name, ext))
        check(os.path.isfile(f) and os.path.getsize(f) > 0, "thread-%d-%s.%s exists" % (tid, name, ext))

# hot_spin: >= 90% of the spinner's on-CPU time, and of the process's
spin = [(f, w) for f, w in folded(os.path.join(d, "thread-%d-spinner.folded" % spinner))
        if "[off-cpu]" not in f]
on = sum(w for _, w in spin)
hot = sum(w for f, w in spin if "hot_spin" in f)
check(on > 0 and hot >= 0.9 * on, "hot_spin holds %.1f%% of the spinner's on-CPU time"
      % (100.0 * hot / on if on else 0))
cpu = folded(os.path.join(d, "cpu.folded"))
on_all = sum(w for _, w in cpu)
hot_all = sum(w for f, w in cpu if "hot_spin" in f)
check(on_all > 0 and hot_all >= 0.9 * on_all, "hot_spin holds %.1f%% of the process's on-CPU time"
      % (100.0 * hot_all / on_all if on_all else 0))

# the sleeper: its time under sleepy_wait ... nanosleep is the recording's length, within 5%
sl = folded(os.path.join(d, "thread-%d-sleeper.folded" % sleeper))
asleep = sum(w for f, w in sl if "sleepy_wait" in f and "[off-cpu]" in f
             and any("nanosleep" in x for x in f[f.index("[off-cpu]"):]))
check(abs(asleep - window) <= 0.05 * window,
      "sleeper: %.3f s under sleepy_wait;...;nanosleep, recording %.3f s (%.1f%%)"
      % (asleep / 1e9, window / 1e9, 100.0 * asleep / window))

# classes, in summary.json and analysis.txt
want = {spinner: "cpu-bound", sleeper: "sleeping", locker: "lock-wait", reader: "io-blocked",
        poller: "idle", stuck: "io-blocked"}
text = open(os.path.join(d, "analysis.txt")).read()
rows = {}
for line in text.splitlines():
    p = line.split()
    if len(p) > 10 and p[0] == str(pid) and p[1].isdigit():
        rows[int(p[1])] = line
hz = json.load(open(os.path.join(d, "record.json")))["options"]["freq_hz"]
for tid, cls in want.items():
    t = threads.get(tid)
    check(t is not None and t["class"] == cls, "summary.json: %s is %s (%s)"
          % (names[tid], cls, t["class"] if t else "missing"))
    check(tid in rows and (" %s " % cls) in rows[tid], "analysis.txt: %s is %s" % (names[tid], cls))
    if t:
        check(t["name"] == names[tid], "summary.json: thread %d is named %s" % (tid, t["name"]))
        # blocks in progress when the recording starts and stops are cut there and
        # counted (the stuck thread is blocked throughout), so nothing is lost at the ends.
        # Off-CPU time is exact; on-CPU time is sampled at 99 Hz: a thread sharing a
        # busy CPU (on a fraction p of the ticks) is off by a binomial error, so allow
        # 3 standard deviations of it beyond 5%. A thread that never runs gets 5%.
        ticks = t["lifetime_ns"] * hz / 1e9
        p_on = min(1.0, t["on_cpu_ns"] / t["lifetime_ns"]) if t["lifetime_ns"] else 0
        tol = 0.05 + 3 * math.sqrt(ticks * p_on * (1 - p_on)) / ticks if ticks else 0.05
        check(abs(t["coverage"] - 1) <= tol,
              "summary.json: %s coverage %.3f (within %.3f): on %.0f ms, off %.0f ms, lifetime %.0f ms"
              % (names[tid], t["coverage"], tol, t["on_cpu_ns"] / 1e6, t["off_cpu_ns"] / 1e6,
                 t["lifetime_ns"] / 1e6))
        check(abs(t["on_cpu_ns"] + t["off_cpu_ns"] - t["coverage"] * t["lifetime_ns"]) < 1e6,
              "summary.json: %s coverage = (on + off) / lifetime" % names[tid])
reasons = {sleeper: "sleep", locker: "locks", reader: "io", poller: "poll", stuck: "io"}
for tid, cat in reasons.items():
    t = threads.get(tid, {})
    check(t.get("top_reason_category") == cat and t.get("top_reason"),
          "summary.json: %s blocked mostly in %s (%s)" % (names[tid], cat, t.get("top_reason")))

# the stuck thread: one span as long as the recording, under stuck_wait;...;pipe_read
st = folded(os.path.join(d, "thread-%d-stuck.folded" % stuck))
blocked = sum(w for f, w in st if "stuck_wait" in f and "[off-cpu]" in f
              and any("pipe_read" in x for x in f[f.index("[off-cpu]"):]))
check(abs(blocked - window) <= 0.02 * window,
      "stuck: %.3f s under stuck_wait;...;pipe_read, recording %.3f s"
      % (blocked / 1e9, window / 1e9))

# per process coverage, and the coverage lines of analysis.txt
procs = [p for p in summary["processes"] if p["pid"] == pid]
check(len(procs) == 1 and 0.95 <= procs[0].get("coverage", 0) <= 1.05,
      "summary.json: process coverage %s" % (procs[0].get("coverage") if procs else None))
check("coverage" in text and "above 100%" in text and "below 100%" in text,
      "analysis.txt explains coverage")
check("top on-CPU stacks" in text and "hot_spin" in text.split("top on-CPU stacks")[1],
      "analysis.txt: hot_spin among the top on-CPU stacks")
check("top off-CPU stacks" in text and "sleepy_wait" in text.split("top off-CPU stacks")[1],
      "analysis.txt: sleepy_wait among the top off-CPU stacks")
sys.exit(1 if fails else 0)
