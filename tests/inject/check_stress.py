#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_stress.py PROGRAM_STDOUT TRACE_DUMP LAUNCHES

stress_stacks' launch stacks, against what each thread printed
(tests/inject/stress_stacks.c): every cuLaunchKernel and cuMemsetD8Async of
each thread has one launch stack, and that stack is the thread's own: its
frames after the first two are exactly the callers glibc's backtrace() saw
at the launch site; each kernel kT ran LAUNCHES times and every one of them
joins, by correlation id, to a launch by thread T. Nothing lost (no drop
counted), nothing twice.
"""
import re
import sys

out, dump, launches = sys.argv[1], sys.argv[2], int(sys.argv[3])
fails = []
threads = {}  # tid -> (kernel, callers)
for line in open(out):
    m = re.match(r"thread (\d+) tid (\d+) kernel (\S+) callers (.*)", line)
    if m:
        threads[int(m.group(2))] = (m.group(3), [int(x, 16) for x in m.group(4).split()])
if len(threads) != 8:
    fails.append(f"{len(threads)} threads reported, expected 8")

stacks, apistack, api, kernels, drops = {}, {}, {}, [], 0
for line in open(dump):
    f = line.split()
    if not f:
        continue
    kv = dict(x.split("=", 1) for x in f[1:] if "=" in x)
    if f[0] == "stack":
        i = line.index("stack=") + 6
        stacks[int(kv["id"])] = [int(x, 16) for x in line[i:].split()]
    elif f[0] == "api_stack":
        c = int(kv["corr"])
        if c in apistack:
            fails.append(f"corr {c}: two api_stack records")
        apistack[c] = stacks.get(int(kv["stack_id"]))
    elif f[0] == "api":
        api[int(kv["corr"])] = (int(kv["tid"]), f[-1])
    elif f[0] == "kernel":
        kernels.append((int(kv["corr"]), f[-1]))
    elif f[0] == "dropped":
        drops += int(kv["count"])
if drops:
    fails.append(f"{drops} records dropped")

per_tid = {}
for corr, (tid, name) in api.items():
    if not (name.startswith("cuLaunchKernel") or name.startswith("cuMemsetD8Async")):
        continue
    if tid not in threads:
        fails.append(f"{name} corr {corr} on tid {tid}, not a launching thread")
        continue
    per_tid[tid] = per_tid.get(tid, 0) + 1
    st = apistack.get(corr)
    if st is None:
        fails.append(f"{name} corr {corr}: no launch stack")
    elif st[2:] != threads[tid][1]:
        fails.append(f"{name} corr {corr} (tid {tid}): stack {[hex(x) for x in st[2:6]]}... "
                     f"is not its thread's {[hex(x) for x in threads[tid][1][:4]]}...")
# frame 1 is the call site in launch(): the launches' and the memset's differ
site = {}
for corr, (tid, name) in api.items():
    st = apistack.get(corr)
    if tid in threads and st and len(st) > 1 and name[:6] in ("cuLaun", "cuMems"):
        site.setdefault((tid, name[:6]), set()).add(st[1])
for (tid, kind), sites in site.items():
    if len(sites) != 1:
        fails.append(f"tid {tid}: {kind}* from {len(sites)} call sites, expected 1")
    elif kind == "cuMems" and sites == site.get((tid, "cuLaun")):
        fails.append(f"tid {tid}: the memset's stack is the launches' (same call site)")
for tid, n in per_tid.items():
    if n != launches + 1:
        fails.append(f"tid {tid}: {n} launch and memset calls, expected {launches + 1}")
by_name = {}
for corr, name in kernels:
    by_name[name] = by_name.get(name, 0) + 1
    tid = api.get(corr, (None,))[0]
    if tid not in threads or threads[tid][0] != name:
        fails.append(f"kernel {name} corr {corr} joins a launch by tid {tid}")
for kernel, _ in threads.values():
    if by_name.get(kernel) != launches:
        fails.append(f"kernel {kernel}: {by_name.get(kernel, 0)} runs, expected {launches}")
for x in fails[:20]:
    print("FAIL:", x)
if fails:
    sys.exit(1)
depths = sorted(len(c) for c in (v[1] for v in threads.values()))
print(f"ok: 8 threads x {launches} launches, every stack its own thread's "
      f"({depths[0]} to {depths[-1]} frames below the launch)")
