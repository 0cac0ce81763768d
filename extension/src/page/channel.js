// The private channel between the page's own world (main-world.js) and the extension's isolated
// world (isolated.js) in one frame. Both are registered to run at document_start, before any
// script of the page, in either order: each announces itself, and the isolated side answers with
// a fresh random secret that names the events they exchange from then on. The page side
// acknowledges on the secret channel; from then on neither side listens for announcements. A page script, which
// runs later, cannot learn the secret, so it can neither forge a dialog record nor change how the
// agent asked the next dialog to be answered. (When the extension had to inject both late, into a
// page that was open before it could register them, a page listening for the announcement could
// learn it; the worst it can then do is report dialogs that never opened.)
export const HELLO_MAIN = 'browser-bridge-hello-main';
export const HELLO_ISOLATED = 'browser-bridge-hello-isolated';
export const recordEvent = (secret) => `browser-bridge-${secret}-dialog`;
export const policyEvent = (secret) => `browser-bridge-${secret}-policy`;
export const ackEvent = (secret) => `browser-bridge-${secret}-ack`;
export const netEvent = (secret) => `browser-bridge-${secret}-net`;
// Console messages and requests the page's own world saw (console-main.js, network-main.js).
export const observeEvent = (secret) => `browser-bridge-${secret}-observe`;
export const shadowEvent = (secret) => `browser-bridge-${secret}-shadow`;
