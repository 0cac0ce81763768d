// Forms as a whole: browser_fill_form (several fields in one call, each as `type` or select_option
// would fill it), browser_select_option (a native <select>, a custom drop-down, a radio group) and
// browser_upload_file (files the daemon read, set on a file input the way a user's pick sets them).
// Values never appear in messages: a field may be a password (secret.js).
import { inputType, isEditable, winOf, norm, nameOf, controlKind, styleOf, focusedElement, TEXT_INPUT_TYPES, allRoots, isInert, classDropdown, hiddenPopupControl } from './dom.js';
import { describe, findTarget, refuseUnusable, opensListbox } from './targeting.js';
import { click, type, nextTurn, aim, pressKey, selectOption, selectOptions, typedNote, notTaken, leaveField, scrolledIntoView, tabTarget } from './actions.js';
import { isSecret } from './secret.js';
import { chooseInWidget, pickListed, isDropdown, isReadOnlyCombobox, isRadioGroup, radiosOf, isCheckboxGroup, checkboxesOf, selectBehind, untilSettled, until, tokenIn, unchooseOthers, pillFor, chipsOf, removeChip, listPopupWrapper, closeIfOpen } from './widgets.js';

const BOOL = /^(true|false)$/;
// How long fill_form waits for what covers a field (a datepicker fading out, a toast) to go.
const COVERED_RETRY_MS = 1000;

const KIND_WORDS = {
  button: 'a button', link: 'a link', input: 'a text field', textarea: 'a text area', editable: 'a text editor',
  clickable: 'a clickable element', menuitem: 'a menu item', tab: 'a tab', treeitem: 'a tree item', slider: 'a slider',
  checkbox: 'a checkbox', radio: 'a radio button', option: 'an option',
};

const isChecked = (el) => (el.tagName === 'INPUT' ? el.checked : el.getAttribute('aria-checked') === 'true');

// Wait for the page's own reaction to a click (a few tasks, at most `ms`) until cond() holds.
async function settleUntil(cond, ms = 500) {
  const t0 = performance.now();
  while (!cond() && performance.now() - t0 < ms) await nextTurn();
  return cond();
}

// Check the radio button of `group` whose label is `value` (or whose value is), as a user clicks it.
async function chooseRadio(group, value) {
  const v = norm(value), want = v.toLowerCase();
  const radios = radiosOf(group);
  const names = radios.map((r) => norm(nameOf(r, 'radio')).toLowerCase());
  let i = names.indexOf(want);
  if (i < 0) i = radios.findIndex((r) => r.value === value || r.getAttribute('value') === value);
  if (i < 0 && want) i = names.findIndex((n) => n.includes(want));
  if (i < 0) {
    const list = radios.slice(0, 30).map((r) => JSON.stringify(norm(nameOf(r, 'radio')) || r.getAttribute('value') || '')).join(', ');
    const e = new Error(`${describe(group)} has no option "${v}"; nothing was selected. Its options: ${list}.`);
    e.code = 'no_such_option';
    throw e;
  }
  const r = radios[i];
  refuseUnusable(r, ` of ${describe(group)}`);
  if (!isChecked(r)) {
    await whenUncovered(r);
    click(r);
    if (!(await settleUntil(() => isChecked(r)))) throw new Error(`Clicked ${describe(r)} of ${describe(group)}, but it is not checked afterwards`);
  }
  return { message: `Selected ${describe(r)} in ${describe(group)}` };
}

// Check exactly the boxes of a checkbox group whose labels (or values) are given, and uncheck the
// others, each clicked as a user does and seen to take; an unknown one is an error before any click.
async function checkExactly(group, values) {
  const boxes = checkboxesOf(group).slice(0, 100);
  const names = boxes.map((b) => norm(nameOf(b, 'checkbox')));
  const lower = names.map((n) => n.toLowerCase());
  const idx = values.map((v) => { const i = lower.indexOf(norm(v).toLowerCase()); return i >= 0 ? i : boxes.findIndex((b) => b.getAttribute('value') === v); });
  const missing = values.filter((v, k) => idx[k] < 0);
  if (missing.length) {
    const e = new Error(`${describe(group)} has no box ${missing.map((v) => JSON.stringify(norm(v))).join(', ')}; nothing was changed. Its boxes: ${names.slice(0, 30).map((n) => JSON.stringify(n)).join(', ')}.`);
    e.code = 'no_such_option';
    throw e;
  }
  const on = new Set(idx);
  const changed = [];
  for (let i = 0; i < boxes.length; i++) {
    const b = boxes[i], want = on.has(i);
    if (isChecked(b) === want) continue;
    refuseUnusable(b, ` of ${describe(group)}`);
    await whenUncovered(b);
    click(b);
    const before = changed.length ? ` (changed before it: ${changed.join(', ')})` : '';
    if (!(await settleUntil(() => isChecked(b) === want))) throw new Error(`Clicked ${describe(b)} of ${describe(group)} to ${want ? 'check' : 'uncheck'} it, but it is ${want ? 'not checked' : 'still checked'} afterwards${before}`);
    changed.push(`${want ? 'checked' : 'unchecked'} "${names[i]}"`);
  }
  const list = [...on].map((i) => `"${names[i]}"`).join(', ');
  return { message: `${list ? `Checked ${list}` : 'Unchecked every box'} in ${describe(group)}, and no other box${changed.length ? ` (${changed.join(', ')})` : ' (as it was)'}` };
}

