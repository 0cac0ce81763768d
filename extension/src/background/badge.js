// The toolbar icon's badge: the connection to the daemon at a glance, and -- while a command runs --
// that an agent is acting in this browser. Fed by state.js (every connection state change goes
// through setConnState) and commands.js (each command's start and end, around its handler).
//   ON  green   connected and paired
//   …   grey    connecting (first attempt)
//   OFF grey    the daemon is not reachable (stopped, or not started yet); retrying
//   !   red     not paired, the token refused, an impostor on the port, or another error
//   RUN blue    an agent's command is running (over any of the above)
const LOOKS = {
  connected: { text: 'ON', color: '#188038' },
  connecting: { text: '…', color: '#5f6368' },
  off: { text: 'OFF', color: '#5f6368' },
  problem: { text: '!', color: '#d93025' },
  acting: { text: 'RUN', color: '#1a73e8' },
};
const PROBLEMS = new Set(['unpaired', 'unauthorized', 'impostor', 'error', 'replaced']);

let look = 'connecting';
let title = 'Browser Bridge: connecting';
let offline = false; // lost or never reached the daemon: keep OFF while retrying instead of flickering
const running = new Map(); // requestId -> command, for the title
let painting = Promise.resolve();

// Draw the badge; calls are chained so a later state never loses to an earlier one still drawing.
function paint() {
  const now = running.size ? 'acting' : look;
  const t = running.size
    ? `Browser Bridge: an agent is acting (${[...new Set(running.values())].join(', ')})`
    : title;
  const { text, color } = LOOKS[now];
  painting = painting.then(async () => {
    try {
      await chrome.action.setBadgeBackgroundColor({ color });
      await chrome.action.setBadgeText({ text });
      await chrome.action.setTitle({ title: t });
    } catch { /* no action API (tests without one): nothing to draw */ }
  });
  return painting;
}

// A connection state from connection.js (via state.js) and its one-sentence detail.
export function badgeConnection(state, detail = '') {
  if (state === 'connected') { look = 'connected'; offline = false; }
  else if (PROBLEMS.has(state)) look = 'problem';
  else if (state === 'reconnecting' || state === 'disconnected') { look = 'off'; offline = true; }
  else if (state === 'connecting') look = offline ? 'off' : 'connecting';
  else look = 'problem';
  const what = { connected: 'connected', unpaired: 'not paired', impostor: 'refused an impostor', off: 'daemon not reachable' };
  title = `Browser Bridge: ${what[state] || (look === 'off' ? what.off : state)}${detail ? ` -- ${detail}` : ''}`.slice(0, 300);
  return paint();
}

// Wrap a command's run so the badge says an agent is acting from its start to its end.
export function whileActing(requestId, command, fn) {
  return async () => {
    running.set(requestId, command);
    paint();
    try {
      return await fn();
    } finally {
      running.delete(requestId);
      paint();
    }
  };
}
