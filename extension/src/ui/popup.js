import { renderConn, getConn } from './common.js';

const $ = (id) => document.getElementById(id);

async function refresh() {
  renderConn(await getConn(), { dot: $('dot'), state: $('state'), detail: $('detail') });
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  $('tab-title').textContent = tab ? (tab.title || '(untitled)') + `  · tab ${tab.id}` : '(none)';
  $('tab-url').textContent = tab?.url || '';
  const granted = await chrome.permissions.contains({ origins: ['<all_urls>'] });
  $('tab-access').textContent = granted ? 'Site access: allowed' : 'Site access: not granted — see Options';
  const { lastCommand: lc } = await chrome.storage.session.get('lastCommand');
  if (lc) {
    const when = new Date(lc.at).toLocaleTimeString();
    const target = lc.params?.target ?? lc.params?.url ?? lc.params?.key ?? '';
    $('last').innerHTML = '';
    const tag = document.createElement('span');
    tag.className = 'tag ' + lc.status; tag.textContent = lc.status;
    const name = document.createElement('code');
    name.textContent = ` ${lc.command}${target !== '' ? ' ' + JSON.stringify(target) : ''} `;
    const t = document.createElement('span'); t.className = 'detail'; t.textContent = ` ${when}${lc.ms != null ? ` · ${lc.ms} ms` : ''}`;
    $('last').append(tag, name, t);
    $('last-msg').textContent = lc.message || '';
  }
}

$('options').addEventListener('click', () => chrome.runtime.openOptionsPage());
$('reconnect').addEventListener('click', () => chrome.runtime.sendMessage({ type: 'reconnect' }).catch(() => {}));
chrome.storage.onChanged.addListener((c, area) => { if (area === 'session') refresh(); });
refresh();
