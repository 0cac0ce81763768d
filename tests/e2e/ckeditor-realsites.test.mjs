// Real-site suite for CKEditor 4 and MediumEditor (product rule #1: `success` only when the editor
// a user sees did it; rule #2: the Markdown shows the editor as a user sees it), driven as an agent
// does, by the labels and texts the Markdown shows, each scenario three times:
//   - ckeditor.html: two classic CKEditor 4 editors (npm ckeditor4-oss, 4.22.1; an iframe whose
//     body is editable, after the hidden <textarea> a <label> names), buttons that call
//     setReadOnly(), and each editor's own content (editor.getData()) in an <output>;
//   - MediumEditor's own demo (/npm/medium-editor/demo/index.html): one editor whose toolbar
//     appears only on a selection.
//   node --test tests/e2e/ckeditor-realsites.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startManaged, startStaticServer, requirePackages, NODE_MODULES, SHELLS } from './support/realsites.mjs';

let env, srv;
before(async () => {
  requirePackages(['ckeditor4-oss', 'medium-editor']);
  srv = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/' } });
  env = await startManaged();
});
after(async () => { await env?.close(); await srv?.close(); });

const msg = (r) => JSON.stringify(r.result?.error || r.result?.message || r.message || r.status);
const md = (r) => r.page?.markdown || '';
const ok = (r, what = 'call') => assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${msg(r)}\n${md(r).slice(0, 3000)}`);
const err = (r) => String(r.result?.error || r.message || '');
const call = (tool, params) => env.call(tool, params);
// The Markdown between the first line starting with `from` and the next containing `to`.
function between(m, from, to) {
  const lines = m.split('\n');
  const a = lines.findIndex((l) => l.startsWith(from));
  const b = lines.findIndex((l, i) => i > a && l.includes(to));
  return a < 0 || b < 0 ? '' : lines.slice(a, b + 1).join('\n');
}
// The ref of the first token matching `re` (one with a (eN) group) in `part`, or a clear failure.
function refIn(part, re, what) {
  const m = part.match(re);
  assert.ok(m, `no ${what} in:\n${part}`);
  return m[1];
}
// What editor.getData() of the summary holds, as its <output> line shows it (Markdown escapes undone).
const summaryData = (m) => (m.split('\n').find((l) => l.startsWith('Summary data:')) || '').slice('Summary data:'.length).trim().replace(/\\([\\[\]*_`])/g, '$1');

// Open the CKEditor shell, once both editors are ready (their content shown under their markers).
async function openCk(query = '') {
  let r = await call('browser_open_url', { url: srv.url('/shells/ckeditor.html' + query) });
  ok(r, 'open ckeditor.html');
  if (!/Details data: <p>/.test(md(r))) r = await call('browser_wait_for', { text: 'Details data: <p>' });
  ok(r, 'editors ready');
  assert.match(md(r), /\[editor "Editor, summary" e\d+\]\n> First \*\*draft\*\* of the summary/, md(r));
  return r;
}

