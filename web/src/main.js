// main.js — the page's entry: the router and the lobby. The address's
// fragment says what to show — `#/` the lobby, `#/s/<id>` a session —
// because a fragment never leaves the browser. The tokens a cube needs
// are kept in this browser's storage (access.js), not in the address: a
// link that carries them (`#/s/<id>?t=<token>&role=…`, made on purpose in
// the Share panel) hands them over once and the address loses them at
// once. Recent sessions are remembered in localStorage only.

import './style.css';
import { api, ApiError } from './api.js';
import { openPlay } from './play.js';
import { $, show, toast } from './dom.js';
import { getAccess, mergeAccess } from './access.js';
import { AlgPage, parseAlgRoute } from './alg.js';
import { RacePage, parseRaceRoute } from './race.js';

const RECENT_KEY = 'cubed.recent';
const PLAY_MAX = 33;
const RENDER_MAX = 64; // the 3D view's (render data's) limit
const VIEW_MAX = 128;  // the server's default --max-session-size

// #/s/<id>?t=…&rt=…&role=… → {id, token, readToken, role}
export function parseRoute(hash) {
  const m = /^#\/s\/([A-Za-z0-9_-]{1,47})(?:\?(.*))?$/.exec(hash);
  if (!m) return null;
  const q = new URLSearchParams(m[2] || '');
  return { id: m[1], token: q.get('t') || '', readToken: q.get('rt') || '', role: q.get('role') || '' };
}

export function sessionLink(id, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const qs = q.toString();
  return `${location.origin}/#/s/${id}${qs ? `?${qs}` : ''}`;
}

