// The inline token for an interactive element, e.g. [button "Sign in" e13].
import { nameOf, ariaOf, roleOf, inputType, isDisabled, isInert, norm, clip, hiddenPopupControl, labelsText, focusedElement, shadowOf, thumbPosition, segmentsOf, segmentPart, formInputLabel, placeholderOf, popupButtonLabel, oneOneBox, classDropdown, chosenSelect, strayLabelOf, onlyUneditable } from './dom.js';
import { behindModal } from './modal.js';
import { seenText } from './hidden.js';
import { refFor } from './refs.js';
import { isSecret } from './secret.js';
import { isReadOnlyCombobox, optionNames, optionsOf, editorFor, selectBehind, shownBeside, drawnEditor, chipsOf, shownInBox } from './widgets.js';
import { shownChoiceOf, hiddenReason } from './reach.js';

// A quoted name or value: its backslashes, quotes and brackets escaped, so that no page can end the
// token inside it and write a token of its own after ("Thanks\" e1] [button \"Save" showed a
// button e1 that was another element).
const q = (s) => '"' + String(s).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/([[\]])/g, '\\$1').replace(/\n/g, '\\n') + '"';

// A transparent textarea that only takes a code editor's keys (Ace, CodeMirror 5, Monaco): what it
// holds is a buffer the user never sees; the editor's drawn lines are its content (snapshot.js).
function keyCatcher(el) {
  return editorFor(el)?.input === el;
}

// What a field drawn as segments shows (its segments' text with the separators between them, as
// "03/14/2026" or, with none filled, its placeholders "MM/DD/YYYY"), whether none is filled, and the
// kind of field its segments' names say: date, time, datetime or text.
export function segmentedText(el, segs = segmentsOf(el)) {
  const boxOf = (run) => {
    let box = run[0].parentElement;
    while (box && box !== el && !run.every((x) => box.contains(x))) box = box.parentElement;
    return box || el;
  };
  // a range's two fields in one (React Spectrum's DateRangePicker: month, day, year twice, the dash
  // between them drawn by its style): each field's text, a dash between
  const runs = [[]];
  for (const x of segs) {
    const k = segmentPart(x);
    if (k && runs[runs.length - 1].some((y) => segmentPart(y) === k)) runs.push([]);
    runs[runs.length - 1].push(x);
  }
  // (without the words of a button in the box: Reka's calendar button "📅" inside its field)
  const textOf = (b) => { let t = b.textContent; for (const x of b.querySelectorAll('button,[role=button]')) t = t.replace(x.textContent, ''); return norm(t); };
  const boxes = runs.map(boxOf);
  const text = runs.length > 1 && new Set(boxes).size === runs.length ? boxes.map(textOf).join(' – ') : textOf(boxOf(segs));
  const empty = segs.every((x) => /^empty$/i.test(x.getAttribute('aria-valuetext') || '') || x.getAttribute('aria-valuenow') == null && !x.hasAttribute('aria-valuetext'));
  const names = segs.map((x) => x.getAttribute('aria-label') || '').join(' ');
  const date = /year|month|day/i.test(names), time = /hour|minute|second/i.test(names);
  return { text, empty, type: date && time ? 'datetime' : date ? 'date' : time ? 'time' : 'text' };
}

// Does a drop-down drawn by the page say it shows its placeholder, nothing chosen (Radix's trigger
// and Ark UI's carry data-placeholder / data-placeholder-shown, React Aria's SelectValue
// data-placeholder="true")? Its text was shown as its value: value="Pick a fruit".
function marksPlaceholder(el, v = '') {
  const on = (x) => x.hasAttribute('data-placeholder-shown') || (x.hasAttribute('data-placeholder') && x.getAttribute('data-placeholder') !== 'false');
  if (on(el) || Array.from(el.querySelectorAll('[data-placeholder],[data-placeholder-shown]')).some(on)) return true;
  // (or all it shows is in an element its class calls a placeholder: Semi Design's
  // semi-select-selection-placeholder, "Choose a city" in an empty Select, was its value; the
  // element itself, bootstrap-select's button of class bs-placeholder)
  if (v && /placeholder/i.test(el.getAttribute('class') || '') && norm(el.textContent) === v) return true;
  return !!v && Array.from(el.querySelectorAll('[class*="placeholder" i]')).slice(0, 5).some((x) => norm(x.textContent) === v);
}

