#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# check_svg.py - parse `gpuperf flamegraph` output with a real XML parser and check its geometry, colors and titles.
# usage: check_svg.py GPUPERF FILE.folded
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

NS = {"s": "http://www.w3.org/2000/svg"}
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)
    return cond


def render(gpuperf, folded, *opts):
    with tempfile.NamedTemporaryFile(suffix=".svg") as out:
        r = subprocess.run([gpuperf, "flamegraph", *opts, folded, "-o", out.name],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"gpuperf flamegraph {' '.join(opts)} exits 0 (got {r.returncode}: {r.stderr})")
        return ET.parse(out.name).getroot(), r.stderr, open(out.name, "rb").read()


def expected_tree(folded):
    """Name path -> total weight, computed from the folded text independently."""
    tot = {}
    for line in open(folded, encoding="utf-8"):
        m = re.match(r"^(.*\S)\s+(\d+)$", line.rstrip("\n"))
        if not m:
            continue
        frames = [re.sub(r"_\[[kijw]\]$", "", f) for f in m.group(1).split(";")]
        w = int(m.group(2))
        tot[()] = tot.get((), 0) + w
        for d in range(1, len(frames) + 1):
            tot[tuple(frames[:d])] = tot.get(tuple(frames[:d]), 0) + w
    return tot


def fmt_ns(w):
    if w < 1000:
        return f"{w} ns"
    if w < 1000000:
        return f"{w / 1e3:.2f} µs"
    if w < 1000000000:
        return f"{w / 1e6:.2f} ms"
    return f"{w / 1e9:.3f} s"


def frames_of(root):
    out = []
    for g in root.find("s:g[@id='fg-frames']", NS).findall("s:g", NS):
        rect = g.find("s:rect", NS)
        out.append({
            "kind": g.get("class"),
            "w_data": int(g.get("data-w")),
            "title": g.find("s:title", NS).text,
            "x": float(rect.get("x")), "y": float(rect.get("y")),
            "w": float(rect.get("width")), "fill": rect.get("fill"),
            "label": g.find("s:text", NS).text or "",
        })
    return out


def rgb(fill):
    return tuple(int(v) for v in re.match(r"rgb\((\d+),(\d+),(\d+)\)$", fill).groups())


# What each kind's palette looks like to a user.
HUE = {
    "cpu": lambda r, g, b: r > g > b and r >= 200,
    "kernel": lambda r, g, b: r >= 200 and g < 160 and b > 100,
    "inline": lambda r, g, b: r >= 230 and g > b,
    "jit": lambda r, g, b: r > 200 and g > 190 and b < 100,
    "offcpu": lambda r, g, b: b > r and b > g and b >= 195,
    "gpu": lambda r, g, b: g > r and g > b,
    "memcpy": lambda r, g, b: g > r + 80 and b > r + 80,
    "memset": lambda r, g, b: b > g and r > g and b >= 200,
    "sync": lambda r, g, b: r > g > b,
    "synthetic": lambda r, g, b: abs(r - g) < 15 and b >= r,
}


