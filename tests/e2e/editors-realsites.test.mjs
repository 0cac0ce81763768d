// Real-site suite for rich-text and code editors (product rule #1: `success` only when the editor a
// user sees holds the text; rule #2: the Markdown shows the editor's real content). Five libraries
// installed from npm, set up with their documented API only; each shell shows the editor's own
// content (its API: view.state.doc, editor.getHTML(), editor.getValue() …) in an <output>, which
// the tests compare with the Markdown:
//   - editor-codemirror.html (+ .js, bundled here): CodeMirror 6, a contenteditable code view;
//     ?long: 400 lines, of which CodeMirror draws only those in view;
//   - editor-ace.html: Ace, whose keys go to a transparent textarea inside the box that draws the
//     lines; ?long as for CodeMirror;
//   - editor-tinymce.html: TinyMCE, which hides the labelled <textarea> and puts its editor (an
//     iframe whose body is editable) after it;
//   - editor-tiptap.html (+ .js): TipTap (ProseMirror) with a Bold button;
//   - editor-lexical.html (+ .js): Lexical, plain JS, with history (Ctrl+Z) and a Bold button;
//   - editor-monaco.html: Monaco (its AMD build), whose lines are drawn aria-hidden and which
//     takes text through an EditContext element, or with ?textarea a transparent textarea;
//   - editor-easymde.html: EasyMDE, which hides the labelled <textarea> and draws CodeMirror 5
//     after it, whose keys go to a transparent textarea of its own;
//   - editor-slate.html (+ .js): Slate (React), with a Bold button that keeps the focus in it.
// The bundled shells are built by esbuild into a temporary directory served at /bundles/.
//   node --test tests/e2e/editors-realsites.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import os from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import * as esbuild from 'esbuild';
import { startManaged, startStaticServer, requirePackages, NODE_MODULES, SHELLS } from './support/realsites.mjs';

let env, srv, bundles;
before(async () => {
  requirePackages(['@codemirror/view', '@codemirror/lang-markdown', '@tiptap/core', '@tiptap/starter-kit', 'lexical', '@lexical/rich-text', 'tinymce', 'ace-builds', 'monaco-editor', 'easymde', 'slate', 'slate-react', 'slate-history', 'jodit', 'tributejs']);
  bundles = await mkdtemp(path.join(os.tmpdir(), 'bb-editors-'));
  for (const n of ['codemirror', 'tiptap', 'lexical', 'slate']) {
    await esbuild.build({
      entryPoints: [path.join(SHELLS, `editor-${n}.js`)], bundle: true, format: 'iife', logLevel: 'error',
      define: { 'process.env.NODE_ENV': '"production"' },
      outfile: path.join(bundles, `editor-${n}.js`), nodePaths: [NODE_MODULES],
      // @lexical/* are one release behind `lexical` in the lock file: each brings its own copy,
      // and Lexical refuses nodes from a second copy; all of it is bundled from theirs.
      alias: { lexical: path.join(NODE_MODULES, '@lexical/rich-text/node_modules/lexical') },
    });
  }
  srv = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/', '/bundles/': bundles + '/' } });
  env = await startManaged();
});
after(async () => { await env?.close(); await srv?.close(); if (bundles) await rm(bundles, { recursive: true, force: true }); });

const msg = (r) => JSON.stringify(r.result?.error || r.result?.message || r.message || r.status);
const md = (r) => r.page?.markdown || '';
const ok = (r, what = 'call') => assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${msg(r)}\n${md(r).slice(0, 2500)}`);
const call = (tool, params) => env.call(tool, params);
async function open(shell, wait) {
  let r = await call('browser_open_url', { url: srv.url('/shells/' + shell) });
  ok(r, `open ${shell}`);
  if (wait && !wait.test(md(r))) { r = await call('browser_get_page', {}); }
  return r;
}
// The JSON string the shell's <output> shows after `label` (the editor's own text), parsed.
function outputOf(m, label) {
  const line = m.split('\n').find((l) => l.startsWith(label)) || '';
  // the Markdown escapes [ ] * _ and \ in text
  const raw = line.slice(label.length).trim().replace(/\\([\\[\]*_`])/g, '$1');
  try { return JSON.parse(raw); } catch { return undefined; }
}
// The fenced code block right after the line starting with `marker` (quoted or not), its lines.
function codeAfter(m, marker) {
  const lines = m.split('\n');
  let i = lines.findIndex((l) => l.startsWith(marker));
  if (i < 0) return null;
  const unq = (l) => l.replace(/^> ?/, '');
  while (i < lines.length && !/^```/.test(unq(lines[i]))) i++;
  const out = [];
  for (i++; i < lines.length && !/^```/.test(unq(lines[i])); i++) out.push(unq(lines[i]));
  return i < lines.length ? out.join('\n') : null;
}

