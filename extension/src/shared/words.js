// Sentences both the service worker and the content script put in answers.

// A key pressed with no control focused (after browser_fill_form, which leaves its last field as
// a user's Tab does, an Enter submitted nothing while the answer said "Pressed Enter").
export const NO_FOCUS_NOTE = '; the keyboard focus was on no field or control, so the key went to the page itself (give a target to press it in one)';
