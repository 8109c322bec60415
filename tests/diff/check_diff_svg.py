#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# check_diff_svg.py - parse `gpuperf diff --svg` output with a real XML parser: frames, widths, colors, titles.
# usage: check_diff_svg.py GPUPERF DATA_DIR   (DATA_DIR holds base/ and slower/ with gpu.folded)
import os
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


def tree(folded):
    """Name path -> total weight, from the folded text, independently of gpuperf."""
    tot = {}
    for line in open(folded, encoding="utf-8"):
        m = re.match(r"^(.*\S)\s+(\d+)$", line.rstrip("\n"))
        if not m:
            continue
        frames = m.group(1).split(";")
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


def render(gpuperf, *args):
    fd, out = tempfile.mkstemp(suffix=".svg")
    os.close(fd)
    r = subprocess.run([gpuperf, "diff", "--color=never", "--svg", out, *args],
                       capture_output=True, text=True)
    check(r.returncode in (0, 1), f"gpuperf diff --svg exits 0 or 1 (got {r.returncode}: {r.stderr})")
    root = ET.parse(out).getroot()
    os.unlink(out)
    return root


def frames_of(root):
    out = []
    for g in root.find("s:g[@id='fg-frames']", NS).findall("s:g", NS):
        rect = g.find("s:rect", NS)
        out.append({"w_data": int(g.get("data-w")), "b_data": int(g.get("data-b")),
                    "title": g.find("s:title", NS).text, "y": float(rect.get("y")),
                    "w": float(rect.get("width")), "fill": rect.get("fill")})
    return out


def paths_of(frames, fh=16):
    root_y = frames[0]["y"]
    stack = []
    for f in frames:
        depth = round((root_y - f["y"]) / fh)
        name = f["title"][: f["title"].rfind(" (")]
        del stack[depth:]
        stack.append(name)
        f["path"] = tuple(stack[1:])


def rgb(fill):
    return tuple(int(v) for v in re.match(r"rgb\((\d+),(\d+),(\d+)\)$", fill).groups())


def check_side(root, base, new, scale_b=1, scale_n=1, label=""):
    frames = frames_of(root)
    paths_of(frames)
    drawn = {f["path"] for f in frames}
    check(drawn == set(new), f"{label}: frames are exactly the new profile's paths "
          f"(missing {set(new) - drawn}, extra {drawn - set(new)})")
    vanished = set(base) - set(new)
    check(vanished and not (vanished & drawn), f"{label}: frames only in base are not drawn ({vanished})")
    full = frames[0]["w"]
    for f in frames:
        p = f["path"]
        nw, bw = new.get(p, 0) * scale_n, base.get(p, 0) * scale_b
        check(f["w_data"] == new.get(p, 0), f"{label}: {p}: data-w {f['w_data']} == new total {new.get(p, 0)}")
        check(f["b_data"] == round(bw), f"{label}: {p}: data-b {f['b_data']} == base total {bw}")
        check(abs(f["w"] - full * new[p] / new[()]) < 0.02, f"{label}: {p}: width follows the new weight")
        r, g, b = rgb(f["fill"])
        if nw > bw:
            check(r == 255 and g == b and g < 255, f"{label}: {p} grew: red ({f['fill']})")
        elif nw < bw:
            check(b == 255 and r == g and r < 255, f"{label}: {p} shrank: blue ({f['fill']})")
        else:
            check((r, g, b) == (255, 255, 255), f"{label}: {p} unchanged: white ({f['fill']})")
        name = p[-1] if p else "all"
        d = nw - bw
        if bw:
            want = (f"{name} (base {fmt_ns(round(bw))}, new {fmt_ns(round(nw))}, delta "
                    f"{'-' if d < 0 else '+'}{fmt_ns(round(abs(d)))}, {100 * d / bw:+.2f}%)")
        else:
            want = f"{name} (base 0, new {fmt_ns(round(nw))}, delta +{fmt_ns(round(nw))}, new frame)"
        check(f["title"] == want, f"{label}: title {f['title']!r} == {want!r}")
    # The most-changed frame (below the root) is the fully saturated one.
    deltas = [abs(new.get(f["path"], 0) * scale_n - base.get(f["path"], 0) * scale_b) for f in frames[1:]]
    top = frames[1 + deltas.index(max(deltas))]
    check(rgb(top["fill"]) in ((255, 0, 0), (0, 0, 255)), f"{label}: largest change is full color ({top['fill']})")
    legend = [g.get("class") for g in root.find("s:g[@id='fg-legend']", NS).findall("s:g", NS)]
    check(legend == ["slower", "faster", "same"], f"{label}: legend is the color scale ({legend})")
    check(root.find("s:script", NS) is not None, f"{label}: the interactive script is embedded")


def main():
    gpuperf, data = sys.argv[1], sys.argv[2]
    base = tree(os.path.join(data, "base", "gpu.folded"))
    new = tree(os.path.join(data, "slower", "gpu.folded"))
    root = render(gpuperf, os.path.join(data, "base"), os.path.join(data, "slower"))
    check_side(root, base, new, label="1 vs 1")
    # Several runs per side: the mean of the runs' weights (two identical base runs = one).
    root = render(gpuperf, "--base", os.path.join(data, "base"), os.path.join(data, "base", "summary.json"),
                  "--new", os.path.join(data, "slower"))
    check_side(root, base, new, label="2 vs 1")
    # Swapped: what grew is now blue.
    root = render(gpuperf, os.path.join(data, "slower"), os.path.join(data, "base"))
    check_side(root, new, base, label="swapped")
    print("FAIL" if failures else "ok: differential flame graph", f"({len(failures)} failures)" if failures else "")
    return 1 if failures else 0


sys.exit(main())
