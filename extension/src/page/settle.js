// When a page is ready, and when an action's effects have settled. Watches the page from its
// start (isolated.js), the document and every shadow root in it (open ones, and closed ones
// where chrome.dom can reach them; nested ones too); settle() answers when, at once:
//   - no DOM change for `quietMs` (after an action, `drainedQuietMs` once the page's event loop
//     went round since the last change: a frame drawn, then an idle callback run; not while a
//     message to a worker or an IndexedDB transaction begun since is under way, nor on a page
//     with a short interval: what a poll's tick starts is tracked for its first two ticks after
//     the action's input only), not counting
//     nodes that kept changing on their own before the
//     action (a clock, a carousel: three changes or more after the document was parsed, in the
//     1.5 s before it, the last within 0.6 s) nor nodes that changed before the action and
//     change again and again during the wait (four changes or more, spaced 40 ms or more apart);
//     a node the action added is never ignored (a spinner it shows is its effect); nor, after an
//     action or for a page that loads, a node a script animates (changed at least every 250 ms
//     for over 1 s, as lottie-web redraws an SVG on every frame: looping());
//   - no fetch/XHR started by the page since the action still under way, no script or stylesheet
//     it inserted since still loading (a module loader's), no timer of at most 1 s (one that the
//     first two ticks of a short interval after the action's input set included), animation
//     frame callback, idle callback or message the page posted to itself (a MessageChannel it
//     made, window.postMessage) that an event handler set since the action still to fire,
//     nor one of those these set in turn within 1 s (an animation a handler starts on frame
//     callbacks, jQuery's animate(), for its first second; main-world.js; a frame callback is waited
//     for until 100 ms after its frame was due, a message 250 ms, an idle callback 300 ms); each interval of at most
//     250 ms (a page polling its model: Polymer 0.x's observe-js flushes every 125 ms and
//     renders an action's effect at its second tick) has ticked twice since the action (its
//     last input event) and once since the last DOM change counted (bounded by its period, for
//     a throttled one); and for a page
//     that has just loaded (`ready`): the document complete, no script, module or stylesheet it
//     references still loading, no custom element it uses still undefined (while scripts still
//     arrive: up to 1 s after the last one; answered with some still undefined, the result's
//     `pending` names them), something of it shown (nothingShown(), on the same terms);
//   - no animation or transition that started since the action (or the navigation) and lasts
//     at most 1 s (its delay included) still running, and none that ended within the quiet
//     window (a dialog that fades in: read once it shows; a notice that fades out and is then
//     removed: read once it is gone);
// or when the page starts to unload (reason 'navigation'), or at `capMs` (reason 'cap', with what
// was still pending; posted messages and idle callbacks count as timers), or when another wait
// begins (reason 'superseded': one wait at a time). Times are Date.now() so the service worker can give the action's start
// (animations' start times, in performance.now()'s clock, are compared with it translated).
const HOT_WINDOW_MS = 1500;
const HOT_RECENT_MS = 600;
const HOT_COUNT = 3;
const LEARN_COUNT = 4;
const LEARN_GAP_MS = 40;
const UNDEFINED_GRACE_MS = 1000;
const POLL_MS = 20;
const STALL_MS = 5;            // a tick this late found the page's thread stalled
const KEEP = 8; // timestamps kept per node
const TIMER_MAX_MS = 1000;
const LIVE_SEL = '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"], output';
const FLASH_REGIONS = 40; // live regions watched in one wait, at most
const FLASH_CHARS = 200;  // characters kept of a line
// a line that says the page is at work ("Loading…", "Saving...", "Please wait"): no notice
const PROGRESS = /^(?:\p{L}+ing(?: \p{L}+){0,3}(?:\.\.\.|…)|loading|please wait(?:\.\.\.|…)?)$/iu;

// The lines of a region's words a person reads: its text as drawn (innerText: what is not rendered
// is left out, a shadow root's slotted words are in), without what counts itself down or is hidden
// from assistive technology (Shoelace's alert holds a role=timer of the milliseconds left:
// "100" was taken for its words; SweetAlert2's hidden buttons ran into them).
function shownLines(el) {
  let t = el.innerText || '';
  // (innerText walks the element's own tree: the words a shadow root's slot shows are added)
  for (const slot of el.querySelectorAll('slot')) {
    for (const n of slot.assignedNodes({ flatten: true })) t += '\n' + (n.nodeType === 3 ? n.data : n.nodeType === 1 ? n.innerText || '' : '');
  }
  for (const x of el.querySelectorAll('[role=timer],[role=progressbar],[aria-hidden=true]')) {
    const u = (x.innerText || '').trim();
    if (u) t = t.replace(u, '');
  }
  const out = [];
  for (const l of t.split('\n')) {
    const w = l.replace(/\s+/g, ' ').trim().slice(0, FLASH_CHARS);
    if (w && !out.includes(w)) out.push(w);
    if (out.length >= 10) break;
  }
  return out;
}
const FRAME_MS = 16;           // an animation frame callback is due this soon …
const FRAME_LATE_MS = 100;     // … and no longer waited for this long after (a hidden tab draws no frames)
const MESSAGE_LATE_MS = 250;   // a message the page posted itself is no longer waited for this long after (one that never arrives)
const TIMER_LATE_MS = 2000;    // … a timer (a throttled or lost one)
const IDLE_LATE_MS = 300;      // … an idle callback (a page too busy to go idle)
const OBSERVED_LATE_MS = 400;  // … the frame after which an observer's callback has run
const OBSERVED_ROUNDS = 5;     // new observing waited for in one wait, at most
const FIRINGS_MAX = 20;        // callbacks run in a row with no DOM change that count as changes (a frame's worth each: ≈ 330 ms)
// How long after it was due each kind of callback the page set is still waited for.
const LATE_MS = { timer: TIMER_LATE_MS, frame: FRAME_LATE_MS, message: MESSAGE_LATE_MS, idle: IDLE_LATE_MS };
const ACTION_ONLY = new Set(['message', 'idle']); // waited for after an action, not for a page that loads (open_url's rule)
const REPLY_MAX_MS = 1500;     // a WebSocket send's answer is waited for this long at most (main-world.js ends it at 1000)
const BUSY_MAX_MS = 1000;      // work off the page's thread (a worker's answer) keeps the short quiet window off this long at most
const ROUTE_LATE_MS = 2000;    // a route the page moved to, not yet rendered, is waited for this long
const REFRESH_SLACK_MS = 250; // a page's meta refresh is waited for this long after it was due (its navigation's start)
const SCAN_MAX = 20000;
const PARSED_SCAN_MAX = 200000; // the whole document once parsed
const ROOTS_MAX = 5000;        // shadow roots whose animations are looked at
const ANIM_MAX_MS = 1000;      // an animation the action started is waited for when it lasts at most this long
const ANIM_SLACK_MS = FRAME_MS; // … and counts as started by it when it started at most a frame before it
const RUN_GAP_MS = 250;        // a node's changes this close together are one run (a script's animation: a frame, a 13 ms tick;
                               // frames 94-133 ms apart on a loaded 2-core machine broke runs at 50 ms)

