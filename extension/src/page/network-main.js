// The page's fetch() and XMLHttpRequest calls, seen from its own (MAIN) world: method, URL,
// status and timing of each, handed to `emit` for the isolated world (observe-isolated.js), which
// adds every other request the page made from the browser's Resource Timing entries.
// Why this and not chrome.webRequest: webRequest would need another manifest permission and keeps
// its records in the service worker, which Chrome stops when idle (losing them), while Resource
// Timing lists every request of the document with its status (responseStatus), type, size and
// duration but not its method. Only fetch and XHR can use another method than GET (a form's POST
// navigates, and so ends the document and its list), so wrapping those two gives the method and
// status reliably. No header and no body is ever read.
const METHOD = /^[A-Za-z-]{1,20}$/;

export function createNetLog(w, emit) {
  const apply = Reflect.apply;
  const Req = w.Request;
  const reqMethod = Req ? Object.getOwnPropertyDescriptor(Req.prototype, 'method')?.get : null;
  const reqUrl = Req ? Object.getOwnPropertyDescriptor(Req.prototype, 'url')?.get : null;
  const resStatus = w.Response ? Object.getOwnPropertyDescriptor(w.Response.prototype, 'status')?.get : null;
  const xhrStatus = w.XMLHttpRequest ? Object.getOwnPropertyDescriptor(w.XMLHttpRequest.prototype, 'status')?.get : null;
  // Captured at document start: a page that later replaces them cannot bend the records.
  const perf = w.performance;
  const perfNow = w.Performance.prototype.now;
  const now = () => apply(perfNow, perf, []);
  const URLCtor = w.URL;
  const then = w.Promise.prototype.then;
  const xhrs = new WeakMap(); // xhr -> { method, url }
  let next = 0;

  const method = (m) => { const s = String(m ?? 'GET'); return METHOD.test(s) ? s.toUpperCase() : 'GET'; };
  const url = (u) => { try { return String(new URLCtor(String(u), w.location.href)); } catch { return String(u).slice(0, 2000); } };

  return {
    // fetch(...a) was called and returned `p`.
    fetch(a, p) {
      try {
        const id = ++next;
        let m = 'GET';
        let u = '';
        if (Req && a[0] instanceof Req) { m = apply(reqMethod, a[0], []); u = apply(reqUrl, a[0], []); } else u = a[0];
        if (a[1] && typeof a[1] === 'object' && a[1].method !== undefined) m = a[1].method;
        const rec = { id, type: 'fetch', method: method(m), url: url(u), start: now() };
        emit({ ...rec, phase: 'start' });
        apply(then, p, [(r) => {
          let status = 0;
          try { status = apply(resStatus, r, []); } catch { /* ignore */ }
          emit({ id, phase: 'end', status, duration: now() - rec.start });
        }, (e) => {
          let name = 'failed';
          try { name = String(e?.name || 'failed').slice(0, 60); } catch { /* ignore */ }
          emit({ id, phase: 'end', status: 0, failed: name, duration: now() - rec.start });
        }]);
      } catch { /* never break the page's request */ }
    },
    xhrOpen(x, m, u) {
      try { xhrs.set(x, { method: method(m), url: url(u) }); } catch { /* ignore */ }
    },
    // XMLHttpRequest.send: returns what to call at its loadend.
    xhrSend(x) {
      try {
        const o = xhrs.get(x) || { method: 'GET', url: '' };
        const id = ++next;
        const start = now();
        emit({ id, type: 'xmlhttprequest', method: o.method, url: o.url, start, phase: 'start' });
        return () => {
          let status = 0;
          try { status = apply(xhrStatus, x, []); } catch { /* ignore */ }
          emit({ id, phase: 'end', status, ...(status ? {} : { failed: 'failed' }), duration: now() - start });
        };
      } catch { return () => {}; }
    },
  };
}
