// Pieces shared by several views.
import { h, badge, fmtRelative, fmtFull, fmtTime, fmtDuration, fmtBytes, shortId, hostOf, pathOf, compactJson, prettyJson, extLink } from './dom.js';
import { tabId } from './store.js';

export function pageHeader(title, ...extra) {
  return h('div', { class: 'page-head' }, h('h1', null, title), extra.length ? h('div', { class: 'page-head-extra' }, extra) : null);
}

export function emptyState(title, ...body) {
  return h('div', { class: 'empty' }, h('p', { class: 'empty-title' }, title), body.length ? h('div', { class: 'empty-body' }, body) : null);
}

export function errorBox(message, ...more) {
  return h('div', { class: 'alert alert-err', role: 'alert' }, message, more);
}

export function timeEl(iso, { relative = false } = {}) {
  if (!iso) return h('span', { class: 'muted' }, '—');
  return h('time', { datetime: iso, title: fmtFull(iso), class: relative ? 'js-rel' : null, dataset: relative ? { iso } : null },
    relative ? fmtRelative(iso) : fmtTime(iso));
}

/** Browser card: name, versions, state, tabs. */
export function browserCard(b, { detailed = false } = {}) {
  const tabs = Array.isArray(b.tabs) ? b.tabs : [];
  const state = b.connected ? badge('connected') : badge('disconnected');
  const meta = [
    b.browser_version ? `${b.browser || 'Browser'} ${b.browser_version}` : null,
    b.extension_version ? `extension ${b.extension_version}` : null,
  ].filter(Boolean).join(' · ');
  const card = h('article', { class: ['browser', b.connected ? '' : 'browser-off'], dataset: { clientId: b.client_id } },
    h('header', { class: 'browser-head' },
      h('span', { class: 'browser-icon', 'aria-hidden': 'true' }, (b.browser || '?').slice(0, 1).toUpperCase()),
      h('div', { class: 'browser-title' },
        h('strong', null, b.browser || 'Browser'),
        h('span', { class: 'muted mono small', title: b.client_id }, shortId(b.client_id, 12))),
      state),
    meta ? h('p', { class: 'muted small browser-meta' }, meta) : null,
    h('p', { class: 'muted small browser-meta' },
      b.connected
        ? ['connected ', timeEl(b.connected_at, { relative: true }), b.last_seen ? [' · last seen ', timeEl(b.last_seen, { relative: true })] : null]
        : ['disconnected ', timeEl(b.disconnected_at || b.last_seen, { relative: true })]),
  );
  if (detailed && Array.isArray(b.capabilities) && b.capabilities.length) {
    card.append(h('p', { class: 'caps' }, b.capabilities.map((c) => h('span', { class: 'chip' }, c))));
  }
  if (b.connected) {
    if (tabs.length) {
      card.append(h('ul', { class: 'tabs-list', 'aria-label': 'Tabs' },
        tabs.map((t) => h('li', { class: t.active ? 'tab tab-active' : 'tab', title: t.url || '' },
          h('span', { class: 'tab-id mono' }, `#${tabId(t) ?? '?'}`),
          h('span', { class: 'tab-title' }, t.title || t.url || '(untitled)'),
          h('span', { class: 'tab-host muted' }, hostOf(t.url || ''))))));
    } else {
      card.append(h('p', { class: 'muted small' }, 'No tabs reported yet.'));
    }
  }
  return card;
}