// A checkbox group's boxes as fill_form and a single select_option value give them: one box whose
// label is the whole text (it may hold a comma), else the comma-separated labels.
function boxesNamed(group, value) {
  const whole = norm(value).toLowerCase();
  if (checkboxesOf(group).some((b) => norm(nameOf(b, 'checkbox')).toLowerCase() === whole)) return [value];
  return String(value).split(',').map((v) => norm(v)).filter(Boolean);
}

// The one-sentence refusal of select_option on what has no options.
function notDropdown(el) {
  // (a native range is drawn as a slider, whatever its token: it was called "a text field")
  const kind = el.tagName === 'INPUT' && inputType(el) === 'range' ? 'slider' : controlKind(el, styleOf(el));
  const what = KIND_WORDS[kind] || 'not a form control';
  const act = kind === 'checkbox' || kind === 'radio' ? 'click it to check it'
    // a read-only field takes no typing: what it shows is chosen by clicking it (a cascader opens)
    : (kind === 'input' || kind === 'textarea') && el.readOnly ? 'it is read-only: click it to open what it offers instead'
    : kind === 'input' || kind === 'textarea' || kind === 'editable' ? 'type into it instead'
      : kind === 'slider' ? 'type the number to set it to (browser_type), or press its arrow keys' : 'click it instead';
  const e = new Error(`${describe(el)} is ${what}, not a drop-down or a radio group, so it has no options to select; ${act}.`);
  e.code = 'not_a_dropdown';
  return e;
}

// select_option on what targeting found: a native <select> (or a wrapper holding one), a custom
// drop-down (opened, its option clicked, its shown value checked: never the hidden native control
// behind it), a radio group (its radio checked by label), else an error saying what it is.
export async function chooseOption(el, value, values = null) {
  if (Array.isArray(values)) return chooseOptions(el, values);
  if (el.tagName === 'SELECT' || el.tagName === 'OPTION') return selectOption(el, value);
  if (isRadioGroup(el)) return chooseRadio(el, String(value ?? ''));
  if (isCheckboxGroup(el)) return checkExactly(el, boxesNamed(el, String(value ?? '')));
  if (isDropdown(el)) return chooseInDropdown(el, value);
  const inner = el.querySelectorAll?.('select');
  if (inner && inner.length === 1) return selectOption(inner[0], value);
  if (el.tagName === 'INPUT' && el.list) return chooseListed(el, String(value ?? ''));
  if (suggestsAsTyped(el)) return chooseSuggestion(el, String(value ?? ''));
  const over = selectLaidOver(el);
  if (over) return selectOption(over, value);
  throw notDropdown(el);
}

// The transparent <select> laid over `el` in the box around both (UIkit's uk-form-custom draws a
// select as a button showing its choice, the select transparent on top), or null: the select a
// user's click on what they see opens (select_option on the button's words said "click it").
// (laid over it: the select's box holds the centre of `el`'s, so a select merely beside it, or
// hidden elsewhere in the box, is never the one chosen in)
function selectLaidOver(el) {
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  for (let n = el.parentElement, i = 0; n && i < 2 && n.tagName !== 'BODY' && n.tagName !== 'FORM'; n = n.parentElement, i++) {
    const sels = Array.from(n.children).filter((c) => c.tagName === 'SELECT');
    if (sels.length !== 1 || styleOf(sels[0])?.opacity !== '0' || sels[0].disabled) continue;
    const b = sels[0].getBoundingClientRect();
    if (b.width >= 1 && b.height >= 1 && x >= b.left && x <= b.right && y >= b.top && y <= b.bottom) return sels[0];
  }
  return null;
}

