// The popup's list of agent sessions (issue 18): who drives which tabs, with Stop (revoke) and, for a
// session waiting for approval (approve_sessions = yes), Approve and Decline. The list is the daemon's
// `sessions` message, which the service worker keeps in chrome.storage.session; the buttons go to the
// service worker, which sends `session_control` to the daemon.
const $ = (id) => document.getElementById(id);

function button(label, id, action) {
  const b = document.createElement('button');
  b.textContent = label;
  b.dataset.session = id;
  b.dataset.action = action;
  b.addEventListener('click', async () => {
    b.disabled = true;
    const r = await chrome.runtime.sendMessage({ type: 'session_control', id, action }).catch(() => null);
    $('sessions-msg').textContent = r?.ok ? '' : 'Not connected to the daemon: could not reach it.';
  });
  return b;
}

async function render() {
  const { sessions } = await chrome.storage.session.get('sessions');
  const list = sessions?.list || [];
  const ul = $('sessions');
  ul.replaceChildren();
  $('sessions-empty').hidden = list.length > 0;
  for (const s of list) {
    const li = document.createElement('li');
    li.dataset.session = s.id;
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = s.name;
    const tag = document.createElement('span');
    tag.className = 'tag ' + (s.state === 'pending' ? 'pending' : 'success');
    tag.textContent = s.state === 'pending' ? 'waiting for approval' : `${s.tabs.length} tab${s.tabs.length === 1 ? '' : 's'}`;
    li.append(name, tag);
    if (s.state === 'pending') li.append(button('Approve', s.id, 'approve'), button('Decline', s.id, 'decline'));
    li.append(button('Stop', s.id, 'revoke'));
    ul.append(li);
  }
}

chrome.storage.onChanged.addListener((c, area) => { if (area === 'session' && c.sessions) render(); });
render();
