#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_trace_json.py - check a trace.json (or .json.gz) the way ui.perfetto.dev and Catapult's
trace viewer read it.

usage: check_trace_json.py FILE [--count CAT=N]... [--dur NAME=US]... [--name NAME]...
                               [--name-hex HEX]... [--flows N] [--ts NAME=US]...
                               [--folded CPU.folded] [--stack STACK]... [--fan N]

Always checked: the file is valid JSON (gzip'd or not) in the Trace Event
Format object form; every ts/dur is printed with exactly three decimals;
every flow v2 bind_id is on exactly one API slice with flow_out and at
least one GPU slice with flow_in; every event's pid has a process_name and
every track a thread_name (a counter, "C", is its process's: it needs
none, and has non-negative numbers for values, ascending times per
name; --count counter:NAME=N counts them); timestamps ascend per track and category; the
complete ("X") slices of a track nest (no partial overlap); GPU processes
sort after host processes; every on-CPU sample names its stack ("sf") in
"stackFrames", whose frames have a name, a category of the kinds a
sample's frames have, and a parent that is there (no cycle); its name is
its leaf frame's (or "[unknown]": a sample with no addresses).
--folded: each sample's stack, root first with the folded files' kind
markers (category kernel: _[k], inline: _[i], jit: _[j]), is a line of
that cpu.folded, and the lines' weights are the samples' counts times one
sampling period: the same stacks, as often.
--stack: a sample has this stack (as --folded writes it).
--fan N: some launch's arrows go to N GPU slices (a graph launch of N kernels).
"""
import argparse
import collections
import gzip
import json
import re
import sys

GPU_PID_BASE = 0x40000000


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ns(v):
    # The writer prints integer ns as µs with three decimals; read them back exactly.
    return int(round(float(v) * 1000))


MARKERS = {"cpu": "", "kernel": "_[k]", "inline": "_[i]", "jit": "_[j]"}


def folded_name(name):
    """A frame name as folded.c writes it."""
    if not name:
        return "[unknown]"
    out = []
    for c in name:
        o = ord(c)
        out.append(":" if c == ";" else " " if c == "\t" else "?" if o < 0x20 or o == 0x7f else c)
    return "".join(out)


def sample_stacks(doc, evs):
    """The stack of each sample ("i" event of category cpu_sample), root first, folded."""
    frames = doc.get("stackFrames")
    if not isinstance(frames, dict):
        fail("no stackFrames object")
    for k, f in frames.items():
        if not isinstance(f, dict) or not isinstance(f.get("name"), str):
            fail("stack frame %s without a name" % k)
        if f.get("category") not in MARKERS:
            fail("stack frame %s of category %r" % (k, f.get("category")))
        if "parent" in f and f["parent"] not in frames:
            fail("stack frame %s: parent %r is not there" % (k, f["parent"]))
    memo = {}

    def path(k):
        if k in memo:
            return memo[k]
        out, seen, cur = [], set(), k
        while cur is not None:
            if cur in seen:
                fail("stack frame %s: its parents go round" % k)
            seen.add(cur)
            f = frames[cur]
            out.append(folded_name(f["name"]) + MARKERS[f["category"]])
            cur = f.get("parent")
        memo[k] = ";".join(reversed(out))
        return memo[k]

    stacks = collections.Counter()
    for e in evs:
        if e.get("cat") != "cpu_sample":
            continue
        if e.get("ph") != "i" or e.get("s") != "t":
            fail("a sample that is not a thread instant: %r" % e)
        if "sf" not in e:
            fail("a sample without a stack (sf): %r" % e)
        k = str(e["sf"])
        if k not in frames:
            fail("sample's sf %s is not in stackFrames" % k)
        if frames[k]["name"] != e["name"] and e["name"] != "[unknown]":
            fail("sample named %r, its leaf frame %r" % (e["name"], frames[k]["name"]))
        stacks[path(k)] += 1
    return stacks


def compare_folded(stacks, path):
    """The samples' stacks against cpu.folded: same lines, weights a period times the counts."""
    folded = collections.Counter()
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, _, w = line.rstrip("\n").rpartition(" ")
            folded[stack] += int(w)
    if set(folded) != set(stacks):
        fail("sample stacks differ from %s: only in the trace: %s; only there: %s" %
             (path, sorted(set(stacks) - set(folded))[:3], sorted(set(folded) - set(stacks))[:3]))
    periods = {folded[k] / stacks[k] for k in stacks}
    if len(periods) > 1:
        fail("%s's weights are not one period times the samples' counts: %s" %
             (path, sorted(periods)[:4]))
    return len(stacks), sum(stacks.values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--count", action="append", default=[], help="CAT=N slices of category CAT")
    ap.add_argument("--dur", action="append", default=[], help="NAME=US: every slice NAME lasts US")
    ap.add_argument("--ts", action="append", default=[], help="NAME=US: first slice NAME starts at US")
    ap.add_argument("--name", action="append", default=[], help="an event with this exact name exists")
    ap.add_argument("--name-hex", action="append", default=[],
                    help="as --name, the name given as hex of its UTF-8 bytes")
    ap.add_argument("--flows", type=int, help="number of distinct flows")
    ap.add_argument("--folded", help="cpu.folded of the same report: the samples' stacks")
    ap.add_argument("--stack", action="append", default=[], help="a sample has this stack")
    ap.add_argument("--fan", type=int, help="a launch's arrows go to this many GPU slices")
    a = ap.parse_args()

    with open(a.file, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")  # strict: the writer must never emit invalid UTF-8
    doc = json.loads(text)

    for m in re.finditer(r'"(ts|dur)":(-?[0-9.eE+]+)', text):
        if not re.fullmatch(r"[0-9]+\.[0-9]{3}", m.group(2)):
            fail("%s printed as %s, not with three decimals" % (m.group(1), m.group(2)))

    if not isinstance(doc, dict) or doc.get("displayTimeUnit") != "ns":
        fail("not an object with displayTimeUnit ns")
    evs = doc.get("traceEvents")
    if not isinstance(evs, list):
        fail("no traceEvents array")

    pnames, tnames, psort = {}, {}, {}
    for e in evs:
        if e.get("ph") != "M":
            continue
        if e["name"] == "process_name":
            pnames[e["pid"]] = e["args"]["name"]
        elif e["name"] == "thread_name":
            tnames[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e["name"] == "process_sort_index":
            psort[e["pid"]] = e["args"]["sort_index"]

    outs, ins = collections.Counter(), collections.Counter()
    last = {}
    slices = collections.defaultdict(list)
    counts = collections.Counter()
    by_name = collections.defaultdict(list)
    for e in evs:
        ph = e.get("ph")
        if ph == "M":
            continue
        for k in ("pid", "tid", "ts", "name"):
            if k not in e:
                fail("event without %s: %r" % (k, e))
        if e["pid"] not in pnames:
            fail("pid %d has no process_name" % e["pid"])
        if ph == "C":
            # a counter belongs to its process (the viewers draw one track per name)
            vals = e.get("args")
            if not isinstance(vals, dict) or not vals or not all(
                    isinstance(v, (int, float)) and v >= 0 for v in vals.values()):
                fail("counter without non-negative values: %r" % e)
            key = (e["pid"], "C", e["name"])
            t = ns(e["ts"])
            if key in last and t < last[key]:
                fail("counter %r goes back: %d after %d" % (key, t, last[key]))
            last[key] = t
            counts["counter:" + e["name"]] += 1
            continue
        if (e["pid"], e["tid"]) not in tnames:
            fail("track %d/%d has no thread_name" % (e["pid"], e["tid"]))
        key = (e["pid"], e["tid"], e.get("cat"))
        t = ns(e["ts"])
        if key in last and t < last[key]:
            fail("timestamps go back on track %r: %d after %d" % (key, t, last[key]))
        last[key] = t
        counts[e.get("cat")] += 1
        by_name[e["name"]].append(e)
        if ph == "X":
            if "dur" not in e:
                fail("X event without dur: %r" % e)
            slices[(e["pid"], e["tid"])].append((t, t + ns(e["dur"]), e["name"]))
        if "bind_id" in e:
            if e.get("flow_out"):
                if ph != "X" or e.get("cat") != "cuda_api":
                    fail("flow_out not on an API slice: %r" % e)
                outs[e["bind_id"]] += 1
            if e.get("flow_in"):
                if ph != "X" or not str(e.get("cat")).startswith("gpu_"):
                    fail("flow_in not on a GPU slice: %r" % e)
                ins[e["bind_id"]] += 1
    for b, n in outs.items():
        if n != 1:
            fail("bind_id %r has %d flow_out ends" % (b, n))
        if not ins[b]:
            fail("bind_id %r has no flow_in end" % b)
    for b in ins:
        if b not in outs:
            fail("bind_id %r has no flow_out end" % b)

    # Complete events on one track must nest, or the viewers mis-draw them.
    for track, sl in slices.items():
        sl.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for s, e, name in sl:
            while stack and stack[-1][1] <= s:
                stack.pop()
            if stack and e > stack[-1][1]:
                fail("%r overlaps %r on track %r without nesting" % (name, stack[-1][2], track))
            stack.append((s, e, name))

    host = [psort[p] for p in pnames if p < GPU_PID_BASE and p in psort]
    gpu = [psort[p] for p in pnames if p >= GPU_PID_BASE and p in psort]
    if host and gpu and max(host) >= min(gpu):
        fail("a GPU process sorts before a host process")

    for c in a.count:
        cat, n = c.split("=")
        if counts[cat] != int(n):
            fail("%d events of category %s, expected %s" % (counts[cat], cat, n))
    for d in a.dur:
        name, us = d.rsplit("=", 1)
        if not by_name[name]:
            fail("no event named %r" % name)
        for e in by_name[name]:
            if ns(e["dur"]) != ns(us):
                fail("%r lasts %s us, expected %s" % (name, e["dur"], us))
    for d in a.ts:
        name, us = d.rsplit("=", 1)
        if not by_name[name] or ns(by_name[name][0]["ts"]) != ns(us):
            fail("%r does not start at %s us" % (name, us))
    for name in a.name + [bytes.fromhex(h).decode("utf-8") for h in a.name_hex]:
        if name not in by_name:
            fail("no event named %r" % name)
    if a.flows is not None and len(outs) != a.flows:
        fail("%d flows, expected %d" % (len(outs), a.flows))
    if a.fan is not None and a.fan not in ins.values():
        fail("no launch's arrows go to %d GPU slices: %s" % (a.fan, sorted(set(ins.values()))))
    stacks = sample_stacks(doc, evs)
    for st in a.stack:
        if st not in stacks:
            fail("no sample with the stack %r; there are %s" % (st, sorted(stacks)[:4]))
    extra = ""
    if a.folded:
        n, k = compare_folded(stacks, a.folded)
        extra = ", %d samples' %d stacks as in %s" % (k, n, a.folded)
    print("ok: %d events, %d flows, %d tracks%s" % (len(evs), len(outs), len(tnames), extra))


if __name__ == "__main__":
    main()
