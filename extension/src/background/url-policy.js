// Which URLs the extension itself may open or navigate to: the same ones the daemon's open_url
// accepts. http and https always; file: only when the daemon's `welcome` said
// "allowFileUrls": true (the user's `allow_file_urls` opt-in; absent means false); about:blank
// for an empty tab. Everything else (javascript:, data:, blob:, chrome:, filesystem:, ftp: …) is
// refused — a page must never get the extension to open what the page itself could not.

let allowFile = false;

// Called with the daemon's `welcome` data on every (re)connection.
export function setPolicyFromWelcome(data) {
  allowFile = !!(data && data.allowFileUrls === true);
}

export function fileUrlsAllowed() {
  return allowFile;
}

// Returns null when `url` (absolute) may be opened, else one sentence saying why not.
export function refusal(url) {
  let u;
  try { u = new URL(String(url)); } catch { return `${JSON.stringify(String(url).slice(0, 200))} is not a valid URL`; }
  const p = u.protocol;
  if (p === 'http:' || p === 'https:') return null;
  if (u.href === 'about:blank') return null;
  const shown = u.href.length > 200 ? u.href.slice(0, 199) + '…' : u.href;
  if (p === 'file:') {
    if (allowFile) return null;
    return `the URL ${shown} was refused: file: URLs are not opened unless the daemon is started with allow_file_urls`;
  }
  return `the URL ${shown} was refused: only http and https URLs are opened${allowFile ? ' (and file: URLs)' : ''}, not ${p}`;
}

// Whether the extension can run its content script in a page at `url` (not a browser page).
export function isScriptableUrl(url) {
  return /^(https?|file|ftp):/i.test(url || '');
}
