// #/live — connected browsers and their tabs, tool calls as they start and end, page updates.
import { h, clear } from './dom.js';
import * as store from './store.js';
import { browserCard, callRow, pageRow, pageHeader, emptyState, startTicker } from './components.js';

export function liveView(main) {
  const openParams = new Set();
  const browsersEl = h('div', { class: 'browsers' });
  const callsEl = h('ol', { class: 'calls', 'aria-live': 'polite', 'aria-relevant': 'additions' });
  const pagesEl = h('ol', { class: 'pages' });
  const callsCount = h('span', { class: 'muted small' });
  const inFlight = h('span', { class: 'muted small' });

  const root = h('div', { class: 'live' },
    pageHeader('Live'),
    h('div', { class: 'live-grid' },
      h('section', { class: 'panel live-calls', 'aria-labelledby': 'h-calls' },
        h('div', { class: 'panel-head' }, h('h2', { id: 'h-calls' }, 'Tool calls'), inFlight, callsCount),
        callsEl),
      h('section', { class: 'panel live-browsers', 'aria-labelledby': 'h-browsers' },
        h('div', { class: 'panel-head' }, h('h2', { id: 'h-browsers' }, 'Browsers'), h('a', { class: 'small', href: '#/pairing' }, 'Pairing help')),
        browsersEl),
      h('section', { class: 'panel live-pages', 'aria-labelledby': 'h-pages' },
        h('div', { class: 'panel-head' }, h('h2', { id: 'h-pages' }, 'Page updates'), h('a', { class: 'small', href: '#/history' }, 'All history')),
        pagesEl)));
  main.append(root);

  const rowEls = new Map(); // request_id → li

  function renderBrowsers() {
    const list = [...store.state.browsers.values()].sort((a, b) => (b.connected - a.connected));
    clear(browsersEl);
    if (!list.length) {
      browsersEl.append(emptyState('No browser connected',
        h('p', null, 'Install the Browser Bridge extension and pair it with this daemon. ', h('a', { href: '#/pairing' }, 'How?'))));
      return;
    }
    for (const b of list) browsersEl.append(browserCard(b));
  }

  function renderCalls() {
    const calls = store.state.calls;
    const n = store.state.callsInFlight;
    inFlight.textContent = n > 0 ? `${n} running` : '';
    inFlight.className = n > 0 ? 'small running-count' : 'small';
    callsCount.textContent = calls.length ? `${calls.length} shown` : '';
    if (!calls.length) {
      rowEls.clear();
      clear(callsEl).append(h('li', { class: 'calls-empty' }, emptyState('No tool calls yet',
        h('p', null, 'Calls from agents (MCP or HTTP) appear here as they start and end. Try one in the ', h('a', { href: '#/console' }, 'console'), '.'))));
      return;
    }
    const empty = callsEl.querySelector('.calls-empty');
    if (empty) empty.remove();
    // Keyed update: rebuild a row only when its call changed; keep order newest first.
    const wanted = new Set();
    let prev = null;
    for (const call of calls) {
      wanted.add(call.request_id);
      const sig = `${call.status}|${call.summary}|${call.duration_ms}|${call.history_id}|${call.http_status}`;
      let li = rowEls.get(call.request_id);
      if (!li || li._sig !== sig) {
        const fresh = callRow(call, {
          open: openParams.has(call.request_id),
          onToggle: (open) => (open ? openParams.add(call.request_id) : openParams.delete(call.request_id)),
        });
        fresh._sig = sig;
        if (li) li.replaceWith(fresh);
        li = fresh;
        rowEls.set(call.request_id, li);
      }
      const expectedPos = prev ? prev.nextSibling : callsEl.firstChild;
      if (expectedPos !== li) callsEl.insertBefore(li, expectedPos);
      prev = li;
    }
    for (const [id, li] of rowEls) {
      if (!wanted.has(id)) {
        li.remove();
        rowEls.delete(id);
      }
    }
  }

  function renderPages() {
    clear(pagesEl);
    const pages = store.state.pages.slice(0, 10);
    if (!pages.length) {
      pagesEl.append(h('li', null, emptyState('No pages captured yet')));
      return;
    }
    for (const p of pages) pagesEl.append(pageRow(p));
  }

  renderBrowsers();
  renderCalls();
  renderPages();
  const unsub = store.subscribe((kinds) => {
    if (kinds.has('browsers')) renderBrowsers();
    if (kinds.has('calls')) renderCalls();
    if (kinds.has('pages')) renderPages();
  });
  const stopTicker = startTicker(root);
  return () => {
    unsub();
    stopTicker();
  };
}
