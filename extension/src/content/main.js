// Content script (isolated world), injected on demand by the service worker with
// chrome.scripting.executeScript({files: ['content.js']}). It installs one
// function, run(op, args), which the service worker calls with
// executeScript({func}). Injecting twice is harmless: the second run sees the
// first one's API and keeps it (and with it the element refs).
import { snapshot } from './snapshot.js';
import { findTarget, describe } from './targeting.js';
import { clickCommand, type, pressKey, pressKeyOn, scroll, grownSince, checkPresence, leaveTooltips, scrolledIntoView, selectFocusedField, maskTemplate, typedPutBack, typedPending } from './actions.js';
import { startObserving, waitQuiet } from './quiet.js';
import { pruneRefs, raiseFloor, refCounter, heldRefs } from './refs.js';
import { rememberPasswordFields } from './secret.js';
import { point, typed, landed, isEmptyField } from './point.js';
import { shot } from './shot.js';
import { hover, drag } from './pointer.js';
import { hoverOff } from './hovercss.js';
import { NO_FOCUS_NOTE } from '../shared/words.js';
import { fillForm, setFiles, chooseOption, fileInputNamed } from './forms.js';
import { shadowOf } from './dom.js';
import { noteClick, forgetClick, toggledSince } from './toggle.js';

const PURPOSE = { click: 'click', type: 'type', select_option: 'select', press_key: 'any', scroll: 'any' };

async function act(command, p) {
  startObserving();
  forgetClick();
  let el = null;
  let r;
  switch (command) {
    case 'click':
      el = findTarget(p.target, 'click').el;
      await leaveTooltips(el);
      noteClick(el);
      r = await clickCommand(el, { button: p.button, double_click: !!p.double_click, modifiers: Array.isArray(p.modifiers) ? p.modifiers : [] });
      break;
    case 'type':
      el = findTarget(p.target, 'type').el;
      await leaveTooltips(el);
      r = await type(el, p.text, { clear: !!p.clear, submit: !!p.submit });
      if (typedPending()) r = { ...r, typedCheck: true }; // looked at again once settled (cmd-input.js)
      break;
    case 'press_key':
      if (p.target != null && p.target !== '') { el = findTarget(p.target, 'any').el; r = await pressKeyOn(el, p.key); break; }
      {
        el = deepActive() || document.body;
        // the focus is in a frame of another site, which this document cannot reach: the frame that
        // has it presses the key (background/frames.js); it was pressed on the <iframe>, and "done"
        if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') throw Object.assign(new Error('The keyboard focus is inside a frame of another site'), { code: 'focus_in_frame' });
      }
      r = await pressKey(el, p.key);
      // (no control had the focus: fill_form leaves its last field as a user's Tab does, and an
      // Enter then submitted nothing while the answer said "Pressed Enter")
      if (el === document.body || el === document.documentElement) r = { ...r, message: `${r.message.replace(/ on \S.*$/, '')}${NO_FOCUS_NOTE}` };
      break;
    case 'scroll':
      el = p.target != null && p.target !== '' ? findTarget(p.target, 'any').el : null;
      r = await scroll(el, p.direction, p.amount);
      // (the page moved under the pointer: what browser_hover hovered is no longer under it)
      hoverOff(el?.ownerDocument || document);
      break;
    case 'select_option':
      el = findTarget(p.target, 'select').el;
      await scrolledIntoView(el);
      r = await chooseOption(el, p.value, p.values);
      break;
    case 'hover':
      el = findTarget(p.target, 'any').el;
      await leaveTooltips(el);
      r = await hover(el);
      break;
    case 'drag':
      el = findTarget(p.source, 'any').el;
      // (scrolled to first, its scroll event handled before the press: @hello-pangea/dnd cancels a
      // drag a scroll comes after, and one below the fold "did not take the drag")
      await scrolledIntoView(el);
      r = await drag(el, findTarget(p.target, 'any').el);
      break;
    case 'upload_file':
      // (a file input the Markdown shows by its name, kept transparent by a drop zone, is taken by
      // that name, as by its ref: "not visible" for the name the answer showed)
      try { el = findTarget(p.target, 'any').el; } catch (e) { if (e.code !== 'not_visible' || !(el = fileInputNamed(p.target))) throw e; }
      r = await setFiles(el, p.files);
      break;
    case 'fill_form':
      r = await fillForm(p.fields, { offset: p.offset, total: p.total, before: p.before });
      break;
    default:
      throw new Error(`unknown page action ${command}`);
  }
  // An element inside an iframe: say whose frame it is (its origin, which the page cannot fake).
  const doc = el?.ownerDocument;
  if (doc && (doc !== document || window !== window.top)) {
    let origin = 'null';
    try { origin = doc.defaultView?.location.origin || 'null'; } catch { /* ignore */ }
    r.frameOrigin = origin;
    r.message += ` (in an iframe of ${origin})`;
  }
  return r;
}

