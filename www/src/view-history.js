// #/history?q=…&site=… — captured pages, newest first, full-text search and site filter.
import { h, clear, debounce } from './dom.js';
import { getJson } from './api.js';
import * as store from './store.js';
import { pageRow, pageHeader, emptyState, errorBox, startTicker } from './components.js';

const PAGE_SIZE = 50;

export function historyView(main, { query }) {
  let q = query.get('q') || '';
  let site = query.get('site') || '';
  let nextBefore = null;
  let seq = 0;
  let alive = true;
  const knownHosts = new Set();

  const qInput = h('input', {
    type: 'search', id: 'history-q', value: q, placeholder: 'Search titles and text (e.g. invoice, "exact phrase", login OR signin)',
    autocomplete: 'off', spellcheck: 'false', 'aria-label': 'Full-text search',
  });
  const siteInput = h('input', {
    type: 'search', id: 'history-site', value: site, placeholder: 'Site, e.g. example.com', list: 'history-sites',
    autocomplete: 'off', spellcheck: 'false', 'aria-label': 'Filter by site (URL contains)',
  });
  const sitesList = h('datalist', { id: 'history-sites' });
  const status = h('p', { class: 'muted small', role: 'status' });
  const list = h('ol', { class: 'pages pages-big' });
  const more = h('button', { class: 'btn', type: 'button', hidden: true, onclick: () => load(false) }, 'Load older pages');
  const errorSlot = h('div');
  const newBanner = h('button', { class: 'btn btn-quiet new-pages', type: 'button', hidden: true, onclick: () => load(true) }, 'New pages captured — refresh');

  const form = h('form', { class: 'filters', role: 'search', onsubmit: (e) => { e.preventDefault(); apply(); } },
    h('div', { class: 'field grow' }, h('label', { for: 'history-q' }, 'Search'), qInput),
    h('div', { class: 'field' }, h('label', { for: 'history-site' }, 'Site'), siteInput, sitesList),
    h('div', { class: 'field field-actions' },
      h('button', { class: 'btn btn-primary', type: 'submit' }, 'Search'),
      h('button', { class: 'btn btn-quiet', type: 'button', onclick: () => { qInput.value = ''; siteInput.value = ''; apply(); } }, 'Clear')));

  const root = h('div', { class: 'history' },
    pageHeader('History'),
    h('section', { class: 'panel' }, form, newBanner, errorSlot, status, list, h('div', { class: 'more' }, more)));
  main.append(root);

  const debouncedApply = debounce(apply, 350);
  qInput.addEventListener('input', debouncedApply);
  siteInput.addEventListener('input', debouncedApply);

  function apply() {
    debouncedApply.cancel();
    if (!alive) return;
    q = qInput.value.trim();
    site = siteInput.value.trim();
    const params = new URLSearchParams();
    if (q) params.set('q', q);
    if (site) params.set('site', site);
    const hash = `#/history${params.toString() ? `?${params}` : ''}`;
    // Keep the URL shareable without triggering a re-mount of this view.
    if (location.hash !== hash) history.replaceState(null, '', hash);
    load(true);
  }

  function setSite(host) {
    siteInput.value = host;
    apply();
  }

  async function load(reset) {
    const my = ++seq;
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (q) params.set('q', q);
    if (site) params.set('url', site);
    if (!reset && nextBefore !== null && nextBefore !== undefined) params.set('before', String(nextBefore));
    status.textContent = 'Loading…';
    more.disabled = true;
    let data;
    try {
      data = await getJson(`api/history?${params}`);
    } catch (e) {
      if (my !== seq || !alive) return;
      status.textContent = '';
      clear(errorSlot).append(errorBox(
        e.status === 400 && q
          ? `The search “${q}” is not a valid query: ${e.message} Put words with punctuation in double quotes.`
          : `Could not load history: ${e.message}`));
      if (reset) clear(list);
      more.hidden = true;
      return;
    }
    if (my !== seq || !alive) return;
    clear(errorSlot);
    newBanner.hidden = true;
    if (reset) clear(list);
    const pages = data.pages || [];
    for (const p of pages) {
      list.append(pageRow(p, { snippet: true, onSite: setSite, query: q }));
      try {
        knownHosts.add(new URL(p.url).host);
      } catch { /* ignore */ }
    }
    clear(sitesList).append([...knownHosts].sort().map((host) => h('option', { value: host })));
    nextBefore = data.next_before ?? null;
    more.hidden = nextBefore === null || pages.length === 0;
    more.disabled = false;
    const shown = list.children.length;
    if (!shown) {
      status.textContent = '';
      list.append(h('li', null, q || site
        ? emptyState('No pages match', h('p', null, 'Try fewer words, or clear the site filter.'))
        : emptyState('No pages captured yet', h('p', null, 'The page each agent’s tool call returns (the page after the action) is stored here. Pages you browse yourself are not recorded.'))));
    } else {
      const filt = [q ? `matching “${q}”` : null, site ? `from sites containing “${site}”` : null].filter(Boolean).join(' ');
      status.textContent = `${shown} page${shown === 1 ? '' : 's'}${filt ? ` ${filt}` : ''}${nextBefore !== null ? ' (more below)' : ''}`;
    }
  }

  const unsub = store.subscribe((kinds) => {
    if (kinds.has('pages')) newBanner.hidden = false;
  });
  const stopTicker = startTicker(root);
  load(true);
  if (!q) qInput.focus();
  return () => {
    alive = false;
    debouncedApply.cancel();
    unsub();
    stopTicker();
  };
}
