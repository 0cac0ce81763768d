// #/console[/<tool>] — pick a tool from GET /api/tools, fill the form generated from its
// schema, run it (POST /api/tools/<name>), see the answer.
import { h, clear, badge, prettyJson, fmtDuration, copyToClipboard, extLink } from './dom.js';
import { getJson, request } from './api.js';
import { pageHeader, errorBox, emptyState } from './components.js';
import { buildSchemaForm } from './schema-form.js';
import { markdownView } from './markdown.js';

let toolsCache = null;
const lastValues = new Map(); // tool → values last run with (this page load only)

export function consoleView(main, { arg }) {
  let alive = true;
  let controller = null;
  let buttons = new Map();
  const picker = h('div', { class: 'tool-picker' }, h('p', { class: 'muted' }, 'Loading tools…'));
  const formSlot = h('div', { class: 'tool-form' });
  const resultSlot = h('div', { class: 'tool-result', 'aria-live': 'polite' });
  const root = h('div', { class: 'console' },
    pageHeader('Tool console'),
    h('div', { class: 'console-grid' },
      h('section', { class: 'panel', 'aria-label': 'Tools' }, picker),
      h('div', { class: 'console-main' },
        h('section', { class: 'panel' }, formSlot),
        resultSlot)));
  main.append(root);

  (async () => {
    try {
      if (!toolsCache) {
        const data = await getJson('api/tools');
        toolsCache = (Array.isArray(data) ? data : data.tools || []).filter((t) => t && t.name);
      }
    } catch (e) {
      if (alive) clear(picker).append(errorBox(`Could not load the tools: ${e.message}`));
      return;
    }
    if (!alive) return;
    renderPicker();
    const initial = toolsCache.find((t) => t.name === arg) || null;
    if (initial) selectTool(initial);
    else {
      // The list is on the left on wide screens, a menu above on narrow ones (app.css).
      clear(formSlot).append(emptyState('Pick a tool', h('p', null,
        h('span', { class: 'wide-only' }, 'Choose a tool on the left'), h('span', { class: 'narrow-only' }, 'Choose a tool above'),
        '; a form for its parameters appears here.')));
    }
  })();

  function renderPicker() {
    const filter = h('input', { type: 'search', placeholder: 'Filter tools', 'aria-label': 'Filter tools', class: 'tool-filter', autocomplete: 'off' });
    const list = h('ul', { class: 'tool-list' });
    buttons = new Map();
    for (const t of toolsCache) {
      const btn = h('button', { type: 'button', class: 'tool-btn', dataset: { tool: t.name }, onclick: () => selectTool(t) },
        h('span', { class: 'mono tool-name' }, t.name),
        h('span', { class: 'muted small tool-desc' }, t.title || firstSentence(t.description)));
      buttons.set(t.name, btn);
      list.append(h('li', null, btn));
    }
    filter.addEventListener('input', () => {
      const f = filter.value.trim().toLowerCase();
      for (const [name, btn] of buttons) {
        const t = toolsCache.find((x) => x.name === name);
        btn.parentElement.hidden = Boolean(f) && !`${name} ${t.description || ''}`.toLowerCase().includes(f);
      }
    });
    // Narrow screens: a select is easier than a long list.
    const select = h('select', { class: 'tool-select', 'aria-label': 'Tool', onchange: (e) => { const t = toolsCache.find((x) => x.name === e.target.value); if (t) selectTool(t); } },
      h('option', { value: '' }, '— choose a tool —'),
      toolsCache.map((t) => h('option', { value: t.name }, t.name)));
    clear(picker).append(h('h2', null, 'Tools ', h('span', { class: 'muted small' }, `(${toolsCache.length})`)), select, filter, list);
    if (!toolsCache.length) picker.append(emptyState('The daemon lists no tools'));
  }

  function selectTool(tool) {
    if (controller) controller.abort();
    for (const [name, btn] of buttons) btn.classList.toggle('active', name === tool.name);
    const select = picker.querySelector('.tool-select');
    if (select) select.value = tool.name;
    const wanted = `#/console/${encodeURIComponent(tool.name)}`;
    if (location.hash !== wanted) history.replaceState(null, '', wanted);

    const schema = tool.input_schema || tool.parameters || tool.inputSchema || { type: 'object', properties: {} };
    const form = buildSchemaForm(schema, { initial: lastValues.get(tool.name) || {} });
    const preview = h('pre', { class: 'json body-preview' });
    const runBtn = h('button', { class: 'btn btn-primary', type: 'submit' }, 'Run');
    const cancelBtn = h('button', { class: 'btn', type: 'button', hidden: true, onclick: () => controller && controller.abort() }, 'Stop waiting');
    const formEl = h('form', { class: 'run-form', novalidate: true, onsubmit: (e) => { e.preventDefault(); run(); } },
      form.el,
      h('details', { class: 'preview' }, h('summary', null, 'Request body'), preview),
      h('div', { class: 'actions' }, runBtn, cancelBtn));
    const updatePreview = () => {
      const { values } = quietValues(form);
      preview.textContent = `POST /api/tools/${tool.name}\nContent-Type: application/json\n\n${prettyJson(values)}`;
    };
    formEl.addEventListener('input', updatePreview);
    formEl.addEventListener('change', updatePreview);
    updatePreview();

    clear(formSlot).append(
      h('div', { class: 'tool-head' }, h('h2', { class: 'mono' }, tool.name)),
      tool.title ? h('p', { class: 'tool-title' }, tool.title) : null,
      tool.description ? h('p', { class: 'tool-description' }, tool.description) : null,
      formEl);
    clear(resultSlot);

    async function run() {
      const { values, errors } = form.getValues();
      if (errors.length) {
        errors[0].input.focus();
        return;
      }
      lastValues.set(tool.name, values);
      controller = new AbortController();
      const myController = controller;
      runBtn.disabled = true;
      cancelBtn.hidden = false;
      const t0 = performance.now();
      const elapsed = h('span', { class: 'mono' }, '0.0 s');
      const timer = setInterval(() => { elapsed.textContent = fmtDuration(performance.now() - t0); }, 100);
      clear(resultSlot).append(h('section', { class: 'panel result result-running' },
        h('div', { class: 'result-head' }, badge('running'), h('span', { class: 'mono' }, tool.name), elapsed),
        h('p', { class: 'muted' }, 'Waiting for the browser to act and send the page…')));
      let r;
      try {
        r = await request(`api/tools/${encodeURIComponent(tool.name)}`, { method: 'POST', body: values, signal: myController.signal });
      } catch (e) {
        clearInterval(timer);
        runBtn.disabled = false;
        cancelBtn.hidden = true;
        if (!alive) return;
        clear(resultSlot).append(errorBox(e.name === 'AbortError'
          ? 'Stopped waiting. The call may still finish in the browser; see the Live view.'
          : `The request failed: ${e.message}`));
        return;
      }
      clearInterval(timer);
      runBtn.disabled = false;
      cancelBtn.hidden = true;
      if (!alive) return;
      clear(resultSlot).append(resultPanel(tool.name, r, performance.now() - t0));
    }
  }

  return () => {
    alive = false;
    if (controller) controller.abort();
  };
}

