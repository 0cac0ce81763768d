// Where a trusted (debugger) click lands, for the background's trusted mode (background/trusted.js;
// `point` op in main.js): the point a user's click on the target reaches, after the same checks as
// a click (visible, reachable, not covered -- reach.js via actions.clickPointOf), plus what
// trusted.js needs to decide how to act on it.
import { findTarget } from './targeting.js';
import { noteClick, forgetClick } from './toggle.js';
import { inputType, TEXT_INPUT_TYPES, externalLink, boxRowOf, shadowOf } from './dom.js';
import { isSecret } from './secret.js';
import { clickPointOf, typedNote, notTaken, holdExternal, clickWords, leaveTooltips, focusedOrInside, aimed } from './actions.js';
import { composedContains } from './reach.js';
import { editorFor, monospaced } from './widgets.js';
import { describe } from './targeting.js';


const PURPOSE = { click: 'click', type: 'type', select_option: 'select', press_key: 'any', scroll: 'any' };

let pointed = null; // the element of the last point(): trusted typing asks what it holds then (typed)

// Trusted presses this document got, for trusted.js to check that its click arrived: a prompt of
// the browser's own over the tab swallows them, and such a click was said "Clicked" with nothing
// done. Counted by the page script, which hears them before any of the page's listeners; here only
// where it could not run (a page open before the extension could script it).
let ownPresses = 0;
// (and where the last one went: the page may move its target away as the pointer comes, a hover
// menu folding up as the pointer leaves it, and the press lands on something else)
let lastPress = null;
// (whether it went to the element aimed at is decided as it comes: the page may then take the
// element pressed away, a play button swapping its icon, and that press was no miss)
let lastPressNear = false;
addEventListener('pointerdown', (e) => {
  if (!e.isTrusted) return;
  ownPresses++;
  lastPress = e.composedPath?.()[0] || e.target;
  lastPressNear = nearAimed(lastPress);
}, true);
// Trusted presses in the same-origin frames a pointed element was in (an editor's iframe body, the
// floating iframe panel of its Styles list): a click there is not heard by this document, and was
// taken for a click the browser swallowed, then done a second time by the content script.
let framePresses = 0;
const watchedFrames = new WeakSet();
function watchFrame(doc) {
  const W = doc?.defaultView;
  if (!W || doc === document || watchedFrames.has(doc)) return;
  watchedFrames.add(doc);
  W.addEventListener('pointerdown', (e) => { if (e.isTrusted) framePresses++; }, true);
}
const pressCount = () => (globalThis.__bbPage?.presses?.() ?? ownPresses) + framePresses;
const docId = Math.random().toString(36).slice(2);
let releaseHold = () => {};

// After a trusted click: how many trusted presses this document has had (and which document it
// is); the hold on an external link's default action ends.
// `missed`: the element a press heard here went to, when it is neither in the one aimed at nor in
// what was at its point (a press in another frame is not heard here: none).
export function landed() {
  releaseHold();
  releaseHold = () => {};
  const hit = lastPress, { el } = aimed;
  lastPress = null;
  const missed = hit && hit.nodeType === 1 && el?.isConnected && !lastPressNear ? describe(hit) : null;
  return { presses: pressCount(), doc: docId, ...(missed ? { missed } : {}) };
}

// Is `hit` in the element aimed at or in what was at its point (or the host of a closed shadow root
// it is in, to which the event was retargeted)?
function nearAimed(hit) {
  const { el, at } = aimed;
  const near = (x) => !!x && x.isConnected && !!hit && (composedContains(x, hit) || (!!shadowOf(hit) && composedContains(hit, x)));
  return near(el) || near(at);
}

// After trusted typing into the element last pointed at: how what it holds differs from the text
// typed (`note`: actions.typedNote, or ''), and `refused`, the error's sentence, when it took none.
export function typed(text, clear) {
  const el = pointed?.deref() || null;
  const note = typedNote(el, String(text ?? ''), !!clear);
  // the field left empty: the sentence trusted.js answers with as an error
  const refused = el ? notTaken(note, describe(el), [...String(text ?? '')].length) : '';
  // (the field as it is now, typed into: the answer named it as it was, "empty")
  return { note, ...(refused ? { refused } : {}), ...(el?.isConnected ? { desc: describe(el) } : {}) };
}

