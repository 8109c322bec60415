// SPDX-License-Identifier: Apache-2.0
// cdp.js - a minimal Chrome DevTools Protocol client over --remote-debugging-pipe (no npm needed).
"use strict";

const { spawn } = require("child_process");

// Start the browser with its DevTools pipe on fds 3 (we write) and 4 (we read);
// messages are JSON texts each ended by a NUL byte.
function launch(exe, extraArgs) {
	const proc = spawn(exe, extraArgs.concat(["--remote-debugging-pipe"]), {
		stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
	});
	const out = proc.stdio[3], inp = proc.stdio[4];
	let nextId = 1, buf = Buffer.alloc(0), stderr = "";
	const pending = new Map(), listeners = [];

	proc.stderr.on("data", (d) => {
		stderr += d.toString();
		if (stderr.length > 20000)
			stderr = stderr.slice(-20000);
	});
	inp.on("data", (chunk) => {
		buf = Buffer.concat([buf, chunk]);
		let nul;
		while ((nul = buf.indexOf(0)) >= 0) {
			const msg = JSON.parse(buf.subarray(0, nul).toString("utf8"));
			buf = buf.subarray(nul + 1);
			if (msg.id !== undefined && pending.has(msg.id)) {
				const p = pending.get(msg.id);
				pending.delete(msg.id);
				if (msg.error)
					p.reject(new Error(p.method + ": " + msg.error.message));
				else
					p.resolve(msg.result);
			} else if (msg.method) {
				for (const l of listeners.slice())
					l(msg);
			}
		}
	});
	const exited = new Promise((resolve) => proc.on("exit", resolve));
	exited.then(() => {
		for (const p of pending.values())
			p.reject(new Error("browser exited: " + stderr.split("\n").slice(-5).join("\n")));
		pending.clear();
	});

	function send(method, params, sessionId) {
		const id = nextId++;
		const msg = { id, method, params: params || {} };
		if (sessionId)
			msg.sessionId = sessionId;
		return new Promise((resolve, reject) => {
			pending.set(id, { resolve, reject, method });
			out.write(JSON.stringify(msg) + "\0");
		});
	}
	function on(fn) {
		listeners.push(fn);
		return () => listeners.splice(listeners.indexOf(fn), 1);
	}
	// Resolve with the first event matching pred (or reject after ms).
	function waitFor(pred, ms, what) {
		return new Promise((resolve, reject) => {
			const t = setTimeout(() => {
				off();
				reject(new Error("timed out waiting for " + what));
			}, ms);
			const off = on((m) => {
				if (pred(m)) {
					clearTimeout(t);
					off();
					resolve(m);
				}
			});
		});
	}
	async function close() {
		try {
			await Promise.race([send("Browser.close"), new Promise((r) => setTimeout(r, 3000))]);
		} catch (e) {
			/* already gone */
		}
		if (proc.exitCode === null)
			proc.kill("SIGKILL");
		await exited;
	}
	return { send, on, waitFor, close, stderr: () => stderr };
}

module.exports = { launch };