// One option of a custom drop-down, opened and clicked as a user does; `multi` says whether its
// list is one where several can be chosen (the option's ARIA or checkbox).
async function chooseInDropdown(el, value) {
  refuseUnusable(el);
  const v = norm(String(value ?? ''));
  const desc = describe(el);
  aim(el, desc); // a user sees it and can reach it (else an error saying why)
  // (a button alone in the box that opens the list: the box is the widget, its face the button)
  const done = await chooseInWidget(listPopupWrapper(el) || el, v, click, describe, null, { type });
  if (!done) throw new Error(`Clicked option "${v}" of ${desc}, but the widget does not show it afterwards`);
  if (done.acted) return { multi: false, message: `Clicked "${v}" in the menu of ${describe(el)} (opened it, clicked the item: a menu runs its item and keeps no choice to show)` };
  const multi = !!done.multi;
  if (done.already) return { multi, message: `"${v}" was already chosen in ${describe(el)}; it was left chosen${done.option ? ' (a click on it would have taken it out)' : ''}` };
  return { multi, message: `Selected "${v}"${done.as && norm(done.as).toLowerCase() !== v.toLowerCase() ? ` (the option "${done.as.slice(0, 80)}")` : ''} in ${describe(el)} (opened it, ${done.typed ? 'typed to filter it, ' : ''}clicked the option${done.confirmed ? `, then pressed "${done.confirmed}" to confirm it` : ''})` };
}

// One option that the field is to hold (select_option's `values` of one, fill_form's value): in a
// drop-down where several can be chosen, that one alone: the others its list marks as chosen and
// its chips are taken out, and checked gone (rsuite's CheckPicker kept Linda beside Alice, its
// TagPicker Solid beside Vue, and it said "Selected"). Returns the message and the texts taken out.
async function chooseOnly(el, value) {
  const v = norm(String(value ?? ''));
  const dropdown = isDropdown(el) && !isRadioGroup(el) && !isCheckboxGroup(el) && el.tagName !== 'SELECT' && el.tagName !== 'OPTION';
  const r = dropdown ? await chooseInDropdown(el, value) : await chooseOption(el, value);
  const out = dropdown && r.multi && v ? await keepOnly(el, [v]) : await dropChips(el, [String(value ?? '')]);
  return { message: out.length ? `${r.message}, and took out ${out.map((p) => `"${p}"`).join(', ')}` : r.message, out };
}

// A text field a user can type into, that says nothing of a list (no ARIA combobox), and turns the
// browser's own suggestions off (autocomplete=off, as jQuery UI's autocomplete and most scripts
// that draw their own suggestion list do): select_option may try its suggestions.
// select_option on a field with the browser's own suggestions (<input list> and its <datalist>):
// the suggestion of that value (or label) is put in the field as choosing it in the browser's list
// does; one not suggested is an error naming those that are (it said "a text field, type into it").
async function chooseListed(el, value) {
  const want = norm(value).toLowerCase();
  const opts = Array.from(el.list.options).filter((o) => !o.disabled && norm(o.value));
  const o = opts.find((x) => norm(x.value).toLowerCase() === want) || opts.find((x) => norm(x.label).toLowerCase() === want);
  if (!o) {
    const e = new Error(`${describe(el)} suggests no "${value}"; nothing was chosen. Its suggestions: ${opts.slice(0, 30).map((x) => JSON.stringify(norm(x.value).slice(0, 60))).join(', ')}${opts.length > 30 ? ', …' : ''}.`);
    e.code = 'no_such_option';
    throw e;
  }
  await type(el, o.value, { clear: true });
  if (el.value !== o.value) throw new Error(`Put the suggestion "${o.value}" in ${describe(el)}, but the field holds something else afterwards`);
  return { message: `Chose "${o.value}" in ${describe(el)}, one of its suggestions` };
}

function suggestsAsTyped(el) {
  return el.tagName === 'INPUT' && TEXT_INPUT_TYPES.test(inputType(el)) && !el.readOnly && !el.disabled &&
    (el.getAttribute('autocomplete') || '').toLowerCase() === 'off';
}

// The elements (list items, options, links…) showing exactly `want`, visible and outside `field`.
function showing(field, want) {
  const out = [];
  for (const e of field.ownerDocument.querySelectorAll('[role=option],li,a,div,span,td')) {
    if (e.contains(field) || norm(e.textContent).toLowerCase() !== want) continue;
    if (visibleBox(e)) out.push(e);
  }
  return out.filter((e) => !out.some((o) => o !== e && e.contains(o)));
}
const visibleBox = (e) => e.checkVisibility?.({ visibilityProperty: true, opacityProperty: true }) && e.getBoundingClientRect().width > 0;

