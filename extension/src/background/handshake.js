// Protocol 2 (docs/protocol.md): the token never goes on the wire. The daemon opens with a
// challenge nonce S; our hello carries our nonce C and HMAC-SHA256(token, "browser-bridge hello\n"
// S "\n" C); the daemon's welcome must carry HMAC-SHA256(token, "browser-bridge welcome\n" C "\n" S),
// which only a holder of the token can make. Until that proof checks out we obey nothing.
export const PROTOCOL_VERSION = 2;
export const IMPOSTOR_TEXT = 'the server on this port is not your Browser Bridge daemon';
const NONCE_RE = /^[A-Za-z0-9_-]{43}$/;

function b64url(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

// 32 random bytes, unpadded base64url.
export function newNonce() {
  return b64url(crypto.getRandomValues(new Uint8Array(32)));
}

export function validNonce(s) {
  return typeof s === 'string' && NONCE_RE.test(s);
}

// base64url(HMAC-SHA256(key = the token's UTF-8 bytes, "browser-bridge LABEL\n" first "\n" second)).
export async function proof(token, label, first, second) {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', enc.encode(token), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, enc.encode(`browser-bridge ${label}\n${first}\n${second}`));
  return b64url(new Uint8Array(mac));
}

// Compare two strings without stopping at the first difference.
export function sameString(a, b) {
  if (typeof a !== 'string' || typeof b !== 'string' || a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return d === 0;
}
