// Same-origin JSON API client. URLs are relative so the dashboard also works when the daemon is
// reached under a path prefix (FastCGI). The session cookie is HttpOnly: this code never sees it.

const unauthorizedListeners = new Set();

export class ApiError extends Error {
  constructor(status, data, message) {
    super(message || (data && data.message) || `HTTP ${status}`);
    this.status = status;
    this.data = data;
  }
}

export function onUnauthorized(fn) {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

export function apiUrl(path) {
  return new URL(path.replace(/^\//, ''), document.baseURI).href;
}

/**
 * Low-level request. Resolves with {status, ok, data} for every HTTP answer except 401,
 * which notifies the unauthorized listeners and throws ApiError(401). Network failures throw.
 */
export async function request(path, { method = 'GET', body, signal, accept = 'application/json' } = {}) {
  const headers = { Accept: accept };
  const init = { method, credentials: 'same-origin', cache: 'no-store', headers, signal };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(apiUrl(path), init);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, null, 'The daemon is not reachable.');
  }
  const type = res.headers.get('Content-Type') || '';
  let data = null;
  if (type.includes('json')) {
    try {
      data = await res.json();
    } catch {
      data = null;
    }
  } else {
    data = await res.text();
  }
  if (res.status === 401) {
    for (const fn of unauthorizedListeners) fn();
    throw new ApiError(401, data, 'Not logged in.');
  }
  return { status: res.status, ok: res.ok, data };
}

/** GET/POST expecting success; throws ApiError otherwise. */
export async function getJson(path, opts) {
  const r = await request(path, opts);
  if (!r.ok) throw new ApiError(r.status, r.data);
  return r.data;
}

export function logout() {
  return fetch(apiUrl('logout'), {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
  });
}