// select_option on a field that suggests as it is typed into (jQuery UI's autocomplete, whose list
// has no ARIA): the value is typed, as a user does, and the suggestion showing it that appears
// (one not on the page before the typing) is clicked, so that the page's own choice handler runs;
// then the field must hold it. With no such suggestion the field gets its old text back and the
// error names the suggestions it showed, and the focus leaves it.
async function chooseSuggestion(el, value) {
  const desc = describe(el);
  const want = norm(value).toLowerCase();
  if (!want) throw notDropdown(el);
  const before = new Set(showing(el, want));
  const items = () => Array.from(el.ownerDocument.querySelectorAll('[role=option],li')).filter((e) => !e.contains(el) && visibleBox(e));
  const itemsBefore = new Set(items());
  const old = el.value;
  const at = Date.now();
  await type(el, value, { clear: true });
  const fresh = () => showing(el, want).find((e) => !before.has(e)) || null;
  const opt = (await untilSettled(fresh, at, 3000, 500)) || fresh();
  if (!opt) {
    const offered = items().filter((e) => !itemsBefore.has(e)).map((e) => norm(e.textContent)).filter(Boolean);
    await type(el, old, { clear: true });
    // then the focus leaves it (no Tab: a list that picks its first item on Tab would choose), as
    // a user who gives up leaves it, so that the list its old text would suggest is not left open;
    // the page closes what it drew (jQuery UI: on blur, and any answer still due is dropped)
    if (focusedElement(el.ownerDocument) === el) el.blur();
    await until(() => !items().some((e) => !itemsBefore.has(e)), 1000);
    const list = offered.slice(0, 20).map((t) => JSON.stringify(t.slice(0, 60))).join(', ');
    const e = new Error(`${desc} showed no suggestion "${value}" when it was typed in ${list ? `(it suggested ${list})` : '(it suggested nothing)'}, and has no options of its own; nothing was selected and its text is as it was${list ? '' : ' (to put text in it, type into it)'}.`);
    e.code = 'no_such_option';
    throw e;
  }
  click(opt);
  const holds = () => norm(el.value).toLowerCase() === want;
  if (!(await untilSettled(holds, Date.now(), 1000))) throw new Error(`Typed "${value}" into ${desc} and clicked its suggestion "${value}", but the field holds "${el.value}" afterwards`);
  return { message: `Selected "${value}" in ${describe(el)} (typed it, then clicked its suggestion)` };
}

// select_option with `values`: all the options to have chosen, in a native select (or the one a
// wrapper holds) or a custom drop-down (chooseAll); a radio group takes one value.
async function chooseOptions(el, values) {
  if (isCheckboxGroup(el)) return checkExactly(el, values.map((v) => String(v ?? '')).filter((v) => norm(v)));
  const sel = el.tagName === 'SELECT' ? el : el.tagName === 'OPTION' ? el.closest('select') : null;
  const inner = sel ? null : el.querySelectorAll?.('select');
  if (sel || inner?.length === 1) return selectOptions(sel || inner[0], values);
  // a widget that stands for a hidden native select (Slim Select's): the select holds the choices,
  // chosen in through the widget (selectOptions), as fill_form does; not an empty one kept only to
  // submit the choices (DevExtreme's TagBox: "has no option")
  const behind = selectBehind(el);
  if (behind && values.every((v) => hasOptionText(behind, String(v ?? '')))) return selectOptions(behind, values);
  if (values.length === 1) return { message: (await chooseOnly(el, values[0])).message };
  const parts = values.map((v) => norm(String(v))).filter(Boolean);
  if (!isDropdown(el) || isRadioGroup(el)) throw new Error(`${describe(el)} is not a select where several options can be chosen; choose one option at a time with value`);
  // (none: a custom widget's choices are taken out by its own remove marks, which differ by widget)
  if (!parts.length) throw new Error(`${describe(el)} is a custom drop-down: values must name at least one option (take the others out with its own remove marks)`);
  const out = await chooseAll(el, parts);
  return { message: `Selected ${parts.map((p) => `"${p}"`).join(', ')} in ${describe(el)}${out.length ? `, and took out ${out.map((p) => `"${p}"`).join(', ')}` : ''}` };
}

// Does the select have an option with exactly this text (or value), case aside?
function hasOptionText(sel, text) {
  const want = norm(text).toLowerCase();
  return Array.from(sel.options).some((o) => norm(o.label || o.textContent).toLowerCase() === want || o.value === text);
}

// Wait (at most COVERED_RETRY_MS) while something covers the field where a user would click it;
// other reasons a field cannot be reached are left to the fill itself, which says them.
async function whenUncovered(el) {
  const t0 = performance.now();
  for (;;) {
    try { aim(el, describe(el)); return; } catch (e) {
      if (e.code !== 'covered' || performance.now() - t0 > COVERED_RETRY_MS) {
        if (e.code === 'covered') throw e;
        return;
      }
    }
    await new Promise((r) => setTimeout(r, 16));
  }
}

