// SPDX-License-Identifier: Apache-2.0
// flamegraph_test.js - drive headless Chromium over an SVG from `gpuperf flamegraph` and check what a user would.
// usage: node flamegraph_test.js CHROMIUM FILE.svg FILE.folded [SCREENSHOT.png]
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const { launch } = require("./cdp");

const [exe, svgPath, foldedPath, shotPath] = process.argv.slice(2);
const failures = [];

function check(cond, what) {
	if (cond)
		console.log("ok: " + what);
	else {
		console.log("FAIL: " + what);
		failures.push(what);
	}
}

// What the user expects, computed from the folded input independently of the SVG.
function expectedMatch(re) {
	let total = 0, hit = 0;
	for (const line of fs.readFileSync(foldedPath, "utf8").split("\n")) {
		const m = /^(.*\S)\s+(\d+)$/.exec(line);
		if (!m)
			continue;
		const w = Number(m[2]);
		const frames = m[1].split(";").map((f) => f.replace(/_\[[kijw]\]$/, ""));
		total += w;
		if (frames.some((f) => re.test(f)))
			hit += w;
	}
	return "Matched: " + ((100 * hit) / total).toFixed(2) + "%";
}

async function main() {
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), "gpuperf-chromium-"));
	const b = launch(exe, [
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1220,700",
		"--user-data-dir=" + profile,
	]);
	const errors = [];
	try {
		const { targetId } = await b.send("Target.createTarget", { url: "about:blank" });
		const { sessionId } = await b.send("Target.attachToTarget", { targetId, flatten: true });
		const s = (m, p) => b.send(m, p, sessionId);
		b.on((m) => {
			if (m.sessionId !== sessionId)
				return;
			if (m.method === "Runtime.exceptionThrown")
				errors.push(m.params.exceptionDetails.exception
					? m.params.exceptionDetails.exception.description
					: m.params.exceptionDetails.text);
			else if (m.method === "Runtime.consoleAPICalled" && m.params.type === "error")
				errors.push("console.error: " + m.params.args.map((a) => a.value).join(" "));
			else if (m.method === "Log.entryAdded" && m.params.entry.level === "error")
				errors.push("log: " + m.params.entry.text);
			else if (m.method === "Page.javascriptDialogOpening")
				s("Page.handleJavaScriptDialog", { accept: true, promptText: promptAnswer });
		});
		let promptAnswer = "";
		await s("Page.enable");
		await s("Runtime.enable");
		await s("Log.enable");
		await s("Emulation.setDeviceMetricsOverride", { width: 1220, height: 700, deviceScaleFactor: 1, mobile: false });
		const evaluate = async (expr) => {
			const r = await s("Runtime.evaluate", { expression: expr, returnByValue: true, awaitPromise: true });
			if (r.exceptionDetails)
				throw new Error("evaluate " + expr + ": " + r.exceptionDetails.text);
			return r.result.value;
		};
		const load = async (fn) => {
			const loaded = b.waitFor((m) => m.sessionId === sessionId && m.method === "Page.loadEventFired", 15000, "load");
			await fn();
			await loaded;
		};
		const url = "file://" + path.resolve(svgPath);
		await load(() => s("Page.navigate", { url }));

		// 1. It loads and the script ran.
		const nframes = await evaluate("fg.frames.length");
		const ng = (fs.readFileSync(svgPath, "utf8").match(/<g class="[a-z]+" data-w=/g) || []).length;
		check(nframes > 1 && nframes === ng, `script indexed all ${ng} frames (got ${nframes})`);

		// 2. Ctrl-F opens the search prompt; the regex highlights exactly the matching frames.
		const term = "gemm|^\\[mem";
		promptAnswer = term;
		const key = { modifiers: 2, key: "f", code: "KeyF", windowsVirtualKeyCode: 70 };
		await s("Input.dispatchKeyEvent", Object.assign({ type: "rawKeyDown" }, key));
		await s("Input.dispatchKeyEvent", Object.assign({ type: "keyUp" }, key));
		await new Promise((r) => setTimeout(r, 300));
		const hl = await evaluate(`(() => {
			const re = new RegExp(${JSON.stringify(term)});
			let bad = 0, hits = 0;
			fg.frames.forEach((f, i) => {
				const lit = f.rect.getAttribute("fill") === fg_conf.matchFill;
				const want = i > 0 && re.test(f.name);
				if (lit !== want) bad++;
				if (lit) hits++;
			});
			return { bad, hits, matched: document.getElementById("fg-matched").textContent };
		})()`);
		check(hl.bad === 0 && hl.hits > 0, `search highlights exactly the matching frames (${hl.hits} lit, ${hl.bad} wrong)`);
		const wantMatched = expectedMatch(new RegExp(term));
		check(hl.matched === wantMatched, `"${hl.matched}" == "${wantMatched}"`);

		// 3. Case toggle: an upper-case term matches only with "ic" on.
		await evaluate(`fg_search("MAIN", true)`);
		const before = await evaluate(`document.getElementById("fg-matched").textContent`);
		await evaluate(`document.getElementById("fg-ic").dispatchEvent(new MouseEvent("click", {bubbles: true}))`);
		const after = await evaluate(`document.getElementById("fg-matched").textContent`);
		check(before === "Matched: 0.00%" && after === "Matched: 100.00%", `case toggle: ${before} -> ${after}`);
		await evaluate(`document.getElementById("fg-ic").dispatchEvent(new MouseEvent("click", {bubbles: true}))`);
		await evaluate(`fg_search(${JSON.stringify(term)}, true)`);

		// 4. A real mouse click on a frame zooms it to the full width.
		const target = await evaluate(`(() => {
			const i = fg.frames.findIndex((f) => f.name === "forward");
			const r = fg.frames[i].rect.getBoundingClientRect();
			return { i, x: r.left + r.width / 2, y: r.top + r.height / 2, w: fg.frames[i].w };
		})()`);
		for (const type of ["mouseMoved", "mousePressed", "mouseReleased"])
			await s("Input.dispatchMouseEvent", { type, x: target.x, y: target.y, button: "left", clickCount: 1 });
		const full = (await evaluate("fg_conf.width")) - 2 * (await evaluate("fg_conf.xpad"));
		const z = await evaluate(`(() => {
			const f = fg.frames[${target.i}];
			const hidden = fg.frames.filter((x) => x.g.classList.contains("fg-hidden")).length;
			return { w: parseFloat(f.rect.getAttribute("width")), hidden, unzoom: !document.getElementById("fg-unzoom").classList.contains("fg-off"), hash: location.hash };
		})()`);
		check(Math.abs(z.w - full) < 0.01, `clicked frame's width became full (${z.w} of ${full}, was ${target.w})`);
		check(z.hidden > 0 && z.unzoom, `frames outside the zoom hidden (${z.hidden}), Reset Zoom shown`);
		check(/z=\d+/.test(z.hash) && /s=/.test(z.hash), `state in the URL: ${z.hash}`);

		// 5. Reload: zoom and search come back from the URL.
		await load(() => s("Page.reload", {}));
		const r = await evaluate(`(() => {
			const f = fg.frames[${target.i}];
			return { w: parseFloat(f.rect.getAttribute("width")), matched: document.getElementById("fg-matched").textContent };
		})()`);
		check(Math.abs(r.w - full) < 0.01, `after reload the zoom is restored (${r.w})`);
		check(r.matched === wantMatched, `after reload the search is restored (${r.matched})`);

		if (shotPath) {
			const shot = await s("Page.captureScreenshot", { format: "png" });
			fs.writeFileSync(shotPath, Buffer.from(shot.data, "base64"));
		}

		// 6. Reset Zoom puts every frame back where the file had it.
		await evaluate(`document.getElementById("fg-unzoom").dispatchEvent(new MouseEvent("click", {bubbles: true}))`);
		const reset = await evaluate(`fg.frames.filter((f) => f.g.classList.contains("fg-hidden") ||
			Math.abs(parseFloat(f.rect.getAttribute("width")) - f.w) > 0.001 ||
			Math.abs(parseFloat(f.rect.getAttribute("x")) - f.x) > 0.001).length`);
		check(reset === 0, `Reset Zoom restores every frame (${reset} misplaced)`);
		check(!/z=/.test(await evaluate("location.hash")), "Reset Zoom clears the zoom from the URL");

		check(errors.length === 0, "no console errors or exceptions" + (errors.length ? ": " + errors.join("; ") : ""));
	} finally {
		await b.close();
		// Chromium's helper processes may still be writing the profile for a
		// moment after the browser exits: retry, and never fail on cleanup.
		try {
			fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
		} catch (e) {
			console.log("note: could not remove " + profile + ": " + e.message);
		}
	}
}

const timer = setTimeout(() => {
	console.log("FAIL: timed out");
	process.exit(1);
}, 90000);
main().then(
	() => {
		clearTimeout(timer);
		process.exit(failures.length ? 1 : 0);
	},
	(e) => {
		clearTimeout(timer);
		console.log("FAIL: " + (e && e.stack ? e.stack : e));
		process.exit(1);
	}
);
