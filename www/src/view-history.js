// #/history?q=…&site=…&sort=… — visits (consecutive captures of one page in one tab), newest first
// or, when searching, best match first; a site filter; deleting a site's history or everything
// before a date. Times are the browser's local time (the API speaks UTC).
import { h, clear, debounce, fmtTime, fmtFull, fmtBytes, hostOf, pathOf } from './dom.js';
import { getJson, request } from './api.js';
import * as store from './store.js';
import { pageHeader, emptyState, errorBox, startTicker } from './components.js';
import { confirmInline } from './confirm.js';

const PAGE_SIZE = 50;

export function historyView(main, { query }) {
  let q = query.get('q') || '';
  let site = query.get('site') || '';
  let sort = query.get('sort') === 'recent' ? 'recent' : 'relevance';
  let nextBefore = null;
  let nextOffset = null;
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
  const sortSelect = h('select', { id: 'history-sort', 'aria-label': 'Order of search results', onchange: () => apply() },
    h('option', { value: 'relevance' }, 'Best match'), h('option', { value: 'recent' }, 'Newest'));
  sortSelect.value = sort;
  const confirmSlot = h('div');
  const deleteSiteBtn = h('button', { class: 'btn', type: 'button', id: 'history-delete-site', hidden: true, onclick: () => deleteSite() }, 'Delete this site’s history…');
  const beforeInput = h('input', { type: 'date', id: 'history-before', 'aria-label': 'Delete everything captured before this day (local time)' });
  const beforeBtn = h('button', { class: 'btn', type: 'button', id: 'history-delete-before', onclick: () => deleteBefore() }, 'Delete everything before…');
  const status = h('p', { class: 'muted small', role: 'status' });
  const list = h('ol', { class: 'pages pages-big' });
  const more = h('button', { class: 'btn', type: 'button', hidden: true, onclick: () => load(false) }, 'Load older pages');
  const errorSlot = h('div');
  const newBanner = h('button', { class: 'btn btn-quiet new-pages', type: 'button', hidden: true, onclick: () => load(true) }, 'New pages captured — refresh');

  const form = h('form', { class: 'filters', role: 'search', onsubmit: (e) => { e.preventDefault(); apply(); } },
    h('div', { class: 'field grow' }, h('label', { for: 'history-q' }, 'Search'), qInput),
    h('div', { class: 'field' }, h('label', { for: 'history-site' }, 'Site'), siteInput, sitesList),
    h('div', { class: 'field field-actions' },
      sortSelect,
      h('button', { class: 'btn btn-primary', type: 'submit' }, 'Search'),
      h('button', { class: 'btn btn-quiet', type: 'button', onclick: () => { qInput.value = ''; siteInput.value = ''; apply(); } }, 'Clear')));

  const root = h('div', { class: 'history' },
    pageHeader('History'),
    h('section', { class: 'panel' }, form, newBanner, errorSlot, confirmSlot, status, list, h('div', { class: 'more' }, more)),
    h('section', { class: 'panel history-delete' },
      h('h2', null, 'Delete history'),
      h('p', { class: 'muted small' }, 'Deleted pages are removed from the database file and from search at once.'),
      h('div', { class: 'field-actions' }, deleteSiteBtn, beforeInput, beforeBtn)));
  main.append(root);

  const debouncedApply = debounce(apply, 350);
  qInput.addEventListener('input', debouncedApply);
  siteInput.addEventListener('input', debouncedApply);

  function apply() {
    debouncedApply.cancel();
    if (!alive) return;
    q = qInput.value.trim();
    site = siteInput.value.trim();
    sort = sortSelect.value;
    const params = new URLSearchParams();
    if (q) params.set('q', q);
    if (site) params.set('site', site);
    if (sort === 'recent') params.set('sort', 'recent');
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
    if (q && sort === 'recent') params.set('sort', 'recent');
    if (!reset && nextOffset !== null) params.set('offset', String(nextOffset));
    else if (!reset && nextBefore !== null) params.set('before', String(nextBefore));
    deleteSiteBtn.hidden = !siteHost();
    if (!deleteSiteBtn.hidden) deleteSiteBtn.textContent = `Delete the history of ${siteHost()}…`;
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
      list.append(visitRow(p, setSite));
      try {
        knownHosts.add(new URL(p.url).host);
      } catch { /* ignore */ }
    }
    clear(sitesList).append([...knownHosts].sort().map((host) => h('option', { value: host })));
    nextBefore = data.next_before ?? null;
    nextOffset = data.next_offset ?? null;
    more.hidden = (nextBefore === null && nextOffset === null) || pages.length === 0;
    more.disabled = false;
    const shown = list.children.length;
    if (!shown) {
      status.textContent = '';
      list.append(h('li', null, q || site
        ? emptyState('No pages match', h('p', null, 'Try fewer words, or clear the site filter.'))
        : emptyState('No pages captured yet', h('p', null, 'The page each agent’s tool call returns (the page after the action) is stored here. Pages you browse yourself are not recorded.'))));
    } else {
      const filt = [q ? `matching “${q}”` : null, site ? `from sites containing “${site}”` : null].filter(Boolean).join(' ');
      status.textContent = `${shown} visit${shown === 1 ? '' : 's'}${filt ? ` ${filt}` : ''}${more.hidden ? '' : ' (more below)'}`;
    }
  }

  // The site filter as a host name ("example.com", or a URL's host), or '' when it is not one.
  function siteHost() {
    const v = site.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
    return /^[a-z0-9.-]+(:\d+)?$/i.test(v) && v.includes('.') ? v.toLowerCase() : '';
  }

  async function remove(paths, what) {
    let removed = 0;
    try {
      for (const p of paths) removed += (await getJson(p, { method: 'DELETE' })).removed;
    } catch (e) {
      clear(errorSlot).append(errorBox(`Could not delete ${what}: ${e.message}`));
      return;
    }
    clear(errorSlot);
    await load(true);
    status.textContent = `Deleted ${removed} page${removed === 1 ? '' : 's'} (${what}). ${status.textContent}`;
  }

  async function deleteSite() {
    const host = siteHost();
    if (!host) return;
    const ok = await confirmInline(confirmSlot, `Delete every page captured from ${host} (http and https)? This cannot be undone.`, `Delete ${host}`);
    if (!ok || !alive) return;
    await remove(['https', 'http'].map((s) => `api/history?url=${encodeURIComponent(`${s}://${host}/`)}`), `the history of ${host}`);
  }

  async function deleteBefore() {
    if (!beforeInput.value) {
      beforeInput.focus();
      clear(errorSlot).append(errorBox('Choose a day first: everything captured before it is deleted.'));
      return;
    }
    // The chosen day starts at local midnight; the API takes UTC.
    const [y, m, d] = beforeInput.value.split('-').map(Number);
    const start = new Date(y, m - 1, d);
    const label = start.toLocaleDateString([], { year: 'numeric', month: 'long', day: 'numeric' });
    const ok = await confirmInline(confirmSlot, `Delete every page captured before ${label} (local time)? This cannot be undone.`, 'Delete');
    if (!ok || !alive) return;
    await remove([`api/history?before=${encodeURIComponent(start.toISOString())}`], `everything before ${label}`);
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

/** One visit: its title (links to the newest capture), site, local time span, captures, snippet. */
function visitRow(v, onSite) {
  const host = hostOf(v.url || '');
  const first = v.first_seen || v.captured_at;
  const last = v.last_seen || v.captured_at;
  const n = v.captures || 1;
  const from = fmtTime(first);
  const to = fmtTime(last);
  const span = from && from !== to ? `${from} – ${to}` : to;
  return h('li', { class: 'pagerow visit', dataset: { id: String(v.id), visitId: String(v.visit_id ?? v.id), captures: String(n) } },
    h('a', { class: 'pagerow-title', href: `#/history/${encodeURIComponent(v.id)}` }, v.title || v.url || `Page ${v.id}`),
    h('div', { class: 'pagerow-meta muted small' },
      host ? h('button', { class: 'linklike', type: 'button', title: `Show only pages from ${host}`, onclick: () => onSite(host) }, host) : null,
      h('span', { class: 'pagerow-path', title: v.url || '' }, pathOf(v.url)),
      h('time', { class: 'visit-time', datetime: last || '', title: `${fmtFull(first)}${first !== last ? ` – ${fmtFull(last)}` : ''}` }, span),
      n > 1 ? h('span', { class: 'visit-count' }, `${n} captures`) : null,
      v.bytes !== undefined ? h('span', null, fmtBytes(v.bytes)) : null,
      h('span', { class: 'mono' }, `#${v.id}`)),
    v.snippet ? h('p', { class: 'snippet' }, snippetParts(v.snippet)) : null);
}

/** The daemon's snippets are plain text with each match in [brackets] (refs and links removed). */
function snippetParts(text) {
  const out = [];
  let last = 0;
  for (const m of String(text).matchAll(/\[([^[\]]{1,200})\]/g)) {
    out.push(text.slice(last, m.index), h('mark', null, m[1]));
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}