// A combobox a user types into that stands for a hidden native <select> (Tom Select): typing
// only filters its list, the value is the option clicked.
const choosesForSelect = (el) => (el.getAttribute?.('role') || '') === 'combobox' && !isReadOnlyCombobox(el) && !!selectBehind(el);

// A combobox a user types into with no native select behind it (react-select, MUI's
// Autocomplete, a search box with suggestions): its text may only filter the options it shows.
const choosesByTyping = (el) => (el.getAttribute?.('role') || '') === 'combobox' && !isReadOnlyCombobox(el) && !choosesForSelect(el) &&
  (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || !!el.isContentEditable);

// Fill a typeable combobox as a user does: the option shown with exactly that text is chosen
// (typed to filter it, then clicked); with no such option the text is typed, and it counts as
// filled only if the field still holds it once the user leaves it (a chooser that takes only its
// options drops the text on blur: then the error names its options, never a success).
async function fillCombobox(el, value, last = false) {
  let missing;
  try {
    await chooseOnly(el, value);
    return { desc: describe(el), typed: false };
  } catch (e) {
    if (e.code !== 'no_such_option') throw e;
    missing = e;
  }
  if (await chooseEach(el, value)) return { desc: describe(el), typed: false };
  await type(el, value, { clear: true });
  // left as a user moves on: with Tab to the next field, or from the form's last field as
  // fillForm leaves one (no field after it focused: PrimeVue's AutoComplete last in the form
  // tabbed into the date picker after it, which opened)
  if (last) { await nextTurn(); leaveField(el); } else await pressKey(el, 'Tab');
  // (Tab may stop on the widget's own button beside its field, Fluent's Combobox "Open": the user
  // goes on, out of the widget, which then drops text that is no option; it was "Filled")
  const next = focusedElement(el.ownerDocument);
  if (next && next !== el && el.parentElement?.contains(next) && (next.tagName === 'BUTTON' || (next.getAttribute('role') || '') === 'button')) leaveField(next);
  const want = norm(value);
  // held as the field's text, or as the choice its combobox box shows (a chips combobox turns the
  // text into a chip and empties its field: Vuetify's v-combobox)
  // (or as the same day written the field's way: Fluent's DatePicker with text input, a combobox
  // with a calendar, shows "4/1/2024" as "Mon Apr 01 2024" once left; it was "no option")
  const held = () => showsChosen(el, want) || ('value' in el && sameDay(String(el.value), want));
  // the page's reaction to the blur (a chooser clears its text), by what it holds once it had
  // 300 ms of turns of its own: Vuetify's v-combobox clears its field for a moment, then shows
  // the text as its value
  const t0 = performance.now();
  while (performance.now() - t0 < 300) await nextTurn();
  if (!held()) {
    missing.message = missing.message.replace(/nothing was selected\./, 'nothing was selected, and the text typed was dropped when leaving the field.');
    throw missing;
  }
  await dropChips(el, [value]);
  return { desc: describe(el), typed: false };
}

// A date as written (year first, "2024-04-01", read as a day where the user is, as any other way
// of writing one is), or null when `s` is no date: at least two numbers, and one a day of a month
// a Date can read ("1" alone is none, though Date reads it as 2001).
function dayOf(s) {
  const t = norm(s);
  if (!/\d{1,4}\D+\d{1,4}/.test(t) && !/\d{1,2}\D+\p{L}{3,}\D+\d{4}|\p{L}{3,}\D+\d{1,2}\D+\d{4}/u.test(t)) return null;
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  const d = iso ? new Date(+iso[1], +iso[2] - 1, +iso[3]) : new Date(t);
  return Number.isNaN(d.getTime()) ? null : `${d.getFullYear()}-${d.getMonth()}-${d.getDate()}`;
}

// Do two texts write the same day (of the field's own format and of the agent's)?
function sameDay(a, b) {
  const x = dayOf(a);
  return !!x && x === dayOf(b);
}

// Several options, comma-separated as a multiple select's token lists them ("French, German"),
// for a drop-down or combobox that holds several (Mantine's MultiSelect, react-select's multi):
// each chosen in turn, and each must still show as chosen (one that holds one keeps only the
// last: an error saying so). False when `value` names one option.
async function chooseEach(el, value) {
  const parts = value.split(',').map((v) => norm(v)).filter(Boolean);
  if (parts.length < 2) return false;
  await chooseAll(el, parts);
  return true;
}

