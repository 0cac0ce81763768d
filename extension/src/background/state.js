// UI-visible state in chrome.storage.session (read by the popup and options page), and the badge.
import { badgeConnection } from './badge.js';

const state = { connection: 'disconnected', detail: '', wsUrl: '', clientId: '', since: Date.now() };

export async function setConnState(connection, detail = '', extra = {}) {
  Object.assign(state, { connection, detail, since: Date.now() }, extra);
  badgeConnection(connection, detail);
  try { await chrome.storage.session.set({ conn: { ...state } }); } catch { /* ignore */ }
}

export async function setLastCommand(entry) {
  try { await chrome.storage.session.set({ lastCommand: entry }); } catch { /* ignore */ }
}
