// The screenshot command (browser_screenshot; see handlers.js). The visible part of the tab is
// captured with chrome.tabs.captureVisibleTab; the whole page with the DevTools protocol
// (Page.captureScreenshot, captureBeyondViewport) when the user granted the optional debugger
// permission (trusted.js), else stitched from one capture per screen while the page is scrolled
// (fixed headers then show on each screen). The image is then cut to a target's box, scaled down
// to max_width, marked (Set of Marks: each interactive element boxed and labelled with its ref,
// from the boxes the content script reports, content/shot.js) and encoded, in an OffscreenCanvas
// here; the page itself is never drawn on. only_if_changed compares a hash of the image with the
// last one taken of the tab (kept for the last BB_SCREENSHOT_HASH_TABS tabs).
import { callContent } from './content-bridge.js';
import { resolveTab } from './tabs.js';
import { getMaxMessageBytes } from './connection.js';
import { trustedEnabled, attach } from './trusted.js';
import { CommandError, sleep } from './errors.js';
import {
  BB_SCREENSHOT_MAX_WIDTH_DEFAULT, BB_SCREENSHOT_QUALITY_DEFAULT, BB_SCREENSHOT_FULL_HEIGHT_MAX, BB_SCREENSHOT_HASH_TABS, BB_SCREENSHOT_WIDTH_MAX,
} from '../shared/limits.js';

// The Set of Marks' colour (a magenta few pages use), its label's text colour and height.
export const MARK_COLOR = '#ff00ff';
const LABEL_TEXT = '#ffffff';
const LABEL_H = 16;

function pngSize(b64) {
  const bin = atob(b64.slice(0, 44));
  const u32 = (o) => ((bin.charCodeAt(o) << 24) | (bin.charCodeAt(o + 1) << 16) | (bin.charCodeAt(o + 2) << 8) | bin.charCodeAt(o + 3)) >>> 0;
  if (bin.slice(1, 4) !== 'PNG') return { width: 0, height: 0 };
  return { width: u32(16), height: u32(20) };
}

async function capture(windowId) {
  for (let i = 0; ; i++) {
    try {
      return await chrome.tabs.captureVisibleTab(windowId, { format: 'png' });
    } catch (e) {
      // At most 2 captures per second: wait and retry.
      if (i < 6 && /MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND|quota/i.test(e.message)) { await sleep(600); continue; }
      if (/permission|activeTab|<all_urls>/i.test(e.message)) throw new CommandError(`cannot take a screenshot without site access: open the extension options and click "Allow on all sites" (${e.message})`);
      throw new CommandError(`screenshot failed: ${e.message}`);
    }
  }
}

const bitmapOf = async (dataUrl) => createImageBitmap(await (await fetch(dataUrl)).blob());

function base64(buf) {
  const bytes = new Uint8Array(buf);
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

// The last image's hash per tab (insertion order = age), for only_if_changed.
const hashes = new Map();
chrome.tabs.onRemoved.addListener((id) => hashes.delete(id));
async function sameAsLast(tabId, data) {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(data)));
  const h = Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
  const same = hashes.get(tabId) === h;
  hashes.delete(tabId);
  hashes.set(tabId, h);
  while (hashes.size > BB_SCREENSHOT_HASH_TABS) hashes.delete(hashes.keys().next().value);
  return same;
}

