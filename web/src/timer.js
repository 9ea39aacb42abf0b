// timer.js — timed solves on the play page, as speedcubers time them
// (WCA regulations, article A): "Timed solve" scrambles a solved cube
// (or takes the cube as it is), 15 s of inspection count down, the timer
// starts on the first turn (past 15 s of inspection the time gets +2 s,
// past 17 s it is a DNF), and it stops on the move that solves the cube:
// "solved!", with the time and the moves in HTM, QTM and STM. Moves by
// every player of the session count: a shared cube is solved together.
// metrics() counts as the server's alg.c does, so the numbers equal
// /v1/alg's. The record kept is the server's (POST/GET …/timed: the
// same rules, on the server's clock, from the session's history); this
// clock is what the player watches meanwhile.

import { parseFlat } from './cube.js';

export const INSPECTION_MS = 15000;
const DNF_MS = 17000;

// HTM, QTM, STM of turns on an n cube: a block touching a face 1 (QTM: 2
// for a half turn), an inner block 2 (4), any block 1 in STM, a whole-cube
// rotation nothing.
export function metrics(turns, n) {
  const m = { htm: 0, qtm: 0, stm: 0 };
  for (const t of turns) {
    const q = ((t.q % 4) + 4) % 4;
    if (q === 0 || (t.lo === 0 && t.hi === n - 1)) continue;
    const quarters = q === 2 ? 2 : 1;
    const outer = t.lo === 0 || t.hi === n - 1;
    m.stm += 1;
    m.htm += outer ? 1 : 2;
    m.qtm += (outer ? 1 : 2) * quarters;
  }
  return m;
}

// Every face one colour (in whatever orientation the cube is held).
export function isSolved(facelets, n) {
  const nn = n * n;
  for (let f = 0; f < 6; f++) {
    const c = facelets[f * nn];
    for (let i = 1; i < nn; i++) if (facelets[f * nn + i] !== c) return false;
  }
  return true;
}

// "1:02.34", "9.87"
export function formatTime(ms) {
  if (ms === null || ms === undefined) return '–';
  const cs = Math.floor(ms / 10);
  const s = Math.floor(cs / 100);
  const m = Math.floor(s / 60);
  const frac = String(cs % 100).padStart(2, '0');
  return m ? `${m}:${String(s % 60).padStart(2, '0')}.${frac}` : `${s}.${frac}`;
}

export class SolveTimer {
  // n: the cube's size; ui: {render(state), solved(result), now()}
  constructor(n, ui) {
    this.n = n;
    this.ui = ui;
    this.state = 'idle'; // idle | inspecting | running | done
    this.tick = 0;
    this.reset();
  }

  reset() {
    clearInterval(this.tick);
    this.tick = 0;
    this.state = 'idle';
    this.inspectAt = 0;
    this.startAt = 0;
    this.endAt = 0;
    this.penalty = 0;
    this.dnf = false;
    this.moves = { htm: 0, qtm: 0, stm: 0 };
    this.result = null;
  }

  now() {
    return this.ui.now ? this.ui.now() : performance.now();
  }

  // Inspection begins (the cube is scrambled and shown).
  inspect() {
    this.reset();
    this.state = 'inspecting';
    this.inspectAt = this.now();
    this.running();
  }

  running() {
    clearInterval(this.tick);
    this.tick = setInterval(() => this.ui.render(this.view()), 47);
    this.ui.render(this.view());
  }

  // A turn was made (shown to the player): the first one starts the clock.
  turned() {
    if (this.state !== 'inspecting') return;
    const t = this.now();
    const inspected = t - this.inspectAt;
    this.penalty = inspected > INSPECTION_MS && inspected <= DNF_MS ? 2000 : 0;
    this.dnf = inspected > DNF_MS;
    this.state = 'running';
    this.startAt = t;
    this.ui.render(this.view());
  }

  // A confirmed change of the session: its moves count, and the state it
  // leaves decides whether the solve is over.
  confirmed(moves, facelets) {
    if (this.state !== 'running' && this.state !== 'inspecting') return;
    if (moves) {
      let turns = null;
      try {
        turns = parseFlat(moves, this.n);
      } catch {
        turns = null;
      }
      if (turns) {
        if (this.state === 'inspecting' && turns.length) this.turned();
        const m = metrics(turns, this.n);
        for (const k of Object.keys(m)) this.moves[k] += m[k];
      }
    }
    if (this.state === 'running' && isSolved(facelets, this.n)) this.finish();
  }

  finish() {
    this.endAt = this.now();
    this.state = 'done';
    clearInterval(this.tick);
    this.tick = 0;
    const raw = this.endAt - this.startAt;
    this.result = {
      ms: this.dnf ? null : raw + this.penalty, raw, penalty: this.penalty, dnf: this.dnf, moves: { ...this.moves },
    };
    this.ui.render(this.view());
    this.ui.solved(this.result);
  }

  // What the display shows now.
  view() {
    const t = this.now();
    if (this.state === 'inspecting') {
      const left = INSPECTION_MS - (t - this.inspectAt);
      return {
        state: this.state,
        text: left > 0 ? String(Math.ceil(left / 1000)) : left > DNF_MS - INSPECTION_MS ? '+2' : 'DNF',
        warn: left <= 7000, moves: this.moves,
      };
    }
    if (this.state === 'running') return { state: this.state, text: formatTime(t - this.startAt), moves: this.moves };
    if (this.state === 'done') {
      const r = this.result;
      return { state: this.state, text: r.dnf ? 'DNF' : formatTime(r.ms) + (r.penalty ? ' (+2)' : ''), moves: this.moves };
    }
    return { state: 'idle', text: '0.00', moves: this.moves };
  }

  close() {
    clearInterval(this.tick);
  }
}

