// SPDX-License-Identifier: Apache-2.0
// flamegraph_svg.js - the interactive part of gpuperf's SVG flame graph (embedded by flamegraph_svg.c).
//
// The document holds one <g> per frame in pre-order (parents before children,
// a subtree is a contiguous run), each with a <title> "name (time, pct%)",
// a <rect>, a <text> and its weight in data-w. fg_conf (written before this
// script) carries the geometry. State that survives a reload lives in the
// URL fragment: #z=<frame index>&s=<regex>&i=1.
"use strict";

var fg = {
	frames: [], // { g, rect, text, name, x, w, depth, weight, end, parent, fill }
	zoomed: -1,
	term: "",
	ignoreCase: false,
	details: null,
	matched: null,
	unzoomBtn: null,
	searchBtn: null,
	icBtn: null,
};

function fg_init(evt) {
	var doc = document, i, n, g, depthStack = [], root;
	var gs = doc.getElementById("fg-frames").children;

	fg.details = doc.getElementById("fg-details").firstChild;
	fg.matched = doc.getElementById("fg-matched").firstChild;
	fg.unzoomBtn = doc.getElementById("fg-unzoom");
	fg.searchBtn = doc.getElementById("fg-search");
	fg.icBtn = doc.getElementById("fg-ic");

	for (i = 0; i < gs.length; i++) {
		g = gs[i];
		var rect = g.getElementsByTagName("rect")[0];
		var title = g.getElementsByTagName("title")[0].textContent;
		var cut = title.lastIndexOf(" (");
		var f = {
			g: g,
			rect: rect,
			text: g.getElementsByTagName("text")[0],
			title: title,
			name: cut >= 0 ? title.substring(0, cut) : title,
			x: parseFloat(rect.getAttribute("x")),
			w: parseFloat(rect.getAttribute("width")),
			y: parseFloat(rect.getAttribute("y")),
			fill: rect.getAttribute("fill"),
			weight: parseFloat(g.getAttribute("data-w")) || 0,
			depth: 0,
			parent: -1,
			end: i + 1,
		};
		g.setAttribute("data-i", i);
		fg.frames.push(f);
	}
	n = fg.frames.length;
	if (!n)
		return;
	root = fg.frames[0];
	for (i = 0; i < n; i++) {
		var fr = fg.frames[i];
		fr.depth = Math.round(Math.abs(fr.y - root.y) / fg_conf.frameHeight);
		depthStack.length = fr.depth;
		fr.parent = fr.depth ? depthStack[fr.depth - 1] : -1;
		depthStack[fr.depth] = i;
	}
	// A subtree ends where the next frame at the same or a lower depth begins.
	for (i = n - 1; i >= 0; i--) {
		var e = i + 1;
		while (e < n && fg.frames[e].depth > fg.frames[i].depth)
			e = fg.frames[e].end;
		fg.frames[i].end = e;
	}

	doc.getElementById("fg-frames").addEventListener("click", function (ev) {
		var idx = fg_frameIndex(ev.target);
		if (idx >= 0)
			fg_zoom(idx, true);
	});
	doc.getElementById("fg-frames").addEventListener("mouseover", function (ev) {
		var idx = fg_frameIndex(ev.target);
		if (idx >= 0)
			fg.details.nodeValue = fg.frames[idx].title;
	});
	doc.getElementById("fg-frames").addEventListener("mouseout", function () {
		fg.details.nodeValue = " ";
	});
	fg.unzoomBtn.addEventListener("click", function () {
		fg_unzoom(true);
	});
	fg.searchBtn.addEventListener("click", function () {
		if (fg.term)
			fg_search("", true);
		else
			fg_prompt();
	});
	fg.icBtn.addEventListener("click", function () {
		fg_setIgnoreCase(!fg.ignoreCase, true);
	});
	window.addEventListener("keydown", function (ev) {
		if ((ev.ctrlKey || ev.metaKey) && (ev.key === "f" || ev.key === "F" || ev.keyCode === 70)) {
			ev.preventDefault();
			fg_prompt();
		} else if (ev.key === "Escape") {
			fg_search("", true);
		}
	});
	fg_restoreState();
}

function fg_frameIndex(el) {
	while (el && el.tagName !== "g")
		el = el.parentNode;
	if (!el || !el.hasAttribute("data-i"))
		return -1;
	return parseInt(el.getAttribute("data-i"), 10);
}

// Fit a name into w px the way the renderer does: whole, or cut with "..".
function fg_label(name, w) {
	var fit = Math.floor((w - 6) / (fg_conf.fontSize * fg_conf.fontWidth));
	var chars = Array.from(name);
	if (fit < 3)
		return "";
	if (chars.length <= fit)
		return name;
	return chars.slice(0, fit - 2).join("") + "..";
}

function fg_place(f, x, w) {
	f.rect.setAttribute("x", x.toFixed(2));
	f.rect.setAttribute("width", w.toFixed(2));
	f.text.setAttribute("x", (x + 3).toFixed(2));
	f.text.textContent = fg_label(f.name, w);
}