// A field trusted typing may type into (other targets of `type` go through the content script).
function textField(el) {
  if (el.tagName === 'TEXTAREA') return !el.readOnly;
  if (el.tagName === 'INPUT') return !el.readOnly && TEXT_INPUT_TYPES.test(inputType(el));
  return !!el.isContentEditable;
}

// Does the field or rich-text editor `el` have the focus and a selection of text in it (a range, not
// a caret) that typing is to replace?
function selectionKept(el) {
  if (!focusedOrInside(el)) return false;
  if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') {
    try { return el.selectionStart != null && el.selectionStart !== el.selectionEnd; } catch { return false; }
  }
  if (!el.isContentEditable) return false;
  const sel = el.ownerDocument.getSelection();
  return !!sel && sel.rangeCount > 0 && !sel.isCollapsed && el.contains(sel.anchorNode) && el.contains(sel.focusNode);
}

// Does the field hold nothing (a text field with no value, an editor with no text and nothing
// embedded; never a code editor's key catcher)? Replacing its content then presses no key: Backspace in an empty field is a key the
// page acts on (a tag input takes it to remove its last tag).
export function isEmptyField(el) {
  // (a code editor's key catcher is always empty: the editor's text is elsewhere — EasyMDE's)
  if (el.tagName === 'TEXTAREA' && editorFor(el)?.input === el) return false;
  if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') return el.value === '';
  return !!el.isContentEditable && !el.textContent.trim() && !el.querySelector('img,video,iframe,table,hr,[contenteditable=false]');
}

export async function point(target, command = 'click', how = {}) {
  const { el } = findTarget(target, PURPOSE[command] || 'any');
  await leaveTooltips(el);
  if (command === 'click') noteClick(el); else forgetClick();
  pointed = new WeakRef(el);
  lastPress = null;
  if (command === 'type') isSecret(el); // decided before the first key, as type() does
  const p = clickPointOf(el); // throws, saying why, when a user could not click it
  // An <option> of a <select> is not one click at a point: a native select's popup is drawn by the
  // browser, and a hidden one's widget (a selectmenu) must be opened, its option clicked and its
  // new value checked. x: null -> the content script acts (actions.clickCommand -> selectOption).
  if (command === 'click' && el.tagName === 'OPTION' && el.closest('select')) return { ...p, x: null, y: null, tag: 'option', editable: false, newTabUrl: null };
  const a = el.closest?.('a[href]');
  // typed through the editor a user sees for a hidden textarea (widgets.js editorFor): said so
  const ed = command === 'type' && p.via ? editorFor(el) : null;
  const desc = ed ? `${p.desc} through ${ed.input !== el ? describe(ed.input) : 'the editor box around it'}, the editor a user sees` : p.desc;
  releaseHold();
  const plainLeft = (how.button || 'left') === 'left';
  releaseHold = command === 'click' && plainLeft ? holdExternal(el) : () => {};
  watchFrame(el.ownerDocument);
  return {
    ...p,
    words: command === 'click' ? clickWords(how) : null,
    presses: pressCount(),
    doc: docId,
    desc,
    tag: el.tagName.toLowerCase(),
    editable: textField(el),
    // (typing on in a rich-text editor that has the focus clicks nothing first: a click there
    // moves the caret and drops the format chosen for the next text, Slate's Bold)
    focused: command === 'type' && !!el.isContentEditable && focusedOrInside(el),
    // (and the text the agent selected there, with Shift and the arrows, in a field or editor that
    // has the focus: the typed text goes in its place, as a typist's does; it went to the end)
    selected: command === 'type' && selectionKept(el),
    code: command === 'type' && !!el.isContentEditable && monospaced(el),
    // (nothing to clear: Control+A and Backspace in an empty tag input deleted its last tag, Oruga's)
    empty: command === 'type' && isEmptyField(el),
    // (a box of a row of one-character boxes, a code split in boxes with no maxlength, Chakra's
    // PinInput: a character at a time, as the page moves the focus on; one insertion of "1234" was
    // taken for a paste and left "423")
    maxLength: (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') && el.maxLength >= 0 ? el.maxLength : boxRowOf(el) ? 1 : -1,
    newTabUrl: a && (a.target === '_blank' || a.target === '_new') ? a.href : null,
    externalUrl: command === 'click' && plainLeft ? externalLink(el) : null,
  };
}
