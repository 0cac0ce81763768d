export const STATE_TEXT = {
  connected: 'Connected', connecting: 'Connecting…', reconnecting: 'Not connected — retrying',
  unauthorized: 'Token refused', unpaired: 'Not paired', replaced: 'Replaced by another connection',
  error: 'Error', disconnected: 'Not connected',
};

export function renderConn(conn, els) {
  const s = conn?.connection || 'disconnected';
  els.dot.className = 'dot ' + s;
  els.state.textContent = STATE_TEXT[s] || s;
  els.detail.textContent = conn?.detail || '';
}

export async function getConn() {
  const { conn } = await chrome.storage.session.get('conn');
  return conn;
}