// The node's parent, across a shadow root's boundary to its host.
const up = (n) => n.parentNode || (n.nodeType === 11 ? n.host || null : null);

const RESOURCE_SEL = 'script[src], link[rel~="stylesheet"][href], link[rel="modulepreload"][href]';
const SCRIPT_TYPES = /^(|module|text\/javascript|application\/javascript|text\/ecmascript|application\/ecmascript)$/i;

export function createWatch(win) {
  const doc = win.document;
  const now = () => Date.now();
  const times = new WeakMap(); // node -> [timestamps of its last changes]
  const recent = [];           // [{node, t}] of the last 2 s, for changes made before settle() was called
  const done = new WeakSet();  // script/link elements whose load ended
  const finished = new Set();  // URLs whose resource timing entry exists
  const requests = new Map();  // fetch/XHR id -> start
  const replies = new Map();   // WebSocket send awaiting the socket's next message: id -> start (main-world.js)
  const timers = new Map();    // timer id -> { at, due }
  const intervals = new Map(); // short interval id -> { period, since (set), prev, tick (last two ticks) }
  const added = new WeakMap(); // node -> when it was inserted (the last 2 s)
  const actionSpans = [];      // [from, to] of the last waits after an action (duringAction())
  const offThread = new Map();  // worker message / IndexedDB transaction id -> start (main-world.js)
  let lastResource = now();
  let leavingAt = 0;
  let onChange = null;
  let onTimerFired = null;
  let onRequestEnded = null;
  let onWake = null; // a settle() under way: look again at once (something it waits for ended)
  let onAdded = null; // … after an action: an element inserted (a notice's live region, flashes())
  let stop = null;   // … and how to end it (one wait at a time: a new one ends the one before)
  const wake = () => { if (onWake) onWake(); };
  // When the page last began to observe an element (main-world.js: IntersectionObserver,
  // ResizeObserver), and up to which such time the last round of the event loop asked for after
  // it (a frame, then an idle callback) has run: the observer's callback comes at that frame, what
  // it starts (Turbo's lazy frame fetches its content) in the tasks after.
  let observedAt = 0;
  let roundFor = 0;   // the observedAt the last finished round covers
  let roundAsked = 0; // the observedAt a round is under way for
  const observing = (at) => { observedAt = Math.max(observedAt, Math.min(at || now(), now())); };
  const observerRound = () => {
    if (roundAsked >= observedAt || typeof win.requestAnimationFrame !== 'function') return;
    const target = observedAt;
    roundAsked = target;
    win.requestAnimationFrame(() => {
      const done = () => { if (roundFor < target) roundFor = target; if (roundAsked === target) roundAsked = 0; wake(); };
      if (typeof win.requestIdleCallback === 'function') win.requestIdleCallback(done, { timeout: IDLE_LATE_MS });
      else setTimeout(done, 0);
    });
  };

  // Until the document is parsed, the parser's insertions are no sign of a node changing on its
  // own (a page's body gets hundreds of them): only changes after parsing make a node hot; nor do
  // they keep a page that loaded waiting (see settle()); for churning() the parse's end stands for
  // them (the node existed and changed then). So they are not even recorded, unless a
  // wait is under way (an action on a page still loading): recording each one (and looking for
  // its shadow root) doubled the load time of a page of 36,000 elements, 0.94 s to 1.99 s
  // (bench/README.md). The shadow roots the parser attached (declarative ones) are looked for
  // once it is done.
  let parsedAt = doc.readyState === 'loading' ? Infinity : 0;
  doc.addEventListener('readystatechange', () => {
    if (parsedAt === Infinity && doc.readyState !== 'loading') { parsedAt = now(); scan(doc, PARSED_SCAN_MAX); }
    if (doc.readyState === 'complete') wake();
  }, true);
  const late = doc.readyState === 'complete';
  if (late) for (const el of doc.querySelectorAll(RESOURCE_SEL)) done.add(el);

  const record = (node, t) => {
    let a = times.get(node);
    if (!a) { a = []; times.set(node, a); }
    // its current run of changes (at most RUN_GAP_MS apart) began at a.runStart (looping())
    const prev = a[a.length - 1];
    a.runStart = prev !== undefined && t - prev <= RUN_GAP_MS ? a.runStart : t;
    a.push(t);
    if (a.length > KEEP) a.shift();
    recent.push({ node, t });
    // Pruned in batches (a page may change its DOM thousands of times a second).
    if (recent.length >= 4000 || (recent.length > 256 && t - recent[0].t > 4000)) {
      const cut = recent.findIndex((r) => t - r.t <= 2000);
      recent.splice(0, cut < 0 ? recent.length : Math.max(cut, recent.length - 2000));
    }
    if (onChange) onChange(node, t);
  };
  // One observer for the document and every shadow root in it (a MutationObserver's subtree
  // stops at a shadow root: each root is observed on its own, nested ones too). Roots are found
  // in what is added (scan) and, for a connected element that gets one later (a custom element
  // upgraded in place), from main-world.js's attachShadow hook (shadowAttached).
  const MO_OPTS = { subtree: true, childList: true, attributes: true, characterData: true };
  const observed = new WeakSet(); // shadow roots observed
  let roots = [];                 // WeakRefs to them, for their animations
  const openOrClosed = globalThis.chrome?.dom?.openOrClosedShadowRoot;
  // An element's shadow root, open or closed. A closed one is looked for (chrome.dom, ≈ 18 µs a
  // call) only on a custom element, or on a host main-world.js saw attach one (`anyHost`): a
  // script's attachShadow on a connected element is reported from there, and a page's own
  // closed roots on built-in elements are otherwise only those attached before the element was
  // inserted.
  const rootOf = (el, anyHost = false) => {
    let r = el.shadowRoot;
    if (!r && openOrClosed && (anyHost || el.localName.includes('-'))) { try { r = openOrClosed(el); } catch { r = null; } }
    return r || null;
  };
  const mo = new MutationObserver((list) => {
    if (parsedAt === Infinity && !onChange) return; // the parser's insertions (above)
    const t = now();
    for (const r of list) {
      const n = r.type === 'characterData' ? up(r.target) : r.target;
      if (n) record(n, t);
      if (r.type === 'childList') for (const a of r.addedNodes) { added.set(a, t); if (a.nodeType === 1) { scan(a); if (onAdded) onAdded(a); } }
    }
  });
  function watchRoot(root) {
    if (!root || observed.has(root)) return;
    observed.add(root);
    if (roots.length >= ROOTS_MAX) roots = roots.filter((r) => r.deref()?.host?.isConnected);
    if (roots.length < ROOTS_MAX) roots.push(new WeakRef(root));
    mo.observe(root, MO_OPTS);
    scan(root);
  }
  // Observe the shadow roots of `node` and of its descendants (bounded: a huge insertion is
  // scanned up to SCAN_MAX elements; roots past that are found when they change their host).
  function scan(node, max = SCAN_MAX) {
    if (node.nodeType === 1) watchRoot(rootOf(node));
    if (!node.firstElementChild) return;
    const w = doc.createTreeWalker(node, 1 /* NodeFilter.SHOW_ELEMENT */);
    for (let i = 0, el = w.nextNode(); el && i < max; el = w.nextNode(), i++) {
      const r = rootOf(el);
      if (r) watchRoot(r);
    }
  }
  mo.observe(doc, MO_OPTS);
  scan(doc);

  const ended = (e) => {
    const el = e.target;
    if (el && (el.tagName === 'SCRIPT' || el.tagName === 'LINK')) { done.add(el); lastResource = now(); wake(); }
  };
  doc.addEventListener('load', ended, true);
  doc.addEventListener('error', ended, true);
  try {
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) { if (finished.size < 5000) finished.add(e.name); lastResource = now(); }
    }).observe({ type: 'resource', buffered: true });
  } catch { /* old browser */ }
  // When the last input event reached the page (the action's click, key or submit, dispatched
  // after the service worker noted the action's start): an interval's ticks count from then, so
  // that one ticking between the two is not taken for a tick that saw the action.
  let inputAt = 0;
  for (const type of ['pointerdown', 'mousedown', 'mouseup', 'click', 'keydown', 'keyup', 'input', 'change', 'submit']) {
    win.addEventListener(type, () => { inputAt = now(); }, true);
  }
  // The page is being left: a navigation to another document started here (the Navigation API's
  // navigate event, which comes first, before any beforeunload; one the page cancelled, or took
  // over as a same-document one with intercept(), which leaves the current entry, is not), or the
  // page is hidden for good (pagehide: a navigation started elsewhere, which fires no navigate
  // event here). No beforeunload listener: with one, the browser asks this page before every
  // navigation of the tab it starts (open_url, the address bar), ≈ 4-9 ms each (bench/README.md).
  let leaving = null; // { at, e, entry }: the last such navigate event
  const nav = win.navigation;
  let routeAt = 0; // when the page last moved to another address of its own (pushState), not an anchor
  nav?.addEventListener?.('navigate', (e) => {
    if (e.isTrusted && !e.destination?.sameDocument && e.downloadRequest == null) leaving = { at: now(), e, entry: nav.currentEntry };
    else if (e.isTrusted && e.destination?.sameDocument && !e.hashChange && e.navigationType !== 'reload') {
      try {
        const to = new URL(e.destination.url), here = win.location;
        if (to.pathname !== here.pathname || to.search !== here.search) { routeAt = now(); wake(); }
      } catch { /* ignore */ }
    }
  }, true);
  win.addEventListener('pagehide', () => { leavingAt = now(); }, true);
  // When the page began to be left (0: it is not). Looked at after the navigate event's dispatch
  // ended (a tick is a task of its own), when the page's own listeners have had their say.
  const leftAt = () => {
    if (leavingAt) return leavingAt;
    const l = leaving;
    if (!l || l.e.defaultPrevented || nav.currentEntry !== l.entry || nav.transition) return 0;
    return l.at;
  };

  // Was `t` within an earlier action's wait? What changed then was that action's effect, not the
  // page changing on its own: quick clicks through a router's links re-render its <main> each
  // time, which then counted as a clock's ticks, and the next route drawn there went unseen (2 s
  // waited for it, and an answer saying the page read may be the one before).
  function duringAction(t) {
    for (const [a, b] of actionSpans) if (t >= a && t <= b) return true;
    return false;
  }
  // Was the node (or one of its 3 nearest ancestors) changing on its own before `at`?
  function hotBefore(node, at) {
    for (let n = node, i = 0; n && i < 4; n = up(n), i++) {
      const a = times.get(n);
      if (!a) continue;
      const before = a.filter((t) => t < at && at - t <= HOT_WINDOW_MS && t >= parsedAt && !duringAction(t));
      if (before.length >= HOT_COUNT && at - before[before.length - 1] <= HOT_RECENT_MS) return true;
    }
    return false;
  }
  // Was the node (or an ancestor) inserted at or after `at`?
  function addedSince(node, at) {
    for (let n = node; n; n = up(n)) { const t = added.get(n); if (t !== undefined && t >= at) return true; }
    return false;
  }
  // Has the node, which changed before `at` already, changed again and again since (learnt during
  // the wait)?
  function churning(node, at) {
    const all = times.get(node) || [];
    const a = all.filter((t) => t >= at);
    // It changed in the 3 s before `at`, or the parser filled it (the parser's insertions are not
    // recorded) in a document parsed in those 3 s.
    const before = all.some((t) => t < at && at - t <= 3000) || (parsedAt <= at && at - parsedAt <= 3000 && !added.has(node) && !!node.firstChild);
    if (a.length < LEARN_COUNT || !before || addedSince(node, at)) return false;
    for (let i = 1; i < a.length; i++) if (a[i] - a[i - 1] < LEARN_GAP_MS) return false;
    return true;
  }

  // Is the node animated by a script (changed at least every RUN_GAP_MS for over ANIM_MAX_MS:
  // a marquee moved every 13 ms, an SVG redrawn on every frame as lottie-web plays)? Like a CSS
  // animation that lasts longer than that, it is not waited for: such a page's DOM is never quiet
  // (open_url hit its 5 s cap on every such page; an action added the second it runs). Decided
  // per node, so that the rest of the page still counts.
  function looping(node) {
    const a = times.get(node);
    return !!a && a[a.length - 1] - a.runStart > ANIM_MAX_MS;
  }

  // Scripts and stylesheets still loading (`since`: only those inserted at or after it).
  function pendingResources(since = 0) {
    const out = [];
    for (const el of doc.querySelectorAll(RESOURCE_SEL)) {
      if (done.has(el) || (since && !addedSince(el, since))) continue;
      if (el.tagName === 'SCRIPT' && !SCRIPT_TYPES.test(el.type || '')) continue;
      if (el.tagName === 'LINK' && (el.disabled || (el.media && !win.matchMedia(el.media).matches))) continue;
      const url = el.src || el.href;
      if (!url || finished.has(url)) continue;
      out.push(url);
      if (out.length >= 5) break;
    }
    return out;
  }
  // Custom elements (main-world.js): whether the page defined any, the names it asked about and
  // those its script created, and whether that is heard from the document's start (else every
  // undefined element counts).
  let heard = false, definesAny = false;
  const asked = new Set(), created = new Set();
  function customElement(op, name) {
    if (op === '+') definesAny = true;
    else if (op === '?' && asked.size < 200) asked.add(name);
    else if (op === '=' && created.size < 200) created.add(name);
  }
  // An undefined element a definition may still come for: on a page that defines custom elements,
  // one whose name the page asked about, or one the parser made that holds no element (raw text
  // of a component that loads late: `<sl-button>Save</sl-button>`, an empty one). On a page that
  // neither defines nor asks, one its script made (Angular's hosts, an empty <router-outlet>) or
  // one holding elements (Angular's <app-root> once rendered) is a plain container: no wait.
  // On a page that defines them, one that a defined custom element's script made in its own light
  // DOM is that component's part, never defined (Vaadin's grid cells: every open waited 1 s more).
  const partOfDefined = (el) => { const p = el.parentElement; return !!p && p.localName.includes('-') && p.matches(':defined'); };
  const awaited = (el) => !heard || asked.has(el.localName) ||
    (definesAny ? !(created.has(el.localName) && partOfDefined(el)) : !created.has(el.localName) && !el.firstElementChild);
  function undefinedElements() {
    const out = [];
    try {
      for (const e of doc.querySelectorAll(':not(:defined)')) {
        if (awaited(e)) out.push(e.localName);
        if (out.length >= 5) break;
      }
    } catch { /* an engine without :defined */ }
    return out;
  }
  // Does the page show nothing of what it holds: no element child of the body rendered (hidden,
  // transparent or not displayed) while the body has text? Ionic (Stencil) keeps its components
  // visibility: hidden until the code it imports hydrates them; Vue's v-cloak and an app shell
  // kept hidden until its scripts ran alike. Only the body's children are looked at (cheap).
  const SHOWN = { visibilityProperty: true, opacityProperty: true };
  const NOT_CONTENT = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'LINK', 'META']);
  function nothingShown() {
    const body = doc.body;
    if (!body || typeof body.checkVisibility !== 'function' || !body.firstElementChild) return false;
    let n = 0;
    for (let c = body.firstElementChild; c && n < 50; c = c.nextElementSibling) {
      if (NOT_CONTENT.has(c.tagName)) continue;
      n++;
      if (c.checkVisibility(SHOWN) || win.getComputedStyle(c).display === 'contents') return false;
    }
    return n > 0 && n < 50 && body.textContent.trim() !== '';
  }
  // When the last script, stylesheet or module the page loaded arrived: the observer's figure,
  // or the resource timing buffer's when the observer's callback (a task of its own, late on a
  // busy page) has not run yet.
  function lastResourceAt() {
    try {
      const es = win.performance.getEntriesByType('resource');
      const e = es[es.length - 1];
      if (e && e.responseEnd > 0) lastResource = Math.max(lastResource, Date.now() - (win.performance.now() - e.responseEnd));
    } catch { /* old browser */ }
    return lastResource;
  }

  // When the refresh the page asks for in its markup (<meta http-equiv="refresh" content="0;
  // url=…">: a sign-in's or a moved page's redirect) is due to have started, if it goes to another
  // page within TIMER_MAX_MS of the load (the browser starts it that long after the load event, as
  // HTML says): a person sees that page, not this one; 0 if there is none (a page that reloads
  // itself, or one that moves on only after a longer read, is answered as it is).
  function refreshDue() {
    const m = doc.querySelector('meta[http-equiv="refresh" i][content]');
    const p = m && /^\s*(\d+)(?:\.[\d.]*)?\s*(?:[;,\s]\s*(?:url\s*=\s*)?(["']?)([^"']*)\2)?/i.exec(m.content);
    if (!p || Number(p[1]) * 1000 > TIMER_MAX_MS || !p[3]?.trim()) return 0;
    let to;
    try { to = new URL(p[3].trim(), doc.baseURI); } catch { return 0; }
    const here = new URL(doc.URL);
    if (to.protocol === 'javascript:' || (to.origin === here.origin && to.pathname === here.pathname && to.search === here.search)) return 0;
    const e = win.performance.getEntriesByType?.('navigation')?.[0];
    if (!e) return 0;
    if (!e.loadEventEnd) return Infinity; // its load event still running: the clock not yet started
    return Date.now() - (win.performance.now() - e.loadEventEnd) + Number(p[1]) * 1000 + REFRESH_SLACK_MS;
  }

  // Animations and transitions (CSS or Web Animations, in the document and its shadow roots)
  // that started at or after `since`, end at most ANIM_MAX_MS after they started (delay
  // included), and are still running: a dialog that fades in is read once it shows, a notice
  // that fades out once it is gone. One that started before (a carousel's), runs longer or never
  // ends (a spinner) is not waited for. Start times are in the document timeline's clock
  // (performance.now()'s); `since` is the service worker's Date.now(), translated through a
  // sample of both clocks taken in one turn: performance.timeOrigin + performance.now() can
  // disagree with Date.now() by tens of ms, which made an animation the action started look
  // older than the action. Returns how many run.
  function animating(since) {
    if (typeof doc.getAnimations !== 'function') return 0;
    const sincePerf = since - Date.now() + win.performance.now();
    // document.getAnimations() leaves out those of elements in shadow trees: each root's too.
    const list = [];
    try { list.push(...doc.getAnimations()); } catch { return 0; }
    for (const r of roots) {
      const root = r.deref();
      if (root && root.host && root.host.isConnected) { try { list.push(...root.getAnimations()); } catch { /* ignore */ } }
    }
    let n = 0;
    for (const a of list) {
      if (a.playState !== 'running') continue;
      const timing = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
      const rate = Math.abs(Number(a.playbackRate) || 1);
      if (!timing || !Number.isFinite(timing.endTime) || timing.endTime / rate > ANIM_MAX_MS) continue;
      if (a.startTime != null && Number(a.startTime) < sincePerf - ANIM_SLACK_MS) continue;
      n++;
    }
    return n;
  }

  // A connected element got a shadow root (main-world.js): observe it; the host changed.
  function shadowAttached(el) {
    if (!el || el.nodeType !== 1) return;
    watchRoot(rootOf(el, true));
    record(el, now());
  }

  function state(at = now()) {
    return {
      readyState: doc.readyState,
      resources: pendingResources(),
      undefinedElements: undefinedElements(),
      requests: [...requests.values()].filter((t) => t >= at).length,
    };
  }

  // The notices an action made the page show and take away again before its answer (a toast of
  // 0.8 s, "Copied!": its timers, under 1 s each, are waited for, so it was gone when the page was
  // read, and nothing said it came): live regions (aria-live, role=status, alert or log, <output>),
  // the words a screen reader announces, watched while the wait lasts. `before`: a region's words
  // when the wait began (a field's error that an action takes away is no notice of it); a region
  // inserted since the action shows only new words.
  function flashes(since) {
    const seen = new Map(); // region -> { before: Set of its lines when the wait began, lines: Set of lines seen since }
    const lines = (el) => shownLines(el);
    // (up through a shadow root to its host: a component made for the notice, Shoelace's sl-alert)
    const isNew = (el) => { for (let n = el, i = 0; n && i < 12; n = n.parentNode || n.host, i++) if ((added.get(n) || 0) >= since) return true; return false; };
    const shown = (el) => el.isConnected && !!el.checkVisibility?.({ opacityProperty: true, visibilityProperty: true });
    // the words put in a region since the action began (before this wait: a click's handler adds
    // the notice at once) are not what it held before
    const putSince = (el) => {
      const out = new Set();
      const w = doc.createTreeWalker(el, 5 /* SHOW_ELEMENT | SHOW_TEXT */);
      for (let n = w.nextNode(), i = 0; n && i < 300; n = w.nextNode(), i++) {
        if ((added.get(n) || 0) < since) continue;
        for (const l of (n.nodeType === 3 ? n.data : n.textContent || '').split('\n')) { const x = l.replace(/\s+/g, ' ').trim(); if (x) out.add(x.slice(0, FLASH_CHARS)); }
      }
      return out;
    };
    const beforeOf = (el) => {
      if (isNew(el) || !shown(el)) return new Set();
      const fresh = putSince(el);
      return new Set(lines(el).filter((l) => ![...fresh].some((f) => l.includes(f))));
    };
    const take = (el) => { if (seen.size < FLASH_REGIONS && !seen.has(el)) seen.set(el, { before: beforeOf(el), lines: new Set() }); };
    // (the shadow roots' too: a web component's alert, hidden until its toast shows, is known as
    // empty before, not first met showing its words: Shoelace's sl-alert)
    for (const r of [doc, ...roots.slice(0, 200).map((w) => w.deref()).filter(Boolean)]) for (const el of r.querySelectorAll(LIVE_SEL)) take(el);
    let dirty = true; // a DOM change since the last look (the words, or what shows them, moved)
    return {
      added(el) {
        dirty = true;
        if (seen.size >= FLASH_REGIONS) return;
        if (el.matches(LIVE_SEL)) take(el);
        else if (el.firstElementChild) for (const r of el.querySelectorAll(LIVE_SEL)) take(r);
      },
      changed(node) {
        dirty = true;
        const el = node.nodeType === 1 ? node : node.parentElement;
        const r = el?.closest?.(LIVE_SEL);
        if (r) take(r);
      },
      // each region's lines now (on each look of the wait that follows a DOM change: a region's
      // visibility and words are read, up to 40 of them, not on every 20 ms poll)
      look() {
        if (!dirty) return;
        dirty = false;
        for (const [el, v] of seen) {
          if (!shown(el)) continue;
          for (const l of lines(el)) if (!v.before.has(l) && v.lines.size < 20) v.lines.add(l);
        }
      },
      // the lines seen that no region shows any more (a notice gone from a region that still holds
      // another: Sonner's one list of toasts), but for a progress line replaced by what it waited
      // for ("Loading…", "Saving...": no notice)
      // (a region now showing new words in their place has news, not a notice taken away: a step
      // counter's "2" that became "3")
      gone() {
        const still = new Set(), now = new Map();
        for (const [el] of seen) { const ls = shown(el) ? lines(el) : []; now.set(el, ls); for (const l of ls) still.add(l); }
        const out = [];
        for (const [el, v] of seen) {
          if (!now.get(el).every((l) => v.before.has(l))) continue;
          for (const l of v.lines) if (!still.has(l) && !PROGRESS.test(l) && !out.includes(l)) out.push(l);
        }
        return out.slice(0, 3);
      },
    };
  }

  // Resolves {reason: 'quiet'|'cap'|'navigation'|'superseded', waited, pending?, flashed?}.
  function settle({ actionAt, quietMs = 100, capMs = 3000, ready = false, requestCapMs = capMs, drainedQuietMs = quietMs }) {
    const t0 = now();
    const since = Number(actionAt) > 0 && Number(actionAt) <= t0 ? Number(actionAt) : t0;
    const hot = (n) => hotBefore(n, since) || churning(n, since) || looping(n);
    // The quiet window: for a page that loaded, from the navigation's start (it may be quiet
    // already), counting only the changes made once the document was parsed (the parser's
    // insertions, and what the page's scripts did synchronously while it parsed, are over when
    // it is: a page is answered at its load event when nothing changed since); after an action,
    // from now, the action's end (the tasks it queued, a form submission, run meanwhile).
    const counts = (node, t) => !hot(node) && !(ready && t < parsedAt);
    let last = ready ? since : t0;
    let domSince = false; // a counted DOM change since the action (route(), below)
    for (const r of recent) if (r.t >= since && counts(r.node, r.t)) { last = Math.max(last, r.t); domSince = true; }
    if (stop) stop('superseded');
    return new Promise((resolve) => {
      let tickTimer = null;
      let dueAt = 0;      // when the pending tick should run
      let stalled = false; // the last tick ran late: the page's thread was not running
      let animated = false; // the last look found animations the action started still running
      // The page's event loop went round since the last change: a frame was drawn after it (its
      // input events dispatched, its frame callbacks, style, layout, resize and intersection
      // observers run) and then an idle callback ran (every task queued by then, a posted
      // message, a next step of a chain, has run). Counted in changes (`seq`), not in ms.
      let seq = 0;          // changes counted since the wait began
      let drained = -1;     // the `seq` the last full round (frame, then idle) came after
      let asking = false;   // a frame callback is asked for
      let done = false;
      const round = () => {
        if (asking || typeof win.requestAnimationFrame !== 'function' || typeof win.requestIdleCallback !== 'function') return;
        asking = true;
        win.requestAnimationFrame(() => {
          asking = false;
          if (done) return;
          const s = seq;
          win.requestIdleCallback(() => {
            if (done) return;
            if (seq === s) drained = s;
            if (onWake) onWake();
          });
        });
      };
      // A change counted: the quiet window, and the round of the event loop, begin again.
      const changed = (t) => { last = t; seq++; };
      const notices = ready ? null : flashes(since);
      const finish = (reason, pending) => {
        if (done) return;
        done = true;
        clearTimeout(tickTimer);
        onChange = null;
        onTimerFired = null;
        onRequestEnded = null;
        onWake = null;
        onAdded = null;
        stop = null;
        const flashed = notices && reason !== 'navigation' ? notices.gone() : [];
        if (!ready) { actionSpans.push([since, now()]); if (actionSpans.length > 8) actionSpans.shift(); }
        resolve({ reason, waited: now() - t0, ...(pending ? { pending } : {}), ...(flashed.length ? { flashed } : {}) });
      };
      stop = finish;
      // A callback that ran counts as a change (what it started shows a moment later). Of those
      // whose chain began after the last DOM change, not past FIRINGS_MAX with no DOM change
      // between: a loop of fresh ones that changes nothing (a ResizeObserver re-rendering through
      // React's scheduler on every frame while a 2 s transition runs: antd's click wave) is no
      // effect of the action to wait for. A chain older than the last change (one that changes
      // the DOM every few steps) counts on, and one still pending holds the wait all the same.
      let firings = 0, lastDom = 0;
      onChange = (node, t) => {
        if (notices) notices.changed(node);
        if (counts(node, t)) { firings = 0; lastDom = t; domSince = true; changed(t); }
      };
      if (notices) onAdded = notices.added;
      onTimerFired = (at, t) => { if (at >= since && (at <= lastDom || ++firings <= FIRINGS_MAX)) changed(Math.max(last, t)); };
      onRequestEnded = (at, t) => { if (!ready && at >= since) changed(Math.max(last, t)); };
      // The document completed, a script or stylesheet or a request ended: look again in the next
      // task (after the load event's handlers), not at the next poll.
      onWake = () => { clearTimeout(tickTimer); dueAt = 0; tickTimer = setTimeout(tick, 0); };
      let checkedUndefAt = 0;
      // the observing this wait has waited for (a page that observes new elements on every
      // frame, a carousel cloning its slides, is not waited for past OBSERVED_ROUNDS of it)
      let observerWaits = 0, lastObserved = 0;
      let undef = [];
      let blank = false; // the page shows nothing of what it holds (nothingShown)
      const tick = () => {
        const t = now();
        if (leftAt() >= since) return finish('navigation');
        if (notices) notices.look();
        let pending = null;
        const reqs = [...requests.values()].filter((s) => s >= since).length;
        if (reqs && t - t0 < requestCapMs) pending = { requests: reqs };
        if (!pending && !ready) {
          let n = 0;
          for (const [id, s] of replies) { if (t - s > REPLY_MAX_MS) replies.delete(id); else if (s >= since) n++; }
          if (n) pending = { replies: n };
        }
        let tms = 0;
        for (const [id, v] of timers) {
          if (t - v.due > LATE_MS[v.kind]) timers.delete(id); // a throttled or lost timer, message or frame (a hidden tab draws no frames)
          else if (v.at >= since && !(ready && ACTION_ONLY.has(v.kind))) tms++;
        }
        if (!pending && tms) pending = { timers: tms };
        // The action moved the page to another address of its own before changing anything in it
        // (history.pushState: VitePress, then imports the new page's code, a module load nothing
        // else here sees, and renders it ≈ 80 ms later): the new route is waited for, until the DOM
        // changes (at most ROUTE_LATE_MS). A page that rendered first, then pushed (Docusaurus), is
        // not; nor a move to an anchor of this page.
        if (!pending && !ready && routeAt >= since && !domSince && t - routeAt < ROUTE_LATE_MS) pending = { route: 1 };
        // an element observed since (for a page that loads: since its start) whose observer's
        // callback has not yet had its frame (not waited for past OBSERVED_LATE_MS: a hidden tab
        // draws no frames)
        if (!pending && observedAt >= since && roundFor < observedAt && t - observedAt < OBSERVED_LATE_MS && observerWaits <= OBSERVED_ROUNDS) {
          if (observedAt !== lastObserved) { lastObserved = observedAt; observerWaits++; }
          observerRound();
          pending = { observers: 1 };
        }
        if (!pending && !ready && t - t0 < requestCapMs) {
          const res = pendingResources(since);
          if (res.length) pending = { resources: res };
        }
        if (!pending && !ready && intervals.size) {
          let n = 0;
          for (const v of intervals.values()) {
            const from = Math.max(since, v.since, inputAt >= since ? inputAt : 0);
            if ((v.prev < from && t - from < 2 * v.period + 100) || (v.tick <= last && last > from && t - last < v.period + 100)) n++;
          }
          if (n) pending = { intervals: n };
        }
        if (!pending && ready) {
          if (doc.readyState !== 'complete') pending = { readyState: doc.readyState };
          else {
            const res = pendingResources();
            const refresh = res.length ? 0 : refreshDue();
            if (res.length) pending = { resources: res };
            else if (refresh > t) pending = { refresh: 1 };
            else {
              if (t - checkedUndefAt >= 100) { undef = undefinedElements(); blank = nothingShown(); checkedUndefAt = t; }
              const arriving = (undef.length || blank) && t - lastResourceAt() < UNDEFINED_GRACE_MS;
              if (arriving) pending = undef.length ? { undefinedElements: undef } : { nothingShown: true };
              else if ((undef.length || blank) && t - checkedUndefAt > 0) { undef = undefinedElements(); blank = nothingShown(); checkedUndefAt = t; }
            }
          }
        }
        // A tick that runs well after it was due found the page's thread stalled (a busy or
        // descheduled renderer): the page's own tasks that came due meanwhile (the next step
        // of a chain) may not have run yet, so the quiet is proven only by one more turn.
        const late = dueAt && t - dueAt > STALL_MS;
        // After an action, a round of the page's event loop since the last change shortens the
        // quiet window (drainedQuietMs): what the page still does is tracked, or was done.
        // Not on a page that polls (a short interval): what its ticks start is tracked for the
        // first two ticks after the action's input only (main-world.js), and a round of the
        // event loop can fall between two steps of what a later tick starts.
        const quietFor = !ready && drained === seq && !busySince(since, t) && intervals.size === 0 ? Math.min(quietMs, drainedQuietMs) : quietMs;
        if (!ready && drainedQuietMs < quietMs && drained !== seq) round();
        if (!pending && t - last >= quietFor) {
          const anims = animating(since);
          if (anims) { pending = { animations: anims }; animated = true; }
          else if (animated) {
            // The action's animations have just ended: their end counts as a change, so that
            // what the page does then (removes the notice that faded out, hides the dialog that
            // closed: often in a task of its own) is in the page that is read.
            animated = false;
            changed(t);
          } else if (!late || stalled) {
            // Answered with custom elements its scripts never defined, or showing nothing of
            // what it holds (no script arrived for UNDEFINED_GRACE_MS): said, as a user sees it so.
            const left = ready && (undef.length || blank) ? { ...(undef.length ? { undefinedElements: undef } : {}), ...(blank ? { nothingShown: true } : {}) } : undefined;
            // (the address the action moved to still not rendered after ROUTE_LATE_MS: the page
            // read is the one before it, and the answer says so)
            if (!ready && routeAt >= since && !domSince) return finish('quiet', { ...left, route: true });
            // (requests the action started still open past their cap: answered, and said)
            if (!ready && reqs) return finish('cap', { ...left, requests: reqs });
            return finish('quiet', left);
          }
        }
        stalled = late;
        if (t - t0 >= capMs) {
          if (!pending) pending = { domChanges: true };
          if (reqs) pending.requests = reqs;
          return finish('cap', pending);
        }
        // Wake when the quiet window would end, or to look again at what is pending.
        const wait = late ? 1 : pending ? POLL_MS : Math.max(1, Math.min(POLL_MS, quietFor - (t - last) + 1));
        dueAt = t + wait;
        tickTimer = setTimeout(tick, wait);
      };
      tick();
    });
  }

  // A fetch/XHR (or a fetch's body read) started or ended. After an action, one it started ending
  // counts as a change: what the page does with the answer comes next.
  function request(id, started) {
    if (started) { if (requests.size < 1000) requests.set(id, now()); return; }
    const at = requests.get(id);
    if (at === undefined) return;
    requests.delete(id);
    if (onRequestEnded) onRequestEnded(at, now());
    wake();
  }

  // A message sent on a WebSocket after which the page awaits the server's answer (started), or
  // the socket's next message handled, or its close, or the wait's end (main-world.js). After an
  // action, the answer's arrival counts as a change: what the page does with it comes next. Not
  // waited for while a page loads (a subscription sent at start may never be answered).
  function reply(id, started) {
    if (started) { if (replies.size < 100) replies.set(id, now()); return; }
    const at = replies.get(id);
    if (at === undefined) return;
    replies.delete(id);
    if (onRequestEnded) onRequestEnded(at, now());
    wake();
  }

  // A timer an event handler set (started) or that fired or was cleared (!started).
  // `kind`: 'timer', 'frame' (an animation frame callback), 'message' (one the page posted
  // itself) or 'idle' (an idle callback), for how long after it was due it is still waited for
  // (LATE_MS); `chainAt`: when the chain it belongs to started (main-world.js), if before now.
  function timer(id, started, delay, kind = 'timer', chainAt = 0) {
    const t = now();
    const at = chainAt > 0 && chainAt <= t ? chainAt : t;
    if (started) { if (delay <= TIMER_MAX_MS && timers.size < 1000) timers.set(id, { at, due: t + delay, kind }); return; }
    const v = timers.get(id);
    if (!v) return;
    timers.delete(id);
    if (onTimerFired) onTimerFired(v.at, t);
  }

  // Work off the page's thread began (a message to a worker, an IndexedDB transaction) or ended.
  function busy(id, started) {
    if (started) { if (offThread.size < 1000) offThread.set(id, now()); } else if (offThread.delete(id)) wake();
  }
  // Such work under way that began at or after `since` (within BUSY_MAX_MS).
  function busySince(since, t) {
    let n = 0;
    for (const [id, s] of offThread) { if (t - s > BUSY_MAX_MS) offThread.delete(id); else if (s >= since) n++; }
    return n;
  }

  // A short interval set (op '+', with its period), ticking ('~') or cleared ('-').
  function interval(id, op, period) {
    if (op === '+') { if (intervals.size < 100) intervals.set(id, { period, since: now(), prev: 0, tick: 0 }); return; }
    if (op === '-') { intervals.delete(id); return; }
    const v = intervals.get(id);
    if (v) { v.prev = v.tick; v.tick = now(); }
  }

  return {
    settle, state, request, reply, interval, shadowAttached, observed: observing, rescan: () => scan(doc),
    customElement, hooked: () => { heard = true; },
    timer: (id, started, delay, chainAt) => timer(id, started, delay, 'timer', chainAt),
    frame: (id, started, chainAt) => timer(`a${id}`, started, FRAME_MS, 'frame', chainAt),
    message: (id, started, chainAt) => timer(`m${id}`, started, 0, 'message', chainAt),
    idle: (id, started, chainAt) => timer(`r${id}`, started, 0, 'idle', chainAt),
    busy,
  };
}