// press_key by the label of the hidden <textarea> an editor replaces was pressed on that textarea
// ("Pressed … on [textarea "Summary"]", nothing happened in the editor), and Shift/Control with an
// arrow key, a synthetic key, moved no selection: Bold then inserted an empty bold mark at the
// caret. The keys now go to the editor a user sees and select as a user's do.
test('ckeditor: press_key by the label selects with Shift+Control+Arrow in the editor a user sees, and Bold, Italic and Undo act on that selection', async () => {
  for (let run = 0; run < 3; run++) {
    let r = await openCk();
    const bold = refIn(between(md(r), 'Summary', 'Summary data:'), /\[button "Bold" (e\d+)\]/, 'Bold button of the summary');
    const italic = refIn(between(md(r), 'Summary', 'Summary data:'), /\[button "Italic" (e\d+)\]/, 'Italic button of the summary');
    ok(await call('browser_type', { target: 'Summary', text: 'Hello brave world' }), 'type');
    r = await call('browser_press_key', { target: 'Summary', key: 'Shift+Control+ArrowLeft' });
    ok(r, 'select the last word');
    assert.match(r.result?.message || '', /through \[[^\]]*"Editor, summary"[^\]]*\], the editor a user sees/, msg(r));
    r = await call('browser_click', { target: bold });
    ok(r, 'Bold');
    assert.equal(summaryData(md(r)), '<p>Hello brave <strong>world</strong></p>', `Bold did not act on the word selected:\n${md(r)}`);
    assert.match(md(r), /\[editor "Editor, summary" e\d+\]\n> Hello brave \*\*world\*\*$/m, md(r));
    assert.match(md(r), new RegExp(`\\[button "Bold" pressed ${bold}\\]`), 'the Bold button does not show it is on');
    // two words back from the end, extended: "brave world"; then Italic
    ok(await call('browser_press_key', { target: 'Summary', key: 'End' }), 'End');
    for (let i = 0; i < 2; i++) ok(await call('browser_press_key', { target: 'Summary', key: 'Shift+Control+ArrowLeft' }), 'extend');
    r = await call('browser_click', { target: italic });
    ok(r, 'Italic');
    assert.equal(summaryData(md(r)), '<p>Hello <em>brave <strong>world</strong></em></p>', md(r));
    r = await call('browser_click', { target: refIn(md(r), /\[button "Undo" (e\d+)\]/, 'Undo') });
    ok(r, 'Undo');
    assert.equal(summaryData(md(r)), '<p>Hello brave <strong>world</strong></p>', `Undo did not undo the italic:\n${md(r)}`);
  }
});

// Bold with nothing selected: CKEditor puts an empty <strong> at the caret holding seven zero-width
// spaces (its filler), which a user does not see; the Markdown showed "> Hello**\u200b…**", an
// empty emphasis with invisible characters. What is typed next is bold, as for a user.
test('ckeditor: Bold with no selection shows only the pressed button, not an empty emphasis of invisible characters', async () => {
  for (let run = 0; run < 3; run++) {
    let r = await openCk();
    const bold = refIn(between(md(r), 'Summary', 'Summary data:'), /\[button "Bold" (e\d+)\]/, 'Bold button of the summary');
    ok(await call('browser_type', { target: 'Summary', text: 'Hello' }), 'type');
    r = await call('browser_click', { target: bold });
    ok(r, 'Bold');
    assert.match(md(r), new RegExp(`\\[button "Bold" pressed ${bold}\\]`), md(r));
    assert.match(md(r), /\[input textbox "Editor, summary" value="Hello" e\d+\]/, md(r));
    assert.doesNotMatch(md(r), /[\u200B\u2060\uFEFF]/, 'invisible characters in the Markdown');
    r = await call('browser_press_key', { target: 'Summary', key: 'x' });
    ok(r, 'a key');
    assert.equal(summaryData(md(r)), '<p>Hello<strong>x</strong></p>', md(r));
  }
});

// CKEditor's setReadOnly() turns the editable body's contenteditable off and sets aria-readonly: the
// Markdown showed [input textbox "Editor, summary" value="First draft of the summary"], its bold
// and its state lost, and typing into it said only that it was "not a text field".
test('ckeditor: an editor made read-only shows its content marked readonly, and typing or an editing key into it is an error that says so', async () => {
  for (let run = 0; run < 3; run++) {
    await openCk();
    let r = await call('browser_click', { target: 'Lock the summary' });
    ok(r, 'lock');
    assert.match(md(r), /\[editor "Editor, summary" readonly e\d+\]\n> First \*\*draft\*\* of the summary/, md(r));
    r = await call('browser_type', { target: 'Summary', text: 'changed' });
    assert.equal(r.status, 'error', `typing into a read-only editor succeeded: ${msg(r)}`);
    assert.match(err(r), /read-only/, err(r));
    r = await call('browser_press_key', { target: 'Editor, summary', key: 'Backspace' });
    assert.equal(r.status, 'error', `a key that edits a read-only editor was pressed: ${msg(r)}`);
    assert.match(err(r), /read-only/, err(r));
    r = await call('browser_get_page', {});
    assert.equal(summaryData(md(r)), '<p>First <strong>draft</strong> of the summary</p>', md(r));
    assert.match(md(r), /> First \*\*draft\*\* of the summary/);
    r = await call('browser_click', { target: 'Unlock the summary' });
    ok(r, 'unlock');
    assert.match(md(r), /\[editor "Editor, summary" e\d+\]\n> First \*\*draft\*\*/, md(r));
    r = await call('browser_type', { target: 'Summary', text: 'changed' });
    ok(r, 'type once editable');
    assert.match(md(r), /"Editor, summary" value="changed"/, md(r));
  }
});

