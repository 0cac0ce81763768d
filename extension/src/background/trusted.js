// Trusted input (opt-in): once the user granted the optional `debugger` permission (the options
// page asks; the managed headless browser has it in its manifest), clicks, typing, keys and hover go
// through the Chrome DevTools Protocol, as Playwright's and chrome-devtools-mcp's do: the page
// gets events with isTrusted true, a real user activation and the browser's own focus handling.
// While attached, Chrome shows its "Browser Bridge started debugging this browser" bar.
// Also, per attached tab: focus emulation (the page behaves as focused, headless or not), and
// JavaScript dialogs that open for real (Page.javascriptDialogOpening) answered by the tab's
// policy (dialogs.js). Anything this cannot do as a user would (a target in a cross-origin frame,
// a select, a checkbox typed into) returns null and the content script acts as without it.
import { callContent } from './content-bridge.js';
import { dialogPolicy, recordDialog, lastBeforeunload } from './dialogs.js';
import { usKey } from '../shared/keys.js';
import { NO_FOCUS_NOTE } from '../shared/words.js';

const attached = new Map(); // tabId -> Promise<boolean>
const RICH_CHARS_MAX = 300; // a longer text goes into a rich-text editor in one insertion
const RULE_PIECES = /[^\s*_`~)\]>]*[\s*_`~)\]>]|[^\s*_`~)\]>]+$/g; // pieces ending where input rules act

export async function trustedEnabled() {
  if (!chrome.debugger) return false;
  try { return await chrome.permissions.contains({ permissions: ['debugger'] }); } catch { return false; }
}

const cdp = (tabId, method, params = {}) => chrome.debugger.sendCommand({ tabId }, method, params);

// Attach the debugger to the tab once (it stays attached until the tab closes or the user
// cancels it from the bar); false when it cannot be.
export function attach(tabId) {
  listen();
  if (attached.has(tabId)) return attached.get(tabId);
  const p = (async () => {
    try {
      await chrome.debugger.attach({ tabId }, '1.3');
    } catch (e) {
      if (!/already attached/i.test(e?.message || '')) return false;
    }
    await cdp(tabId, 'Page.enable').catch(() => {});
    await cdp(tabId, 'Emulation.setFocusEmulationEnabled', { enabled: true }).catch(() => {});
    // The browser's record of the tab's requests, for the scripts an action makes it fetch (no
    // response bodies kept for us: nothing here reads them).
    await cdp(tabId, 'Network.enable', { maxTotalBufferSize: 65536, maxResourceBufferSize: 4096 }).catch(() => {});
    return true;
  })();
  attached.set(tabId, p);
  p.then((ok) => { if (!ok && attached.get(tabId) === p) attached.delete(tabId); });
  return p;
}

// A dialog opened for real (one the page script did not answer): answer it by the policy.
function onDialog(tabId, d) {
  const kind = ['alert', 'confirm', 'prompt', 'beforeunload'].includes(d.type) ? d.type : 'alert';
  const pol = dialogPolicy(tabId);
  let accept;
  let by = pol ? 'agent' : 'default';
  const before = kind === 'beforeunload' ? lastBeforeunload(tabId) : null;
  if (kind === 'alert') accept = true;
  else if (before) { accept = before.accepted; by = before.by; } // the page script decided already
  else if (kind === 'beforeunload') accept = pol ? pol.accept : true;
  else accept = pol ? pol.accept : false;
  const params = { accept };
  if (kind === 'prompt' && accept) params.promptText = typeof pol?.promptText === 'string' ? pol.promptText : String(d.defaultPrompt || '');
  cdp(tabId, 'Page.handleJavaScriptDialog', params).catch(() => {});
  if (!before) {
    recordDialog(tabId, {
      kind, message: String(d.message || '').slice(0, 2000), accepted: accept, by, at: Date.now(), url: String(d.url || '').slice(0, 2000),
      ...(kind === 'prompt' ? { defaultValue: String(d.defaultPrompt || '').slice(0, 2000) } : {}),
    });
  }
}

// A file chooser the agent's trusted click or key opened (a Dropzone's area, a button that clicks a
// hidden file input): not shown while the action runs (an open chooser is a window only a person
// can close), and reported like a dialog, with what to use instead.
const choosers = new Set(); // tabs whose file chooser is intercepted for the action under way
function onFileChooser(tabId, p) {
  recordDialog(tabId, { kind: 'filechooser', message: p.mode === 'selectMultiple' ? 'multiple files' : '', accepted: false, by: 'default', at: Date.now(), url: '' });
}

// Intercept the tab's file chooser for an action (on) or stop (off: the user's own clicks in the
// tab open it again). Never fails.
async function interceptChooser(tabId, on) {
  if (on === choosers.has(tabId)) return;
  if (on) choosers.add(tabId); else choosers.delete(tabId);
  await cdp(tabId, 'Page.setInterceptFileChooserDialog', { enabled: on }).catch(() => {});
}

// The action on the tab is over (cmd-input.js): a file chooser it opened has been reported.
export function actionDone(tabId) {
  if (choosers.has(tabId)) interceptChooser(tabId, false);
}

let listening = false;
function listen() {
  if (listening || !chrome.debugger) return;
  listening = true;
  chrome.debugger.onEvent.addListener((src, method, params) => {
    if (src.tabId == null) return;
    if (method === 'Page.javascriptDialogOpening') onDialog(src.tabId, params || {});
    else if (method === 'Page.fileChooserOpened') onFileChooser(src.tabId, params || {});
    else if (method.startsWith('Network.')) onNetwork(src.tabId, method, params || {});
    else if (method === 'Page.downloadWillBegin' || method === 'Page.downloadProgress') onDownload(src.tabId, method, params || {});
  });
  chrome.debugger.onDetach.addListener((src) => { if (src.tabId != null) { attached.delete(src.tabId); forgetScripts(src.tabId); } });
}

// ---- scripts an action makes the page fetch ----------------------------------
// A module the page imports with import() (a lazy route or component, as rollup, esbuild and
// Vite's dev server ship them) has no element and no preload for the page scripts to see: on an
// attached tab the browser's own record of the request (type Script) says when it is fetched.
const SCRIPTS_MAX = 200; // requests followed per tab
const scripts = new Map(); // tabId -> { live: Map(requestId -> start), waiters: [] }

function scriptsOf(tabId) {
  let s = scripts.get(tabId);
  if (!s) scripts.set(tabId, s = { live: new Map(), waiters: [] });
  return s;
}

function forgetScripts(tabId) {
  const s = scripts.get(tabId);
  scripts.delete(tabId);
  s?.waiters.forEach((f) => f());
}

// ---- downloads -----------------------------------------------------------------
// What the tab's page downloaded: with trusted input the debugger hears each download the page
// starts (its name and address) and how it goes, which nothing else tells apart by tab without
// another permission. A click on "Export CSV" said only "Clicked".
const DOWNLOADS_MAX = 20; // kept per tab
const downloads = new Map(); // tabId -> [{ guid, url, name, state, bytes, total, at, waiters }]

function onDownload(tabId, method, p) {
  if (typeof p.guid !== 'string') return;
  let list = downloads.get(tabId);
  if (method === 'Page.downloadWillBegin') {
    if (!list) downloads.set(tabId, list = []);
    list.push({ guid: p.guid, url: String(p.url || '').slice(0, 2000), name: String(p.suggestedFilename || '').slice(0, 300), state: 'inProgress', bytes: 0, total: 0, at: Date.now(), waiters: [] });
    if (list.length > DOWNLOADS_MAX) list.shift();
    return;
  }
  const d = list?.find((x) => x.guid === p.guid);
  if (!d) return;
  d.bytes = Number(p.receivedBytes) || d.bytes;
  d.total = Number(p.totalBytes) || d.total;
  if (p.state === 'completed' || p.state === 'canceled') {
    d.state = p.state;
    const w = d.waiters; d.waiters = []; w.forEach((f) => f());
  }
}

// The downloads the tab's page began at or after `since`, each waited for (at most `ms` in all)
// until it completed or was cancelled: [{ name, url, state, bytes, total }].
export async function downloadsSince(tabId, since, ms) {
  const list = (downloads.get(tabId) || []).filter((d) => d.at >= since);
  const end = Date.now() + ms;
  for (const d of list) {
    if (d.state !== 'inProgress' || Date.now() >= end) continue;
    await new Promise((r) => { const t = setTimeout(r, end - Date.now()); d.waiters.push(() => { clearTimeout(t); r(); }); });
  }
  return list.map(({ name, url, state, bytes, total }) => ({ name, url, state, bytes, total }));
}

// A request of the tab began or ended: only scripts are followed, and only their id and start.
function onNetwork(tabId, method, p) {
  if (method === 'Network.requestWillBeSent') {
    if (p.type !== 'Script' || typeof p.requestId !== 'string') return;
    const s = scriptsOf(tabId);
    if (s.live.size < SCRIPTS_MAX) s.live.set(p.requestId, Date.now());
  } else if (method === 'Network.loadingFinished' || method === 'Network.loadingFailed') {
    const s = scripts.get(tabId);
    if (s?.live.delete(p.requestId)) { const w = s.waiters; s.waiters = []; w.forEach((f) => f()); }
  }
}

// Wait (at most `ms`) until no script the tab began to fetch at or after `since` is still
// arriving; true when one was (its effects are yet to be read), false at once when none was.
export async function scriptsArrived(tabId, since, ms) {
  const s = scripts.get(tabId);
  const pending = () => { const t = Date.now(); let n = 0; for (const [id, at] of s.live) { if (t - at > 30_000) s.live.delete(id); else if (at >= since) n++; } return n; };
  if (!s || !pending()) return false;
  const end = Date.now() + ms;
  while (scripts.get(tabId) === s && pending() && Date.now() < end) {
    await new Promise((r) => { const t = setTimeout(r, end - Date.now()); s.waiters.push(() => { clearTimeout(t); r(); }); });
  }
  return true;
}

// At top level (main.js); the debugger API appears only once the permission is granted, which may
// be while the service worker runs (options page).
export function installTrustedListeners() {
  listen();
  chrome.permissions?.onAdded?.addListener(() => listen());
  chrome.permissions?.onRemoved?.addListener(() => attached.clear());
  chrome.tabs.onRemoved.addListener((id) => { attached.delete(id); forgetScripts(id); downloads.delete(id); });
}

// ---- input ------------------------------------------------------------------
const NAMED = {
  Enter: [13, 'Enter', '\r'], Tab: [9, 'Tab'], Escape: [27, 'Escape'], Esc: [27, 'Escape'], Backspace: [8, 'Backspace'],
  Delete: [46, 'Delete'], ArrowUp: [38, 'ArrowUp'], ArrowDown: [40, 'ArrowDown'], ArrowLeft: [37, 'ArrowLeft'],
  ArrowRight: [39, 'ArrowRight'], Home: [36, 'Home'], End: [35, 'End'], PageUp: [33, 'PageUp'], PageDown: [34, 'PageDown'],
  ' ': [32, 'Space', ' '], Space: [32, 'Space', ' '],
};
for (let i = 1; i <= 12; i++) NAMED['F' + i] = [111 + i, 'F' + i];

// CDP key event fields for one key without modifiers; null for what is not handled here.
function keyFields(key) {
  const n = NAMED[key];
  if (n) return { key: key === 'Esc' ? 'Escape' : key === 'Space' ? ' ' : key, code: n[1], windowsVirtualKeyCode: n[0], ...(n[2] ? { text: n[2], unmodifiedText: n[2] } : {}) };
  if ([...key].length !== 1) return null;
  const k = usKey(key); // the US keyboard's key for it, as a user's keydown says (shared/keys.js)
  return { key, code: k ? k.code : '', windowsVirtualKeyCode: k ? k.keyCode : 0, text: key, unmodifiedText: key };
}

async function pressKeyCdp(tabId, f, extra = {}) {
  await cdp(tabId, 'Input.dispatchKeyEvent', { type: f.text ? 'keyDown' : 'rawKeyDown', ...f, ...extra });
  await cdp(tabId, 'Input.dispatchKeyEvent', { type: 'keyUp', key: f.key, code: f.code, windowsVirtualKeyCode: f.windowsVirtualKeyCode, ...(extra.modifiers ? { modifiers: extra.modifiers } : {}) });
}

// The debugger left the tab while a command was under way: the tab closed, the browser replaced
// what it debugs (seen as a mailto: link's click is handled, reason target_closed, about 1 first
// click in 2 in a fresh tab), or the user cancelled debugging from the bar. Chrome's own message
// ("Detached while handling command.") says nothing an agent can use.
const detached = (e) => /detached|not attached|target closed|no tab with given id/i.test(e?.message || '');

// browser_click's button and modifiers in CDP's terms: the button, its `buttons` bit; the keys' bits.
const CDP_BUTTON = { left: ['left', 1], right: ['right', 2], middle: ['middle', 4] };
const MOD_BITS = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };

// A click (`how`: browser_click's button, double_click, modifiers; a double-click's second press
// counts 2, and the browser fires dblclick), whose error says (`pressed`) whether a press was sent.
async function clickAt(tabId, x, y, how = {}) {
  const at = { x: Math.round(x), y: Math.round(y) };
  const [button, buttons] = CDP_BUTTON[how.button] || CDP_BUTTON.left;
  const modifiers = (how.modifiers || []).reduce((n, m) => n | (MOD_BITS[m] || 0), 0);
  await cdp(tabId, 'Input.dispatchMouseEvent', { type: 'mouseMoved', ...at, button: 'none', modifiers });
  for (let n = 1; n <= (how.double_click ? 2 : 1); n++) {
    await cdp(tabId, 'Input.dispatchMouseEvent', { type: 'mousePressed', ...at, button, buttons, clickCount: n, modifiers });
    try {
      await cdp(tabId, 'Input.dispatchMouseEvent', { type: 'mouseReleased', ...at, button, buttons: 0, clickCount: n, modifiers });
    } catch (e) { e.pressed = true; throw e; }
  }
}

const HANDLED = new Set(['click', 'type', 'press_key', 'hover']);
// may be in another frame: the usual path says; or shown only under the pointer: the usual path
// hovers what holds it first
const POINT_FALLBACK = new Set(['stale_ref', 'target_not_found', 'hover_only']);

// Act with trusted input. Returns the action's result ({ok, message, ...} like the content
// script's), or null when this action goes through the content script instead ({lost: true}: the
// browser did not pass the trusted click on to the page, and it should be done so). The debugger
// leaving the tab midway is said as such, with what may have been done.
export async function trustedAct(tabId, command, params) {
  try {
    return await actTrusted(tabId, command, params);
  } catch (e) {
    if (!detached(e)) throw e;
    const doing = { type: 'typing', press_key: 'pressing the key', hover: 'moving the pointer' }[command] || 'acting';
    return { ok: false, error: `The browser stopped the debugger's input to the tab while ${doing} (${e.message.replace(/\.$/, '')}); part of it may have been done, so get the page before acting again` };
  }
}

