// race.js — a race's room, #/race/<id>: several players solve the same
// scramble, each on a cube of their own (a session). The room shows who
// is in, the host's Start, the countdown, everyone's progress live
// (moves, and the stage reached — cross, F2L, OLL, solved — matched in the
// page against the server's pattern texts) from each player's own event
// stream, the results table (GET /v1/races/<id>: each result read from the
// player's history) and a side-by-side replay of every solve from those
// histories. At the go each player's page opens their cube with the
// race's scramble on it and a timed solve started (play.js, pendingRace).
// The room's address carries no secret: the host's token and a player's
// cube token are kept in this browser (access.js).

import { api } from './api.js';
import { applyTurns, parseFlat, solvedFacelets } from './cube.js';
import { getAccess, mergeAccess } from './access.js';
import { $, show, el, copy, toast } from './dom.js';
import { LiveStream } from './live.js';
import { NetView } from './net.js';
import { PatternSet } from './patterns.js';
import { formatTime } from './timer.js';

export function parseRaceRoute(hash) {
  const m = /^#\/race\/([A-Za-z0-9_-]{22})$/.exec(hash);
  return m ? { id: m[1] } : null;
}

// The stage a state has reached, highest first, by the named patterns the
// size has (3×3: solved, OLL, F2L, cross; 2×2: solved, first layer).
const STAGES = [['solved', 'solved'], ['oll', 'OLL'], ['f2l', 'F2L'], ['first_layer', 'first layer'], ['cross', 'cross']];
export function stageOf(patterns, facelets) {
  if (!patterns) return '';
  for (const [name, label] of STAGES)
    if (patterns.list.some((p) => p.name === name) && patterns.match(name, facelets).matched) return label;
  return '—';
}

// Follows every player's cube live: their moves since the race went and
// the stage reached. onChange(seat) after each change.
export class RaceWatch {
  constructor(race, onChange) {
    this.race = race;
    this.onChange = onChange;
    this.streams = [];
    this.state = new Map(); // seat → {facelets, moves, stage, version}
    this.patterns = null;
  }

  async start() {
    try {
      this.patterns = new PatternSet(this.race.size, (await api.patterns(this.race.size)).body.patterns);
    } catch {
      this.patterns = null;
    }
    for (const p of this.race.players) {
      const st = { facelets: solvedFacelets(this.race.size), moves: 0, stage: '', version: -1 };
      this.state.set(p.seat, st);
      const s = new LiveStream({
        id: p.session_id,
        readToken: '',
        after: () => st.version,
        onStatus: () => {},
        onEvent: (type, data) => this.event(p, st, type, data),
      });
      this.streams.push(s);
    }
  }

  event(p, st, type, data) {
    if (type === 'state') {
      st.facelets = data.facelets || st.facelets;
      st.version = data.version;
    } else if (['moves', 'undo', 'redo', 'reset'].includes(type)) {
      if (data.version <= st.version) return;
      st.version = data.version;
      if (data.facelets) st.facelets = data.facelets;
      else {
        try {
          const t = parseFlat(data.moves || '', this.race.size);
          if (t) st.facelets = applyTurns(st.facelets, this.race.size, t);
        } catch { /* the next state event corrects it */ }
      }
      const goAt = this.race.go_at ? Date.parse(this.race.go_at) : Infinity;
      if (Date.parse(data.created_at) >= goAt && type !== 'reset') {
        try {
          const t = parseFlat(data.moves || '', this.race.size);
          st.moves += t ? t.filter((x) => !(x.lo === 0 && x.hi === this.race.size - 1)).length : 0;
        } catch { /* structured moves: not counted here */ }
      }
    } else {
      return;
    }
    st.stage = stageOf(this.patterns, st.facelets);
    this.onChange(p.seat, st);
  }

  close() {
    for (const s of this.streams) s.close();
    this.streams = [];
  }
}

export class RacePage {
  constructor(route) {
    this.id = route.id;
    this.closed = false;
    this.abort = new AbortController();
    this.timer = 0;
    this.tick = 0;
    this.watch = null;
    this.race = null;
    this.replays = [];
  }

  on(target, type, fn) {
    target.addEventListener(type, fn, { signal: this.abort.signal });
  }

  mine() {
    return getAccess(`race:${this.id}`) || {};
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    clearTimeout(this.timer);
    clearInterval(this.tick);
    if (this.watch) this.watch.close();
    for (const r of this.replays) r.net.dispose();
    show($('#racepage'), false);
  }