function quietValues(form) {
  const values = {};
  for (const f of form.fields) {
    const r = f.read();
    if (!r.error && r.set) values[f.name] = r.value;
  }
  return { values };
}

function firstSentence(s) {
  if (!s) return '';
  const m = String(s).match(/^.*?[.!?](\s|$)/);
  const out = (m ? m[0] : String(s)).trim();
  return out.length > 110 ? `${out.slice(0, 109)}…` : out;
}

/** Finds a base64 PNG/JPEG in the tool result (screenshot: result.data or result.result.data). */
function findImage(result) {
  const candidates = [result, result?.result, result?.data].filter((x) => x && typeof x === 'object');
  for (const c of candidates) {
    const data = c.data;
    if (typeof data !== 'string' || data.length < 32) continue;
    const mime = c.mimeType || c.mime_type || c.mime || sniff(data);
    if (mime && /^image\/(png|jpeg|webp|gif)$/.test(mime) && /^[A-Za-z0-9+/=\s]+$/.test(data.slice(0, 4096))) {
      return { src: `data:${mime};base64,${data.replace(/\s+/g, '')}`, width: c.width, height: c.height, mime };
    }
  }
  return null;
}

function sniff(b64) {
  if (b64.startsWith('iVBORw0KGgo')) return 'image/png';
  if (b64.startsWith('/9j/')) return 'image/jpeg';
  if (b64.startsWith('UklGR')) return 'image/webp';
  return null;
}

/** Result without the (large) image data, for the raw JSON view. */
function withoutImageData(data) {
  return JSON.parse(JSON.stringify(data, (k, v) => (k === 'data' && typeof v === 'string' && v.length > 200 ? `<${v.length} base64 characters>` : v)));
}