// A custom drop-down given several options (fill_form's "Rome, Paris", select_option's `values`):
// each chosen in turn (one already chosen is left so), those it holds besides taken out, as a
// select where several can be chosen holds exactly the options given (PrimeVue's MultiSelect kept
// London beside them, and it said "Filled"); each must then show as chosen. Returns the texts
// taken out.
async function chooseAll(el, parts) {
  for (let i = 0; i < parts.length; i++) {
    try {
      await chooseOption(el, parts[i]);
    } catch (e) {
      // (one missing after others were chosen: those stay chosen, which the error says; it said
      // "nothing was selected" after rsuite's CheckPicker took Linda)
      if (i) e.message = `${String(e.message).replace(/; nothing was selected\./, '.')} The options before it were chosen and stay so: ${parts.slice(0, i).map((p) => `"${p}"`).join(', ')}.`;
      await closeIfOpen(el);
      throw e;
    }
  }
  return keepOnly(el, parts);
}

// After `parts` were chosen in a multi-select `el`: the others it holds taken out (its list's marks,
// then its chips), and every part checked still shown as chosen and every one taken out gone.
// Returns the texts taken out.
async function keepOnly(el, parts) {
  let out, marked;
  try {
    ({ out, marked } = await unchooseOthers(el, parts, click, describe));
    out.push(...(await dropChips(el, parts)));
  } catch (e) {
    // (what was chosen stays so: "nothing was done" was said of a click that could not take out
    // "English" once "German" had been chosen, Arco's Select, and its list was left open)
    e.message = `Chose ${parts.map((p) => `"${p}"`).join(', ')} in ${describe(el)}, but taking out the others failed: ${String(e.message).replace(/; nothing was done\./, '.')}`;
    await closeIfOpen(el);
    throw e;
  }
  // (what the widget draws of the last choice may come a few tasks later: ui5-multi-combobox's token)
  // (one that shows only how many it holds, Carbon's: its list's marks)
  const lostNow = () => parts.filter((p) => !showsChosen(el, p) && !marked.includes(norm(p).toLowerCase()));
  await until(() => !lostNow().length, 1000);
  const lost = lostNow();
  if (lost.length) throw new Error(`Chose ${parts.map((p) => `"${p}"`).join(', ')} in turn in ${describe(el)}, but it does not show ${lost.map((p) => `"${p}"`).join(', ')} as chosen: it may hold one option only`);
  // what its list no longer marks must no longer show as held either (the list's marks were read
  // wrong once under load, and an option said taken out was still a chip)
  const heldNow = () => out.filter((p) => showsChosen(el, p));
  await until(() => !heldNow().length, 1000);
  const still = heldNow();
  if (still.length) throw new Error(`Clicked ${still.map((p) => `"${p}"`).join(', ')} in the list of ${describe(el)} to take ${still.length > 1 ? 'them' : 'it'} out, but it still shows ${still.length > 1 ? 'them' : 'it'} as chosen`);
  return out;
}

// Take out the chips beside a multi-select that are not among `parts`, by their remove marks, as a
// user does where its list leaves the chosen out and so cannot take them out (Downshift's and
// react-select's: fill_form said "Filled" holding the books it had before). Only when every part
// shows as a chip of exactly its words, so that a chip is known to name an option, never a chip
// whose words differ from the option's. Returns the texts taken out; throws when one stays.
async function dropChips(el, parts) {
  const want = new Set(parts.map((p) => norm(p).toLowerCase()));
  const out = [];
  for (let i = 0; i < 100; i++) {
    const chips = chipsOf(el);
    if (![...want].every((w) => chips.some((c) => c.text.toLowerCase() === w))) break;
    const extra = chips.find((c) => !want.has(c.text.toLowerCase()) && !out.includes(c.text));
    if (!extra) break;
    if (!(await removeChip(el, extra.text, click))) {
      throw new Error(`Clicked the remove mark of "${extra.text}" beside ${describe(el)} to take it out, but it is still shown as chosen`);
    }
    out.push(extra.text);
  }
  return out;
}

// Does the field show `text` as what it holds: as its own text, in the combobox box around it (a
// chips combobox turns the text into a chip and empties its field: Vuetify's v-combobox), as a
// pill beside it (pillFor), or as a token in its shadow root (tokenIn)?
function showsChosen(el, text) {
  const want = norm(text).toLowerCase();
  // (a field's value; a button's or a box's words, not its `value`: Fluent's Dropdown is a
  // <button value=""> showing "Red, Blue", whose choices were never seen)
  const own = norm(el.isContentEditable || !/^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) ? el.innerText ?? '' : el.value ?? '');
  if (!want) return own === '';
  if (own.toLowerCase() === want) return true;
  // (one of the choices it lists joined, "Red, Blue": a multi-select's face)
  if (!/^(INPUT|TEXTAREA)$/.test(el.tagName) && own.includes(',') && own.split(',').some((p) => norm(p).toLowerCase() === want)) return true;
  const box = el.parentElement?.closest('[role=combobox]');
  return (!!box && norm(box.innerText).toLowerCase().includes(want)) || !!pillFor(el, want) || !!tokenIn(el, want);
}


