// Errors a command answers with, and the words for a failed navigation (net:: codes).

// A failed command. `extra`: pageTabId (the tab whose page to send), noPage (send none: there is
// no true page to show, e.g. Chrome's error page), result (command data for the agent).
export class CommandError extends Error {
  constructor(message, extra = {}) {
    super(message);
    Object.assign(this, extra);
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const upper = (t) => t.charAt(0).toUpperCase() + t.slice(1);

// What a net:: error means, in words, for the common ones.
const NET_WHY = {
  'net::ERR_CONNECTION_REFUSED': 'the connection was refused: nothing accepts connections at that address',
  'net::ERR_NAME_NOT_RESOLVED': 'the host name could not be resolved',
  'net::ERR_NAME_RESOLUTION_FAILED': 'the host name could not be resolved',
  'net::ERR_INTERNET_DISCONNECTED': 'the computer is offline',
  'net::ERR_CONNECTION_TIMED_OUT': 'the connection timed out',
  'net::ERR_TIMED_OUT': 'the request timed out',
  'net::ERR_CONNECTION_RESET': 'the connection was reset',
  'net::ERR_CONNECTION_CLOSED': 'the server closed the connection without an answer',
  'net::ERR_EMPTY_RESPONSE': 'the server closed the connection without an answer',
  'net::ERR_ADDRESS_UNREACHABLE': 'the address is unreachable',
  'net::ERR_FILE_NOT_FOUND': 'the file does not exist',
  'net::ERR_ACCESS_DENIED': 'access was denied',
  'net::ERR_TOO_MANY_REDIRECTS': 'the page redirects in a loop',
  'net::ERR_BLOCKED_BY_CLIENT': 'the browser blocked the request',
  'net::ERR_BLOCKED_BY_RESPONSE': 'the site does not allow the page to be shown this way',
  'net::ERR_UNSAFE_PORT': 'the browser does not connect to that port',
  'net::ERR_INVALID_URL': 'the URL is not valid',
};

export function netSentence(url, code) {
  let why = NET_WHY[code];
  if (!why && /^net::ERR_(CERT|SSL)_/.test(code)) why = 'the site\'s certificate or TLS setup is not trusted';
  return `loading ${url} failed with ${code}${why ? ` (${why})` : ''}`;
}

// A navigation that brought no page: no document of it came into the tab (an answer with nothing
// to show, 204 No Content, or a download; or a navigation that never started: `kept` when the
// page being left answered "stay" to "Leave site?"), so the tab still shows what it showed
// (`shows`, its URL; '' for an empty new tab). The page sent is that one.
export function noPageError(url, tabId, { started = true, shows = '', kept = false } = {}) {
  const why = kept ? 'the page being left kept the tab (it asked "Leave site?")'
    : started ? 'the server sent no page to show (a download, or an empty answer such as 204 No Content)' : 'the browser did not start loading it';
  const where = shows && !/^about:blank/i.test(shows) ? `the tab still shows ${shows}` : 'the tab shows no page';
  return new CommandError(`Did not open ${url}: ${why}; ${where}.`, { pageTabId: tabId, result: { tabId, url, shows } });
}

// A navigation that failed: an error with the net:: code, and no page (the tab shows Chrome's
// error page, not the site).
export function navError(url, code, tabId, before = '') {
  const s = netSentence(url, code);
  return new CommandError(before ? `${before}, but ${s}.` : `${upper(s)}.`, {
    noPage: true, pageTabId: tabId, result: { tabId, url, netError: code },
  });
}
