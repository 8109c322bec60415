#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_sim.py DIR TRUTH.jsonl SRC_DIR [KERNEL=FUNCTION ...] [@FUNCTION=LINE,LINE...]

`gpuperf record --cpu` + `gpuperf report` of a sample on the CUDA simulator, checked
against the simulator's own log of what it ran (GPUPERF_SIM_LOG):
- every GPU record is joined to its launch stack (join rate 1.0);
- every kernel's count and total device time in summary.json, and its weight in
  gpu.folded, equal the simulated ones exactly; memcpy bytes and time per kind too;
- each KERNEL sits right under FUNCTION (the function that launched it) and the API
  frame in every gpu.folded stack;
- every launch site's file:line is a line of the sample that makes that call;
- @FUNCTION=LINE,...: FUNCTION's launch sites are one per call, at exactly these
  lines (two calls in one function are two sites, each at its own line);
- trace.json's kernels carry the grid, block and dynamic shared memory each was
  launched with, and summary.json counts each kernel's launches per configuration;
- memory: summary.json's "memory" section (allocations, frees, bytes and peak bytes
  live per memory kind, pool events) equals what the log's mem lines add up to (and
  its vmm lines: virtual memory's handles, created and last released), its
  allocation sites account for every byte allocated by the API call that allocated it,
  each at a line that makes that call, and trace.json's "GPU memory" counter follows
  the bytes live after every allocation and free.
