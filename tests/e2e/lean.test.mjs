// End-to-end (issue 16, lean answers): in real Chromium with the real extension, an element keeps
// its ref across snapshots of the same document over a sequence of actions that add, remove, show
// and hide elements and type; an action on the same document answers with page.changes (refs
// intact), a navigation with the whole page; snapshot full/none; browser_get_page's selector and
// paging.
//   node --test tests/e2e/lean.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './support/harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const ok = (r) => { assert.equal(r.status, 'success', `expected success, got ${r.http} ${JSON.stringify(r.result || r.message)}`); return r; };
// The harness asks for snapshot "full" unless told otherwise; here the default is the daemon's.
const call = async (tool, params) => ok(await env.call(tool, { snapshot: 'auto', ...params }));

// Every token with a label in the Markdown: "button Remove Milk" -> "e7", plus links "link Next page".
function refs(md) {
  const out = new Map();
  for (const m of md.matchAll(/\[(\w+) "([^"]*)"[^\]]*?\b(e\d+)\]/g)) out.set(`${m[1]} ${m[2]}`, m[3]);
  for (const m of md.matchAll(/\[([^\]]+)\]\([^)]*\) \[(e\d+)\]/g)) out.set(`link ${m[1]}`, m[2]);
  return out;
}

test('refs hold still across snapshots of the same document', async () => {
  const steps = [];
  const snap = async (tool, params) => { const r = await call(tool, { ...params, snapshot: 'full' }); steps.push({ what: `${tool} ${JSON.stringify(params)}`, refs: refs(r.page.markdown), md: r.page.markdown }); return r; };
  await snap('browser_open_url', { url: env.url('/lean.html') });
  assert.ok(steps[0].refs.get('button Remove Milk'), steps[0].md);
  await snap('browser_click', { target: 'Add item' });                       // adds Item 1
  await snap('browser_type', { target: 'Item name', text: 'Jam' });          // a value changes
  await snap('browser_click', { target: 'Add item' });                       // adds Jam
  await snap('browser_click', { target: 'Remove Eggs' });                    // removes a row
  await snap('browser_click', { target: 'Bought Milk' });                    // checks a box
  await snap('browser_click', { target: 'Show details' });                   // shows a section
  await snap('browser_click', { target: 'Show details' });                   // hides it
  await snap('browser_click', { target: 'Show details' });                   // shows it again
  { // a page that fits the window does not scroll: an error, with the page as it stands
    const r = await env.call('browser_scroll', { direction: 'bottom', snapshot: 'full' });
    assert.match(r.result?.error || '', /does not scroll/, JSON.stringify(r.result));
    steps.push({ what: 'browser_scroll bottom', refs: refs(r.page.markdown), md: r.page.markdown });
  }
  await snap('browser_get_page', {});
  // Every element seen in two snapshots has the same ref in both; no ref names two elements.
  const first = new Map();
  for (const s of steps) {
    const byRef = new Map();
    for (const [label, ref] of s.refs) {
      if (first.has(label)) assert.equal(ref, first.get(label), `${label} changed ref at "${s.what}"`);
      else first.set(label, ref);
      assert.ok(!byRef.has(ref) || byRef.get(ref) === label, `${ref} names two elements at "${s.what}"`);
      byRef.set(ref, label);
    }
  }
  const all = [...first.values()];
  assert.equal(new Set(all).size, all.length, 'a ref is never given to another element');
  // the ones that came and went and came back, and the new ones, are all there
  const last = steps.at(-1).refs;
  for (const label of ['button Remove Milk', 'button Remove Bread', 'button Remove Item 1', 'button Remove Jam', 'button Change day', 'button Add item', 'link Next page'])
    assert.equal(last.get(label), first.get(label), label);
  assert.equal(last.get('button Remove Eggs'), undefined, 'the removed row is gone');
  // a ref taken from the first snapshot still acts on its element
  await call('browser_click', { target: first.get('button Remove Bread'), snapshot: 'none' });
  const after = await call('browser_get_page', {});
  assert.doesNotMatch(after.page.markdown, /Remove Bread/);
});

