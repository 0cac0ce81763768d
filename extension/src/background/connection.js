// The one WebSocket to the daemon: challenge/hello/welcome (protocol 2, see handshake.js),
// heartbeat, reconnect with backoff, and the size limit of every message sent: the daemon's
// max_message_bytes, announced in `welcome` as maxMessageBytes (a bigger message would get the
// connection closed with 1009). send() never sends more; callers cut what they can (page.js).
import { getConfig } from './config.js';
import { IMPOSTOR_TEXT, newNonce, proof, sameString, validNonce } from './handshake.js';
import { browserInfo } from './browser-info.js';
import { setConnState as setState } from './state.js';

let lastState = 'disconnected';
function setConnState(state, ...rest) {
  lastState = state;
  return setState(state, ...rest);
}

const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 10_000;
const HEARTBEAT_MS = 20_000;
// A daemon sends its challenge right after the upgrade; a server that does not is not our daemon.
const CHALLENGE_WAIT_MS = 5_000;
// After an impostor, retry no faster than this (the real daemon may come up on the port later).
const IMPOSTOR_RETRY_ATTEMPT = 5;

let ws = null;            // current socket (connecting or open)
let welcomed = false;
let attempt = 0;
let retryTimer = null;
let heartbeatTimer = null;
let challengeTimer = null;
let holdUntil = 0;        // after 4409 (replaced) we wait for the alarm instead of fighting
let handlers = { onCommand: () => {}, onWelcome: () => {} };
let capabilities = [];
// Until a welcome says otherwise: the daemon's default max_message_bytes.
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
let maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
const utf8 = new TextEncoder();

export function init(opts) {
  handlers = { ...handlers, ...opts };
  capabilities = opts.capabilities || [];
}

export function isConnected() {
  return !!ws && ws.readyState === WebSocket.OPEN && welcomed;
}

// The largest message (in bytes of UTF-8 JSON) the daemon accepts from us.
export function getMaxMessageBytes() {
  return maxMessageBytes;
}

// The size in bytes of the message send(type, data) would send.
export function messageBytes(type, data) {
  return utf8.encode(JSON.stringify({ type, data })).length;
}

// Send one message; false when there is no connection or the message is over the daemon's
// limit (then nothing is sent, and the connection stays up).
export function send(type, data) {
  if (!ws || ws.readyState !== WebSocket.OPEN) return false;
  try {
    const text = JSON.stringify({ type, data });
    const bytes = utf8.encode(text).length;
    if (bytes > maxMessageBytes) {
      console.warn(`[browser-bridge] not sending a ${type} of ${bytes} bytes: the daemon's max_message_bytes is ${maxMessageBytes}`);
      return false;
    }
    ws.send(text);
    return true;
  } catch {
    return false;
  }
}

function clearTimers() {
  clearTimeout(retryTimer); retryTimer = null;
  clearInterval(heartbeatTimer); heartbeatTimer = null;
  clearTimeout(challengeTimer); challengeTimer = null;
}

// The peer failed to prove it holds the token: drop it, say so in the popup and options page, and
// try again later (the real daemon may start on this port). Nothing it sent is acted on.
function refuseImpostor(sock, why) {
  if (ws !== sock) return;
  ws = null;
  welcomed = false;
  clearTimers();
  try { sock.close(4000, 'not the Browser Bridge daemon'); } catch { /* ignore */ }
  handlers.onDisconnect?.();
  attempt = Math.max(attempt, IMPOSTOR_RETRY_ATTEMPT);
  scheduleReconnect('refused the server');
  setConnState('impostor', `Refused: ${IMPOSTOR_TEXT} (${why}). It was sent no token and no command from it was run; retrying later.`);
}

function scheduleReconnect(reason) {
  clearTimeout(retryTimer);
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** attempt);
  const delay = Math.round(base * (0.75 + Math.random() * 0.5)); // ±25 % jitter
  attempt++;
  setConnState('reconnecting', `${reason}; retrying in ${(delay / 1000).toFixed(1)} s`);
  retryTimer = setTimeout(() => connect(), delay);
}

// Close the current socket (if any) and connect afresh, e.g. after the options changed.
export function reconnect() {
  attempt = 0;
  holdUntil = 0;
  const old = ws;
  ws = null;
  welcomed = false;
  clearTimers();
  if (old) { try { old.close(1000, 'reconfigured'); } catch { /* ignore */ } }
  connect();
}

