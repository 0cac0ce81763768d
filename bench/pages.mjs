// The pages the navigation benchmarks load (bench/actions.mjs, bench/open-trace.mjs), and a
// loopback server for them: two small pages that link to each other, never cached.
import http from 'node:http';

export const NAV_PAGES = {
  '/page1.html': `<!doctype html><title>Page one</title><h1>Page one</h1><p><a href="/page2.html">Next page</a></p><p>${'Some text. '.repeat(50)}</p>`,
  '/page2.html': `<!doctype html><title>Page two</title><h1>Page two</h1><p><a href="/page1.html">Back to page one</a></p><p>${'More text. '.repeat(50)}</p>`,
};

// Serves `pages` (path -> HTML) on 127.0.0.1; resolves { server, base }.
export async function servePages(pages) {
  const server = http.createServer((req, res) => {
    const body = pages[new URL(req.url, 'http://x').pathname];
    if (!body) { res.writeHead(404); return res.end(); }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${server.address().port}` };
}
