// cubejs.cjs — the reference side of solve3: the random 3×3 states that
// bench/bench.c solved (STATES_FILE, one facelets string a line, written
// as ALGS_FILE.cubes3) solved by cubejs, a JavaScript port of Kociemba's
// two-phase algorithm, with its defaults: Cube.initSolver() once, then
// Cube.fromString(f).solve() (at most 22 moves) for each state.
//
//   node cubejs.cjs STATES_FILE [MAX_DEPTH [PREFIX]]
//
// With MAX_DEPTH (e.g. 20, for bench --twenty's states) solve(MAX_DEPTH)
// is timed instead and the figures are named PREFIX.cubejs.* (default
// "twenty"), with p99 and max times too.
//
// Every solution is applied back and must solve its state; a wrong one is
// reported and the exit status is 1, so run.sh prints no ratio. Moves are
// counted in the face-turn metric (R2 is one move), as cubed counts them.
// Prints "name: value unit" lines; run.sh computes the ratio.
"use strict";

const { readFileSync } = require("node:fs");
const Cube = require("cubejs");

const path = process.argv[2];
if (!path) {
	console.error("usage: node cubejs.cjs STATES_FILE");
	process.exit(2);
}
const maxDepth = process.argv[3] ? Number(process.argv[3]) : 22;
const prefix = process.argv[3] ? (process.argv[4] || "twenty") : "solve3";
const states = readFileSync(path, "utf8").split("\n").filter((l) => l.length === 54);
if (states.length === 0) {
	console.error(`cubejs.cjs: no states in ${path}`);
	process.exit(1);
}

const ns = () => process.hrtime.bigint();
const fig = (name, v, unit) =>
	console.log(`${name}: ${v.toFixed(v < 10 ? 3 : v < 1000 ? 2 : 1)} ${unit}`);

let t0 = ns();
Cube.initSolver();
fig(`${prefix}.cubejs.init.s`, Number(ns() - t0) / 1e9, "s");

const ms = [], moves = [];
let bad = 0;
for (const f of states) {
	t0 = ns();
	const sol = Cube.fromString(f).solve(maxDepth);
	ms.push(Number(ns() - t0) / 1e6);
	const check = Cube.fromString(f);
	check.move(sol);
	if (!check.isSolved()) {
		console.error(`cubejs.cjs: "${sol}" does not solve ${f}`);
		bad++;
	}
	moves.push(sol.trim().split(/\s+/).filter(Boolean).length);
}
if (bad) process.exit(1);

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
const quantile = (v, q) =>
	[...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(v.length * q))];
fig(`${prefix}.cubejs.ms`, median(ms), "ms");
fig(`${prefix}.cubejs.ms.mean`, mean(ms), "ms");
if (process.argv[3]) {
	fig(`${prefix}.cubejs.ms.p99`, quantile(ms, 0.99), "ms");
	fig(`${prefix}.cubejs.ms.max`, Math.max(...ms), "ms");
}
console.log(`${prefix}.cubejs.moves: ${median(moves)} moves`);
fig(`${prefix}.cubejs.moves.mean`, mean(moves), "moves");
console.log(`${prefix}.cubejs.moves.max: ${Math.max(...moves)} moves`);