// Is `el` beside a combobox one types into (an <input role=combobox> in its parent: React Aria's
// and Headless UI's ComboBox put the two side by side)? Further up is another field's.
function besideTypedCombobox(el) {
  return !!el.parentElement?.querySelector('input[role=combobox]');
}

// The name an element has from its attributes alone (not from its content).
export function ownName(el) {
  const lb = el.getAttribute('aria-labelledby');
  if (lb) {
    const root = el.getRootNode();
    const t = norm(lb.split(/\s+/).map((id) => { const t = root.getElementById ? root.getElementById(id) : null; return (t === el && norm(t.getAttribute('aria-label') || '')) || t?.textContent || ''; }).join(' '));
    if (t) return clip(t);
  }
  return clip(norm(ariaOf(el, 'aria-label') || el.getAttribute('title')) || placeholderOf(el));
}

// Is `el` the item the keyboard is on: the focused element, or the aria-activedescendant the
// focused element (a combobox's input, a listbox) points at?
function isKeyboardActive(el) {
  const doc = el.ownerDocument;
  const a = focusedElement(doc);
  if (!a || a === doc.body) return false;
  if (a === el) return true;
  const id = a.getAttribute('aria-activedescendant');
  return !!id && id === el.id && el.getRootNode() === a.getRootNode();
}

export function selectedText(sel) {
  const o = sel.selectedOptions?.[0];
  return o ? norm(o.label || o.textContent) : '';
}

// Kinds whose name normally is their visible text: when an aria-label (or aria-labelledby) names
// them otherwise, the token shows both, e.g. [button "Cancel order" (shows "Pay $5,000 now") e5].
const TEXT_NAMED = new Set(['button', 'clickable', 'tab', 'menuitem', 'option', 'treeitem', 'link', 'checkbox', 'radio']);

// The visible text of `el` when its accessible name comes from an aria attribute and says
// something else (neither contains the other), else ''.
export function shownText(el, kind, name) {
  if (!TEXT_NAMED.has(kind) || !name) return '';
  const tag = el.tagName;
  if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'IMG') return '';
  if (ariaOf(el, 'aria-label') === null && !el.hasAttribute('aria-labelledby')) return '';
  // what is seen, not visually hidden text (which the Markdown leaves out: never claim it shows)
  const vis = seenText(el);
  // a symbol or icon glyph (×, ☰) says nothing a name would contradict
  if (!vis || !/[\p{L}\p{N}]/u.test(vis)) return '';
  const a = vis.toLowerCase(), b = name.toLowerCase().replace(/…$/, '');
  if (a.includes(b) || b.includes(a)) return '';
  return clip(vis, 80);
}

// What a field shows without its label: a floating label drawn inside the field's box (Material's
// outlined select) is its name, not part of its value.
function withoutLabel(v, name) {
  if (!v || !name || v === name) return v;
  if (v.startsWith(name + ' ')) return v.slice(name.length + 1);
  if (v.endsWith(' ' + name)) return v.slice(0, -name.length - 1);
  return v;
}

// Is `v`, what a pop-up control's host (one hiddenPopupControl found) shows beside its label, its placeholder: the text of an
// element in its shadow root marked as the placeholder (part or class "placeholder"), or its
// placeholder attribute while it has no value.
function showsPlaceholder(el, v) {
  if (!shadowOf(el)) return false;
  for (const p of shadowOf(el).querySelectorAll('[part~=placeholder],[class*=placeholder]')) {
    if (norm(p.textContent) === v) return true;
  }
  return norm(el.getAttribute('placeholder')) === v && !el.getAttribute('value') && !(typeof el.value === 'string' && el.value);
}

