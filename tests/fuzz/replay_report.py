#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""replay_report.py - the mutated-recording fuzz of `gpuperf report`, for a bounded time.

usage: replay_report.py GPUPERF GEN_RECORDING [--seconds S] [--seed N] [--corpus DIR] [--keep DIR]

Makes a few recordings with gen_recording (and takes the traces of the
seed corpus, tests/fuzz/corpus, as GPU and CPU traces), then, until S
seconds have passed (180 by default), copies one, damages it -- bit
flips, a truncation, two records' worth of bytes swapped, bytes zeroed,
a perf map or kallsyms line garbled -- and runs `gpuperf report` on it.
Each run must:
  - exit 0 or 1 (never a signal, a sanitizer's report, or a usage error 2),
  - finish within 20 s (no hang),
  - on exit 0, leave summary.json and trace.json that Python's strict
    json reads as UTF-8, and a profile.svg that Python's XML parser reads.
A failing input is kept under --keep (default: a directory beside the
work files, printed) with the command to replay it. Exit 0 when every run
passed, 1 otherwise. The seed (printed) makes a run repeatable.
"""
import argparse
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

RUN_TIMEOUT = 20


def make_bases(gen, corpus, work):
    bases = []
    for i, args in enumerate((["-n", "30", "-c", "4096"], ["-n", "20", "-s", "3", "-x", "-l", "-L", "-c", "4096"],
                              ["-n", "15", "-d", "-1", "-c", "4096"], ["-n", "12", "-D", "8", "-l", "-i"])):
        d = os.path.join(work, "base%d" % i)
        os.mkdir(d)
        subprocess.run([gen] + args + [d], check=True)
        bases.append(d)
    if corpus and os.path.isdir(corpus):
        # each seed trace as a GPU trace beside base0's CPU trace, and as the CPU trace
        for name in sorted(os.listdir(corpus)):
            src = os.path.join(corpus, name)
            if not os.path.isfile(src):
                continue
            for role in ("gpu-100.trace", "cpu.trace"):
                d = os.path.join(work, "seed-%s-%s" % (name, role.split(".")[0]))
                shutil.copytree(bases[0], d)
                shutil.copyfile(src, os.path.join(d, role))
                bases.append(d)
    return bases


def mutate(rng, d):
    """Damage one file of recording directory d in place; returns what was done."""
    files = sorted(f for f in os.listdir(d) if f.endswith(".trace") or f.endswith(".map") or f == "kallsyms")
    traces = [f for f in files if f.endswith(".trace")]
    name = rng.choice(traces if traces and rng.random() < 0.85 else files)
    path = os.path.join(d, name)
    data = bytearray(open(path, "rb").read())
    if not data:
        return "%s: empty, left" % name
    kind = rng.choice(["flip", "flip", "flips", "truncate", "swap", "zero", "dup"])
    if name.endswith(".map") or name == "kallsyms":
        kind = rng.choice(["flip", "truncate", "swap", "garble"])
    n = len(data)
    if kind == "flip":
        at = rng.randrange(n)
        data[at] ^= 1 << rng.randrange(8)
        what = "bit flip at %d" % at
    elif kind == "flips":
        k = rng.randint(2, 16)
        for _ in range(k):
            data[rng.randrange(n)] ^= 1 << rng.randrange(8)
        what = "%d bit flips" % k
    elif kind == "truncate":
        at = rng.randrange(n)
        del data[at:]
        what = "truncated at %d" % at
    elif kind == "swap":
        size = rng.choice([8, 16, 24, 32, 64, 88])
        if n < 2 * size:
            return "%s: too short to swap" % name
        a = rng.randrange(0, n - size) & ~7
        b = rng.randrange(0, n - size) & ~7
        ca, cb = bytes(data[a:a + size]), bytes(data[b:b + size])
        data[a:a + size], data[b:b + size] = cb, ca
        what = "swapped %d bytes at %d and %d" % (size, a, b)
    elif kind == "zero":
        at = rng.randrange(n)
        k = rng.randint(1, 64)
        data[at:at + k] = bytes(len(data[at:at + k]))
        what = "zeroed %d bytes at %d" % (k, at)
    elif kind == "dup":
        at = rng.randrange(n)
        k = rng.randint(1, 256)
        data[at:at] = data[at:at + k]
        what = "duplicated %d bytes at %d" % (k, at)
    else:  # garble a text line: odd bytes, huge numbers
        junk = rng.choice([b"\xff\xfe", b"ffffffffffffffff ffffffffffffffff x\n", b" \n", b"\x00", b"0 0 \xc0\xaf\n"])
        at = rng.randrange(n)
        data[at:at] = junk
        what = "inserted %r at %d" % (junk, at)
    open(path, "wb").write(bytes(data))
    return "%s: %s" % (name, what)


def check_outputs(out):
    """'' when the outputs parse, else what is wrong."""
    for name in ("summary.json", "trace.json", "trace.json.gz"):
        p = os.path.join(out, name)
        if not os.path.exists(p):
            continue
        try:
            raw = gzip.open(p).read() if name.endswith(".gz") else open(p, "rb").read()
            json.loads(raw.decode("utf-8", "strict"))
        except Exception as e:  # noqa: BLE001 - any failure is the finding
            return "%s: %s" % (name, e)
    p = os.path.join(out, "profile.svg")
    if os.path.exists(p):
        try:
            ET.parse(p)
        except Exception as e:  # noqa: BLE001
            return "profile.svg: %s" % e
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("gpuperf")
    ap.add_argument("gen_recording")
    ap.add_argument("--seconds", type=float, default=float(os.environ.get("GPUPERF_FUZZ_SECONDS", 180)))
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus"))
    ap.add_argument("--keep", default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), "little")
    rng = random.Random(seed)
    env = dict(os.environ)
    # A sanitizer's report must not pass for exit status 1.
    env.setdefault("ASAN_OPTIONS", "exitcode=86:detect_leaks=1")
    env.setdefault("UBSAN_OPTIONS", "halt_on_error=1:exitcode=86:print_stacktrace=1")
    work = tempfile.mkdtemp(prefix="gpuperf-fuzz-")
    keep = a.keep or os.path.join(tempfile.gettempdir(), "gpuperf-fuzz-failures-%d" % seed)
    runs = failures = 0
    try:
        bases = make_bases(a.gen_recording, a.corpus, work)
        end = time.monotonic() + a.seconds
        while time.monotonic() < end:
            base = rng.choice(bases)
            d = os.path.join(work, "run")
            out = os.path.join(work, "out")
            shutil.rmtree(d, ignore_errors=True)
            shutil.rmtree(out, ignore_errors=True)
            shutil.copytree(base, d)
            what = [mutate(rng, d) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
            cmd = [a.gpuperf, "report", "-q", "-o", out, d]
            runs += 1
            try:
                p = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   timeout=RUN_TIMEOUT)
                rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
                bad = "" if rc in (0, 1) else "exit status %d" % rc
                if not bad and rc == 0:
                    bad = check_outputs(out)
            except subprocess.TimeoutExpired:
                rc, err, bad = None, "", "no exit within %d s" % RUN_TIMEOUT
            if bad:
                failures += 1
                dest = os.path.join(keep, "case%d" % failures)
                os.makedirs(keep, exist_ok=True)
                shutil.copytree(d, dest)
                print("FAIL: %s (from %s: %s)\n  replay: %s report -q -o OUT %s\n%s" %
                      (bad, os.path.basename(base), "; ".join(what), a.gpuperf, dest,
                       "".join("  | " + line + "\n" for line in err.splitlines()[-15:])), flush=True)
                if failures >= 10:
                    break
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d mutated recordings reported, %d failed (seed %d)" % (runs, failures, seed))
    return 1 if failures or not runs else 0


if __name__ == "__main__":
    sys.exit(main())