  async open() {
    show($('#racepage'), true);
    document.title = 'Race — cubed';
    $('#race-replay').replaceChildren();
    show($('#race-error'), false);
    this.on($('#race-join'), 'submit', (e) => {
      e.preventDefault();
      this.join();
    });
    this.on($('#race-start'), 'click', () => this.start());
    this.on($('#race-copy'), 'click', async () => {
      const link = `${location.origin}/#/race/${this.id}`;
      $('#race-link').value = link;
      show($('#race-link'), true);
      $('#race-note').textContent = (await copy(link)) ? 'Copied: whoever opens it can take a seat.' : 'Copy this link:';
    });
    this.on($('#race-replay-btn'), 'click', () => this.replay());
    await this.refresh();
  }

  async refresh() {
    if (this.closed) return;
    let r;
    try {
      r = (await api.race(this.id)).body;
    } catch (e) {
      if (this.closed) return;
      $('#race-error').textContent = e.status === 404 ? 'There is no such race: the link is mistyped.' : `The race could not be read: ${e.message}`;
      show($('#race-error'), true);
      return;
    }
    if (this.closed) return;
    const first = !this.race || this.race.players.length !== r.players.length || this.race.status !== r.status;
    this.race = r;
    this.render(first);
    clearTimeout(this.timer);
    if (r.status !== 'finished') this.timer = setTimeout(() => this.refresh(), r.status === 'open' ? 1000 : 1500);
  }

  render(first) {
    const r = this.race;
    const me = this.mine();
    $('#race-title').textContent = r.title || `${r.size}×${r.size} race`;
    const page = $('#racepage');
    page.dataset.status = r.status;
    page.dataset.players = String(r.players.length);
    const STATUS = {
      open: 'Waiting for players: share the link, then the host starts the race.',
      countdown: 'Get ready…', racing: 'Racing!', finished: 'Finished.',
    };
    $('#race-status').textContent = STATUS[r.status];
    show($('#race-join'), r.status === 'open' && !me.seat && r.players.length < 8);
    show($('#race-start'), r.status === 'open' && !!me.host);
    $('#race-start').disabled = r.players.length === 0;
    $('#race-scramble').textContent = r.scramble || '';
    show($('#race-scramble-line'), !!r.scramble);
    if (me.seat) {
      const link = $('#race-mine');
      link.href = `#/s/${me.session}`;
      show(link, r.status === 'racing' || r.status === 'finished');
    } else {
      show($('#race-mine'), false);
    }
    // the players, with live progress once the race is on
    const ul = $('#race-players');
    if (first || ul.children.length !== r.players.length) {
      ul.replaceChildren();
      for (const p of r.players)
        ul.append(el('li', { dataset: { seat: String(p.seat) } },
          el('span', { className: 'name' }, p.name + (p.seat === me.seat ? ' (you)' : '')),
          el('span', { className: 'progress muted' }, ''),
          el('span', { className: 'stage' }, '')));
    }
    if (r.scramble && !this.watch) {
      this.watch = new RaceWatch(r, (seat, st) => this.progress(seat, st));
      this.watch.start();
    }
    if (this.watch) this.watch.race = r;
    // the countdown, then this player's cube
    if (r.status === 'countdown' || (r.status === 'racing' && me.seat && !me.went)) this.countdown();
    else show($('#race-countdown'), false);
    this.results();
    // a result's moves are the server's count, whoever opened the room when
    for (const p of r.players) if (p.result) this.progress(p.seat, null, p.result.moves.htm);
  }

  progress(seat, st, moves) {
    const li = $('#race-players').querySelector(`li[data-seat="${seat}"]`);
    if (!li) return;
    const p = this.race.players.find((x) => x.seat === seat);
    const k = moves ?? (p && p.result ? p.result.moves.htm : st.moves);
    li.querySelector('.progress').textContent = this.race.status === 'open' ? '' : `${k} moves`;
    li.dataset.moves = String(k);
    if (st) {
      li.querySelector('.stage').textContent = st.stage;
      li.dataset.stage = st.stage;
    }
  }

