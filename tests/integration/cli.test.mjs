// The command-line client against the real daemon and a scripted browser: exit codes, output,
// flags that become tool parameters, history round-trip, screenshots and help.
//   BB_BIN=/path/to/browser-bridge node --test tests/integration/cli.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import WebSocket from 'ws';
import { rng, helloFor } from './support/harness.mjs';

const BIN = process.env.BB_BIN || '/work/main/browser-bridge';
const EXT_ORIGIN = 'chrome-extension://lpjafomjfpchgbopnmlebcocfkelgpgo';

// A real 24x16 RGBA PNG of deterministic noise, so its base64 uses every character class (+ and / too).
function crc32(buf) {
  let c = ~0;
  for (const b of buf) { c ^= b; for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1)); }
  return ~c >>> 0;
}
function makePng(w, h) {
  const chunk = (type, data) => {
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4); ihdr[8] = 8; ihdr[9] = 6;
  const raw = Buffer.alloc(h * (1 + 4 * w));
  let x = 12345;
  for (let i = 0; i < raw.length; i++) { x = (x * 1103515245 + 12345) >>> 0; raw[i] = i % (1 + 4 * w) === 0 ? 0 : x >>> 24; }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
const PNG = makePng(24, 16);
// An 8 MiB page (with multi-byte characters), as large as the extension sends.
const BIG = `# Big page é\n\n${'abcdefg\n'.repeat(1 << 20)}`;
const PNG_B64 = PNG.toString('base64');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-cli-'));
const tokenFile = path.join(dir, 'tok');
const env = { ...process.env, XDG_CONFIG_HOME: dir, XDG_DATA_HOME: dir, HOME: dir };
let httpPort, wsPort, daemon, daemonLog = '', browser;

// Run the client; resolves with {code, stdout, stderr} (never rejects on a non-zero exit).
function cli(args, { common = true, stdoutEncoding = 'utf8' } = {}) {
  const full = common ? [...args, '--config', '/dev/null', '--token-file', tokenFile, '--http', `127.0.0.1:${httpPort}`] : args;
  return new Promise((resolve) => {
    execFile(BIN, full, { env, encoding: stdoutEncoding, maxBuffer: 64 << 20, timeout: 60000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

// The scripted browser: answers every command from the daemon the way the extension would, except
// target "missing" (an error), target "slow" (never answered).
async function connectBrowser() {
  const token = fs.readFileSync(tokenFile, 'utf8').trim();
  const ws = new WebSocket(`ws://127.0.0.1:${wsPort}/ws/browser`, { headers: { Origin: EXT_ORIGIN } });
  const b = { ws, commands: [] };
  const send = (type, data) => ws.send(JSON.stringify({ type, data }));
  const welcome = new Promise((resolve, reject) => {
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString());
      if (m.type === 'challenge') {
        send('hello', helloFor(m.data.nonce, token, { clientId: 'cli-test', browser: 'Scripted', browserVersion: '1.0', extensionVersion: '1.0',
          capabilities: ['open_url', 'click', 'type', 'press_key', 'scroll', 'get_page', 'list_tabs', 'switch_tab', 'screenshot', 'wait_for'] }));
      }
      if (m.type === 'welcome') resolve(m.data);
      if (m.type !== 'command') return;
      const c = m.data;
      b.commands.push(c);
      const rid = c.requestId;
      if (c.target === 'slow') return;
      if (c.target === 'missing') {
        send('command_result', { requestId: rid, status: 'error', message: 'failed', error: 'no element matches "missing"; closest: [e1] "Login"', pageFollows: false });
        return;
      }
      let result = {};
      if (c.command === 'screenshot') result = { mimeType: 'image/png', data: PNG_B64, width: 24, height: 16 };
      if (c.command === 'list_tabs') {
        result = { tabs: [{ tabId: 3, windowId: 1, url: 'http://127.0.0.1/one', title: 'First tab', active: true },
          { tabId: 7, windowId: 1, url: 'http://127.0.0.1/two', title: 'Second tab', active: false }] };
      }
      send('command_result', { requestId: rid, status: 'success', message: `did ${c.command}`, result });
      if (c.wait_for_page_info && c.target === 'big') {
        send('pageInfoUpdate', { requestId: rid, tabId: 3, url: 'http://127.0.0.1/big', title: 'Big', markdown: BIG });
      } else if (c.wait_for_page_info) {
        const what = c.url ?? c.target ?? c.key ?? c.command;
        send('pageInfoUpdate', { requestId: rid, tabId: c.tabId ?? 3, url: c.url ?? `http://127.0.0.1/${c.command}`,
          title: `Page after ${c.command}`, markdown: `# Page after ${c.command}\n\nAbout zebra-${c.command}: ${what}\n` });
      }
    });
    ws.on('error', reject);
    ws.on('close', (code) => reject(new Error(`browser closed ${code}`)));
  });
  await new Promise((resolve, reject) => { ws.on('open', resolve); ws.on('error', reject); });
  await welcome; // the hello goes out when the daemon's challenge arrives
  return b;
}

before(async () => {
  httpPort = await freePort();
  wsPort = await freePort();
  daemon = spawn(BIN, ['serve', '--http', `127.0.0.1:${httpPort}`, '--ws', `127.0.0.1:${wsPort}`,
    '--db', path.join(dir, 'h.db'), '--token-file', tokenFile, '--config', '/dev/null'],
  { env, stdio: ['ignore', 'pipe', 'pipe'] });
  daemon.stdout.on('data', (d) => { daemonLog += d; });
  daemon.stderr.on('data', (d) => { daemonLog += d; });
  for (let i = 0; ; i++) {
    assert.ok(i < 200, `daemon did not start: ${daemonLog}`);
    assert.equal(daemon.exitCode, null, `daemon exited: ${daemonLog}`);
    try { if ((await fetch(`http://127.0.0.1:${httpPort}/api/health`)).ok) break; } catch { /* not yet */ }
    await sleep(50);
  }
});

after(async () => {
  browser?.ws.close();
  if (daemon && daemon.exitCode === null) { daemon.kill('SIGTERM'); await new Promise((r) => daemon.on('exit', r)); }
  fs.rmSync(dir, { recursive: true, force: true });
});

const lastCommand = () => browser.commands.at(-1);

test('bad command lines exit 2 without contacting anyone', async () => {
  for (const args of [['open', 'http://x/', '--bogus'], ['open'], ['click', 'a', 'b'], ['scroll', 'sideways'],
    ['page', '--timeout', '5'], ['page', '--tab', 'x'], ['call', 'browser_nope'], ['call', 'press-key', 'nokey'],
    ['call', 'press-key', 'key=Enter', 'bogus=1'], ['history', '--limit', '0'], ['show', 'abc'], ['type', 'e1', 'x', '--no-submitt']]) {
    const r = await cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.code} ${r.stderr}`);
    assert.match(r.stderr, /browser-bridge \S+: /, args.join(' '));
    assert.equal(r.stdout, '');
  }
});

test('no browser connected: exit 3', async () => {
  const r = await cli(['page']);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /no browser is connected/);
});

test('nothing listening: exit 5 with a hint', async () => {
  const r = await cli(['page', '--http', `127.0.0.1:${await freePort()}`], { common: false });
  assert.equal(r.code, 5, r.stderr);
  assert.match(r.stderr, /is the daemon running\? \(browser-bridge serve\)/);
});

test('wrong token: exit 5', async () => {
  const bad = path.join(dir, 'bad-token');
  fs.writeFileSync(bad, 'x'.repeat(43) + '\n', { mode: 0o600 });
  const r = await cli(['status', '--config', '/dev/null', '--token-file', bad, '--http', `127.0.0.1:${httpPort}`], { common: false });
  assert.equal(r.code, 5, r.stderr);
  assert.match(r.stderr, /401/);
});

test('tools lists the catalog; --json is the full catalog', async () => {
  const r = await cli(['tools']);
  assert.equal(r.code, 0, r.stderr);
  const j = await cli(['tools', '--json']);
  assert.equal(j.code, 0, j.stderr);
  const cat = JSON.parse(j.stdout).tools;
  assert.ok(cat.length >= 15);
  for (const t of cat) {
    assert.ok(r.stdout.includes(t.name), t.name);
    assert.equal(t.input_schema.type, 'object');
  }
  assert.match(r.stdout, /browser_press_key\s+press\s/);
});

test('--help for every subcommand exits 0 and shows the tool description', async () => {
  const cat = JSON.parse((await cli(['tools', '--json'])).stdout).tools;
  const desc = Object.fromEntries(cat.map((t) => [t.name, t.description]));
  const flat = (s) => s.replace(/\s+/g, ' ');
  const commands = { open: 'browser_open_url', click: 'browser_click', type: 'browser_type', press: 'browser_press_key',
    scroll: 'browser_scroll', select: 'browser_select_option', back: 'browser_back', forward: 'browser_forward',
    reload: 'browser_reload', page: 'browser_get_page', tabs: 'browser_list_tabs', 'switch-tab': 'browser_switch_tab',
    'close-tab': 'browser_close_tab', screenshot: 'browser_screenshot', 'wait-for': 'browser_wait_for',
    dialog: 'browser_handle_dialog', call: null, history: null, show: null, status: null, tools: null };
  for (const [cmd, t] of Object.entries(commands)) {
    const r = await cli([cmd, '--help'], { common: false });
    assert.equal(r.code, 0, `${cmd}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^usage: browser-bridge ${cmd}`), cmd);
    assert.match(r.stdout, /Exit status/, cmd);
    if (t) assert.ok(flat(r.stdout).includes(desc[t]), `${cmd} --help lacks the description of ${t}`);
  }
  const t = await cli(['type', '--help'], { common: false });
  assert.match(t.stdout, /--no-clear/);
  assert.match(t.stdout, /--submit/);
  const c = await cli(['call', 'browser_scroll', '--help'], { common: false });
  assert.equal(c.code, 0);
  assert.ok(flat(c.stdout).includes(desc.browser_scroll));
  assert.match(c.stdout, /direction=/);
  const top = await cli(['--help'], { common: false });
  assert.equal(top.code, 0);
  for (const cmd of Object.keys(commands)) assert.match(top.stdout, new RegExp(`^  ${cmd} `, 'm'), cmd);
});

test('with a browser: open prints the Markdown on stdout and the summary on stderr', async () => {
  browser = await connectBrowser();
  const r = await cli(['open', 'http://127.0.0.1/start', '--new-tab']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '# Page after open_url\n\nAbout zebra-open_url: http://127.0.0.1/start\n');
  assert.match(r.stderr, /^Opened http:\/\/127\.0\.0\.1\/start; the page is now at \S+, titled "Page after open_url"/);
  assert.equal(lastCommand().command, 'open_url');
  assert.equal(lastCommand().new_tab, true);
});

test('flags become parameters: type, press, scroll, select, switch-tab, wait-for, --tab, --no-page', async () => {
  let r = await cli(['type', 'e1', 'hello world', '--submit', '--no-clear', '--tab', '3']);
  assert.equal(r.code, 0, r.stderr);
  let c = lastCommand();
  assert.deepEqual([c.command, c.target, c.text, c.submit, c.clear, c.tabId], ['type', 'e1', 'hello world', true, false, 3]);
  r = await cli(['press', 'Enter']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(lastCommand().key, 'Enter');
  r = await cli(['scroll']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(lastCommand().command, 'scroll');
  assert.equal(lastCommand().direction, 'down'); // the default the schema states
  r = await cli(['scroll', 'up', '--amount', '300']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([lastCommand().direction, lastCommand().amount], ['up', 300]);
  r = await cli(['select', 'Country', 'France']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([lastCommand().command, lastCommand().value], ['select_option', 'France']);
  r = await cli(['click', 'notes.txt', '--button', 'right', '--double-click', '--modifiers', 'Control,Shift']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([lastCommand().button, lastCommand().double_click, lastCommand().modifiers], ['right', true, ['Control', 'Shift']]);
  r = await cli(['click', 'notes.txt', '--modifiers', 'Hyper']);
  assert.notEqual(r.code, 0, 'an unknown key');
  assert.match(r.stderr, /"Hyper" is not one of Alt, Control, Meta, Shift/);
  r = await cli(['select', 'Colors', '--values', 'Red,Blue']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([lastCommand().command, lastCommand().values, lastCommand().value], ['select_option', ['Red', 'Blue'], undefined]);
  r = await cli(['select', 'Colors']);
  assert.notEqual(r.code, 0, 'neither value nor values');
  assert.match(r.stderr, /needs value \(one option\) or values/);
  r = await cli(['switch-tab', '7']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([lastCommand().command, lastCommand().tabId], ['switch_tab', 7]);
  r = await cli(['wait-for', 'Done', '--state', 'hidden']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([lastCommand().command, lastCommand().text, lastCommand().state], ['wait_for', 'Done', 'hidden']);
  for (const cmd of ['back', 'forward', 'reload']) {
    r = await cli([cmd]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(lastCommand().command, cmd);
  }
  r = await cli(['click', 'e5', '--no-page']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(lastCommand().wait_for_page_info, false);
  assert.equal(r.stdout, '');
  r = await cli(['close-tab', '7']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([lastCommand().command, lastCommand().tabId], ['close_tab', 7]);
  r = await cli(['dialog', 'true', '--prompt-text', 'Ada']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([lastCommand().command, lastCommand().accept, lastCommand().prompt_text], ['handle_dialog', true, 'Ada']);
  r = await cli(['dialog', 'maybe']);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /ACCEPT: expected true or false, got "maybe"/);
});

test('call: key=value typed by the schema, --json-params, short tool names', async () => {
  let r = await cli(['call', 'browser_press_key', 'key=Tab', 'tab_id=3', 'wait_for_page_info=false']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([lastCommand().key, lastCommand().tabId, lastCommand().wait_for_page_info], ['Tab', 3, false]);
  r = await cli(['call', 'scroll', '--json-params', '{"direction": "bottom", "amount": 5}', 'amount=9']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([lastCommand().direction, lastCommand().amount], ['bottom', 9]);
  r = await cli(['call', 'press-key', 'key=a', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).tool, 'browser_press_key');
});

test('--json prints the daemon answer', async () => {
  const r = await cli(['click', 'Login', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.status, 'success');
  assert.equal(j.tool, 'browser_click');
  assert.match(j.page.markdown, /zebra-click: Login/);
  assert.ok(Number.isInteger(j.page.history_id));
  assert.equal(r.stderr, '');
});

test('an 8 MiB page arrives whole', async () => {
  const r = await cli(['click', 'big']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.length, BIG.length);
  assert.ok(r.stdout === BIG, 'the Markdown differs');
  const j = await cli(['click', 'big', '--json']);
  assert.equal(JSON.parse(j.stdout).page.markdown, BIG);
});

test('a tool error exits 1 with the reason on stderr', async () => {
  const r = await cli(['click', 'missing']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /Could not click "missing": no element matches "missing"/);
  assert.equal(r.stdout, '');
  const j = await cli(['click', 'missing', '--json']);
  assert.equal(j.code, 1);
  assert.equal(JSON.parse(j.stdout).status, 'error');
});

test('a browser that does not answer: exit 4 after --timeout', async () => {
  const t0 = Date.now();
  const r = await cli(['click', 'slow', '--timeout', '300']);
  assert.equal(r.code, 4, r.stderr);
  assert.match(r.stderr, /No answer from the browser within 300 ms/);
  assert.ok(Date.now() - t0 < 10000);
});

test('tabs prints a table, --json the result', async () => {
  const r = await cli(['tabs']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^\*\s+3\s+First tab\s+http:\/\/127\.0\.0\.1\/one$/m);
  assert.match(r.stdout, /^\s+7\s+Second tab\s+http:\/\/127\.0\.0\.1\/two$/m);
  const j = JSON.parse((await cli(['tabs', '--json'])).stdout);
  assert.equal(j.result.tabs.length, 2);
});

test('screenshot FILE writes a valid PNG', async () => {
  const file = path.join(dir, 'shot.png');
  const r = await cli(['screenshot', file]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(PNG_B64, /\+/);
  assert.match(PNG_B64, /\//);
  const png = fs.readFileSync(file);
  assert.deepEqual(png, PNG);
  assert.deepEqual(png.subarray(0, 8), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  assert.equal(png.toString('latin1', 12, 16), 'IHDR');
  const w = png.readUInt32BE(16), h = png.readUInt32BE(20);
  assert.deepEqual([w, h], [24, 16]);
  const idat = [];
  for (let o = 8; o < png.length;) {
    const len = png.readUInt32BE(o), type = png.toString('latin1', o + 4, o + 8);
    assert.equal(png.readUInt32BE(o + 8 + len), crc32(png.subarray(o + 4, o + 8 + len)), `CRC of ${type}`);
    if (type === 'IDAT') idat.push(png.subarray(o + 8, o + 8 + len));
    o += 12 + len;
  }
  assert.equal(zlib.inflateSync(Buffer.concat(idat)).length, h * (1 + 4 * w));
  const out = await cli(['screenshot', '-'], { stdoutEncoding: 'buffer' });
  assert.equal(out.code, 0);
  assert.deepEqual(out.stdout, png);
  const bad = await cli(['screenshot', path.join(dir, 'no/such/dir.png')]);
  assert.equal(bad.code, 1);
  const missing = await cli(['screenshot']);
  assert.equal(missing.code, 2);
});

test('history lists the pages; show prints one; the query filters', async () => {
  const page = JSON.parse((await cli(['page', '--json'])).stdout).page;
  let r = await cli(['history']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.match(lines[0], /ID\s+LAST SEEN\s+CAPTURES\s+TITLE\s+URL/);
  assert.match(lines[1], new RegExp(`^\\s*${page.history_id}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+\\d+\\s+Page after get_page\\s+http://127\\.0\\.0\\.1/get_page$`));
  r = await cli(['show', String(page.history_id)]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, page.markdown);
  r = await cli(['show', String(page.history_id), '--json']);
  assert.equal(JSON.parse(r.stdout).markdown, page.markdown);
  r = await cli(['history', 'zebra-open_url', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const pages = JSON.parse(r.stdout).pages;
  assert.ok(pages.length >= 1);
  assert.ok(pages.every((p) => p.title === 'Page after open_url'), JSON.stringify(pages));
  r = await cli(['history', '--url', '/switch_tab', '--limit', '1']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trimEnd().split('\n').length, 2);
  assert.match(r.stdout, /Page after switch_tab/);
  r = await cli(['show', '999999999']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no page with that id/);
});

test('seeded random arguments: a documented exit status, a message on failure, never a crash', async () => {
  const r = rng();
  // Every subcommand but serve (the daemon, tested on its own) and mcp (a relay that reads stdin).
  const cmds = ['token', 'login-url', 'open', 'click', 'type', 'press', 'scroll', 'select', 'back', 'forward', 'reload',
    'page', 'tabs', 'switch-tab', 'close-tab', 'screenshot', 'wait-for', 'call', 'history', 'show', 'status', 'tools',
    'version', 'bogus', '', '--help'];
  const flags = ['--client-id', '--tab', '--timeout', '--json', '--no-wait', '--limit', '--before', '--url', '--text',
    '--selector', '--clear', '--submit', '--new-tab', '--state', '--direction', '--amount', '--value', '--help', '-h',
    '--', '-', '--x', '--timeout=', '--tab=abc'];
  const vals = ['', '0', '-1', '99999999999999999999', '1e9', 'abc', 'Login', 'e12', 'ü', '%s%n', '\u0001', 'x'.repeat(3000),
    '{', '{"target":"x"}', 'browser_click', '/nonexistent/dir/out.png', '/dev/null', 'down', 'true'];
  for (let i = 0; i < 250; i++) {
    const args = [r.pick(cmds)].filter(Boolean);
    for (let k = r.int(5); k > 0; k--) {
      const x = r();
      if (x < 0.45) args.push(r.pick(flags));
      if (x < 0.8) args.push(r.pick(vals));
      else args.push(`${r.pick(flags)}=${r.pick(vals)}`);
    }
    const res = await cli(args);
    const what = `browser-bridge ${args.map((a) => JSON.stringify(a.slice(0, 40))).join(' ')}`;
    assert.ok(res.code >= 0 && res.code <= 5, `${what} exited ${res.code}: ${res.stderr.slice(0, 300)}`);
    if (res.code !== 0) assert.ok(res.stderr.trim(), `${what} exited ${res.code} without a message`);
    assert.doesNotMatch(res.stderr, /Sanitizer|runtime error/, what);
  }
});

test('status names the connected browser', async () => {
  const r = await cli(['status']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^cli-test: Scripted 1\.0/m);
  assert.equal(JSON.parse((await cli(['status', '--json'])).stdout).browsers[0].client_id, 'cli-test');
});

test('the request carries Host, token and Connection: close; chunked answers are decoded', async () => {
  const seen = [];
  const token = fs.readFileSync(tokenFile, 'utf8').trim();
  const fake = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(200, { 'Content-Type': 'application/json' }); // no length: chunked
      const answer = JSON.stringify({ status: 'success', tool: 'browser_get_page', summary: 'Read the page.', result: {},
        page: { url: 'http://x/', title: 'X', markdown: `# Chunked\n\n${'y'.repeat(100000)}\n` } });
      for (let i = 0; i < answer.length; i += 7000) res.write(answer.slice(i, i + 7000));
      res.end();
    });
  });
  await new Promise((r) => fake.listen(0, '127.0.0.1', r));
  const port = fake.address().port;
  try {
    const r = await cli(['page', '--config', '/dev/null', '--token-file', tokenFile, '--http', `127.0.0.1:${port}`], { common: false });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `# Chunked\n\n${'y'.repeat(100000)}\n`);
    const q = seen[0];
    assert.equal(q.method, 'POST');
    assert.equal(q.url, '/api/tools/browser_get_page');
    assert.equal(q.headers.host, `127.0.0.1:${port}`);
    assert.equal(q.headers.authorization, `Bearer ${token}`);
    assert.equal(q.headers['content-type'], 'application/json');
    assert.equal(q.headers.connection, 'close');
    assert.deepEqual(JSON.parse(q.body), {});
    const h = await cli(['history', 'a b&c', '--url', 'x/?y', '--limit', '5', '--config', '/dev/null', '--token-file', tokenFile,
      '--http', `127.0.0.1:${port}`], { common: false });
    assert.equal(seen[1].method, 'GET');
    const u = new URL(seen[1].url, 'http://h');
    assert.equal(u.pathname, '/api/history');
    assert.deepEqual([u.searchParams.get('q'), u.searchParams.get('url'), u.searchParams.get('limit')], ['a b&c', 'x/?y', '5']);
    assert.equal(h.code, 0, h.stderr);
  } finally {
    fake.close();
  }
});

test('the daemon stopped: exit 5', async () => {
  daemon.kill('SIGTERM');
  await new Promise((r) => daemon.on('exit', r));
  const r = await cli(['page']);
  assert.equal(r.code, 5, r.stderr);
  assert.match(r.stderr, /is the daemon running\?/);
  const h = await cli(['history']);
  assert.equal(h.code, 5);
});
