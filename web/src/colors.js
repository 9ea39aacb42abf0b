// colors.js — the colour scheme (docs/conventions.md's default: U white, R red,
// F green, D yellow, L orange, B blue). Colours are only for display: the
// state is the face letters. The tests read the same table to know what a
// sticker must look like.

export const SCHEME = {
  U: '#ffffff',
  R: '#d0021b',
  F: '#1fa33a',
  D: '#ffd500',
  L: '#ff7a00',
  B: '#1660d8',
};

export const FACE_NAMES = {
  U: 'up (white)', R: 'right (red)', F: 'front (green)',
  D: 'down (yellow)', L: 'left (orange)', B: 'back (blue)',
};
