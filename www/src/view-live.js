// #/live[?tool=&status=&browser=] — connected browsers and their tabs, tool calls as they start
// and end (filterable; a bounded list with "Load more" for older calls), page updates.
import { h, clear, shortId } from './dom.js';
import { getJson } from './api.js';
import { loadOlderCalls } from './events.js';
import * as store from './store.js';
import { browserCard, callRow, pageRow, pageHeader, emptyState, startTicker } from './components.js';
import { sessionsPanel } from './view-sessions.js';

/** Rows shown at first and added per "Load more"; the list never shows more than store.MAX_CALLS. */
export const CALLS_PAGE = 50;
const STATUSES = ['running', 'success', 'partial_success', 'error'];

let toolNames = null; // names from GET /api/tools, once per page load

export function liveView(main, { query } = {}) {
  const openParams = new Set();
  const filter = {
    tool: query?.get('tool') || '',
    status: query?.get('status') || '',
    browser: query?.get('browser') || '',
  };
  let limit = CALLS_PAGE;
  let loading = false;
  let loadError = '';
  let alive = true;

  const browsersEl = h('div', { class: 'browsers' });
  const sessions = sessionsPanel();
  const callsEl = h('ol', { class: 'calls', 'aria-live': 'polite', 'aria-relevant': 'additions' });
  const pagesEl = h('ol', { class: 'pages' });
  const callsCount = h('span', { class: 'muted small calls-count' });
  const inFlight = h('span', { class: 'muted small' });
  const toolSel = h('select', { id: 'live-tool', 'aria-label': 'Filter by tool' });
  const statusSel = h('select', { id: 'live-status', 'aria-label': 'Filter by status' });
  const browserSel = h('select', { id: 'live-browser', 'aria-label': 'Filter by browser' });
  const clearBtn = h('button', { class: 'btn btn-quiet', type: 'button', id: 'live-clear', onclick: () => setFilter({ tool: '', status: '', browser: '' }) }, 'Clear');
  const moreBtn = h('button', { class: 'btn', type: 'button', id: 'live-more', onclick: () => loadMore() }, 'Load more');
  const moreNote = h('p', { class: 'muted small', role: 'status' });

  const root = h('div', { class: 'live' },
    pageHeader('Live'),
    h('div', { class: 'live-grid' },
      h('section', { class: 'panel live-calls', 'aria-labelledby': 'h-calls' },
        h('div', { class: 'panel-head' }, h('h2', { id: 'h-calls' }, 'Tool calls'), inFlight, callsCount),
        h('div', { class: 'call-filters', role: 'group', 'aria-label': 'Filter tool calls' },
          h('label', { class: 'call-filter' }, h('span', { class: 'muted small' }, 'Tool'), toolSel),
          h('label', { class: 'call-filter' }, h('span', { class: 'muted small' }, 'Status'), statusSel),
          h('label', { class: 'call-filter' }, h('span', { class: 'muted small' }, 'Browser'), browserSel),
          clearBtn),
        callsEl,
        h('div', { class: 'more' }, moreBtn, moreNote)),
      h('section', { class: 'panel live-browsers', 'aria-labelledby': 'h-browsers' },
        h('div', { class: 'panel-head' }, h('h2', { id: 'h-browsers' }, 'Browsers'), h('a', { class: 'small', href: '#/pairing' }, 'Pairing help')),
        browsersEl, sessions.el),
      h('section', { class: 'panel live-pages', 'aria-labelledby': 'h-pages' },
        h('div', { class: 'panel-head' }, h('h2', { id: 'h-pages' }, 'Page updates'), h('a', { class: 'small', href: '#/history' }, 'All history')),
        pagesEl)));
  main.append(root);

  for (const [sel, key] of [[toolSel, 'tool'], [statusSel, 'status'], [browserSel, 'browser']]) {
    sel.addEventListener('change', () => setFilter({ ...filter, [key]: sel.value }));
  }

  const rowEls = new Map(); // request_id → li

  function setFilter(next) {
    Object.assign(filter, next);
    limit = CALLS_PAGE;
    loadError = '';
    const params = new URLSearchParams();
    for (const k of ['tool', 'status', 'browser']) if (filter[k]) params.set(k, filter[k]);
    const hash = `#/live${params.toString() ? `?${params}` : ''}`;
    // Keep the URL shareable without re-mounting this view.
    if (location.hash !== hash) history.replaceState(null, '', hash);
    renderCalls();
  }

  const matches = (c) => (!filter.tool || c.tool === filter.tool)
    && (!filter.status || (c.status || 'unknown') === filter.status)
    && (!filter.browser || c.client_id === filter.browser);
  const filtering = () => Boolean(filter.tool || filter.status || filter.browser);

  /** Replaces a select's options only when they changed (keeps focus and the open menu). */
  function setOptions(sel, allLabel, entries, value) {
    const list = [['', allLabel], ...entries];
    if (value && !entries.some(([v]) => v === value)) list.push([value, value]);
    const sig = JSON.stringify(list);
    if (sel._sig !== sig) {
      sel._sig = sig;
      sel.replaceChildren(...list.map(([v, label]) => h('option', { value: v }, label)));
    }
    sel.value = value;
  }

  function renderFilters() {
    const tools = new Set(toolNames || []);
    const statuses = new Set(STATUSES);
    const clients = new Map();
    for (const b of store.state.browsers.values()) clients.set(b.client_id, b.browser);
    for (const c of store.state.calls) {
      if (c.tool) tools.add(c.tool);
      if (c.status) statuses.add(c.status);
      if (c.client_id && !clients.has(c.client_id)) clients.set(c.client_id, null);
    }
    setOptions(toolSel, 'All tools', [...tools].sort().map((t) => [t, t]), filter.tool);
    setOptions(statusSel, 'Any status', [...statuses].map((s) => [s, s.replace(/_/g, ' ')]), filter.status);
    setOptions(browserSel, 'All browsers', [...clients].sort((a, b) => a[0].localeCompare(b[0]))
      .map(([id, name]) => [id, name ? `${name} · ${shortId(id, 12)}` : shortId(id, 16)]), filter.browser);
    clearBtn.hidden = !filtering();
  }

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
    renderFilters();
    const all = store.state.calls;
    const n = store.state.callsInFlight;
    inFlight.textContent = n > 0 ? `${n} running` : '';
    inFlight.className = n > 0 ? 'small running-count' : 'small';
    const matching = filtering() ? all.filter(matches) : all;
    const calls = matching.slice(0, limit);
    callsCount.textContent = calls.length
      ? `${calls.length}${matching.length > calls.length ? ` of ${matching.length}` : ''} shown`
      : '';
    renderMore(matching.length, calls.length);
    if (!calls.length) {
      rowEls.clear();
      openParams.clear();
      clear(callsEl).append(h('li', { class: 'calls-empty' }, all.length && filtering()
        ? emptyState('No calls match these filters', h('p', null, store.state.callsExhausted
          ? 'Clear the filters to see all calls.'
          : 'Older calls may match: load more, or clear the filters.'))
        : emptyState('No tool calls yet',
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
    for (const id of openParams) if (!wanted.has(id)) openParams.delete(id);
  }

  /** "Load more": shown while held calls are hidden or the log may have older ones. */
  function renderMore(matchingCount, shownCount) {
    const s = store.state;
    const full = s.calls.length >= store.MAX_CALLS;
    const canFetch = !s.callsExhausted && !full;
    const hiddenHeld = matchingCount > shownCount && shownCount < store.MAX_CALLS;
    moreBtn.hidden = !(hiddenHeld || (canFetch && shownCount > 0) || (canFetch && filtering()));
    moreBtn.disabled = loading;
    moreBtn.textContent = loading ? 'Loading…' : 'Load more';
    if (loadError) moreNote.textContent = loadError;
    else if (!hiddenHeld && full && !s.callsExhausted && shownCount >= matchingCount) {
      moreNote.textContent = `The live view holds the newest ${store.MAX_CALLS} calls; older ones stay in the log (GET /api/commands).`;
    } else moreNote.textContent = '';
  }

  async function loadMore() {
    if (loading) return;
    limit = Math.min(limit + CALLS_PAGE, store.MAX_CALLS);
    loadError = '';
    const count = () => (filtering() ? store.state.calls.filter(matches).length : store.state.calls.length);
    if (count() < limit && !store.state.callsExhausted) {
      loading = true;
      renderCalls();
      try {
        await loadOlderCalls(() => count() >= limit);
      } catch (e) {
        loadError = `Could not load older calls: ${e.message}`;
      }
      loading = false;
    }
    if (alive) renderCalls();
  }

  function renderPages() {
    clear(pagesEl);
    const pages = store.state.pages.slice(0, 10);
    if (!pages.length) {
      pagesEl.append(h('li', null, emptyState('No pages captured yet',
        h('p', { class: 'muted small' }, 'The page each agent’s tool call returns appears here.'))));
      return;
    }
    for (const p of pages) pagesEl.append(pageRow(p));
  }

  renderBrowsers();
  renderCalls();
  renderPages();
  if (!toolNames) {
    getJson('api/tools').then((data) => {
      toolNames = (Array.isArray(data) ? data : data?.tools || []).map((t) => t && t.name).filter(Boolean);
      if (alive) renderFilters();
    }, () => { /* the calls held still name their tools */ });
  }
  const unsub = store.subscribe((kinds) => {
    if (kinds.has('browsers')) {
      renderBrowsers();
      renderFilters();
    }
    if (kinds.has('calls')) renderCalls();
    if (kinds.has('pages')) renderPages();
  });
  const stopTicker = startTicker(root);
  return () => {
    alive = false;
    unsub();
    sessions.close();
    stopTicker();
  };
}
