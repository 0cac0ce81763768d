// #/pairing — what the extension needs (token, WebSocket address, allowed extension origins),
// the state of each browser connection, and what to do when a browser is not connected.
import { h, clear, copyToClipboard, fmtBytes } from './dom.js';
import { request, getJson } from './api.js';
import * as store from './store.js';
import { pageHeader, errorBox, browserCard, emptyState, startTicker } from './components.js';

const PINNED_EXTENSION_ID = 'lpjafomjfpchgbopnmlebcocfkelgpgo';

export function pairingView(main) {
  let alive = true;
  const secrets = h('section', { class: 'panel', 'aria-labelledby': 'h-pair' }, h('h2', { id: 'h-pair' }, 'Pair a browser'), h('p', { class: 'muted' }, 'Loading…'));
  const conns = h('section', { class: 'panel', 'aria-labelledby': 'h-conns' });
  const daemon = h('section', { class: 'panel', 'aria-labelledby': 'h-daemon' });
  const help = troubleshooting();
  const root = h('div', { class: 'pairing' },
    pageHeader('Pairing'),
    h('div', { class: 'pairing-grid' },
      h('div', { class: 'col' }, secrets, daemon),
      h('div', { class: 'col' }, conns, help)));
  main.append(root);

  let status = null;
  (async () => {
    let pairing = null;
    let pairingError = null;
    try {
      const r = await request('api/pairing');
      if (r.ok && r.data && typeof r.data === 'object') pairing = r.data;
      else pairingError = r.status === 404 ? 'This daemon does not offer GET /api/pairing.' : `HTTP ${r.status}`;
    } catch (e) {
      pairingError = e.message;
    }
    try {
      status = await getJson('api/status');
    } catch {
      status = null;
    }
    if (!alive) return;
    renderSecrets(pairing, pairingError);
    renderDaemon();
    renderConns();
  })();

  function renderSecrets(p, err) {
    clear(secrets).append(h('h2', { id: 'h-pair' }, 'Pair a browser'));
    if (!p) {
      secrets.append(errorBox(`Could not load the pairing details: ${err}`,
        h('p', null, 'Print the token with ', h('code', null, 'browser-bridge token'), '.')));
      return;
    }
    const origins = Array.isArray(p.allowed_origins) ? p.allowed_origins : status?.allowed_origins || [];
    const wsUrl = p.ws_url || (status?.ws ? `ws://${status.ws}/ws/browser` : '');
    const extId = p.extension_id || extIdFromOrigins(origins) || PINNED_EXTENSION_ID;

    const token = String(p.token ?? '');
    const tokenEl = h('code', { class: 'secret mono', id: 'pair-token', 'aria-live': 'polite' }, mask(token));
    let shown = false;
    const revealBtn = h('button', { class: 'btn', type: 'button', 'aria-controls': 'pair-token', 'aria-pressed': 'false' }, 'Reveal');
    revealBtn.addEventListener('click', () => {
      shown = !shown;
      tokenEl.textContent = shown ? token : mask(token);
      tokenEl.classList.toggle('revealed', shown);
      revealBtn.textContent = shown ? 'Hide' : 'Reveal';
      revealBtn.setAttribute('aria-pressed', String(shown));
    });
    const copyTokenBtn = h('button', { class: 'btn', type: 'button', onclick: () => copyToClipboard(token, copyTokenBtn) }, 'Copy');
    const copyWsBtn = h('button', { class: 'btn', type: 'button', onclick: () => copyToClipboard(wsUrl, copyWsBtn) }, 'Copy');
    // The directory the daemon itself loads with --headless: --extension, else the installed copy.
    const extDir = typeof status?.extension_dir === 'string' ? status.extension_dir : '';
    const copyDirBtn = h('button', { class: 'btn', type: 'button', onclick: () => copyToClipboard(extDir, copyDirBtn) }, 'Copy');

    secrets.append(
      h('ol', { class: 'steps' },
        h('li', null, 'Install the Browser Bridge extension: ', h('code', null, 'chrome://extensions'), ' → Developer mode → Load unpacked → ',
          extDir ? h('code', { class: 'break' }, extDir) : 'the extension folder installed with Browser Bridge (share/browser-bridge/extension)', '.'),
        h('li', null, 'Open the extension’s options page (right-click its toolbar icon → Options) and enter the ', h('strong', null, 'Daemon address'), ' and ', h('strong', null, 'Pairing token'), ' shown here.'),
        h('li', null, 'The browser appears under “Connections” within a few seconds.')),
      h('dl', { class: 'kv' },
        h('dt', null, 'Pairing token'),
        h('dd', null, h('div', { class: 'secret-row' }, tokenEl, revealBtn, copyTokenBtn),
          h('p', { class: 'muted small' }, 'Treat it like a password: whoever has it can drive your browser. ',
            'The daemon keeps it in its token file; ', h('code', null, 'browser-bridge token'), ' prints it.')),
        h('dt', null, 'Daemon address'),
        h('dd', null, h('div', { class: 'secret-row' }, h('code', { class: 'mono', id: 'pair-ws' }, wsUrl || '—'), copyWsBtn)),
        h('dt', null, 'Extension folder'),
        h('dd', null, extDir
          ? h('div', { class: 'secret-row' }, h('code', { class: 'mono break', id: 'pair-extdir' }, extDir), copyDirBtn)
          : h('span', { class: 'muted' }, 'This daemon does not report it.')),
        h('dt', null, 'Extension ID'),
        h('dd', null, h('code', { class: 'mono', id: 'pair-ext' }, extId),
          extId === PINNED_EXTENSION_ID ? h('span', { class: 'muted small' }, ' (the pinned ID of the official build)') : null),
        h('dt', null, 'Allowed origins'),
        h('dd', null, origins.length
          ? h('ul', { class: 'plain', id: 'pair-origins' }, origins.map((o) => h('li', null, h('code', { class: 'mono' }, o))))
          : h('span', { class: 'muted' }, '—'))));
  }

  function renderDaemon() {
    clear(daemon).append(h('h2', { id: 'h-daemon' }, 'Daemon'));
    if (!status) {
      daemon.append(h('p', { class: 'muted' }, 'Status unavailable.'));
      return;
    }
    const db = status.database || {};
    daemon.append(h('dl', { class: 'kv kv-compact' },
      h('dt', null, 'Version'), h('dd', null, status.version || '—'),
      h('dt', null, 'HTTP'), h('dd', { class: 'mono' }, fmtAddr(status.http) || location.host),
      h('dt', null, 'WebSocket'), h('dd', { class: 'mono' }, fmtAddr(status.ws) || '—'),
      h('dt', null, 'Calls running'), h('dd', null, String(status.calls_in_flight ?? 0)),
      h('dt', null, 'History'), h('dd', null,
        `${db.pages ?? '?'} pages, ${db.commands ?? '?'} calls${db.bytes !== undefined ? `, ${fmtBytes(db.bytes)}` : ''}`,
        db.path ? h('div', { class: 'muted small mono break' }, db.path) : null)));
  }

  function renderConns() {
    const list = [...store.state.browsers.values()].sort((a, b) => (b.connected - a.connected));
    clear(conns).append(h('h2', { id: 'h-conns' }, 'Connections'));
    if (!list.length) {
      for (const d of help.querySelectorAll('details')) d.open = true;
      conns.append(emptyState('No browser is connected',
        h('p', null, 'Nothing has connected to the WebSocket yet. Follow the steps on this page, then check the list below if it still does not appear.')));
      return;
    }
    const div = h('div', { class: 'browsers' });
    for (const b of list) div.append(browserCard(b, { detailed: true }));
    conns.append(div);
    for (const d of help.querySelectorAll('details')) d.open = !list.some((b) => b.connected);
    if (!list.some((b) => b.connected)) {
      conns.append(h('p', { class: 'alert alert-warn' }, 'No browser is connected right now. See “If the browser does not connect”.'));
    }
  }

  const unsub = store.subscribe((kinds) => { if (kinds.has('browsers')) renderConns(); });
  const stopTicker = startTicker(root);
  return () => {
    alive = false;
    unsub();
    stopTicker();
  };
}

