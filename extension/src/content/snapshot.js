// The page as Markdown. We walk the live DOM (through open shadow roots and
// same-origin iframes), build a clean, inert copy in a detached document with only
// what is visible, replace every interactive element by its token, and convert
// that copy with turndown. Nothing from the page is evaluated; the detached
// document has no browsing context, so nothing in it runs or loads.
import TurndownService from 'turndown';
import { tables, strikethrough } from 'turndown-plugin-gfm';
import { controlKind, isRendered, styleOf, renderedChildren, frameDoc, norm, nameOf, clip } from './dom.js';
import { token, tokenParts } from './describe.js';
import { refFor } from './refs.js';

export const DEFAULT_MAX_CHARS = 1_000_000;
const MAX_NODES = 300_000;

const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'LINK', 'META', 'HEAD', 'TITLE', 'BASE',
  'OBJECT', 'EMBED', 'CANVAS', 'svg', 'SVG', 'MATH', 'AUDIO', 'SOURCE', 'TRACK', 'PARAM', 'MAP', 'AREA', 'DATALIST', 'OPTION', 'OPTGROUP']);
const KEEP_TAGS = new Set(['H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'P', 'UL', 'OL', 'LI', 'BLOCKQUOTE', 'BR', 'HR',
  'STRONG', 'B', 'EM', 'I', 'DL', 'DT', 'DD', 'S', 'DEL', 'STRIKE', 'SUB', 'SUP', 'KBD', 'CODE', 'FIGURE', 'FIGCAPTION']);
const BLOCK_DISPLAY = /^(block|flex|grid|list-item|table|flow-root|table-row|table-caption)$/;
// These carry their own token; their children are not rendered.
const ATOMIC_KINDS = new Set(['button', 'input', 'textarea', 'select', 'checkbox', 'radio', 'combobox', 'slider', 'editable', 'tab', 'option', 'menuitem', 'treeitem']);

function safeUrl(u) {
  if (!u) return '';
  if (/^(https?|file|ftp|mailto|tel):/i.test(u)) return u;
  return '';
}

function mdUrl(u) {
  return u.replace(/[()\s]/g, (c) => encodeURIComponent(c));
}

class Builder {
  constructor(maxNodes) {
    this.doc = document.implementation.createHTMLDocument('');
    this.nodes = 0;
    this.maxNodes = maxNodes;
    this.overflow = false;
  }

  el(tag, text) {
    const e = this.doc.createElement(tag);
    if (text != null) e.textContent = text;
    return e;
  }

  para(child) {
    const p = this.doc.createElement('p');
    p.appendChild(child);
    return p;
  }

  ctl(md) {
    const e = this.doc.createElement('bb-ctl');
    e.setAttribute('data-md', md);
    e.textContent = 'x';
    return e;
  }

