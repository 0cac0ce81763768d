// An inline confirmation (no window.confirm: it blocks the page and cannot be styled): a message
// with a destructive button and Cancel, shown in `slot`; resolves true when the action is chosen.
import { h, clear } from './dom.js';

export function confirmInline(slot, message, actionLabel) {
  return new Promise((resolve) => {
    const done = (ok) => { clear(slot); resolve(ok); };
    const yes = h('button', { class: 'btn btn-primary js-confirm-yes', type: 'button', onclick: () => done(true) }, actionLabel);
    const no = h('button', { class: 'btn btn-quiet js-confirm-no', type: 'button', onclick: () => done(false) }, 'Cancel');
    clear(slot).append(h('div', { class: 'alert alert-warn confirm', role: 'alertdialog' },
      h('p', null, message), h('p', null, yes, ' ', no)));
    yes.focus();
  });
}
