// Dashboard entry: shell (header + nav), hash router, login check.
import { h, clear } from './dom.js';
import { request, onUnauthorized, logout } from './api.js';
import { startEvents, stopEvents } from './events.js';
import * as store from './store.js';
import { liveView } from './view-live.js';
import { historyView } from './view-history.js';
import { pageView } from './view-page.js';
import { consoleView } from './view-console.js';
import { pairingView } from './view-pairing.js';
import { loginScreen, unreachableScreen } from './view-login.js';
import { withRealAddress } from './login-address.js';

const root = document.getElementById('app');
const NAV = [
  { id: 'live', label: 'Live', href: '#/live' },
  { id: 'history', label: 'History', href: '#/history' },
  { id: 'console', label: 'Console', href: '#/console' },
  { id: 'pairing', label: 'Pairing', href: '#/pairing' },
];

let main = null;
let unmount = null;
let authed = false;
let shellParts = null;

/** '#/history/12?q=x' → {parts: ['history', '12'], query: URLSearchParams} */
export function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path, qs] = raw.split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(qs || '') };
}

function route() {
  if (!authed) return;
  const { parts, query } = parseHash();
  const [section = 'live', arg] = parts;
  if (unmount) {
    try { unmount(); } catch { /* ignore */ }
    unmount = null;
  }
  clear(main);
  let view;
  switch (section) {
    case 'live': view = liveView; break;
    case 'history': view = arg ? pageView : historyView; break;
    case 'console': view = consoleView; break;
    case 'pairing': view = pairingView; break;
    default:
      location.replace('#/live');
      return;
  }
  for (const a of shellParts.nav.querySelectorAll('a')) {
    a.classList.toggle('active', a.dataset.id === section);
    if (a.dataset.id === section) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.title = `${NAV.find((n) => n.id === section)?.label ?? ''} · Browser Bridge`;
  unmount = view(main, { arg, query }) || null;
  main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

function buildShell() {
  const nav = h('nav', { class: 'nav', 'aria-label': 'Sections' },
    NAV.map((n) => h('a', { href: n.href, dataset: { id: n.id } }, n.label)));
  const conn = h('span', { class: 'conn', role: 'status', 'aria-live': 'polite' });
  const logoutBtn = h('button', {
    class: 'btn btn-quiet', type: 'button', title: 'End this dashboard session',
    onclick: async () => {
      await logout().catch(() => {});
      showLogin();
    },
  }, 'Log out');
  const header = h('header', { class: 'topbar' },
    h('a', { class: 'brand', href: '#/live' }, h('span', { class: 'brand-mark', 'aria-hidden': 'true' }), 'Browser Bridge'),
    nav,
    h('div', { class: 'topbar-right' }, conn, logoutBtn));
  main = h('main', { class: 'main', id: 'main', tabindex: '-1' });
  clear(root).append(header, main);
  shellParts = { nav, conn };
  renderConn();
}

function renderConn() {
  if (!shellParts) return;
  const n = store.connectedBrowsers().length;
  const sse = store.state.sse;
  const label = sse === 'open'
    ? `${n} browser${n === 1 ? '' : 's'} connected`
    : sse === 'connecting' ? 'Connecting…' : 'Live updates lost — reconnecting…';
  const cls = sse !== 'open' ? 'conn-warn' : n ? 'conn-ok' : 'conn-off';
  shellParts.conn.className = `conn ${cls}`;
  const short = sse === 'open' ? `${n} connected` : 'offline';
  shellParts.conn.replaceChildren(h('span', { class: 'dot', 'aria-hidden': 'true' }),
    h('span', { class: 'conn-long' }, label), h('span', { class: 'conn-short', 'aria-hidden': 'true' }, short));
  shellParts.conn.title = sse === 'open' ? 'Live event stream connected' : 'Live event stream not connected';
}

store.subscribe((kinds) => {
  if (kinds.has('sse') || kinds.has('browsers')) renderConn();
});

function showLogin() {
  authed = false;
  stopEvents();
  if (unmount) {
    try { unmount(); } catch { /* ignore */ }
    unmount = null;
  }
  shellParts = null;
  document.title = 'Log in · Browser Bridge';
  clear(root).append(withRealAddress(loginScreen({ onRetry: boot })));
}

async function boot() {
  let r;
  try {
    r = await request('api/status');
  } catch (e) {
    if (e.status === 401) return; // showLogin ran via onUnauthorized
    clear(root).append(unreachableScreen({ message: e.message, onRetry: boot }));
    return;
  }
  if (!r.ok) {
    clear(root).append(unreachableScreen({ message: `The daemon answered HTTP ${r.status}.`, onRetry: boot }));
    return;
  }
  authed = true;
  store.state.version = r.data?.version ?? null;
  store.setBrowsers(r.data?.browsers || []);
  buildShell();
  startEvents();
  if (!location.hash || location.hash === '#' || location.hash === '#/') location.replace('#/live');
  route();
}

onUnauthorized(() => {
  if (authed || !root.querySelector('.login')) showLogin();
});
window.addEventListener('hashchange', route);
boot();
