// GET /api/events (Server-Sent Events) → store.js. Reconnects with back-off; on 401 the
// app switches to the login screen (checked via /api/status because EventSource hides the code).
import { getJson, request } from './api.js';
import * as store from './store.js';

let source = null;
let retryTimer = null;
let retryDelay = 1000;
let statusTimer = null;
let stopped = false;
let backfilled = false;

export function startEvents() {
  stopped = false;
  connect();
}

export function stopEvents() {
  stopped = true;
  clearTimeout(retryTimer);
  if (source) source.close();
  source = null;
  store.setSse('closed');
}

function connect() {
  if (stopped) return;
  if (source) source.close();
  store.setSse(store.state.sse === 'open' ? 'reconnecting' : store.state.sse);
  const es = new EventSource(new URL('api/events', document.baseURI).href);
  source = es;

  es.addEventListener('open', () => {
    retryDelay = 1000;
    store.setSse('open');
  });
  es.addEventListener('error', () => {
    if (stopped || source !== es) return;
    if (es.readyState === EventSource.CLOSED) {
      store.setSse('reconnecting');
      es.close();
      // The server refused the stream (e.g. 401 after a daemon restart) or is gone: ask why.
      request('api/status').then(
        () => scheduleReconnect(),
        (e) => { if (e.status !== 401) scheduleReconnect(); },
      );
    } else {
      store.setSse('reconnecting'); // EventSource retries by itself
    }
  });

  on(es, 'hello', (d) => {
    store.setSse('open');
    store.state.version = d.version ?? store.state.version;
    store.state.callsInFlight = d.calls_in_flight ?? 0;
    store.setBrowsers(d.browsers || []);
    store.setSessions(d.sessions || []);
    if (!backfilled) {
      backfilled = true;
      backfill();
    }
  });
  on(es, 'browser', (d) => {
    store.browserEvent(d);
    refreshStatusSoon();
  });
  on(es, 'call_start', store.callStart);
  on(es, 'call_end', store.callEnd);
  on(es, 'page', store.pageEvent);
  on(es, 'session', store.sessionEvent);
}

function on(es, name, fn) {
  es.addEventListener(name, (ev) => {
    let data;
    try {
      data = JSON.parse(ev.data);
    } catch {
      return;
    }
    fn(data);
  });
}

function scheduleReconnect() {
  if (stopped) return;
  clearTimeout(retryTimer);
  retryTimer = setTimeout(connect, retryDelay);
  retryDelay = Math.min(retryDelay * 2, 15000);
}

/** Browser events carry few fields; /api/status has the full picture (versions, tabs). */
function refreshStatusSoon() {
  clearTimeout(statusTimer);
  statusTimer = setTimeout(async () => {
    try {
      const s = await getJson('api/status');
      store.state.callsInFlight = s.calls_in_flight ?? store.state.callsInFlight;
      store.setBrowsers(s.browsers || []);
    } catch {
      /* shown elsewhere */
    }
  }, 300);
}

async function backfill() {
  try {
    const h = await getJson('api/history?limit=20&group=none'); // every capture, as the live events show them
    store.backfillPages(h.pages || []);
  } catch {
    /* optional */
  }
  try {
    const list = commandList(await getJson(`api/commands?limit=${BACKFILL_CALLS}`));
    store.backfillCalls(list);
    if (list.length < BACKFILL_CALLS) store.setCallsExhausted(true);
  } catch {
    /* optional */
  }
}

const BACKFILL_CALLS = 50;
const OLDER_PAGE = 100; // calls per GET /api/commands when loading older ones
const OLDER_REQUESTS = 10; // at most this many requests per "load more"

function commandList(c) {
  const list = Array.isArray(c) ? c : c?.commands || c?.calls || c?.items;
  return Array.isArray(list) ? list : [];
}

/**
 * Fetches calls older than the oldest one held (GET /api/commands?before=) until `wanted(added)`
 * says enough, the log has nothing older, the store is full or OLDER_REQUESTS were made.
 * Throws ApiError when a request fails.
 */
export async function loadOlderCalls(wanted) {
  let before = store.oldestCallId();
  let added = 0;
  for (let i = 0; i < OLDER_REQUESTS; i++) {
    if (store.state.callsExhausted || store.state.calls.length >= store.MAX_CALLS || wanted(added)) break;
    const params = new URLSearchParams({ limit: String(OLDER_PAGE) });
    if (before !== null) params.set('before', String(before));
    const list = commandList(await getJson(`api/commands?${params}`));
    added += store.backfillCalls(list);
    const ids = list.map((c) => c?.id).filter(Number.isSafeInteger);
    if (list.length < OLDER_PAGE || !ids.length) {
      store.setCallsExhausted(true);
      break;
    }
    before = Math.min(...ids);
  }
  return added;
}