"""
import json
import os
import sys

d, truth_path, src = sys.argv[1], sys.argv[2], sys.argv[3]
expect_fn = dict(a.split("=", 1) for a in sys.argv[4:] if not a.startswith("@"))
expect_lines = {f: sorted(int(x) for x in l.split(","))
                for f, l in (a[1:].split("=", 1) for a in sys.argv[4:] if a.startswith("@"))}
fails = []
truth = [json.loads(l) for l in open(truth_path) if l.strip()]
s = json.load(open(f"{d}/summary.json"))

if s["join"]["rate"] != 1:
    fails.append(f"join: {s['join']}")

# kernels: count and total time, by mangled name
want = {}
for r in truth:
    if r["type"] == "kernel":
        c, t = want.get(r["name"], (0, 0))
        want[r["name"]] = (c + 1, t + r["end"] - r["start"])
got = {k["mangled"]: (k["count"], k["total_ns"]) for k in s["kernels"]}
if got != want:
    fails.append(f"kernels: summary {got} != simulated {want}")
demangled = {k["mangled"]: k["name"] for k in s["kernels"]}

# memcpys by kind
want_mc = {}
for r in truth:
    if r["type"] == "memcpy":
        c, b, t = want_mc.get(r["copy"], (0, 0, 0))
        want_mc[r["copy"]] = (c + 1, b + r["bytes"], t + r["end"] - r["start"])
got_mc = {m["kind"]: (m["count"], m["bytes"], m["total_ns"]) for m in s["memcpy"]}
if got_mc != want_mc:
    fails.append(f"memcpy: summary {got_mc} != simulated {want_mc}")

# gpu.folded: weights per kernel, and the launching function under each
per_kernel = {}
for line in open(f"{d}/gpu.folded"):
    stack, _, w = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    leaf = frames[-1]
    if "[no launch stack]" in frames or "[unknown API]" in frames:
        fails.append(f"unjoined stack in gpu.folded: {stack[:200]}")
    if not leaf.startswith("[gpu] "):
        continue
    name = leaf[len("[gpu] "):]
    per_kernel[name] = per_kernel.get(name, 0) + int(w)
    for k, fn in expect_fn.items():
        if k in name and not frames[-3].startswith(fn):
            fails.append(f"{name} launched from {frames[-3]!r}, want {fn}(...)")
for mangled, (_, total) in want.items():
    if per_kernel.get(demangled.get(mangled, "?"), 0) != total:
        fails.append(f"gpu.folded weight of {mangled}: {per_kernel.get(demangled.get(mangled, '?'))} != {total}")
for k in expect_fn:
    if not any(k in n for n in per_kernel):
        fails.append(f"no kernel named {k} in gpu.folded")

# launch configurations in trace.json: (kernel, grid, block, dynamic shared memory) as launched
def dims(v):
    return "x".join(str(x) for x in v)


want_cfg = sorted((demangled.get(r["name"], r["name"]), dims(r["grid"]), dims(r["block"]), r["shmem"])
                  for r in truth if r["type"] == "kernel")
trace = json.load(open(f"{d}/trace.json"))
got_cfg = sorted((e["name"], e.get("args", {}).get("grid"), e.get("args", {}).get("block"),
                  e.get("args", {}).get("dynamic_shared_memory", 0))
                 for e in trace["traceEvents"] if e.get("cat") == "gpu_kernel")
if got_cfg != want_cfg:
    diff = [c for c in set(want_cfg) | set(got_cfg) if want_cfg.count(c) != got_cfg.count(c)]
    fails.append(f"trace.json launch configurations differ from the simulated ones, e.g. {diff[:3]}")

# summary.json: launches and device time per kernel and launch configuration
want_kc = {}
for r in truth:
    if r["type"] == "kernel":
        key = (r["name"], dims(r["grid"]), dims(r["block"]), r["shmem"])
        c, t = want_kc.get(key, (0, 0))
        want_kc[key] = (c + 1, t + r["end"] - r["start"])
got_kc = {(k["mangled"], c["grid"], c["block"], c["dynamic_shared_memory"]): (c["count"], c["total_ns"])
          for k in s["kernels"] for c in k["launch_configs"]}
if got_kc != want_kc:
    fails.append(f"summary.json launch_configs {got_kc} != simulated {want_kc}")

def call_text(path, line):
    """The statement that starts at `line`, to its `;` outside parentheses
    (`checkCudaErrors(` then the call on the next line, or a template kernel's
    name then `<<<...>>>(...)`: the line table gives the call its statement's
    first line)."""
    lines = open(path).read().split("\n")[line - 1:line + 7]
    text, depth = "", 0
    for t in lines:
        text += t + "\n"
        depth += t.count("(") - t.count(")")
        if depth <= 0 and (";" in t or "{" in t):
            break
    return text


# launch sites point at the line that makes the call
for site in s["launch_sites"]:
    # crt1.o's _start has no lines: a line there is another function's
    for fr in site["stack"].split(";"):
        if fr.startswith("_start ("):
            fails.append(f"_start given a line: {fr}")
    if not site["location"]:
        fails.append(f"launch site without file:line: {site['function']}")
        continue
    f, _, line = site["location"].rpartition(":")
    path = os.path.join(src, f)
    if not os.path.exists(path):
        continue  # a header or another file: nothing to check against
    text = call_text(path, int(line))
    api = site["api"].lstrip("_")
    token = "<<<" if api == "cudaLaunchKernel" else api.split("_v")[0]
    if token not in text:
        fails.append(f"{site['location']} ({site['api']}) is not a call: {text.strip()!r}")

for fn, lines in expect_lines.items():
    got = sorted(int(t["location"].rpartition(":")[2]) for t in s["launch_sites"]
                 if t["function"].split("(")[0] == fn and t["location"])
    if got != lines:
        fails.append(f"launch sites of {fn} at lines {got}, want one at each of {lines}")

# memory: the log's mem lines, in time order, against summary.json's "memory"
KINDS = {1: "pageable", 2: "pinned", 3: "device", 4: "array", 5: "managed"}
ALIASES = {"cudaHostAlloc": ("cudaHostAlloc", "cudaMallocHost")}
mem = [r for r in truth if r["type"] == "mem"]
# virtual memory: what the program did with its handles (the log's vmm lines); a
# creation allocates; the later of its handle's last release and the unmapping of
# its last mapping frees (kind "vmm")
live, maps = {}, []  # handle -> [bytes, refs, maps]; [(address, entry)]


def vmm_free(r, e):
    mem.append({"op": "free", "kind_name": "vmm", "bytes": e[0], "corr": r["corr"],
                "tid": r["tid"], "ts": r["ts"], "pool_size": 0})


for r in truth:
    if r["type"] != "vmm":
        continue
    e = live.get(r["handle"])
    if r["op"] == "create":
        live[r["handle"]] = [r["bytes"], 1, 0]
        mem.append({"op": "alloc", "kind_name": "vmm", "bytes": r["bytes"], "corr": r["corr"],
                    "tid": r["tid"], "ts": r["ts"], "pool_size": 0})
    elif e and r["op"] == "retain":
        e[1] += 1
    elif e and r["op"] == "map":
        e[2] += 1
        maps.append((r["address"], e))
    elif e and r["op"] == "release":
        e[1] -= 1
        if not e[1]:
            del live[r["handle"]]
            if not e[2]:
                vmm_free(r, e)
    elif r["op"] == "unmap":
        ended = [m for m in maps if r["address"] <= m[0] < r["address"] + r["bytes"]]
        maps = [m for m in maps if m not in ended]
        for _, e in ended:
            e[2] -= 1
            if not e[1] and not e[2]:
                vmm_free(r, e)
mem.sort(key=lambda r: r["ts"])
# by thread and id: each process of a program numbers its calls from 1
api_name = {(r["tid"], r["corr"]): r["name"] for r in truth if r["type"] == "api"}
sm = s.get("memory")
if mem and not sm:
    fails.append("the simulator allocated memory; summary.json has no memory section")
elif sm:
    want_k, live, peak, total_live = {}, {}, {}, [0, 0]
    want_pools = {"created": 0, "destroyed": 0, "trimmed": 0}
    want_site = {}
    counter = []
    for r in mem:
        if r["op"].startswith("pool_"):
            want_pools[{"pool_create": "created", "pool_destroy": "destroyed",
                        "pool_trim": "trimmed"}[r["op"]]] += 1
            continue
        # a stream-ordered pool's allocation has its pool's size in the line
        kind = r.get("kind_name") or ("pool" if r["pool_size"] else KINDS.get(r["kind"], "unknown"))
        k = want_k.setdefault(kind, [0, 0, 0, 0])
        if r["op"] == "alloc":
            k[0] += 1
            k[2] += r["bytes"]
            live[kind] = live.get(kind, 0) + r["bytes"]
            total_live[0] += r["bytes"]
            name = api_name.get((r["tid"], r["corr"]), "?")
            want_site[name] = want_site.get(name, 0) + r["bytes"]
        else:
            k[1] += 1
            k[3] += r["bytes"]
            d = min(r["bytes"], live.get(kind, 0))
            live[kind] = live.get(kind, 0) - d
            total_live[0] -= d
        peak[kind] = max(peak.get(kind, 0), live[kind])
        total_live[1] = max(total_live[1], total_live[0])
        counter.append(total_live[0])
    want_kinds = {kd: (v[0], v[1], v[2], v[3], peak[kd]) for kd, v in want_k.items()}
    got_kinds = {k["kind"]: (k["allocations"], k["frees"], k["bytes_allocated"], k["bytes_freed"],
                             k["peak_bytes"]) for k in sm["kinds"]}
    if got_kinds != want_kinds:
        fails.append(f"memory kinds {got_kinds} != simulated {want_kinds}")
    if sm["peak_bytes"] != total_live[1]:
        fails.append(f"memory peak_bytes {sm['peak_bytes']} != simulated {total_live[1]}")
    if sm["pools"] != want_pools:
        fails.append(f"memory pools {sm['pools']} != simulated {want_pools}")
    if sm["allocations_without_stack"]:
        fails.append(f"{sm['allocations_without_stack']} allocations without a stack")
    got_site = {}
    for site in sm["sites"]:
        got_site[site["api"]] = got_site.get(site["api"], 0) + site["bytes"]
        f, _, line = site["location"].rpartition(":")
        path = os.path.join(src, f)
        if not site["location"]:
            fails.append(f"allocation site without file:line: {site['function']}")
        elif os.path.exists(path):
            text = call_text(path, int(line))
            api = site["api"].split("_v")[0]
            # cuda_runtime.h's cudaMallocHost<T> wrapper calls cudaHostAlloc
            if not any(t in text for t in ALIASES.get(api, (api,))):
                fails.append(f"allocation site {site['location']} ({site['api']}) is not that call: "
                             f"{text.strip()!r}")
    if got_site != want_site:
        fails.append(f"allocation sites' bytes by API {got_site} != simulated {want_site}")
    got_counter = [e["args"]["bytes"] for e in trace["traceEvents"]
                   if e.get("ph") == "C" and e.get("name") == "GPU memory"]
    if got_counter != counter:
        fails.append(f"trace.json's GPU memory counter {got_counter[:8]}... != simulated "
                     f"{counter[:8]}... ({len(got_counter)}/{len(counter)} values)")

if fails:
    print("\n".join("FAIL: " + f for f in fails))
    sys.exit(1)
print(f"ok: {len(want)} kernels, {sum(c for c, _ in want.values())} launches, "
      f"{len(s['launch_sites'])} launch sites, {len(mem)} memory records exact")