async function actTrusted(tabId, command, params) {
  if (!HANDLED.has(command)) return null;
  const hasTarget = params.target != null && params.target !== '';
  const keyByContent = command === 'press_key' && (hasTarget || /.\+/.test(String(params.key || '')));
  if (!(await trustedEnabled())) return null;
  // Keys on a target are pressed by the content script, which focuses it first; attached, the tab
  // has focus emulation, so the page sees it focused (:focus, which a tree checks on ArrowRight).
  if (!(await attach(tabId)) || keyByContent) return null;

  if (command === 'press_key') {
    const f = keyFields(String(params.key || ''));
    if (!f) return null;
    // where the keys go: the focused control, or the page itself when none has the focus (an
    // Enter after fill_form, which leaves its last field as a user's Tab does, submitted nothing)
    const on = (await callContent(tabId, 'focus').catch(() => null))?.on;
    await interceptChooser(tabId, true);
    await pressKeyCdp(tabId, f);
    const where = on === undefined ? '' : on ? ` on ${on}` : NO_FOCUS_NOTE;
    return { ok: true, message: `Pressed ${params.key} (trusted input)${where}` };
  }

  let pt;
  const how = command === 'click' ? { button: params.button || 'left', double_click: !!params.double_click, modifiers: Array.isArray(params.modifiers) ? params.modifiers : [] } : {};
  try { pt = await callContent(tabId, 'point', { target: params.target, command, how }); } catch { return null; }
  if (!pt.ok) return POINT_FALLBACK.has(pt.code) ? null : pt;
  // the content script acts instead; the hold point() put on an external link's default action ends
  const release = () => callContent(tabId, 'landed').then(() => null, () => null);
  if (pt.inFrame || pt.x == null) return release();
  if (command === 'hover') { // the real pointer: the page's events, and CSS :hover
    await cdp(tabId, 'Input.dispatchMouseEvent', { type: 'mouseMoved', x: Math.round(pt.x), y: Math.round(pt.y), button: 'none' });
    return { ok: true, message: `Hovered over ${pt.desc}${pt.via ? ` (through ${pt.via}, which is what a user sees of it)` : ''}`, trusted: true };
  }
  if (command === 'type' && !pt.editable) return release();
  await interceptChooser(tabId, true);
  if (command === 'type' && (pt.focused || (pt.selected && !params.clear))) return typeTrusted(tabId, pt, params);
  try {
    await clickAt(tabId, pt.x, pt.y, how);
  } catch (e) {
    if (!detached(e)) throw e;
    // Before the press nothing reached the page: the content script acts instead. After it, the
    // release was sent and answered no more because what the click did ended the debugging.
    if (!e.pressed) return release();
    if (command !== 'click') return { ok: false, error: `Clicked ${pt.desc} to type into it, and the browser then stopped the debugger's input to the tab (${e.message.replace(/\.$/, '')}); nothing was typed` };
  }
  // The press must have reached the page: a prompt of the browser's own over the tab (the one a
  // tel: link raised in the managed browser) swallowed every later click, each said "Clicked",
  // and typing after it went nowhere. Then the content script acts. A click that replaced the
  // document cannot be checked: it did.
  const seen = await callContent(tabId, 'landed').catch(() => null);
  if (seen?.ok && seen.doc === pt.doc && seen.presses <= pt.presses) return { lost: true };
  // Heard, but on something else: the page moved the target away as the pointer came (a hover menu
  // folding up as the pointer left it, the button below it moving up); said, not done again (what
  // it landed on may have acted).
  if (seen?.ok && seen.doc === pt.doc && seen.missed && command === 'click') {
    return { ok: false, error: `${pt.desc} moved as the pointer came to it, and the click landed on ${seen.missed} instead; get the page and click it again` };
  }
  if (command === 'click') {
    const w = pt.words || { verb: 'Clicked', held: '' };
    // a new tab the browser opens itself (middle button, Control held) is not opened again
    const plain = how.button === 'left' && !how.modifiers.length;
    return { ok: true, message: `${w.verb} ${pt.desc}${w.held}`, newTabUrl: plain ? pt.newTabUrl : null, externalUrl: pt.externalUrl, trusted: true };
  }

  return typeTrusted(tabId, pt, params);
}

