// solve.js — the Solve panel: ask the server for a solution of the state
// shown (a method where the size has a choice), list it by stage for the
// staged methods, and step through it forward and backward, or play it,
// as a preview that does not touch the session. "Do it on the cube" sends
// the whole solution as one write, against the version it was found for:
// once the cube changes (anyone's move) the panel says so at once and
// offers to solve again, and the server would refuse the old one (412).
// A solve that fails (the solver out of time on a busy server, the
// solver busy) says why and offers to try again, with more time when time
// was what it lacked.

import { api, ApiError } from './api.js';
import { applyTurns, parseMove } from './cube.js';
import { $, show, el } from './dom.js';

const METHODS = {
  2: [['optimal', 'Optimal (fewest moves)']],
  3: [['twophase', 'Two-phase (≤ 21 moves)'], ['beginner', 'Beginner (layer by layer, 7 stages)']],
  big: [['reduction', 'Reduction (centers, edges, 3×3)']],
};

const STAGE_NAMES = {
  cross: 'Cross', first_layer_corners: 'First-layer corners', second_layer: 'Second layer',
  last_layer_edge_orientation: 'Last layer: orient edges', last_layer_edge_permutation: 'Last layer: place edges',
  last_layer_corner_permutation: 'Last layer: place corners', last_layer_corner_orientation: 'Last layer: twist corners',
  oll_parity: 'OLL parity', centers: 'Centers', edges: 'Edges (pairing)', pll_parity: 'PLL parity', '3x3': 'As a 3×3',
};

const STEP_MS = 350;
const RETRY_MS = 10000; // the server's default --max-solve-ms

export class SolvePanel {
  constructor(play) {
    this.play = play;
    this.sol = null;
    this.k = 0;
    this.timer = 0;
    this.stepMs = STEP_MS; // the preview's pace (the page's turn speed)
    const n = play.n;
    const sel = $('#method');
    sel.replaceChildren();
    const methods = n === 1 ? [] : METHODS[n] || METHODS.big;
    for (const [v, label] of methods) sel.append(el('option', { value: v }, label));
    sel.disabled = methods.length < 2;
    $('#solve').disabled = methods.length === 0;
    if (!methods.length) $('#solve').title = 'A 1×1 is always solved';
    show($('#solution'), false);
    show($('#solve-error-box'), false);
    show($('#solution-stale'), false);
    this.retry = null;
    const on = (id, fn) => play.on($(id), 'click', fn);
    on('#solve', () => this.find());
    on('#solve-again', () => this.find());
    on('#solve-retry', () => this.find(this.retry || {}));
    on('#step-first', () => this.jump(0));
    on('#step-last', () => this.jump(this.sol ? this.sol.turns.length : 0));
    on('#step-fwd', () => this.step(1));
    on('#step-back', () => this.step(-1));
    on('#step-play', () => this.togglePlay());
    on('#solution-apply', () => this.apply());
    on('#solution-close', () => this.closeSolution());
    play.on($('#stages'), 'click', (e) => {
      const b = e.target.closest('button[data-i]');
      if (b) this.jump(Number(b.dataset.i) + 1);
    });
  }

  close() {
    clearTimeout(this.timer);
  }

  async find(extra = {}) {
    const s = this.play.session;
    show($('#solve-error-box'), false);
    this.exitPreview();
    const method = $('#method').value;
    const facelets = s.confirmed.facelets;
    const version = s.confirmed.version;
    $('#solve').disabled = true;
    $('#solve').textContent = 'Solving…';
    try {
      const r = await api.solve(facelets, method, extra);
      if (this.play.closed) return;
      const body = r.body;
      const tokens = body.solution ? body.solution.split(' ') : [];
      const stages = body.stages && body.stages.length
        ? body.stages.map((st) => ({ name: st.name, tokens: st.moves ? st.moves.split(' ') : [] }))
        : [{ name: null, tokens }];
      const turns = tokens.map((t) => parseMove(t, s.n));
      this.sol = { body, tokens, stages, turns, facelets, version };
      this.k = 0;
      this.render();
    } catch (e) {
      let msg = `No solution: ${e.message}.`;
      this.retry = {};
      if (e instanceof ApiError && e.code === 'tables_not_ready') {
        msg = `The solver is still preparing its tables${e.problem.percent !== undefined ? ` (${e.problem.percent} %)` : ''}; try again in ${e.retryAfter || 5} s.`;
      } else if (e instanceof ApiError && e.code === 'no_solution_found' && e.problem.field === 'timeout_ms') {
        // the solver ran out of time (a busy server): more time may do it
        msg = `The solver ran out of time (${e.message}): the server is busy. Try again, with more time (up to ${RETRY_MS / 1000} s).`;
        this.retry = { timeout_ms: RETRY_MS };
      } else if (e instanceof ApiError && (e.status === 429 || e.status === 503)) {
        msg = `The solver is busy right now; try again${e.retryAfter ? ` in ${e.retryAfter} s` : ' in a moment'}.`;
      } else if (e instanceof ApiError && e.status === 0) {
        msg = 'The server cannot be reached; try again when it is back.';
      }
      $('#solve-error').textContent = msg;
      $('#solve-error').dataset.code = e.code || '';
      show($('#solve-error-box'), true);
    } finally {
      $('#solve').disabled = false;
      $('#solve').textContent = 'Find a solution';
    }
  }

