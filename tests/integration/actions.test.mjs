// The tools of issue 17 that act on the page (browser_hover, browser_drag, browser_upload_file,
// browser_fill_form, browser_resize), against the real daemon and a scripted browser: every
// malformed, oversized or hostile input is a 400 naming the field; upload reads only regular files
// beneath an upload_dir (and says how to enable it when there is none), sends their bytes to the
// browser and not their paths, and keeps only the paths in history; form values stay out of history.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { startDaemon, connectPeer, tool, api, sql, waitFor, BIN } from './support/harness.mjs';

// The call log's rows of a tool, once the store has written them.
const logged = (daemon, name) => waitFor(`${name} in the call log`, async () => {
  const rows = (await api(daemon, '/api/commands?limit=20', { method: 'GET' })).body.commands.filter((c) => c.tool === name);
  return rows.length ? rows : null;
});

let d, plain, root, up, out;
before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-upload-'));
  up = path.join(root, 'up');
  out = path.join(root, 'out');
  fs.mkdirSync(up);
  fs.mkdirSync(out);
  fs.writeFileSync(path.join(up, 'cv.txt'), 'curriculum vitae');
  fs.writeFileSync(path.join(up, 'photo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]));
  fs.writeFileSync(path.join(out, 'secret.txt'), 'outside');
  fs.symlinkSync(path.join(out, 'secret.txt'), path.join(up, 'link-out'));
  fs.symlinkSync('/proc/self/environ', path.join(up, 'environ'));
  fs.mkdirSync(path.join(up, 'dir'));
  spawnSync('mkfifo', [path.join(up, 'fifo')]);
  fs.writeFileSync(path.join(up, 'huge.bin'), Buffer.alloc(10 * 1024 * 1024 + 1));
  d = await startDaemon({ args: ['--upload-dir', up] });
  plain = await startDaemon();
});
after(async () => {
  await d?.stop();
  await plain?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

// A 400 naming the field, with a message matching re.
async function refused(daemon, name, params, field, re) {
  const r = await tool(daemon, name, params);
  assert.equal(r.status, 400, `${name} ${JSON.stringify(params).slice(0, 200)}: ${r.text.slice(0, 300)}`);
  assert.equal(r.body.error === 'invalid_params' || r.body.error === 'upload_disabled', true, r.text);
  assert.equal(r.body.field, field, r.text);
  assert.match(r.body.message, re);
  return r;
}

test('malformed, oversized and hostile parameters are a 400 naming the field', async () => {
  const long = 'x'.repeat(2001);
  await refused(d, 'browser_hover', {}, 'target', /missing required parameter "target"/);
  await refused(d, 'browser_hover', { target: '' }, 'target', /must not be empty/);
  await refused(d, 'browser_hover', { target: long }, 'target', /at most 2000 bytes/);
  assert.equal((await tool(d, 'browser_hover', { target: 'a\u0000b' })).status, 400);
  await refused(d, 'browser_drag', { target: 'b' }, 'source', /missing required parameter "source"/);
  await refused(d, 'browser_drag', { source: 'a' }, 'target', /missing required parameter "target"/);
  await refused(d, 'browser_drag', { source: 7, target: 'b' }, 'source', /expected a string/);
  await refused(d, 'browser_resize', { width: 800 }, 'height', /missing required/);
  await refused(d, 'browser_resize', { width: 199, height: 600 }, 'width', /integer from 200 to 10000/);
  await refused(d, 'browser_resize', { width: 800, height: 10001 }, 'height', /integer from 200 to 10000/);
  await refused(d, 'browser_resize', { width: '800', height: 600 }, 'width', /expected an integer/);
  await refused(d, 'browser_resize', { width: 800.5, height: 600 }, 'width', /expected an integer/);
  await refused(d, 'browser_fill_form', {}, 'fields', /missing required parameter "fields"/);
  await refused(d, 'browser_fill_form', { fields: [] }, 'fields', /1 to 100 items/);
  await refused(d, 'browser_fill_form', { fields: Array.from({ length: 101 }, () => ({ target: 'a', value: 'b' })) }, 'fields', /1 to 100 items, got 101/);
  await refused(d, 'browser_fill_form', { fields: { target: 'a', value: 'b' } }, 'fields', /expected an array of objects, got an object/);
  await refused(d, 'browser_fill_form', { fields: ['a=b'] }, 'fields[0]', /expected an object, got a string/);
  await refused(d, 'browser_fill_form', { fields: [{ target: 'a', value: 'b' }, { target: 'c' }] }, 'fields[1]', /missing required property "value"/);
  await refused(d, 'browser_fill_form', { fields: [{ target: 'a', value: 'b', selector: 'x' }] }, 'fields[0]', /unknown property "selector" \(it takes: target, value\)/);
  await refused(d, 'browser_fill_form', { fields: [{ target: '', value: 'b' }] }, 'fields[0].target', /must not be empty/);
  await refused(d, 'browser_fill_form', { fields: [{ target: long, value: 'b' }] }, 'fields[0].target', /at most 2000 bytes/);
  await refused(d, 'browser_fill_form', { fields: [{ target: 'a', value: true }] }, 'fields[0].value', /expected a string, got a boolean/);
  await refused(d, 'browser_fill_form', { fields: [{ target: 'a', value: 'v'.repeat(100001) }] }, 'fields[0].value', /at most 100000 bytes/);
  await refused(d, 'browser_upload_file', { target: 'x' }, 'paths', /missing required parameter "paths"/);
  await refused(d, 'browser_upload_file', { target: 'x', paths: [] }, 'paths', /1 to 20 items/);
  await refused(d, 'browser_upload_file', { target: 'x', paths: path.join(up, 'cv.txt') }, 'paths', /expected an array of strings/);
  await refused(d, 'browser_upload_file', { target: 'x', paths: [3] }, 'paths', /expected a string/);
  await refused(d, 'browser_upload_file', { target: 'x', paths: Array(21).fill(path.join(up, 'cv.txt')) }, 'paths', /1 to 20 items/);
  // A key no keyboard has, or a modifier that is none, is refused (it was "pressed" and reported done).
  await refused(d, 'browser_press_key', { key: 'Foo' }, 'key', /^unknown key "Foo": use one character .* or one of Enter, Tab/);
  await refused(d, 'browser_press_key', { key: 'F13' }, 'key', /unknown key "F13"/);
  await refused(d, 'browser_press_key', { key: 'Hyper+a' }, 'key', /"Hyper" in "Hyper\+a" is not a modifier/);
  await refused(d, 'browser_press_key', { key: 'Control+Entr' }, 'key', /unknown key "Entr"/);
  // The daemon keeps serving.
  assert.equal((await api(d, '/api/health', { method: 'GET' })).status, 200);
});

test('upload: nothing outside an upload_dir is read, nor is its existence told', async () => {
  const bad = [
    [path.join(out, 'secret.txt'), /is not beneath an upload_dir/],
    [path.join(out, 'no-such-file'), /is not beneath an upload_dir/],
    ['/etc/passwd', /is not beneath an upload_dir/],
    ['/proc/self/environ', /is not beneath an upload_dir/],
    [`${up}/../out/secret.txt`, /"\.\."/],
    [path.join(up, 'link-out'), /leads out of its upload_dir/],
    [path.join(up, 'environ'), /leads out of its upload_dir/],
    [path.join(up, 'dir'), /is a directory/],
    [path.join(up, 'fifo'), /is not a regular file/],
    [path.join(up, 'missing.txt'), /does not exist in the upload_dir/],
    [path.join(up, 'huge.bin'), /more than the limit of 10485760 bytes per file/],
    ['cv.txt', /is not an absolute path/],
    ['./up/cv.txt', /is not an absolute path/],
    [up, /is an upload_dir itself/],
  ];
  for (const [p, re] of bad) {
    const r = await refused(d, 'browser_upload_file', { target: 'Resume', paths: [path.join(up, 'cv.txt'), p] }, 'paths[1]', re);
    assert.ok(!r.text.includes('outside'), 'the content of a file outside was sent back');
  }
  // The files of one call fit in one WebSocket message as base64: a daemon with a small
  // max_message_bytes takes less per call.
  fs.writeFileSync(path.join(up, 'forty-k.bin'), Buffer.alloc(40 * 1024, 7));
  const small = await startDaemon({ args: ['--upload-dir', up, '--max-message-bytes', '65536'] });
  try {
    await refused(small, 'browser_upload_file', { target: 'x', paths: [path.join(up, 'forty-k.bin')] }, 'paths[0]', /larger than the limit of 36864 bytes together/);
  } finally { await small.stop(); }
  // No upload_dir: the tool says how to enable it.
  const r = await refused(plain, 'browser_upload_file', { target: 'Resume', paths: [path.join(up, 'cv.txt')] }, 'paths', /no upload_dir is configured.*upload_dir = .*--upload-dir/);
  assert.ok(r.body.message.length < 400);
});

test('upload: the browser gets the files (name, type, size, bytes), history keeps only the paths', async () => {
  const peer = await connectPeer(d, { clientId: 'upload-peer' });
  try {
    const r = await tool(d, 'browser_upload_file', { target: 'Resume', paths: [path.join(up, 'cv.txt'), `${up}//./photo.png`] });
    assert.equal(r.status, 200, r.text);
    const cmd = peer.commands.at(-1);
    assert.equal(cmd.command, 'upload_file');
    assert.equal(cmd.paths, undefined, 'the paths are not sent to the browser');
    assert.deepEqual(cmd.files.map((f) => [f.name, f.type, f.size, Buffer.from(f.data, 'base64').toString('hex')]), [
      ['cv.txt', 'text/plain', 16, Buffer.from('curriculum vitae').toString('hex')],
      ['photo.png', 'image/png', 8, '89504e47000102ff'],
    ]);
    const rows = JSON.stringify(await logged(d, 'browser_upload_file'));
    assert.ok(rows.includes('cv.txt') && !rows.includes(Buffer.from('curriculum vitae').toString('base64')), 'the bytes reached history');
  } finally { peer.close(); }
});

test('upload: at most 4 uploads are in progress at once; the next is a 503 until one has finished', async () => {
  const held = [];
  // Uploads are held until the test answers them; anything else is answered at once.
  const peer = await connectPeer(d, { clientId: 'slow-peer', answer: (cmd, pr) => { if (cmd.command === 'upload_file') held.push(cmd); else pr.result(cmd.requestId); } });
  try {
    const file = path.join(up, 'cv.txt');
    const calls = [1, 2, 3, 4].map(() => tool(d, 'browser_upload_file', { target: 'Resume', paths: [file], wait_for_page_info: false, client_id: 'slow-peer' }));
    await waitFor('4 uploads at the browser', () => held.length === 4);
    let r = await tool(d, 'browser_upload_file', { target: 'Resume', paths: [file], wait_for_page_info: false, client_id: 'slow-peer' });
    assert.equal(r.status, 503, r.text);
    assert.equal(r.body.error, 'busy');
    assert.match(r.body.message, /4 uploads are in progress/);
    // Other tools are not held up.
    r = await tool(d, 'browser_hover', { target: 'x', wait_for_page_info: false, client_id: 'slow-peer' });
    assert.equal(r.status, 200, r.text);
    peer.result(held.shift().requestId);
    assert.equal((await calls[0]).status, 200);
    const next = tool(d, 'browser_upload_file', { target: 'Resume', paths: [file], wait_for_page_info: false, client_id: 'slow-peer' });
    await waitFor('the fifth upload at the browser', () => held.length === 4);
    for (const c of held.splice(0)) peer.result(c.requestId);
    assert.equal((await next).status, 200);
    for (const c of calls.slice(1)) assert.equal((await c).status, 200);
  } finally { peer.close(); }
});

test('fill_form: the browser gets the values, history only their lengths', async () => {
  const peer = await connectPeer(d, { clientId: 'form-peer' });
  try {
    const fields = [{ target: 'Name', value: 'Ada' }, { target: 'Password', value: 'hunter2-form-secret' }, { target: 'input[name=x]', value: 'true' }];
    const r = await tool(d, 'browser_fill_form', { fields });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(peer.commands.at(-1).fields, fields);
    const rows = await logged(d, 'browser_fill_form');
    assert.ok(!JSON.stringify(rows).includes('hunter2-form-secret'), 'a form value reached the call log');
    const row = rows[0];
    assert.deepEqual(row.params.fields, [
      { target: 'Name', value: '[3 characters, not kept]' },
      { target: 'Password', value: '[19 characters, not kept]' },
      { target: 'input[name=x]', value: '[4 characters, not kept]' },
    ]);
    assert.ok(!sql(d.db, 'SELECT params FROM commands').includes('hunter2'));
  } finally { peer.close(); }
});

test('config and CLI: upload_dir must be an existing directory; fill takes --field TARGET=VALUE, upload PATH...', async () => {
  const r = spawnSync(BIN, ['serve', '--config', '/dev/null', '--upload-dir', 'relative/dir', '--http', '127.0.0.1:1'], { encoding: 'utf8', timeout: 5000 });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /upload_dir: "relative\/dir" is not an absolute path/);
  const r2 = spawnSync(BIN, ['serve', '--config', '/dev/null', '--upload-dir', path.join(root, 'nope'), '--http', '127.0.0.1:1'], { encoding: 'utf8', timeout: 5000 });
  assert.notEqual(r2.status, 0);
  assert.match(r2.stderr, /upload_dir: ".*nope" is not an existing directory/);
  const help = execFileSync(BIN, ['fill', '--help'], { encoding: 'utf8' });
  assert.match(help, /--field TARGET=VALUE/);
  assert.match(execFileSync(BIN, ['upload', '--help'], { encoding: 'utf8' }), /usage: browser-bridge upload TARGET PATH\.\.\./);
  assert.match(execFileSync(BIN, ['serve', '--help'], { encoding: 'utf8' }), /--upload-dir DIR/);
  // The CLI builds the same calls (against the scripted browser).
  const peer = await connectPeer(d, { clientId: 'cli-peer' });
  try {
    // Asynchronously: the scripted browser answers from this process's event loop.
    const cli = (...a) => new Promise((resolve) => execFile(BIN, [...a, '--config', '/dev/null', '--token-file', d.tokenFile, '--http', `127.0.0.1:${d.httpPort}`],
      { encoding: 'utf8', timeout: 10000, cwd: up }, (err, stdout, stderr) => resolve({ status: err ? (err.code ?? 1) : 0, stdout, stderr })));
    let c = await cli('fill', '--field', 'input[name=email]=a=b@example.org', '--field', 'Remember me=true');
    assert.equal(c.status, 0, c.stderr + c.stdout);
    assert.deepEqual(peer.commands.at(-1).fields, [{ target: 'input[name=email]', value: 'a=b@example.org' }, { target: 'Remember me', value: 'true' }]);
    c = await cli('fill', '--field', 'no-equals-sign');
    assert.notEqual(c.status, 0);
    assert.match(c.stderr, /expected TARGET=VALUE/);
    c = await cli('upload', 'Resume', path.join(up, 'cv.txt'), path.join(up, 'photo.png'));
    assert.equal(c.status, 0, c.stderr + c.stdout);
    assert.deepEqual(peer.commands.at(-1).files.map((f) => f.name), ['cv.txt', 'photo.png']);
    // A relative PATH is taken from the CLI's working directory (here the upload_dir).
    c = await cli('upload', 'Resume', 'cv.txt');
    assert.equal(c.status, 0, c.stderr + c.stdout);
    assert.equal(Buffer.from(peer.commands.at(-1).files[0].data, 'base64').toString(), 'curriculum vitae');
    c = await cli('call', 'browser_upload_file', 'target=Resume', 'paths=cv.txt,photo.png');
    assert.equal(c.status, 0, c.stderr + c.stdout);
    assert.deepEqual(peer.commands.at(-1).files.map((f) => f.name), ['cv.txt', 'photo.png']);
    c = await cli('resize', '640', '480');
    assert.equal(c.status, 0, c.stderr + c.stdout);
    assert.deepEqual([peer.commands.at(-1).width, peer.commands.at(-1).height], [640, 480]);
    c = await cli('drag', 'Item A', 'Item C');
    assert.equal(c.status, 0, c.stderr + c.stdout);
    assert.deepEqual([peer.commands.at(-1).source, peer.commands.at(-1).target], ['Item A', 'Item C']);
  } finally { peer.close(); }
});