// Trusted typing once the caret is in the field (the click put it there, or a rich-text editor
// had the focus already): replace its content, or go to its end unless the agent selected text
// there (pt.selected: the text typed replaces it), then insert.
async function typeTrusted(tabId, pt, params) {
  const text = String(params.text ?? '');
  // (a field showing an input mask's template, its caret on the first blank: content/actions.js
  // maskTemplate; typed a character a key, as a typist fills the blanks)
  const look = () => callContent(tabId, 'template').catch(() => null);
  const template = async () => pt.tag === 'input' && !!(await look())?.template;
  const first = pt.tag === 'input' || pt.empty ? await look() : null;
  let masked = pt.tag === 'input' && !!first?.template;
  // (a field whose page cancelled Control+A gets its text selected by the content script; one
  // empty before the click and after it gets no keys)
  if (params.clear && !(pt.empty && first?.empty)) {
    await pressKeyCdp(tabId, { key: 'a', code: 'KeyA', windowsVirtualKeyCode: 65 }, { modifiers: 2, commands: ['selectAll'] });
    await callContent(tabId, 'selectField').catch(() => null);
    await pressKeyCdp(tabId, keyFields('Backspace'));
    masked = await template();
  } else if (!masked && !pt.selected) {
    await pressKeyCdp(tabId, keyFields('End'), { modifiers: 2, commands: ['moveToEndOfDocument'] });
  }
  // A field with a maxlength the text overflows gets it a character at a time, as keys: its page
  // may move the focus on as it fills (a code split in boxes), and the rest goes where it went.
  // A line break typed into a one-line field is the Enter key, as for a user (react-select takes
  // the option it is on): insertText dropped it. The page's own tasks run before each Enter.
  // Into a rich-text editor (not a field) a line of up to RICH_CHARS_MAX goes in pieces that each
  // end at a character an editor's input rules act on (white space, * _ ` ~ ) ] >), as a typist's
  // keys arrive there: "# " starts a heading, "- " a list, the closing "**" bolds (ProseMirror,
  // TipTap), which one insertion of the whole text never triggered. A piece costs a round trip
  // to the browser (≈ 4.5 ms here: a character at a time took 1.4 s for 300 characters). A code
  // editor's text with line breaks goes whole (Lexical put the pieces after a break in the wrong
  // place when the breaks went inside them).
  const field = pt.tag === 'input' || pt.tag === 'textarea';
  // (or a field showing an input mask's template, its caret on the first blank: content/main.js)
  // (or into a field showing a mask's template, each character as a key, keydown and keypress,
  // which such a mask handles itself: inserted text it took for a paste ("(755) 512-3456"), or
  // left the caret before ("(765) 432-1555"))
  const perChar = masked || (pt.maxLength >= 0 && [...text].length > pt.maxLength);
  // (a rich-text editor's lines too: Enter makes its paragraph, as a typist's; one insertion with
  // the line breaks made one block holding them, Slate's and Draft.js's; a code editor's text and
  // a textarea's go whole)
  const parts = pt.tag === 'input' ? text.split('\n') : field || pt.code ? [text] : text.split(/\r\n?|\n/);
  for (let i = 0; i < parts.length; i++) {
    if (i) { await callContent(tabId, 'yield').catch(() => {}); await pressKeyCdp(tabId, keyFields('Enter')); }
    if (!parts[i]) continue;
    const last = [...parts[i]].pop();
    // (the page's tasks run after each: it moves the focus on to the next box in a task of its own,
    // React's; the next character came first and went into the same box)
    if (perChar) for (const ch of parts[i]) { if (masked) await pressKeyCdp(tabId, keyFields(ch)); else await cdp(tabId, 'Input.insertText', { text: ch }); await callContent(tabId, 'yield').catch(() => {}); }
    else if (!field && parts[i].length <= RICH_CHARS_MAX && !/[\r\n]/.test(parts[i])) {
      // (its last character a key, as into a field below: a mention menu, Tribute's, opens on the
      // keyup that follows the text, and inserted text never opened it)
      const asKey = !pt.via && /^\S$/u.test(last);
      for (const p of (asKey ? parts[i].slice(0, parts[i].length - last.length) : parts[i]).match(RULE_PIECES) || []) await cdp(tabId, 'Input.insertText', { text: p });
      if (asKey) await pressKeyCdp(tabId, keyFields(last));
    }
    else if (field && !pt.via && /^\S$/u.test(last)) {
      // The last character as a key (keydown, keypress, the input, keyup): a page that listens to
      // the keys of what is typed (htmx's `keyup changed`, jQuery UI's autocomplete on keydown)
      // hears the typing end, as a user's; the rest in one insertion (a key each costs a round
      // trip: ≈ 9 ms a character here). Not into an editor typed through for a hidden field
      // (TinyMCE's textarea): the editor then held something else than typed.
      const head = parts[i].slice(0, parts[i].length - last.length);
      if (head) await cdp(tabId, 'Input.insertText', { text: head });
      await pressKeyCdp(tabId, keyFields(last));
    } else await cdp(tabId, 'Input.insertText', { text: parts[i] });
  }
  // What the field holds, when not the text (its maxlength, a mask): read before Enter, which may
  // clear it. Input from the debugger is handled before the page's own timers: with Enter to
  // come, those run first (Vue's v-model updates its model in a setTimeout(0)), as they would
  // between a person's keys.
  const held = await callContent(tabId, 'typed', { text, clear: !!params.clear, yield: !!params.submit }).catch(() => null);
  // The field took none of it (a number field and letters): an error, and no Enter.
  if (held?.refused) return { ok: false, error: `${held.refused}${params.submit ? '; Enter was not pressed' : ''}.` };
  if (params.submit) await pressKeyCdp(tabId, keyFields('Enter'));
  const n = [...text].length;
  const desc = held?.desc && pt.desc.startsWith('[') && !pt.desc.includes(' through ') ? held.desc : pt.desc;
  return { ok: true, message: `Typed ${n} character${n === 1 ? '' : 's'} into ${desc}${held?.note || ''}${params.submit ? ' and pressed Enter' : ''}`, trusted: true };
}
