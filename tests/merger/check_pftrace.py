#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_pftrace.py - read a trace.pftrace the way Perfetto's trace processor does, and
compare it with the trace.json of the same recording.

usage: check_pftrace.py FILE.pftrace [--json TRACE.json] [--folded CPU.folded] [--min-slices N]

A decoder of its own (protowire.py: no protobuf library, no code shared with the writer),
with the reader's rules (protos/perfetto/trace/trace_packet.proto, clock_snapshot.proto,
trace_packet_defaults.proto and track_event/*.proto; the trace processor's
proto_trace_reader.cc, track_event_tokenizer.cc and clock_synchronizer.cc):
- the file is a Trace: only field 1 (packet), length-delimited;
- a packet with a track_event has a trusted_packet_sequence_id; each
  sequence has its own interned data and trace_packet_defaults, taken only
  after a packet of its sequence with SEQ_INCREMENTAL_STATE_CLEARED (which
  also forgets them); a packet that says it needs incremental state before
  that fails the check (the reader would drop it);
- timestamps: a packet's timestamp_clock_id, else its sequence's default
  clock, else none (the value is trace time). A sequence-scoped clock
  (64-127) needs a ClockSnapshot on that sequence first, with
  CLOCK_MONOTONIC in it; an incremental one adds each packet's value to its
  previous one. The trace's clock must be CLOCK_MONOTONIC
  (primary_trace_clock), set before any timestamp is converted, and a
  snapshot must relate CLOCK_BOOTTIME to it (the reader relates BOOTTIME to
  the trace's clock and reports an import error where nothing does); a
  packet with a clock_snapshot carries nothing else the reader would take;
- every name_iid and debug annotation name_iid resolves; every track_uuid
  (the event's, else the sequence default's) is declared by a
  TrackDescriptor; a thread track has a pid and tid, a child track's
  parent exists;
- a counter track (a TrackDescriptor with a CounterDescriptor) holds
  only counter events (TYPE_COUNTER with a counter_value), and no other
  track holds one;
- events sorted by timestamp, file order kept for equal ones; a
  SLICE_END closes the innermost open slice of its track, and there must
  be one; no slice is left open at the end;
- flow_ids / terminating_flow_ids (fixed64, fields 47/48, or the varint
  *_old fields 36/42, which the reader takes when the others are absent),
  as the reader's flow tracker draws them: a slice naming an id that is in
  flight gets an arrow from the slice that last named it, and a
  non-terminating id then goes on from this slice (a chain, not a fan);
- on-CPU samples (PerfSample, profiling/profile_packet.proto, and the
  reader's stack_profile_sequence_state.cc): pid, tid and a callstack_iid
  that resolves on its sequence, through its frames (interned_data
  callstacks, frames, function_names, mappings, mapping_paths: each iid
  there) to a stack, root first; a thread track of that pid and tid names
  the thread. A frame's kind gives the folded files' marker (KIND_KERNEL
  _[k], KIND_JIT _[j], kind_str "inlined" _[i]).
Pinned to Perfetto's protos and trace processor of v58 (checked against
commit ec5d16b, 2026-08-22).
With --json, the slices, instants (name, track, start and duration in ns
from the first event, arguments), the flows (from each launch to every
slice it has an arrow to), the samples (thread, time, cpu, stack) and the
counters' values (process, name, time, value) must be the same as in
trace.json. With --folded, the samples' stacks must be
the lines of that cpu.folded, as often as its weights say (one period
each).
"""
import argparse
import collections
import gzip
import json
import math
import codecs
import struct

from protowire import fail, fields

GPU_PID_BASE = 0x40000000
codecs.register_error("qmark", lambda e: ("?" * (e.end - e.start), e.end))


def one(fs, fno, wt=None, default=None):
    vals = [v for f, w, v in fs if f == fno and (wt is None or w == wt)]
    if len(vals) > 1:
        fail("field %d given %d times" % (fno, len(vals)))
    return vals[0] if vals else default


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def annotation(da, names, svals):
    fs = fields(da)
    iid = one(fs, 1)
    key = names.get(iid) if iid is not None else (one(fs, 10) or b"").decode()
    if key is None:
        fail("debug annotation name_iid %s not interned" % iid)
    sv = one(fs, 17)
    if sv is not None:
        if sv not in svals:
            fail("debug annotation %s: string_value_iid %d not interned" % (key, sv))
        return key, svals[sv]
    for fno, conv in ((3, lambda v: v), (4, signed),
                      (5, lambda v: struct.unpack("<d", struct.pack("<Q", v))[0]),
                      (6, lambda v: v.decode("utf-8")), (2, bool)):
        v = one(fs, fno)
        if v is not None:
            return key, conv(v)
    fail("debug annotation %s without a value" % key)


MONOTONIC = 3
BOOTTIME = 6


def new_seq():
    return {"names": {}, "args": {}, "svals": {}, "track": None, "clock": None, "clocks": {},
            "fnames": {}, "frames": {}, "callstacks": {}, "mpaths": {}, "mappings": {}}


MARK = {2: "_[k]", 4: "_[j]"}


def folded_name(name):
    """A frame name as folded.c writes it."""
    if not name:
        return "[unknown]"
    return "".join(":" if c == ";" else " " if c == "\t" else
                   "?" if ord(c) < 0x20 or ord(c) == 0x7f else c for c in name)


def callstack(sq, iid, order):
    """A callstack iid of sequence sq as a folded stack, resolved as the reader does."""
    if iid not in sq["callstacks"]:
        fail("packet %d: callstack_iid %d not interned" % (order, iid))
    out = []
    for fid in sq["callstacks"][iid]:
        fr = sq["frames"].get(fid)
        if fr is None:
            fail("packet %d: frame %d not interned" % (order, fid))
        name = sq["fnames"].get(fr["fn"])
        if fr["fn"] and name is None:
            fail("packet %d: function name %d not interned" % (order, fr["fn"]))
        m = sq["mappings"].get(fr["map"])
        if m is None:
            fail("packet %d: frame %d: mapping %s not interned" % (order, fid, fr["map"]))
        for pid in m:
            if pid not in sq["mpaths"]:
                fail("packet %d: mapping path %d not interned" % (order, pid))
        mark = "_[i]" if fr["kind_str"] == "inlined" else MARK.get(fr["kind"], "")
        out.append(folded_name(name or "") + mark)
    if not out:
        fail("packet %d: empty callstack %d" % (order, iid))
    return ";".join(out)


def read_clock_snapshot(buf, seq, state, order):
    """A ClockSnapshot: each sequence-scoped clock in it becomes convertible to
    CLOCK_MONOTONIC through the MONOTONIC reading of the same snapshot."""
    clocks = []
    for f, w, v in fields(buf):
        if f == 1:
            c = fields(v)
            cid, ts, inc = one(c, 1, 0, 0), one(c, 2, 0, 0), one(c, 3, 0, 0)
            if one(c, 4, 0, 1) not in (0, 1):
                fail("packet %d: clock %d has a unit other than ns" % (order, cid))
            clocks.append((cid, ts, bool(inc)))
    primary = one(fields(buf), 2, 0)
    if primary is not None:
        if state["converted"]:
            fail("packet %d: primary_trace_clock after timestamps were converted" % order)
        state["primary"] = primary
    mono = [ts for cid, ts, inc in clocks if cid == MONOTONIC]
    if mono and [1 for cid, ts, inc in clocks if cid == BOOTTIME]:
        state["boottime"] = True
    for cid, ts, inc in clocks:
        if 64 <= cid < 128:
            if not seq:
                fail("packet %d: sequence-scoped clock %d without a sequence id" % (order, cid))
            if not mono:
                fail("packet %d: clock %d with no CLOCK_MONOTONIC to convert to" % (order, cid))
            old = state["seqs"][seq]["clocks"].get(cid)
            if old is not None and (old["inc"] != inc or ts < old["snap"]):
                fail("packet %d: clock %d snapshot changes its kind or goes back" % (order, cid))
            state["seqs"][seq]["clocks"][cid] = {"inc": inc, "snap": ts, "last": ts, "mono": mono[0]}
        elif inc:
            fail("packet %d: global clock %d marked incremental" % (order, cid))


def packet_ts(fs, seq, state, order):
    """The packet's timestamp in trace time (CLOCK_MONOTONIC ns), as the reader converts it."""
    ts = one(fs, 8)
    if ts is None:
        return None
    sq = state["seqs"][seq]
    clock = one(fs, 58, 0)
    if clock is None:
        clock = sq["clock"]
    if clock is None or clock == MONOTONIC:
        out = ts
        state["absolute"] += sq["clock"] is not None
    elif 64 <= clock < 128:
        c = sq["clocks"].get(clock)
        if c is None:
            fail("packet %d: timestamp on clock %d before its ClockSnapshot" % (order, clock))
        if c["inc"]:
            c["last"] += signed(ts)
            v = c["last"]
        else:
            v = ts
        out = v - c["snap"] + c["mono"]
    else:
        fail("packet %d: timestamp on clock %d" % (order, clock))
    if clock is not None:
        if state["primary"] != MONOTONIC:
            fail("packet %d: converted to a trace clock other than CLOCK_MONOTONIC (%s)" %
                 (order, state["primary"]))
        state["converted"] = True
    if out < 0:
        fail("packet %d: negative timestamp %d" % (order, out))
    return out


def flow_list(e, new, old, order):
    vals = [v for f, w, v in e if f == new and w == 1]
    if [1 for f, w, v in e if f == old and w != 0]:
        fail("packet %d: field %d not a plain varint (the reader does not unpack it)" % (order, old))
    return vals if vals else [v for f, w, v in e if f == old and w == 0]


def read_pftrace(path):
    with open(path, "rb") as f:
        raw = f.read()
    if not raw:
        fail("empty file")
    state = {"seqs": collections.defaultdict(new_seq), "cleared": set(), "primary": None,
             "converted": False, "absolute": 0, "boottime": False}
    tracks = {}
    events = []  # (ts, order, uuid, type, name, args, flows, terminating)
    samples = []  # (pid, tid, ts, cpu, folded stack)
    for order, (fno, wt, pkt) in enumerate(fields(raw)):
        if fno != 1 or wt != 2:
            fail("top-level field %d (wire type %d), not a packet" % (fno, wt))
        fs = fields(pkt)
        seq = one(fs, 10, 0, 0)
        flags = one(fs, 13, 0, 0)
        if flags & 1:
            state["cleared"].add(seq)
            clocks = state["seqs"][seq]["clocks"]
            state["seqs"][seq] = new_seq()
            state["seqs"][seq]["clocks"] = clocks  # clocks are not incremental state
        if flags & 2 and seq not in state["cleared"]:
            fail("packet %d needs incremental state before its sequence cleared it" % order)
        sq = state["seqs"][seq]
        defaults = one(fs, 59, 2)
        if defaults is not None:
            if not seq:
                fail("packet %d: trace_packet_defaults without a sequence id" % order)
            d = fields(defaults)
            sq["clock"] = one(d, 58, 0)
            ted = one(d, 11, 2)
            sq["track"] = one(fields(ted), 11, 0) if ted is not None else None
        idata = one(fs, 12, 2)
        if idata is not None:
            if not seq or seq not in state["cleared"]:
                fail("packet %d: interned data on a sequence that was not cleared" % order)
            for f, w, v in fields(idata):
                # event_names, debug_annotation_names, debug_annotation_string_values,
                # function_names, mapping_paths
                table = {2: "names", 3: "args", 29: "svals", 5: "fnames", 17: "mpaths"}.get(f)
                e = fields(v) if f in (6, 7, 19) else None
                if f == 6:
                    if not one(e, 1) or not one(e, 3):
                        fail("packet %d: frame without iid or mapping" % order)
                    if one(e, 4) is None:
                        fail("packet %d: frame with a mapping and no rel_pc" % order)
                    sq["frames"][one(e, 1)] = {
                        "fn": one(e, 2, 0, 0), "map": one(e, 3), "kind": one(e, 7, 0, 0),
                        "kind_str": (one(e, 8, 2) or b"").decode("utf-8")}
                elif f == 7:
                    ids = [v2 for f2, w2, v2 in e if f2 == 2]
                    if [1 for f2, w2, v2 in e if f2 == 2 and w2 != 0]:
                        fail("packet %d: packed frame_ids (the field is not packed)" % order)
                    sq["callstacks"][one(e, 1)] = ids
                elif f == 19:
                    sq["mappings"][one(e, 1)] = [v2 for f2, w2, v2 in e if f2 == 7]
                if table:
                    e = fields(v)
                    # invalid UTF-8 as trace.json has it: '?' for each byte
                    iid, name = one(e, 1), one(e, 2, 2, b"").decode("utf-8", "qmark")
                    if not iid:
                        fail("interned entry without iid")
                    sq[table][iid] = name
        cs = one(fs, 6, 2)
        td = one(fs, 60, 2)
        te = one(fs, 11, 2)
        if cs is not None:
            if td is not None or te is not None or one(fs, 8) is not None:
                fail("packet %d: a clock snapshot and more, which the reader skips" % order)
            read_clock_snapshot(cs, seq, state, order)
            continue
        if td is not None and te is not None:
            fail("packet %d has a track descriptor and a track event" % order)
        if td is not None:
            d = fields(td)
            uuid = one(d, 1)
            if not uuid or uuid in tracks:
                fail("track uuid %s missing or declared twice" % uuid)
            t = {"parent": one(d, 5), "name": (one(d, 2, 2) or b"").decode("utf-8"),
                 "counter": one(d, 8, 2) is not None}
            p = one(d, 3, 2)
            if p is not None:
                pd = fields(p)
                t["pid"] = one(pd, 1)
                t["pname"] = (one(pd, 6, 2) or b"").decode("utf-8")
            th = one(d, 4, 2)
            if th is not None:
                thd = fields(th)
                t["pid"], t["tid"] = one(thd, 1), one(thd, 2)
                t["tname"] = (one(thd, 5, 2) or b"").decode("utf-8")
                if t["pid"] is None or t["tid"] is None:
                    fail("thread track without pid/tid")
            tracks[uuid] = t
        ts = packet_ts(fs, seq, state, order)
        ps = one(fs, 66, 2)
        if ps is not None:
            if not seq or seq not in state["cleared"]:
                fail("packet %d: perf sample on a sequence that was not cleared" % order)
            if ts is None:
                fail("packet %d: perf sample without timestamp" % order)
            p = fields(ps)
            if one(p, 2) is None or one(p, 3) is None:
                fail("packet %d: perf sample without pid/tid" % order)
            iid = one(p, 4)
            samples.append((one(p, 2), one(p, 3), ts, one(p, 1, 0, 0),
                            callstack(sq, iid, order) if iid else None))
        if te is not None:
            if not seq:
                fail("packet %d: track event without trusted_packet_sequence_id" % order)
            if ts is None:
                fail("packet %d: track event without timestamp" % order)
            e = fields(te)
            typ = one(e, 9)
            uuid = one(e, 11)
            if uuid is None:
                uuid = sq["track"]
            if uuid is None:
                fail("packet %d: track event with no track, given or by default" % order)
            name = None
            iid = one(e, 10)
            if iid is not None:
                name = sq["names"].get(iid)
                if name is None:
                    fail("packet %d: name_iid %d not interned on sequence %d" % (order, iid, seq))
            args = dict(annotation(v, sq["args"], sq["svals"]) for f, w, v in e if f == 4)
            flows = flow_list(e, 47, 36, order)
            term = flow_list(e, 48, 42, order)
            if typ == 4:  # a counter's value (counter_value, int64) is its "args"
                v = one(e, 30)
                if v is None:
                    fail("packet %d: counter event without counter_value" % order)
                args = signed(v)
            events.append((ts, order, uuid, typ, name, args, flows, term))
    for uuid, t in tracks.items():
        if t["parent"] is not None and t["parent"] not in tracks:
            fail("track %d: parent %d not declared" % (uuid, t["parent"]))
    # the reader relates BOOTTIME to the trace's clock and logs an import error
    # (clock_sync_unrelatable_clock_domains) when no snapshot does
    if state["primary"] == MONOTONIC and not state["boottime"]:
        fail("no ClockSnapshot relates CLOCK_BOOTTIME to the trace's clock (CLOCK_MONOTONIC)")
    for pid, tid, ts, cpu, st in samples:
        if not [1 for t in tracks.values() if t.get("tid") == tid and t.get("pid") == pid]:
            fail("sample of thread %d/%d, which no thread track names" % (pid, tid))
    return tracks, events, state["absolute"], samples


def track_identity(tracks, uuid):
    """(process name, track name), as the UI groups and labels them."""
    t = tracks.get(uuid)
    if t is None:
        fail("event on undeclared track %s" % uuid)
    if "tid" in t:
        proc = next((x for x in tracks.values() if "pname" in x and x.get("pid") == t["pid"]), None)
        if proc is None:
            fail("thread %d: no process track for pid %d" % (t["tid"], t["pid"]))
        return proc["pname"], t["tname"]
    parent = tracks.get(t["parent"])
    if parent is not None and "tid" in parent:
        # a thread's child track (its off-CPU spans): trace.json's "<thread> (off-CPU)" thread
        proc, thread = track_identity(tracks, t["parent"])
        return proc, "%s (%s)" % (thread, t["name"])
    if parent is None or "pname" not in parent:
        fail("track %s is neither a thread nor under a process or thread" % t["name"])
    return parent["pname"], t["name"]


def thread_identity(tracks, pid, tid):
    """(process name, thread name) of a sample's thread, as track_identity() names tracks."""
    t = next(x for x in tracks.values() if x.get("tid") == tid and x.get("pid") == pid)
    proc = next((x for x in tracks.values() if "pname" in x and x.get("pid") == pid), None)
    if proc is None:
        fail("thread %d: no process track for pid %d" % (tid, pid))
    return proc["pname"], t["tname"]


def slices_of(tracks, events, counters):
    events.sort(key=lambda e: (e[0], e[1]))
    stacks = collections.defaultdict(list)
    out = []  # [identity, name, ts, dur or None, args, flows, term]
    for ts, order, uuid, typ, name, args, flows, term in events:
        ident = track_identity(tracks, uuid)
        if (typ == 4) != tracks[uuid]["counter"]:
            fail("event type %s on %s, %sa counter track" %
                 (typ, ident, "" if tracks[uuid]["counter"] else "not "))
        if typ == 4:
            counters.append((ident, ts, args))
        elif typ == 1:
            s = [ident, name, ts, None, args, flows, term]
            stacks[uuid].append(s)
            out.append(s)
        elif typ == 2:
            if not stacks[uuid]:
                fail("SLICE_END at %d on %s with no open slice" % (ts, ident))
            s = stacks[uuid].pop()
            s[3] = ts - s[2]
        elif typ == 3:
            out.append([ident, name, ts, None, args, flows, term])
        else:
            fail("event type %s" % typ)
    for uuid, st in stacks.items():
        if st:
            fail("%d slices left open on %s" % (len(st), track_identity(tracks, uuid)))
    return out


def flows_of(slices):
    """{slice index: set of slice indices it has an arrow to}, as the reader's flow tracker
    draws them: an id in flight ends at the next slice naming it; a flow_ids one begins
    again there, a terminating one is done."""
    inflight, drawn = {}, set()
    out = collections.defaultdict(set)
    for i, s in enumerate(slices):
        for fid in s[5]:
            if fid in inflight:
                out[inflight[fid]].add(i)
                drawn.add(fid)
            inflight[fid] = i
        for fid in s[6]:
            if fid in inflight:
                out[inflight.pop(fid)].add(i)
                drawn.add(fid)
    for fid in inflight:
        if fid not in drawn:
            fail("flow %d has no end" % fid)
    return out


def norm_args(args, exact):
    """Floats as integer thousandths: trace.json prints milli-GB/s truncated (exact=False
    reads those back), trace.pftrace has the double itself (exact=True)."""
    out = {}
    for k, v in args.items():
        if isinstance(v, float):
            v = math.floor(v * 1000 + 1e-6) if exact else round(v * 1000)
        out[k] = v
    return tuple(sorted(out.items()))


def key(s, base):
    return (s[0], s[1], s[2] - base, s[3], norm_args(s[4], True))


def json_track_names(doc):
    """trace.json's process names by pid and thread names by (pid, tid)."""
    pname, tname = {}, {}
    for e in doc["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "process_name":
            pname[e["pid"]] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "thread_name":
            tname[(e["pid"], e["tid"])] = e["args"]["name"]
    return pname, tname


def json_stack(frames, sf, marks=True):
    """trace.json's stack of a sample (its "sf"), root first; marks: with the folded markers."""
    out, cur = [], str(sf)
    while cur is not None:
        f = frames[cur]
        mark = {"kernel": "_[k]", "inline": "_[i]", "jit": "_[j]"}.get(f["category"], "")
        out.append((folded_name(f["name"]) + mark) if marks else f["name"])
        cur = f.get("parent")
    return ";".join(reversed(out))


def read_json(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw)
    pname, tname = json_track_names(doc)
    slices, binds = [], collections.defaultdict(lambda: [None, set()])
    samples, counters = [], []
    for e in doc["traceEvents"]:
        if e["ph"] == "C":
            # one counter track per (process, name, argument); a value each time
            for k, v in e["args"].items():
                counters.append(((pname[e["pid"]], e["name"]), int(round(float(e["ts"]) * 1000)), v))
            continue
        if e["ph"] == "i" and e.get("cat") == "cpu_sample":
            # a PerfSample in trace.pftrace: thread, time, cpu, stack
            samples.append(((pname[e["pid"]], tname[(e["pid"], e["tid"])]),
                            int(round(float(e["ts"]) * 1000)), e["args"]["cpu"],
                            json_stack(doc["stackFrames"], e["sf"]) if "sf" in e else None))
            continue
        if e["ph"] not in ("X", "i"):
            continue
        ts = int(round(float(e["ts"]) * 1000))
        dur = int(round(float(e["dur"]) * 1000)) if e["ph"] == "X" else None
        s = ((pname[e["pid"]], tname[(e["pid"], e["tid"])]), e["name"], ts, dur,
             norm_args(e.get("args", {}), False))
        slices.append(s)
        if "bind_id" in e:
            if e.get("flow_out"):
                binds[e["bind_id"]][0] = s
            else:
                binds[e["bind_id"]][1].add(s)
    flows = {b[0]: frozenset(b[1]) for b in binds.values()}
    return slices, flows, samples, counters


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--json")
    ap.add_argument("--folded")
    ap.add_argument("--min-slices", type=int, default=1)
    a = ap.parse_args()

    tracks, events, absolute, samples = read_pftrace(a.file)
    counters = []  # (track identity, ts, value)
    slices = slices_of(tracks, events, counters)
    if len(slices) < a.min_slices:
        fail("%d slices and instants, want at least %d" % (len(slices), a.min_slices))
    base = min([s[2] for s in slices] + [s[2] for s in samples])
    flows = flows_of(slices)
    mine = collections.Counter(key(s, base) for s in slices)
    myflows = {key(slices[i], base): frozenset(key(slices[j], base) for j in js)
               for i, js in flows.items()}
    nflows = len(myflows)
    mysamples = collections.Counter(
        (thread_identity(tracks, pid, tid), ts - base, cpu, st) for pid, tid, ts, cpu, st in samples)
    if a.folded:
        stacks = collections.Counter()
        for k, n in mysamples.items():
            stacks[k[3]] += n
        folded = collections.Counter()
        with open(a.folded, encoding="utf-8", errors="replace") as f:
            for line in f:
                st, _, w = line.rstrip("\n").rpartition(" ")
                folded[st] += int(w)
        if set(stacks) != set(folded):
            fail("sample stacks differ from %s: only here: %s; only there: %s" %
                 (a.folded, sorted(set(stacks) - set(folded))[:3],
                  sorted(set(folded) - set(stacks))[:3]))
        if len({folded[k] / stacks[k] for k in stacks}) > 1:
            fail("%s's weights are not one period times the samples' counts" % a.folded)
    if a.json:
        theirs_list, theirflows, theirsamples, theircounters = read_json(a.json)
        jbase = min([s[2] for s in theirs_list] + [s[1] for s in theirsamples])
        theirsamples = collections.Counter((t, ts - jbase, cpu, st) for t, ts, cpu, st in theirsamples)
        if mysamples != theirsamples:
            fail("samples differ from %s: %d/%d; only here: %s; only there: %s" %
                 (a.json, sum(mysamples.values()), sum(theirsamples.values()),
                  list((mysamples - theirsamples).elements())[:3],
                  list((theirsamples - mysamples).elements())[:3]))
        mycounters = sorted((t, ts - base, v) for t, ts, v in counters)
        theircounters = sorted((t, ts - jbase, v) for t, ts, v in theircounters)
        if mycounters != theircounters:
            fail("counters differ from %s: %d/%d values; only here: %s; only there: %s" %
                 (a.json, len(mycounters), len(theircounters),
                  sorted(set(mycounters) - set(theircounters))[:3],
                  sorted(set(theircounters) - set(mycounters))[:3]))
        theirs = collections.Counter(theirs_list)
        if mine != theirs:
            only_mine = list((mine - theirs).elements())[:5]
            only_theirs = list((theirs - mine).elements())[:5]
            fail("slices differ from %s: %d/%d; only here: %s; only there: %s" %
                 (a.json, sum(mine.values()), sum(theirs.values()), only_mine, only_theirs))
        if myflows != theirflows:
            diff = [k for k in set(myflows) | set(theirflows) if myflows.get(k) != theirflows.get(k)]
            fail("flows differ from %s (%d here, %d there), e.g. from %s: %s vs %s" %
                 (a.json, len(myflows), len(theirflows), diff[0], myflows.get(diff[0]),
                  theirflows.get(diff[0])))
    print("ok: %d tracks, %d slices and instants, %d flows, %d samples of %d stacks, %d counter "
          "values, %d events timed apart from their sequence's default clock%s%s" %
          (len(tracks), len(slices), nflows, len(samples), len({s[4] for s in samples}),
           len(counters), absolute,
           ", same as " + a.json if a.json else "",
           ", stacks as in " + a.folded if a.folded else ""))


if __name__ == "__main__":
    main()
