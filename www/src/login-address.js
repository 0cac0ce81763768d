// The login card (view-login.js) shows what `browser-bridge login-url` prints with the default
// address 127.0.0.1:8765. A daemon on another port prints its own, so the card shows the address
// this page was loaded from (the daemon's real HTTP address; /api/status needs a session).
// Only text nodes are touched (no HTML strings).

const DEFAULT_ADDRESS = '127.0.0.1:8765';

/** Replaces the default address in el's text with location.host; returns el. */
export function withRealAddress(el) {
  const host = location.host;
  if (!host || host === DEFAULT_ADDRESS) return el;
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.nodeValue.includes(DEFAULT_ADDRESS)) n.nodeValue = n.nodeValue.split(DEFAULT_ADDRESS).join(host);
  }
  return el;
}
