// Service worker entry point (ES module).
import * as conn from './connection.js';
import { handleCommand } from './commands.js';
import { cancelCommand } from './cancel.js';
import { CAPABILITIES } from './handlers.js';
import { installNavListeners } from './nav-tracker.js';
import { installTabListeners, reportTabsNow } from './tabs.js';
import { setPolicyFromWelcome } from './url-policy.js';
import { installPageScriptListeners } from './page-scripts.js';
import { installReadyListeners } from './ready.js';
import { installDialogListeners } from './dialogs.js';
import { installDrivenListeners } from './driven.js';
import { installTrustedListeners } from './trusted.js';
import { onSessions, onSessionEnd, controlSession, clearSessions } from './sessions.js';

const ALARM = 'browser-bridge-keepalive';

conn.init({
  capabilities: CAPABILITIES,
  onCommand: (cmd) => { handleCommand(cmd).catch((e) => console.error('[browser-bridge] command failed', e)); },
  onCancel: cancelCommand, // the daemon's cancel message (cancel.js)
  // welcome.allowFileUrls: whether file: URLs may be opened (the daemon's allow_file_urls).
  onWelcome: (data) => { setPolicyFromWelcome(data); reportTabsNow(); },
  onSessions: (data) => { onSessions(data).catch((e) => console.error('[browser-bridge] sessions failed', e)); },
  onSessionEnd: (data) => { onSessionEnd(data).catch((e) => console.error('[browser-bridge] session_end failed', e)); },
  onDisconnect: () => { clearSessions(); },
});

// Listeners must be registered synchronously at the top level.
installNavListeners();
installTabListeners();
installDialogListeners();
installDrivenListeners();
installReadyListeners();
installPageScriptListeners();
installTrustedListeners();

chrome.alarms.onAlarm.addListener((a) => { if (a.name === ALARM) conn.connect(); });
chrome.runtime.onStartup.addListener(() => conn.connect());
chrome.runtime.onInstalled.addListener(() => conn.connect());

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && (changes.wsUrl || changes.token)) conn.reconnect();
});

chrome.runtime.onMessage.addListener((msg, sender, reply) => {
  if (sender.id !== chrome.runtime.id) return;
  if (msg?.type === 'reconnect') { conn.reconnect(); reply({ ok: true }); }
  else if (msg?.type === 'status') { reply({ connected: conn.isConnected() }); }
  else if (msg?.type === 'session_control') { reply({ ok: controlSession(msg.id, msg.action) }); }
});


(async () => {
  const existing = await chrome.alarms.get(ALARM);
  if (!existing) await chrome.alarms.create(ALARM, { periodInMinutes: 0.5 });
})();

conn.connect();