test('auto: changes on the same document, with refs; the whole page after a navigation', async () => {
  let r = await call('browser_open_url', { url: env.url('/lean.html'), snapshot: 'auto' });
  assert.match(r.page.markdown, /# Groceries/, 'a new document: the whole page');
  assert.equal(r.page.changes, undefined);
  const before = refs(r.page.markdown);
  r = await call('browser_type', { target: 'Item name', text: 'Butter' });
  r = await call('browser_click', { target: 'Add item' });
  assert.equal(r.page.markdown, undefined, JSON.stringify(r.page));
  assert.equal(typeof r.page.changes, 'string');
  assert.match(r.page.changes, /^@@ -\d+,\d+ \+\d+,\d+ @@\n/);
  const added = r.page.changes.split('\n').filter((l) => l.startsWith('+')).join('\n');
  assert.match(added, /Butter/);
  assert.match(added, /\[button "Remove Butter" e\d+\]/, 'the new element has its ref in the changes');
  assert.match(r.page.changes, /-3 items\n\+4 items/);
  assert.doesNotMatch(r.page.changes, /Footer text/, 'unchanged parts are not repeated');
  assert.ok(r.page.history_id > 0);
  assert.match(r.page.url, /lean\.html$/);
  assert.equal(r.page.title, 'Lean answers');
  // the lines it shows keep the refs of the page before
  for (const m of r.page.changes.matchAll(/^[ -].*\[button "(Remove \w+)" (e\d+)\]/gm)) assert.equal(m[2], before.get(`button ${m[1]}`));
  // the answer is a fraction of the page; history has the whole page
  const h = await fetch(`${env.daemon.httpUrl}/api/history/${r.page.history_id}`, { headers: { authorization: `Bearer ${env.daemon.token}` } }).then((x) => x.json());
  assert.match(h.markdown, /# Groceries[\s\S]*Remove Butter[\s\S]*Footer text/);
  assert.ok(r.page.changes.length < h.markdown.length / 2, `${r.page.changes.length} vs ${h.markdown.length}`);
  // none: nothing of the page; full: the whole page
  r = await call('browser_click', { target: 'Show details', snapshot: 'none' });
  assert.equal(r.page.markdown, undefined);
  assert.equal(r.page.changes, undefined);
  r = await call('browser_click', { target: 'Show details', snapshot: 'full' });
  assert.match(r.page.markdown, /# Groceries/);
  // a navigation: the whole page of the new document
  r = await call('browser_click', { target: 'Next page' });
  assert.match(r.page.markdown, /# Page two/);
  assert.equal(r.page.changes, undefined);
  // back: another document again (a new load, or the one from the back/forward cache); whole or changes, never wrong
  r = await call('browser_back', {});
  if (r.page.markdown === undefined) assert.equal(typeof r.page.changes, 'string');
  else assert.match(r.page.markdown, /# Groceries/);
});

test('browser_get_page: selector and paging, refs kept', async () => {
  const whole = (await call('browser_open_url', { url: env.url('/lean.html'), snapshot: 'full' })).page.markdown;
  await call('browser_click', { target: 'Show details' });
  const full = (await call('browser_get_page', {})).page.markdown;
  let r = await call('browser_get_page', { selector: '#details' });
  assert.match(r.page.markdown, /^## Details/);
  assert.doesNotMatch(r.page.markdown, /Groceries|Remove Milk/);
  assert.equal(refs(r.page.markdown).get('button Change day'), refs(full).get('button Change day'));
  assert.equal(r.result.selection, undefined);
  const bad = await env.call('browser_get_page', { selector: '#nothing-here' });
  assert.equal(bad.status, 'error');
  assert.match(bad.result.error, /no element matches the selector "#nothing-here"/);
  r = await call('browser_get_page', { max_chars: 50 });
  assert.equal(r.page.markdown, full.slice(0, 50));
  assert.equal(r.page.total_chars, [...full].length);
  assert.equal(r.page.next_offset, 50);
  let text = r.page.markdown;
  while (r.page.next_offset !== null) {
    r = await call('browser_get_page', { offset: r.page.next_offset, max_chars: 200 });
    text += r.page.markdown;
  }
  assert.equal(text, full);
  assert.equal(r.page.remaining_chars, 0);
  assert.ok(whole.length > 0);
});
