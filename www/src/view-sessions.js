// The live view's agent sessions (issue 18): each session (an MCP client, or an HTTP caller's
// X-Browser-Bridge-Session name) with its state and tabs; Approve and Decline for one waiting for
// approval (approve_sessions = yes), Stop for a live one (POST api/sessions/<id>/<action>); and the
// newest session events (created, approved, declined, revoked, expired).
import { h, clear, badge, fmtTime } from './dom.js';
import { request } from './api.js';
import * as store from './store.js';

const EVENT_WORDS = {
  created: 'started', approved: 'approved', declined: 'declined', revoked: 'stopped', expired: 'expired (idle)',
  closed: 'ended by the agent',
};

export function sessionsPanel() {
  const listEl = h('ul', { class: 'sessions', id: 'sessions' });
  const eventsEl = h('ol', { class: 'session-events small', id: 'session-events' });
  const msg = h('p', { class: 'muted small', role: 'status' });
  const root = h('div', { class: 'sessions-panel' },
    h('h3', { class: 'small-head' }, 'Agent sessions'), listEl, msg,
    h('h3', { class: 'small-head' }, 'Session events'), eventsEl);

  async function act(id, action, btn) {
    btn.disabled = true;
    msg.textContent = '';
    try {
      const r = await request(`api/sessions/${encodeURIComponent(id)}/${action}`, { method: 'POST', body: {} });
      if (!r.ok) msg.textContent = r.data?.message || `Could not ${action} the session.`;
    } catch (e) {
      msg.textContent = e.message;
    }
    btn.disabled = false;
  }

  function button(label, s, action) {
    const b = h('button', { class: 'btn btn-small', type: 'button', 'data-action': action }, label);
    b.addEventListener('click', () => act(s.id, action, b));
    return b;
  }

  function render() {
    const live = [...store.state.sessions.values()].filter((s) => s.state === 'active' || s.state === 'pending');
    clear(listEl);
    if (!live.length) listEl.append(h('li', { class: 'muted small' }, 'No agent session.'));
    for (const s of live) {
      const tabs = (s.tabs || []).filter((t) => t.tab_id != null);
      listEl.append(h('li', { 'data-session': s.id },
        h('span', { class: 'session-name' }, s.name),
        s.state === 'pending' ? badge('pending', 'waiting for approval') : badge('ok', `${tabs.length} tab${tabs.length === 1 ? '' : 's'}`),
        h('span', { class: 'session-actions' },
          ...(s.state === 'pending' ? [button('Approve', s, 'approve'), button('Decline', s, 'decline')] : []),
          button('Stop', s, 'revoke'))));
    }
    clear(eventsEl);
    if (!store.state.sessionEvents.length) eventsEl.append(h('li', { class: 'muted' }, 'None yet.'));
    for (const e of store.state.sessionEvents.slice(0, 10)) {
      eventsEl.append(h('li', { 'data-event': e.event }, h('span', { class: 'muted' }, fmtTime(e.at)), ' ',
        h('strong', null, e.name), ` ${EVENT_WORDS[e.event] || e.event}`));
    }
  }

  render();
  const unsub = store.subscribe((kinds) => { if (kinds.has('sessions')) render(); });
  return { el: root, close: unsub };
}