function resultPanel(toolName, r, ms) {
  const d = r.data && typeof r.data === 'object' ? r.data : { status: 'error', message: String(r.data ?? '') };
  const status = d.status || (r.ok ? 'success' : 'error');
  const result = d.result && typeof d.result === 'object' ? d.result : null;
  const panel = h('section', { class: ['panel', 'result', `result-${status}`], 'data-status': status },
    h('div', { class: 'result-head' },
      badge(status),
      h('span', { class: 'mono' }, toolName),
      h('span', { class: 'muted small' }, `HTTP ${r.status}`),
      h('span', { class: 'mono muted small' }, fmtDuration(ms))));

  if (d.summary) panel.append(h('p', { class: 'result-summary' }, d.summary));
  // result.message/result.error: what the browser said; message/error: the daemon's own error.
  const message = result?.message;
  const browserError = result?.error;
  if (message && message !== d.summary) panel.append(h('p', null, message));
  if (browserError) {
    panel.append(h('p', { class: 'alert alert-err' }, typeof browserError === 'string' ? browserError : prettyJson(browserError)));
  } else if (status !== 'success' && (d.message || d.error)) {
    panel.append(h('div', { class: 'alert alert-err' },
      d.message || '', d.error && typeof d.error === 'string' ? h('code', { class: 'err-code' }, d.error) : null));
  }
  if (d.field || d.expected) panel.append(h('p', { class: 'muted' }, `Parameter ${d.field ?? '?'}: expected ${d.expected ?? '?'}.`));
  if (d.waiting_for) panel.append(h('p', { class: 'muted' }, `Still waiting for: ${Array.isArray(d.waiting_for) ? d.waiting_for.join(', ') : d.waiting_for}.`));
  if (r.status === 503) panel.append(h('p', { class: 'muted' }, 'No browser is connected (or it disconnected). See ', h('a', { href: '#/pairing' }, 'Pairing'), '.'));
  if (Array.isArray(d.tools)) panel.append(h('p', { class: 'muted' }, `Known tools: ${d.tools.join(', ')}`));

  const img = findImage(d.result ?? d);
  if (img) {
    panel.append(h('figure', { class: 'shot' },
      h('img', { src: img.src, alt: `Screenshot returned by ${toolName}`, width: img.width, height: img.height }),
      h('figcaption', { class: 'muted small' }, `${img.mime}${img.width && img.height ? `, ${img.width}×${img.height}` : ''}`)));
  }

  const page = d.page && typeof d.page === 'object' ? d.page : null;
  // snapshot "auto" on the same document: only what changed (a unified diff), not the whole page.
  const changesView = (p) => (typeof p.changes === 'string'
    ? [h('p', { class: 'muted small' }, p.changes ? 'What changed since the last page of this tab this session received (snapshot "full" shows the whole page):' : 'Nothing changed on the page since the last page of this tab this session received.'),
      p.changes ? h('pre', { class: 'raw-md' }, p.changes) : null]
    : h('p', { class: 'muted' }, 'The page has no Markdown.'));
  if (page) {
    const md = typeof page.markdown === 'string' ? page.markdown : '';
    const formatted = h('div', { class: 'md-wrap' });
    const raw = h('pre', { class: 'raw-md', hidden: true }, md);
    const toggle = h('button', { class: 'btn btn-quiet', type: 'button' }, 'Show raw Markdown');
    let rendered = false;
    const renderOnce = () => {
      if (!rendered) {
        formatted.append(markdownView(md, { baseUrl: page.url }));
        rendered = true;
      }
    };
    toggle.addEventListener('click', () => {
      const showRaw = raw.hidden;
      raw.hidden = !showRaw;
      formatted.hidden = showRaw;
      if (!showRaw) renderOnce();
      toggle.textContent = showRaw ? 'Show formatted' : 'Show raw Markdown';
    });
    renderOnce();
    const copyBtn = h('button', { class: 'btn btn-quiet', type: 'button', onclick: () => copyToClipboard(md, copyBtn) }, 'Copy');
    panel.append(h('div', { class: 'result-page' },
      h('div', { class: 'doc-bar' },
        h('div', { class: 'result-page-title' },
          h('strong', null, page.title || '(untitled)'), ' ',
          extLink(page.url, page.url, { class: 'ext small' })),
        page.history_id !== undefined && page.history_id !== null ? h('a', { class: 'small', href: `#/history/${encodeURIComponent(page.history_id)}` }, `page #${page.history_id}`) : null,
        toggle, copyBtn),
      md ? [formatted, raw] : changesView(page)));
  }

  panel.append(h('details', { class: 'raw-json' }, h('summary', null, 'Full JSON response'), h('pre', { class: 'json' }, prettyJson(withoutImageData(r.data)))));
  return panel;
}