function fg_zoom(idx, save) {
	var frames = fg.frames, target = frames[idx], i, p, full, ratio;

	if (!target)
		return;
	full = fg_conf.width - 2 * fg_conf.xpad;
	ratio = full / target.w;
	if (idx === 0) {
		fg_unzoom(save);
		return;
	}
	for (i = 0; i < frames.length; i++) {
		frames[i].g.classList.add("fg-hidden");
		frames[i].g.classList.remove("fg-parent");
	}
	for (p = target.parent; p >= 0; p = frames[p].parent) {
		frames[p].g.classList.remove("fg-hidden");
		frames[p].g.classList.add("fg-parent");
		fg_place(frames[p], fg_conf.xpad, full);
	}
	for (i = idx; i < target.end; i++) {
		var f = frames[i];
		var w = f.w * ratio;
		if (w < 0.1)
			continue;
		f.g.classList.remove("fg-hidden");
		fg_place(f, fg_conf.xpad + (f.x - target.x) * ratio, w);
	}
	fg.zoomed = idx;
	fg.unzoomBtn.classList.remove("fg-off");
	if (save)
		fg_saveState();
}

function fg_unzoom(save) {
	var i;
	for (i = 0; i < fg.frames.length; i++) {
		var f = fg.frames[i];
		f.g.classList.remove("fg-hidden");
		f.g.classList.remove("fg-parent");
		fg_place(f, f.x, f.w);
	}
	fg.zoomed = -1;
	fg.unzoomBtn.classList.add("fg-off");
	if (save)
		fg_saveState();
}

function fg_prompt() {
	var term = window.prompt("Search for (a regular expression, e.g. ^cuda|\\[gpu\\])", fg.term);
	if (term !== null)
		fg_search(term, true);
}

function fg_setIgnoreCase(on, save) {
	fg.ignoreCase = on;
	if (on)
		fg.icBtn.classList.add("fg-on");
	else
		fg.icBtn.classList.remove("fg-on");
	if (fg.term)
		fg_search(fg.term, false);
	if (save)
		fg_saveState();
}

// Highlight the frames whose name matches; "Matched" is the share of the
// total weight under matching frames, each stack counted once even when
// several of its frames match (a matching frame's subtree is skipped).
function fg_search(term, save) {
	var frames = fg.frames, re = null, i, sum = 0, coveredEnd = 0;

	fg.term = term || "";
	if (fg.term) {
		try {
			re = new RegExp(fg.term, fg.ignoreCase ? "i" : "");
		} catch (e) {
			fg.matched.nodeValue = "Invalid search: " + e.message;
			re = null;
		}
	}
	for (i = 0; i < frames.length; i++) {
		var f = frames[i];
		var hit = re !== null && i > 0 && re.test(f.name);
		f.rect.setAttribute("fill", hit ? fg_conf.matchFill : f.fill);
		if (hit) {
			f.g.classList.add("fg-match");
			if (i >= coveredEnd) {
				sum += f.weight;
				coveredEnd = f.end;
			}
		} else {
			f.g.classList.remove("fg-match");
		}
	}
	if (re) {
		var pct = fg_conf.total ? (100 * sum) / fg_conf.total : 0;
		fg.matched.nodeValue = "Matched: " + pct.toFixed(2) + "%";
		fg.searchBtn.firstChild.nodeValue = "Reset Search";
	} else {
		if (!fg.term)
			fg.matched.nodeValue = " ";
		fg.searchBtn.firstChild.nodeValue = "Search";
	}
	if (save)
		fg_saveState();
}

function fg_saveState() {
	var parts = [];
	if (fg.zoomed > 0)
		parts.push("z=" + fg.zoomed);
	if (fg.term)
		parts.push("s=" + encodeURIComponent(fg.term));
	if (fg.ignoreCase)
		parts.push("i=1");
	var hash = parts.length ? "#" + parts.join("&") : "";
	var url = location.href.replace(/#.*$/, "") + hash;
	try {
		history.replaceState(null, "", url);
	} catch (e) {
		if (hash)
			location.hash = hash;
	}
}

function fg_restoreState() {
	var hash = location.hash.replace(/^#/, ""), i, z = -1, s = "", ic = false;
	if (!hash)
		return;
	var parts = hash.split("&");
	for (i = 0; i < parts.length; i++) {
		var eq = parts[i].indexOf("=");
		if (eq < 0)
			continue;
		var k = parts[i].substring(0, eq), v = parts[i].substring(eq + 1);
		try {
			v = decodeURIComponent(v);
		} catch (e) {
			continue;
		}
		if (k === "z")
			z = parseInt(v, 10);
		else if (k === "s")
			s = v;
		else if (k === "i")
			ic = v === "1";
	}
	if (ic)
		fg_setIgnoreCase(true, false);
	if (z > 0 && z < fg.frames.length)
		fg_zoom(z, false);
	if (s)
		fg_search(s, false);
}