// ---------------------------------------------------------------- code editors: what they hold

const CODE = '# Title\n- item (a) "q"\n\tindented {x}';

// A code editor's lines were read as Markdown text: "- item" escaped, the tab lost, a blank line
// between every two lines; the Markdown now shows them as the code they are, as the editor holds it.
test('codemirror: typed multi-line text is shown in the Markdown as the code the editor holds (indentation and lines kept)', async () => {
  for (let run = 0; run < 3; run++) {
    await open('editor-codemirror.html');
    const r = await call('browser_type', { target: 'Notes', text: CODE });
    ok(r, 'type into Notes');
    const held = outputOf(md(r), 'Editor text:');
    assert.equal(held, CODE, `CodeMirror does not hold the text typed:\n${md(r)}`);
    assert.equal(codeAfter(md(r), '[editor "Notes"'), held, `the Markdown does not show what the editor holds:\n${md(r)}`);
    const more = await call('browser_type', { target: 'Notes', text: '\nmore [z]', clear: false });
    ok(more, 'append');
    assert.equal(outputOf(md(more), 'Editor text:'), CODE + '\nmore [z]');
    assert.equal(codeAfter(md(more), '[editor "Notes"'), CODE + '\nmore [z]', md(more));
  }
});

// press_key on an editor that leaves editing keys to the browser (CodeMirror without a keymap for
// them) reported "Pressed Control+a", "Pressed Backspace" while nothing changed; the keys now do
// what they do for a user: select all, delete, insert, a new line; an auto-closed bracket shows.
test('codemirror: press_key Ctrl+A, Backspace, a letter, Enter and "(" edit the editor as a user\'s keys do', async () => {
  for (let run = 0; run < 3; run++) {
    await open('editor-codemirror.html');
    ok(await call('browser_type', { target: 'Notes', text: 'abc\ndef' }), 'type');
    ok(await call('browser_press_key', { target: 'Notes', key: 'Control+a' }), 'Ctrl+A');
    let r = await call('browser_press_key', { target: 'Notes', key: 'Backspace' });
    ok(r, 'Backspace');
    assert.equal(outputOf(md(r), 'Editor text:'), '', `Ctrl+A and Backspace did not empty the editor:\n${md(r)}`);
    for (const key of ['x', 'Enter', '(']) ok(await call('browser_press_key', { target: 'Notes', key }), key);
    r = await call('browser_get_page', {});
    // CodeMirror closes the bracket itself: the Markdown shows what it holds
    assert.equal(outputOf(md(r), 'Editor text:'), 'x\n()', md(r));
    assert.equal(codeAfter(md(r), '[editor "Notes"'), 'x\n()', md(r));
  }
});

// CodeMirror and Ace draw only the lines in view: a long document was shown cut, with nothing
// saying so; now the editor's marker and a note under its code say that only part is drawn.
for (const [shell, marker] of [['editor-codemirror.html?long', '[editor "Notes"'], ['editor-ace.html?long', '[textarea ']]) {
  test(`${shell.replace(/\?.*/, '')}: a long document the editor draws only in part is not shown as if it were whole`, async () => {
    for (let run = 0; run < 3; run++) {
      const r = await open(shell);
      const m = md(r);
      assert.match(m, /Editor text: 400 lines/, m.slice(0, 500));
      const code = codeAfter(m, marker);
      assert.ok(code && /line 1 of the long/.test(code), `the first lines are not shown as code:\n${m.slice(0, 1500)}`);
      assert.ok(!/line 400 of the long/.test(code), 'the editor drew its last line: the shell is not virtualized');
      assert.match(m, /\[… only \d+ lines of about \d+ are drawn by the page: scroll the editor to read the others …\]/, `the cut is not said:\n${m.slice(0, 3000)}`);
      if (shell.startsWith('editor-codemirror')) assert.match(m, /\[editor "Notes" partly drawn e\d+\]/);
    }
  });
}

