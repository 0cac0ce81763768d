// Forms as a whole: browser_fill_form (several fields in one call, each as `type` or select_option
// would fill it) and browser_upload_file (files the daemon read, set on a file input the way a
// user's pick sets them). Values never appear in messages: a field may be a password (secret.js).
import { inputType, isDisabled, winOf } from './dom.js';
import { describe, findTarget } from './targeting.js';
import { click, type, nextTurn } from './actions.js';
import { isSecret } from './secret.js';

const BOOL = /^(true|false)$/;

// Fill one field: text fields are typed into (cleared first), selects choose the option,
// checkboxes take "true" or "false", radio buttons "true".
async function fillOne(el, value) {
  const t = el.tagName === 'INPUT' ? inputType(el) : '';
  const role = el.getAttribute?.('role');
  if (t === 'checkbox' || t === 'radio' || role === 'checkbox' || role === 'switch' || role === 'radio') {
    if (!BOOL.test(value)) throw new Error(`${describe(el)} is a ${t || role}: its value must be "true" or "false"`);
    const checked = t ? el.checked : el.getAttribute('aria-checked') === 'true';
    if ((t === 'radio' || role === 'radio') && value === 'false') {
      if (checked) throw new Error(`${describe(el)} is a radio button: it cannot be unchecked, choose another one of its group instead`);
      return describe(el);
    }
  }
  if (t === 'file') throw new Error(`${describe(el)} is a file input: put files in it with browser_upload_file`);
  await type(el, value, { clear: true });
  return describe(el);
}

export async function fillForm(fields) {
  if (!Array.isArray(fields) || !fields.length) throw new Error('fields must be a non-empty list of {target, value}');
  const done = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] || {};
    const target = String(f.target ?? '');
    try {
      const { el } = findTarget(target, 'type');
      isSecret(el); // decided before the first key, as type() does
      done.push(await fillOne(el, String(f.value ?? '')));
    } catch (e) {
      const before = done.length ? ` Filled before it: ${done.join(', ')}.` : ' Nothing was filled before it.';
      const err = new Error(`Field ${i + 1} of ${fields.length} (${JSON.stringify(target.slice(0, 200))}) failed: ${String(e.message || e).replace(/\.$/, '')}.${before}`);
      // Nothing filled yet: another frame may hold the form (frames.js); else this is the answer.
      err.code = done.length && (e.code === 'stale_ref' || e.code === 'target_not_found') ? 'field_failed' : e.code;
      throw err;
    }
    await nextTurn(); // the page's own reactions to one field (a dependent select) before the next
  }
  return { message: `Filled ${done.length} field${done.length === 1 ? '' : 's'}: ${done.join(', ')}` };
}

// ---- files -------------------------------------------------------------------

function isFileInput(el) {
  return el && el.tagName === 'INPUT' && inputType(el) === 'file';
}

// The file input a target stands for without clicking: itself, its label's control, or the only
// file input inside it.
function fileInputOf(el) {
  if (isFileInput(el)) return el;
  if (el.tagName === 'LABEL' && isFileInput(el.control)) return el.control;
  const inner = el.querySelectorAll?.('input[type=file]');
  if (inner && inner.length === 1) return inner[0];
  return null;
}

// Click `el` as a user would and catch the file input its click opens (the page calls input.click()
// on a hidden input): the picker is not opened (its click event is cancelled), the input is returned.
async function inputOpenedBy(el) {
  const W = winOf(el);
  let caught = null;
  const onClick = (e) => {
    const t = e.composedPath?.()[0] || e.target;
    if (isFileInput(t)) { caught = caught || t; e.preventDefault(); }
  };
  W.addEventListener('click', onClick, true);
  try {
    click(el);
    await nextTurn();
  } finally {
    W.removeEventListener('click', onClick, true);
  }
  return caught;
}

function bytesOf(b64) {
  const bin = atob(String(b64 || ''));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export async function setFiles(el, files) {
  if (!Array.isArray(files) || !files.length) throw new Error('no files were given');
  const desc = describe(el);
  let input = fileInputOf(el);
  let via = '';
  if (!input) {
    input = await inputOpenedBy(el);
    if (!input) throw new Error(`${desc} is not a file input, and clicking it opened none; target the file input or the button that opens the file picker`);
    via = ` (the file input ${desc} opens)`;
  }
  if (isDisabled(input)) throw new Error(`${describe(input)} is disabled`);
  if (files.length > 1 && !input.multiple) throw new Error(`${describe(input)} takes one file, and ${files.length} were given`);
  const W = winOf(input);
  const dt = new W.DataTransfer();
  for (const f of files) dt.items.add(new W.File([bytesOf(f.data)], String(f.name || 'file'), { type: String(f.type || '') }));
  input.files = dt.files;
  input.dispatchEvent(new W.Event('input', { bubbles: true, composed: true }));
  input.dispatchEvent(new W.Event('change', { bubbles: true }));
  const names = files.map((f) => JSON.stringify(String(f.name))).join(', ');
  return { message: `Set ${files.length} file${files.length === 1 ? '' : 's'} (${names}) on ${describe(input)}${via}` };
}
