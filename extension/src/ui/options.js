import { renderConn, getConn } from './common.js';

const $ = (id) => document.getElementById(id);
const ALL = { origins: ['<all_urls>'] };
const DEBUGGER = { permissions: ['debugger'] }; // trusted input (background/trusted.js)

async function loadForm() {
  const { wsUrl, token, clientId } = await chrome.storage.local.get(['wsUrl', 'token', 'clientId']);
  $('ws-url').value = wsUrl || '';
  $('token').value = token || '';
  $('client-id').textContent = clientId || '(not yet assigned)';
  try {
    const r = await fetch(chrome.runtime.getURL('pairing.json'));
    if (r.ok) $('managed').hidden = false;
  } catch { /* not managed */ }
}

async function refreshConn() {
  const conn = await getConn();
  renderConn(conn, { dot: $('dot'), state: $('state'), detail: $('detail') });
  if (conn?.connection === 'connected' && /Connecting/.test($('save-msg').textContent)) $('save-msg').textContent = 'Saved. Connected.';
  if (conn?.clientId) $('client-id').textContent = conn.clientId;
}

async function refreshAccess() {
  const granted = await chrome.permissions.contains(ALL);
  $('access-dot').className = 'dot ' + (granted ? 'connected' : 'error');
  $('access-state').textContent = granted ? 'Allowed on all sites' : 'No site access yet';
  $('grant').disabled = granted;
  $('revoke').disabled = !granted;
}

$('save').addEventListener('click', async () => {
  const wsUrl = $('ws-url').value.trim();
  const token = $('token').value.trim();
  const msg = $('save-msg');
  if (wsUrl && !/^(wss?:\/\/)?[^\s/]+(\/\S*)?$/i.test(wsUrl) && !/^\d+$/.test(wsUrl)) {
    msg.className = 'msg bad'; msg.textContent = 'That is not a ws:// address.'; return;
  }
  await chrome.storage.local.set({ wsUrl, token }); // the service worker reconnects on change
  chrome.runtime.sendMessage({ type: 'reconnect' }).catch(() => {});
  msg.className = 'msg ok'; msg.textContent = token ? 'Saved. Connecting…' : 'Saved (no token: not connecting).';
});

$('show-token').addEventListener('click', () => {
  const t = $('token');
  t.type = t.type === 'password' ? 'text' : 'password';
  $('show-token').textContent = t.type === 'password' ? 'Show token' : 'Hide token';
});

$('reconnect').addEventListener('click', () => chrome.runtime.sendMessage({ type: 'reconnect' }).catch(() => {}));

$('grant').addEventListener('click', async () => {
  const msg = $('access-msg');
  try {
    const ok = await chrome.permissions.request(ALL); // needs this click (a user gesture)
    msg.className = ok ? 'msg ok' : 'msg bad';
    msg.textContent = ok ? 'Access granted.' : 'Not granted.';
  } catch (e) { msg.className = 'msg bad'; msg.textContent = e.message; }
  refreshAccess();
});

$('revoke').addEventListener('click', async () => {
  const msg = $('access-msg');
  try {
    const ok = await chrome.permissions.remove(ALL);
    msg.className = ok ? 'msg ok' : 'msg bad';
    msg.textContent = ok ? 'Access revoked.' : 'Could not revoke.';
  } catch (e) {
    msg.className = 'msg bad';
    msg.textContent = `Cannot revoke: this install grants site access in its manifest (${e.message}).`;
  }
  refreshAccess();
});

async function refreshTrusted() {
  const granted = await chrome.permissions.contains(DEBUGGER).catch(() => false);
  $('trusted-dot').className = 'dot ' + (granted ? 'connected' : '');
  $('trusted-state').textContent = granted ? 'On: clicks and keys are trusted input' : 'Off: clicks and keys are sent by script';
  $('trusted-grant').disabled = granted;
  $('trusted-revoke').disabled = !granted;
}

$('trusted-grant').addEventListener('click', async () => {
  const msg = $('trusted-msg');
  try {
    const ok = await chrome.permissions.request(DEBUGGER); // asked only on this click
    msg.className = ok ? 'msg ok' : 'msg bad';
    msg.textContent = ok ? 'Trusted input is on.' : 'Not granted.';
  } catch (e) { msg.className = 'msg bad'; msg.textContent = e.message; }
  refreshTrusted();
});

$('trusted-revoke').addEventListener('click', async () => {
  const msg = $('trusted-msg');
  try {
    const ok = await chrome.permissions.remove(DEBUGGER);
    msg.className = ok ? 'msg ok' : 'msg bad';
    msg.textContent = ok ? 'Trusted input is off.' : 'Could not turn it off.';
  } catch (e) {
    msg.className = 'msg bad';
    msg.textContent = `Cannot turn it off: this install grants it in its manifest (${e.message}).`;
  }
  refreshTrusted();
});

chrome.storage.onChanged.addListener((changes, area) => { if (area === 'session' && changes.conn) refreshConn(); });
chrome.permissions.onAdded?.addListener(() => { refreshAccess(); refreshTrusted(); });
chrome.permissions.onRemoved?.addListener(() => { refreshAccess(); refreshTrusted(); });

loadForm();
refreshConn();
refreshAccess();
refreshTrusted();