  countdown() {
    const goAt = Date.parse(this.race.go_at);
    clearInterval(this.tick);
    const step = () => {
      const left = goAt - Date.now();
      $('#race-countdown').textContent = left > 0 ? String(Math.ceil(left / 1000)) : 'Go!';
      show($('#race-countdown'), true);
      if (left > 0) return;
      clearInterval(this.tick);
      const me = this.mine();
      if (me.seat && !me.went && this.race.scramble) {
        // this player's cube, with the race's scramble to put on it
        mergeAccess(`race:${this.id}`, { went: true });
        mergeAccess(me.session, { pendingRace: { id: this.id, scramble: this.race.scramble } });
        location.hash = `#/s/${me.session}`;
      }
    };
    this.tick = setInterval(step, 100);
    step();
  }

  results() {
    const r = this.race;
    const rows = r.players.filter((p) => p.result);
    show($('#race-results-box'), rows.length > 0);
    const tb = $('#race-results');
    tb.replaceChildren();
    rows.sort((a, b) => (a.place ?? 99) - (b.place ?? 99) || a.seat - b.seat);
    for (const p of rows) {
      const res = p.result;
      const time = res.status === 'solved' ? formatTime(res.ms) + (res.penalty_ms ? ' (+2)' : '')
        : res.status === 'dnf' ? 'DNF' : res.status === 'abandoned' ? 'gave up' : 'solving…';
      tb.append(el('tr', { dataset: { seat: String(p.seat), status: res.status } },
        el('td', {}, p.place ? String(p.place) : '–'), el('th', { scope: 'row' }, p.name),
        el('td', { className: 'time' }, time), el('td', {}, String(res.moves.htm))));
    }
    $('#race-replay-btn').disabled = !rows.some((p) => p.result.end_version !== null);
  }

  async join() {
    const name = $('#race-name').value.trim();
    show($('#race-error'), false);
    try {
      const j = (await api.raceJoin(this.id, name)).body;
      mergeAccess(j.session_id, { t: j.write_token, role: 'owner', size: j.race.size, race: this.id });
      mergeAccess(`race:${this.id}`, { seat: j.seat, session: j.session_id, name: j.name });
      this.race = j.race;
      this.render(true);
    } catch (e) {
      $('#race-error').textContent = `You could not join: ${e.message}`;
      show($('#race-error'), true);
    }
  }

  async start() {
    show($('#race-error'), false);
    try {
      this.race = (await api.raceStart(this.id, this.mine().host)).body;
      this.render(true);
      this.refresh();
    } catch (e) {
      $('#race-error').textContent = `The race did not start: ${e.message}`;
      show($('#race-error'), true);
    }
  }

  // Every finished solve again, side by side, from the players' histories
  // at the pace they were made (compressed to at most 10 s).
  async replay() {
    const box = $('#race-replay');
    for (const r of this.replays) r.net.dispose();
    this.replays = [];
    box.replaceChildren();
    box.dataset.done = '0';
    const n = this.race.size;
    const runs = [];
    for (const p of this.race.players) {
      const res = p.result;
      if (!res || res.end_version === null) continue;
      const start = (await api.getSession(p.session_id, '', `version=${res.version}`)).body.facelets;
      const evs = (await api.history(p.session_id, '', res.version, res.end_version - res.version)).body.events;
      const canvas = el('canvas', { className: 'replay-net', role: 'img', ariaLabel: `${p.name}'s solve` });
      const fig = el('figure', { dataset: { seat: String(p.seat) } }, canvas, el('figcaption', {}, `${p.name} · ${formatTime(res.ms)}`));
      box.append(fig);
      const net = new NetView(canvas, null);
      net.set(n, start);
      canvas.dataset.facelets = start;
      this.replays.push({ net });
      runs.push({ fig, net, canvas, start, evs });
    }
    const span = Math.max(1, ...runs.map((r) => Date.parse(r.evs[r.evs.length - 1].created_at) - Date.parse(r.evs[0].created_at)));
    const scale = Math.min(1, 10000 / span);
    let done = 0;
    for (const run of runs) {
      let f = run.start;
      const t0 = Date.parse(run.evs[0].created_at);
      run.evs.forEach((ev, i) => {
        setTimeout(() => {
          if (this.closed) return;
          try {
            const t = parseFlat(ev.moves || '', n);
            if (t) f = applyTurns(f, n, t);
          } catch { /* shown as it ends */ }
          run.net.set(n, f);
          run.canvas.dataset.facelets = f;
          if (i === run.evs.length - 1) {
            run.fig.dataset.done = '1';
            box.dataset.done = String(++done);
          }
        }, (Date.parse(ev.created_at) - t0) * scale + 200);
      });
    }
    if (!runs.length) toast('No finished solve to replay yet.');
  }
}