// Fill one field: text fields are typed into (cleared first), selects, read-only comboboxes,
// comboboxes standing for a select and radio groups choose the option, checkboxes take "true" or
// "false", radio buttons "true". Returns the field's description and whether it was typed into.
async function fillOne(el, value, last = false) {
  // A select where several options can be chosen holds what it is filled with, as a text field
  // does: the options given, as its token lists its choices ("Red, Blue"), and no other (as
  // select_option's values, through its widget if it has one; an option with that whole text is
  // one). "Red, Blue" was an error (no such option), and "Green" was added to those chosen before.
  if (isCheckboxGroup(el)) {
    await checkExactly(el, boxesNamed(el, value));
    return { desc: describe(el), typed: false };
  }
  const multi = el.tagName === 'SELECT' ? el : selectBehind(el);
  const parts = multi?.multiple ? (hasOptionText(multi, value) ? [value] : value.split(',').map((v) => norm(v)).filter(Boolean)) : [];
  // (a widget's select that lacks them, kept only to submit its choices, DevExtreme's TagBox's: its list)
  if (multi?.multiple && (multi === el || parts.every((p) => hasOptionText(multi, p)))) {
    await chooseOptions(multi, parts);
    return { desc: describe(el), typed: false };
  }
  if (!isRadioGroup(el)) await whenUncovered(el);
  // (a custom element drawn over its hidden pop-up control is chosen in too: Calcite's combobox,
  // once a choice hid its input, was "a drop-down, not a text field" to fill_form)
  if (isRadioGroup(el) || isReadOnlyCombobox(el) || (el.getAttribute?.('role') || '') === 'listbox' || classDropdown(el) || choosesForSelect(el) || opensListbox(el) || hiddenPopupControl(el)) {
    try {
      // (a multi-select filled with one option holds that one alone)
      await chooseOnly(el, value);
    } catch (e) { if (e.code !== 'no_such_option' || isRadioGroup(el) || !(await chooseEach(el, value))) throw e; }
    return { desc: describe(el), typed: false };
  }
  if (choosesByTyping(el)) return fillCombobox(el, value, last);
  const t = el.tagName === 'INPUT' ? inputType(el) : '';
  const role = el.getAttribute?.('role');
  if (t === 'checkbox' || t === 'radio' || role === 'checkbox' || role === 'switch' || role === 'radio') {
    if (!BOOL.test(value)) throw new Error(`${describe(el)} is a ${t || role}: its value must be "true" or "false"`);
    const checked = t ? el.checked : el.getAttribute('aria-checked') === 'true';
    if ((t === 'radio' || role === 'radio') && value === 'false') {
      if (checked) throw new Error(`${describe(el)} is a radio button: it cannot be unchecked, choose another one of its group instead`);
      return { desc: describe(el), typed: false };
    }
  }
  if (t === 'file') throw new Error(`${describe(el)} is a file input: put files in it with browser_upload_file`);
  await type(el, value, { clear: true });
  // a listed option with exactly that text, picked as a user picks the suggestion
  if (await pickListed(el, value, click, describe)) return { desc: describe(el), typed: false };
  return { desc: describe(el), typed: (el.tagName === 'INPUT' && isEditable(el)) || oneLineEditable(el), field: el };
}

// A contenteditable element that says it is a one-line field (role textbox, searchbox or combobox,
// not aria-multiline): left as a typed input is, so that the page takes what it holds as a user's
// Tab would have it (Tagify makes its tag on blur: "Filled" said so with no tag made). A rich-text
// editor says none of that, and Tab there may indent.
function oneLineEditable(el) {
  if (!el.isContentEditable || el.getAttribute('aria-multiline') === 'true') return false;
  return /^(textbox|searchbox|combobox)$/.test((el.getAttribute('role') || '').trim());
}

// Does Tab from `el` take the focus to the field `next` describes (or into it, or onto the widget
// around it)? True when that field is not found here (the old way: Tab).
function tabsOnto(el, next) {
  let to;
  try { to = findTarget(String(next?.target ?? ''), 'type').el; } catch { return true; }
  const t = tabTarget(el);
  return !!t && (t === to || to.contains(t) || t.contains(to));
}

