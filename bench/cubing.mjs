// cubing.mjs — the reference side of parse_apply3: the same 3×3 algorithms
// that bench/bench.c times through alg_parse + alg_apply, parsed and applied
// by cubing.js (Alg.fromString + KPattern.applyAlg on the 3x3x3 kpuzzle).
//
//   node cubing.mjs [--time-only] ALGS_FILE [EXPECT_FILE]
//
// ALGS_FILE holds one algorithm per line. EXPECT_FILE (written by bench.c
// next to it, ALGS_FILE.expect) holds "moves facelets" per line: cubed's
// expanded move count and final state. Before timing, every algorithm is
// checked here: cubing.js must accept it, count the same number of moves
// (ETM: every expanded move counts 1, as alg_t.length does), and reach the
// same state once its pattern is written as a facelets string. A mismatch is
// reported and the exit status is 1, so run.sh prints no ratio for workloads
// that are not the same on both sides. --time-only skips the checks (run.sh
// runs them once, then alternates timing rounds with bench.c).
//
// Prints "name: value unit" lines; run.sh computes the ratio.

import { readFileSync, existsSync } from "node:fs";
import { Alg } from "cubing/alg";
import { cube3x3x3 } from "cubing/puzzles";
import { experimentalCountMovesETM } from "cubing/notation";

const args = process.argv.slice(2);
const timeOnly = args[0] === "--time-only";
if (timeOnly) args.shift();
const algsPath = args[0];
if (!algsPath) {
	console.error("usage: node cubing.mjs [--time-only] ALGS_FILE [EXPECT_FILE]");
	process.exit(2);
}
const expectPath = args[1] ?? `${algsPath}.expect`;
const lines = readFileSync(algsPath, "utf8").split("\n").filter((l) => l.length > 0);
const kpuzzle = await cube3x3x3.kpuzzle();

// cubing.js's 3x3x3 orbits are in Reid order; each piece's stickers are
// listed in the order of its name, which for every piece below starts with
// the U/D sticker (or F/B for middle-layer edges): that is orientation 0.
// Indices are places in our facelets string (U 0-8, R 9-17, F 18-26,
// D 27-35, L 36-44, B 45-53, each face row by row in the usual net).
const EDGES = [
	[7, 19], [5, 10], [1, 46], [3, 37], // UF UR UB UL
	[28, 25], [32, 16], [34, 52], [30, 43], // DF DR DB DL
	[23, 12], [21, 41], [48, 14], [50, 39], // FR FL BR BL
];
const EDGE_NAMES = ["UF", "UR", "UB", "UL", "DF", "DR", "DB", "DL", "FR", "FL", "BR", "BL"];
const CORNERS = [
	[8, 20, 9], [2, 11, 45], [0, 47, 36], [6, 38, 18], // UFR URB UBL ULF
	[29, 15, 26], [27, 24, 44], [33, 42, 53], [35, 51, 17], // DRF DFL DLB DBR
];
const CORNER_NAMES = ["UFR", "URB", "UBL", "ULF", "DRF", "DFL", "DLB", "DBR"];
const CENTERS = [4, 40, 22, 13, 49, 31]; // U L F R B D
const CENTER_NAMES = ["U", "L", "F", "R", "B", "D"];

// Place i of an orbit holds piece pieces[i] twisted by orientation[i]:
// sticker j of the place shows sticker (j + o) of the piece. (The sign is
// fixed by the self-test below against docs/conventions.md's state after R.)
function toFacelets(pattern) {
	const d = pattern.patternData;
	const out = new Array(54);
	for (let i = 0; i < 12; i++) {
		const p = d.EDGES.pieces[i], o = d.EDGES.orientation[i];
		for (let j = 0; j < 2; j++) out[EDGES[i][j]] = EDGE_NAMES[p][(j + o) % 2];
	}
	for (let i = 0; i < 8; i++) {
		const p = d.CORNERS.pieces[i], o = d.CORNERS.orientation[i];
		for (let j = 0; j < 3; j++) out[CORNERS[i][j]] = CORNER_NAMES[p][(j + o) % 3];
	}
	for (let i = 0; i < 6; i++) out[CENTERS[i]] = CENTER_NAMES[d.CENTERS.pieces[i]];
	return out.join("");
}

function stateOf(s) {
	return toFacelets(kpuzzle.defaultPattern().applyAlg(Alg.fromString(s)));
}