/** One tool call row (live view, console). */
export function callRow(call, { open = false, onToggle } = {}) {
  const running = call.status === 'running';
  const duration = running
    ? h('span', { class: 'js-elapsed mono', dataset: { t0: String(call._t0 || Date.now()) } }, fmtDuration(Date.now() - (call._t0 || Date.now())))
    : h('span', { class: 'mono' }, fmtDuration(call.duration_ms));
  const hasParams = call.params && typeof call.params === 'object' && Object.keys(call.params).length > 0;
  const details = h('details', { class: 'call-params', open },
    h('summary', null, h('span', { class: 'muted' }, 'params '), h('code', { class: 'mono' }, hasParams ? compactJson(call.params, 120) : '{}')),
    h('pre', { class: 'json' }, prettyJson(call.params ?? {})));
  if (onToggle) details.addEventListener('toggle', () => onToggle(details.open));
  const row = h('li', {
    class: ['call', `call-${call.status || 'unknown'}`],
    dataset: { requestId: call.request_id, tool: call.tool || '', status: call.status || 'unknown', clientId: call.client_id || '' },
  },
    h('div', { class: 'call-line' },
      badge(call.status || 'unknown', running ? 'running' : undefined),
      h('span', { class: 'call-tool mono' }, call.tool || '?'),
      h('span', { class: 'call-meta muted small' },
        call.http_status && call.http_status !== 200 ? h('span', { class: 'http' }, `HTTP ${call.http_status}`) : null,
        call.session ? h('span', { class: 'call-session', title: 'agent session' }, call.session) : null,
        call.client_id ? h('span', { title: call.client_id }, shortId(call.client_id, 10)) : null,
        timeEl(call.started_at || (call._t0 ? new Date(call._t0).toISOString() : null))),
      h('span', { class: 'call-dur' }, duration)),
    call.summary ? h('p', { class: 'call-summary' }, call.summary) : running ? h('p', { class: 'call-summary muted' }, 'Waiting for the browser…') : null,
    h('div', { class: 'call-foot' },
      details,
      call.history_id !== undefined && call.history_id !== null
        ? h('a', { class: 'call-page', href: `#/history/${encodeURIComponent(call.history_id)}` }, `page #${call.history_id} →`)
        : null));
  return row;
}

/** Compact captured-page row. */
export function pageRow(p, { snippet = false, onSite, query = '' } = {}) {
  const host = hostOf(p.url || '');
  return h('li', { class: 'pagerow', dataset: { id: String(p.id) } },
    h('a', { class: 'pagerow-title', href: `#/history/${encodeURIComponent(p.id)}` }, p.title || p.url || `Page ${p.id}`),
    h('div', { class: 'pagerow-meta muted small' },
      onSite && host
        ? h('button', { class: 'linklike', type: 'button', title: `Show only pages from ${host}`, onclick: () => onSite(host) }, host)
        : h('span', null, host),
      h('span', { class: 'pagerow-path', title: p.url || '' }, pathOf(p.url)),
      timeEl(p.captured_at, { relative: true }),
      p.bytes !== undefined ? h('span', null, fmtBytes(p.bytes)) : null,
      h('span', { class: 'mono' }, `#${p.id}`)),
    snippet && p.snippet ? h('p', { class: 'snippet' }, highlightSnippet(cleanSnippet(p.snippet), query)) : null);
}

// FTS5 snippet() markers the daemon might use; shown as plain text either way.
function cleanSnippet(s) {
  return String(s).replace(/\s+/g, ' ').trim();
}

/**
 * The daemon's FTS5 snippet() marks matches as [match]. Brackets are common in page Markdown too
 * (links, refs like [e12]), so only bracketed text that matches a search term becomes a <mark>.
 */
function highlightSnippet(text, query) {
  const terms = String(query || '').toLowerCase().replace(/["()*^:]/g, ' ').split(/\s+/)
    .filter((t) => t && !['and', 'or', 'not', 'near'].includes(t));
  if (!terms.length) return text;
  const out = [];
  let last = 0;
  for (const m of text.matchAll(/\[([^[\]]{1,80})\]/g)) {
    const inner = m[1].toLowerCase();
    if (!terms.some((t) => inner.startsWith(t) || inner.includes(t))) continue;
    out.push(text.slice(last, m.index), h('mark', null, m[1]));
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

export { extLink };

/** Update running durations (4×/s) and relative times (1×/s) while a view is mounted. */
export function startTicker(root) {
  let n = 0;
  const id = setInterval(() => {
    for (const el of root.querySelectorAll('.js-elapsed')) {
      el.textContent = fmtDuration(Date.now() - Number(el.dataset.t0));
    }
    if (++n % 4 === 0) {
      for (const el of root.querySelectorAll('time.js-rel')) el.textContent = fmtRelative(el.dataset.iso);
    }
  }, 250);
  return () => clearInterval(id);
}
