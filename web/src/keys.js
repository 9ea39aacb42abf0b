// keys.js — the keyboard map: a face letter turns that face clockwise,
// Shift turns it back; digits before a face pick an inner layer (3 R =
// 3R), w makes it wide (3 w R = 3Rw); M E S slices, X Y Z whole-cube
// rotations; Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) undo and redo. The same
// table is shown on the page, so what is documented is what runs.

export const KEYMAP = [
  ['U R F D L B', 'turn that face clockwise'],
  ['Shift + face', 'turn it counter-clockwise'],
  ['1–9 then a face', 'an inner layer: 3 R → 3R'],
  ['W then a face', 'wide: W R → Rw, 3 W R → 3Rw'],
  ['M E S', 'middle slice (odd cubes)'],
  ['X Y Z', 'turn the whole cube'],
  ['Esc', 'forget a typed layer or W'],
  ['Ctrl+Z', 'undo'],
  ['Ctrl+Shift+Z, Ctrl+Y', 'redo'],
  ['drag a sticker', 'turn its row or column'],
  ['drag the background', 'look around (wheel: zoom)'],
];

const FACE = new Set(['u', 'r', 'f', 'd', 'l', 'b']);
const SLICE = new Set(['m', 'e', 's']);
const ROT = new Set(['x', 'y', 'z']);

export class Keys {
  // hooks: {move(text), undo(), redo(), prefix(text), enabled()}
  constructor(hooks) {
    this.hooks = hooks;
    this.layer = '';
    this.wide = false;
    this.timer = 0;
    window.addEventListener('keydown', (e) => this.key(e));
  }

  reset() {
    this.layer = '';
    this.wide = false;
    clearTimeout(this.timer);
    this.hooks.prefix('');
  }

  showPrefix() {
    const p = `${this.layer}${this.wide ? 'w' : ''}`;
    this.hooks.prefix(p);
    clearTimeout(this.timer);
    // a half-typed prefix fades after a few seconds
    this.timer = setTimeout(() => this.reset(), 4000);
  }

  key(e) {
    const t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    if (e.altKey || e.metaKey) return;
    if (!this.hooks.enabled()) return;
    const k = e.key.toLowerCase();
    if (e.ctrlKey) {
      if (k === 'z' && !e.shiftKey) this.hooks.undo();
      else if ((k === 'z' && e.shiftKey) || k === 'y') this.hooks.redo();
      else return;
      e.preventDefault();
      return;
    }
    if (k === 'escape') { this.reset(); return; }
    if (/^[0-9]$/.test(k) && !e.shiftKey) {
      if (this.layer.length < 3 && !(this.layer === '' && k === '0')) this.layer += k;
      this.showPrefix();
      e.preventDefault();
      return;
    }
    if (k === 'w') {
      this.wide = !this.wide;
      this.showPrefix();
      e.preventDefault();
      return;
    }
    const prime = e.shiftKey ? "'" : '';
    let text = null;
    if (FACE.has(k)) text = `${this.layer}${k.toUpperCase()}${this.wide ? 'w' : ''}${prime}`;
    else if (SLICE.has(k) || ROT.has(k)) text = `${SLICE.has(k) ? k.toUpperCase() : k}${prime}`;
    if (text === null) return;
    e.preventDefault();
    this.reset();
    this.hooks.move(text);
  }
}
