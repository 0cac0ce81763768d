// Shown when /api/status answers 401 (no or expired session) or the daemon is unreachable.
import { h } from './dom.js';

export function loginScreen({ onRetry }) {
  // A plain POST form to /login: the browser sends the token in the body, so it never lands in a
  // URL (history, session files); no script ever reads the field.
  const form = h('form', { class: 'login-form', method: 'post', action: 'login', autocomplete: 'off' },
    h('label', { for: 'login-token' }, 'Token'),
    h('div', { class: 'row' },
      h('input', { id: 'login-token', name: 'token', type: 'password', required: true, spellcheck: 'false', placeholder: 'pairing token' }),
      h('button', { class: 'btn btn-primary', type: 'submit' }, 'Log in')));
  return h('section', { class: 'screen login', 'aria-labelledby': 'login-title' },
    h('div', { class: 'card screen-card' },
      h('div', { class: 'brand brand-big' }, h('span', { class: 'brand-mark', 'aria-hidden': 'true' }), 'Browser Bridge'),
      h('h1', { id: 'login-title' }, 'Not logged in'),
      h('p', null, 'This dashboard needs a session. With the daemon running (', h('code', null, 'browser-bridge serve'), '), print a login link and open it in this browser (each link works once, for five minutes):'),
      // The address this page came from is the daemon's own (a daemon on another port prints that).
      h('pre', { class: 'cmd' }, h('code', null, `$ browser-bridge login-url\n${location.protocol}//${location.host || '127.0.0.1:8765'}/login?code=…`)),
      h('p', null, 'Or print just the token with ', h('code', null, 'browser-bridge token'), ' and paste it here:'),
      form,
      h('p', { class: 'muted small' },
        'Sessions live in the daemon’s memory: after a restart, log in again.'),
      h('div', { class: 'actions' }, h('button', { class: 'btn', type: 'button', onclick: onRetry }, 'Check again'))));
}

export function unreachableScreen({ message, onRetry }) {
  return h('section', { class: 'screen' },
    h('div', { class: 'card screen-card' },
      h('h1', null, 'Daemon not reachable'),
      h('p', null, message || 'The Browser Bridge daemon did not answer.'),
      h('p', null, 'Is it running? Start it with ', h('code', null, 'browser-bridge serve'), ' and reload this page.'),
      h('div', { class: 'actions' }, h('button', { class: 'btn btn-primary', type: 'button', onclick: onRetry }, 'Try again'))));
}