// Idempotent: does nothing while a socket is connecting or open.
export async function connect() {
  if (ws && (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN)) return;
  if (Date.now() < holdUntil) return;
  clearTimeout(retryTimer); retryTimer = null;
  const cfg = await getConfig();
  if (ws && (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN)) return; // raced
  if (!cfg.token) {
    setConnState('unpaired', 'No pairing token: open the options page and paste the token `browser-bridge serve` printed.', { wsUrl: cfg.wsUrl, clientId: cfg.clientId });
    return; // the options page triggers reconnect() when a token is saved
  }
  let sock;
  try {
    sock = new WebSocket(cfg.wsUrl);
  } catch (e) {
    setConnState('error', `Bad daemon address ${cfg.wsUrl}: ${e.message}`, { wsUrl: cfg.wsUrl });
    return;
  }
  ws = sock;
  welcomed = false;
  if (!((lastState === 'unauthorized' || lastState === 'impostor') && attempt > 0)) setConnState('connecting', cfg.wsUrl, { wsUrl: cfg.wsUrl, clientId: cfg.clientId });

  // The handshake of this socket: 'challenge' (waiting for it), 'welcome' (hello sent), 'done'.
  let phase = 'challenge';
  let serverNonce = null;
  let clientNonce = null;

  sock.onopen = () => {
    if (ws !== sock) return;
    challengeTimer = setTimeout(() => refuseImpostor(sock, `it sent no challenge within ${CHALLENGE_WAIT_MS / 1000} s, as a daemon older than protocol 2 would not either`), CHALLENGE_WAIT_MS);
  };

  // Answer the challenge with a hello that proves the token without sending it.
  const sayHello = async (s) => {
    serverNonce = s;
    clientNonce = newNonce();
    const [info, p, siteAccess] = await Promise.all([browserInfo(), proof(cfg.token, 'hello', serverNonce, clientNonce),
      chrome.permissions.contains({ origins: ['<all_urls>'] }).catch(() => false)]);
    if (ws !== sock) return;
    const hello = {
      clientId: cfg.clientId,
      nonce: clientNonce,
      proof: p,
      browser: info.browser,
      browserVersion: info.browserVersion,
      extensionVersion: chrome.runtime.getManifest().version,
      siteAccess, // whether it may read every site, as of connecting (browser-bridge doctor shows it)
      capabilities,
      // It shows agent sessions (tab groups, the popup's list): the daemon sends it sessions, session_end.
      features: ['sessions'],
    };
    sock.send(JSON.stringify({ type: 'hello', data: hello }));
  };

  // Messages are handled in order: a command right behind the welcome waits for its proof check.
  let queue = Promise.resolve();
  sock.onmessage = (ev) => {
    queue = queue.then(() => onMessage(ev)).catch((e) => console.error('[browser-bridge] message failed', e));
  };

  const onMessage = async (ev) => {
    if (ws !== sock) return;
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    if (!msg || typeof msg.type !== 'string') return;
    const data = msg.data && typeof msg.data === 'object' ? msg.data : {};
    if (phase !== 'done') {
      // Before the welcome's proof has checked out only the handshake is accepted.
      if (msg.type === 'error') { console.warn('[browser-bridge] daemon reported an error:', data.message); return; }
      if (phase === 'challenge' && msg.type === 'challenge') {
        if (!validNonce(data.nonce)) return refuseImpostor(sock, 'its challenge is malformed');
        clearTimeout(challengeTimer); challengeTimer = null;
        phase = 'welcome';
        await sayHello(data.nonce);
        return;
      }
      if (phase === 'welcome' && msg.type === 'welcome') {
        const want = await proof(cfg.token, 'welcome', clientNonce, serverNonce);
        if (ws !== sock) return;
        if (!sameString(data.proof, want)) return refuseImpostor(sock, typeof data.proof === 'string' ? 'its welcome has a wrong proof' : 'its welcome carries no proof');
        phase = 'done';
      } else {
        return refuseImpostor(sock, `it sent "${String(msg.type).slice(0, 40)}" before proving the token`);
      }
    }
    switch (msg.type) {
      case 'welcome': {
        if (welcomed) break;
        welcomed = true;
        attempt = 0;
        {
          const max = Number(data.maxMessageBytes);
          maxMessageBytes = Number.isSafeInteger(max) && max > 0 ? max : DEFAULT_MAX_MESSAGE_BYTES;
        }
        const hb = Math.min(HEARTBEAT_MS, Math.max(5, Number(data.heartbeatSeconds) || 20) * 1000);
        clearInterval(heartbeatTimer);
        heartbeatTimer = setInterval(() => send('heartbeat', {}), hb);
        setConnState('connected', `connected to ${cfg.wsUrl} (server ${data.serverVersion || '?'})`, { wsUrl: cfg.wsUrl, clientId: cfg.clientId });
        handlers.onWelcome(data);
        break;
      }
      case 'command':
        if (welcomed) handlers.onCommand(data);
        break;
      case 'cancel':
        if (welcomed) handlers.onCancel?.(data.requestId);
        break;
      case 'heartbeat_ack':
        break;
      case 'sessions':
        if (welcomed) handlers.onSessions?.(data);
        break;
      case 'session_end':
        if (welcomed) handlers.onSessionEnd?.(data);
        break;
      case 'error':
        console.warn('[browser-bridge] daemon reported an error:', data.message, data);
        break;
      default:
        break;
    }
  };

  sock.onclose = (ev) => {
    if (ws !== sock) return; // a socket we already replaced
    ws = null;
    welcomed = false;
    clearTimers();
    handlers.onDisconnect?.();
    const why = ev.reason ? `${ev.code} ${ev.reason}` : `code ${ev.code}`;
    if (ev.code === 4401) {
      // Keep retrying slowly: the daemon may be restarted with the token we have.
      attempt = Math.max(attempt, 5);
      scheduleReconnect('unauthorized');
      setConnState('unauthorized', `The daemon refused the pairing token (${why}). Paste the current token in the options page.`);
      return;
    }
    if (ev.code === 4426) {
      attempt = Math.max(attempt, 5);
      scheduleReconnect('protocol refused');
      setConnState('error', `The daemon refused this extension's protocol (${why}); update Browser Bridge so both speak the same version.`);
      return;
    }
    if (ev.code === 4409) {
      // Another connection with our clientId took over; don't fight it. The 30 s alarm retries.
      holdUntil = Date.now() + 25_000;
      setConnState('replaced', 'Another connection with the same client id replaced this one.');
      return;
    }
    scheduleReconnect(ev.code === 1006 ? 'daemon not reachable' : `closed (${why})`);
  };
  sock.onerror = () => { /* onclose follows */ };
}
