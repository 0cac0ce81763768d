// Runs in the page's own (MAIN) world of every frame at document_start (registered by
// background/page-scripts.js). JavaScript dialogs: alert(), confirm() and prompt() block the page
// until someone answers, and an extension without the debugger cannot answer them. In a tab the
// agent drives (background/driven.js; until the page learns whether it is one, ≈ 10-30 ms after
// its start, it is taken to be) they are answered at once by policy, without opening: alert is
// accepted, confirm and prompt dismissed (false, null), unless the agent asked for another answer
// for the next dialog (browser_handle_dialog); window.print() shows nothing. A beforeunload
// handler that would ask "Leave site?" is let through (leave) unless the agent asked to stay.
// Each dialog is recorded, through the private channel (channel.js), for the result of the action
// that opened it. In the person's own tabs all of them show as they would without the bridge. Also counts the page's requests,
// short timers, frame and idle callbacks, the messages it posts itself, its work off its
// thread (workers, IndexedDB) and the answers to what it sends on a WebSocket, reports shadow roots attached to elements in the page, and
// keeps each custom element's ElementInternals, whose ARIA the isolated world asks for, and
// installs the focus shim.
import { HELLO_MAIN, HELLO_ISOLATED, recordEvent, policyEvent, netEvent, ackEvent, observeEvent, shadowEvent, askEvent, internalsEvent, INTERNALS_ARIA } from './channel.js';
import { installFocusShim } from './focus-shim.js';
import { installConsoleCapture } from './console-main.js';
import { createNetLog } from './network-main.js';
import { BB_CONSOLE_MAX_ENTRIES } from '../shared/limits.js';