// Ace takes its keys in a transparent textarea inside the box that draws its lines: typing into it
// (the token the Markdown shows) was "not visible to a user"; a person clicks the editor and types.
test('ace: typing into the editor\'s textarea goes through the editor box a user sees, and the Markdown shows the code', async () => {
  const code = 'function f(a) {\n\treturn [a, "b"];\n}';
  for (let run = 0; run < 3; run++) {
    const m = md(await open('editor-ace.html'));
    const ref = (m.match(/\[textarea [^\]]*\b(e\d+)\]/) || [])[1];
    assert.ok(ref, `no textarea token for Ace's input:\n${m}`);
    const r = await call('browser_type', { target: ref, text: code });
    ok(r, 'type into Ace');
    // the textarea's value is Ace's key buffer, not the text: no note may say the text was not taken
    assert.doesNotMatch(r.result?.message || '', /something else|did not take/, msg(r));
    assert.equal(outputOf(md(r), 'Editor text:'), code, `Ace does not hold the text typed:\n${md(r)}`);
    // Ace draws a tab as spaces: the Markdown shows the lines a user sees
    assert.equal(codeAfter(md(r), '[textarea '), code.replace('\t', '    '), md(r));
    assert.doesNotMatch(md(r), /\[textarea [^\]]*value=/, 'the textarea\'s key buffer is shown as a value');
    const back = await call('browser_press_key', { target: ref, key: 'Control+a' });
    ok(back, 'Ctrl+A');
    ok(await call('browser_press_key', { target: ref, key: 'Backspace' }), 'Backspace');
    assert.equal(outputOf(md(await call('browser_get_page', {})), 'Editor text:'), '');
  }
});

