// A form generated from a tool's JSON Schema (properties with type, description, default, enum,
// minimum, maximum; required). getValues() returns {values, errors}: only fields the user set
// (and booleans that differ from their default) are sent, so the daemon applies its defaults.
import { h } from './dom.js';
import * as store from './store.js';

/** Parameters every tool takes (docs/api.md); shown under "Call options". */
export const COMMON_PARAMS = new Set(['client_id', 'tab_id', 'wait_for_page_info', 'timeout_ms']);

let uid = 0;

function typeOf(prop) {
  let t = prop.type;
  if (Array.isArray(t)) t = t.find((x) => x !== 'null') || t[0];
  if (!t && Array.isArray(prop.enum)) t = typeof prop.enum[0] === 'number' ? 'number' : 'string';
  return t || 'string';
}

export function buildSchemaForm(schema, { initial = {} } = {}) {
  const props = (schema && typeof schema === 'object' && schema.properties) || {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  const fields = [];
  const main = h('div', { class: 'form-grid' });
  const common = h('div', { class: 'form-grid' });

  const names = Object.keys(props);
  // Required first, then the tool's own, then the common options.
  names.sort((a, b) => (required.has(b) - required.has(a)));
  for (const name of names) {
    const field = buildField(name, props[name] || {}, required.has(name), initial[name]);
    fields.push(field);
    (COMMON_PARAMS.has(name) && !required.has(name) ? common : main).append(field.el);
  }

  const el = h('div', { class: 'schema-form' });
  if (main.children.length) el.append(main);
  else el.append(h('p', { class: 'muted small' }, 'This tool takes no parameters of its own.'));
  if (common.children.length) {
    el.append(h('details', { class: 'options' }, h('summary', null, 'Call options (browser, tab, waiting, timeout)'), common));
  }

  function getValues() {
    const values = {};
    const errors = [];
    for (const f of fields) {
      const r = f.read();
      const msg = r.error || (!r.set && f.required ? `${f.name} is required.` : '');
      f.setError(msg);
      if (msg) errors.push({ name: f.name, message: msg, input: f.input });
      else if (r.set) values[f.name] = r.value;
    }
    return { values, errors };
  }
  return { el, getValues, fields };
}

function buildField(name, prop, required, initialValue) {
  const id = `f-${++uid}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const type = typeOf(prop);
  const def = prop.default;
  const help = [prop.description, def !== undefined ? `Default: ${JSON.stringify(def)}.` : null].filter(Boolean).join(' ');
  const errEl = h('p', { class: 'field-error', hidden: true, id: `${id}-err` });
  let input;
  let read;

  if (Array.isArray(prop.enum)) {
    input = h('select', { id, name },
      h('option', { value: '' }, required ? '— choose —' : def !== undefined ? `(default: ${def})` : '(not set)'),
      prop.enum.map((v) => h('option', { value: String(v), selected: initialValue !== undefined && String(initialValue) === String(v) }, String(v))));
    read = () => {
      if (input.value === '') return { set: false };
      const v = prop.enum.find((x) => String(x) === input.value);
      return { set: true, value: v };
    };
  } else if (type === 'boolean') {
    const initial = initialValue !== undefined ? Boolean(initialValue) : Boolean(def);
    input = h('input', { id, name, type: 'checkbox', checked: initial });
    read = () => {
      const v = input.checked;
      if (required || v !== Boolean(def)) return { set: true, value: v };
      return { set: false };
    };
  } else if (type === 'integer' || type === 'number') {
    if (name === 'tab_id') {
      const listId = `${id}-tabs`;
      input = h('input', { id, name, type: 'number', step: '1', inputmode: 'numeric', list: listId, placeholder: 'active tab' });
      const dl = h('datalist', { id: listId });
      for (const b of store.connectedBrowsers()) {
        for (const t of b.tabs || []) {
          const tid = store.tabId(t);
          if (tid !== undefined) dl.append(h('option', { value: String(tid) }, `${t.title || t.url || ''} (${b.browser || b.client_id})`));
        }
      }
      input._extra = dl;
    } else {
      input = h('input', {
        id, name, type: 'number', step: type === 'integer' ? '1' : 'any', inputmode: type === 'integer' ? 'numeric' : 'decimal',
        min: prop.minimum, max: prop.maximum, placeholder: def !== undefined ? String(def) : '',
      });
    }
    if (initialValue !== undefined) input.value = String(initialValue);
    read = () => {
      const s = input.value.trim();
      if (s === '') return input.validity.badInput ? { error: `${name} must be a number.` } : { set: false };
      const v = Number(s);
      if (!Number.isFinite(v)) return { error: `${name} must be a number.` };
      if (type === 'integer' && !Number.isInteger(v)) return { error: `${name} must be a whole number.` };
      if (prop.minimum !== undefined && v < prop.minimum) return { error: `${name} must be at least ${prop.minimum}.` };
      if (prop.maximum !== undefined && v > prop.maximum) return { error: `${name} must be at most ${prop.maximum}.` };
      return { set: true, value: v };
    };
  } else if (type === 'object' || type === 'array') {
    input = h('textarea', { id, name, rows: '3', spellcheck: 'false', class: 'mono', placeholder: type === 'array' ? '[ … ] (JSON)' : '{ … } (JSON)' });
    if (initialValue !== undefined) input.value = JSON.stringify(initialValue);
    read = () => {
      const s = input.value.trim();
      if (!s) return { set: false };
      try {
        const v = JSON.parse(s);
        if (type === 'array' ? !Array.isArray(v) : (typeof v !== 'object' || v === null || Array.isArray(v))) {
          return { error: `${name} must be a JSON ${type}.` };
        }
        return { set: true, value: v };
      } catch {
        return { error: `${name} is not valid JSON.` };
      }
    };
  } else if (name === 'client_id') {
    input = h('select', { id, name },
      h('option', { value: '' }, '(most recently active browser)'),
      store.connectedBrowsers().map((b) => h('option', { value: b.client_id }, `${b.browser || 'Browser'} — ${b.client_id}`)));
    if (initialValue) input.value = initialValue;
    read = () => (input.value ? { set: true, value: input.value } : { set: false });
  } else {
    const long = name === 'text';
    input = long
      ? h('textarea', { id, name, rows: '3' })
      : h('input', {
        id, name, type: 'text', spellcheck: 'false', autocomplete: 'off',
        inputmode: name === 'url' ? 'url' : null, placeholder: def !== undefined ? String(def) : name === 'url' ? 'https://…' : '',
      });
    if (initialValue !== undefined) input.value = String(initialValue);
    read = () => {
      const s = input.value;
      if (s === '') return { set: false };
      return { set: true, value: s };
    };
  }

  if (required) input.setAttribute('aria-required', 'true');
  if (help) input.setAttribute('aria-describedby', `${id}-help`);
  const isBool = type === 'boolean' && !Array.isArray(prop.enum);
  const label = h('label', { for: id, class: 'field-label' },
    h('span', { class: 'mono' }, name), required ? h('span', { class: 'req', title: 'required' }, ' *') : null,
    h('span', { class: 'type muted small' }, ` ${type}${prop.minimum !== undefined || prop.maximum !== undefined ? ` ${prop.minimum ?? '…'}–${prop.maximum ?? '…'}` : ''}`));
  const el = h('div', { class: ['field', isBool ? 'field-bool' : ''], dataset: { param: name } },
    isBool ? h('div', { class: 'bool-row' }, input, label) : [label, input],
    input._extra || null,
    help ? h('p', { class: 'help muted small', id: `${id}-help` }, help) : null,
    errEl);
  return {
    name, required, input, el, read,
    setError(msg) {
      errEl.textContent = msg;
      errEl.hidden = !msg;
      input.toggleAttribute('aria-invalid', Boolean(msg));
    },
  };
}