  render() {
    const { body, stages, tokens } = this.sol;
    show($('#solution'), true);
    $('#solution-summary').textContent = tokens.length
      ? `${tokens.length} moves (${body.method}, found in ${body.elapsed_ms < 1 ? 'under 1' : Math.round(body.elapsed_ms)} ms)`
      : 'Already solved.';
    const box = $('#stages');
    box.replaceChildren();
    let i = 0;
    for (const st of stages) {
      const moves = el('div', { className: 'stage-moves' });
      for (const t of st.tokens) moves.append(el('button', { type: 'button', dataset: { i: String(i++) } }, t));
      if (!st.tokens.length) moves.append(el('span', { className: 'muted' }, 'nothing to do'));
      box.append(el('div', { className: 'sol-stage', dataset: { stage: st.name || 'solution' } },
        st.name ? el('div', { className: 'stage-name' }, STAGE_NAMES[st.name] || st.name) : null, moves));
    }
    this.mark();
  }

  stale() {
    return !this.sol || this.play.session.confirmed.version !== this.sol.version;
  }

  mark() {
    const L = this.sol.turns.length;
    for (const b of $('#stages').querySelectorAll('button[data-i]')) {
      const i = Number(b.dataset.i);
      b.classList.toggle('done', i < this.k);
      b.classList.toggle('next', i === this.k);
    }
    const stageOf = () => {
      let i = 0;
      for (const st of this.sol.stages) {
        if (this.k < i + st.tokens.length || (this.k === i + st.tokens.length && st.tokens.length)) return st.name;
        i += st.tokens.length;
      }
      return null;
    };
    const name = stageOf();
    $('#step-label').textContent = `move ${this.k} of ${L}` + (name && this.k < L ? ` — ${STAGE_NAMES[name] || name}` : '');
    $('#step-label').dataset.step = String(this.k);
    $('#step-back').disabled = this.k === 0;
    $('#step-first').disabled = this.k === 0;
    $('#step-fwd').disabled = this.k === L;
    $('#step-last').disabled = this.k === L;
    $('#step-play').disabled = this.k === L && !this.timer;
    // the whole solution goes from the state it was found for, wherever
    // the preview stands
    $('#solution-apply').disabled = L === 0 || this.stale() || !this.play.session.canWrite;
    show($('#solution-stale'), this.stale());
  }

  // The session moved on (play.js calls this on every change it shows).
  cubeChanged() {
    if (this.sol) this.mark();
  }

  enterPreview() {
    const p = this.play;
    if (p.mode === 'preview') return true;
    if (this.stale()) {
      this.mark();
      return false;
    }
    if (p.mode === 'history') p.backToLive();
    p.mode = 'preview';
    p.snap(this.sol.facelets);
    p.banner('Solution preview: the cube is not changed until you choose “Do it on the cube”.', [
      el('button', { type: 'button', onclick: () => this.exitPreview() }, 'Back to live'),
    ]);
    p.meta(p.session.meta);
    return true;
  }

  exitPreview() {
    const p = this.play;
    this.stop();
    if (p.mode !== 'preview') return;
    p.mode = 'live';
    show($('#banner'), false);
    p.snap(p.session.shown);
    p.meta(p.session.meta);
    if (this.sol) {
      this.k = 0;
      this.mark();
    }
  }

  stateAt(k) {
    return applyTurns(this.sol.facelets, this.play.n, this.sol.turns.slice(0, k));
  }

  step(d) {
    if (!this.sol || !this.enterPreview()) return;
    const k = this.k + d;
    if (k < 0 || k > this.sol.turns.length) return;
    const t = d > 0 ? this.sol.turns[this.k] : { ...this.sol.turns[k], q: -this.sol.turns[k].q };
    this.k = k;
    this.play.paint([t], this.stateAt(k));
    this.mark();
  }

  jump(k) {
    if (!this.sol || !this.enterPreview()) return;
    this.stop();
    this.k = Math.max(0, Math.min(k, this.sol.turns.length));
    this.play.snap(this.stateAt(this.k));
    this.mark();
  }

  togglePlay() {
    if (this.timer) return this.stop();
    if (!this.sol || !this.enterPreview()) return;
    $('#step-play').textContent = 'Pause';
    const tick = () => {
      if (this.k >= this.sol.turns.length) return this.stop();
      this.step(1);
      this.timer = setTimeout(tick, this.stepMs);
    };
    tick();
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = 0;
    $('#step-play').textContent = 'Play';
  }

  apply() {
    if (!this.sol || this.stale()) return;
    const p = this.play;
    // the preview changed nothing: the whole solution goes, from the state
    // it was found for
    const text = this.sol.tokens.join(' ');
    this.exitPreview();
    p.session.write('moves', text, 'solve', true);
  }

  applied() {
    this.closeSolution();
  }

  refused(e) {
    this.retry = null;
    $('#solve-error').textContent = e instanceof ApiError && e.status === 412
      ? 'Someone moved the cube before the solution arrived: find a new one.'
      : `The solution was not applied: ${e.message}`;
    show($('#solve-error-box'), true);
  }

  closeSolution() {
    this.exitPreview();
    this.sol = null;
    show($('#solution'), false);
  }
}