(() => {
  const w = window;
  if (w.__browserBridgeMain) return; // injected twice (registered and on demand)
  Object.defineProperty(w, '__browserBridgeMain', { value: true });
  const doc = document;
  // Captured before any page script runs: a page that later replaces Function.prototype.call,
  // Object.defineProperty or these methods sees nothing of the channel.
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const addEL = EventTarget.prototype.addEventListener;
  const removeEL = EventTarget.prototype.removeEventListener;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const CE = CustomEvent;
  const detailOf = Object.getOwnPropertyDescriptor(CustomEvent.prototype, 'detail').get;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const MAX_MESSAGE = 2000;

  let secret = null;
  let once = null; // { accept, promptText } for the next dialog, from the agent
  let driven = null; // whether the tab is the agent's: false = the person's, dialogs show
  const queued = []; // records made before the channel was open
  const observed = []; // console messages and requests seen before the channel was open (bounded)
  const onOpen = []; // what to do once the channel is open

  function send(rec) {
    if (!secret) { if (queued.length < 20) queued.push(rec); return; }
    try { apply(dispatch, doc, [new CE(recordEvent(secret), { detail: stringify(rec) })]); } catch { /* ignore */ }
  }

  // A console message or request record, for the isolated world (observe-isolated.js).
  function observe(rec) {
    if (!secret) { if (observed.length < BB_CONSOLE_MAX_ENTRIES) observed.push(rec); return; }
    try { apply(dispatch, doc, [new CE(observeEvent(secret), { detail: stringify(rec) })]); } catch { /* ignore */ }
  }

  function onPolicy(e) {
    let st = null;
    try { st = parse(String(apply(detailOf, e, []))); } catch { /* ignore */ }
    if (!st || typeof st !== 'object') return;
    once = st.policy && typeof st.policy === 'object' ? st.policy : null;
    if (typeof st.driven === 'boolean') driven = st.driven;
  }

  function onHello(e) {
    if (secret) return;
    const s = String(apply(detailOf, e, []) || '');
    if (!/^[0-9a-f-]{36}$/.test(s)) return;
    secret = s;
    apply(removeEL, doc, [HELLO_ISOLATED, onHello, true]);
    apply(addEL, doc, [policyEvent(secret), onPolicy, true]);
    apply(dispatch, doc, [new CE(ackEvent(secret))]);
    for (const r of queued.splice(0)) send(r);
    for (const r of observed.splice(0)) observe(r);
    for (const f of onOpen) f();
  }
  apply(addEL, doc, [HELLO_ISOLATED, onHello, true]);
  apply(dispatch, doc, [new CE(HELLO_MAIN)]);

  const text = (v) => String(v === undefined ? '' : v).slice(0, MAX_MESSAGE);

  // Answer one dialog: the agent's one-time answer if it gave one, else the default.
  function answer(kind, message, defaultValue) {
    const p = once;
    once = null;
    let accepted;
    let value;
    if (kind === 'alert') accepted = true;
    else if (kind === 'beforeunload') accepted = p ? !!p.accept : true; // the agent asked to go
    else accepted = p ? !!p.accept : false;
    if (kind === 'prompt' && accepted) value = p && typeof p.promptText === 'string' ? p.promptText : text(defaultValue);
    send({ kind, message: text(message), accepted, by: p ? 'agent' : 'default', ...(kind === 'prompt' && defaultValue !== undefined ? { defaultValue: text(defaultValue) } : {}) });
    return { accepted, value };
  }

  // The wrappers read as the functions they replace (Function.prototype.toString), so that a
  // site's check for native functions (anti-bot scripts, polyfill detection) sees no difference.
  const natives = new WeakMap(); // wrapper -> the original's source text
  const fnToString = Function.prototype.toString;
  const toStr = { toString() { return natives.has(this) ? natives.get(this) : apply(fnToString, this, []); } }.toString;
  natives.set(toStr, apply(fnToString, fnToString, []));
  try { defineProperty(Function.prototype, 'toString', { value: toStr, writable: true, configurable: true, enumerable: false }); } catch { /* ignore */ }
  const disguise = (wrapper, original) => { try { natives.set(wrapper, apply(fnToString, original, [])); } catch { /* ignore */ } return wrapper; };

  const wrap = (name, fn) => {
    const f = disguise({ [name](...a) { return fn.apply(this, a); } }[name], w[name]);
    try { defineProperty(w, name, { value: f, writable: true, configurable: true, enumerable: true }); } catch { /* ignore */ }
  };
  // The dialogs: answered by policy in the agent's tabs, the browser's own in the person's.
  const dialog = (name, fn) => {
    const native = w[name];
    if (typeof native !== 'function') return;
    wrap(name, (...a) => (driven === false ? apply(native, w, a) : fn(...a)));
  };
  dialog('alert', (message) => { answer('alert', message); });
  dialog('confirm', (message) => answer('confirm', message).accepted);
  dialog('prompt', (message, def) => {
    const r = answer('prompt', message, def);
    return r.accepted ? r.value : null;
  });
  // The print dialog holds the page (a headed browser) until someone closes it: not shown.
  dialog('print', () => { send({ kind: 'print', message: '', accepted: false, by: 'default' }); });

  // beforeunload: the first listener of the page patches the event so that later listeners
  // asking to stay (preventDefault, returnValue) are recorded, and obeyed only when the agent
  // asked to stay; an onbeforeunload handler's return value likewise. It is added only when the
  // page adds a beforeunload listener or handler of its own (just before it, so it runs first):
  // a window with none is not asked before a navigation the browser starts (open_url), which
  // saves that navigation a round trip to this page, ≈ 4-9 ms (bench/README.md).
  const realPreventDefault = Event.prototype.preventDefault;
  let asked = false;
  function decide(ev) {
    if (asked) return;
    asked = true;
    const r = answer('beforeunload', '');
    if (!r.accepted && ev) { try { apply(realPreventDefault, ev, []); } catch { /* ignore */ } }
  }
  let guarded = false;
  function guard() {
    if (guarded) return;
    guarded = true;
    apply(addEL, w, ['beforeunload', (ev) => {
      asked = false;
      if (driven === false) return; // the person's tab: the browser asks them
      try {
        defineProperty(ev, 'preventDefault', { value: () => decide(ev), configurable: true });
        let rv = '';
        defineProperty(ev, 'returnValue', { get: () => rv, set: (v) => { rv = v; if (v) decide(ev); }, configurable: true });
      } catch { /* ignore */ }
    }, true]);
  }
  const addListener = disguise({
    addEventListener(type, listener) {
      if (type === 'beforeunload' && (this === w || this == null)) guard();
      return apply(addEL, this, arguments);
    },
  }.addEventListener, addEL);
  try { defineProperty(EventTarget.prototype, 'addEventListener', { value: addListener, writable: true, configurable: true, enumerable: true }); } catch { /* ignore */ }
  const handlerDesc = Object.getOwnPropertyDescriptor(w, 'onbeforeunload');
  if (handlerDesc && handlerDesc.set) {
    let userHandler = null;
    const wrapped = function (ev) {
      if (typeof userHandler !== 'function') return undefined;
      const r = userHandler.call(this, ev);
      if (driven === false) return r;
      if (r !== undefined && r !== null) decide(ev);
      return undefined;
    };
    Object.defineProperty(w, 'onbeforeunload', {
      configurable: true, enumerable: true,
      get: () => userHandler,
      set: (f) => {
        userHandler = typeof f === 'function' ? f : null;
        if (userHandler) guard();
        handlerDesc.set.call(w, userHandler ? wrapped : null);
      },
    });
  }

  // What the page logs, from before its first script (console-main.js).
  installConsoleCapture(w, (r) => observe({ t: 'log', ...r }), disguise, addEL);
  const netLog = createNetLog(w, (r) => observe({ t: 'req', ...r }));

  // Requests the page makes with fetch() and XMLHttpRequest: how many are under way, so that an
  // action whose effect waits for an answer from the server is settled after it (isolated.js);
  // and each one's method, URL and status for browser_network_requests (network-main.js).
  let nextId = 0;
  const net = (id, d) => {
    if (secret) { try { apply(dispatch, doc, [new CE(netEvent(secret), { detail: `${d}:${id}` })]); } catch { /* ignore */ } }
  };
  const bodies = watchStreamedBodies();
  const realFetch = w.fetch;
  if (typeof realFetch === 'function') {
    wrap('fetch', function (...a) {
      const t0 = bodies.started();
      const p = realFetch.apply(this, a);
      netLog.fetch(a, p);
      const id = ++nextId;
      net(id, '+');
      let done = false;
      const end = () => { if (!done) { done = true; net(id, '-'); } };
      p.then((res) => { bodies.answered(res, a, t0); end(); }, end);
      return p;
    });
  }

  // A fetch's body the page reads as a stream (response.body: an AI chat's tokens, a log that
  // grows; through getReader(), for await or pipeThrough) is rendered piece by piece, for seconds,
  // and the action was answered after the first piece. From the page's first look at the body it
  // counts as a request until the browser's Resource Timing entry of the request comes, which
  // comes once the body has arrived (at most BODY_MAX_MS; http(s) only: a blob: or data: URL has
  // no entry). A body whose entry came before the page looked at it had arrived whole. Bodies read
  // whole (text(), json() …) are tracked as reads, below.
  function watchStreamedBodies() {
    const BODY_MAX_MS = 30_000;
    const WATCH_MAX = 100;
    const none = { started: () => 0, answered: () => {} };
    const R = w.Response && w.Response.prototype;
    const bodyGet = R && Object.getOwnPropertyDescriptor(R, 'body')?.get;
    const PO = w.PerformanceObserver;
    const entryName = w.PerformanceEntry && Object.getOwnPropertyDescriptor(w.PerformanceEntry.prototype, 'name')?.get;
    const entryStart = w.PerformanceEntry && Object.getOwnPropertyDescriptor(w.PerformanceEntry.prototype, 'startTime')?.get;
    const initiator = w.PerformanceResourceTiming && Object.getOwnPropertyDescriptor(w.PerformanceResourceTiming.prototype, 'initiatorType')?.get;
    const getEntries = PO && w.PerformanceObserverEntryList?.prototype.getEntries;
    const ReqC = w.Request;
    const reqUrl = ReqC && Object.getOwnPropertyDescriptor(ReqC.prototype, 'url')?.get;
    const perf = w.performance;
    const perfNow = w.Performance?.prototype.now;
    const URLC = w.URL;
    if (!bodyGet || typeof PO !== 'function' || !entryName || !entryStart || !initiator || !getEntries || !perfNow) return none;
    const now = () => apply(perfNow, perf, []);
    const fetched = new WeakMap(); // Response -> { u, t0 } of a fetch the page made
    const seen = new Map();        // URL -> start of the last fetch entry (the last 200 URLs)
    const waiting = new Map();     // URL -> [{ t0, end }] bodies read as streams, awaiting their entry
    let po = null;
    const arrived = (list) => {
      for (const e of apply(getEntries, list, [])) {
        if (apply(initiator, e, []) !== 'fetch') continue;
        const u = apply(entryName, e, []);
        const st = apply(entryStart, e, []);
        seen.delete(u);
        seen.set(u, st);
        if (seen.size > 200) seen.delete(seen.keys().next().value);
        const q = waiting.get(u);
        if (!q) continue;
        for (let i = 0; i < q.length; i++) {
          if (q[i].t0 <= st + 1) { const [x] = q.splice(i, 1); x.end(); break; }
        }
        if (!q.length) waiting.delete(u);
      }
    };
    const urlOf = (a) => {
      try { return ReqC && a[0] instanceof ReqC ? apply(reqUrl, a[0], []) : new URLC(String(a[0]), w.location.href).href; } catch { return ''; }
    };
    let watching = 0; // bodies waited for now, all URLs (a page reading hundreds of streams at once gets no more)
    const watch = (u, t0) => {
      if (watching >= WATCH_MAX) return;
      const id = ++nextId;
      let timer = 0;
      const rec = { t0, end: () => { if (!timer) return; apply(realCT, w, [timer]); timer = 0; watching--; net(id, '-'); } };
      let q = waiting.get(u);
      if (!q) { q = []; waiting.set(u, q); }
      q.push(rec);
      watching++;
      net(id, '+');
      timer = apply(realST, w, [() => { const i = q.indexOf(rec); if (i >= 0) q.splice(i, 1); if (!q.length && waiting.get(u) === q) waiting.delete(u); rec.end(); }, BODY_MAX_MS]);
    };
    defineProperty(R, 'body', {
      configurable: true, enumerable: true,
      get: disguise(Object.getOwnPropertyDescriptor({ get body() {
        const stream = apply(bodyGet, this, []);
        const f = fetched.get(this);
        if (f && stream) {
          fetched.delete(this);
          if (!(seen.get(f.u) >= f.t0 - 1)) watch(f.u, f.t0);
        }
        return stream;
      } }, 'body').get, bodyGet),
    });
    return {
      // A fetch is made: the observer listens from now on; when it started (the entry's clock).
      started() {
        if (!po) { try { po = new PO(arrived); po.observe({ type: 'resource' }); } catch { po = false; } }
        return now();
      },
      // Its headers came (res): its body is watched if the page reads it as a stream.
      answered(res, a, t0) {
        if (!po || !res || typeof res !== 'object') return;
        const u = urlOf(a);
        if (/^https?:/i.test(u)) try { fetched.set(res, { u, t0 }); } catch { /* not a Response */ }
      },
    };
  }
  // A fetch's promise settles with the answer's headers; its body is read after that (text(),
  // json() …), often arriving later; a file the user picked is read the same way (Blob's text(),
  // arrayBuffer() …, or a FileReader: an upload form that shows each file's name and first line
  // once read). Each read counts as a request until it ends.
  const trackReads = (proto, names) => {
    for (const name of names) {
      const real = proto && proto[name];
      if (typeof real !== 'function') continue;
      defineProperty(proto, name, {
        configurable: true, writable: true, enumerable: true,
        value: disguise({ [name](...a) {
          const p = apply(real, this, a);
          const id = ++nextId;
          net(id, '+');
          const end = () => net(id, '-');
          p.then(end, end);
          return p;
        } }[name], real),
      });
    }
  };
  trackReads(w.Response && w.Response.prototype, ['text', 'json', 'blob', 'arrayBuffer', 'formData', 'bytes']);
  trackReads(w.Blob && w.Blob.prototype, ['text', 'arrayBuffer', 'bytes']);
  const FR = w.FileReader && w.FileReader.prototype;
  if (FR) {
    for (const name of ['readAsText', 'readAsArrayBuffer', 'readAsDataURL', 'readAsBinaryString']) {
      const real = FR[name];
      if (typeof real !== 'function') continue;
      defineProperty(FR, name, {
        configurable: true, writable: true, enumerable: true,
        value: disguise({ [name](...a) {
          const id = ++nextId;
          const end = () => { net(id, '-'); apply(removeEL, this, ['loadend', end]); };
          apply(addEL, this, ['loadend', end]);
          net(id, '+');
          try { return apply(real, this, a); } catch (e) { end(); throw e; }
        } }[name], real),
      });
    }
  }
  const XHR = w.XMLHttpRequest;
  if (XHR) {
    const send0 = XHR.prototype.send;
    const open0 = XHR.prototype.open;
    defineProperty(XHR.prototype, 'open', {
      configurable: true, writable: true, enumerable: true,
      value: disguise({ open(...a) { netLog.xhrOpen(this, a[0], a[1]); return open0.apply(this, a); } }.open, open0),
    });
    defineProperty(XHR.prototype, 'send', {
      configurable: true, writable: true, enumerable: true,
      value: disguise({ send(...a) {
        let done = false;
        const id = ++nextId;
        const logged = netLog.xhrSend(this);
        const end = () => { if (!done) { done = true; net(id, '-'); logged(); apply(removeEL, this, ['loadend', end]); } };
        apply(addEL, this, ['loadend', end]);
        net(id, '+');
        try { return send0.apply(this, a); } catch (e) { end(); throw e; }
      } }.send, send0),
    });
  }

  // Timers the page sets from an event handler (not from another timer or an animation frame),
  // due within a second: a click handler that navigates or renders "in a moment" (a debounce,
  // setTimeout(go, 150)); and the timers those timers set in turn, for a second after the first
  // was set (a chain: RequireJS's and promise libraries' next ticks, setTimeout(fn, 4) after
  // setTimeout(fn, 4)), each reported with the time its chain started. The isolated world waits
  // for those whose chain started after an action (settle.js). A clock that re-arms its timer
  // began before the action: not waited for.
  const CHAIN_MS = 1000;
  let inTimer = 0;
  let chainAt = 0; // while a reported timer's callback runs: when its chain started
  const tracked = new Set();
  // When the work being scheduled now started: now, from an event handler (or a message the page
  // posted from one: see below); the start of its chain, from a reported timer's callback or a
  // reported message's handler within CHAIN_MS of it; 0 (not reported) otherwise (a clock, an
  // animation loop, a chain older than that).
  const eventOf = Object.getOwnPropertyDescriptor(w, 'event')?.get || Object.getOwnPropertyDescriptor(w.Window?.prototype || {}, 'event')?.get;
  const delivered = new WeakMap(); // a message event of a reported message -> when its chain started
  // An animation's or a transition's own events (transitionend, animationend …) come from the work
  // that started it, elapsedTime ago: a timer set from one continues the chain of a reported
  // timer's callback that ran then (an autoplay carousel: its timer moves the slide, the slide's
  // transitionend sets the next timer, forever; each was taken for a new chain, and every wait
  // on such a page ran to its cap), else it starts one at the animation's start.
  // A transition starts at the style change after the callback that caused it, and its end event
  // comes at the first frame after it ended: on a loaded machine each can be a few hundred ms
  // late (the gate's run matched no callback at 50 ms, and the carousel held a click to its cap).
  const ANIM_RUN_SLACK_MS = 500;
  const elapsedOf = (C) => { try { return C ? Object.getOwnPropertyDescriptor(C.prototype, 'elapsedTime')?.get || null : null; } catch { return null; } };
  const TE = w.TransitionEvent, AE = w.AnimationEvent, teElapsed = elapsedOf(TE), aeElapsed = elapsedOf(AE);
  const runs = []; // { t, chainAt } of the last 8 reported timers' callbacks (a ring: no Array method the page may replace)
  let runAt = 0;
  const animStartOf = (e, t) => {
    try {
      if (teElapsed && e instanceof TE) return t - 1000 * apply(teElapsed, e, []);
      if (aeElapsed && e instanceof AE) return t - 1000 * apply(aeElapsed, e, []);
    } catch { /* ignore */ }
    return null;
  };
  const chainStart = (t) => {
    if (inTimer) return chainAt && t - chainAt < CHAIN_MS ? chainAt : 0;
    let e = null;
    try { e = eventOf ? apply(eventOf, w, []) : null; } catch { /* ignore */ }
    if (e && typeof e === 'object' && delivered.has(e)) { const a = delivered.get(e); return a && t - a < CHAIN_MS ? a : 0; }
    const s = e && typeof e === 'object' ? animStartOf(e, t) : null;
    if (s != null && Number.isFinite(s)) {
      let c = s;
      // the last reported callback that ran before the animation began (its estimate)
      let last = null;
      for (let i = 0; i < runs.length; i++) { const r = runs[i]; if (s >= r.t - 5 && s - r.t <= ANIM_RUN_SLACK_MS && (!last || r.t > last.t)) last = r; }
      if (last && last.chainAt < c) c = last.chainAt;
      return t - c < CHAIN_MS ? c : 0;
    }
    return t;
  };
  const timer = (id, d, delay, at) => {
    if (d === '+') { if (tracked.size < 1000) tracked.add(id); else return; } else if (!tracked.delete(id)) return;
    if (secret) { try { apply(dispatch, doc, [new CE(netEvent(secret), { detail: d === '+' ? `t+:${id}:${delay}:${at}` : `t-:${id}` })]); } catch { /* ignore */ } }
  };
  const realST = w.setTimeout;
  const realCT = w.clearTimeout;
  const realSI = w.setInterval;
  const realRAF = w.requestAnimationFrame;
  const nested = (fn) => function (...a) { inTimer++; try { return fn.apply(this, a); } finally { inTimer--; } };
  wrap('setTimeout', function (fn, delay, ...rest) {
    const d = Math.max(0, Number(delay) || 0);
    if (typeof fn !== 'function') return realST.call(this, fn, delay, ...rest);
    const at = chainStart(Date.now());
    if (!at || d > 1000) return realST.call(this, nested(fn), delay, ...rest);
    let id = 0;
    const cb = function (...a) {
      timer(id, '-');
      runs[runAt++ & 7] = { t: Date.now(), chainAt: at };
      inTimer++;
      const outer = chainAt;
      chainAt = at;
      try { return fn.apply(this, a); } finally { inTimer--; chainAt = outer; }
    };
    id = realST.call(this, cb, delay, ...rest);
    timer(id, '+', d, at);
    return id;
  });
  // Short intervals (at most 250 ms): a page that polls its model for changes (Polymer 0.x's
  // observe-js flushes every 125 ms, other dirty-checkers alike) shows an action's effect only at
  // its next ticks; the isolated world waits for them after an action (settle.js).
  const realCI = w.clearInterval;
  const polls = new Set();
  const poll = (id, d) => {
    if (secret) { try { apply(dispatch, doc, [new CE(netEvent(secret), { detail: `i${d}:${id}` })]); } catch { /* ignore */ } }
  };
  const cleared = (id) => { timer(id, '-'); if (polls.delete(id)) poll(id, '-'); };
  // The last input event (the action's click, key or submit): the first two ticks of a short
  // interval after it may be the ones that see what it changed (Sammy.js's 10 ms poll of
  // location.hash), and the timers they set start a chain, as an event handler's do: the route
  // such a tick runs in steps of setTimeout was read before its render (the gate's flake).
  let inputAt = 0;
  for (const type of ['pointerdown', 'mousedown', 'click', 'keydown', 'input', 'change', 'submit']) {
    try { apply(addEL, w, [type, () => { inputAt = Date.now(); }, true]); } catch { /* ignore */ }
  }
  wrap('clearTimeout', function (id) { cleared(id); return realCT.call(this, id); });
  wrap('setInterval', function (fn, delay, ...rest) {
    const d = Number(delay) || 0;
    if (typeof fn !== 'function' || d <= 0 || d > 250 || polls.size >= 100) return realSI.call(this, typeof fn === 'function' ? nested(fn) : fn, delay, ...rest);
    let id = 0;
    let mark = 0; // the input event its ticks are counted from …
    let ticks = 0; // … and how many ran since
    const cb = function (...a) {
      poll(id, '~');
      const t = Date.now();
      if (inputAt !== mark) { mark = inputAt; ticks = 0; }
      const fresh = mark && ++ticks <= 2 && t - mark < CHAIN_MS;
      inTimer++;
      const outer = chainAt;
      if (fresh) chainAt = t;
      try { return fn.apply(this, a); } finally { inTimer--; chainAt = outer; }
    };
    id = realSI.call(this, cb, delay, ...rest);
    polls.add(id);
    poll(`${id}:${d}`, '+');
    return id;
  });
  if (realCI) wrap('clearInterval', function (id) { cleared(id); return realCI.call(this, id); });
  // Animation frame callbacks an event handler asks for (a framework that renders at the next
  // frame) are reported like its timers, and so are those its frame callbacks and timers ask for
  // in turn within CHAIN_MS of it (an animation the handler starts: jQuery's animate() slides an
  // accordion's section open on every frame for 400 ms, and the answer was read after its first
  // frames, with neither section's text shown); a loop older than that (a clock, a game), or
  // one a timer not reported runs, is not.
  const realCAF = w.cancelAnimationFrame;
  const frames = new Set();
  const frame = (id, d, at) => {
    if (d === '+') { if (frames.size < 1000) frames.add(id); else return; } else if (!frames.delete(id)) return;
    if (secret) { try { apply(dispatch, doc, [new CE(netEvent(secret), { detail: d === '+' ? `a+:${id}:0:${at}` : `a-:${id}` })]); } catch { /* ignore */ } }
  };
  if (realRAF) {
    wrap('requestAnimationFrame', function (fn) {
      if (typeof fn !== 'function') return realRAF.call(this, fn);
      const at = chainStart(Date.now());
      if (!at) return realRAF.call(this, nested(fn));
      let id = 0;
      const cb = function (...a) {
        frame(id, '-');
        runs[runAt++ & 7] = { t: Date.now(), chainAt: at };
        inTimer++;
        const outer = chainAt;
        chainAt = at;
        try { return fn.apply(this, a); } finally { inTimer--; chainAt = outer; }
      };
      id = realRAF.call(this, cb);
      frame(id, '+', at);
      return id;
    });
  }
  if (realRAF && realCAF) wrap('cancelAnimationFrame', function (id) { frame(id, '-'); return realCAF.call(this, id); });

  // Messages the page posts to itself, from an event handler or a reported timer's chain: through
  // a MessageChannel it made (React's scheduler renders in such a message's task, as do many
  // promise libraries' and setImmediate polyfills' next ticks) or window.postMessage to its own
  // window. They are reported like timers (due at once) until delivered, and what their handlers
  // schedule in turn belongs to their chain (chainStart, through window.event). A port's messages
  // arrive in order, as do a window's own: each delivery ends the oldest one reported there.
  const queues = new WeakMap(); // receiving port (or the window) -> [[id, at]] reported, not yet delivered
  let nextMsg = 0;
  const msg = (id, d, at) => {
    if (secret) { try { apply(dispatch, doc, [new CE(netEvent(secret), { detail: d === '+' ? `m+:${id}:0:${at}` : `m-:${id}` })]); } catch { /* ignore */ } }
  };
  // A message reached its handlers: the oldest one posted there is delivered (those not reported
  // are queued too, so that each delivery is matched to its own post).
  // Posts older than MESSAGE_LATE_MS are dropped first: a frame of the page's origin that posts to
  // it through this window's postMessage goes through the wrapper too, but its message comes from
  // that frame, so it is never matched here.
  const MESSAGE_LATE_MS = 250;
  const onDelivered = function (e) {
    const q = queues.get(this);
    if (!q || !q.length || (this === w && e.source !== w)) return;
    const t = Date.now();
    while (q.length > 1 && t - q[0][2] > MESSAGE_LATE_MS) { const [id, at] = q.shift(); if (at) msg(id, '-'); }
    const [id, at] = q.shift();
    delivered.set(e, at);
    if (at) msg(id, '-');
  };
  // The page posted a message to `target` (a port of its own channel, or its own window).
  const posted = (target) => {
    let q = queues.get(target);
    if (q === false) return; // given up on: its messages are not delivered here
    if (!q) { q = []; queues.set(target, q); }
    if (q.length >= 100) { for (const [id, at] of q) if (at) msg(id, '-'); queues.set(target, false); return; }
    const t = Date.now();
    const at = chainStart(t);
    const id = ++nextMsg;
    q.push([id, at, t]);
    if (at) msg(id, '+', at);
  };
  const RealMC = w.MessageChannel;
  const MP = w.MessagePort;
  const partner = new WeakMap(); // a port of a channel the page made -> the other port
  if (typeof RealMC === 'function' && MP) {
    const MC = disguise(function MessageChannel() {
      if (!new.target) return RealMC(); // throws, as the original does
      const ch = new RealMC();
      try {
        const p1 = ch.port1, p2 = ch.port2;
        partner.set(p1, p2); partner.set(p2, p1);
        apply(addEL, p1, ['message', onDelivered]);
        apply(addEL, p2, ['message', onDelivered]);
      } catch { /* ignore */ }
      return ch;
    }, RealMC);
    MC.prototype = RealMC.prototype;
    try { defineProperty(w, 'MessageChannel', { value: MC, writable: true, configurable: true, enumerable: false }); } catch { /* ignore */ }
    const realPost = MP.prototype.postMessage;
    defineProperty(MP.prototype, 'postMessage', {
      configurable: true, writable: true, enumerable: true,
      value: disguise({ postMessage(...a) {
        const r = apply(realPost, this, a);
        const to = partner.get(this);
        // A port sent along (to a worker, a frame) delivers elsewhere: not waited for.
        const moved = a[1] && (Array.isArray(a[1]) ? a[1] : a[1].transfer);
        if (moved && typeof moved[Symbol.iterator] === 'function') for (const p of moved) if (partner.has(p)) { queues.set(p, false); partner.delete(partner.get(p)); partner.delete(p); }
        if (to && partner.get(to) === this) posted(to);
        return r;
      } }.postMessage, realPost),
    });
  }
  const realWinPost = w.postMessage;
  if (typeof realWinPost === 'function') {
    apply(addEL, w, ['message', onDelivered, true]);
    wrap('postMessage', function (...a) {
      const r = apply(realWinPost, this, a);
      if (this === w || this === undefined || this === null) posted(w);
      return r;
    });
  }

  // Idle callbacks an event handler (or a tracked chain) asks for: reported like its timers until
  // they run (a page that renders "when idle"); what they schedule joins the chain.
  const realRIC = w.requestIdleCallback;
  const realCIC = w.cancelIdleCallback;
  const idles = new Map(); // id -> when its chain started
  if (typeof realRIC === 'function') {
    const idle = (id, d, at) => {
      if (secret) { try { apply(dispatch, doc, [new CE(netEvent(secret), { detail: d === '+' ? `r+:${id}:0:${at}` : `r-:${id}` })]); } catch { /* ignore */ } }
    };
    wrap('requestIdleCallback', function (fn, ...rest) {
      const at = typeof fn === 'function' ? chainStart(Date.now()) : 0;
      if (!at || idles.size >= 1000) return realRIC.call(this, typeof fn === 'function' ? nested(fn) : fn, ...rest);
      let id = 0;
      const cb = function (...a) {
        if (idles.delete(id)) idle(id, '-');
        inTimer++;
        const outer = chainAt;
        chainAt = at;
        try { return fn.apply(this, a); } finally { inTimer--; chainAt = outer; }
      };
      id = realRIC.call(this, cb, ...rest);
      idles.set(id, at);
      idle(id, '+', at);
      return id;
    });
    if (typeof realCIC === 'function') wrap('cancelIdleCallback', function (id) { if (idles.delete(id)) idle(id, '-'); return realCIC.call(this, id); });
  }

  // Work that ends off the page's thread, whose answer the page may render: a message to a worker
  // (until the worker's next message back) and an IndexedDB transaction (until it completes or
  // fails), started from an event handler or a tracked chain. Some never end (a worker told
  // something, answering nothing), so they are not waited for as such: while one is under way,
  // the page's going idle proves nothing and the short quiet window is not used (settle.js).
  let nextBusy = 0;
  const busy = (target, endTypes) => {
    if (!chainStart(Date.now()) || !secret) return;
    const id = ++nextBusy;
    const send1 = (d) => { try { apply(dispatch, doc, [new CE(netEvent(secret), { detail: `b${d}:${id}` })]); } catch { /* ignore */ } };
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      send1('-');
      for (const t of endTypes) apply(removeEL, target, [t, end, true]);
    };
    for (const t of endTypes) apply(addEL, target, [t, end, true]);
    send1('+');
  };
  const RealWorker = w.Worker;
  if (typeof RealWorker === 'function' && RealWorker.prototype.postMessage) {
    const realWorkerPost = RealWorker.prototype.postMessage;
    defineProperty(RealWorker.prototype, 'postMessage', {
      configurable: true, writable: true, enumerable: true,
      value: disguise({ postMessage(...a) { const r = apply(realWorkerPost, this, a); busy(this, ['message', 'messageerror', 'error']); return r; } }.postMessage, realWorkerPost),
    });
  }
  // An element the page starts to observe for coming into view or changing size
  // (IntersectionObserver, ResizeObserver: Turbo's lazy frames, lazy islands, "load more"
  // sentinels, responsive components): the callback comes with the next frame drawn, and what it
  // starts (a fetch) after. Said once per frame at most; the isolated world then waits for a
  // frame and an idle callback after it (settle.js), so that the callback has run.
  let observedSaid = false;
  const observedNow = () => {
    if (observedSaid || !secret) return;
    observedSaid = true;
    try { apply(dispatch, doc, [new CE(netEvent(secret), { detail: `o+:0:0:${Date.now()}` })]); } catch { /* ignore */ }
    try { realRAF?.call(w, () => { observedSaid = false; }); } catch { observedSaid = false; }
  };
  const watched = new WeakMap(); // observer -> the elements it was told to observe
  for (const C of [w.IntersectionObserver, w.ResizeObserver]) {
    const realObserve = C?.prototype?.observe;
    if (typeof realObserve !== 'function') continue;
    defineProperty(C.prototype, 'observe', {
      configurable: true, writable: true, enumerable: true,
      value: disguise({ observe(...a) {
        const r = apply(realObserve, this, a);
        // (an element it observes already is no news: some libraries observe again on each render)
        let seen = watched.get(this);
        if (!seen) { seen = new WeakSet(); watched.set(this, seen); }
        if (a[0] && typeof a[0] === 'object' && !seen.has(a[0])) { seen.add(a[0]); observedNow(); }
        return r;
      } }.observe, realObserve),
    });
  }
  // Custom elements the page defines, asks about (customElements.get, whenDefined: an
  // autoloader checking what it still has to import) or creates itself: on a page that neither
  // defines nor asks, a dashed element its script made, or one holding elements, is a plain
  // container (Angular's components), not waited for (settle.js). Said once each, 200 at most.
  const registry = w.CustomElementRegistry?.prototype;
  if (registry) {
    const said = new Set();
    const say = (k, name) => {
      const key = k === 'e+' ? k : typeof name === 'string' && name.length <= 100 && /^[a-z][a-z0-9._-]*-[a-z0-9._-]*$/.test(name) ? k + name : '';
      // (the page's first definition is always told: a page that made 200 dashed names first
      // would otherwise pass for one that defines none)
      if (!secret || !key || said.has(key) || (key !== 'e+' && said.size >= 200)) return;
      said.add(key);
      try { apply(dispatch, doc, [new CE(netEvent(secret), { detail: `${k}:${k === 'e+' ? 0 : name}` })]); } catch { /* ignore */ }
    };
    // A dashed element the page's script creates (Angular's renderer: its component hosts, an
    // empty <router-outlet>): one nothing defines is the page's own container ('e=').
    const realCreate = w.Document?.prototype?.createElement;
    if (typeof realCreate === 'function') {
      defineProperty(w.Document.prototype, 'createElement', {
        configurable: true, writable: true, enumerable: true,
        value: disguise({ createElement(...a) {
          const el = apply(realCreate, this, a);
          if (el && el.localName && el.localName.includes('-')) say('e=', el.localName);
          return el;
        } }.createElement, realCreate),
      });
    }
    for (const [m, k] of [['define', 'e+'], ['get', 'e?'], ['whenDefined', 'e?']]) {
      const real = registry[m];
      if (typeof real !== 'function') continue;
      defineProperty(registry, m, {
        configurable: true, writable: true, enumerable: true,
        value: disguise({ [m](...a) { say(k, a[0]); return apply(real, this, a); } }[m], real),
      });
    }
  }
  const IDB = w.IDBDatabase;
  if (IDB && typeof IDB.prototype.transaction === 'function') {
    const realTx = IDB.prototype.transaction;
    defineProperty(IDB.prototype, 'transaction', {
      configurable: true, writable: true, enumerable: true,
      value: disguise({ transaction(...a) { const tx = apply(realTx, this, a); busy(tx, ['complete', 'abort', 'error']); return tx; } }.transaction, realTx),
    });
  }

  // A message the page sends on a WebSocket from an event handler or a tracked chain (a chat's
  // "send", Socket.IO's emit, Phoenix LiveView's and Blazor Server's every click): what the page
  // shows next comes with the server's answer, a network round trip later, which no quiet window
  // covers. It is waited for, after an action (settle.js), until the socket's next message has
  // been handled by the page (this listener is added after the page's own), the socket closes,
  // or WS_REPLY_MS passed (a send the server answers with nothing: a typing indicator). One at a
  // time per socket; a heartbeat sent from an old chain or a clock is not tracked.
  const WS_REPLY_MS = 1000;
  const WS = w.WebSocket;
  const wsState = WS && Object.getOwnPropertyDescriptor(WS.prototype, 'readyState')?.get;
  if (typeof WS === 'function' && typeof WS.prototype.send === 'function' && wsState) {
    const realSend = WS.prototype.send;
    const awaiting = new WeakSet();
    const ENDS = ['message', 'close', 'error'];
    defineProperty(WS.prototype, 'send', {
      configurable: true, writable: true, enumerable: true,
      value: disguise({ send(...a) {
        const r = apply(realSend, this, a);
        if (secret && !awaiting.has(this) && apply(wsState, this, []) === 1 && chainStart(Date.now())) {
          const sock = this;
          const id = ++nextId;
          let timer = 0;
          const end = () => {
            if (!awaiting.has(sock)) return;
            awaiting.delete(sock);
            apply(realCT, w, [timer]);
            for (const t of ENDS) apply(removeEL, sock, [t, end]);
            net(id, 'w-');
          };
          awaiting.add(sock);
          for (const t of ENDS) apply(addEL, sock, [t, end]);
          timer = apply(realST, w, [end, WS_REPLY_MS]);
          net(id, 'w+');
        }
        return r;
      } }.send, realSend),
    });
  }

  // The page's own checkValidity() calls fire `invalid` events, as the browser's refusal of a
  // form submission does, but show the user nothing; its reportValidity() calls show the bubble,
  // but refuse no submission. Each call is reported around it ('v' and 'p'), so that the isolated
  // world tells them from a refused submission (validation.js).
  const checkEvent = (k, d) => { if (secret) { try { apply(dispatch, doc, [new CE(netEvent(secret), { detail: `${k}${d}:0` })]); } catch { /* ignore */ } } };
  for (const C of [w.HTMLFormElement, w.HTMLInputElement, w.HTMLSelectElement, w.HTMLTextAreaElement, w.HTMLButtonElement,
    w.HTMLFieldSetElement, w.HTMLOutputElement, w.HTMLObjectElement, w.ElementInternals]) {
    for (const [name, k] of [['checkValidity', 'v'], ['reportValidity', 'p']]) {
      const real = C && C.prototype && C.prototype[name];
      if (typeof real !== 'function') continue;
      defineProperty(C.prototype, name, {
        configurable: true, writable: true, enumerable: true,
        value: disguise({ [name](...a) { checkEvent(k, '+'); try { return apply(real, this, a); } finally { checkEvent(k, '-'); } } }[name], real),
      });
    }
  }

  // Shadow roots: a MutationObserver on the document does not see inside them, so the isolated
  // world observes each one (settle.js). It finds those in what is added to the page; one
  // attached to an element already in the page (a custom element upgraded in place, a
  // component that renders late) is reported here, with an event on the host that only the
  // isolated world knows the name of.
  const realAttach = w.Element && w.Element.prototype.attachShadow;
  const connectedOf = Object.getOwnPropertyDescriptor(w.Node.prototype, 'isConnected')?.get;
  if (typeof realAttach === 'function' && connectedOf) {
    defineProperty(w.Element.prototype, 'attachShadow', {
      configurable: true, writable: true, enumerable: true,
      value: disguise({ attachShadow(...a) {
        const root = apply(realAttach, this, a);
        if (secret && apply(connectedOf, this, [])) {
          try { apply(dispatch, this, [new CE(shadowEvent(secret), { composed: true })]); } catch { /* ignore */ }
        }
        return root;
      } }.attachShadow, realAttach),
    });
  }

  // ElementInternals: a custom element's class may give it its role, name and states there
  // (attachInternals(): RHDS's rh-switch sets role switch, ariaChecked and ariaLabel; Material
  // Web's md-primary-tab role tab and ariaSelected), which no attribute shows and which only the
  // page's own world can read. Each element's internals are kept; the first one is told to the
  // isolated world ('x+'), which from then on asks for a custom element's with an event on it
  // (askEvent), answered at once on the document (internalsEvent) with what its internals hold,
  // read through the getters captured here (a page that replaces them later changes nothing).
  // The answer is only ARIA the page's own class set; the ask carries nothing.
  const realInternals = w.HTMLElement?.prototype?.attachInternals;
  const EIp = w.ElementInternals?.prototype;
  if (typeof realInternals === 'function' && EIp) {
    const create = Object.create;
    const getters = [];
    for (const [attr, prop] of INTERNALS_ARIA) {
      const g = Object.getOwnPropertyDescriptor(EIp, prop)?.get;
      if (g) getters.push([attr, g]);
    }
    const kept = new WeakMap(); // element -> its ElementInternals
    const early = []; // elements given internals before the channel was open (at most 1000)
    let told = false;
    const onAsk = function () {
      const i = kept.get(this);
      if (!i || !secret) return;
      const out = create(null); // (no prototype: no setter or toJSON of the page's is run)
      for (const [attr, g] of getters) {
        let v = null;
        try { v = apply(g, i, []); } catch { /* ignore */ }
        if (typeof v === 'string') out[attr] = v.slice(0, MAX_MESSAGE);
      }
      try { apply(dispatch, doc, [new CE(internalsEvent(secret), { detail: stringify(out) })]); } catch { /* ignore */ }
    };
    const listen = (el) => {
      try { apply(addEL, el, [askEvent(secret), onAsk]); } catch { /* ignore */ }
      if (told) return;
      told = true;
      try { apply(dispatch, doc, [new CE(netEvent(secret), { detail: 'x+:0' })]); } catch { /* ignore */ }
    };
    onOpen.push(() => { for (const el of early.splice(0)) listen(el); });
    defineProperty(w.HTMLElement.prototype, 'attachInternals', {
      configurable: true, writable: true, enumerable: true,
      value: disguise({ attachInternals(...a) {
        const i = apply(realInternals, this, a);
        kept.set(this, i);
        if (secret) listen(this);
        else if (early.length < 1000) early.push(this);
        return i;
      } }.attachInternals, realInternals),
    });
  }

  installFocusShim(w, disguise);
})();
