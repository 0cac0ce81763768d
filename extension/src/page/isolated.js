// Runs in the extension's isolated world of every frame at document_start (registered by
// background/page-scripts.js; injected on demand into pages that were open before). It
//   - opens the private channel to main-world.js (channel.js) and relays the dialogs the page
//     opened to the service worker, and the agent's answer for the next dialog to the page;
//   - watches the page from its start, for settling (settle.js): which nodes keep changing on
//     their own (a clock), what changes inside shadow roots (main-world.js reports each one
//     attached to a connected element), which scripts and stylesheets are still loading, which custom
//     elements are not yet defined, which fetch/XHR requests are under way, and whether the
//     page is being left;
//   - keeps the page's console messages and requests for the agent (observe-isolated.js);
//   - reads, for the content script, the ARIA custom elements keep in their ElementInternals;
//   - installs the focus shim in this world, where the content script focuses what it acts on.
import { HELLO_MAIN, HELLO_ISOLATED, recordEvent, policyEvent, netEvent, ackEvent, shadowEvent, askEvent, internalsEvent, INTERNALS_ARIA } from './channel.js';
import { installFocusShim } from './focus-shim.js';
import { createWatch } from './settle.js';
import { createObserver } from './observe-isolated.js';
import { createValidationWatch } from './validation.js';

