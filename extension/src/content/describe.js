// The inline token for an interactive element, e.g. [button "Sign in" e13].
import { nameOf, inputType, isDisabled, norm, clip } from './dom.js';
import { refFor } from './refs.js';

const q = (s) => '"' + String(s).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') + '"';

export function selectedText(sel) {
  const o = sel.selectedOptions?.[0];
  return o ? norm(o.label || o.textContent) : '';
}

// Parts without the brackets: ['button', '"Sign in"', 'disabled', 'e13']
export function tokenParts(el, kind) {
  const ref = refFor(el);
  const name = nameOf(el, kind);
  const parts = [];
  const tag = el.tagName;
  switch (kind) {
    case 'input': {
      const t = tag === 'INPUT' ? inputType(el) : (el.getAttribute('role') || 'text');
      parts.push('input', t);
      if (name) parts.push(q(name));
      if (tag === 'INPUT') {
        const ph = norm(el.getAttribute('placeholder'));
        if (ph && ph !== name) parts.push('placeholder=' + q(clip(ph, 80)));
        if (t === 'password') {
          if (el.value) parts.push('filled'); // NEVER the value
        } else if (el.value) {
          parts.push('value=' + q(clip(el.value, 500)));
        }
      } else {
        const v = norm(el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || el.textContent);
        if (v && v !== name) parts.push('value=' + q(clip(v, 500)));
      }
      if (el.readOnly) parts.push('readonly');
      break;
    }
    case 'textarea':
      parts.push('textarea');
      if (name) parts.push(q(name));
      if (el.value) parts.push('value=' + q(clip(el.value, 1000)));
      break;
    case 'editable': {
      parts.push('editable');
      if (name && name !== norm(el.innerText)) parts.push(q(name));
      const v = norm(el.innerText);
      if (v) parts.push('value=' + q(clip(v, 1000)));
      break;
    }
    case 'select': {
      parts.push('select');
      if (name) parts.push(q(name));
      if (el.multiple) {
        const vals = Array.from(el.selectedOptions).map((o) => norm(o.label || o.textContent));
        parts.push('value=' + q(vals.join(', ')));
      } else {
        parts.push('value=' + q(selectedText(el)));
      }
      const opts = Array.from(el.options).slice(0, 30).map((o) => norm(o.label || o.textContent));
      parts.push('options=[' + opts.map((o) => q(clip(o, 60))).join(', ') + (el.options.length > 30 ? ', …' : '') + ']');
      break;
    }
    case 'checkbox':
    case 'radio': {
      parts.push(kind);
      if (name) parts.push(q(name));
      const checked = tag === 'INPUT' ? el.checked : el.getAttribute('aria-checked') === 'true';
      if (checked) parts.push('checked');
      if (tag !== 'INPUT' && el.getAttribute('aria-checked') === 'mixed') parts.push('mixed');
      break;
    }
    case 'link':
      parts.push('link');
      if (name) parts.push(q(name));
      break;
    case 'tab':
    case 'option':
    case 'menuitem':
    case 'treeitem':
      parts.push(kind);
      if (name) parts.push(q(name));
      if (el.getAttribute('aria-selected') === 'true') parts.push('selected');
      break;
    case 'combobox':
      parts.push('combobox');
      if (name) parts.push(q(name));
      if (el.value) parts.push('value=' + q(clip(el.value, 300)));
      if (el.getAttribute('aria-expanded') === 'true') parts.push('expanded');
      break;
    case 'slider':
      parts.push('slider');
      if (name) parts.push(q(name));
      parts.push('value=' + q(el.getAttribute('aria-valuenow') || el.value || ''));
      break;
    default: // button, clickable
      parts.push(kind === 'clickable' ? 'clickable' : 'button');
      if (name) parts.push(q(name));
      if (el.getAttribute('aria-pressed') === 'true') parts.push('pressed');
      if (el.getAttribute('aria-expanded') === 'true') parts.push('expanded');
  }
  if (isDisabled(el)) parts.push('disabled');
  parts.push(ref);
  return parts;
}

export function token(el, kind) {
  return '[' + tokenParts(el, kind).join(' ') + ']';
}