// `offset`, `total`, `before`: these fields are a run of a form whose other fields are in other
// frames (background/frames.js): where they stand in it, and what was filled before them.
export async function fillForm(fields, { offset = 0, total = 0, before = [] } = {}) {
  if (!Array.isArray(fields) || !fields.length) throw new Error('fields must be a non-empty list of {target, value}');
  const prior = Array.isArray(before) ? before.slice(0, 200).map(String) : [];
  const done = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] || {};
    const target = String(f.target ?? '');
    try {
      const { el } = findTarget(target, 'type');
      isSecret(el); // decided before the first key, as type() does
      const value = String(f.value ?? '');
      await scrolledIntoView(el);
      const r = await fillOne(el, value, i === fields.length - 1);
      // A typed field is left with Tab, as a user moves on: a popup it opened over the next field
      // (a datepicker's calendar) closes. The last one is left too, with no other field focused, as
      // a user leaves it (actions.leaveField): a page that takes or reformats a value then (a
      // datepicker parsing what was typed, an input mask) has done so when the answer is read.
      // The page's own tasks run first, as in a typist's pause before Tab: Zag.js's number input
      // (Ark UI, Chakra) takes the typed value in a later task, and left at once it put its old
      // one back in the field.
      if (r.typed) await nextTurn();
      const leftAt = Date.now();
      // (Tab only onto the next field given: one it would focus in between, a date field whose
      // calendar opens on focus, opened over the next field, which was then "covered": react-datepicker)
      if (r.typed && i < fields.length - 1 && tabsOnto(el, fields[i + 1])) await pressKey(el, 'Tab');
      else if (r.typed && focusedElement(el.ownerDocument) === el) leaveField(el);
      let note = '';
      if (r.field) {
        // the page's reaction to leaving it (a picker's parse, in its handler or a timer it set):
        // until the page has settled since, as an action's answer is read (at most 500 ms)
        await untilSettled(() => false, leftAt, 500);
        note = typedNote(r.field, value, true);
        // a field left empty, the text shown nowhere beside it (a multi-select's search box, which
        // drops what is typed when left): not filled ("Filled" said so, with a note)
        const refused = notTaken(note, r.desc, [...value].length, !showsChosen(r.field, value));
        if (refused) throw new Error(refused);
        // a tags field that made the text a chip holds that one, as a multi-select filled with one
        // option does: the chips it held before are taken out (Tagify kept "Rust" beside "Java")
        if (r.typed) {
          const out = await dropChips(r.field, [value]);
          if (out.length) note += ` (took out ${out.map((p) => `"${p}"`).join(', ')})`;
          // (a field that took the focus back as a chip went, its suggestions open again: left again)
          if (out.length && focusedElement(r.field.ownerDocument) === r.field) leaveField(r.field);
        }
      }
      done.push(r.desc + note);
    } catch (e) {
      const all = [...prior, ...done];
      const was = all.length ? ` Filled before it: ${all.join(', ')}.` : ' Nothing was filled before it.';
      const n = Math.max(Number(total) || 0, fields.length), at = (Number(offset) || 0) + i + 1;
      const err = new Error(`Field ${at} of ${n} (${JSON.stringify(target.slice(0, 200))}) failed: ${String(e.message || e).replace(/\.$/, '')}.${was}`);
      // Nothing filled yet: another frame may hold the form (frames.js); else this is the answer.
      err.code = all.length && (e.code === 'stale_ref' || e.code === 'target_not_found') ? 'field_failed' : e.code;
      // (the description no field here matches, for frames.js to look for in other sites' frames)
      if (e.code === 'target_not_found') err.failedTarget = target.slice(0, 200);
      throw err;
    }
    await nextTurn(); // the page's own reactions to one field (a dependent select) before the next
  }
  return { message: `Filled ${done.length} field${done.length === 1 ? '' : 's'}: ${done.join(', ')}`, filled: done };
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

// The one file input the page names `target` (its label, aria-label or name as the Markdown shows
// it: [input file "Avatar file" e2]), hidden or not: a drop zone keeps its input transparent and
// opens its file dialog from the area around it, and what that dialog gives is set on this input.
// Null when none or several are named so, or it is not in a box a user sees.
export function fileInputNamed(target) {
  const want = norm(String(target ?? '')).toLowerCase();
  if (!want) return null;
  const found = [];
  for (const r of allRoots()) {
    for (const i of r.querySelectorAll('input[type=file]')) {
      // (in a box a user sees: not one in a closed section or a hidden form, which no one can reach)
      const box = i.parentElement;
      if (i.disabled || isInert(i) || !box?.checkVisibility?.({ visibilityProperty: true, opacityProperty: true })) continue;
      if (norm(nameOf(i, 'input')).toLowerCase() === want) found.push(i);
      if (found.length > 1) return null;
    }
  }
  return found[0] || null;
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
  refuseUnusable(input);
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
