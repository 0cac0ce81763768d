// The /ws/browser handshake of protocol version 2 (docs/protocol.md), for every scripted peer and
// fake server in the tests: the token never goes on the wire, only HMAC-SHA256 proofs of it.
import { createHmac, randomBytes } from 'node:crypto';

export const PROTOCOL_VERSION = 2;

// 32 random bytes, unpadded base64url (43 characters).
export const nonce = () => randomBytes(32).toString('base64url');

// base64url(HMAC-SHA256(token, "browser-bridge LABEL\n" + first + "\n" + second)).
export function proof(token, label, first, second) {
  return createHmac('sha256', Buffer.from(token, 'utf8')).update(`browser-bridge ${label}\n${first}\n${second}`).digest('base64url');
}

// The hello's data for a challenge nonce S: our own nonce C and the proof; `fields` adds the rest.
export function helloFor(challengeNonce, token, fields = {}) {
  const c = nonce();
  return { ...fields, nonce: c, proof: proof(token, 'hello', challengeNonce, c) };
}

// Whether a welcome proves the token for this connection's nonces (S ours from the challenge, C ours).
export function welcomeOk(welcomeData, token, challengeNonce, clientNonce) {
  return typeof welcomeData?.proof === 'string' && welcomeData.proof === proof(token, 'welcome', clientNonce, challengeNonce);
}

// The challenge a fake daemon sends right after the upgrade.
export function challengeMessage(s = nonce()) {
  return { type: 'challenge', data: { nonce: s, protocolVersion: PROTOCOL_VERSION } };
}