// The whole page as one bitmap and its CSS-pixel size: by the DevTools protocol when allowed,
// else stitched from one capture per screen.
async function fullPage(tab, info) {
  const height = Math.min(info.pageH, BB_SCREENSHOT_FULL_HEIGHT_MAX);
  if (await trustedEnabled() && await attach(tab.id)) {
    try {
      const r = await chrome.debugger.sendCommand({ tabId: tab.id }, 'Page.captureScreenshot', {
        format: 'png', captureBeyondViewport: true, clip: { x: 0, y: 0, width: info.vw, height, scale: 1 },
      });
      return { bmp: await bitmapOf(`data:image/png;base64,${r.data}`), cssW: info.vw, cssH: height, how: 'devtools' };
    } catch { /* fall back to stitching */ }
  }
  let canvas = null;
  let ratio = 1;
  try {
    for (let y = 0; y < height;) {
      const at = await callContent(tab.id, 'shot', { step: 'scroll', x: 0, y });
      if (!at.ok) throw new CommandError(at.error);
      const bmp = await bitmapOf(await capture(tab.windowId));
      if (!canvas) {
        ratio = bmp.width / info.vw;
        canvas = new OffscreenCanvas(bmp.width, Math.round(height * ratio));
      }
      canvas.getContext('2d').drawImage(bmp, 0, Math.round(at.sy * ratio));
      bmp.close();
      if (at.sy + at.vh >= height || at.sy < y) break; // the bottom (or the page would not scroll)
      y = at.sy + at.vh;
    }
  } finally {
    await callContent(tab.id, 'shot', { step: 'scroll', x: info.sx, y: info.sy }).catch(() => {});
  }
  return { bmp: canvas.transferToImageBitmap(), cssW: info.vw, cssH: height, how: 'stitched' };
}

// Box and label each mark on the context; returns the marks in image pixels.
function drawMarks(ctx, list, scale, w, h) {
  ctx.lineWidth = 2;
  ctx.font = 'bold 12px sans-serif';
  ctx.textBaseline = 'middle';
  const out = [];
  for (const m of list) {
    const x = Math.round(m.x * scale);
    const y = Math.round(m.y * scale);
    const bw = Math.max(2, Math.round(m.width * scale));
    const bh = Math.max(2, Math.round(m.height * scale));
    ctx.strokeStyle = MARK_COLOR;
    ctx.strokeRect(x + 1, y + 1, bw - 2, bh - 2);
    const lw = Math.ceil(ctx.measureText(m.ref).width) + 6;
    const lx = Math.min(Math.max(0, x), Math.max(0, w - lw));
    const ly = y >= LABEL_H ? y - LABEL_H : Math.min(Math.max(0, y), Math.max(0, h - LABEL_H));
    ctx.fillStyle = MARK_COLOR;
    ctx.fillRect(lx, ly, lw, LABEL_H);
    ctx.fillStyle = LABEL_TEXT;
    ctx.fillText(m.ref, lx + 3, ly + LABEL_H / 2);
    out.push({ ref: m.ref, x, y, width: bw, height: bh, label: { x: lx, y: ly, width: lw, height: LABEL_H } });
  }
  return out;
}

