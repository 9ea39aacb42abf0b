// play.js — the page of one session: the cube (3D, or the flat net), the
// notation box, undo/redo/reset, and the panels beside it (history, solve,
// patterns, share, keys). The state machine of writes and events is in
// session.js; this file shows it and turns clicks and keys into calls.
//
// What the page shows is one of three things (data-mode on #viewport):
// `live` — the session now, moves animate as they happen; `history` — a
// past version from the timeline; `preview` — a solution being stepped
// through. Only `live` takes moves.

import { api, ApiError } from './api.js';
import { invertFlat, parseFlat } from './cube.js';
import { forgetCube, forgetToken, getAccess, mergeAccess } from './access.js';
import { PatternSet } from './patterns.js';
import { algLink } from './alg.js';
import { SolveTimer, formatTime, isSolved } from './timer.js';
import { $, show, el, toast, copy } from './dom.js';
import { Keys, KEYMAP } from './keys.js';
import { NetView } from './net.js';
import { Session } from './session.js';
import { View3D, webglAvailable } from './view3d.js';
import { SolvePanel } from './solve.js';

const PLAY_MAX = 33;   // keys and drags up to here
const RENDER_MAX = 64; // the render route's limit: 3D up to here
const HISTORY_PAGE = 200;

let active = null; // the open Play, for the one keyboard listener
let keys = null;

const ROLE_TEXT = { owner: 'owner', play: 'co-player', watch: 'watch-only' };
const CONN_TEXT = {
  connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…',
  offline: 'offline', busy: 'server busy',
};

export async function openPlay(route, links) {
  const p = new Play(route, links);
  active = p;
  await p.load();
  return p;
}

class Play {
  constructor(route, links) {
    this.route = route;
    this.links = links;
    this.abort = new AbortController();
    this.mode = 'live';
    this.session = null;
    this.view3d = null;
    this.main = '3d';
    this.painted = '';
    this.firstFrame = false;
    this.historyVersion = null;
    this.patterns = null;
    this.patternTimer = 0;
    this.closed = false;
    this.tokenRefused = false;
    this.evs = new Map(); // version → history event, for the undo label
    const role = route.role || (route.token ? 'play' : 'watch');
    this.access = {
      token: route.token,
      role: ['owner', 'play', 'watch'].includes(role) ? role : 'watch',
      streamToken: role === 'watch' ? route.token : route.readToken,
    };
    if (!keys) {
      keys = new Keys({
        enabled: () => !!active && !!active.session && active.session.canWrite,
        move: (t) => active && active.userMove(t),
        undo: () => active && active.simple('undo'),
        redo: () => active && active.simple('redo'),
        prefix: (p) => active && active.prefix(p),
      });
    }
    keys.reset();
  }

  on(target, type, fn) {
    target.addEventListener(type, fn, { signal: this.abort.signal });
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    if (this.session) this.session.close();
    if (this.view3d) this.view3d.dispose();
    if (this.net) this.net.dispose();
    if (this.mini) this.mini.dispose();
    if (this.solve) this.solve.close();
    if (this.timer) this.timer.close();
    clearTimeout(this.timesTimer);
    clearTimeout(this.flashTimer);
    clearTimeout(this.patternTimer);
    if (active === this) active = null;
  }

  // ---- loading --------------------------------------------------------------

  async load() {
    show($('#play'), true);
    this.resetDom();
    $('#title').textContent = 'Loading…';
    let info;
    try {
      // the token checked while the cube loads: a mistyped or revoked
      // one must never show a role it does not give
      const check = this.checkToken();
      info = await this.fetchWithRender();
      await check;
    } catch (e) {
      if (!this.closed) this.fail(e);
      return;
    }
    if (this.closed) return;
    const n = info.size;
    this.n = n;
    document.title = `${info.title || `${n}×${n} cube`} — cubed`;
    $('#title').textContent = info.title || `${n}×${n} cube`;
    if (this.access.role === 'owner' && info.visibility === 'private' && !this.access.streamToken) {
      // an owner's link without a read token (a fork, an old link): mint
      // one, since the stream's URL must never carry the owner's token
      try {
        const r = await api.mintToken(info.id, 'read', this.access.token);
        this.access.streamToken = r.body.token;
        this.route.readToken = r.body.token;
      } catch {
        /* the stream will say it cannot connect */
      }
    }
    this.links.remember({ id: info.id, size: n, title: info.title, role: this.access.role });
    mergeAccess(info.id, { size: n });
    show($('#title'), true);
    const scramble = info.scramble || (getAccess(info.id) || {}).scramble || '';
    $('#scramble-text').textContent = scramble;
    show($('#scramble-line'), !!scramble);
    this.buildViews(info);
    this.session = new Session(info, this.access, {
      live: (turns, facelets, hooks) => this.live(turns, facelets, hooks),
    }, this.sessionUi());
    this.settled();
    this.initControls();
    this.meta(info);
    this.loadHistory();
    this.solve = new SolvePanel(this);
    this.initShare(info);
    this.initKeymap();
    this.initMovePad();
    this.initTimer();
    this.initPatterns();
    this.initRace();
  }

