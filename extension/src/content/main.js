// Content script (isolated world), injected on demand by the service worker with
// chrome.scripting.executeScript({files: ['content.js']}). It installs one
// function, run(op, args), which the service worker calls with
// executeScript({func}). Injecting twice is harmless: the second run sees the
// first one's API and keeps it (and with it the element refs).
import { snapshot } from './snapshot.js';
import { findTarget, describe } from './targeting.js';
import { click, type, pressKey, scroll, selectOption, checkPresence } from './actions.js';
import { startObserving, waitQuiet } from './quiet.js';
import { pruneRefs, raiseFloor, refCounter } from './refs.js';

async function act(command, p) {
  startObserving();
  switch (command) {
    case 'click': {
      const { el } = findTarget(p.target, 'click');
      return click(el);
    }
    case 'type': {
      const { el } = findTarget(p.target, 'type');
      return type(el, p.text, { clear: !!p.clear, submit: !!p.submit });
    }
    case 'press_key': {
      const el = p.target != null && p.target !== '' ? findTarget(p.target, 'any').el : (deepActive() || document.body);
      return pressKey(el, p.key);
    }
    case 'scroll': {
      const el = p.target != null && p.target !== '' ? findTarget(p.target, 'any').el : null;
      return scroll(el, p.direction, p.amount);
    }
    case 'select_option': {
      const { el } = findTarget(p.target, 'select');
      return selectOption(el, p.value);
    }
    default:
      throw new Error(`unknown page action ${command}`);
  }
}

function deepActive() {
  let a = document.activeElement;
  for (;;) {
    if (a && a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; }
    if (a && (a.tagName === 'IFRAME' || a.tagName === 'FRAME')) {
      try { const d = a.contentDocument; if (d && d.activeElement && d.activeElement !== d.body) { a = d.activeElement; continue; } } catch { /* ignore */ }
    }
    break;
  }
  return a && a !== document.documentElement ? a : null;
}

async function run(op, args = {}, refFloor = 0) {
  raiseFloor(refFloor);
  const r = await run1(op, args);
  r.refCounter = refCounter();
  return r;
}

async function run1(op, args) {
  try {
    switch (op) {
      case 'ping': return { ok: true, url: location.href, readyState: document.readyState };
      case 'snapshot': pruneRefs(); return { ok: true, ...snapshot(args) };
      case 'act': return { ok: true, ...(await act(args.command, args.params || {})) };
      case 'quiet': return { ok: true, ...(await waitQuiet(args.quietMs, args.capMs)) };
      case 'history': history.go(args.delta); return { ok: true };
      case 'check': return { ok: true, present: checkPresence(args) };
      case 'describe': return { ok: true, text: describe(findTarget(args.target).el) };
      default: return { ok: false, error: `unknown op ${op}` };
    }
  } catch (e) {
    return { ok: false, error: e && e.message ? e.message : String(e), code: e && e.code };
  }
}

if (!globalThis.__browserBridge) {
  Object.defineProperty(globalThis, '__browserBridge', { value: Object.freeze({ run, version: 1 }), configurable: false });
}
