// Console capture, in the page's own (MAIN) world from document start (main-world.js installs
// it before any page script runs): console.log/info/warn/error/debug/trace/assert are wrapped,
// and uncaught errors and unhandled promise rejections are heard. Each message is turned into
// bounded plain text here (a page can log anything: huge strings, cyclic objects, getters that
// throw) and handed to `emit`, which carries it over the private channel (channel.js) to the
// isolated world, where it is kept (observe-isolated.js). Only trusted error events count: a page
// that dispatches its own ErrorEvent does not make an "uncaught error".
import { BB_CONSOLE_MESSAGE_MAX } from '../shared/limits.js';

const LEVELS = { debug: 'debug', trace: 'debug', log: 'info', info: 'info', warn: 'warning', error: 'error', assert: 'error' };

export function installConsoleCapture(w, emit, disguise, addEL) {
  const con = w.console;
  if (!con) return;
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const ownKeys = Object.keys;
  const isArray = Array.isArray;
  const ErrorCtor = w.Error;
  const ErrorEventCtor = w.ErrorEvent;
  // The events' getters as they are before any page script: a page that redefines them later
  // cannot change what an uncaught error says about itself (where it came from).
  const getter = (C, k) => { try { return Object.getOwnPropertyDescriptor(C.prototype, k).get; } catch { return null; } };
  const read = (g, o) => (g ? apply(g, o, []) : undefined);
  const ev = { message: getter(w.ErrorEvent, 'message'), filename: getter(w.ErrorEvent, 'filename'), lineno: getter(w.ErrorEvent, 'lineno'), colno: getter(w.ErrorEvent, 'colno'), error: getter(w.ErrorEvent, 'error') };
  const reasonOf = w.PromiseRejectionEvent ? getter(w.PromiseRejectionEvent, 'reason') : null;
  const quote = JSON.stringify;
  const MAX = BB_CONSOLE_MESSAGE_MAX;

  // A value as text, within `budget` characters; never throws.
  function show(v, budget, depth = 0) {
    try {
      if (typeof v === 'string') return v.length > budget ? v.slice(0, budget) : v;
      if (v === null || v === undefined || typeof v !== 'object' && typeof v !== 'function') return String(v).slice(0, budget);
      if (typeof v === 'function') return `[function ${String(v.name).slice(0, 60)}]`;
      if (v instanceof ErrorCtor) {
        const stack = typeof v.stack === 'string' ? v.stack : '';
        const head = `${String(v.name).slice(0, 60)}: ${String(v.message).slice(0, budget)}`;
        return (stack.startsWith(head) ? stack : head).slice(0, budget);
      }
      if (depth >= 2) return isArray(v) ? '[…]' : '{…}';
      let out = isArray(v) ? '[' : '{';
      const keys = isArray(v) ? null : ownKeys(v);
      const n = keys ? keys.length : v.length;
      for (let i = 0; i < n && out.length < budget; i++) {
        const k = keys ? keys[i] : i;
        const item = show(v[k], budget - out.length, depth + 1);
        out += (i ? ', ' : '') + (keys ? `${String(k).slice(0, 100)}: ` : '') + (typeof v[k] === 'string' && depth ? quote(item) : item);
      }
      return (out.length >= budget ? out.slice(0, budget) + '…' : out) + (isArray(v) ? ']' : '}');
    } catch {
      return '[unreadable]';
    }
  }

  // console.log's arguments as one line of text: a format string's %s %d %i %f %o %O %c filled in.
  function format(args) {
    let parts = args;
    let out = '';
    if (typeof args[0] === 'string' && args[0].includes('%')) {
      let i = 1;
      out = args[0].slice(0, MAX).replace(/%[sdifoOc%]/g, (m) => {
        if (m === '%%') return '%';
        if (i >= args.length) return m;
        const v = args[i++];
        if (m === '%c') return '';
        if (m === '%d' || m === '%i') { try { return String(parseInt(v, 10)); } catch { return 'NaN'; } }
        if (m === '%f') { try { return String(Number(v)); } catch { return 'NaN'; } }
        return show(v, MAX);
      });
      parts = args.slice(i);
    }
    for (const a of parts) {
      if (out.length >= MAX) break;
      out += (out ? ' ' : '') + show(a, MAX - out.length);
    }
    return out.length > MAX ? out.slice(0, MAX) : out;
  }

  for (const name of ownKeys(LEVELS)) {
    const orig = con[name];
    if (typeof orig !== 'function') continue;
    const level = LEVELS[name];
    const wrapper = disguise({ [name](...a) {
      try {
        if (name === 'assert') { if (!a[0]) emit({ level, kind: 'console', text: 'Assertion failed' + (a.length > 1 ? ': ' + format(a.slice(1)) : '') }); }
        else emit({ level, kind: 'console', text: format(a) });
      } catch { /* never break the page's logging */ }
      return apply(orig, this, a);
    } }[name], orig);
    try { defineProperty(con, name, { value: wrapper, writable: true, configurable: true, enumerable: true }); } catch { /* ignore */ }
  }

  apply(addEL, w, ['error', (e) => {
    if (!e.isTrusted || !(e instanceof ErrorEventCtor)) return; // a resource that failed to load is not an error of a script
    try {
      const file = read(ev.filename, e);
      const where = file ? `${String(file).slice(0, 500)}:${read(ev.lineno, e) | 0}:${read(ev.colno, e) | 0}` : '';
      const err = read(ev.error, e);
      const text = err !== undefined && err !== null ? show(err, MAX) : String(read(ev.message, e)).slice(0, MAX);
      emit({ level: 'error', kind: 'uncaught', text: text.startsWith('Uncaught') ? text : `Uncaught ${text}`, source: where });
    } catch { /* ignore */ }
  }, true]);
  apply(addEL, w, ['unhandledrejection', (e) => {
    if (!e.isTrusted) return;
    try { emit({ level: 'error', kind: 'unhandledrejection', text: `Unhandled promise rejection: ${show(read(reasonOf, e), MAX)}`.slice(0, MAX) }); } catch { /* ignore */ }
  }, true]);
}