// The checks: print what they found, return the number of problems, and set
// totalMoves (needed for the rate either way).
let totalMoves = 0;
let rejected = 0;
function check() {
	// Self-test of the mapping against strings fixed by docs/conventions.md, not by cubed.
	const selfTest = [
		["", "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"],
		["R", "UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB"],
	];
	let mappingOk = true;
	for (const [alg, want] of selfTest) {
		const got = stateOf(alg);
		if (got !== want) {
			console.error(`cubing.mjs: facelets mapping self-test failed for "${alg}": ${got} != ${want}`);
			mappingOk = false;
		}
	}

	// Cross-check against cubed: accepted, same move count, same state.
	const expect = existsSync(expectPath)
		? readFileSync(expectPath, "utf8").split("\n").filter((l) => l.length > 0).map((l) => l.split(" "))
		: null;
	let bad = 0, statesCompared = 0, statesMatched = 0;
	for (let i = 0; i < lines.length; i++) {
		let alg, reached;
		try {
			// Both steps: an unknown family such as "foo" parses as a move
			// and fails only when applied to the 3×3.
			alg = Alg.fromString(lines[i]);
			reached = kpuzzle.defaultPattern().applyAlg(alg);
		} catch (e) {
			console.error(`cubing.mjs: alg ${i + 1} rejected by cubing.js: ${e.message}`);
			bad++;
			rejected++;
			continue;
		}
		const moves = experimentalCountMovesETM(alg);
		totalMoves += moves;
		// countMovesETM walks the tree; check it against a real expansion.
		let leaves = 0;
		for (const _ of alg.experimentalLeafMoves()) leaves++;
		if (leaves !== moves) {
			console.error(`cubing.mjs: alg ${i + 1}: ETM count ${moves} but ${leaves} leaf moves`);
			bad++;
		}
		if (!expect) continue;
		const [wantMoves, wantState] = expect[i] ?? [];
		if (Number(wantMoves) !== moves) {
			console.error(`cubing.mjs: alg ${i + 1}: cubing.js counts ${moves} moves, cubed ${wantMoves}`);
			bad++;
		}
		if (mappingOk) {
			statesCompared++;
			const got = toFacelets(reached);
			if (got === wantState) statesMatched++;
			else {
				console.error(`cubing.mjs: alg ${i + 1}: cubing.js reaches ${got}, cubed ${wantState}`);
				bad++;
			}
		}
	}
	console.log(`parse_apply3.cubingjs.algs: ${lines.length} algs`);
	console.log(`parse_apply3.cubingjs.moves: ${totalMoves} moves`);
	if (expect) {
		if (expect.length !== lines.length) {
			console.error(`cubing.mjs: ${lines.length} algs but ${expect.length} expected states`);
			bad++;
		}
		console.log(`parse_apply3.crosscheck.states: ${statesMatched}/${statesCompared} equal`);
	}
	return bad;
}

let bad = 0;
if (timeOnly) {
	for (const line of lines) totalMoves += experimentalCountMovesETM(Alg.fromString(line));
} else {
	bad = check();
}

if (rejected) {
	// The workload cannot be timed as a whole.
	console.log("parse_apply3.cubingjs.mps: unavailable");
	process.exit(1);
}

// The timed workload: exactly what a client of cubing.js does per alg.
let sink = 0;
function pass() {
	for (let i = 0; i < lines.length; i++) {
		const p = kpuzzle.defaultPattern().applyAlg(Alg.fromString(lines[i]));
		sink += p.patternData.CORNERS.pieces[0];
	}
}
const now = () => process.hrtime.bigint();
// Warm up (JIT, kpuzzle move caches) for at least 1 s.
const warmEnd = now() + 1_000_000_000n;
let passes = 0;
while (now() < warmEnd || passes < 2) {
	pass();
	passes++;
}
// Then 5 timed runs of >= 0.3 s each; report the median, as bench.c does.
const rates = [];
for (let r = 0; r < 5; r++) {
	let n = 0;
	const t0 = now();
	let t1;
	do {
		pass();
		n++;
		t1 = now();
	} while (t1 - t0 < 300_000_000n);
	rates.push((n * totalMoves) / (Number(t1 - t0) / 1e3)); // moves per µs = Mmoves/s
}
rates.sort((a, b) => a - b);
console.log(`parse_apply3.cubingjs.mps: ${rates[2].toFixed(3)} Mmoves/s`);
if (sink === -1) console.log("unreachable");
process.exit(bad ? 1 : 0);
