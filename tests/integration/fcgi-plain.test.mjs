// FastCGI behind a plain nginx site, as a user would write it (`include fastcgi_params;
// fastcgi_pass …;`) on a port of its own, with no --allow-host: loopback Host names are accepted on
// any port, other names are still refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { freePort, startDaemon } from './support/harness.mjs';

const NGINX = process.env.BB_NGINX || '/usr/sbin/nginx';
const PARAMS = '/etc/nginx/fastcgi_params';
const skip = !existsSync(NGINX) ? `nginx not found at ${NGINX} (apt-get install nginx-light, or set BB_NGINX)`
  : !existsSync(PARAMS) ? `${PARAMS} not found (it comes with nginx-common)` : false;

function get(port, urlPath, { host, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const rq = http.get({ host: '127.0.0.1', port, path: urlPath, agent: false,
      headers: { ...(host ? { host } : {}), ...headers } }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    rq.on('error', reject);
  });
}

describe('FastCGI behind a plain nginx site on a free port', { skip }, () => {
  let d, nginx, port, nginxOut = '';
  before(async () => {
    port = await freePort();
    d = await startDaemon({});
    await d.stop();
    const sock = path.join(d.dir, 'fcgi.sock');
    d = await startDaemon({ dir: d.dir, args: ['--fastcgi', `unix:${sock}`] });
    for (let i = 0; i < 200 && !existsSync(sock); i++) await new Promise((r) => setTimeout(r, 25));
    const tmp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `${k}_temp_path ${path.join(d.dir, k)};`).join('\n  ');
    await fs.writeFile(path.join(d.dir, 'nginx.conf'), `${process.getuid?.() === 0 ? 'user root;\n' : ''}worker_processes 1;
events { worker_connections 64; }
http {
  access_log off;
  ${tmp}
  server {
    listen 127.0.0.1:${port};
    location / {
      include ${PARAMS};
      fastcgi_pass unix:${sock};
    }
  }
}
`);
    nginx = spawn(NGINX, ['-p', d.dir, '-c', path.join(d.dir, 'nginx.conf'), '-e', 'stderr',
      '-g', `daemon off; pid ${path.join(d.dir, 'nginx.pid')}; error_log stderr;`], { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx.stderr.on('data', (b) => { nginxOut += b; });
    let ok = false;
    for (let i = 0; i < 200 && !ok; i++) {
      try { ok = (await get(port, '/api/health')).status === 200; } catch { await new Promise((r) => setTimeout(r, 25)); }
    }
    assert.ok(ok, `nginx did not answer /api/health:\n${nginxOut}\n${d.log}`);
  });
  after(async () => {
    nginx?.kill('SIGTERM');
    if (d) await d.stop();
  });

  test('loopback Host names on nginx\'s port are served', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, '127.0.0.1']) {
      const r = await get(port, '/api/status', { host, headers: { Authorization: `Bearer ${d.token}` } });
      assert.equal(r.status, 200, `${host}: ${r.body}`);
      assert.ok(JSON.parse(r.body).browsers, host);
    }
  });

  test('other Host names are refused (DNS rebinding)', async () => {
    // nginx passes the Host it validated (lower case, without the port) as HTTP_HOST.
    for (const host of [`evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `localhost.evil:${port}`, 'Evil.Example']) {
      const r = await get(port, '/api/status', { host, headers: { Authorization: `Bearer ${d.token}` } });
      assert.equal(r.status, 403, `${host}: ${r.body}`);
      assert.equal(JSON.parse(r.body).error, 'forbidden_host', host);
    }
  });

  test('straight to the daemon, look-alikes of a loopback Host with a port are refused', async () => {
    for (const host of [`127.0.0.1:${port}x`, '127.0.0.1:', '127.0.0.1:99999', '127.0.0.1:0', `[::1]x:${port}`,
      `localhost:+${port}`, `127.0.0.1: ${port}`, '127.0.0.1.nip.io']) {
      const r = await get(d.httpPort, '/api/status', { host, headers: { Authorization: `Bearer ${d.token}` } });
      assert.equal(r.status, 403, `${host}: ${r.body}`);
    }
    for (const host of [`127.0.0.1:${port}`, `[::1]:${port}`, `localhost:${d.httpPort}`, 'localhost']) {
      const r = await get(d.httpPort, '/api/status', { host, headers: { Authorization: `Bearer ${d.token}` } });
      assert.equal(r.status, 200, `${host}: ${r.body}`);
    }
  });
});
