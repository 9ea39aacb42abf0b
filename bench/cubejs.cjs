// cubejs.cjs — the reference side of solve3: the random 3×3 states that
// bench/bench.c solved (STATES_FILE, one facelets string a line, written
// as ALGS_FILE.cubes3) solved by cubejs, a JavaScript port of Kociemba's
// two-phase algorithm, with its defaults: Cube.initSolver() once, then
// Cube.fromString(f).solve() (at most 22 moves) for each state.
//
//   node cubejs.cjs STATES_FILE
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
fig("solve3.cubejs.init.s", Number(ns() - t0) / 1e9, "s");

const ms = [], moves = [];
let bad = 0;
for (const f of states) {
	t0 = ns();
	const sol = Cube.fromString(f).solve();
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
fig("solve3.cubejs.ms", median(ms), "ms");
fig("solve3.cubejs.ms.mean", mean(ms), "ms");
console.log(`solve3.cubejs.moves: ${median(moves)} moves`);
fig("solve3.cubejs.moves.mean", mean(moves), "moves");
console.log(`solve3.cubejs.moves.max: ${Math.max(...moves)} moves`);
