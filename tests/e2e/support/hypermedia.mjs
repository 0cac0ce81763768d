// Support for tests/e2e/hypermedia-realsites.test.mjs: one server for server-driven pages (htmx,
// Turbo) and Alpine.js: /npm/ and /shells/ as in realsites.mjs, plus the endpoints that answer
// htmx's requests with HTML fragments (/hx/...) and Turbo's with whole pages (/turbo/...), some of
// them late (50-300 ms) as a real server is.
import { startStaticServer, NODE_MODULES, SHELLS } from './realsites.mjs';

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const later = (ms) => new Promise((r) => setTimeout(r, ms));
const FRUITS = ['Apple', 'Apricot', 'Banana', 'Blackberry', 'Blueberry', 'Cherry', 'Grape', 'Mango', 'Melon', 'Peach', 'Pear'];

// The whole request body as text (a form post).
async function bodyOf(req) {
  let s = '';
  for await (const c of req) s += c;
  return s;
}

// A Turbo page: the same <head> (Turbo loaded once, kept across visits) around a body.
function turboPage(title, body) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<script src="/npm/@hotwired/turbo/dist/turbo.es2017-umd.js"></script></head>
<body><nav><a href="/turbo/home">Home</a> <a href="/turbo/orders">Orders</a></nav>
<h1>${esc(title)}</h1>${body}</body></html>`;
}

const orders = [];
export const log = []; // the requests to the endpoints, "METHOD /path?query", in order

// The pages and fragments, by path; true when answered.
async function answer(req, res, url) {
  const p = url.pathname;
  if (/^\/(hx|turbo)\//.test(p)) log.push(`${req.method} ${p}${url.search}`);
  const send = (html, status = 200, headers = {}) => { res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers }); res.end(html); return true; };
  // ---- htmx fragments
  if (p === '/hx/greet' && req.method === 'POST') {
    const name = new URLSearchParams(await bodyOf(req)).get('name') || 'stranger';
    await later(200);
    return send(`<p>Hello, ${esc(name)}! Your greeting is ready.</p>`);
  }
  if (p === '/hx/item' && req.method === 'DELETE') { await later(150); return send('<p id="item">Lamp deleted</p>'); }
  if (p === '/hx/search') {
    const q = (url.searchParams.get('q') || '').toLowerCase();
    await later(150);
    const hits = FRUITS.filter((f) => q && f.toLowerCase().startsWith(q));
    return send(hits.length ? hits.map((f) => `<li>${f}</li>`).join('') : `<li>No fruit starts with "${esc(q)}"</li>`);
  }
  if (p === '/hx/cart' && req.method === 'POST') {
    await later(250);
    const n = (answer.cart = (answer.cart || 0) + 1);
    return send(`<p>Added a lamp to your cart.</p><p id="cart-count" hx-swap-oob="true">Cart: ${n} items</p>`);
  }
  if (p === '/hx/quote') { await later(100); return send(`Quote number ${(answer.quote = (answer.quote || 1) + 1)}`); }
  if (p === '/hx/note' && req.method === 'DELETE') { await later(50); return send(''); }
  if (p === '/hx/contact/edit') {
    await later(100);
    return send(`<form hx-put="/hx/contact" hx-target="this" hx-swap="outerHTML" id="contact">
