// Where to connect and with which token.
// Sources, later ones win: defaults < chrome.storage.local (options page) < pairing.json
// (written next to manifest.json by `browser-bridge serve --headless`).
export const DEFAULT_WS_URL = 'ws://127.0.0.1:8766/ws/browser';
const CLIENT_ID_RE = /^[A-Za-z0-9._:-]{1,64}$/;

let pairingCache; // undefined = not loaded yet, null = no pairing.json

export async function loadPairing() {
  if (pairingCache !== undefined) return pairingCache;
  try {
    const res = await fetch(chrome.runtime.getURL('pairing.json'), { cache: 'no-store' });
    pairingCache = res.ok ? await res.json() : null;
    if (pairingCache && typeof pairingCache !== 'object') pairingCache = null;
  } catch {
    pairingCache = null; // the normal case: a user-installed extension has no pairing.json
  }
  return pairingCache;
}

export async function getClientId() {
  const { clientId } = await chrome.storage.local.get('clientId');
  if (typeof clientId === 'string' && CLIENT_ID_RE.test(clientId)) return clientId;
  const id = 'ext-' + crypto.randomUUID();
  await chrome.storage.local.set({ clientId: id });
  return id;
}

export function normalizeWsUrl(s) {
  s = String(s || '').trim();
  if (!s) return DEFAULT_WS_URL;
  if (/^\d+$/.test(s)) return `ws://127.0.0.1:${s}/ws/browser`;
  if (!/^wss?:\/\//i.test(s)) s = 'ws://' + s;
  const u = new URL(s);
  if (u.pathname === '/' || u.pathname === '') u.pathname = '/ws/browser';
  return u.toString();
}

export async function getConfig() {
  const pairing = await loadPairing();
  const stored = await chrome.storage.local.get(['wsUrl', 'token']);
  const cfg = {
    wsUrl: DEFAULT_WS_URL,
    token: '',
    clientId: await getClientId(),
    managed: false,
  };
  if (stored.wsUrl) cfg.wsUrl = normalizeWsUrl(stored.wsUrl);
  if (typeof stored.token === 'string') cfg.token = stored.token.trim();
  if (pairing) {
    cfg.managed = true;
    if (pairing.wsUrl) cfg.wsUrl = normalizeWsUrl(pairing.wsUrl);
    if (typeof pairing.token === 'string') cfg.token = pairing.token.trim();
    if (typeof pairing.clientId === 'string' && CLIENT_ID_RE.test(pairing.clientId)) cfg.clientId = pairing.clientId;
  }
  return cfg;
}
