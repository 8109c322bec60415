#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_pprof.py - decode a profile.pb.gz with a protobuf decoder of its own
(protowire.py) and check it.

usage: check_pprof.py FILE [--samples N] [--functions N] [--locations N] [--default TYPE]
                           [--types T,T,...] [--total TYPE=N]... [--name NAME]...
                           [--stack TYPE=ROOT;...;LEAF=N]... [--time N] [--duration N] [--period N]
                           [--label TYPE=KEY]... [--tag TYPE:KEY=VALUE=N]...
                           [--line FUNCTION=FILE:LINE]... [--system-name NAME=SYSTEM_NAME]...
                           [--mapping FILE=BUILD_ID]... [--build-ids] [--addresses]

The decoder here is written from the protobuf wire format and profile.proto's field
numbers, independently of pprof.c's encoder. When protoc is installed, its
--decode_raw must accept the file too. Always checked: string_table[0] is "",
every string index is in range, every location a sample names exists, every
location has a mapping that exists, every location of a file's mapping has
an address inside it, every function a line names exists, ids are unique and
non-zero, every sample has one value per sample type, no function name keeps
a folded file's kind suffix (_[k], _[i], _[j], _[w]).

A stack (--stack) is every line of every location, callers first, as the
folded files write it. --label: every sample with weight in TYPE has label
KEY; --tag: the TYPE weight of the samples whose label KEY is VALUE; --line:
some location has a line of FUNCTION in a file whose name ends with FILE, at
LINE; --mapping: a mapping of a file whose name ends with FILE has that
build id (hex); --build-ids: every mapping of a file has a build id;
--addresses: some location has an address, and every location of a
"[kernel.kallsyms]", "[jit]" or file mapping has one.
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
            labels = [msg(x) for x in m[3]]
            p["samples"].append((m[1], m[2], [(one(x, 1), one(x, 2), one(x, 3), bool(x.get(2)))
                                             for x in labels]))
        elif f == 3:
            m = msg(v)
            p["mappings"].setdefault(one(m, 1), []).append(m)
        elif f == 4:
            m = msg(v)
            lines = [msg(x) for x in m[4]]
            p["locations"].setdefault(one(m, 1), []).append(
                (one(m, 2), [(one(x, 1), one(x, 2)) for x in lines], one(m, 3)))
        elif f == 5:
            m = msg(v)
            p["functions"].setdefault(one(m, 1), []).append(
                (one(m, 2), one(m, 3), one(m, 4), one(m, 5)))
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
    ap.add_argument("--label", action="append", default=[])
    ap.add_argument("--tag", action="append", default=[])
    ap.add_argument("--line", action="append", default=[])
    ap.add_argument("--system-name", action="append", default=[])
    ap.add_argument("--mapping", action="append", default=[])
    ap.add_argument("--build-ids", action="store_true")
    ap.add_argument("--addresses", action="store_true")
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
    funcs = {i: (s(v[0][0]), s(v[0][1]), s(v[0][2]), v[0][3])
             for i, v in p["functions"].items()}
    for name, _, _, _ in funcs.values():
        if name[-4:] in ("_[k]", "_[i]", "_[j]", "_[w]"):
            fail("function name %r keeps a folded kind suffix" % name)
    maps = {}
    for i, v in p["mappings"].items():
        m = v[0]
        maps[i] = {"start": one(m, 2), "limit": one(m, 3), "offset": one(m, 4),
                   "file": s(one(m, 5)), "build_id": s(one(m, 6)),
                   "has": [one(m, f) for f in (7, 8, 9, 10)]}
    locs = {}
    addressed = 0
    for i, v in p["locations"].items():
        mapping, lines, addr = v[0]
        if not mapping:
            fail("location %d has no mapping" % i)
        if mapping not in maps:
            fail("location %d names missing mapping %d" % (i, mapping))
        mp = maps[mapping]
        real = not mp["file"].startswith("[")
        if real and not mp["start"] <= addr < mp["limit"]:
            fail("location %d: address 0x%x outside its mapping %s [0x%x, 0x%x)"
                 % (i, addr, mp["file"], mp["start"], mp["limit"]))
        if a.addresses and not addr and (real or mp["file"] in ("[kernel.kallsyms]", "[jit]")):
            fail("location %d of %s has no address" % (i, mp["file"]))
        addressed += addr != 0
        if not lines:
            fail("location %d has no line" % i)
        for fid, _ in lines:
            if fid not in funcs:
                fail("location %d names missing function %d" % (i, fid))
        locs[i] = [(funcs[fid], ln) for fid, ln in lines]
    if a.addresses and not addressed:
        fail("no location has an address")
    for m in maps.values():
        if a.build_ids and not m["file"].startswith("[") and not m["build_id"]:
            fail("mapping of %s has no build id" % m["file"])
        if m["build_id"] and any(c not in "0123456789abcdef" for c in m["build_id"]):
            fail("build id %r is not lowercase hex" % m["build_id"])

    totals = collections.Counter()
    stacks = collections.Counter()
    tags = collections.Counter()
    for lids, vals, labels in p["samples"]:
        if len(vals) != ntypes:
            fail("sample with %d values for %d sample types" % (len(vals), ntypes))
        for lid in lids:
            if lid not in locs:
                fail("sample names missing location %d" % lid)
        path = ";".join(f[0] for lid in reversed(lids) for f, _ in reversed(locs[lid]))
        lab = {}
        for k, sv, nv, is_str in labels:
            lab[s(k)] = s(sv) if is_str else str(nv)
        for (t, _), v in zip(types, vals):
            totals[t] += v
            if v:
                stacks[t + "=" + path] += v
                for k, val in lab.items():
                    tags["%s:%s=%s" % (t, k, val)] += v
                for x in a.label:
                    lt, lk = x.split("=", 1)
                    if lt == t and lk not in lab:
                        fail("a %s sample (%s) has no label %r (has %r)" % (t, path, lk, lab))

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
    names = {f[0] for f in funcs.values()}
    for n in a.name:
        if n not in names:
            fail("no function named %r (have %r)" % (n, sorted(names)))
    for x in a.stack:
        k, v = x.rsplit("=", 1)
        if stacks[k] != int(v):
            fail("stack %r weighs %d, expected %s" % (k, stacks[k], v))
    for x in a.tag:
        k, v = x.rsplit("=", 1)
        if tags[k] != int(v):
            fail("tag %r weighs %d, expected %s (have %r)" % (k, tags[k], v, sorted(tags)))
    for x in a.line:
        fn, where = x.split("=", 1)
        fl, ln = where.rsplit(":", 1)
        if not any(f[0] == fn and f[2].endswith(fl) and line == int(ln)
                   for lines in locs.values() for f, line in lines):
            fail("no line of %r at %s:%s (have %r)" % (
                fn, fl, ln, sorted({"%s %s:%d" % (f[0], f[2], line) for lines in locs.values()
                                    for f, line in lines if f[0] == fn})))
    for x in a.system_name:
        n, sysname = x.split("=", 1)
        if not any(f[0] == n and f[1] == sysname for f in funcs.values()):
            fail("no function %r with system name %r (have %r)"
                 % (n, sysname, [f[1] for f in funcs.values() if f[0] == n]))
    for x in a.mapping:
        fl, bid = x.rsplit("=", 1)
        if not any(m["file"].endswith(fl) and m["build_id"] == bid for m in maps.values()):
            fail("no mapping of %r with build id %s (have %r)"
                 % (fl, bid, [(m["file"], m["build_id"]) for m in maps.values()]))
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