(() => {
  if (globalThis.__bbPage) return;
  const doc = document;
  const secret = crypto.randomUUID();
  const watch = createWatch(window);
  const validation = createValidationWatch(window); // submissions the browser refused
  // The document parsed: heard first on the event's path (the window, capturing, before any of
  // the page's listeners), so that no page script can keep it from us.
  const parsed = new Promise((r) => {
    if (doc.readyState !== 'loading') r();
    else window.addEventListener('readystatechange', () => { if (doc.readyState !== 'loading') r(); }, true);
  });
  // A navigation of this document to another one started (the Navigation API's navigate event,
  // which the browser fires also for a location.replace() while the page is parsed, where no
  // beforeunload comes): it is being left. A page's own synthetic event (not trusted) is ignored.
  let navigating = false;
  globalThis.navigation?.addEventListener?.('navigate', (e) => {
    if (e.isTrusted && !e.destination?.sameDocument && e.downloadRequest == null) navigating = true; // a download (even an unnamed one: '') leaves nothing
  }, true);
  // Trusted presses this document got, heard first on their path (the window, capturing, before
  // any of the page's listeners, which may stop them): the check that a trusted click arrived.
  let presses = 0;
  window.addEventListener('pointerdown', (e) => { if (e.isTrusted) presses++; }, true);
  const observer = createObserver(doc, secret); // console messages and requests (browser_console_messages, browser_network_requests)
  let policy = null; // the agent's answer for the next dialog, as last sent to the page
  let driven = null; // whether the tab is the agent's (null: not known yet; its dialogs are then answered)
  let internalsSeen = false; // the page gave some element internals ('x+'; see internalsOf)
  let begun = null;  // { actionAt, p }: the wait an action's call began (begin, below)

  const hello = () => doc.dispatchEvent(new CustomEvent(HELLO_ISOLATED, { detail: secret }));
  const pushPolicy = () => doc.dispatchEvent(new CustomEvent(policyEvent(secret), { detail: JSON.stringify({ policy, driven }) }));

  doc.addEventListener(recordEvent(secret), (e) => {
    let rec;
    try { rec = JSON.parse(String(e.detail)); } catch { return; }
    if (!rec || typeof rec !== 'object') return;
    if (rec.by === 'agent') policy = null;
    const msg = {
      type: 'bb-dialog', kind: String(rec.kind), message: String(rec.message ?? '').slice(0, 2000),
      accepted: !!rec.accepted, by: rec.by === 'agent' ? 'agent' : 'default', at: Date.now(), url: location.href,
    };
    if (typeof rec.defaultValue === 'string') msg.defaultValue = rec.defaultValue.slice(0, 2000);
    try { chrome.runtime.sendMessage(msg).catch(() => {}); } catch { /* extension reloaded */ }
  }, true);
  doc.addEventListener(netEvent(secret), (e) => {
    const [d, id, delay, at] = String(e.detail).split(':');
    if (d === 't+' || d === 't-') watch.timer(id, d === 't+', Number(delay) || 0, Number(at) || 0);
    else if (d === 'm+' || d === 'm-') watch.message(id, d === 'm+', Number(at) || 0);
    else if (d === 'r+' || d === 'r-') watch.idle(id, d === 'r+', Number(at) || 0);
    else if (d === 'b+' || d === 'b-') watch.busy(id, d === 'b+');
    else if (d === 'a+' || d === 'a-') watch.frame(id, d === 'a+', Number(at) || 0);
    else if (d === 'i+' || d === 'i~' || d === 'i-') watch.interval(id, d[1], Number(delay) || 0);
    else if (d === 'w+' || d === 'w-') watch.reply(id, d === 'w+');
    else if (d === 'o+') watch.observed(Number(at) || 0);
    else if (d === 'e+' || d === 'e?' || d === 'e=') watch.customElement(d[1], id);
    else if (d === 'v+' || d === 'v-') validation.pageCheck(d === 'v+');
    else if (d === 'p+' || d === 'p-') validation.pageReport(d === 'p+');
    else if (d === 'x+') internalsSeen = true;
    else watch.request(id, d === '+');
  }, true);
  // A connected element got a shadow root (main-world.js hooks attachShadow): the event is
  // dispatched on the host, composed, so that it reaches the document from inside open shadow
  // trees too; the first node of its path is the host.
  doc.addEventListener(shadowEvent(secret), (e) => { watch.shadowAttached(e.composedPath()[0]); }, true);
  // The ARIA a custom element's ElementInternals hold (main-world.js keeps each element's): asked
  // with an event on the element, answered within its dispatch, on the document. Only an answer
  // heard while asking is taken, and only as the ARIA attributes the page could have set itself:
  // the names in INTERNALS_ARIA, strings of at most 2000 characters (a page that learned the
  // secret can make it say no more than its own attributes could).
  let asking = false;
  let answer = null;
  doc.addEventListener(internalsEvent(secret), (e) => { if (asking && answer === null) answer = String(e.detail); }, true);
  function internalsOf(el) {
    if (!internalsSeen || !el || el.nodeType !== 1) return null;
    asking = true;
    answer = null;
    try { el.dispatchEvent(new CustomEvent(askEvent(secret))); } catch { /* ignore */ } finally { asking = false; }
    const a = answer;
    answer = null;
    let o = null;
    try { o = a ? JSON.parse(a) : null; } catch { o = null; }
    if (!o || typeof o !== 'object') return null;
    const out = {};
    for (const [attr] of INTERNALS_ARIA) if (typeof o[attr] === 'string') out[attr] = o[attr].slice(0, 2000);
    return out;
  }
  // main-world.js ran first: it listens, and hears this hello. Runs later: it announces itself,
  // and this answers. Once it acknowledged (on the secret channel), no more announcements are
  // heard: a page script that announces itself later learns nothing.
  const onMain = () => { hello(); };
  doc.addEventListener(ackEvent(secret), () => {
    doc.removeEventListener(HELLO_MAIN, onMain, true);
    watch.rescan(); // shadow roots attached before the page side knew the secret
    watch.hooked(); // what the page does with custom elements is heard from its start
    if (policy || driven !== null) pushPolicy();
  }, { capture: true, once: true });
  doc.addEventListener(HELLO_MAIN, onMain, true);
  hello();

  // Each frame asks at its start whether its tab is the agent's (background/driven.js) and for the
  // agent's answer for the next dialog on this tab, if it gave one before this page loaded; the
  // top frame also learns whether the service worker awaits this document (background/ready.js):
  // then it reports when ready.
  try {
    chrome.runtime.sendMessage({ type: 'bb-page-start' }).then((r) => {
      if (!r || typeof r !== 'object') return;
      if ('policy' in r) { policy = r.policy; if (typeof r.driven === 'boolean') driven = r.driven; pushPolicy(); }
      if (r.ready && typeof r.ready === 'object') reportReady(r.ready);
    }, () => {});
  } catch { /* extension reloaded */ }

  // Settle as the service worker asked, from DOMContentLoaded on (its cap counts from there, as
  // when the service worker waited for that event), take the snapshot, and send both; or say
  // that the page is being left.
  async function reportReady({ token, opts, snap, floor }) {
    await parsed;
    let r = navigating ? { reason: 'navigation', waited: 0 } : await watch.settle(opts || {});
    if (navigating) r = { reason: 'navigation', waited: r.waited };
    if (snap && r.reason !== 'navigation' && globalThis.__browserBridge) {
      try { r.snapshot = await globalThis.__browserBridge.run('snapshot', snap, floor); } catch { /* read after */ }
    }
    try { chrome.runtime.sendMessage({ type: 'bb-page-ready', token, result: r }).catch(() => {}); } catch { /* extension reloaded */ }
  }

  installFocusShim(window);

  // The wait after an action (or a load); after an action, with the form submission the browser
  // refused meanwhile, if any (validation.js).
  function actionSettle(opts) {
    return watch.settle(opts).then((r) => {
      const refused = !opts.ready && r && r.reason !== 'navigation' ? validation.refusedSince(Number(opts.actionAt) || 0) : null;
      return refused ? { ...r, invalid: refused } : r;
    });
  }

  Object.defineProperty(globalThis, '__bbPage', {
    configurable: false,
    value: Object.freeze({
      setPolicy(p, d) {
        policy = p && typeof p === 'object' ? { accept: !!p.accept, ...(typeof p.promptText === 'string' ? { promptText: p.promptText } : {}) } : null;
        if (typeof d === 'boolean') driven = d;
        pushPolicy();
        return true;
      },
      // The wait after an action can begin in the action's own call, the moment it is done
      // (begin), and be awaited by the call that follows (settle, with the same actionAt).
      begin(opts) { begun = { actionAt: Number(opts?.actionAt) || 0, p: actionSettle(opts || {}) }; return true; },
      settle(opts) {
        const b = begun;
        begun = null;
        if (b && b.actionAt && b.actionAt === Number(opts?.actionAt)) return b.p;
        return actionSettle(opts || {});
      },
      state: () => watch.state(),
      driven: () => driven, // whether the tab is the agent's, as this document learned it (null: not yet)
      presses: () => presses,
      internals: (el) => internalsOf(el), // { 'role': 'switch', 'aria-checked': 'true' … } or null
      observed: (what, opts) => (what === 'network' ? observer.network(opts) : observer.console(opts)),
    }),
  });
})();