function recent() {
  try {
    const list = JSON.parse(localStorage.getItem(RECENT_KEY) || '[]');
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

export function remember(entry) {
  const list = recent().filter((e) => e.id !== entry.id);
  // the link is the cube's address only: its tokens are in access.js
  list.unshift({ ...entry, link: `#/s/${entry.id}`, at: Date.now() });
  try {
    localStorage.setItem(RECENT_KEY, JSON.stringify(list.slice(0, 12)));
  } catch {
    /* private mode: nothing remembered */
  }
}

export function forget(id) {
  try {
    localStorage.setItem(RECENT_KEY, JSON.stringify(recent().filter((e) => e.id !== id)));
  } catch {
    /* nothing kept */
  }
}

// ---- lobby ----------------------------------------------------------------

function initLobby() {
  const presets = $('#size-presets');
  for (const n of [2, 3, 4, 5, 7, 10, 17, 33]) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = `${n}×${n}`;
    b.addEventListener('click', () => {
      $('#size').value = String(n);
      sizeNote();
    });
    presets.append(b);
  }
  const sizeNote = () => {
    const n = Number($('#size').value);
    $('#size-note').textContent = n > RENDER_MAX && n <= VIEW_MAX
      ? `A ${n}×${n} is shown as a flat net (3D goes up to ${RENDER_MAX}×${RENDER_MAX}): type moves in the notation box.`
      : n > PLAY_MAX && n <= VIEW_MAX
        ? `A ${n}×${n} is for looking at: type moves in the notation box; keys and drags stop at ${PLAY_MAX}×${PLAY_MAX}.`
        : `Play any size from 2 to ${PLAY_MAX} with keys and drags; bigger ones with typed moves.`;
  };
  $('#size').addEventListener('input', sizeNote);
  $('#scramble').addEventListener('change', () => { $('#seed').disabled = !$('#scramble').checked; });

  $('#create').addEventListener('submit', async (e) => {
    e.preventDefault();
    const err = $('#create-error');
    show(err, false);
    const n = Number($('#size').value);
    if (!Number.isInteger(n) || n < 1 || n > VIEW_MAX) {
      err.textContent = `Pick a size from 1 to ${VIEW_MAX}.`;
      show(err, true);
      return;
    }
    const req = { size: n, visibility: document.querySelector('input[name=visibility]:checked').value };
    if ($('#scramble').checked) {
      req.scramble = true;
      const seed = $('#seed').value.trim();
      if (seed !== '') req.seed = Number(seed);
    }
    const title = $('#session-title').value.trim();
    if (title) req.title = title;
    const btn = $('#create-btn');
    btn.disabled = true;
    try {
      const r = await api.createSession(req);
      const s = r.body;
      mergeAccess(s.id, { t: s.write_token, rt: s.read_token, role: 'owner', scramble: s.scramble, seed: s.seed, size: s.size });
      remember({ id: s.id, size: s.size, title: s.title, role: 'owner' });
      location.hash = `#/s/${s.id}`;
    } catch (ex) {
      err.textContent = ex instanceof ApiError ? ex.message : String(ex);
      show(err, true);
    } finally {
      btn.disabled = false;
    }
  });

  $('#race-create').addEventListener('submit', async (e) => {
    e.preventDefault();
    const err = $('#race-create-error');
    show(err, false);
    const body = { size: Number($('#race-size').value) };
    const title = $('#race-title-in').value.trim();
    if (title) body.title = title;
    try {
      const r = (await api.raceCreate(body)).body;
      mergeAccess(`race:${r.id}`, { host: r.host_token });
      location.hash = `#/race/${r.id}`;
    } catch (ex) {
      err.textContent = ex instanceof ApiError ? ex.message : String(ex);
      show(err, true);
    }
  });

  $('#open').addEventListener('submit', (e) => {
    e.preventDefault();
    const v = $('#open-link').value.trim();
    const err = $('#open-error');
    show(err, false);
    const hash = v.includes('#') ? v.slice(v.indexOf('#')) : `#/s/${v}`;
    if (!parseRoute(hash)) {
      err.textContent = 'That is neither a cubed link nor a session id.';
      show(err, true);
      return;
    }
    location.hash = hash;
  });
}

function showLobby() {
  document.title = 'cubed — play a cube together';
  show($('#lobby'), true);
  show($('#play'), false);
  for (const id of ['#role', '#presence', '#conn', '#title']) show($(id), false);
  $('#title').textContent = '';
  const ul = $('#recent');
  ul.replaceChildren();
  const list = recent();
  if (!list.length) {
    const li = document.createElement('li');
    li.className = 'muted';
    li.textContent = 'Cubes you open appear here.';
    ul.append(li);
  }
  for (const e of list) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = e.link;
    a.textContent = e.title || `${e.size}×${e.size} cube`;
    const meta = document.createElement('span');
    meta.className = 'muted';
    meta.textContent = { owner: 'yours', play: 'co-player', watch: 'watching' }[e.role] || '';
    li.append(a, meta);
    ul.append(li);
  }
}

// ---- router ---------------------------------------------------------------

let current = null;

async function route() {
  if (current) {
    current.close();
    current = null;
  }
  const race = parseRaceRoute(location.hash);
  if (race) {
    for (const id of ['#lobby', '#play', '#role', '#presence', '#conn', '#title']) show($(id), false);
    current = new RacePage(race);
    await current.open();
    return;
  }
  const alg = parseAlgRoute(location.hash);
  if (alg) {
    for (const id of ['#lobby', '#play', '#role', '#presence', '#conn', '#title']) show($(id), false);
    current = new AlgPage(alg);
    await current.open();
    return;
  }
  const r = parseRoute(location.hash);
  if (!r) {
    if (location.hash && location.hash !== '#/') history.replaceState(null, '', '#/');
    showLobby();
    return;
  }
  if (r.token || r.readToken || r.role) {
    // a link that hands over tokens: keep them, and take them out of the
    // address (and so out of the history, bookmarks and copied URLs)
    mergeAccess(r.id, { t: r.token, rt: r.readToken, role: r.role });
    history.replaceState(null, '', `#/s/${r.id}`);
  }
  const a = getAccess(r.id) || {};
  show($('#lobby'), false);
  current = await openPlay({ id: r.id, token: a.t || '', readToken: a.rt || '', role: a.t ? a.role || 'play' : '' },
    { remember, forget, sessionLink });
}

initLobby();
window.addEventListener('hashchange', () => {
  route().catch((e) => toast(String(e)));
});
route().catch((e) => toast(String(e)));