def main():
    gpuperf, folded = sys.argv[1], sys.argv[2]
    root, err, _ = render(gpuperf, folded, "--minwidth", "0")
    check(root.tag == "{http://www.w3.org/2000/svg}svg", "root element is <svg>")
    width = float(root.get("width"))
    full = width - 20
    check("skipped 1 of" in err, f"one warning line about the bad input line: {err!r}")
    check(len(err.strip().splitlines()) == 1, "exactly one warning line")
    fr = frames_of(root)
    total = fr[0]["w_data"]
    want = expected_tree(folded)
    check(fr[0]["title"] == f"all ({fmt_ns(total)}, 100.00%)", f"root title {fr[0]['title']!r}")
    check(total == want[()], f"total {total} == {want[()]}")

    # Rebuild the tree from pre-order + rows, then check geometry against the weights.
    fh = 16
    path, paths = [], []
    for f in fr:
        depth = round((fr[0]["y"] - f["y"]) / fh)
        f["depth"] = depth
        name = re.match(r"^(.*) \([^()]*\)$", f["title"], re.S).group(1)
        f["name"] = name
        del path[depth:]
        f["parent"] = path[-1] if path else None
        path.append(f)
        paths.append(tuple(p["name"] for p in path[1:]))
    for f, p in zip(fr, paths):
        check(want.get(p) == f["w_data"], f"{'/'.join(p)}: weight {f['w_data']} == folded {want.get(p)}")
        check(abs(f["w"] - f["w_data"] / total * full) <= 0.011,
              f"{f['name']}: width {f['w']} proportional to {f['w_data']}")
        m = re.match(r"^(.*) \((.*), (\d+\.\d\d)%\)$", f["title"], re.S)
        check(m is not None and m.group(2) == fmt_ns(f["w_data"]) and
              m.group(3) == f"{100 * f['w_data'] / total:.2f}",
              f"title {f['title']!r} carries time and percent")
        par = f["parent"]
        if par is not None:
            check(f["x"] >= par["x"] - 0.011 and f["x"] + f["w"] <= par["x"] + par["w"] + 0.022,
                  f"{f['name']} lies within its parent {par['name']}")
            check(abs(f["y"] - (par["y"] - fh)) < 0.01, f"{f['name']} sits one row above its parent")
        kids = [k for k in fr if k.get("parent") is f]
        check(sum(k["w"] for k in kids) <= f["w"] + 0.011 * max(1, len(kids)), f"{f['name']}: children fit")
        check(HUE[f["kind"]](*rgb(f["fill"])), f"{f['name']} ({f['kind']}) colored {f['fill']}")
        if f["label"]:
            check(f["label"] == f["name"] or (f["label"].endswith("..") and f["name"].startswith(f["label"][:-2])),
                  f"label {f['label']!r} is the name or its prefix")

    kinds = {f["kind"] for f in fr[1:]}
    check({"cpu", "kernel", "inline", "jit", "offcpu", "gpu", "memcpy", "memset", "sync", "synthetic"} <= kinds,
          f"every kind of the sample is present: {sorted(kinds)}")
    legend = {g.get("class") for g in root.find("s:g[@id='fg-legend']", NS).findall("s:g", NS)}
    check(legend == kinds, f"legend {sorted(legend)} lists exactly the kinds drawn {sorted(kinds)}")
    by_name = {}
    for f in fr:
        by_name.setdefault((f["name"], f["kind"]), set()).add(f["fill"])
    check(all(len(v) == 1 for v in by_name.values()), "one color per name and kind")
    for need in ("fg-title", "fg-subtitle" if False else "fg-title", "fg-unzoom", "fg-search", "fg-ic",
                 "fg-details", "fg-matched"):
        check(root.find(f".//*[@id='{need}']", NS) is not None, f"element #{need} present")
    check(root.find("s:script", NS) is not None and "fg_init" in root.find("s:script", NS).text,
          "script embedded")

    # Icicle: the root on top, children below.
    iroot, _, _ = render(gpuperf, folded, "--inverted", "--minwidth", "0")
    ifr = frames_of(iroot)
    check(all(f["y"] > ifr[0]["y"] for f in ifr[1:]), "inverted: every frame below the root")

    # Count units.
    croot, _, _ = render(gpuperf, folded, "--countname", "events", "--minwidth", "0")
    check(frames_of(croot)[0]["title"] == f"all ({total:,} events, 100.00%)", "count units in titles")

    # Min width: a frame narrower than the minimum is left out, with its subtree.
    with tempfile.NamedTemporaryFile("w", suffix=".folded") as big:
        for i in range(5000):
            big.write(f"main;spread;leaf{i};deeper 1\n")
        big.write("main;hot 5000000\n")
        big.flush()
        mroot, _, raw = render(gpuperf, big.name)
        names = {f["title"].split(" (")[0] for f in frames_of(mroot)}
        check("hot" in names and "spread" in names and not any(n.startswith("leaf") for n in names),
              f"frames under 0.1 px elided ({len(names)} drawn)")
        check(len(raw) < 40000, f"elided SVG stays small ({len(raw)} bytes)")

    print(f"{'FAIL' if failures else 'ok'}: {len(fr)} frames checked, {len(failures)} failures")
    sys.exit(1 if failures else 0)


main()