// Monaco draws its lines aria-hidden and takes text through an EditContext element with no size
// (or a transparent textarea): the Markdown showed no code at all (an unnamed [textarea], its IME
// buffer), typing by its name was "not visible to a user", typing into the textarea garbled the
// text (the line typed again before each character; "(" taken for ArrowDown), and the editor
// could not be scrolled. Now it is an editor whose code the Markdown shows, typed into, keyed and
// scrolled as a user does.
for (const mode of ['', '?textarea']) {
  test(`monaco${mode ? ' (textarea)' : ' (EditContext)'}: its code is shown; typing by its name, keys and scrolling work as a user's`, async () => {
    let r = await open('editor-monaco.html' + mode, /\[editor "Script"/);
    assert.match(md(r), /\[editor "Script" e\d+\]/, md(r));
    assert.equal(codeAfter(md(r), '[editor "Script"'), 'function greet(name) {\n  return "Hi " + name;\n}', md(r));
    assert.doesNotMatch(md(r), /\[textarea/, 'the editor\'s own input buffer is shown as a field');
    const code = 'let total = sum(1, 2);\nconsole.log("total", total);';
    r = await call('browser_type', { target: 'Script', text: code });
    ok(r, 'type');
    assert.match(r.result.message, new RegExp(`^Typed ${code.length} characters into \\[editor "Script" e\\d+\\]`));
    assert.equal(outputOf(md(r), 'Editor text:'), code, `Monaco does not hold the text typed:\n${md(r)}`);
    assert.equal(codeAfter(md(r), '[editor "Script"'), code, md(r));
    ok(await call('browser_type', { target: 'Script', text: '\n// done', clear: false }), 'append');
    assert.equal(outputOf(md(await call('browser_get_page', {})), 'Editor text:'), code + '\n// done');
    ok(await call('browser_press_key', { target: 'Script', key: 'Control+a' }), 'Ctrl+A');
    r = await call('browser_press_key', { target: 'Script', key: 'Backspace' });
    ok(r, 'Backspace');
    assert.equal(outputOf(md(r), 'Editor text:'), '');
    assert.match(md(r), /\[editor "Script" empty e\d+\]/);
  });
}

test('monaco: a long document shows the lines drawn, says so, and scrolling the editor shows the next ones', async () => {
  let r = await open('editor-monaco.html?long', /\[editor "Script"/);
  assert.match(md(r), /Editor text: 200 lines/);
  assert.match(md(r), /\[editor "Script" partly drawn e\d+\]/, md(r));
  assert.match(md(r), /\[… only \d+ lines are drawn by the page: scroll the editor to read the others …\]/);
  const code = codeAfter(md(r), '[editor "Script"');
  assert.match(code, /^\/\/ line 1 of the long script$/m);
  assert.doesNotMatch(code, /line 40 of the long/);
  r = await call('browser_scroll', { target: 'Script', direction: 'down' });
  ok(r, 'scroll');
  assert.match(r.result.message, /^Scrolled \[editor "Script" e\d+\] down with its PageDown key/);
  const after = codeAfter(md(r), '[editor "Script"');
  assert.notEqual(after, code, 'the editor shows the same lines');
  assert.doesNotMatch(after, /^\/\/ line 1 of the long script$/m, after);
  r = await call('browser_scroll', { target: 'Script', direction: 'bottom' });
  ok(r, 'scroll to the bottom');
  assert.match(codeAfter(md(r), '[editor "Script"'), /^\/\/ line 200 of the long script$/m);
});

// ---------------------------------------------------------------- rich-text editors

// TinyMCE hides the <textarea> its <label> names and puts its editor (an iframe) after it: typing
// by the label a user reads was "not visible to a user"; a person clicks the editor and types.
test('tinymce: typing by the textarea\'s label goes into the editor put after it, and both the Markdown and getContent() have it', async () => {
  for (let run = 0; run < 3; run++) {
    let r = await open('editor-tinymce.html', /Rich Text Area/);
    if (!/Opening \*\*paragraph\*\*/.test(md(r))) r = await call('browser_wait_for', { text: 'Opening' });
    assert.match(md(r), /Opening \*\*paragraph\*\*/, md(r));
    r = await call('browser_type', { target: 'Article', text: 'New text\nsecond line' });
    ok(r, 'type by the label Article');
    assert.match(r.result?.message || '', /through \[(editor|editable) "Rich Text Area/, msg(r));
    assert.doesNotMatch(r.result?.message || '', /something else|did not take/, msg(r));
    assert.match(md(r), /^> New text\n>\n> second line$/m, md(r));
    assert.doesNotMatch(md(r), /Opening/, 'the old content was not replaced');
    assert.match(md(r), /Editor content: <p>New text<\/p>\s*<p>second line<\/p>/, 'TinyMCE\'s own content does not have the text');
    r = await call('browser_type', { target: 'Article', text: ' end', clear: false });
    ok(r, 'append');
    assert.match(md(r), /Editor content: <p>New text<\/p>\s*<p>second line end<\/p>/, md(r));
  }
});

// TinyMCE's editable body, in its iframe, is that document's focused element even while the iframe
// has no focus: trusted typing by the editor's own name took it as focused, clicked nothing first,
// and the keys went to the page's body ("Typed", the editor unchanged).
test('tinymce: trusted typing by the editor\'s own name on a page just opened goes into the editor', async () => {
  let r = await open('editor-tinymce.html', /Rich Text Area/);
  if (!/Opening \*\*paragraph\*\*/.test(md(r))) r = await call('browser_wait_for', { text: 'Opening' });
  r = await call('browser_type', { target: 'Rich Text Area', text: ' pear', clear: false });
  ok(r, 'type by the editor\'s name');
  assert.doesNotMatch(r.result?.message || '', /went elsewhere|something else|rewrote/, msg(r));
  assert.match(md(r), /Editor content: .*pear/s, md(r));
});

// With TinyMCE's Format menu open, "Italic" named its menu item and the toolbar's button alike:
// "matches 2 elements equally well". A person clicks the item of the menu just opened.
test('tinymce: with a menu open, a name its item shares with a toolbar button clicks the item', async () => {
  await open('editor-tinymce.html?menubar', /Rich Text Area/);
  ok(await call('browser_click', { target: 'Format' }), 'open the Format menu');
  const r = await call('browser_click', { target: 'Italic' });
  ok(r, 'Italic');
  assert.match(r.result?.message || '', /^Clicked \[menuitem\w* "Italic/, msg(r));
});

// Jodit hides its <textarea> and puts its editor box *before* it: typing by the label was "not
// visible to a user" (the editor was looked for after the textarea only).
// Jodit's list buttons are split buttons: the action and the arrow beside it that opens its list of
// styles, both labelled "Insert Unordered List": the click was "ambiguous", where a user clicks the
// action.
test('jodit: a split button\'s name clicks its action, not the arrow beside it', async () => {
  await open('editor-jodit.html');
  ok(await call('browser_type', { target: 'Description', text: 'Milk' }), 'type');
  const r = await call('browser_click', { target: 'Insert Unordered List' });
  ok(r, 'list');
  assert.match(md(r), /Holds: <ul><li>Milk/, md(r));
});

test('jodit: typing by the textarea\'s label goes into the editor put before it, and Jodit holds the text', async () => {
  let r = await open('editor-jodit.html');
  r = await call('browser_type', { target: 'Description', text: 'Hello Jodit\nSecond line' });
  ok(r, 'type by the label Description');
  assert.match(r.result?.message || '', /^Typed 23 characters into \[textarea "Description" e\d+\] through \[editable/, msg(r));
  assert.match(md(r), /Holds: <p>Hello Jodit<\/p><p>Second line(<br>)?<\/p>/, md(r));
  r = await call('browser_type', { target: 'Description', text: 'Replaced', clear: true });
  ok(r, 'clear and type');
  assert.match(md(r), /Holds: <p>Replaced(<br>)?<\/p>/, md(r));
});

test('tiptap: typed text, Ctrl+A with the Bold button, and Ctrl+Z show in the Markdown as getHTML() has them', async () => {
  for (let run = 0; run < 3; run++) {
    let r = await open('editor-tiptap.html');
    assert.match(md(r), /\[editor "Story" e\d+\]\n> Hello \[world\]\(https:\/\/example\.com\/\) and all$/m, md(r));
    r = await call('browser_type', { target: 'Story', text: ', big news', clear: false });
    ok(r, 'append');
    assert.match(md(r), /^> Hello \[world\]\(https:\/\/example\.com\/\) and all, big news$/m, md(r));
    assert.match(md(r), /Editor HTML: <p>Hello <a [^>]*>world<\/a> and all, big news<\/p>/);
    ok(await call('browser_press_key', { target: 'Story', key: 'Control+a' }), 'Ctrl+A');
    r = await call('browser_click', { target: 'Bold' });
    ok(r, 'Bold');
    assert.match(md(r), /^> \*\*Hello\*\* \[\*\*world\*\*\]\(https:\/\/example\.com\/\) \*\*and all, big news\*\*$/m, md(r));
    assert.match(md(r), /Editor HTML: <p><strong>Hello <\/strong>/);
    r = await call('browser_press_key', { target: 'Story', key: 'Control+z' });
    ok(r, 'Ctrl+Z');
    assert.doesNotMatch(md(r), /<strong>/, 'Ctrl+Z did not undo the bold');
  }
});

// Text selected with Shift+ArrowLeft where the focus is (the editor, a textarea) is replaced by the
// text typed next without clear, as a typist's is: trusted typing pressed Control+End first and the
// text went to the end ("Hello worldLD"); Shift+ArrowLeft in a textarea selected nothing.
test('tiptap and a textarea: text selected with Shift+ArrowLeft is replaced by what is typed next', async () => {
  await open('editor-tiptap.html');
  ok(await call('browser_type', { target: 'Story', text: 'Hello world' }), 'type');
  for (let i = 0; i < 2; i++) ok(await call('browser_press_key', { key: 'Shift+ArrowLeft' }), 'select');
  let r = await call('browser_type', { target: 'Story', text: 'LD', clear: false });
  ok(r, 'type over the selection');
  assert.match(md(r), /Editor HTML: <p>Hello worLD<\/p>/, md(r));
  ok(await call('browser_type', { target: 'Notes', text: 'Hello world' }), 'notes');
  for (let i = 0; i < 2; i++) ok(await call('browser_press_key', { key: 'Shift+ArrowLeft' }), 'select in the textarea');
  r = await call('browser_type', { target: 'Notes', text: 'LD', clear: false });
  ok(r, 'type over the textarea selection');
  assert.match(md(r), /Notes now: Hello worLD$/m, md(r));
});

// A typist's "# " or "- " starts a heading or a list in TipTap (ProseMirror's input rules act on
// the text before a space): the whole text inserted at once left "# Title" a paragraph.
test('tiptap: typed Markdown shortcuts act as they do for a typist ("# " a heading, "- " a list, "**b** " bold)', async () => {
  await open('editor-tiptap.html');
  let r = await call('browser_type', { target: 'Story', text: '# Plans' });
  ok(r, 'type a heading');
  assert.match(md(r), /Editor HTML: <h1>Plans<\/h1>/, md(r));
  r = await call('browser_type', { target: 'Story', text: '- milk and **eggs** today' });
  ok(r, 'type a list item with bold');
  assert.match(md(r), /Editor HTML: <ul><li><p>milk and <strong>eggs<\/strong> today<\/p><\/li><\/ul>/, md(r));
});

test('lexical: type replaces the content, Ctrl+A, Bold, Ctrl+Z and Backspace act on the editor as its own text shows', async () => {
  for (let run = 0; run < 3; run++) {
    let r = await open('editor-lexical.html');
    assert.match(md(r), /"Comment" value="First draft"/, md(r));
    r = await call('browser_type', { target: 'Comment', text: 'Line one\nLine (two) "q"' });
    ok(r, 'type');
    // a typed line break is the Enter key, as a typist's: Lexical makes a second paragraph
    assert.match(md(r), /\[editor "Comment" e\d+\]\n> Line one\n>\n> Line \(two\) "q"$/m, md(r));
    assert.equal(outputOf(md(r), 'Editor text:'), 'Line one\n\nLine (two) "q"');
    ok(await call('browser_press_key', { target: 'Comment', key: 'Control+a' }), 'Ctrl+A');
    r = await call('browser_click', { target: 'Bold' });
    ok(r, 'Bold');
    assert.match(md(r), /^> \*\*Line one\*\*$/m, md(r));
    r = await call('browser_press_key', { target: 'Comment', key: 'Control+z' });
    ok(r, 'Ctrl+Z');
    assert.doesNotMatch(md(r), /\*\*Line one/, 'Ctrl+Z did not undo the bold');
    ok(await call('browser_press_key', { target: 'Comment', key: 'Control+a' }), 'Ctrl+A');
    r = await call('browser_press_key', { target: 'Comment', key: 'Backspace' });
    ok(r, 'Backspace');
    assert.equal(outputOf(md(r), 'Editor text:'), '');
  }
});

// ---------------------------------------------------------------- EasyMDE (CodeMirror 5)

// The <textarea> its label names is hidden and CodeMirror 5 drawn after it, taking keys through a
// transparent textarea in its box: typing by the label was "not visible (display:none)".
test('easymde: typed by its label through CodeMirror 5\'s key catcher, lines kept; clear and retype', async () => {
  await open('editor-easymde.html', /New README/);
  let r = await call('browser_type', { target: 'Description', text: '# Notes\nLine two' });
  ok(r, 'type by label');
  assert.equal(outputOf(md(r), 'Holds:'), '# Notes\nLine two');
  // its lines (a <pre> each) are one code block in the Markdown, not a fenced block a line
  assert.match(md(r), /```\n# Notes\nLine two\n```/, md(r));
  r = await call('browser_type', { target: 'Description', text: 'Fresh', clear: true });
  ok(r, 'clear and retype');
  assert.equal(outputOf(md(r), 'Holds:'), 'Fresh');
  r = await call('browser_type', { target: 'Description', text: ' more', clear: false });
  ok(r, 'append');
  assert.equal(outputOf(md(r), 'Holds:'), 'Fresh more');
});

// ---------------------------------------------------------------- Slate

// Trusted typing sent the lines in one insertion (one paragraph holding the line breaks) and
// clicked into the editor before typing on, which dropped the Bold chosen for the next text.
test('slate: typed lines are paragraphs; Bold chosen on its button is kept for the text typed on', async () => {
  await open('editor-slate.html', /Slate note/);
  let r = await call('browser_type', { target: 'Draft', text: 'First line\nSecond line\nThird line' });
  ok(r, 'type lines');
  assert.deepEqual(outputOf(md(r), 'Model:'), ['First line', 'Second line', 'Third line']);
  r = await call('browser_click', { target: 'Bold' });
  ok(r, 'Bold');
  r = await call('browser_type', { target: 'Draft', text: ' strong', clear: false });
  ok(r, 'type on');
  // (a click into it, at its centre, would have moved the caret to the second line)
  assert.deepEqual(outputOf(md(r), 'Model:'), ['First line', 'Second line', 'Third line** strong**']);
});

// Tribute's mention menu opens on the keyup that follows the text typed: text put into a
// contenteditable with no key events never opened it (it did in a textarea), and "Andrew Stone"
// matched nothing.
test('editor-tribute.html: typing "@an" into a contenteditable comment opens its mention menu, and a person is picked from it', async () => {
  await open('editor-tribute.html');
  let r = await call('browser_type', { target: 'Comment', text: 'Hi @an' });
  ok(r, 'type');
  assert.match(md(r), /\[clickable "Andrew Stone" e\d+\]/, md(r));
  r = await call('browser_click', { target: 'Andrew Stone' });
  ok(r, 'pick');
  assert.match(md(r), /Mentions: astone/);
  assert.match(md(r), /Hi @astone/);
});
