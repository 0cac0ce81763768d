// Where a trusted (debugger) click lands: the target's center in the top frame's viewport, after
// scrolling it into view, and whether a user's click there would reach it (not an overlay). Owned
// by the background's trusted mode (background/trusted.js); `point` op in main.js.
import { findTarget, describe } from './targeting.js';
import { isDisabled, inputType } from './dom.js';
import { isSecret } from './secret.js';

const TEXT_INPUTS = /^(text|search|email|url|tel|password|number|)$/;

const PURPOSE = { click: 'click', type: 'type', select_option: 'select', press_key: 'any', scroll: 'any' };

// The element at a point, through open shadow roots.
function deepAt(doc, x, y) {
  let el = doc.elementFromPoint(x, y);
  while (el && el.shadowRoot) {
    const inner = el.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === el) break;
    el = inner;
  }
  return el;
}

// Is b inside a (across shadow roots)?
function containsDeep(a, b) {
  for (let n = b; n; n = n.parentNode || n.host) if (n === a) return true;
  return false;
}

// A field trusted typing may type into (other targets of `type` go through the content script).
function textField(el) {
  if (el.tagName === 'TEXTAREA') return !el.readOnly;
  if (el.tagName === 'INPUT') return !el.readOnly && TEXT_INPUTS.test(inputType(el));
  return !!el.isContentEditable;
}

export function point(target, command) {
  const { el } = findTarget(target, PURPOSE[command] || 'any');
  if (isDisabled(el)) throw new Error(`${describe(el)} is disabled`);
  if (command === 'type') isSecret(el); // decided before the first key, as type() does
  const r0 = el.getBoundingClientRect();
  const vw = el.ownerDocument.defaultView;
  if (r0.top < 0 || r0.left < 0 || r0.bottom > vw.innerHeight || r0.right > vw.innerWidth) {
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
  }
  const r = el.getBoundingClientRect();
  if (r.width < 1 || r.height < 1) return { desc: describe(el), inFrame: false, x: null, y: null, why: 'it has no size' };
  const cx = r.left + r.width / 2;
  const cy = r.top + r.height / 2;
  const hit = deepAt(el.ownerDocument, cx, cy);
  const label = hit?.closest?.('label');
  const reaches = !!hit && (containsDeep(el, hit) || containsDeep(hit, el) || (label && label.control === el));
  // Offsets of the same-origin frames the element is in, up to the top frame.
  let x = cx, y = cy, w = vw, inFrame = false;
  try {
    while (w !== w.top) {
      const fe = w.frameElement;
      if (!fe) { inFrame = true; break; } // a cross-origin parent: not reachable from here
      const fr = fe.getBoundingClientRect();
      x += fr.left + fe.clientLeft; y += fr.top + fe.clientTop;
      w = w.parent;
    }
  } catch { inFrame = true; }
  return {
    desc: describe(el), x, y, inFrame,
    ...(reaches ? {} : { why: `a click at its center would land on ${hit ? describe(hit) : 'nothing'}` }),
    tag: el.tagName.toLowerCase(),
    editable: textField(el),
    newTabUrl: (() => { const a = el.closest?.('a[href]'); return a && (a.target === '_blank' || a.target === '_new') ? a.href : null; })(),
  };
}
