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
// The ARIA a custom element's class gives it through its ElementInternals (attachInternals():
// RHDS's rh-switch, rh-tab; Material Web's md-radio, md-primary-tab), which no attribute shows:
// the isolated world asks for one element's (askEvent, dispatched on it) and the page's world
// answers at once (internalsEvent, on the document), synchronously, within the ask's dispatch.
export const askEvent = (secret) => `browser-bridge-${secret}-ask`;
export const internalsEvent = (secret) => `browser-bridge-${secret}-internals`;
// The attribute each ElementInternals property stands for (ARIAMixin), as the content script reads
// them: the element's own attribute, when it has one, wins over its internals' default.
export const INTERNALS_ARIA = [
  ['role', 'role'], ['aria-label', 'ariaLabel'], ['aria-checked', 'ariaChecked'], ['aria-selected', 'ariaSelected'],
  ['aria-expanded', 'ariaExpanded'], ['aria-pressed', 'ariaPressed'], ['aria-disabled', 'ariaDisabled'],
  ['aria-valuenow', 'ariaValueNow'], ['aria-valuetext', 'ariaValueText'], ['aria-valuemin', 'ariaValueMin'],
  ['aria-valuemax', 'ariaValueMax'], ['aria-haspopup', 'ariaHasPopup'], ['aria-level', 'ariaLevel'],
  ['aria-readonly', 'ariaReadOnly'], ['aria-required', 'ariaRequired'], ['aria-invalid', 'ariaInvalid'],
  ['aria-current', 'ariaCurrent'], ['aria-multiselectable', 'ariaMultiSelectable'], ['aria-orientation', 'ariaOrientation'],
  ['aria-placeholder', 'ariaPlaceholder'], ['aria-hidden', 'ariaHidden'], ['aria-posinset', 'ariaPosInSet'], ['aria-setsize', 'ariaSetSize'],
];
