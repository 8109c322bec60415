#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pftrace_tp.py - read a trace.pftrace with Perfetto's own trace processor and compare
what it imported with the trace.json of the same recording.

usage: pftrace_tp.py TRACE_PROCESSOR_SHELL TRACE.pftrace TRACE.json [CPU.folded]

Checks, with the trace processor's SQL (`trace_processor_shell query FILE SQL`, CSV out):
- no import error or data loss in its `stats` table;
- the same slices (name, start from the first event and duration in ns) as
  trace.json's "X" events, as many on each host thread's tracks (its off-CPU
  track included) as trace.json has on that thread;
- its on-CPU samples in perf_sample: as many per thread as trace.json's
  samples, each with the stack its "sf" names (stack_profile_callsite and
  stack_profile_frame, root first); with CPU.folded, the same stacks as
  there (frame kinds as the folded markers: stack_profile_frame's type,
  v58+, else names only);
- as many flow arrows as trace.json binds (one per launch and GPU record it reached);
- the thread, process and GPU stream track names;
- every kernel's launch configuration (grid, block, registers) and as many
  correlation ids as arguments as in trace.json;
- and trace.json itself, read by the trace processor: no import error, its
  slices and flows all there.
Not run by ctest unless a trace processor is given (tests/report/pftrace.sh:
GPUPERF_TRACE_PROCESSOR); the Debian-based CI has none.
"""
import collections
import csv
import io
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "merger"))
from check_pftrace import json_stack, json_track_names  # noqa: E402
from protowire import fail  # noqa: E402

GPU_PID_BASE = 0x40000000  # chrome_trace.h: CHROME_TRACE_GPU_PID_BASE
OFFCPU_TID = 0x40000000  # CHROME_TRACE_OFFCPU_TID


def query(tp, trace, sql):
    p = subprocess.run([tp, "query", trace, sql], capture_output=True, text=True)
    if p.returncode != 0:
        fail("trace processor: %s" % (p.stderr.strip() or p.stdout.strip()))
    rows = list(csv.reader(io.StringIO(p.stdout.strip())))
    return rows[1:] if rows else []


def json_events(path):
    with open(path) as f:
        doc = json.load(f)
    pname, tname = json_track_names(doc)
    # a GPU's streams are threads of a process of its own in trace.json, child tracks here
    streams = {n for (pid, tid), n in tname.items() if pid >= GPU_PID_BASE}
    # a thread's off-CPU spans: a thread of its own there (tid + OFFCPU_TID), a child track here
    tname = {k: n for k, n in tname.items() if k[0] < GPU_PID_BASE and k[1] < OFFCPU_TID}
    out, binds, per_tid = [], collections.Counter(), collections.Counter()
    kcfg, corr = [], 0
    samples = collections.Counter()
    for e in doc["traceEvents"]:
        if e["ph"] == "i" and e.get("cat") == "cpu_sample":
            samples[(str(e["tid"]), json_stack(doc["stackFrames"], e["sf"], False))] += 1
            continue
        if e["ph"] not in ("X", "i"):
            continue
        if e["pid"] < GPU_PID_BASE:
            per_tid[str(e["tid"] % OFFCPU_TID)] += 1
        ts = int(round(float(e["ts"]) * 1000))
        dur = int(round(float(e["dur"]) * 1000)) if e["ph"] == "X" else 0
        out.append((e["name"], ts, dur))
        a = e.get("args", {})
        if "grid" in a:
            kcfg.append((e["name"], ts, a["grid"], a["block"], str(a["registers_per_thread"])))
        if "correlation_id" in a:
            corr += 1
        if "bind_id" in e and not e.get("flow_out"):
            binds[e["bind_id"]] += 1
    return (out, sum(binds.values()), set(pname.values()), set(tname.values()), streams,
            per_tid, kcfg, corr, samples)


def rel(rows):
    base = min(r[1] for r in rows)
    return collections.Counter((n, t - base, d) for n, t, d in rows)


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__.strip().splitlines()[2])
        sys.exit(2)
    tp, trace, js = sys.argv[1:4]
    bad = query(tp, trace, "select name, idx, source, value from stats "
                           "where value > 0 and severity in ('error', 'data_loss')")
    if bad:
        fail("trace processor stats: %s" % bad)

    want, want_flows, procs, threads, want_streams, want_per_tid, want_kcfg, want_corr, \
        want_samples = json_events(js)
    got = [(n, int(t), int(d)) for n, t, d in
           query(tp, trace, "select name, ts, dur from slice")]
    if not got:
        fail("the trace processor imported no slices")
    mine, theirs = rel(got), rel(want)
    if mine != theirs:
        fail("slices differ from trace.json (%d here, %d there); only here: %s; only there: %s"
             % (len(got), len(want), list((mine - theirs).elements())[:4],
                list((theirs - mine).elements())[:4]))
    flows = int(query(tp, trace, "select count(*) from flow")[0][0])
    if flows != want_flows:
        fail("%d flows, trace.json binds %d" % (flows, want_flows))

    tnames = {r[0] for r in query(tp, trace, "select name from thread where name is not null")}
    pnames = {r[0] for r in query(tp, trace, "select name from process where name is not null")}
    if not threads <= tnames or not procs <= pnames:
        fail("threads %s / processes %s, trace.json names %s / %s" %
             (sorted(tnames), sorted(pnames), sorted(threads), sorted(procs)))
    per_tid = {r[0]: int(r[1]) for r in query(
        tp, trace, "select thread.tid, count(*) from slice s join thread_track tt "
                   "on s.track_id = tt.id join thread using(utid) group by 1")}
    if per_tid != dict(want_per_tid):
        fail("slices per host thread %s, trace.json %s" % (per_tid, dict(want_per_tid)))
    streams = {r[0] for r in query(tp, trace, "select distinct t.name from slice s join track t "
                                              "on s.track_id = t.id where t.name like 'stream %'")}
    if streams != want_streams:
        fail("GPU work on tracks %s, trace.json on %s" % (sorted(streams), sorted(want_streams)))

    base_json, base_tp = min(r[1] for r in want), min(r[1] for r in got)
    k = query(tp, trace, "select name, ts, extract_arg(arg_set_id, 'debug.grid'), "
                         "extract_arg(arg_set_id, 'debug.block'), "
                         "extract_arg(arg_set_id, 'debug.registers_per_thread') from slice "
                         "where extract_arg(arg_set_id, 'debug.grid') is not null")
    mine = collections.Counter((n, int(t) - base_tp, g, b, r) for n, t, g, b, r in k)
    theirs = collections.Counter((n, t - base_json, g, b, r) for n, t, g, b, r in want_kcfg)
    if mine != theirs:
        fail("kernel launch configurations differ: %d here, %d in trace.json, e.g. %s vs %s" %
             (len(k), len(want_kcfg), list((mine - theirs).elements())[:2],
              list((theirs - mine).elements())[:2]))
    c = int(query(tp, trace, "select count(*) from slice "
                             "where extract_arg(arg_set_id, 'debug.correlation_id') is not null")[0][0])
    if c != want_corr:
        fail("%d slices with a correlation_id, trace.json has %d" % (c, want_corr))
    # the samples: perf_sample rows, each callsite's frames walked up to the root
    frames = {r[0]: (r[1], r[2]) for r in query(
        tp, trace, "select c.id, c.parent_id, f.name from stack_profile_callsite c "
                   "join stack_profile_frame f on c.frame_id = f.id")}
    got_samples = collections.Counter()
    for tid, cs in query(tp, trace, "select thread.tid, s.callsite_id from perf_sample s "
                                    "join thread using(utid)"):
        names, cur = [], cs
        while cur and cur in frames:
            parent, name = frames[cur]
            names.append(name)
            cur = parent
        got_samples[(tid, ";".join(reversed(names)))] += 1
    if got_samples != want_samples:
        fail("perf samples %d, trace.json %d; only here: %s; only there: %s" %
             (sum(got_samples.values()), sum(want_samples.values()),
              list((got_samples - want_samples).elements())[:3],
              list((want_samples - got_samples).elements())[:3]))
    if len(sys.argv) == 5:
        kinds = {"kernel": "_[k]", "jit": "_[j]", "inlined": "_[i]"}
        typed = {r[0]: (r[1], r[2], kinds.get(r[3], "")) for r in query(
            tp, trace, "select c.id, c.parent_id, f.name, f.type from stack_profile_callsite c "
                       "join stack_profile_frame f on c.frame_id = f.id")}
        stacks = set()
        for (cs,) in query(tp, trace, "select distinct callsite_id from perf_sample"):
            names, cur = [], cs
            while cur and cur in typed:
                parent, name, mark = typed[cur]
                names.append(name + mark)
                cur = parent
            stacks.add(";".join(reversed(names)))
        with open(sys.argv[4]) as f:
            folded = {line.rstrip("\n").rpartition(" ")[0] for line in f}
        if stacks != folded:
            fail("perf sample stacks differ from %s: only here %s, only there %s" %
                 (sys.argv[4], sorted(stacks - folded)[:3], sorted(folded - stacks)[:3]))
    # trace.json itself, as the trace processor reads it (flow v2: bind_id, flow_in/out)
    bad = query(tp, js, "select name, idx, source, value from stats "
                        "where value > 0 and severity in ('error', 'data_loss')")
    if bad:
        fail("trace processor stats for trace.json: %s" % bad)
    n = int(query(tp, js, "select count(*) from slice")[0][0])
    f = int(query(tp, js, "select count(*) from flow")[0][0])
    if n != len(want) + sum(want_samples.values()) or f != want_flows:
        fail("the trace processor reads trace.json as %d slices and %d flows, not %d and %d" %
             (n, f, len(want), want_flows))
    print("ok: the trace processor reads %d slices, %d flows, %d stream track(s), %d perf "
          "samples with their stacks, no import errors; the same as %s, which it reads alike" %
          (len(got), flows, len(streams), sum(got_samples.values()), js))


if __name__ == "__main__":
    main()
