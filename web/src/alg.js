// alg.js — an algorithm as a link: `#/alg?alg=<moves>&setup=<moves>` (or
// `&state=<facelets>`) `&n=<size>&speed=<ms>` plays the algorithm on a
// cube that starts from the setup (or the state), with no session: the
// server expands the notation (POST /v1/alg) and gives the start state
// and its render data (POST /v1/apply); the page steps through the
// expansion forward and back, plays it at the chosen speed, and makes
// the link to share. Everything is in the fragment, so the link works on
// any cubed server and no server ever sees it.

import { api, ApiError } from './api.js';
import { applyTurns, parseFlat, invertFlat } from './cube.js';
import { $, show, el, copy } from './dom.js';
import { NetView } from './net.js';
import { View3D, webglAvailable } from './view3d.js';

const MAX_N = 64;       // the render data's limit (3D); the net beyond
const MAX_TURNS = 5000; // more is not something to watch move by move

export function parseAlgRoute(hash) {
  const m = /^#\/alg(?:\?(.*))?$/.exec(hash);
  if (!m) return null;
  const q = new URLSearchParams(m[1] || '');
  const n = Number(q.get('n') || 3);
  return {
    alg: q.get('alg') || '', setup: q.get('setup') || '', state: q.get('state') || '',
    n: Number.isInteger(n) ? n : 3, speed: q.get('speed') || '',
  };
}

export function algLink(p) {
  const q = new URLSearchParams();
  q.set('alg', p.alg);
  if (p.state) q.set('state', p.state);
  else if (p.setup) q.set('setup', p.setup);
  if (p.n !== 3) q.set('n', String(p.n));
  if (p.speed) q.set('speed', p.speed);
  return `#/alg?${q.toString().replace(/\+/g, '%20')}`;
}

export class AlgPage {
  constructor(route) {
    this.route = route;
    this.abort = new AbortController();
    this.closed = false;
    this.view3d = null;
    this.net = null;
    this.turns = [];
    this.states = [];
    this.k = 0;
    this.timer = 0;
  }

  on(target, type, fn) {
    target.addEventListener(type, fn, { signal: this.abort.signal });
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.stop();
    this.abort.abort();
    if (this.view3d) this.view3d.dispose();
    if (this.net) this.net.dispose();
    show($('#algpage'), false);
  }

