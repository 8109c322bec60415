#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_synth.py DIR STEPS SPP [-x] [-l] [-L] [-u] - what `gpuperf report` must say about gen_recording's data.

Every number below follows from gen_recording.c's schedule; see the comment at its top.
-x, -l, -L, -u: the recording was made with gen_recording -x (the main thread preempted each step),
-l (the loader thread makes a CUDA call each step), -L (the recorders reported losses), -u (the
samples and spans say where their user stacks end).
"""
import json
import sys

d, steps, spp = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
preempted = "-x" in sys.argv[4:]
loader_calls = "-l" in sys.argv[4:]
losses = "-L" in sys.argv[4:]
unwind_ends = "-u" in sys.argv[4:]
SAMPLE = 10101
orphans = steps // 100
fails = []


def folded(name):
    out = {}
    with open(f"{d}/{name}") as f:
        for line in f:
            stack, _, w = line.rstrip("\n").rpartition(" ")
            out[stack] = out.get(stack, 0) + int(w)
    return out


def expect(what, got, want):
    if got != want:
        fails.append(f"{what}: got {got!r}, want {want!r}")


M = "train;main_[j];train_step_[j]"
gpu = folded("gpu.folded")
expect("fwd_kernel under forward", gpu.get(f"{M};forward_[j];cudaLaunchKernel;[gpu] fwd_kernel(float*, int)"), steps * 200000)
expect("bwd_kernel under backward", gpu.get(f"{M};backward_[j];cudaLaunchKernel;[gpu] void bwd_kernel<float>(float*, int)"), steps * 300000)
expect("memcpy under backward", gpu.get(f"{M};backward_[j];cudaMemcpyAsync;[memcpy DtoH]"), steps * 50000)
expect("memset without launch stack", gpu.get("train;[no launch stack];cudaMemsetAsync;[memset]"), steps * 10000)
expect("kernel without API", gpu.get("train;[unknown API];[gpu] orphan()"), orphans * 5000 or None)
expect("gpu.folded has nothing else", len(gpu), 4 + (1 if orphans else 0))

off = folded("offcpu.folded")
want_off = {"train;loader_main_[j];load_batch_[j];read_[j];[off-cpu];do_syscall_64;vfs_read;schedule": steps * 400000}
# -x: preempted in backward() for 2.5 us each step, from 2 us before the first kernel starts
PREEMPTED = "train;train_step_[j];backward_[j];[off-cpu]"
if preempted:
    want_off[PREEMPTED] = steps * 2500
expect("off-CPU read with kernel stack", off, want_off)
cpu = folded("cpu.folded")
odd = steps // 2  # main samples forward() on odd steps, compute_loss() on even ones
expect("on-CPU", cpu, {f"{M};compute_loss_[j]": (steps - odd) * spp * SAMPLE,
                       f"{M};forward_[j]": odd * spp * SAMPLE,
                       "train;loader_main_[j];load_batch_[j];read_[j]": steps * spp * SAMPLE})
prof = folded("profile.folded")
expect("profile = cpu + offcpu + gpu", sum(prof.values()), sum(cpu.values()) + sum(off.values()) + sum(gpu.values()))
# While the GPU idles, the launching (main) thread computes the loss; the loader is not a
# launcher. The orphan kernel covers the first main sample of every 100th step, and the
# window ends with the last GPU activity, before the last step's samples.
idle = folded("gpu_idle.folded")
want_idle = {}
for st in range(steps - 1):
    leaf = f"{M};forward_[j]" if st % 2 else f"{M};compute_loss_[j]"
    n = spp - (1 if st % 100 == 99 else 0)
    if n:
        want_idle[leaf] = want_idle.get(leaf, 0) + n * SAMPLE
# -x: the 2 us of each preemption before the step's first kernel (the GPU is idle then), in
# every step: off-CPU spans are attributed after the samples, which come later in each step
if preempted:
    want_idle[PREEMPTED] = steps * 2000
# -l: the loader launches too, so its off-CPU read [500, 900) us of each step counts where the
# GPU idles: from the memset's end at 580 us (an orphan kernel at 600-605 us every 100th step),
# in every step but the last, whose window ends at 580 us
LOADER_READ = "train;loader_main_[j];load_batch_[j];read_[j];[off-cpu];do_syscall_64;vfs_read;schedule"
if loader_calls:
    want_idle[LOADER_READ] = sum(315000 if st % 100 == 99 else 320000 for st in range(steps - 1))
expect("gpu_idle", idle, want_idle)

s = json.load(open(f"{d}/summary.json"))
expect("schema", (s["schema"], s["schema_version"]), ("gpuperf-summary", "1.10"))
# -L: losses reported by the recorders, summed by source; every source always present
want_drops = dict.fromkeys(["cupti", "inject_buffers", "ringbuf_sample", "ringbuf_offcpu",
                            "ringbuf_launch", "ringbuf_proc", "stack", "writer", "offcpu_missed",
                            "perf_map", "kallsyms", "module", "unwind_cfi", "vmm"], 0)
if losses:
    want_drops.update(cupti=4, ringbuf_sample=2, offcpu_missed=5, unwind_cfi=2)
expect("drops", s["drops"], want_drops)
if losses:
    # 1.8: mappings unwound by frame pointers, with the agent's cause
    expect("drop_causes.unwind_cfi", s["drop_causes"].get("unwind_cfi", "").split(" ")[0],
           "ENOEXEC")
expect("join", (s["join"]["gpu_records"], s["join"]["with_api"], s["join"]["with_stack"]),
       (4 * steps + orphans, 4 * steps, 3 * steps))
k = {x["name"]: x for x in s["kernels"]}
expect("fwd stats", (k["fwd_kernel(float*, int)"]["count"], k["fwd_kernel(float*, int)"]["total_ns"],
                     k["fwd_kernel(float*, int)"]["p50_ns"], k["fwd_kernel(float*, int)"]["p99_ns"]),
       (steps, steps * 200000, 200000, 200000))
expect("kernel order", [x["name"] for x in s["kernels"]][:2],
       ["void bwd_kernel<float>(float*, int)", "fwd_kernel(float*, int)"])
expect("memcpy", [(x["kind"], x["count"], x["bytes"], x["total_ns"]) for x in s["memcpy"]],
       [("DtoH", steps, steps << 20, steps * 50000)])
expect("memset", (s["memset"]["count"], s["memset"]["total_ns"]), (steps, steps * 10000))
sites = {(x["function"], x["api"]): x for x in s["launch_sites"]}
expect("backward site", (sites[("backward", "cudaLaunchKernel")]["gpu_ns"],
                         sites[("backward", "cudaLaunchKernel")]["stack"]),
       (steps * 300000, "main;train_step;backward"))
expect("sites", len(sites), 3)
busy = steps * 560000 + orphans * 5000
expect("gpu busy", s["gpu"]["busy_ns"], busy)
dev = s["gpu"]["devices"][0]
expect("device", (dev["name"], dev["busy_ns"], dev["kernel_ns"]), ("Synthetic GPU", busy, steps * 500000 + orphans * 5000))
expect("cpu", (s["cpu"]["samples"], s["cpu"]["on_cpu_ns"], s["cpu"]["off_cpu_ns"]),
       (2 * steps * spp, 2 * steps * spp * SAMPLE, steps * (400000 + (2500 if preempted else 0))))
expect("process", [(p["pid"], p["comm"]) for p in s["processes"]], [(100, "train")])
# -u: every sample and span says where its stack ends; one in three loader samples ends early
reasons = dict.fromkeys(["depth", "unknown_module", "bad_frame", "no_fp", "unsupported_cfi",
                         "off_stack", "no_tables", "short_copy"], 0)
stacks = root = 0
if unwind_ends:
    loader = steps * spp
    reasons["unknown_module"] = loader // 3
    reasons["short_copy"] = steps if preempted else 0
    stacks = 2 * steps * spp + steps + (steps if preempted else 0)
    root = stacks - reasons["unknown_module"] - reasons["short_copy"]
expect("stack_ends", s["stack_ends"], {"stacks": stacks, "root": root, "early": stacks - root,
                                       "reasons": reasons})
expect("process stack_ends", s["processes"][0]["stack_ends"],
       {"stacks": stacks, "root": root, "root_fraction": root / stacks} if stacks else None)
report = open(f"{d}/report.txt").read() if unwind_ends else ""
if unwind_ends:
    line = [x for x in report.splitlines() if "user stacks cut short" in x]
    why = f"unknown_module {reasons['unknown_module']}" + (f", short_copy {steps}" if preempted else "")
    expect("text report on stack ends", [x.split(": ", 1)[1] for x in line],
           [f"{stacks - root} of {stacks} ({100 * (stacks - root) / stacks:.1f}%) end before their "
            f"thread's root: {why} (\"stack_ends\" in summary.json)"])
expect("clock", [(c["file"], c["method"]) for c in s["clock_alignment"]], [("gpu-100.trace", "identity")])

# every API call on its thread's track, once: 4 a step on the main thread (100), and with -l
# one a step on the loader (101), whose calls the loader groups by thread before sorting
t = json.load(open(f"{d}/trace.json"))
calls = {}
for e in (t["traceEvents"] if isinstance(t, dict) else t):
    if e.get("cat") == "cuda_api":
        calls[e["tid"]] = calls.get(e["tid"], 0) + 1
        calls[("corr", e["args"]["correlation_id"])] = calls.get(("corr", e["args"]["correlation_id"]), 0) + 1
expect("API calls by thread", {k: v for k, v in calls.items() if not isinstance(k, tuple)},
       {100: 4 * steps, 101: steps} if loader_calls else {100: 4 * steps})
expect("API calls with a correlation id of their own",
       sum(1 for k, v in calls.items() if isinstance(k, tuple) and v == 1), 5 * steps if loader_calls else 4 * steps)

if fails:
    print("\n".join("FAIL: " + f for f in fails))
    sys.exit(1)
print(f"ok: synthetic recording of {steps} steps reported exactly")
