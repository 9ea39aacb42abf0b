// min2phase.mjs — the reference side of `bench --twenty`: the same random
// 3×3 states (STATES_FILE, one facelets string a line, written by
// `bench --twenty N STATES_FILE`) solved by min2phase, Chen Shuang's
// two-phase solver, as cubing.js ships it (a JavaScript build of its Java
// source, bundled in cubing's dist/lib/cubing/chunks as the chunk
// `search-dynamic-solve-3x3x3-<hash>.js`).
//
//   node min2phase.mjs STATES_FILE [MAX_LENGTH [PREFIX]]
//
// cubing.js exports only solvePattern(facelets), which fixes two settings
// this comparison must set: the length limit (21 moves) and a partial table
// initialisation (tables filled to a lower depth, more nodes searched).
// The chunk is read, those two settings are rewritten — the limit to
// MAX_LENGTH (20 by default), the initialisation to min2phase's full one,
// the setting of its own published benchmark — and the result is imported
// from a temporary file. Each rewrite must match exactly once, or the
// script stops (exit 1): a cubing.js release that changed the chunk gives
// no figure rather than a wrong one. Like cubed's `--twenty`, min2phase
// returns the first solution of at most MAX_LENGTH moves it finds.
//
// Every solution is applied back (with cubejs, which bench/run.sh installs
// beside cubing) and must solve its state and be at most MAX_LENGTH moves
// (face-turn metric); a wrong one is reported and the exit status is 1.
// The table initialisation is timed apart; the first 20 states are solved
// once untimed so the JIT has compiled the search before the timed pass.
// Prints "name: value unit" lines (PREFIX.min2phase.*, PREFIX "twenty").

import { existsSync, readFileSync, writeFileSync, readdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { tmpdir } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const statesPath = args[0];
if (!statesPath) {
	console.error("usage: node min2phase.mjs STATES_FILE [MAX_LENGTH [PREFIX]]");
	process.exit(2);
}
const maxLength = args[1] ? Number(args[1]) : 20;
const prefix = args[2] || "twenty";
if (!Number.isInteger(maxLength) || maxLength < 1 || maxLength > 30) {
	console.error(`min2phase.mjs: MAX_LENGTH must be 1..30, not ${args[1]}`);
	process.exit(2);
}
const states = readFileSync(statesPath, "utf8").split("\n").filter((l) => l.length === 54);
if (states.length === 0) {
	console.error(`min2phase.mjs: no states in ${statesPath}`);
	process.exit(1);
}

// Packages resolve from this script's directory upward (run.sh links the
// cache's node_modules beside it); cubing's exports map hides its chunks,
// so its folder is found the same way by hand.
const require = createRequire(import.meta.url);
let cubingDir = null;
for (let d = dirname(fileURLToPath(import.meta.url)); ; d = dirname(d)) {
	if (existsSync(join(d, "node_modules/cubing/package.json"))) {
		cubingDir = join(d, "node_modules/cubing");
		break;
	}
	if (dirname(d) === d) break;
}
if (!cubingDir) {
	console.error("min2phase.mjs: cubing is not installed beside this script or above it");
	process.exit(1);
}
const cubingVersion = JSON.parse(readFileSync(join(cubingDir, "package.json"), "utf8")).version;
const chunkDir = join(cubingDir, "dist/lib/cubing/chunks");
const chunks = readdirSync(chunkDir).filter((f) => /^search-dynamic-solve-3x3x3-[A-Z0-9]+\.js$/.test(f));
if (chunks.length !== 1) {
	console.error(`min2phase.mjs: expected one min2phase chunk in ${chunkDir}, found ${chunks.length}`);
	process.exit(1);
}
let src = readFileSync(join(chunkDir, chunks[0]), "utf8");
if (!src.includes("cs0x7f/min2phase")) {
	console.error(`min2phase.mjs: ${chunks[0]} is not min2phase`);
	process.exit(1);
}
// rewrite(FROM, TO): FROM must occur exactly `times` times.
function rewrite(from, to, times) {
	const n = src.split(from).length - 1;
	if (n !== times) {
		console.error(`min2phase.mjs: "${from}" occurs ${n} times in cubing ${cubingVersion}'s chunk, expected ${times}`);
		process.exit(1);
	}
	src = src.split(from).join(to);
}
// solLen is one past the longest answer wanted: the search keeps only
// solutions shorter than it (22 in cubing.js: at most 21 moves)
rewrite("this$static.solLen = 22;", `this$static.solLen = ${maxLength + 1};`, 1);
// both callers: initialize() and the solution function
rewrite("init_0(false)", "init_0(true)", 2);

const dir = mkdtempSync(join(tmpdir(), "cubed-min2phase-"));
let m2p;
try {
	const file = join(dir, "min2phase.mjs");
	writeFileSync(file, src);
	m2p = await import(pathToFileURL(file).href);
} finally {
	rmSync(dir, { recursive: true, force: true });
}
const Cube = require("cubejs");

const ns = () => process.hrtime.bigint();
const fig = (name, v, unit) =>
	console.log(`${name}: ${v.toFixed(v < 10 ? 3 : v < 1000 ? 2 : 1)} ${unit}`);

let t0 = ns();
m2p.initialize();
fig(`${prefix}.min2phase.init.s`, Number(ns() - t0) / 1e9, "s");

for (const f of states.slice(0, 20)) m2p.solvePattern(f);

const ms = [], moves = [];
let bad = 0;
for (const f of states) {
	t0 = ns();
	const sol = m2p.solvePattern(f);
	ms.push(Number(ns() - t0) / 1e6);
	const turns = sol.trim().split(/\s+/).filter(Boolean);
	let ok = !sol.startsWith("Error") && turns.length <= maxLength;
	if (ok) {
		const check = Cube.fromString(f);
		check.move(sol.trim());
		ok = check.isSolved();
	}
	if (!ok) {
		console.error(`min2phase.mjs: "${sol}" does not solve ${f} in ${maxLength}`);
		bad++;
	}
	moves.push(turns.length);
}
if (bad) process.exit(1);

const sorted = (v) => [...v].sort((a, b) => a - b);
const at = (v, q) => sorted(v)[Math.min(v.length - 1, Math.floor(v.length * q))];
const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
console.log(`${prefix}.min2phase.version: cubing ${cubingVersion}`);
console.log(`${prefix}.min2phase.states: ${states.length} states`);
fig(`${prefix}.min2phase.ms`, at(ms, 0.5), "ms");
fig(`${prefix}.min2phase.ms.mean`, mean(ms), "ms");
fig(`${prefix}.min2phase.ms.p90`, at(ms, 0.9), "ms");
fig(`${prefix}.min2phase.ms.p99`, at(ms, 0.99), "ms");
fig(`${prefix}.min2phase.ms.max`, Math.max(...ms), "ms");
fig(`${prefix}.min2phase.moves`, at(moves, 0.5), "moves");
fig(`${prefix}.min2phase.moves.mean`, mean(moves), "moves");
console.log(`${prefix}.min2phase.moves.max: ${Math.max(...moves)} moves`);