// Where a target would resolve, without acting: for the service worker to tell the agent that a
// description matches in a cross-origin frame and which ref to use there.
function locate(target, command) {
  const { el } = findTarget(target, PURPOSE[command] || 'any');
  return { desc: describe(el), origin: location.origin };
}

function deepActive() {
  let a = document.activeElement;
  for (;;) {
    if (a && shadowOf(a) && shadowOf(a).activeElement) { a = shadowOf(a).activeElement; continue; }
    if (a && (a.tagName === 'IFRAME' || a.tagName === 'FRAME')) {
      try { const d = a.contentDocument; if (d && d.activeElement && d.activeElement !== d.body) { a = d.activeElement; continue; } } catch { /* ignore */ }
    }
    break;
  }
  return a && a !== document.documentElement ? a : null;
}

// Let the page's own tasks that are already queued run (a model a binding updates in
// setTimeout(0), Vue's TodoMVC): a timer of the same delay set now fires after them, in the page's
// event loop, which the isolated world shares. Trusted typing (background/trusted.js) calls it
// between the inserted text and Enter: input events the debugger sends back to back are handled
// before the page's timers, which a typist's pause between keys would have let run.
const yieldToPage = () => new Promise((r) => setTimeout(() => setTimeout(r, 0), 0));

// The page's next frame (at most 100 ms: a hidden tab draws none).
const nextFrame = () => new Promise((r) => { requestAnimationFrame(() => r()); setTimeout(r, 100); });

async function run(op, args = {}, refFloor = 0) {
  raiseFloor(refFloor);
  rememberPasswordFields(document);
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
      case 'locate': return { ok: true, ...locate(args.target, args.command) };
      case 'holds': return { ok: true, refs: heldRefs(args.refs) }; // fill_form across frames (frames.js)
      case 'typedKept': { const back = typedPutBack(); return { ok: true, ...(back !== null ? { back } : {}) }; } // a type's field, once settled (cmd-input.js)
      case 'focus': { const a = deepActive(); return { ok: true, on: a && a !== document.body ? describe(a) : null }; } // trusted keys (trusted.js)
      case 'template': { const a = deepActive(); return { ok: true, template: maskTemplate(a), empty: !!a && isEmptyField(a) }; } // trusted typing (trusted.js)
      case 'describe': return { ok: true, text: describe(findTarget(args.target).el) };
      case 'point': return { ok: true, ...(await point(args.target, args.command, args.how || {})) }; // trusted mode (point.js)
      case 'shot': return { ok: true, ...(await shot(args)) }; // screenshots (shot.js)
      case 'landed': return { ok: true, ...landed() }; // trusted mode: after a click (point.js)
      case 'yield': await yieldToPage(); return { ok: true }; // trusted mode: between typed text and Enter
      case 'selectField': return { ok: true, selected: selectFocusedField(deepActive()) }; // trusted mode: clear (actions.js)
      case 'typed': if (args.yield) await yieldToPage(); return { ok: true, ...typed(args.text, args.clear) }; // trusted mode: after the text
      case 'grown': return { ok: true, grown: grownSince() }; // after a scroll to the bottom (cmd-input.js)
      // a key with no target while the focus is in a cross-origin frame: which frame has it (frames.js)
      case 'focusState': { const a = deepActive(); return { ok: true, has: document.hasFocus(), active: !!a && a !== document.body && a.tagName !== 'IFRAME' && a.tagName !== 'FRAME' }; }
      case 'toggled': return { ok: true, toggled: toggledSince() }; // after a click, once settled (toggle.js)
      // browser_resize: the size after the page's next frame, whose rendering steps dispatch the
      // resize event before frame callbacks run (read at once, the new size came before the event,
      // and the answer missed what the page's resize handler then wrote)
      case 'viewport': await nextFrame(); return { ok: true, width: window.innerWidth, height: window.innerHeight };
      default: return { ok: false, error: `unknown op ${op}` };
    }
  } catch (e) {
    return { ok: false, error: e && e.message ? e.message : String(e), code: e && e.code, ...(e?.failedTarget ? { failedTarget: e.failedTarget } : {}) };
  }
}

if (!globalThis.__browserBridge) {
  Object.defineProperty(globalThis, '__browserBridge', { value: Object.freeze({ run, version: 1 }), configurable: false });
}
