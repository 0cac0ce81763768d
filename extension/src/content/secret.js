// Which fields hold secrets, so that their value never reaches the Markdown: a password field
// (also after the page turned it into a text field: "show password", or a switch on keydown), a
// field drawn with -webkit-text-security, and the autocomplete kinds for passwords, one-time
// codes and payment cards. Once a field is seen as secret it stays secret for the life of the
// document (a WeakSet in this isolated world, which the page cannot see or change).
import { styleOf } from './dom.js';

const secrets = new WeakSet();
const SECRET_AUTOCOMPLETE = /^(current-password|new-password|one-time-code|cc-[a-z-]+)$/;

// A text input with role=combobox that pops up a list (aria-haspopup listbox, or aria-autocomplete
// list) whose autocomplete is new-password: the well-known way to turn the browser's autofill off,
// not a password field (type=password and text-security still make it secret).
function antiAutofillCombobox(el, ac) {
  if (el.tagName !== 'INPUT' || ac.trim().toLowerCase() !== 'new-password') return false;
  if ((el.getAttribute('role') || '').trim().toLowerCase() !== 'combobox') return false;
  const pop = (el.getAttribute('aria-haspopup') || '').toLowerCase();
  return pop === 'listbox' || pop === 'tree' || (el.getAttribute('aria-autocomplete') || '').toLowerCase() === 'list';
}

function secretNow(el, st) {
  if (el.tagName === 'INPUT' && (el.getAttribute('type') || '').toLowerCase() === 'password') return true;
  const ac = el.getAttribute('autocomplete');
  // (a combobox that chooses from its list says new-password only to keep the browser's autofill
  // away, as rc-select and others do: its choice is no secret)
  if (ac && !antiAutofillCombobox(el, ac) && ac.toLowerCase().split(/\s+/).some((t) => SECRET_AUTOCOMPLETE.test(t))) return true;
  st = st || styleOf(el);
  const ts = st && (st.webkitTextSecurity || st.getPropertyValue('-webkit-text-security'));
  return !!ts && ts !== 'none';
}

// The values secret fields held when looked at (in this isolated world only, never sent): a field
// the page puts in a password field's place holding the same value is secret too (Vue's v-if/v-else
// "show password" pair, a script's replaceWith: the typed password was in the Markdown and the
// history). Values of 4 characters or more, the last 50.
const secretValues = [];
const SECRET_VALUES_MAX = 50;
function keepValue(el) {
  const v = typeof el.value === 'string' ? el.value : '';
  if (v.length < 4 || v.length > 1000 || secretValues.includes(v)) return;
  secretValues.push(v);
  if (secretValues.length > SECRET_VALUES_MAX) secretValues.shift();
}
const holdsSecretValue = (el) => (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') && typeof el.value === 'string' && el.value.length >= 4 && secretValues.includes(el.value);

// Is `el` a secret field (now, or at any moment we looked at it before)? Remembers the answer.
export function isSecret(el, st) {
  if (secrets.has(el)) { keepValue(el); return true; }
  if (secretNow(el, st) || holdsSecretValue(el)) { secrets.add(el); keepValue(el); return true; }
  return false;
}

// Remember the password fields of a document now (each call into the page does this first, so a
// field the page turns into a text field later, even before it was ever shown, stays secret).
export function rememberPasswordFields(doc = document) {
  try {
    for (const el of doc.querySelectorAll('input[type=password i]')) { secrets.add(el); keepValue(el); }
  } catch { /* ignore */ }
}