  // Render `node` (a live DOM node) into `out` (a node of the detached copy).
  // `clickAnc` is the nearest interactive ancestor element (for nested clickables).
  walk(node, out, clickAnc) {
    if (this.nodes++ > this.maxNodes) { this.overflow = true; return; }
    if (node.nodeType === 3) { // text
      if (node.data) out.appendChild(this.doc.createTextNode(node.data));
      return;
    }
    if (node.nodeType === 11) { // shadow root / fragment
      for (const c of node.childNodes) this.walk(c, out, clickAnc);
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node;
    const tag = el.tagName;
    if (SKIP.has(tag) || el.namespaceURI === 'http://www.w3.org/2000/svg') return;
    if (el.hidden && tag !== 'DETAILS') return;
    const st = styleOf(el);
    if (!st || st.display === 'none') return;
    const hiddenSelf = !isRendered(el, st);
    if (hiddenSelf) {
      // visibility:hidden hides the subtree unless a descendant sets visible again; rare — drop.
      return;
    }
    if (tag === 'INPUT' && (el.type === 'hidden')) return;

    let kind = controlKind(el, st);
    if (kind && clickAnc && !this.keepNested(el, kind, clickAnc)) kind = null;

    if (tag === 'IFRAME' || tag === 'FRAME') return this.frame(el, out, clickAnc);
    if (tag === 'IMG') return this.img(el, out, kind);
    if (tag === 'PRE') return this.pre(el, out);
    if (tag === 'TABLE') return this.table(el, out, clickAnc);
    if (tag === 'DETAILS' && !el.open) {
      const sum = Array.from(el.children).find((c) => c.tagName === 'SUMMARY');
      const box = this.el('div');
      if (sum) this.walk(sum, box, clickAnc);
      out.appendChild(box);
      return;
    }

    if (kind === 'link') {
      const href = safeUrl(el.href);
      const a = this.el('a');
      a.setAttribute('data-ref', refFor(el));
      a.setAttribute('data-name', nameOf(el, 'link'));
      if (href) a.setAttribute('href', href);
      for (const c of renderedChildren(el)) this.walk(c, a, el);
      out.appendChild(a);
      return;
    }
    if (kind && (ATOMIC_KINDS.has(kind) || (kind === 'clickable' && !this.hasBlockText(el)))) {
      out.appendChild(this.ctl(token(el, kind)));
      return;
    }

    if (tag === 'LABEL' && !kind) {
      const ctls = el.querySelectorAll('input:not([type=hidden]),select,textarea');
      if (ctls.length === 1 && el.control === ctls[0]) {
        const c = ctls[0];
        const ck = controlKind(c, styleOf(c));
        if (ck && isRendered(c)) {
          const box = this.el('span');
          this.walk(c, box, clickAnc);
          out.appendChild(box);
          return;
        }
      }
    }

    let box;
    if (KEEP_TAGS.has(tag)) {
      box = this.el(tag);
      if (tag === 'OL' && el.getAttribute('start')) box.setAttribute('start', el.getAttribute('start'));
    } else if (el.getAttribute('role') === 'heading') {
      box = this.el('H' + Math.min(6, Math.max(1, Number(el.getAttribute('aria-level')) || 2)));
    } else {
      box = this.el(BLOCK_DISPLAY.test(st.display) ? 'div' : 'span');
    }
    if (kind === 'clickable') {
      // a big clickable region (a card): keep its content, mark it
      box.appendChild(this.ctl(token(el, kind).replace(/ "[^"]*"/, '')));
      box.appendChild(this.doc.createTextNode(' '));
    }
    for (const c of renderedChildren(el)) this.walk(c, box, kind ? el : clickAnc);
    out.appendChild(box);
  }

  hasBlockText(el) {
    let t = '';
    try { t = el.innerText || ''; } catch { /* ignore */ }
    return t.trim().includes('\n') || t.length > 120;
  }

  // A clickable inside a clickable: no ref unless it is a form control, has its own
  // aria-label, is a checkbox-like role, or sticks out of its parent.
  keepNested(el, kind, anc) {
    if (['input', 'textarea', 'select', 'checkbox', 'radio', 'editable', 'combobox', 'slider'].includes(kind)) return true;
    if (el.hasAttribute('aria-label')) return true;
    const role = el.getAttribute('role');
    if (role === 'checkbox' || role === 'switch' || role === 'radio') return true;
    const a = anc.getBoundingClientRect(), r = el.getBoundingClientRect();
    const inside = r.left >= a.left - 1 && r.top >= a.top - 1 && r.right <= a.right + 1 && r.bottom <= a.bottom + 1;
    return !inside;
  }

  img(el, out, kind) {
    const alt = norm(el.getAttribute('alt'));
    if (kind && kind !== 'link') { out.appendChild(this.ctl(token(el, kind))); return; }
    if (!alt) return; // decorative, or no description: nothing the agent can read
    const i = this.el('img');
    i.setAttribute('data-alt', alt);
    const src = safeUrl(el.currentSrc || el.src);
    if (src && src.length < 500) i.setAttribute('data-src', src);
    out.appendChild(i);
  }

  pre(el, out) {
    const pre = this.el('pre');
    const code = this.el('code');
    const c = el.querySelector('code');
    const m = ((c && c.className) || el.className || '').toString().match(/(?:language|lang)-([\w+#.-]+)/);
    if (m) code.className = 'language-' + m[1];
    let text = '';
    try { text = el.innerText; } catch { text = el.textContent; }
    code.textContent = text || el.textContent;
    pre.appendChild(code);
    out.appendChild(pre);
  }

  frame(el, out, clickAnc) {
    const box = this.el('div');
    const label = norm(el.title || el.name || '') || clip(el.src || '', 120);
    const d = frameDoc(el);
    if (d && d.body) {
      box.appendChild(this.para(this.ctl(`[iframe${label ? ' ' + JSON.stringify(label) : ''}]`)));
      this.walk(d.body, box, clickAnc);
      box.appendChild(this.para(this.ctl('[/iframe]')));
    } else {
      box.appendChild(this.para(this.ctl(`[iframe (other origin, not read)${label ? ' ' + JSON.stringify(label) : ''}]`)));
    }
    out.appendChild(box);
  }

  table(el, out, clickAnc) {
    const rows = Array.from(el.rows).filter((r) => { const s = styleOf(r); return s && s.display !== 'none'; });
    const layout = rows.length === 0 || el.querySelector('table') ||
      rows.some((r) => Array.from(r.cells).some((c) => c.querySelector('p,div,ul,ol,h1,h2,h3,h4,h5,h6,pre,blockquote,form')));
    if (layout) {
      // layout table: rows become blocks, cells inline
      const box = this.el('div');
      if (el.caption) this.walk(el.caption, box, clickAnc);
      for (const r of rows) {
        const rowBox = this.el('div');
        for (const c of r.cells) {
          const cell = this.el('span');
          for (const ch of renderedChildren(c)) this.walk(ch, cell, clickAnc);
          rowBox.appendChild(cell);
          rowBox.appendChild(this.doc.createTextNode(' '));
        }
        box.appendChild(rowBox);
      }
      out.appendChild(box);
      return;
    }
    const width = Math.max(...rows.map((r) => Array.from(r.cells).reduce((n, c) => n + Math.max(1, Math.min(50, c.colSpan || 1)), 0)));
    const t = this.el('table');
    const thead = this.el('thead');
    const tbody = this.el('tbody');
    t.append(thead, tbody);
    rows.forEach((r, i) => {
      const tr = this.el('tr');
      let n = 0;
      for (const c of r.cells) {
        const cell = this.el(i === 0 ? 'th' : 'td');
        for (const ch of renderedChildren(c)) this.walk(ch, cell, clickAnc);
        tr.appendChild(cell);
        n++;
        for (let k = 1; k < Math.min(50, c.colSpan || 1); k++) { tr.appendChild(this.el(i === 0 ? 'th' : 'td')); n++; }
      }
      while (n < width) { tr.appendChild(this.el(i === 0 ? 'th' : 'td')); n++; }
      (i === 0 ? thead : tbody).appendChild(tr);
    });
    if (el.caption) {
      const cap = this.el('p');
      this.walk(el.caption, cap, clickAnc);
      out.appendChild(cap);
    }
    out.appendChild(t);
  }
}

let td = null;
function turndown() {
  if (td) return td;
  td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_', hr: '---' });
  td.use([tables, strikethrough]);
  td.addRule('bbControl', {
    filter: (n) => n.nodeName === 'BB-CTL',
    replacement: (c, n) => (n.previousSibling ? ' ' : '') + n.getAttribute('data-md') + (n.nextSibling ? ' ' : ''),
  });
  td.addRule('bbLink', {
    filter: (n) => n.nodeName === 'A' && n.hasAttribute('data-ref'),
    replacement: (content, n) => {
      let text = content.replace(/\s*\n+\s*/g, ' ').trim();
      if (!text) text = (n.getAttribute('data-name') || '').replace(/([\[\]])/g, '\\$1');
      const href = n.getAttribute('href');
      const ref = n.getAttribute('data-ref');
      return href ? `[${text}](${mdUrl(href)}) [${ref}]` : `[link "${text}" ${ref}]`;
    },
  });
  td.addRule('bbImg', {
    filter: 'img',
    replacement: (c, n) => {
      const alt = (n.getAttribute('data-alt') || '').replace(/([\[\]])/g, '\\$1');
      const src = n.getAttribute('data-src');
      return src ? `![${alt}](${mdUrl(src)})` : `![${alt}]`;
    },
  });
  td.addRule('bbCell', {
    filter: ['th', 'td'],
    replacement: (content, node) => {
      const index = Array.prototype.indexOf.call(node.parentNode.childNodes, node);
      const text = content.replace(/\s*\n+\s*/g, ' ').replace(/\|/g, '\\|').trim();
      return (index === 0 ? '| ' : ' ') + text + ' |';
    },
  });
  return td;
}

// Collapse turndown's list padding ("-   item") and trailing spaces, outside code fences.
function tidy(md) {
  let fence = false;
  const out = [];
  for (let line of md.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (!fence) line = line.replace(/^(\s*)([-*+]|\d+\.)\s{2,}/, '$1$2 ').replace(/(\S) {2,}/g, '$1 ').replace(/^ (?=\S)/, '').replace(/\s+$/, '');
    out.push(line);
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

export function snapshot({ maxChars = DEFAULT_MAX_CHARS } = {}) {
  const b = new Builder(MAX_NODES);
  const root = b.el('div');
  const body = document.body || document.documentElement;
  if (body) b.walk(body, root, null);
  let md = tidy(turndown().turndown(root));
  let truncated = false;
  if (b.overflow) {
    truncated = true;
    md += `\n\n[… truncated: the page has more than ${MAX_NODES} nodes; only the first part is shown …]`;
  }
  if (md.length > maxChars) {
    truncated = true;
    const cut = md.lastIndexOf('\n', maxChars);
    md = md.slice(0, cut > maxChars * 0.9 ? cut : maxChars) +
      `\n\n[… truncated: the page Markdown was ${md.length} characters, the cap is ${maxChars} …]`;
  }
  return { url: location.href, title: document.title, markdown: md, truncated };
}

export { tokenParts };