export async function takeScreenshot(cmd) {
  const tab = await resolveTab(cmd.tabId);
  if (!tab.active) {
    await chrome.tabs.update(tab.id, { active: true });
    await sleep(150);
  }
  const format = cmd.format === 'png' ? 'png' : 'jpeg';
  const quality = Number.isInteger(cmd.quality) ? Math.min(100, Math.max(1, cmd.quality)) : BB_SCREENSHOT_QUALITY_DEFAULT;
  const maxWidth = Number.isInteger(cmd.max_width) ? Math.min(BB_SCREENSHOT_WIDTH_MAX, cmd.max_width) : format === 'jpeg' ? BB_SCREENSHOT_MAX_WIDTH_DEFAULT : null;
  const target = typeof cmd.target === 'string' && cmd.target !== '' ? cmd.target : null;
  const full = cmd.full_page === true;
  const marks = cmd.marks === true;

  let data;
  let mimeType = `image/${format}`;
  let width;
  let height;
  let drawn = null;
  let note = '';
  let how = null; // a full page's capture: 'devtools' or 'stitched'
  if (format === 'png' && !target && !full && !marks && !maxWidth) {
    data = (await capture(tab.windowId)).replace(/^data:image\/png;base64,/, ''); // as captured
    ({ width, height } = pngSize(data));
  } else {
    // The page is asked for its sizes only when they matter (a page that cannot be scripted, or
    // does not answer, can still be captured as it shows).
    let info = null;
    if (target || full || marks) {
      info = await callContent(tab.id, 'shot', { step: 'prepare', target });
      if (!info.ok) throw new CommandError(target ? `cannot find the target to capture: ${info.error}` : info.error, { pageTabId: tab.id });
    }
    let bmp;
    let cssW = info?.vw;
    let region = info ? { x: 0, y: 0, width: info.vw, height: info.vh, doc: false } : null;
    if (full) {
      const f = await fullPage(tab, info);
      ({ bmp, cssW, how } = f);
      region = { x: 0, y: 0, width: cssW, height: f.cssH, doc: true };
      if (info.pageH > f.cssH) note = ` (the page is ${info.pageH} px tall; the first ${f.cssH} px are shown)`;
    } else {
      bmp = await bitmapOf(await capture(tab.windowId));
      if (!info) {
        cssW = bmp.width;
        region = { x: 0, y: 0, width: bmp.width, height: bmp.height, doc: false };
      }
      if (target) {
        const b = info.box;
        const x0 = Math.max(0, b.x);
        const y0 = Math.max(0, b.y);
        const x1 = Math.min(info.vw, b.x + b.width);
        const y1 = Math.min(info.vh, b.y + b.height);
        if (x1 - x0 < 1 || y1 - y0 < 1) throw new CommandError('the target is not on the screen even after scrolling to it', { pageTabId: tab.id });
        if (x1 - x0 < b.width - 1 || y1 - y0 < b.height - 1) note = ' (the element is larger than the window: its visible part is shown)';
        region = { x: x0, y: y0, width: x1 - x0, height: y1 - y0, doc: false };
      }
    }
    const ratio = bmp.width / cssW; // image pixels per CSS pixel (device pixel ratio, zoom)
    const sw = Math.max(1, Math.round(region.width * ratio));
    const sh = Math.max(1, Math.min(bmp.height, Math.round(region.height * ratio)));
    const scale = maxWidth && sw > maxWidth ? maxWidth / sw : 1;
    width = Math.max(1, Math.round(sw * scale));
    height = Math.max(1, Math.round(sh * scale));
    const canvas = new OffscreenCanvas(width, height);
    const ctx = canvas.getContext('2d');
    if (format === 'jpeg') { ctx.fillStyle = '#ffffff'; ctx.fillRect(0, 0, width, height); }
    ctx.drawImage(bmp, Math.round(region.x * ratio), Math.round(region.y * ratio), sw, sh, 0, 0, width, height);
    bmp.close();
    if (marks) {
      const m = await callContent(tab.id, 'shot', { step: 'marks', region });
      if (!m.ok) throw new CommandError(`cannot find the elements to mark: ${m.error}`, { pageTabId: tab.id });
      drawn = drawMarks(ctx, m.marks, ratio * scale, width, height);
      if (m.more) note += ` (${m.more} more elements were not marked: at most ${m.marks.length})`;
    }
    const blob = await canvas.convertToBlob(format === 'jpeg' ? { type: 'image/jpeg', quality: quality / 100 } : { type: 'image/png' });
    data = base64(await blob.arrayBuffer());
    mimeType = blob.type || mimeType;
  }
  const what = `${full ? 'Full-page screenshot' : target ? 'Screenshot of the element' : 'Screenshot'} of tab ${tab.id} (${width}×${height} ${format.toUpperCase()})`;
  if (await sameAsLast(tab.id, data) && cmd.only_if_changed === true) {
    return { message: `${what}: unchanged since the last one`, result: { tabId: tab.id, unchanged: true, mimeType, width, height }, pageTabId: tab.id };
  }
  const max = getMaxMessageBytes();
  const room = 4096 + (drawn ? JSON.stringify(drawn).length : 0); // ids, message, dialogs, marks
  if (data.length + room > max) {
    throw new CommandError(`the screenshot of tab ${tab.id} (${width}×${height}, ${data.length} bytes as base64) is larger than the daemon's max_message_bytes (${max} bytes) allows; raise max_message_bytes, ask for a JPEG, a smaller max_width, or make the window smaller`, { pageTabId: tab.id, result: { tabId: tab.id, width, height, bytes: data.length } });
  }
  const result = { mimeType, data, width, height, tabId: tab.id };
  if (drawn) result.marks = drawn;
  if (how) result.capture = how;
  if (cmd.only_if_changed === true) result.unchanged = false;
  return { message: `${what}${drawn ? `, ${drawn.length} elements marked` : ''}${note}`, result, pageTabId: tab.id };
}
