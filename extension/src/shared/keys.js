// The key a printable character is typed with on a US keyboard: { keyCode, code, shift }, the
// values a browser gives a user's keydown for it. A page that reads keyCode (an editor's key
// bindings, older widgets) must not take "(" for ArrowDown (40), "." for Delete (46) or "&" for
// ArrowUp (38), as a keyCode made from the character's own code point did: Monaco moved its caret
// down on "(" and dropped the character. Null for a character no US key types (é, 中: keyCode 0).
const PUNCT = {
  '`': [192, 'Backquote'], '~': [192, 'Backquote', 1], '-': [189, 'Minus'], _: [189, 'Minus', 1], '=': [187, 'Equal'], '+': [187, 'Equal', 1],
  '[': [219, 'BracketLeft'], '{': [219, 'BracketLeft', 1], ']': [221, 'BracketRight'], '}': [221, 'BracketRight', 1],
  '\\': [220, 'Backslash'], '|': [220, 'Backslash', 1], ';': [186, 'Semicolon'], ':': [186, 'Semicolon', 1],
  "'": [222, 'Quote'], '"': [222, 'Quote', 1], ',': [188, 'Comma'], '<': [188, 'Comma', 1], '.': [190, 'Period'], '>': [190, 'Period', 1],
  '/': [191, 'Slash'], '?': [191, 'Slash', 1], ' ': [32, 'Space'],
  '!': [49, 'Digit1', 1], '@': [50, 'Digit2', 1], '#': [51, 'Digit3', 1], $: [52, 'Digit4', 1], '%': [53, 'Digit5', 1],
  '^': [54, 'Digit6', 1], '&': [55, 'Digit7', 1], '*': [56, 'Digit8', 1], '(': [57, 'Digit9', 1], ')': [48, 'Digit0', 1],
};

export function usKey(ch) {
  if (/^[a-z]$/.test(ch)) return { keyCode: ch.toUpperCase().charCodeAt(0), code: 'Key' + ch.toUpperCase(), shift: false };
  if (/^[A-Z]$/.test(ch)) return { keyCode: ch.charCodeAt(0), code: 'Key' + ch, shift: true };
  if (/^[0-9]$/.test(ch)) return { keyCode: ch.charCodeAt(0), code: 'Digit' + ch, shift: false };
  const p = PUNCT[ch];
  return p ? { keyCode: p[0], code: p[1], shift: !!p[2] } : null;
}
