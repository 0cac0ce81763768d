// #/history/<id> — one captured page: formatted Markdown (sanitised) or the raw Markdown; deleting
// this capture or its whole visit.
import { h, clear, fmtBytes, fmtFull, fmtRelative, hostOf, copyToClipboard, extLink } from './dom.js';
import { request } from './api.js';
import { pageHeader, errorBox } from './components.js';
import { markdownView } from './markdown.js';
import { confirmInline } from './confirm.js';

export function pageView(main, { arg, query }) {
  const id = arg;
  const body = h('div', { class: 'page-body' }, h('p', { class: 'muted' }, 'Loading…'));
  const root = h('div', { class: 'pageview' },
    h('p', { class: 'crumbs' }, h('a', { href: '#/history' }, '← History')),
    body);
  main.append(root);
  let alive = true;

  (async () => {
    let r;
    try {
      r = await request(`api/history/${encodeURIComponent(id)}`);
    } catch (e) {
      if (alive) clear(body).append(errorBox(`Could not load page ${id}: ${e.message}`));
      return;
    }
    if (!alive) return;
    if (!r.ok || !r.data || typeof r.data !== 'object') {
      clear(body).append(errorBox(r.status === 404 ? `There is no page #${id} in the history.` : `Could not load page ${id} (HTTP ${r.status}).`));
      return;
    }
    render(r.data, query.get('view') === 'raw' ? 'raw' : 'formatted');
  })();

  function render(p, mode) {
    const markdown = typeof p.markdown === 'string' ? p.markdown : '';
    const title = p.title || p.url || `Page ${p.id}`;
    document.title = `${title} · Browser Bridge`;
    const formatted = h('div', { class: 'md-wrap', id: 'page-formatted' });
    const raw = h('pre', { class: 'raw-md', id: 'page-raw', tabindex: '0' }, markdown);
    let rendered = false;
    const tabF = h('button', { type: 'button', role: 'tab', class: 'seg', id: 'tab-formatted', 'aria-controls': 'page-formatted' }, 'Formatted');
    const tabR = h('button', { type: 'button', role: 'tab', class: 'seg', id: 'tab-raw', 'aria-controls': 'page-raw' }, 'Raw Markdown');
    const copyBtn = h('button', { class: 'btn btn-quiet', type: 'button', onclick: () => copyToClipboard(markdown, copyBtn) }, 'Copy Markdown');

    function show(m) {
      if (m === 'formatted' && !rendered) {
        formatted.append(markdownView(markdown, { baseUrl: p.url }));
        rendered = true;
      }
      formatted.hidden = m !== 'formatted';
      raw.hidden = m !== 'raw';
      tabF.setAttribute('aria-selected', String(m === 'formatted'));
      tabR.setAttribute('aria-selected', String(m === 'raw'));
      const params = new URLSearchParams();
      if (m === 'raw') params.set('view', 'raw');
      const hash = `#/history/${encodeURIComponent(id)}${m === 'raw' ? `?${params}` : ''}`;
      if (location.hash !== hash) history.replaceState(null, '', hash);
    }
    tabF.addEventListener('click', () => show('formatted'));
    tabR.addEventListener('click', () => show('raw'));

    const meta = h('dl', { class: 'meta' },
      h('dt', null, 'URL'), h('dd', { class: 'break' }, extLink(p.url, p.url || '—')),
      h('dt', null, 'Captured'), h('dd', { id: 'page-captured' }, capturedEl(p.captured_at)),
      h('dt', null, 'Browser'), h('dd', { class: 'mono small' }, p.client_id || '—', p.tab_id !== undefined && p.tab_id !== null ? ` · tab ${p.tab_id}` : ''),
      p.request_id ? [h('dt', null, 'Tool call'), h('dd', { class: 'mono small' }, p.request_id)] : null,
      h('dt', null, 'Size'), h('dd', null, fmtBytes(p.bytes ?? new Blob([markdown]).size), p.truncated ? h('span', { class: 'badge badge-warn' }, 'truncated') : null));

    const n = p.visit_captures || 1;
    const confirmSlot = h('div');
    const delErr = h('div');
    const del = async (visit) => {
      const what = visit ? `this visit (all ${n} captures of this page in this tab)` : 'this capture';
      if (!await confirmInline(confirmSlot, `Delete ${what} from the history? This cannot be undone.`, 'Delete') || !alive) return;
      let r;
      try {
        r = await request(`api/history/${encodeURIComponent(p.id ?? id)}${visit ? '?visit=1' : ''}`, { method: 'DELETE' });
      } catch (e) {
        clear(delErr).append(errorBox(`Could not delete ${what}: ${e.message}`));
        return;
      }
      if (!r.ok) {
        clear(delErr).append(errorBox(`Could not delete ${what}: ${(r.data && r.data.message) || `HTTP ${r.status}`}`));
        return;
      }
      location.hash = '#/history';
    };
    const actions = h('div', { class: 'field-actions page-delete' },
      h('button', { class: 'btn', type: 'button', id: 'page-delete', onclick: () => del(false) }, 'Delete this capture'),
      n > 1 ? h('button', { class: 'btn', type: 'button', id: 'page-delete-visit', onclick: () => del(true) }, `Delete this visit (${n} captures)`) : null);

    clear(body).append(
      pageHeader(title, h('span', { class: 'muted mono' }, `#${p.id ?? id}`)),
      h('p', { class: 'muted host-line' }, hostOf(p.url || '')),
      h('section', { class: 'panel' }, meta, actions, confirmSlot, delErr),
      h('section', { class: 'panel panel-doc' },
        h('div', { class: 'doc-bar' },
          h('div', { class: 'segmented', role: 'tablist', 'aria-label': 'View' }, tabF, tabR),
          h('span', { class: 'muted small doc-note' }, 'Links open in a new tab; remote images are not loaded.'),
          copyBtn),
        markdown ? [formatted, raw] : h('p', { class: 'muted' }, 'This page has no Markdown.')));
    if (markdown) show(mode);
  }

  return () => { alive = false; };
}

/** One timestamp: the full local date and time (the relative age as its tooltip). */
function capturedEl(iso) {
  const full = fmtFull(iso);
  if (!full) return h('span', { class: 'muted' }, '—');
  return h('time', { datetime: iso, title: fmtRelative(iso) }, full);
}
