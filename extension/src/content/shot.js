// The page's side of a screenshot (background/cmd-screenshot.js), op 'shot':
//   step 'prepare': the viewport and page size, and for a target its box (scrolled into view
//     first when it is not wholly visible);
//   step 'scroll': scroll the window to (x, y) for one slice of a stitched full-page capture and
//     say where it really went;
//   step 'marks': the interactive elements whose boxes meet a region (Set of Marks), each with its
//     ref (the same ref the page Markdown shows) and its box, in CSS pixels relative to the region.
// Boxes of elements in same-origin frames are moved by their frames' offsets.
import { allElements, controlKind, isRendered, styleOf } from './dom.js';
import { findTarget } from './targeting.js';
import { refFor } from './refs.js';
import { BB_MARKS_MAX } from '../shared/limits.js';

function viewport() {
  const se = document.scrollingElement || document.documentElement;
  return {
    dpr: window.devicePixelRatio || 1, vw: window.innerWidth, vh: window.innerHeight, sx: window.scrollX, sy: window.scrollY,
    pageW: Math.max(se.scrollWidth, window.innerWidth), pageH: Math.max(se.scrollHeight, window.innerHeight),
  };
}

// An element's box in the top window's viewport (CSS pixels), through same-origin frames.
function topBox(el) {
  const r = el.getBoundingClientRect();
  let x = r.left;
  let y = r.top;
  let w = el.ownerDocument.defaultView;
  while (w && w !== window.top && w.frameElement) {
    const f = w.frameElement;
    const fr = f.getBoundingClientRect();
    x += fr.left + f.clientLeft;
    y += fr.top + f.clientTop;
    w = f.ownerDocument.defaultView;
  }
  return { x, y, width: r.width, height: r.height };
}

function prepare({ target }) {
  if (target == null || target === '') return viewport();
  const { el } = findTarget(target, 'any');
  let b = topBox(el);
  if (b.width <= 0 || b.height <= 0) throw new Error('the target has no box on the screen (it is hidden or empty)');
  if (b.x < 0 || b.y < 0 || b.x + b.width > window.innerWidth || b.y + b.height > window.innerHeight) {
    el.scrollIntoView({ block: b.height > window.innerHeight ? 'start' : 'center', inline: 'nearest', behavior: 'instant' });
    b = topBox(el);
  }
  return { ...viewport(), box: b };
}

function marks({ region }) {
  const { x: rx, y: ry, width: rw, height: rh, doc } = region; // doc: region in page coordinates
  const ox = doc ? window.scrollX : 0;
  const oy = doc ? window.scrollY : 0;
  const out = [];
  let more = 0;
  for (const el of allElements(document)) {
    const st = styleOf(el);
    if (!st || !controlKind(el, st) || !isRendered(el, st)) continue;
    if (el.checkVisibility && !el.checkVisibility({ opacityProperty: false, visibilityProperty: true })) continue;
    const b = topBox(el);
    if (b.width < 2 || b.height < 2) continue;
    const x = b.x + ox - rx;
    const y = b.y + oy - ry;
    if (x + b.width <= 0 || y + b.height <= 0 || x >= rw || y >= rh) continue;
    if (out.length >= BB_MARKS_MAX) { more++; continue; }
    out.push({ ref: refFor(el), x, y, width: b.width, height: b.height });
  }
  return { marks: out, more };
}

// Two animation frames (the scrolled page painted), or 300 ms when frames do not come.
const painted = () => new Promise((resolve) => {
  const t = setTimeout(resolve, 300);
  requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(t); resolve(); }));
});

export async function shot(args) {
  switch (args.step) {
    case 'prepare': return prepare(args);
    case 'scroll': window.scrollTo({ left: args.x, top: args.y, behavior: 'instant' }); await painted(); return viewport();
    case 'marks': return marks(args);
    default: throw new Error(`unknown shot step ${args.step}`);
  }
}