  async open() {
    const r = this.route;
    show($('#algpage'), true);
    document.title = 'Algorithm — cubed';
    $('#alg-text').value = r.alg;
    $('#alg-setup').value = r.state ? '' : r.setup;
    $('#alg-size').value = String(r.n);
    if (r.speed && $('#alg-speed').querySelector(`option[value="${r.speed}"]`)) $('#alg-speed').value = r.speed;
    this.on($('#alg-form'), 'submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    this.on($('#alg-first'), 'click', () => this.jump(0));
    // a step by hand stops the playing
    this.on($('#alg-back'), 'click', () => { this.stop(); this.step(-1); });
    this.on($('#alg-play'), 'click', () => this.togglePlay());
    this.on($('#alg-fwd'), 'click', () => { this.stop(); this.step(1); });
    this.on($('#alg-last'), 'click', () => this.jump(this.turns.length));
    this.on($('#alg-speed'), 'change', () => {
      this.route.speed = $('#alg-speed').value;
      this.applySpeed();
      history.replaceState(null, '', algLink(this.route));
    });
    this.on($('#alg-copy'), 'click', async () => {
      const link = `${location.origin}/${algLink(this.route)}`;
      $('#alg-link').value = link;
      show($('#alg-link'), true);
      $('#alg-note').textContent = (await copy(link)) ? 'Copied: whoever opens it sees this algorithm play.' : 'Copy this link:';
    });
    this.on($('#alg-moves'), 'click', (e) => {
      const b = e.target.closest('button[data-i]');
      if (b) this.jump(Number(b.dataset.i) + 1);
    });
    await this.load();
  }

  submit() {
    const n = Number($('#alg-size').value);
    this.route = {
      alg: $('#alg-text').value.trim(), setup: $('#alg-setup').value.trim(), state: '',
      n: Number.isInteger(n) ? n : 3, speed: $('#alg-speed').value,
    };
    history.replaceState(null, '', algLink(this.route));
    this.load();
  }

  error(where, e) {
    const p = e instanceof ApiError ? e.problem : {};
    const at = Number.isInteger(p.offset) ? ` (at character ${p.offset + 1})` : '';
    $('#alg-error').textContent = `${where}: ${e.message}${at}`;
    show($('#alg-error'), true);
    $('#algpage').dataset.error = e.code || 'error';
  }

  async load() {
    const { alg, setup, state, n } = this.route;
    this.stop();
    show($('#alg-error'), false);
    delete $('#algpage').dataset.error;
    delete $('#alg-view').dataset.ready;
    if (n < 1 || n > 128) return this.error('Size', new Error(`pick a size from 1 to 128, not ${n}`));
    let start;
    let expanded;
    try {
      const want3d = webglAvailable() && n <= MAX_N;
      const body = state ? { facelets: state, moves: '' } : { size: n, moves: setup };
      if (want3d) body.include = ['render'];
      try {
        start = (await api.applyRaw(body)).body;
      } catch (e) {
        throw Object.assign(e, { where: state ? 'Start state' : 'Setup' });
      }
      try {
        expanded = alg ? (await api.alg(start.size, alg)).body : { expanded: '', length: 0, htm: 0, qtm: 0, stm: 0, canonical: '' };
      } catch (e) {
        throw Object.assign(e, { where: 'Algorithm' });
      }
    } catch (e) {
      if (!this.closed) this.error(e.where || 'Error', e);
      return;
    }
    if (this.closed) return;
    if (expanded.length > MAX_TURNS) {
      this.error('Algorithm', new Error(`${expanded.length} moves is more than ${MAX_TURNS} to play move by move`));
      return;
    }
    this.n = start.size;
    this.turns = parseFlat(expanded.expanded, this.n) || [];
    this.tokens = expanded.expanded ? expanded.expanded.split(/\s+/) : [];
    this.states = [start.facelets];
    for (const t of this.turns) this.states.push(applyTurns(this.states[this.states.length - 1], this.n, [t]));
    this.k = 0;
    $('#alg-summary').textContent = alg
      ? `${expanded.length} moves · ${expanded.htm} HTM · ${expanded.qtm} QTM · ${expanded.stm} STM${
        expanded.canonical && expanded.canonical !== expanded.expanded ? ` · ${expanded.canonical}` : ''}`
      : 'No algorithm: type one below.';
    $('#alg-title').textContent = alg ? `${alg.length > 60 ? `${alg.slice(0, 60)}…` : alg}` : 'Algorithm';
    $('#alg-setup-text').textContent = state ? 'a given state' : setup || 'solved';
    $('#alg-inverse').textContent = this.tokens.length ? invertFlat(expanded.expanded) : '';
    this.build(start);
    this.list();
    this.mark();
  }

  build(start) {
    const vp = $('#alg-view');
    if (this.view3d) { this.view3d.dispose(); this.view3d = null; }
    if (this.net) { this.net.dispose(); this.net = null; }
    const canvas = $('#alg-net');
    if (start.render) {
      try {
        this.view3d = new View3D(vp, { onMove: () => {}, canTurn: () => false, rendered: () => { vp.dataset.ready = '1'; } });
        this.view3d.build(start.render, start.facelets);
      } catch {
        this.view3d = null;
      }
    }
    show(canvas, !this.view3d);
    this.net = new NetView(canvas, null, { fill: true });
    this.net.set(this.n, start.facelets);
    if (!this.view3d) vp.dataset.ready = '1';
    this.applySpeed();
    this.paint();
  }

  applySpeed() {
    const ms = Number($('#alg-speed').value);
    if (this.view3d) this.view3d.quarterMs = ms;
    this.stepMs = Math.max(60, 2 * ms + 40);
  }

  list() {
    const box = $('#alg-moves');
    box.replaceChildren();
    this.tokens.slice(0, 400).forEach((t, i) => box.append(el('button', { type: 'button', dataset: { i: String(i) } }, t)));
    if (this.tokens.length > 400) box.append(el('span', { className: 'muted' }, `… ${this.tokens.length - 400} more`));
  }

  paint(turns = null) {
    const f = this.states[this.k];
    if (this.view3d) {
      if (turns) this.view3d.animate(turns, f);
      else this.view3d.snap(f);
    }
    this.net.set(this.n, f);
    $('#alg-view').dataset.facelets = f;
  }

  mark() {
    const L = this.turns.length;
    for (const b of $('#alg-moves').querySelectorAll('button[data-i]')) {
      const i = Number(b.dataset.i);
      b.classList.toggle('done', i < this.k);
      b.classList.toggle('next', i === this.k);
    }
    const label = $('#alg-step');
    label.textContent = `move ${this.k} of ${L}`;
    label.dataset.step = String(this.k);
    $('#alg-first').disabled = $('#alg-back').disabled = this.k === 0;
    $('#alg-fwd').disabled = $('#alg-last').disabled = this.k === L;
    $('#alg-play').disabled = L === 0;
  }

  step(d) {
    const k = this.k + d;
    if (k < 0 || k > this.turns.length) return;
    const t = d > 0 ? this.turns[this.k] : { ...this.turns[k], q: -this.turns[k].q };
    this.k = k;
    this.paint([t]);
    this.mark();
  }

  jump(k) {
    this.stop();
    this.k = Math.max(0, Math.min(k, this.turns.length));
    this.paint();
    this.mark();
  }

  togglePlay() {
    if (this.timer) return this.stop();
    if (this.k >= this.turns.length) this.jump(0);
    $('#alg-play').textContent = 'Pause';
    const tick = () => {
      this.timer = 0;
      if (this.closed) return;
      this.step(1);
      if (this.k >= this.turns.length) return this.stop();
      this.timer = setTimeout(tick, this.stepMs);
    };
    this.timer = setTimeout(tick, 0);
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = 0;
    if (!this.closed) $('#alg-play').textContent = 'Play';
  }
}