// Maximize puts the editor over the whole window (absolutely placed at the origin, the page's root
// element fixed at 0 × 0 so that nothing scrolls): every button of the maximized editor, and typing
// by its label, were refused as "inside an element that is clipped, shrunk or moved off the page"
// (that 0 × 0 root), so that not even Maximize could be clicked again; and the page under it was
// listed as if a user could use it. Now the editor acts as for a user, what it covers is inert,
// and a click there says what covers it.
test('ckeditor: a maximized editor takes typing and its toolbar, what it covers is inert, and Maximize again gives the page back', async () => {
  for (let run = 0; run < 3; run++) {
    let r = await openCk();
    const part = between(md(r), 'Summary', 'Summary data:');
    const max = refIn(part, /\[button "Maximize" (e\d+)\]/, 'Maximize button of the summary');
    const bold = refIn(part, /\[button "Bold" (e\d+)\]/, 'Bold button of the summary');
    r = await call('browser_click', { target: max });
    ok(r, 'Maximize');
    assert.match(md(r), new RegExp(`\\[button "Maximize" pressed ${max}\\]`), md(r));
    assert.match(md(r), /\[button "Lock the summary" inert e\d+\]/, `the page under the maximized editor is shown usable:\n${md(r)}`);
    assert.match(between(md(r), 'Details', 'Details data:'), /\[button "Bold" inert e\d+\]/, 'the other editor\'s toolbar is shown usable');
    r = await call('browser_type', { target: 'Summary', text: 'while big' });
    ok(r, 'type into the maximized editor');
    ok(await call('browser_press_key', { target: 'Summary', key: 'Control+a' }), 'Ctrl+A');
    r = await call('browser_click', { target: bold });
    ok(r, 'Bold in the maximized editor');
    assert.equal(summaryData(md(r)), '<p><strong>while big</strong></p>', md(r));
    r = await call('browser_click', { target: 'Lock the summary' });
    assert.equal(r.status, 'error', `a click under the maximized editor succeeded: ${msg(r)}`);
    assert.match(err(r), /"Rich Text Editor, summary", shown over the whole window/, err(r));
    r = await call('browser_click', { target: max });
    ok(r, 'Maximize again');
    assert.match(md(r), new RegExp(`\\[button "Maximize" ${max}\\]`), md(r));
    assert.doesNotMatch(md(r), /inert/, 'the page is still shown covered');
    ok(await call('browser_click', { target: 'Lock the summary' }), 'lock, once the page is back');
  }
});

