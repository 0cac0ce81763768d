export const STATE_TEXT = {
  connected: 'Connected', connecting: 'Connecting…', reconnecting: 'Not connected — retrying',
  unauthorized: 'Token refused', unpaired: 'Not paired', replaced: 'Replaced by another connection',
  error: 'Error', disconnected: 'Not connected', impostor: 'Not your Browser Bridge daemon',
};

export function renderConn(conn, els) {
  const s = conn?.connection || 'disconnected';
  els.dot.className = 'dot ' + s;
  els.state.textContent = STATE_TEXT[s] || s;
  els.detail.textContent = conn?.detail || '';
  // A server that failed the handshake is a warning, not a passing status: make it stand out.
  els.detail.classList.toggle('bad', s === 'impostor');
}

export async function getConn() {
  const { conn } = await chrome.storage.session.get('conn');
  return conn;
}
