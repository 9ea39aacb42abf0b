// access.js — what this browser keeps about each cube it opened: its
// tokens (the owner's, a co-player's, a read token), the role they give,
// and the scramble it was created with. They live in localStorage, never
// in the address bar: the address is `#/s/<id>` alone, so copying it to a
// friend shares the cube to watch, never its owner's secret. A link that
// carries tokens (a co-player link, an owner link made on purpose) hands
// them over once; the router keeps them here and takes them out of the
// address.

const KEY = 'cubed.access';
const RANK = { watch: 1, play: 2, owner: 3 };
const MAX = 200; // cubes remembered; the oldest go first

function load() {
  try {
    const m = JSON.parse(localStorage.getItem(KEY) || '{}');
    return m && typeof m === 'object' && !Array.isArray(m) ? m : {};
  } catch {
    return {};
  }
}

function save(m) {
  const ids = Object.keys(m);
  if (ids.length > MAX) {
    ids.sort((a, b) => (m[a].at || 0) - (m[b].at || 0));
    for (const id of ids.slice(0, ids.length - MAX)) delete m[id];
  }
  try {
    localStorage.setItem(KEY, JSON.stringify(m));
  } catch {
    /* private mode: tokens last as long as the page */
  }
}

// {t, rt, role, scramble, seed} for cube id, or null.
export function getAccess(id) {
  const e = load()[id];
  return e && typeof e === 'object' ? e : null;
}

// Keep what a link or a reply brought: tokens replace the ones kept only
// when they give at least as much (a watch-only link opened by the owner
// does not demote the owner); other fields (scramble) are added.
export function mergeAccess(id, entry) {
  const m = load();
  const old = m[id] || {};
  const next = { ...old, at: Date.now() };
  const role = entry.role || (entry.t ? 'play' : '');
  if (entry.t && (RANK[role] || 0) >= (RANK[old.role] || 0)) {
    next.t = entry.t;
    next.role = role;
    if (entry.rt) next.rt = entry.rt;
    else if (role !== 'owner') delete next.rt;
  } else if (entry.rt && !next.rt) {
    next.rt = entry.rt;
  }
  // anything else the page keeps with it (scramble, size, a race seat…)
  for (const [k, v] of Object.entries(entry))
    if (!['t', 'rt', 'role'].includes(k) && v !== undefined) next[k] = v;
  m[id] = next;
  save(m);
  return next;
}

// The server refused this browser's token for id: forget it (and its role).
export function forgetToken(id) {
  const m = load();
  if (!m[id]) return;
  delete m[id].t;
  delete m[id].role;
  save(m);
}

export function forgetCube(id) {
  const m = load();
  delete m[id];
  save(m);
}