function troubleshooting() {
  const item = (title, ...body) => h('details', { class: 'trouble' }, h('summary', null, title), h('div', null, body));
  return h('section', { class: 'panel', 'aria-labelledby': 'h-trouble' },
    h('h2', { id: 'h-trouble' }, 'If the browser does not connect'),
    item('The extension says it cannot reach the daemon',
      h('p', null, 'Check that ', h('code', null, 'browser-bridge serve'), ' is running and that the extension uses the WebSocket address shown on this page (host and port must match exactly).')),
    item('“Unauthorized” (close code 4401)',
      h('p', null, 'The token in the extension is wrong or was rotated. Copy the current one from this page (or run ', h('code', null, 'browser-bridge token'), ') into the extension’s options page.')),
    item('Refused with HTTP 403 / origin not allowed',
      h('p', null, 'The daemon only accepts the extension IDs listed under “Allowed origins”. An unpacked or self-built extension may have another ID: find it on ', h('code', null, 'chrome://extensions'),
        ' and start the daemon with ', h('code', null, '--allow-origin chrome-extension://<id>'), ' (or ', h('code', null, 'allow_origin ='), ' in the config). Firefox uses ', h('code', null, 'moz-extension://…'), '.')),
    item('It connects and drops again (close code 4409)',
      h('p', null, 'Two browser profiles use the same client ID, so each replaces the other. Reset the client ID in one of the extensions.')),
    item('It was connected and went away',
      h('p', null, 'Browsers stop idle extension workers; the extension reconnects on its own. If it does not, open the extension popup or reload the extension. The daemon drops a connection after 25 s of silence.')));
}

function mask(token) {
  if (!token) return '—';
  return '•'.repeat(Math.min(24, Math.max(12, token.length)));
}

function extIdFromOrigins(origins) {
  const o = origins.find((x) => /^chrome-extension:\/\//.test(x));
  return o ? o.replace(/^chrome-extension:\/\//, '').replace(/\/$/, '') : null;
}

function fmtAddr(a) {
  if (!a) return '';
  if (typeof a === 'string') return a;
  if (typeof a === 'object') return a.listen || a.address || (a.host && a.port ? `${a.host}:${a.port}` : JSON.stringify(a));
  return String(a);
}