  // Ask the server whether this page's token works (a stream ticket is
  // minted for any live token of the session, refused for anything else).
  async checkToken() {
    const { id, token } = this.route;
    if (!token) return;
    try {
      await api.ticket(id, token);
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 'wrong_token') return; // busy, offline: the writes will say
      this.tokenRefused = true;
      forgetToken(id);
      this.route.token = '';
      this.access = { token: '', role: 'watch', streamToken: '' };
    }
  }

  async fetchWithRender() {
    const { id, token } = this.route;
    // the size this browser saw last time: no render data past its limit
    const known = (getAccess(id) || {}).size || 0;
    if (webglAvailable() && known <= RENDER_MAX) {
      try {
        const r = await api.getSession(id, token, 'include=render');
        return r.body;
      } catch (e) {
        if (!(e instanceof ApiError) || e.code !== 'too_large_for_representation') throw e;
      }
    }
    return (await api.getSession(id, token)).body;
  }

  fail(e) {
    $('#title').textContent = '';
    const vp = $('#viewport');
    const msg = e instanceof ApiError && e.status === 404
      ? 'There is no such cube: it was deleted, the link is mistyped, or the cube is private and this link carries no token for it. Ask its owner for a link.'
      : `The cube could not be loaded: ${e.message}`;
    const box = el('div', { className: 'view-note', id: 'load-error' }, msg, ' ', el('a', { href: '#/' }, 'Back to the lobby'));
    box.setAttribute('role', 'alert');
    vp.append(box);
    vp.dataset.error = e instanceof ApiError ? e.code : 'load';
    for (const b of document.querySelectorAll('#play button, #play input, #play select')) b.disabled = true;
  }

  resetDom() {
    const vp = $('#viewport');
    for (const c of vp.querySelectorAll('canvas.cube3d, #load-error')) c.remove();
    delete vp.dataset.error;
    delete vp.dataset.ready;
    delete vp.dataset.version;
    delete vp.dataset.facelets;
    delete vp.dataset.role;
    vp.dataset.mode = 'live';
    for (const id of ['#banner', '#to-live', '#role', '#presence', '#scramble-line', '#prefix']) show($(id), false);
    $('#queued').textContent = '';
    $('#undo').textContent = 'Undo';
    $('#undo').title = 'Ctrl+Z';
    show($('#bignet'), false);
    show($('#view-note'), false);
    show($('#notation-error'), false);
    show($('#write-error'), false);
    show($('#history-error'), false);
    $('#events').replaceChildren();
    $('#moves').value = '';
    for (const b of document.querySelectorAll('#play button, #play input, #play select')) b.disabled = false;
  }

  buildViews(info) {
    const n = info.size;
    const vp = $('#viewport');
    const canTurn = () => this.canPlay() && n <= PLAY_MAX;
    this.net = new NetView($('#bignet'), (t) => canTurn() && this.userMove(t), { fill: true });
    this.mini = new NetView($('#mininet'), null);
    let note = '';
    if (info.render && webglAvailable()) {
      try {
        this.view3d = new View3D(vp, {
          onMove: (t) => this.userMove(t),
          canTurn,
          rendered: () => this.rendered(),
        });
        this.view3d.build(info.render, info.facelets);
      } catch {
        this.view3d = null;
      }
    }
    if (!this.view3d) {
      note = n > RENDER_MAX
        ? `A ${n}×${n} is shown as a flat net (the 3D view goes up to ${RENDER_MAX}×${RENDER_MAX}).`
        : 'WebGL is not available in this browser, so the cube is shown as a flat net.';
    } else if (n > PLAY_MAX) {
      note = `Keys and drags turn cubes up to ${PLAY_MAX}×${PLAY_MAX}; type moves below to turn this one.`;
    }
    $('#view-note').textContent = note;
    show($('#view-note'), !!note);
    vp.dataset.webgl = this.view3d ? '1' : '0';
    $('#show-3d').disabled = !this.view3d;
    this.setMain(this.view3d ? '3d' : 'net');
    this.paintNets(info.facelets);
    this.painted = info.facelets;
    if (!this.view3d) this.rendered();
    this.settled();
  }

  setMain(which) {
    this.main = which;
    $('#show-3d').setAttribute('aria-pressed', String(which === '3d'));
    $('#show-net').setAttribute('aria-pressed', String(which === 'net'));
    if (this.view3d) show(this.view3d.canvas, which === '3d');
    show($('#bignet'), which === 'net');
    $('#viewport').dataset.main = which;
    if (which === 'net') this.net.draw();
    if (which === '3d' && this.view3d) {
      this.view3d.resize();
      this.view3d.snap(this.painted);
    }
  }

  rendered() {
    if (this.firstFrame) return;
    this.firstFrame = true;
    performance.mark('cubed:first-render');
    $('#viewport').dataset.ready = '1';
  }

  // ---- what is shown ----------------------------------------------------------

  canPlay() {
    return !!this.session && this.session.canWrite && this.mode === 'live';
  }

  paintNets(facelets) {
    this.net.set(this.n, facelets);
    this.mini.set(this.n, facelets);
  }

  // Show a change: animated in 3D, then the nets, then the attributes
  // that say what is on screen.
  paint(turns, facelets, hooks = {}) {
    if (this.view3d && this.main === '3d') {
      this.view3d.animate(turns, facelets, {
        onStart: () => hooks.onStart && hooks.onStart(),
        onEnd: () => {
          this.painted = facelets;
          this.paintNets(facelets);
          if (hooks.onEnd) hooks.onEnd();
          this.settled();
        },
      });
      return;
    }
    if (hooks.onStart) hooks.onStart();
    this.painted = facelets;
    this.paintNets(facelets);
    if (this.view3d) this.view3d.snap(facelets);
    if (hooks.onEnd) hooks.onEnd();
    this.settled();
  }

  snap(facelets) {
    this.painted = facelets;
    if (this.view3d) this.view3d.snap(facelets);
    this.paintNets(facelets);
    this.settled();
  }

  live(turns, facelets, hooks) {
    if (this.mode !== 'live') {
      if (hooks.onStart) hooks.onStart();
      if (hooks.onEnd) hooks.onEnd();
      return;
    }
    this.paint(turns, facelets, hooks);
  }

  // The attributes tests and tools read: what the viewport shows, and in
  // live mode the version once the display has caught up with it.
  settled() {
    const vp = $('#viewport');
    vp.dataset.facelets = this.painted;
    vp.dataset.mode = this.mode;
    const s = this.session;
    if (this.mode === 'history') {
      vp.dataset.version = String(this.historyVersion);
    } else if (s && this.mode === 'live' && !(this.view3d && this.view3d.busy) &&
      s.outbox.length === 0 && this.painted === s.confirmed.facelets) {
      vp.dataset.version = String(s.confirmed.version);
    }
    vp.dataset.pending = String(s ? s.outbox.length : 0);
    if (this.mode === 'live') this.patternsSoon();
  }

  // ---- input ---------------------------------------------------------------

  userMove(text) {
    if (this.closed) return;
    if (this.mode !== 'live' && this.session && this.session.canWrite) {
      toast(this.mode === 'history' ? 'Back to live to move the cube (you are looking at an old version).'
        : 'Close the solution preview to move the cube.');
      return;
    }
    if (!this.canPlay() || this.n > PLAY_MAX) return;
    show($('#write-error'), false);
    try {
      parseFlat(text, this.n);
    } catch (e) {
      $('#write-error').textContent = e.message;
      show($('#write-error'), true);
      return;
    }
    if (this.session.move(text, 'keys') && this.timer) this.timer.turned();
  }

  simple(kind) {
    if (this.closed || !this.canPlay()) return;
    show($('#write-error'), false);
    this.session.write(kind, '', kind);
  }

  prefix(p) {
    const pill = $('#prefix');
    pill.textContent = p ? `layer ${p}…` : '';
    show(pill, !!p);
  }

  initControls() {
    this.on($('#undo'), 'click', () => this.simple('undo'));
    this.on($('#redo'), 'click', () => this.simple('redo'));
    this.on($('#reset'), 'click', () => {
      if (confirm('Reset the cube to the state it started in? Undo cannot bring it back (the history keeps it).')) this.simple('reset');
    });
    this.on($('#show-3d'), 'click', () => this.setMain('3d'));
    this.on($('#show-net'), 'click', () => this.setMain('net'));
    this.on($('#reset-view'), 'click', () => this.view3d && this.view3d.resetView());
    this.on($('#notation'), 'submit', (e) => {
      e.preventDefault();
      const text = $('#moves').value;
      show($('#notation-error'), false);
      if (!text.trim() || !this.canPlay()) return;
      this.session.write('moves', text, 'notation');
    });
    this.on($('#moves'), 'input', () => show($('#notation-error'), false));
    // the moves typed, from the state shown, as an algorithm link
    this.on($('#as-link'), 'click', (e) => {
      e.preventDefault();
      const text = $('#moves').value.trim() || "R U R' U'";
      location.hash = algLink({ alg: text, state: this.painted, setup: '', n: this.n, speed: $('#speed').value });
    });
    this.on($('#timeline'), 'input', () => this.timelineLabel(Number($('#timeline').value)));
    this.on($('#timeline'), 'change', () => this.viewVersion(Number($('#timeline').value)));
    this.on($('#to-live'), 'click', () => this.backToLive());
    this.on($('#fork'), 'click', () => this.fork());
    this.on($('#events'), 'click', (e) => {
      const li = e.target.closest('li[data-version]');
      if (li) this.viewVersion(Number(li.dataset.version));
    });
  }

  sessionUi() {
    return {
      status: (s, detail) => {
        const c = $('#conn');
        c.dataset.state = s;
        c.textContent = CONN_TEXT[s] + (detail && s !== 'live' ? ` — retrying in ${detail} s` : '');
        show(c, true);
      },
      meta: (m) => this.meta(m),
      event: (ev) => {
        this.addEvent(ev);
        if (this.timer) this.timer.confirmed(ev.type === 'reset' ? null : ev.moves, this.session.confirmed.facelets);
        this.timesSoon();
      },
      historyGap: () => this.loadHistory(),
      queued: (k) => {
        $('#queued').textContent = k > 1 ? `sending ${k} moves…` : '';
        $('#viewport').dataset.pending = String(k);
      },
      visible: (version, phase, actor) => {
        performance.mark(`cubed:v${version}:${phase}`, { detail: { version, actor } });
      },
      accepted: (w) => {
        if (w.source === 'notation' && $('#moves').value === w.text) $('#moves').value = '';
        if (w.source === 'solve' && this.solve) this.solve.applied();
        if (w.source === 'scramble') this.inspect(w.text);
      },
      refused: (w, e) => this.refused(w, e),
      notice: (t) => toast(t),
      // someone started a timed solve: follow its clock here too
      timed: () => this.loadTimes(),
      revoked: () => {
        this.tokenRefused = true;
        forgetToken(this.session.id);
      },
      deleted: () => {
        this.banner('This cube was deleted by its owner.', []);
        for (const b of document.querySelectorAll('#play .stage button, #play .stage input')) b.disabled = true;
      },
      error: (where, e) => toast(`${where}: ${e.message || e}`),
    };
  }

  refused(w, e) {
    if (w.source === 'notation') {
      const text = w.text;
      const p = e.problem || {};
      const echo = $('#notation-echo');
      echo.replaceChildren();
      if (Number.isInteger(p.offset)) {
        const cps = Array.from(text);
        const len = Math.max(1, p.token ? Array.from(p.token).length : 1);
        echo.append(cps.slice(0, p.offset).join(''), el('mark', {}, cps.slice(p.offset, p.offset + len).join('') || ' '),
          cps.slice(p.offset + len).join(''));
        // the caret at the offset (code points → UTF-16 units)
        const unit = cps.slice(0, p.offset).join('').length;
        const input = $('#moves');
        if (input.value === text) {
          input.focus();
          input.setSelectionRange(unit, unit + (cps.slice(p.offset, p.offset + len).join('').length));
        }
      }
      show(echo, Number.isInteger(p.offset));
      $('#notation-error').dataset.offset = Number.isInteger(p.offset) ? String(p.offset) : '';
      $('#notation-error').dataset.code = e.code;
      $('#notation-detail').textContent = e.message;
      show($('#notation-error'), true);
      return;
    }
    if (w.source === 'solve' && this.solve) {
      this.solve.refused(e);
      return;
    }
    let msg = e.message;
    if (e.code === 'read_only_token') msg = 'This link can watch but not move the cube.';
    else if (e.code === 'wrong_token') msg = 'This link no longer works for moving (its token was revoked).';
    else if (e.code === 'nothing_to_undo') msg = 'Nothing to undo.';
    else if (e.code === 'nothing_to_redo') msg = 'Nothing to redo.';
    $('#write-error').textContent = msg;
    $('#write-error').dataset.code = e.code;
    show($('#write-error'), true);
  }

  meta(m) {
    const s = this.session;
    const role = s ? s.access.role : this.access.role;
    const r = $('#role');
    r.textContent = ROLE_TEXT[role];
    r.dataset.role = role;
    show(r, true);
    const p = $('#presence');
    p.textContent = `${m.watchers} watching`;
    p.title = 'Live viewers of this cube, you included';
    show(p, true);
    const writable = !!s && s.canWrite;
    const live = this.mode === 'live';
    $('#undo').disabled = !writable || !live || !m.can_undo;
    $('#redo').disabled = !writable || !live || !m.can_redo;
    $('#reset').disabled = !writable || !live;
    $('#moves').disabled = !writable || !live;
    $('#apply').disabled = !writable || !live;
    $('#viewport').dataset.role = role;
    const tl = $('#timeline');
    const v = s ? s.confirmed.version : m.version;
    tl.max = String(v);
    if (live) tl.value = String(v);
    this.timelineLabel(Number(tl.value));
    if (!writable && this.mode === 'live') {
      this.banner(s && s.deleted ? 'This cube was deleted by its owner.'
        : this.tokenRefused ? 'This link does not let you play: its token is mistyped, or its owner revoked it. You can watch every move live.'
          : 'Watch-only: you see every move live but cannot turn this cube.', []);
    }
    for (const b of document.querySelectorAll('#move-pad button')) b.disabled = !writable || !live || this.n > PLAY_MAX;
    if (this.timer) $('#timer-start').disabled = !writable || !live || this.n < 2 || this.n > PLAY_MAX;
    this.undoLabel();
    if (this.solve) this.solve.cubeChanged();
  }

  banner(text, buttons) {
    const b = $('#banner');
    b.replaceChildren(el('span', {}, text), ...buttons);
    b.dataset.kind = this.mode;
    show(b, true);
  }

  // ---- history and time travel ------------------------------------------------

  timelineLabel(k) {
    const s = this.session;
    const v = s ? s.confirmed.version : 0;
    $('#timeline-label').textContent = k === v ? `version ${v} (now)` : `version ${k} of ${v}`;
  }

  async loadHistory() {
    const s = this.session;
    const v = s.confirmed.version;
    const after = v >= HISTORY_PAGE ? v - HISTORY_PAGE : null;
    try {
      const r = await api.history(s.id, s.access.token, after, HISTORY_PAGE);
      if (this.closed) return;
      $('#events').replaceChildren();
      this.known = new Set();
      this.evs = new Map();
      for (const ev of r.body.events) this.addEvent(ev);
      show($('#history-error'), false);
    } catch (e) {
      $('#history-error').textContent = `The history could not be read: ${e.message}`;
      show($('#history-error'), true);
    }
  }

  addEvent(ev) {
    if (!this.known) this.known = new Set();
    if (this.known.has(ev.version)) return;
    this.known.add(ev.version);
    this.evs.set(ev.version, ev);
    // an undo's stored moves are the inverse of what it took back: show
    // what was undone ("undid R"), not the inverse ("undo R'")
    const what = { moves: '', undo: 'undid ', redo: 'redid ', reset: 'reset', create: 'created' }[ev.type] ?? `${ev.type} `;
    const moves = ev.type === 'undo' ? invertFlat(ev.moves) : ev.moves;
    const when = ev.created_at ? new Date(ev.created_at).toLocaleTimeString() : '';
    const label = `Version ${ev.version}: ${what}${moves || ''} by ${ev.actor || 'the creator'} at ${when}`;
    // a button, so the keyboard reaches every entry (Enter shows it)
    const li = el('li', { value: ev.version, dataset: { version: String(ev.version), type: ev.type } },
      el('button', { type: 'button', className: 'ev', title: label },
        el('span', {}, what), moves ? el('code', {}, moves.length > 60 ? `${moves.slice(0, 60)}…` : moves) : null,
        el('span', { className: 'who' }, ` — ${ev.actor || (ev.type === 'create' ? 'created' : '?')} · ${when}`)));
    const list = $('#events');
    // newest first; events arrive in order, but a reload may interleave
    const after = Array.from(list.children).find((c) => Number(c.dataset.version) < ev.version);
    list.insertBefore(li, after || null);
    while (list.children.length > 500) list.lastChild.remove();
    this.markCurrent();
    this.undoLabel();
  }

  // What Undo would take back: the history replayed as the server keeps
  // its undo stack (a move pushes, an undo pops it onto redo, a redo
  // pushes back, a reset clears both). Undo is the cube's, shared by
  // every player: the label says whose move it is.
  undoLabel() {
    const undo = [];
    let redo = [];
    for (const v of [...this.evs.keys()].sort((a, b) => a - b)) {
      const ev = this.evs.get(v);
      if (ev.type === 'moves') { undo.push(ev); redo = []; }
      else if (ev.type === 'undo') { if (undo.length) redo.push(undo.pop()); }
      else if (ev.type === 'redo') { if (redo.length) undo.push(redo.pop()); }
      else if (ev.type === 'reset' || ev.type === 'create') { undo.length = 0; redo = []; }
    }
    const top = undo[undo.length - 1];
    const b = $('#undo');
    if (!top || !this.session || !this.session.meta.can_undo) {
      b.textContent = 'Undo';
      b.title = 'Ctrl+Z: take back the cube’s last move, whoever made it';
      return;
    }
    const mv = top.moves.length > 14 ? `${top.moves.slice(0, 14)}…` : top.moves;
    const who = top.actor === this.myName() ? 'you' : top.actor || 'someone';
    b.textContent = `Undo ${mv}`;
    b.title = `Ctrl+Z: take back ${top.moves} (by ${who}); undo is shared: it takes back the cube’s last move, whoever made it`;
  }

  myName() {
    return this.access.role === 'owner' ? 'owner' : null;
  }

  markCurrent() {
    const v = this.mode === 'history' ? this.historyVersion : this.session && this.session.confirmed.version;
    for (const li of $('#events').children) li.setAttribute('aria-current', String(Number(li.dataset.version) === v));
  }

  async viewVersion(k) {
    const s = this.session;
    if (!s || !Number.isInteger(k)) return;
    if (this.solve) this.solve.exitPreview();
    if (k === s.confirmed.version && this.mode === 'history') return this.backToLive();
    if (k === s.confirmed.version) return;
    try {
      const r = await api.getSession(s.id, s.access.token, `version=${k}`);
      if (this.closed) return;
      this.mode = 'history';
      this.historyVersion = k;
      $('#timeline').value = String(k);
      this.timelineLabel(k);
      this.snap(r.body.facelets);
      this.banner(`Version ${k} of ${s.confirmed.version}, as it was at ${new Date(r.body.updated_at).toLocaleTimeString()}. Moves are paused while you look back.`, [
        el('button', { type: 'button', id: 'banner-live', onclick: () => this.backToLive() }, 'Back to live'),
        el('button', { type: 'button', onclick: () => this.fork() }, 'Continue from here'),
      ]);
      show($('#to-live'), true);
      this.meta(s.meta);
      this.markCurrent();
      show($('#history-error'), false);
    } catch (e) {
      $('#history-error').textContent = `Version ${k} could not be read: ${e.message}`;
      show($('#history-error'), true);
    }
  }

  backToLive() {
    const s = this.session;
    this.mode = 'live';
    this.historyVersion = null;
    show($('#banner'), false);
    show($('#to-live'), false);
    this.snap(s.shown);
    this.meta(s.meta);
    this.markCurrent();
  }

  async fork() {
    const s = this.session;
    const version = this.mode === 'history' ? this.historyVersion : s.confirmed.version;
    try {
      const r = await api.fork(s.id, version, s.access.token);
      const f = r.body;
      mergeAccess(f.id, { t: f.write_token, rt: f.read_token, role: 'owner' });
      location.hash = `#/s/${f.id}`;
      toast(`A new cube from version ${version}: it is yours.`);
    } catch (e) {
      $('#history-error').textContent = `Could not fork: ${e.message}`;
      show($('#history-error'), true);
    }
  }

  // ---- patterns -----------------------------------------------------------------

  async initPatterns() {
    const ul = $('#patterns');
    ul.replaceChildren();
    delete ul.dataset.version;
    if (this.n > RENDER_MAX) {
      ul.append(el('li', {}, `pattern names go up to ${RENDER_MAX}×${RENDER_MAX}`));
      return;
    }
    // the texts once; every state after that is matched here (patterns.js)
    let list = [];
    try {
      list = (await api.patterns(this.n)).body.patterns;
    } catch {
      list = [];
    }
    if (this.closed) return;
    this.patterns = new PatternSet(this.n, list);
    for (const p of list)
      ul.append(el('li', { title: p.description, dataset: { name: p.name, holds: 'false' } }, p.name.replace(/_/g, ' ')));
    this.patternsSoon();
  }

  patternsSoon() {
    if (!this.patterns || !this.patterns.list.length) return;
    clearTimeout(this.patternTimer);
    this.patternTimer = setTimeout(() => this.checkPatterns(), 100);
  }

  checkPatterns() {
    const s = this.session;
    if (!s || this.closed || !this.patterns) return;
    const { facelets, version } = s.confirmed;
    const got = this.patterns.all(facelets);
    for (const p of this.patterns.list) {
      const li = $('#patterns').querySelector(`li[data-name="${p.name}"]`);
      const r = got[p.name];
      if (!li || !r) continue;
      li.dataset.holds = String(r.matched);
      li.textContent = p.name.replace(/_/g, ' ') + (r.matched && p.name !== 'solved' ? ` (${r.face})` : '');
    }
    $('#patterns').dataset.version = String(version);
  }

  // ---- sharing ------------------------------------------------------------------

  initShare(info) {
    const owner = this.access.role === 'owner';
    show($('#share-owner'), owner);
    show($('#share-other'), !owner);
    show($('#share-link'), false);
    $('#share-note').textContent = '';
    show($('#share-error'), false);
    if (!owner) {
      $('#share-other').textContent = info.visibility === 'public'
        ? `Only the owner can invite players. Anyone can watch: ${this.links.sessionLink(info.id)}`
        : 'Only the owner can invite people to this private cube.';
      return;
    }
    const make = async (role) => {
      show($('#share-error'), false);
      try {
        const t = (await api.mintToken(info.id, role === 'play' ? 'write' : 'read', this.access.token)).body;
        let rt = '';
        if (role === 'play' && info.visibility === 'private')
          rt = (await api.mintToken(info.id, 'read', this.access.token)).body.token;
        const link = this.links.sessionLink(info.id, { t: t.token, rt, role });
        const input = $('#share-link');
        input.value = link;
        input.dataset.role = role;
        show(input, true);
        const copied = await copy(link);
        delete $('#share-note').dataset.kind;
        $('#share-note').textContent = (copied ? 'Copied. ' : 'Copy this link: ') + (role === 'play'
          ? `Whoever opens it moves the cube as “${t.name}”.`
          : 'Whoever opens it watches live but cannot move the cube.');
        // the input is there to select by hand when copying failed; it
        // does not take the focus (the keys would go to it)
        if (!copied) input.select();
        this.loadInvites();
      } catch (e) {
        $('#share-error').textContent = `No link: ${e.message}`;
        show($('#share-error'), true);
      }
    };
    this.loadInvites();
    this.on($('#invites'), 'click', (e) => {
      const b = e.target.closest('button[data-tid]');
      if (b) this.revoke(b.dataset.tid, b.dataset.name);
    });
    this.on($('#delete-cube'), 'click', () => this.deleteCube());
    this.on($('#share-play'), 'click', () => make('play'));
    this.on($('#share-watch'), 'click', () => make('watch'));
    // the owner's own link, for the owner's other devices: made only on
    // purpose, and it says what it gives away
    this.on($('#share-self'), 'click', async () => {
      show($('#share-error'), false);
      const link = this.links.sessionLink(info.id, { t: this.access.token, rt: this.access.streamToken, role: 'owner' });
      const input = $('#share-link');
      input.value = link;
      input.dataset.role = 'owner';
      show(input, true);
      const copied = await copy(link);
      $('#share-note').textContent = `${copied ? 'Copied. ' : ''}Careful: this is the owner link. Whoever opens it becomes an owner of this cube — they can move it, invite and revoke players, and delete it. Send it only to yourself (your other devices); for friends, use the co-player or watch-only link.`;
      $('#share-note').dataset.kind = 'warning';
      if (!copied) input.select();
    });
  }

  // ---- the owner's invites and the cube itself ---------------------------------

  // The tokens the owner handed out, each with Revoke.
  async loadInvites() {
    const ul = $('#invites');
    let list;
    try {
      list = (await api.tokens(this.session.id, this.access.token)).body.tokens;
    } catch (e) {
      if (this.closed) return;
      ul.replaceChildren(el('li', { className: 'error' }, `The invites could not be read: ${e.message}`));
      return;
    }
    if (this.closed) return;
    ul.replaceChildren();
    const live = list.filter((t) => !t.revoked_at);
    if (!live.length) ul.append(el('li', { className: 'muted' }, 'Nobody yet: the links above invite people.'));
    for (const t of live)
      ul.append(el('li', { dataset: { tid: String(t.id), name: t.name } },
        el('span', {}, t.name), el('span', { className: 'muted' }, t.role === 'write' ? ' plays' : ' watches'),
        el('button', { type: 'button', className: 'danger small', dataset: { tid: String(t.id), name: t.name },
          title: `Revoke ${t.name}'s link: it stops working at once` }, 'Revoke')));
  }

  async revoke(tid, name) {
    if (!confirm(`Revoke ${name}'s link? It stops working at once; their past moves stay in the history.`)) return;
    show($('#share-error'), false);
    try {
      await api.revoke(this.session.id, tid, this.access.token);
      toast(`${name}'s link no longer works.`);
    } catch (e) {
      $('#share-error').textContent = `Not revoked: ${e.message}`;
      show($('#share-error'), true);
    }
    this.loadInvites();
  }

  async deleteCube() {
    if (!confirm('Delete this cube for everyone? Its history goes with it; this cannot be undone.')) return;
    show($('#share-error'), false);
    const id = this.session.id;
    try {
      await api.deleteSession(id, this.access.token);
    } catch (e) {
      $('#share-error').textContent = `Not deleted: ${e.message}`;
      show($('#share-error'), true);
      return;
    }
    forgetCube(id);
    this.links.forget(id);
    toast('The cube was deleted.');
    location.hash = '#/';
  }

  // ---- races -------------------------------------------------------------------------

  // A player's cube in a race: a link back to the room, and at the go
  // (race.js leaves pendingRace) the race's scramble put on the cube and a
  // timed solve started there.
  initRace() {
    const a = getAccess(this.route.id) || {};
    show($('#race-strip'), !!a.race);
    if (a.race) $('#race-back').href = `#/race/${a.race}`;
    const pr = a.pendingRace;
    if (pr && this.canPlay()) {
      mergeAccess(this.route.id, { pendingRace: null });
      this.session.write('moves', pr.scramble, 'scramble');
    }
  }

  // ---- timed solves ---------------------------------------------------------------

  initTimer() {
    const n = this.n;
    this.timer = new SolveTimer(n, {
      render: (v) => {
        const d = $('#timer-display');
        d.textContent = v.text;
        d.dataset.state = v.state;
        d.classList.toggle('warn', !!v.warn);
        $('#timer-moves').textContent = v.state === 'idle' ? ''
          : `${v.moves.htm} HTM · ${v.moves.qtm} QTM · ${v.moves.stm} STM`;
        // a started solve is on the server's record: it ends solved (or
        // DNF), not cancelled
        const on = v.state === 'inspecting' || v.state === 'running';
        $('#timer-start').textContent = on ? 'Timing…' : 'Timed solve';
        $('#timer-start').dataset.timing = String(on);
      },
      solved: (r) => this.solved(r),
    });
    this.timer.ui.render(this.timer.view());
    $('#timer-start').disabled = !this.canPlay() || n < 2 || n > PLAY_MAX;
    const speed = localStorage.getItem('cubed.speed');
    if (speed !== null && $('#speed').querySelector(`option[value="${speed}"]`)) $('#speed').value = speed;
    this.applySpeed();
    this.on($('#speed'), 'change', () => {
      try { localStorage.setItem('cubed.speed', $('#speed').value); } catch { /* kept for this page only */ }
      this.applySpeed();
    });
    this.on($('#timer-start'), 'click', () => this.timedSolve());
    this.renderTimes();
    this.loadTimes();
  }

  applySpeed() {
    const ms = Number($('#speed').value);
    if (this.view3d) this.view3d.quarterMs = ms;
    if (this.solve) this.solve.stepMs = Math.max(120, 2 * ms + 60);
  }

  // Start a timed solve: a solved cube is scrambled first (a random-state
  // scramble from the server, sent as one write); one that is not starts
  // from where it is.
  async timedSolve() {
    const t = this.timer;
    if (t.state === 'inspecting' || t.state === 'running') return;
    if (!this.canPlay()) return;
    if (!isSolved(this.session.confirmed.facelets, this.n)) {
      this.inspect(null);
      return;
    }
    $('#timer-start').disabled = true;
    try {
      const r = await api.scramble(this.n);
      if (this.closed) return;
      this.session.write('moves', r.body.moves, 'scramble');
    } catch (e) {
      toast(`No scramble: ${e.message}`);
    } finally {
      $('#timer-start').disabled = !this.canPlay();
    }
  }

  // Inspection begins: on this page at once, and on the server (the
  // start of the record: the version shown, this player).
  async inspect(scramble) {
    if (scramble) {
      $('#scramble-text').textContent = scramble;
      show($('#scramble-line'), true);
    }
    show($('#solved-flash'), false);
    this.timer.inspect();
    try {
      const r = await api.timedStart(this.route.id, this.session.confirmed.version, this.access.token);
      if (this.closed) return;
      this.timedOpen = r.body.id;
      this.loadTimes();
    } catch (e) {
      if (!this.closed) toast(`This solve is timed here only: ${e.message}`);
    }
  }

  solved(r) {
    const f = $('#solved-flash');
    f.replaceChildren(el('strong', {}, 'solved!'), el('span', {}, r.dnf ? 'DNF' : formatTime(r.ms) + (r.penalty ? ' (+2)' : '')),
      el('span', {}, `${r.moves.htm} moves (HTM)`));
    f.dataset.ms = r.ms === null ? 'dnf' : String(r.ms);
    f.dataset.htm = String(r.moves.htm);
    show(f, true);
    clearTimeout(this.flashTimer);
    this.flashTimer = setTimeout(() => show(f, false), 6000);
    // the server's record is the one kept: read it back
    this.loadTimes();
  }

  // The session's timed solves and the players' averages, from the server
  // (GET …/timed): what a reload, another device or the API sees. An open
  // one (inspecting, running) is followed on this page too.
  async loadTimes() {
    let r;
    try {
      r = (await api.timed(this.route.id, this.access.token)).body;
    } catch (e) {
      if (!this.closed) $('#times-error').textContent = `The times could not be read: ${e.message}`;
      show($('#times-error'), !this.closed);
      return;
    }
    if (this.closed) return;
    show($('#times-error'), false);
    this.timedList = r;
    this.renderTimes();
    const last = r.timed_solves[r.timed_solves.length - 1];
    if (last && (last.status === 'inspecting' || last.status === 'running')) {
      this.timedOpen = last.id;
      if (this.timer.state === 'idle') this.resumeTimed(last);
    } else {
      this.timedOpen = null;
    }
  }

  // A solve that was running when this page opened (a reload, another
  // device): the clock from the server's times.
  resumeTimed(t) {
    const skew = performance.now() - Date.now(); // server ms → this page's clock
    if (t.scramble) {
      $('#scramble-text').textContent = t.scramble;
      show($('#scramble-line'), true);
    }
    this.timer.inspect();
    this.timer.inspectAt = Date.parse(t.inspection_started_at) + skew;
    if (t.status === 'running') {
      this.timer.turned();
      this.timer.startAt = Date.parse(t.started_at) + skew;
      this.timer.moves = { ...t.moves };
    }
    this.timer.ui.render(this.timer.view());
  }

  // Refresh the list while a timed solve is open (at most one request per
  // change, after the change settles).
  timesSoon() {
    if (!this.timedOpen) return;
    clearTimeout(this.timesTimer);
    this.timesTimer = setTimeout(() => this.loadTimes(), 300);
  }

  renderTimes() {
    const r = this.timedList || { timed_solves: [], players: {} };
    const show1 = (v) => (v === null || v === undefined ? '–' : v === 'DNF' ? 'DNF' : formatTime(v));
    const tb = $('#time-stats');
    tb.replaceChildren();
    const players = Object.entries(r.players);
    for (const [who, st] of players)
      tb.append(el('tr', { dataset: { player: who } }, el('th', { scope: 'row' }, who),
        ...['best', 'mean', 'ao5', 'ao12'].map((k) => el('td', { dataset: { stat: k } }, show1(st[k])))));
    show($('#time-stats-table'), players.length > 0);
    const ol = $('#times');
    ol.replaceChildren();
    const done = r.timed_solves.filter((t) => t.status !== 'abandoned');
    for (const t of done.slice(-50).reverse()) {
      const time = t.status === 'solved' ? formatTime(t.ms) + (t.penalty_ms ? ' (+2)' : '')
        : t.status === 'dnf' ? 'DNF' : t.status === 'running' ? 'solving…' : 'inspecting…';
      ol.append(el('li', { dataset: { id: String(t.id), status: t.status }, title: `scramble: ${t.scramble || '(the cube as it was)'}` },
        el('span', { className: 'time' }, time), el('span', { className: 'muted' }, ` ${t.moves.htm} moves · ${t.actor}`)));
    }
    if (!done.length) ol.append(el('li', { className: 'muted' }, 'No timed solves yet.'));
    $('#times').dataset.count = String(done.length);
  }

  // On-screen move buttons (shown on touch screens and narrow windows):
  // each face both ways, and the whole cube's rotations.
  initMovePad() {
    const pad = $('#move-pad');
    pad.replaceChildren();
    const moves = ['U', "U'", 'D', "D'", 'R', "R'", 'L', "L'", 'F', "F'", 'B', "B'", 'x', 'y', 'z'];
    if (this.n % 2 === 1 && this.n >= 3) moves.splice(12, 0, 'M', "M'");
    for (const m of moves)
      pad.append(el('button', { type: 'button', dataset: { move: m }, onclick: () => this.userMove(m) }, m));
    for (const b of pad.querySelectorAll('button')) b.disabled = !this.canPlay() || this.n > PLAY_MAX;
  }

  initKeymap() {
    const t = $('#keymap');
    t.replaceChildren();
    for (const [k, what] of KEYMAP) {
      const keysCell = el('td');
      k.split(/(\s+|,\s*|\+)/).forEach((part) => {
        if (/^[A-Z0-9][A-Za-z0-9–]*$|^Esc$|^Ctrl$|^Shift$/.test(part)) keysCell.append(el('kbd', {}, part));
        else keysCell.append(part);
      });
      t.append(el('tr', {}, keysCell, el('td', {}, what)));
    }
    if (this.n > PLAY_MAX) t.append(el('tr', {}, el('td', { colSpan: 2, className: 'muted' }, `Keys turn cubes up to ${PLAY_MAX}×${PLAY_MAX}.`)));
  }
}

