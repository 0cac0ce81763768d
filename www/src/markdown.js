// Renders untrusted page Markdown (captured from arbitrary web sites) into a DocumentFragment.
//
// Safety rules (documented in www/README.md):
//  1. Raw HTML inside the Markdown is shown as text, never interpreted: the extension made the
//     Markdown from the page, so HTML in it is page text that looked like HTML.
//  2. marked's output then goes through DOMPurify (HTML profile only: no SVG/MathML; no forms,
//     media, frames, styles, ids/names) and is inserted as a DOM fragment, not re-parsed.
//  3. Links: only http, https and mailto survive; relative links are resolved against the page's
//     own URL (so they never point into the dashboard); every link gets target=_blank and
//     rel="noopener noreferrer nofollow".
//  4. Single line breaks are kept (marked's `breaks`): the extension writes one element per line
//     (form fields like "Name: [input e3]" then "Email: [input e4]"), which must not run together.
//  5. Images: only inline data:image/* URLs are shown. Remote images are NOT loaded (no tracking
//     pixels, no requests leaving from the dashboard; the daemon's CSP img-src 'self' data: would
//     block them anyway): each is replaced by a placeholder naming the image with a link to open it
//     in a new tab on demand.
import { Marked } from 'marked';
import DOMPurify from 'dompurify';
import { h } from './dom.js';

const BLOCKED_ATTR = 'data-bb-blocked-src';

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html(token) {
      const text = escapeHtml(token.text ?? token.raw ?? '');
      return token.block ? `<p class="md-html">${text}</p>\n` : text;
    },
  },
});

const purify = DOMPurify(window);
let currentBase = null;

purify.addHook('afterSanitizeAttributes', (node) => {
  const tag = node.nodeName;
  if (tag === 'A') {
    const href = node.getAttribute('href');
    const safe = href ? resolveUrl(href, ['http:', 'https:', 'mailto:']) : null;
    if (safe) {
      node.setAttribute('href', safe);
      node.setAttribute('title', safe);
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer nofollow');
      node.setAttribute('referrerpolicy', 'no-referrer');
    } else {
      node.removeAttribute('href');
      node.removeAttribute('target');
      node.setAttribute('title', 'Link removed: not an http(s) or mailto address');
    }
  } else if (tag === 'IMG') {
    // Runs while the node still lives in DOMPurify's inert document, so nothing is fetched yet.
    const src = node.getAttribute('src') || '';
    if (!/^data:image\/(png|jpe?g|gif|webp|avif|bmp|svg\+xml)[;,]/i.test(src.trim())) {
      node.removeAttribute('src');
      node.setAttribute(BLOCKED_ATTR, resolveUrl(src, ['http:', 'https:']) || '');
    }
    node.setAttribute('loading', 'lazy');
    node.setAttribute('referrerpolicy', 'no-referrer');
  }
});

const PURIFY_CONFIG = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    'style', 'link', 'meta', 'base', 'form', 'input', 'button', 'textarea', 'select', 'option',
    'iframe', 'frame', 'frameset', 'object', 'embed', 'video', 'audio', 'source', 'track',
    'picture', 'dialog', 'template', 'svg', 'math', 'noscript',
  ],
  FORBID_ATTR: ['style', 'id', 'name', 'srcset', 'sizes', 'ping', 'action', 'formaction', 'background', 'poster', 'usemap'],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  SANITIZE_NAMED_PROPS: true,
  RETURN_DOM_FRAGMENT: true,
};

function resolveUrl(url, protocols) {
  try {
    const u = currentBase ? new URL(url, currentBase) : new URL(url);
    return protocols.includes(u.protocol) ? u.href : null;
  } catch {
    return null;
  }
}

/**
 * @param {string} markdown untrusted
 * @param {{baseUrl?: string}} opts the page's URL, to resolve relative links against
 * @returns {DocumentFragment}
 */
export function renderMarkdown(markdown, { baseUrl } = {}) {
  const html = marked.parse(String(markdown ?? ''));
  currentBase = baseUrl && /^https?:/i.test(baseUrl) ? baseUrl : null;
  let fragment;
  try {
    fragment = purify.sanitize(html, PURIFY_CONFIG);
  } finally {
    currentBase = null;
  }
  for (const img of fragment.querySelectorAll(`img[${BLOCKED_ATTR}]`)) {
    const insideLink = Boolean(img.parentElement && img.parentElement.closest('a'));
    img.replaceWith(blockedImage(img.getAttribute(BLOCKED_ATTR), img.getAttribute('alt'), !insideLink));
  }
  return fragment;
}

function blockedImage(src, alt, withLink) {
  const label = alt ? `Image: ${alt}` : 'Image';
  const children = [h('span', { class: 'md-img-icon', 'aria-hidden': 'true' }), h('span', null, label)];
  if (src && withLink) {
    children.push(
      h('a', { href: src, target: '_blank', rel: 'noopener noreferrer nofollow', referrerpolicy: 'no-referrer', title: src }, 'open'),
    );
  }
  return h('span', { class: 'md-img-blocked', title: src ? `Remote image not loaded: ${src}` : 'Image not loaded' }, children);
}

/** Container element with the rendered Markdown. */
export function markdownView(markdown, opts) {
  const el = h('div', { class: 'md' });
  el.append(renderMarkdown(markdown, opts));
  return el;
}