<label for="email">Email</label> <input id="email" name="email" value="${esc(answer.email || 'joe@example.com')}">
<button type="submit">Save contact</button></form>`);
  }
  if (p === '/hx/contact' && req.method === 'PUT') {
    answer.email = new URLSearchParams(await bodyOf(req)).get('email') || '';
    await later(150);
    return send(`<div hx-target="this" hx-swap="outerHTML" id="contact"><p>Email: ${esc(answer.email)}</p><button hx-get="/hx/contact/edit">Edit contact</button></div>`);
  }
  if (p === '/hx/subscribe' && req.method === 'POST') {
    const mail = new URLSearchParams(await bodyOf(req)).get('mail') || '';
    await later(200);
    return send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Subscribed</title>
<script src="/npm/htmx.org/dist/htmx.min.js"></script></head><body><h1>Subscribed</h1><p>${esc(mail)} will get our news.</p></body></html>`);
  }
  if (p === '/hx/ticker') { await later(60); return send(`<p>Lamp price: ${100 + ((answer.tick = (answer.tick || 0) + 1) % 7)} EUR</p>`); }
  if (p === '/hx/about') {
    await later(120);
    return send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>About the shop</title>
<script src="/npm/htmx.org/dist/htmx.min.js"></script></head><body><h1>About the shop</h1>
<p>We sell lamps since 1999.</p><nav hx-boost="true"><a href="/shells/hyper-htmx.html">Back to the shop</a></nav></body></html>`);
  }
  // ---- Turbo pages
  if (p === '/turbo/home') {
    return send(turboPage('Turbo home', `<p>Welcome to the order desk.</p>
<turbo-frame id="news" src="/turbo/news" loading="lazy"><p>Loading news…</p></turbo-frame>
<turbo-frame id="details"><p>No order picked.</p><a href="/turbo/details/7">Show order 7</a></turbo-frame>
<p>Outside the frame stays.</p><p><a href="/turbo/slow">Slow report</a></p>
<turbo-frame id="board" data-turbo-action="advance"><a href="/turbo/board/2">Board page 2</a></turbo-frame>`));
  }
  if (p === '/turbo/slow') { await later(900); return send(turboPage('Slow report', `<p>The report took a while. Report number ${(answer.reports = (answer.reports || 0) + 1)}.</p>`)); }
  if (p.startsWith('/turbo/board/')) { await later(120); return send(turboPage('Board', `<turbo-frame id="board"><p>Board page ${esc(p.split('/').pop())} of 3</p><a href="/turbo/board/3">Board page 3</a></turbo-frame>`)); }
  if (p === '/turbo/news') { await later(200); return send(turboPage('News', '<turbo-frame id="news"><p>News: lamps are 10% off.</p></turbo-frame>')); }
  if (p.startsWith('/turbo/details/')) {
    await later(150);
    const n = esc(p.split('/').pop());
    return send(turboPage('Order details', `<turbo-frame id="details"><p>Order ${n}: one brass lamp, shipped.</p><a href="/turbo/details/8">Show order 8</a></turbo-frame><p>Not in the frame.</p>`));
  }
  if (p === '/turbo/orders' && req.method === 'GET') {
    await later(100);
    const list = orders.length ? `<ul>${orders.map((o) => `<li>Order for ${esc(o)}</li>`).join('')}</ul>` : '<p>No orders yet.</p>';
    return send(turboPage('Orders', `${list}
<form action="/turbo/orders" method="post"><label for="item">Item</label> <input id="item" name="item"> <button type="submit">Place order</button></form>
<form action="/turbo/notes" method="post"><label for="note">Note</label> <input id="note" name="note"> <button type="submit">Add note</button></form>
<ul id="notes"><li>First note</li></ul>
<p><a href="/turbo/orders/clear" data-turbo-method="post" data-turbo-confirm="Really clear them all?">Clear all (link)</a></p>
<turbo-frame id="edit"><a href="/turbo/edit">Rename the desk</a></turbo-frame>
<form action="/turbo/orders/clear" method="post" data-turbo-confirm="Clear all orders?"><button type="submit">Clear orders</button></form>`));
  }
  if (p === '/turbo/orders' && req.method === 'POST') {
    const item = new URLSearchParams(await bodyOf(req)).get('item') || '';
    await later(200);
    if (!item) return send(turboPage('Orders', '<p>Item is missing.</p>'), 422);
    orders.push(item);
    return send('', 303, { location: '/turbo/orders/placed?item=' + encodeURIComponent(item) });
  }
  if (p === '/turbo/notes' && req.method === 'POST') {
    const note = new URLSearchParams(await bodyOf(req)).get('note') || '';
    await later(150);
    if (!/turbo-stream/.test(req.headers.accept || '')) return send('', 303, { location: '/turbo/orders' });
    return send(`<turbo-stream action="append" target="notes"><template><li>${esc(note)}</li></template></turbo-stream>`, 200, { 'content-type': 'text/vnd.turbo-stream.html; charset=utf-8' });
  }
  if (p === '/turbo/edit' && req.method === 'GET') {
    await later(100);
    return send(turboPage('Edit', `<turbo-frame id="edit"><form action="/turbo/edit" method="post"><label for="desk">Desk name</label> <input id="desk" name="desk"><button type="submit">Save name</button></form></turbo-frame>`));
  }
  if (p === '/turbo/edit' && req.method === 'POST') {
    const desk = new URLSearchParams(await bodyOf(req)).get('desk') || '';
    await later(150);
    if (!desk) return send(turboPage('Edit', `<turbo-frame id="edit"><p>A name is required.</p><form action="/turbo/edit" method="post"><label for="desk">Desk name</label> <input id="desk" name="desk"><button type="submit">Save name</button></form></turbo-frame>`), 422);
    return send(turboPage('Edit', `<turbo-frame id="edit"><p>Desk renamed to ${esc(desk)}.</p></turbo-frame>`));
  }
  if (p === '/turbo/orders/placed') {
    await later(80);
    return send(turboPage('Order placed', `<p>Thank you! Your order for ${esc(url.searchParams.get('item'))} is placed.</p>`));
  }
  if (p === '/turbo/orders/clear' && req.method === 'POST') {
    await later(100);
    orders.length = 0;
    return send('', 303, { location: '/turbo/orders' });
  }
  return false;
}

// Start the server: { base, url(path), hits, close() } as startStaticServer.
export function startHypermediaServer() {
  orders.length = 0;
  log.length = 0;
  answer.cart = 0;
  answer.email = '';
  answer.quote = 1;
  return startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/' }, extra: answer });
}
