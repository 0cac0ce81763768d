// Small DOM helpers. Everything the dashboard shows is built with these (text via textContent,
// attributes via setAttribute), never by assigning HTML strings — the only HTML that reaches the
// DOM is the sanitised Markdown rendering in markdown.js.

/**
 * h('div', {class: 'x', onclick: fn, dataset: {id: 1}}, 'text', child, [more])
 * Props: class, text, dataset, style (object, set via element.style), on* listeners,
 * boolean true/false attributes, everything else via setAttribute. null/undefined/false skipped.
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') el.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
      else if (key === 'text') el.textContent = String(value);
      else if (key === 'dataset') Object.assign(el.dataset, value);
      else if (key === 'style') Object.assign(el.style, value);
      else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
      else if (key === 'value' && 'value' in el) el.value = value;
      else if (key === 'checked' || key === 'selected' || key === 'disabled' || key === 'hidden' || key === 'open') el[key] = Boolean(value);
      else el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

/** The URL if it is http(s), else null — for links built from data the browser reported. */
export function safeHttpUrl(url) {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/** A URL's path and query, cut to 120 characters, for lists ('' for a URL that does not parse). */
export function pathOf(url) {
  try {
    const u = new URL(url);
    return (u.pathname + u.search).slice(0, 120);
  } catch {
    return '';
  }
}

export function hostOf(url) {
  try {
    return new URL(url).host || url;
  } catch {
    return url || '';
  }
}

/** An external link that opens in a new tab without referrer or opener. */
export function extLink(url, label, props = {}) {
  const href = safeHttpUrl(url);
  if (!href) return h('span', { class: 'ext', ...props }, label ?? url ?? '');
  return h('a', { href, target: '_blank', rel: 'noopener noreferrer', class: 'ext', ...props }, label ?? url);
}

export function fmtTime(iso) {
  const d = toDate(iso);
  if (!d) return '';
  const sameDay = d.toDateString() === new Date().toDateString();
  return sameDay
    ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : d.toLocaleString([], { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function fmtFull(iso) {
  const d = toDate(iso);
  return d ? d.toLocaleString() : '';
}

export function fmtRelative(iso) {
  const d = toDate(iso);
  if (!d) return '';
  const s = Math.round((Date.now() - d.getTime()) / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return fmtTime(iso);
}

export function fmtDuration(ms) {
  if (ms === undefined || ms === null || Number.isNaN(ms)) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

export function fmtBytes(n) {
  if (n === undefined || n === null) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

function toDate(iso) {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Debounced fn; .cancel() drops a pending call (call it when the view unmounts). */
export function debounce(fn, ms) {
  let t;
  const d = (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
  d.cancel = () => clearTimeout(t);
  return d;
}

/** Copy text; flashes the button label. */
export async function copyToClipboard(text, button) {
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    ok = false;
  }
  if (button) {
    const old = button.textContent;
    button.textContent = ok ? 'Copied' : 'Copy failed';
    setTimeout(() => { button.textContent = old; }, 1200);
  }
  return ok;
}

/** A status badge: success / error / partial_success / running / … */
export function badge(status, label) {
  const cls = {
    success: 'ok', ok: 'ok', connected: 'ok',
    error: 'err', failed: 'err', disconnected: 'off',
    partial_success: 'warn', timeout: 'warn',
    running: 'run', pending: 'run', connecting: 'run',
  }[status] || 'neutral';
  return h('span', { class: `badge badge-${cls}` }, label ?? String(status ?? '').replace(/_/g, ' '));
}

export function shortId(id, n = 8) {
  if (!id) return '';
  const s = String(id);
  return s.length > n + 1 ? `${s.slice(0, n)}…` : s;
}

/** Pretty JSON for display (as text). */
export function prettyJson(value) {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

export function compactJson(value, max = 160) {
  let s;
  try {
    s = JSON.stringify(value);
  } catch {
    s = String(value);
  }
  if (s === undefined) s = '';
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
