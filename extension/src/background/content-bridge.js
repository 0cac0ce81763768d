// Talking to the content script in a tab's frames (the top one unless a frame id is given).
const NO_ACCESS_HINT = 'Browser Bridge has no access to this site: open the extension options and click "Allow on all sites"';

export class PageError extends Error {}

// No call into a page waits forever: a page blocked by a JavaScript dialog (alert, confirm,
// prompt) that is not answered or a busy loop never answers executeScript. Each op gets a budget; past it the call
// fails with `unresponsive` set, and the tab is remembered as not answering until one call
// into it succeeds again (so that the page capture after a failed action does not wait again).
export const PAGE_CALL_MS = 5000;
const OP_MS = { snapshot: 15_000 };
const FIELD_MS = 1500; // what one fill_form field may wait for in the page (content/forms.js)
const unresponsive = new Map(); // tabId -> since (ms)

export function isUnresponsive(tabId) {
  return unresponsive.has(tabId);
}

function budget(op, args) {
  if (op === 'quiet') return (Number(args.capMs) || 3000) + 2000;
  // Typing sends several events per character: a long text gets more time (at most a minute).
  const text = op === 'act' ? args.params?.text : null;
  if (typeof text === 'string') return PAGE_CALL_MS + Math.min(55_000, 10 * text.length);
  // A whole form (fill_form): its values together, and each field the waits of its own (a cover
  // fading out, a widget's list opening, the page's reaction to leaving it: up to FIELD_MS); 20 ms
  // a field was too little: eleven fields on a loaded machine were "the page did not answer".
  const fields = op === 'act' ? args.params?.fields : null;
  if (Array.isArray(fields)) return PAGE_CALL_MS + Math.min(55_000, fields.reduce((n, f) => n + FIELD_MS + 10 * String(f?.value ?? '').length, 0));
  // Several options (select_option's values): each opened for and chosen in its list, as a field
  // is (Ant Design Vue's multiple select took 4.5 s for two, and "did not answer" under load)
  const values = op === 'act' ? args.params?.values : null;
  if (Array.isArray(values)) return PAGE_CALL_MS + Math.min(55_000, values.length * FIELD_MS);
  return OP_MS[op] || PAGE_CALL_MS;
}

function withTimeout(promise, ms, tabId) {
  let timer;
  const t = new Promise((_, reject) => {
    timer = setTimeout(() => {
      unresponsive.set(tabId, Date.now());
      const e = new PageError(`the page did not answer within ${ms} ms (a script on it may be busy)`);
      e.unresponsive = true;
      reject(e);
    }, ms);
  });
  return Promise.race([promise, t]).finally(() => clearTimeout(timer));
}

function explain(e, url = '') {
  const m = String(e && e.message ? e.message : e);
  if (/Cannot access|cannot be scripted|Missing host permission|permission/i.test(m)) {
    if (/^(chrome|edge|about|devtools|chrome-extension|view-source):/i.test(url) || /chrome:|chrome-extension:|extensions gallery|Chrome Web Store/i.test(m)) {
      return `this page (${url || 'a browser page'}) cannot be read or controlled by extensions`;
    }
    return `${NO_ACCESS_HINT} (${m})`;
  }
  return m;
}

// Highest ref number handed out so far (survives service-worker restarts).
let floor = null;
export async function refFloor() {
  if (floor === null) {
    const { refFloor: f } = await chrome.storage.session.get('refFloor').catch(() => ({}));
    floor = Math.max(floor ?? 0, Number(f) || 0);
  }
  return floor;
}

async function inject(tabId, frameId) {
  await chrome.scripting.executeScript({ target: { tabId, frameIds: [frameId] }, files: ['content.js'] });
}

// Load the content script into the tab's top frame ahead of its first call (a page that is
// being readied is read next: one round trip then, not three). Never fails.
export function preloadContent(tabId) {
  return inject(tabId, 0).catch(() => {});
}

// The top frame's snapshot a page took itself the moment it settled (background/settle.js), in
// the same round trip: the read that follows at once takes it instead of asking again. Any other
// call into the top frame, or PREFETCH_MS passing, drops it.
const PREFETCH_MS = 500;
const prefetched = new Map(); // tabId -> { snap, maxChars, at }

export function offerSnapshot(tabId, snap, maxChars, loaded = false) {
  if (!snap?.ok) return;
  noteRefs(snap);
  prefetched.set(tabId, { snap, maxChars, at: Date.now(), loaded });
}

// The snapshot a page that had just loaded took itself once ready (`loaded` in offerSnapshot),
// when it is still fresh: the read takes it as it is (the page said it is complete), without
// looking at the tab first. Null otherwise (the entry stays for callFrame).
export function takeLoadedSnapshot(tabId, maxChars) {
  const p = prefetched.get(tabId);
  if (!p?.loaded || p.maxChars !== maxChars || Date.now() - p.at > PREFETCH_MS) return null;
  prefetched.delete(tabId);
  return p.snap;
}

function noteRefs(r) {
  if (r.refCounter > floor) {
    floor = r.refCounter;
    chrome.storage.session.set({ refFloor: floor }).catch(() => {});
  }
}

// Run op in the content script of the tab's top frame, injecting it first when needed.
export function callContent(tabId, op, args = {}) {
  return callFrame(tabId, 0, op, args);
}

// Run op in the content script of one frame of a tab (each frame has its own). An action in the
// top frame whose args carry `settle` (the options of the wait after it, background/settle.js)
// begins that wait in the page the moment it is done, in the same call (page/isolated.js begin):
// the wait's call that follows finds it under way, and the page's quiet is counted from the
// action's end, not from that call's arrival.
export async function callFrame(tabId, frameId, op, args = {}) {
  if (frameId === 0 && prefetched.has(tabId)) {
    const p = prefetched.get(tabId);
    prefetched.delete(tabId);
    if (op === 'snapshot' && p.maxChars === args.maxChars && Date.now() - p.at <= PREFETCH_MS) return p.snap;
  }
  const begin = op === 'act' && frameId === 0 && args.settle ? args.settle : null;
  const exec = async () => chrome.scripting.executeScript({
    target: { tabId, frameIds: [frameId] },
    func: async (o, a, f, s) => {
      const B = globalThis.__browserBridge;
      if (!B) return { ok: false, notInjected: true };
      const r = await B.run(o, a, f);
      if (s && r && r.ok && globalThis.__bbPage && globalThis.__bbPage.begin) { try { globalThis.__bbPage.begin(s); } catch { /* waited for by the next call */ } }
      return r;
    },
    args: [op, args, await refFloor(), begin],
  });
  let res;
  try {
    res = await withTimeout((async () => {
      let out = await exec();
      if (out?.[0]?.result?.notInjected) {
        await inject(tabId, frameId);
        out = await exec();
      }
      return out;
    })(), budget(op, args), tabId);
  } catch (e) {
    if (e.unresponsive) throw e;
    // The tab's URL only for the error's wording (not asked for before: a round trip per call).
    let tab;
    try { tab = await chrome.tabs.get(tabId); } catch { throw new PageError(`tab ${tabId} does not exist`); }
    throw new PageError(explain(e, tab.url || tab.pendingUrl || ''));
  }
  unresponsive.delete(tabId);
  const r = res?.[0]?.result;
  if (!r) throw new PageError(`the page did not answer (it may be navigating)`);
  noteRefs(r);
  return r;
}