function fileName(url) {
  const f = url.split(/[?#]/)[0].split('/').pop() || '';
  try { return norm(decodeURIComponent(f.slice(0, 200))); } catch { return norm(f.slice(0, 200)); }
}

// A secret field shows only whether it holds something.
const filled = (v) => (v ? 'filled' : 'empty');

// Parts without the brackets: ['button', '"Sign in"', 'disabled', 'e13'].
// values: false leaves out what fields hold (for action messages and errors, which are stored in
// the call log and the popup and so must never carry typed text); the Markdown has values, except
// of secret fields (secret.js), which show only filled/empty.
export function tokenParts(el, kind, { values = true } = {}) {
  const ref = refFor(el);
  const tag = el.tagName;
  // A read-only combobox (Shoelace's sl-select: an <input readonly role=combobox>) is chosen in,
  // never typed into: shown as the combobox it is, with its value and its options.
  // A typeable one (react-select's, MUI Autocomplete's <input role=combobox>) is shown as the
  // combobox it is too: its typed text its value, and whether its list is open.
  if (kind === 'input' && (isReadOnlyCombobox(el) || (el.tagName === 'INPUT' && (el.getAttribute('role') || '').trim().toLowerCase() === 'combobox') || oneOneBox(el))) kind = 'combobox';
  if (drawnEditor(el)) kind = 'ctxeditor';
  let name = nameOf(el, kind);
  // A button that opens a listbox and is named by a label (aria-labelledby="label", or "label
  // button": Headless UI's Listbox, the APG collapsible listbox, Tailwind UI's select menu) is the
  // drop-down it stands for: [combobox "Assignee" value="Tom Cook"], not [button "Assignee Tom
  // Cook"] (the choice lost in the name) or [button "Assignee"] (the choice not said).
  // (Not the button that opens the list of a combobox one types into, React Aria's ComboBox arrow:
  // that combobox is the field, the button a button.)
  if (kind === 'button' && tag !== 'INPUT' && (ariaOf(el, 'aria-haspopup') || '').trim().toLowerCase() === 'listbox' && !besideTypedCombobox(el)) {
    const label = labelBesideOwn(el);
    if (label) { kind = 'combobox'; name = clip(label); }
  } else if (kind === 'button' && tag === 'BUTTON') {
    // a button alone in a box that opens a list, under a label (Blueprint's Select): the drop-down
    // that label names, showing its choice
    const label = popupButtonLabel(el);
    if (label) { kind = 'combobox'; name = clip(label); }
  }
  // A custom combobox labelled by the choice it shows (Select2 points aria-labelledby at the text
  // it renders) was named by its value: its name is the label of the native select it stands for.
  if (kind === 'combobox' && tag !== 'INPUT' && labelledByOwn(el)) {
    const l = widgetLabel(el);
    name = l ? clip(l) : '';
  } else if (kind === 'combobox' && tag !== 'INPUT' && (!ownName(el) || titleEcho(el))) {
    // one named by nothing but its content (Choices.js's <div role=combobox>) shows its choice
    // there: the label of the native select it stands for is its name; without one, a name that
    // is all its content is none (that is its value: [combobox value="Compact car"]), while one
    // that is part of it stays (Vuetify's label drawn inside its field: "Fruit", of "Fruit Cherry")
    const l = widgetLabel(el);
    if (l) name = clip(l);
    else if (name && name === clip(norm(seenText(el)))) name = '';
  }
  // An editable element's name defaults to its content: without values (or for a secret), only a
  // name that is not its content.
  // One that has a name of its own (aria-label, title, its placeholder) is named by it, its content
  // its value: a short one-line editor was shown named by what was typed into it, its name lost.
  if ((kind === 'editable' || (kind === 'input' && tag !== 'INPUT')) && (!values || isSecret(el) || ownName(el))) name = ownName(el);
  const parts = [];
  switch (kind) {
    case 'input': {
      const segs = tag === 'INPUT' ? [] : segmentsOf(el);
      if (segs.length) { // a field drawn as segments: one field, its text what its segments show
        const s = segmentedText(el, segs);
        if (!name) name = clip(formInputLabel(el)); // (Reka's, named only by its form input's label)
        parts.push('input', s.type);
        if (name) parts.push(q(name));
        if (values && s.text) parts.push((s.empty ? 'placeholder=' : 'value=') + q(clip(s.text, 100)));
        if (segs.some((x) => x.getAttribute('aria-readonly') === 'true')) parts.push('readonly');
        break;
      }
      let t = tag === 'INPUT' ? inputType(el) : (roleOf(el) || 'text');
      // an <input type=text role=spinbutton> (a number box with up/down buttons) is the number
      // field a user sees
      const spin = roleOf(el) === 'spinbutton';
      if (tag === 'INPUT' && spin && t === 'text') t = 'number';
      parts.push('input', t);
      if (name) parts.push(q(name));
      if (tag === 'INPUT') {
        const ph = norm(el.getAttribute('placeholder'));
        if (ph && ph !== name) parts.push('placeholder=' + q(clip(ph, 80)));
        if (isSecret(el)) {
          parts.push(filled(el.value)); // NEVER the value
        } else if (t === 'file' && el.files?.length && values) {
          // the files it holds, by name (its value is the first one's, behind a "C:\fakepath\")
          parts.push('value=' + q(clip(Array.from(el.files, (f) => f.name).join(', '), 500)));
        } else if (el.value && values) {
          parts.push('value=' + q(clip(el.value, 500)));
        }
      } else if (isSecret(el)) {
        parts.push(filled(norm(el.textContent)));
      } else if (values) {
        const v = norm(ariaOf(el, 'aria-valuetext') || ariaOf(el, 'aria-valuenow') || el.textContent);
        if (v && v !== name) parts.push((el.isContentEditable && onlyUneditable(el) ? 'placeholder=' : 'value=') + q(clip(v, 500)));
      }
      // the bounds a number box keeps its value in (min/max, or aria-valuemin/max of a spinbutton)
      if (values && (t === 'number' || t === 'range' || spin)) parts.push(...bounds(el));
      // the suggestions of its <datalist>, which the browser draws and no page text shows
      const sugg = tag === 'INPUT' && values && el.list ? Array.from(el.list.options, (o) => norm(o.value)).filter(Boolean) : [];
      if (sugg.length) parts.push('suggestions=[' + sugg.slice(0, 30).map((o) => q(clip(o, 60))).join(', ') + (sugg.length > 30 ? ', …' : '') + ']');
      if (el.readOnly || (tag !== 'INPUT' && readOnlyBox(el))) parts.push('readonly');
      break;
    }
    case 'ctxeditor': // a code editor drawn aside (widgets.js drawnEditor: Monaco): as the Markdown shows it (snapshot.js contextBlock)
      parts.push('editor');
      if (name) parts.push(q(name));
      break;
    case 'textarea':
      parts.push('textarea');
      if (name) parts.push(q(name));
      if (isSecret(el)) parts.push(filled(el.value));
      else if (el.value && values && !keyCatcher(el)) parts.push('value=' + q(clip(el.value, 1000)));
      break;
    case 'editable': {
      parts.push('editable');
      const v = norm(el.innerText);
      const secret = isSecret(el);
      if (name && (secret || !values || name !== v)) parts.push(q(name));
      if (secret) parts.push(filled(v));
      // (text only in a part no one can edit, the editor empty: its placeholder, drawn there as a
      // widget, Toast UI Editor's ProseMirror "Write your article"; it was its value)
      else if (v && values) parts.push((onlyUneditable(el) ? 'placeholder=' : 'value=') + q(clip(v, 1000)));
      break;
    }
    case 'select': {
      parts.push('select');
      if (name) parts.push(q(name));
      if (el.multiple) {
        // a list box where several options can be chosen: each select_option adds one
        const vals = Array.from(el.selectedOptions).map((o) => norm(o.label || o.textContent));
        parts.push('multiple', 'value=' + q(vals.join(', ')));
      } else {
        parts.push('value=' + q(selectedText(el)));
      }
      // an option a user cannot choose (greyed out) says so: selecting it is an error
      const opts = Array.from(el.options).slice(0, 30).map((o) => q(clip(norm(o.label || o.textContent), 60)) + (o.disabled || o.parentElement?.disabled ? ' (disabled)' : ''));
      parts.push('options=[' + opts.join(', ') + (el.options.length > 30 ? ', …' : '') + ']');
      break;
    }
    case 'checkbox':
    case 'radio': {
      // a switch is a checkbox to act on, shown as what a user sees: [switch "Dark mode" checked]
      parts.push(kind === 'checkbox' && roleOf(el) === 'switch' ? 'switch' : kind);
      if (name) parts.push(q(name));
      // a native checkbox set indeterminate (Carbon's DataTable "select all" with some rows chosen)
      // is drawn as a dash whatever its checked state, as aria-checked=mixed is: `mixed` alone
      const mixed = tag === 'INPUT' ? el.type === 'checkbox' && el.indeterminate : ariaOf(el, 'aria-checked') === 'mixed';
      const checked = tag === 'INPUT' ? el.checked : ariaOf(el, 'aria-checked') === 'true';
      if (mixed) parts.push('mixed');
      else if (checked) parts.push('checked');
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
      if (ariaOf(el, 'aria-selected') === 'true') parts.push('selected');
      // the one the keyboard is on (Enter takes it): what a user sees highlighted in an open list
      if ((kind === 'option' || kind === 'menuitem') && isKeyboardActive(el)) parts.push('active');
      // a menu item whose sub-menu is open (a menu bar's top item), a tree node shown open
      if ((kind === 'menuitem' || kind === 'treeitem') && (ariaOf(el, 'aria-expanded') || '').trim().toLowerCase() === 'true') parts.push('expanded');
      // a tree item with children it does not show (a closed folder): a user sees its closed arrow
      else if (kind === 'treeitem' && (ariaOf(el, 'aria-expanded') || '').trim().toLowerCase() === 'false') parts.push('collapsed');
      break;
    case 'combobox': {
      // a pop-up control's host (ion-select: dom.js hiddenPopupControl), looked for once
      const popup = shadowOf(el) ? hiddenPopupControl(el) : null;
      parts.push('combobox');
      if (name) parts.push(q(name));
      // (the chips of a multi-select, each beside its remove mark, are its value, one by one:
      // Blueprint's tags read "Fight Club 12 Angry Men")
      const chips = values && !isSecret(el) && !el.value ? chipsOf(el) : [];
      if (isSecret(el)) parts.push(filled(el.value));
      else if (el.value && values) parts.push('value=' + q(clip(el.value, 300)));
      else if (chips.length) parts.push('value=' + q(clip(chips.map((c) => c.text).join(', '), 300)));
      else if (tag === 'INPUT' && values) {
        // an empty input beside which the box shows the choice (or chosen tags; faint text there is
        // a placeholder, which stays the plain text it is)
        const b = shownBeside(el);
        const ph = norm(el.getAttribute('placeholder'));
        if (b?.value) parts.push('value=' + q(clip(b.value, 300)));
        // (else its placeholder, which the browser draws in it, as a text field's: Calcite's
        // combobox said only [combobox "City"], its "Pick a city" not shown)
        else if (!b && ph && ph !== name && !hiddenReason(el)) parts.push('placeholder=' + q(clip(ph, 80)));
      } else if (values && chosenSelect(el)) {
        // Chosen's box: the options chosen in the select it stands for; none, the words it shows in
        // their place (the select's data-placeholder, which it also puts in its field's value)
        const s = chosenSelect(el);
        const chosen = Array.from(s.selectedOptions).map((o) => norm(o.text)).filter(Boolean);
        const ph = norm(s.getAttribute('data-placeholder')) || norm(el.querySelector('.chosen-default')?.textContent || el.querySelector('input.default')?.value);
        if (chosen.length) parts.push('value=' + q(clip(chosen.join(', '), 300)));
        else if (ph) parts.push('placeholder=' + q(clip(ph, 80)));
        if (el.classList.contains('chosen-with-drop')) parts.push('expanded');
      } else if (tag !== 'INPUT' && tag !== 'TEXTAREA' && values) {
        // a custom combobox (jQuery UI selectmenu, Select2) shows its choice as text; a pop-up
        // control's host (ion-select) its placeholder, when nothing is chosen, as such
        // (one that draws its list inside itself, Semantic UI's: not the list's text as its value,
        // and its faint default text a placeholder)
        // (not one that stands for a native select, Choices.js's: its chosen item is an option shown
        // in it, as it always was)
        const listIn = !popup && (!!el.querySelector('[role=listbox],[role=option]') || classDropdown(el)) && !selectBehind(el);
        const inBox = listIn ? shownInBox(el) : null;
        let v = listIn ? (inBox?.value ? withoutLabel(inBox.value, name) : inBox?.placeholder || '') : (popup && shownChoiceOf(el)) || withoutLabel(seenText(el), name);
        // (a box around the field that holds the choice, whose own words are only its label:
        // Syncfusion's DropDownList, a role=combobox <div> around a read-only <input> showing
        // "France" under its floating label; it showed no value)
        let ph = false;
        if ((!v || v === name) && !listIn && !popup) { const f = el.querySelectorAll('input:not([type=hidden])'); if (f.length === 1 && norm(f[0].value)) v = norm(f[0].value); }
        // (two fields with a mark between them, a range: Semi Design's date range showed only its
        // "~"; each field's value, or else its placeholder, either side of the mark)
        else if (v && !/[\p{L}\p{N}]/u.test(v) && !listIn && !popup) {
          const f = Array.from(el.querySelectorAll('input:not([type=hidden])'));
          if (f.length === 2) {
            const vals = f.map((i) => norm(i.value)), phs = f.map((i) => placeholderOf(i));
            if (vals.some(Boolean)) v = norm(vals.join(` ${v} `));
            else if (phs.every(Boolean)) { v = phs.join(` ${v} `); ph = true; }
          }
        }
        if (v && v !== name) parts.push((ph || (inBox?.placeholder && !inBox.value) || (popup && showsPlaceholder(el, v)) || marksPlaceholder(el, v) ? 'placeholder=' : 'value=') + q(clip(v, 200)));
      }
      if (ariaOf(el, 'aria-expanded') === 'true' || popup?.getAttribute('aria-expanded') === 'true') parts.push('expanded');
      if (values && tag === 'INPUT' && isReadOnlyCombobox(el)) {
        const opts = optionNames(el);
        if (opts.length) parts.push('options=[' + opts.slice(0, 30).map((o) => q(clip(o, 60))).join(', ') + (opts.length > 30 ? ', …' : '') + ']');
      }
      break;
    }
    case 'slider':
      parts.push('slider');
      if (name) parts.push(q(name));
      { const th = ariaOf(el, 'aria-valuenow') == null && el.value === undefined ? thumbPosition(el) : null;
        parts.push('value=' + q(th ? `${Math.round(th.pct * 10) / 10}%` : ariaOf(el, 'aria-valuenow') || el.value || '')); }
      break;
    default: // button, clickable
      parts.push(kind === 'clickable' ? 'clickable' : 'button');
      if (tag === 'IMG') {
        parts.push('image');
        // an image without alt text: its file name is what there is to go by
        if (!name) name = clip(fileName(el.currentSrc || el.src || ''), 60);
      }
      if (name) parts.push(q(name));
      if (ariaOf(el, 'aria-pressed') === 'true') parts.push('pressed');
      // a day of a calendar grid a user sees chosen (react-datepicker's role=gridcell, PrimeVue's
      // span): aria-selected is how it says so
      if (ariaOf(el, 'aria-selected') === 'true') parts.push('selected');
      // (a <details>' own <summary> says so by the <details> being open, as its triangle shows)
      if (ariaOf(el, 'aria-expanded') === 'true' || (tag === 'SUMMARY' && el.parentElement?.tagName === 'DETAILS' && el.parentElement.open &&
        el.parentElement.querySelector(':scope > summary') === el)) parts.push('expanded');
  }
  // the current one of a set (aria-current: the page a pager shows, the step a wizard is at),
  // which a user sees highlighted among its like
  const cur = (ariaOf(el, 'aria-current') || '').toLowerCase();
  if (cur && cur !== 'false' && CURRENT_KINDS.has(kind)) parts.push('current');
  const shows = kind !== 'link' ? shownText(el, kind, name) : '';
  if (shows) {
    const i = parts.indexOf(q(name));
    if (i >= 0) parts.splice(i + 1, 0, '(shows ' + q(shows) + ')');
  }
  if (values && FIELD_KINDS.has(kind)) parts.push(...fieldState(el));
  if (isDisabled(el)) parts.push('disabled');
  else if (isInert(el) || behindModal(el)) parts.push('inert'); // (under a page's own modal: modal.js)
  parts.push(ref);
  return parts;
}

// A number field's bounds as tokens (min=1 max=10): from min/max, or aria-valuemin/max.
function bounds(el) {
  const out = [];
  for (const k of ['min', 'max']) {
    const v = norm(el.getAttribute(k) ?? ariaOf(el, 'aria-value' + k) ?? '');
    if (v && /^-?[\d.]+(e-?\d+)?$/i.test(v) && Number.isFinite(Number(v))) out.push(`${k}=${v}`);
  }
  return out;
}

const FIELD_KINDS = new Set(['input', 'textarea', 'editable', 'select', 'combobox', 'checkbox', 'radio', 'slider']);

// What a user sees of a field's validation: that it must be filled (the asterisk by its label) and
// that it holds what the page refuses (its error shown: aria-invalid, or the browser's own check
// once the user has changed it, :user-invalid; never a required field still untouched).
function fieldState(el) {
  const out = [];
  const aria = (name) => (ariaOf(el, name) || '').trim().toLowerCase();
  if (el.required || aria('aria-required') === 'true') out.push('required');
  const inv = aria('aria-invalid');
  let userInvalid = false;
  try { userInvalid = el.matches(':user-invalid'); } catch { /* an engine without it */ }
  if ((inv && inv !== 'false') || userInvalid) out.push('invalid');
  return out;
}

const CURRENT_KINDS = new Set(['link', 'button', 'clickable', 'tab', 'option', 'menuitem', 'treeitem']);

export function token(el, kind, opts) {
  return '[' + tokenParts(el, kind, opts).join(' ') + ']';
}

// The elements `el`'s aria-labelledby points at (null for an id that names none), in its root
// first, then in its document.
function labelledBy(el) {
  const ids = (el.getAttribute('aria-labelledby') || '').trim().split(/\s+/).filter(Boolean);
  const root = el.getRootNode();
  return ids.map((id) => root.getElementById?.(id) || el.ownerDocument.getElementById(id));
}

// A title that only repeats what the element shows (bootstrap-select's button, titled by its
// choice or placeholder): no name of its own.
function titleEcho(el) {
  if (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')) return false;
  const t = norm(el.getAttribute('title'));
  return !!t && t === norm(seenText(el));
}

// The name a drop-down's token shows where its accessible name also holds its choice (React Aria's
// trigger, labelled by the value it shows and its label: "Select one State" is shown as "State"):
// a target written from the Markdown names it by that ('' for any other element).
export function shownLabel(el, kind) {
  if (el.tagName === 'INPUT') return '';
  if (kind === 'combobox' && labelledByOwn(el)) return widgetLabel(el);
  if (kind === 'button' && (el.getAttribute('aria-haspopup') || '').trim().toLowerCase() === 'listbox' && !besideTypedCombobox(el)) return labelBesideOwn(el);
  return '';
}

// The text of the elements `el`'s aria-labelledby points at outside it (its label), when it points
// at such an element; '' else (no aria-labelledby, or only its own text).
function labelBesideOwn(el) {
  return norm(labelledBy(el).filter((x) => x && x !== el && !el.contains(x)).map((x) => norm(x.textContent)).join(' '));
}

// Does `el`'s aria-labelledby point only at elements inside it (its own shown text)?
// The label of a drop-down widget drawn by the page: the native select's it stands for, or a
// <label for> pointing at the widget itself (jQuery UI's selectmenu moves the select's label
// there: a <span> is no labelable element, so the browser does not tie them, but a user reads it).
function widgetLabel(el) {
  const sel = selectBehind(el);
  const l = sel ? labelsText(sel) || norm(sel.getAttribute('aria-label')) : '';
  if (l) return l;
  const root = el.getRootNode();
  const labels = el.id && root.querySelectorAll ? Array.from(root.querySelectorAll(`label[for="${CSS.escape(el.id)}"]`)) : [];
  // (or a <label> tied to nothing in the widget's box, above it: AdminLTE's Select2 fields, a
  // <label>Minimal</label> then the select; it was unnamed, and "Minimal" matched nothing)
  return norm(labels.map((x) => x.textContent).join(' ')) || strayLabelOf(el, true);
}

// Labelled by its own content (Select2's rendered choice) or by one of its own options (jQuery UI's
// selectmenu points aria-labelledby at the chosen item of its menu): named by its value.
function labelledByOwn(el) {
  const xs = labelledBy(el);
  // (a <label> in it is its label, not its value: Syncfusion's DropDownList labels itself by its
  // floating label, and was named by its hidden select's aria-label, "dropdownlist", its label
  // taken for its value)
  if (!xs.length || xs.some((x) => !x || x === el || x.tagName === 'LABEL')) return false;
  if (xs.every((x) => el.contains(x))) return true;
  const opts = optionsOf(el);
  return xs.every((x) => el.contains(x) || opts.some((o) => o === x || o.contains(x) || x.contains(o)));
}

// A text box drawn by the page (role=textbox, not a form field) that says it is read-only: a
// rich-text editor switched to read-only (CKEditor's setReadOnly turns contenteditable off and
// sets aria-readonly), whose content a user still reads but cannot change.
export function readOnlyBox(el) {
  return el.tagName !== 'INPUT' && el.tagName !== 'TEXTAREA' && !el.isContentEditable &&
    (el.getAttribute('role') || '').trim().toLowerCase() === 'textbox' && el.getAttribute('aria-readonly') === 'true';
}
