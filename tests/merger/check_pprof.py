#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_pprof.py - decode a profile.pb.gz with a protobuf decoder of its own
(protowire.py) and check it.

usage: check_pprof.py FILE [--samples N] [--functions N] [--locations N] [--default TYPE]
                           [--types T,T,...] [--total TYPE=N]... [--name NAME]...
                           [--stack TYPE=ROOT;...;LEAF=N]... [--time N] [--duration N] [--period N]

The decoder here is written from the protobuf wire format and profile.proto's field
numbers, independently of pprof.c's encoder. When protoc is installed, its
--decode_raw must accept the file too. Always checked: string_table[0] is "",
every string index is in range, every location a sample names exists, every
function a line names exists, ids are unique and non-zero, every sample has one
value per sample type.
"""
import argparse
import collections
import gzip
import shutil
import subprocess

from protowire import fail, fields, varint


def ints(wt, v):
    """A repeated integer field: packed (bytes) or one varint."""
    if wt == 0:
        return [v]
    res, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        res.append(x)
    return res


def msg(b, repeated=()):
    d = collections.defaultdict(list)
    for f, wt, v in fields(b):
        if f in repeated:
            d[f].extend(ints(wt, v))
        else:
            d[f].append(v)
    return d


def one(d, f, default=0):
    return d[f][-1] if d.get(f) else default


def decode(raw):
    p = {"strings": [], "types": [], "samples": [], "mappings": {}, "locations": {},
         "functions": {}}
    scalars = {}
    for f, wt, v in fields(raw):
        if f == 1:
            m = msg(v)
            p["types"].append((one(m, 1), one(m, 2)))
        elif f == 2:
            m = msg(v, repeated=(1, 2))
            p["samples"].append((m[1], m[2]))
        elif f == 3:
            m = msg(v)
            p["mappings"].setdefault(one(m, 1), []).append(m)
        elif f == 4:
            m = msg(v)
            lines = [msg(x) for x in m[4]]
            p["locations"].setdefault(one(m, 1), []).append(
                (one(m, 2), [one(x, 1) for x in lines]))
        elif f == 5:
            m = msg(v)
            p["functions"].setdefault(one(m, 1), []).append((one(m, 2), one(m, 3)))
        elif f == 6:
            p["strings"].append(v.decode("utf-8"))
        elif f == 11:
            m = msg(v)
            scalars["period_type"] = (one(m, 1), one(m, 2))
        else:
            scalars[f] = v
    p["scalars"] = scalars
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--samples", type=int)
    ap.add_argument("--functions", type=int)
    ap.add_argument("--locations", type=int)
    ap.add_argument("--default")
    ap.add_argument("--types")
    ap.add_argument("--total", action="append", default=[])
    ap.add_argument("--name", action="append", default=[])
    ap.add_argument("--stack", action="append", default=[])
    ap.add_argument("--time", type=int)
    ap.add_argument("--duration", type=int)
    ap.add_argument("--period", type=int)
    a = ap.parse_args()

    with open(a.file, "rb") as f:
        gz = f.read()
    if gz[:2] != b"\x1f\x8b":
        fail("not gzip'd")
    raw = gzip.decompress(gz)

    if shutil.which("protoc"):
        r = subprocess.run(["protoc", "--decode_raw"], input=raw, capture_output=True)
        if r.returncode != 0:
            fail("protoc --decode_raw rejects the file: " + r.stderr.decode(errors="replace"))

    p = decode(raw)
    st = p["strings"]
    if not st or st[0] != "":
        fail("string_table[0] is not the empty string")

    def s(i):
        if not 0 <= i < len(st):
            fail("string index %d out of range (%d strings)" % (i, len(st)))
        return st[i]

    types = [(s(t), s(u)) for t, u in p["types"]]
    ntypes = len(types)
    for table in ("mappings", "locations", "functions"):
        for i, v in p[table].items():
            if i == 0 or len(v) != 1:
                fail("%s id %d is zero or not unique" % (table, i))
    funcs = {i: (s(v[0][0]), s(v[0][1])) for i, v in p["functions"].items()}
    locs = {}
    for i, v in p["locations"].items():
        mapping, lines = v[0]
        if mapping and mapping not in p["mappings"]:
            fail("location %d names missing mapping %d" % (i, mapping))
        if not lines:
            fail("location %d has no line" % i)
        for fid in lines:
            if fid not in funcs:
                fail("location %d names missing function %d" % (i, fid))
        locs[i] = funcs[lines[0]][0]
    for m in p["mappings"].values():
        s(one(m[0], 5))

    totals = collections.Counter()
    stacks = collections.Counter()
    for lids, vals in p["samples"]:
        if len(vals) != ntypes:
            fail("sample with %d values for %d sample types" % (len(vals), ntypes))
        for lid in lids:
            if lid not in locs:
                fail("sample names missing location %d" % lid)
        path = ";".join(locs[lid] for lid in reversed(lids))
        for (t, _), v in zip(types, vals):
            totals[t] += v
            if v:
                stacks[t + "=" + path] += v

    sc = p["scalars"]
    default = s(sc.get(14, 0))
    if a.samples is not None and len(p["samples"]) != a.samples:
        fail("%d samples, expected %d" % (len(p["samples"]), a.samples))
    if a.functions is not None and len(funcs) != a.functions:
        fail("%d functions, expected %d" % (len(funcs), a.functions))
    if a.locations is not None and len(locs) != a.locations:
        fail("%d locations, expected %d" % (len(locs), a.locations))
    if a.types is not None and ",".join(t for t, _ in types) != a.types:
        fail("sample types %r, expected %s" % (types, a.types))
    if a.default is not None and default != a.default:
        fail("default sample type %r, expected %r" % (default, a.default))
    for t in a.total:
        k, v = t.split("=")
        if totals[k] != int(v):
            fail("total %s is %d, expected %s" % (k, totals[k], v))
    names = {n for n, _ in funcs.values()}
    for n in a.name:
        if n not in names:
            fail("no function named %r (have %r)" % (n, sorted(names)))
    for x in a.stack:
        k, v = x.rsplit("=", 1)
        if stacks[k] != int(v):
            fail("stack %r weighs %d, expected %s" % (k, stacks[k], v))
    for opt, f in (("time", 9), ("duration", 10), ("period", 12)):
        want = getattr(a, opt)
        if want is not None and sc.get(f, 0) != want:
            fail("%s is %d, expected %d" % (opt, sc.get(f, 0), want))
    if "period_type" in sc:
        s(sc["period_type"][0])
    print("ok: %d samples, %d locations, %d functions, %d strings, types %s, default %s"
          % (len(p["samples"]), len(locs), len(funcs), len(st),
             ",".join(t for t, _ in types), default))


if __name__ == "__main__":
    main()