// The package's Code Snippet sample: code blocks in an editor (an iframe one and an inline one)
// are fenced code quoted under the editor's marker ("> ```"); the page's last tidying, which keeps
// code as it is only between fences at the start of a line, collapsed their runs of spaces, so
// that the ASCII-art cow of the sample lost its shape ("/ \\" for "/                \\").
test('ckeditor: code blocks inside an editor keep their spaces in the Markdown (the Code Snippet sample)', async () => {
  for (let run = 0; run < 3; run++) {
    let r = await call('browser_open_url', { url: srv.url('/npm/ckeditor4-oss/samples/old/codesnippet/codesnippet.html') });
    ok(r, 'open the sample');
    if (!/\[editor "Editor, editor1"/.test(md(r))) r = await call('browser_wait_for', { text: 'How about moo' });
    const m = md(r);
    // both editors (the classic one in its iframe, the inline one) show the cow as the page does
    for (const line of ['/                \\', '| How about moo? |  ^__^', '                  \\ (__)\\       )\\/\\', '                        ||     ||']) {
      const quoted = m.split('\n').filter((l) => l === '> ' + line);
      assert.equal(quoted.length, 2, `the code line ${JSON.stringify(line)} is not shown as the editors hold it:\n${m.slice(0, 6000)}`);
    }
    assert.match(m, /^> \t\tif \( object\.hasOwnProperty\( i \) \)$/m, 'the JavaScript snippet lost its indentation');
  }
});

// CKEditor draws the lists of its Text Color button and Font combo in floating iframes of the
// page's origin. With trusted input, a click checks that the page heard it (a prompt of the
// browser's own may swallow it), but only the top document's presses were counted: the click on
// "Strong Red" in the panel's iframe was taken for lost and done again by the content script on
// what "Strong Red" then named, and a click on "Georgia" in the Font list reopened the list, the
// answer naming the combobox.
test('ckeditor: a choice in a floating iframe panel (Text Color, Font) is clicked once, and the answer names it', async () => {
  for (let run = 0; run < 3; run++) {
    let r = await openCk('?full');
    const part = between(md(r), 'Summary', 'Summary data:');
    const color = refIn(part, /\[button "Text Color" (e\d+)\]/, 'Text Color button of the summary');
    const font = refIn(part, /\[combobox "Font" (e\d+)\]/, 'Font combobox of the summary');
    ok(await call('browser_type', { target: 'Summary', text: 'Red text' }), 'type');
    ok(await call('browser_press_key', { target: 'Summary', key: 'Control+a' }), 'Ctrl+A');
    r = await call('browser_click', { target: color });
    ok(r, 'Text Color');
    assert.match(md(r), /\[option "Strong Red" e\d+\]/, md(r));
    r = await call('browser_click', { target: 'Strong Red' });
    ok(r, 'Strong Red');
    assert.match(r.result?.message || '', /^Clicked \[option "Strong Red" e\d+\]$/, msg(r));
    assert.equal(summaryData(md(r)), '<p><span style="color:#c0392b">Red text</span></p>', md(r));
    assert.doesNotMatch(md(r), /\[option "Strong Red"/, 'the color panel is still open');
    r = await call('browser_click', { target: font });
    ok(r, 'Font');
    r = await call('browser_click', { target: 'Georgia' });
    ok(r, 'Georgia');
    assert.match(r.result?.message || '', /^Clicked \[option "Georgia" e\d+\]$/, msg(r));
    assert.match(summaryData(md(r)), /font-family:Georgia,serif/, md(r));
    assert.match(md(r), new RegExp(`\\[combobox "Georgia, Font" value="Georgia" ${font}\\]`), `the Font combo does not show the choice, or is still open:\n${md(r)}`);
  }
});

// ---------------------------------------------------------------- MediumEditor

// MediumEditor shows its toolbar only on a selection: selecting the last word with Shift+Control+
// ArrowLeft (a synthetic key moved nothing) must show it, and its "bold" and "link" act on the word.
// Its editor is named only by its placeholder (data-placeholder): once it held one short line, its
// token was named by that line, [input textbox "Hello brave world"], its name lost.
test('medium-editor: a word selected with press_key gets the selection toolbar; bold and link act on it; the editor keeps its name', async () => {
  for (let run = 0; run < 3; run++) {
    let r = await call('browser_open_url', { url: srv.url('/npm/medium-editor/demo/index.html') });
    ok(r, 'open the demo');
    assert.match(md(r), /\[editor "Type your text" e\d+\]\n> My father/, md(r));
    r = await call('browser_type', { target: 'Type your text', text: 'Hello brave world' });
    ok(r, 'type');
    assert.match(md(r), /\[input textbox "Type your text" value="Hello brave world" e\d+\]/, `the editor lost its name:\n${md(r).slice(0, 3000)}`);
    r = await call('browser_press_key', { target: 'Type your text', key: 'Shift+Control+ArrowLeft' });
    ok(r, 'select the last word');
    r = await call('browser_click', { target: 'bold' });
    ok(r, 'bold');
    assert.match(md(r), /\[editor "Type your text" e\d+\]\n> Hello brave \*\*world\*\*$/m, md(r));
    r = await call('browser_click', { target: 'link' });
    ok(r, 'link');
    r = await call('browser_type', { target: 'Paste or type a link', text: 'https://example.com/', submit: true });
    ok(r, 'type the link');
    assert.match(md(r), /^> Hello brave \*\*\[world\]\(https:\/\/example\.com\/\)\*\*$/m, md(r));
  }
});
