// Focus events for a document that does not have the system focus. In a headless browser, a
// background window or a tab behind another one, el.focus() moves document.activeElement but
// fires no focus, focusin, blur or focusout events, so widgets that open on focus (a datepicker,
// an autocomplete) never open. This wraps focus() and blur() of the world it runs in (the page's
// own world, and the extension's isolated world whose content script focuses what it clicks and
// types into): when the browser fired no event for a change of focus, it dispatches the events a
// user's focus change fires, in the same order (blur, focusout on the old element; focus,
// focusin on the new one). When the browser fires them itself (a focused window), nothing is added.

// The focused element, through open shadow roots.
function deepActive(doc) {
  let a = doc.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a;
}

const shimmed = new WeakSet(); // our wrappers (a prototype is wrapped once)

// disguise(wrapper, original): makes a wrapper read as the original (page world; main-world.js).
export function installFocusShim(win, disguise = (f) => f) {
  const FocusEvent = win.FocusEvent;
  const addEL = win.EventTarget.prototype.addEventListener;
  const removeEL = win.EventTarget.prototype.removeEventListener;
  const dispatch = win.EventTarget.prototype.dispatchEvent;
  const fire = (el, type, related) => {
    const bubbles = type === 'focusin' || type === 'focusout';
    try { dispatch.call(el, new FocusEvent(type, { bubbles, composed: true, relatedTarget: related || null, view: win })); } catch { /* detached */ }
  };
  const real = (el) => el && el !== el.ownerDocument?.body && el !== el.ownerDocument?.documentElement;

  // Run fn (a native focus/blur) and note whether the browser fired any focus event meanwhile.
  const watched = (fn) => {
    let fired = false;
    const seen = () => { fired = true; };
    addEL.call(win, 'focus', seen, true);
    addEL.call(win, 'blur', seen, true);
    try { fn(); } finally {
      removeEL.call(win, 'focus', seen, true);
      removeEL.call(win, 'blur', seen, true);
    }
    return fired;
  };

  for (const Ctor of [win.HTMLElement, win.SVGElement, win.MathMLElement].filter(Boolean)) {
    const proto = Ctor.prototype;
    const focus = proto.focus;
    const blur = proto.blur;
    if (typeof focus !== 'function' || shimmed.has(focus)) continue;
    const wrappedFocus = {
      focus(...args) {
        const doc = this.ownerDocument;
        if (!doc) return focus.apply(this, args);
        const before = deepActive(doc);
        const fired = watched(() => focus.apply(this, args));
        const after = deepActive(doc);
        if (!fired && after !== before && after === this) {
          if (real(before)) { fire(before, 'blur', this); fire(before, 'focusout', this); }
          fire(this, 'focus', real(before) ? before : null);
          fire(this, 'focusin', real(before) ? before : null);
        }
      },
    }.focus;
    const wrappedBlur = {
      blur(...args) {
        const doc = this.ownerDocument;
        if (!doc) return blur.apply(this, args);
        const before = deepActive(doc);
        const fired = watched(() => blur.apply(this, args));
        if (!fired && before === this && deepActive(doc) !== this) {
          fire(this, 'blur', null);
          fire(this, 'focusout', null);
        }
      },
    }.blur;
    shimmed.add(wrappedFocus);
    Object.defineProperty(proto, 'focus', { value: disguise(wrappedFocus, focus), writable: true, configurable: true, enumerable: true });
    Object.defineProperty(proto, 'blur', { value: disguise(wrappedBlur, blur), writable: true, configurable: true, enumerable: true });
  }
}
