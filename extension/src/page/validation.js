// Form submissions the browser refused (interactive constraint validation). A click on a submit
// button, or Enter in a field, of a form with an invalid field (a required one left empty, an
// email without an @) makes the browser fire `invalid` at its invalid fields, show a bubble at the
// first and submit nothing; the page's DOM need not change at all, and the bubble is not in it.
// The action's answer says so (isolated.js), where the agent saw only that nothing happened.
// The `invalid` events the page causes itself with checkValidity(), which shows nothing, are not
// counted (main-world.js reports those calls); those of its reportValidity() show the bubble and
// are said as the page's own report, not as a refused submission.
const MAX_SEEN = 20;

// The field's name as a user reads it beside the field: its aria-label, label, placeholder, else
// its name or id.
function fieldName(el) {
  const norm = (s) => String(s || '').replace(/\s+/g, ' ').trim().slice(0, 80);
  const lab = el.labels && el.labels[0];
  return norm(el.getAttribute?.('aria-label')) || norm(lab && (lab.innerText || lab.textContent)) ||
    norm(el.getAttribute?.('placeholder')) || norm(el.name) || norm(el.id) || String(el.tagName || 'field').toLowerCase();
}

export function createValidationWatch(win) {
  const now = () => Date.now();
  const seen = []; // { t, e } of the last invalid events the browser fired, oldest first
  let submitAt = 0;
  let pageChecks = 0; // the page's checkValidity() calls under way
  let pageReports = 0; // … and its reportValidity() calls
  win.addEventListener('invalid', (e) => {
    if (pageChecks || !e.isTrusted) return;
    if (seen.length >= MAX_SEEN) seen.shift();
    seen.push({ t: now(), e, byPage: pageReports > 0 });
  }, true);
  win.addEventListener('submit', () => { submitAt = now(); }, true);
  return {
    // The page's checkValidity() began (true) or returned (false).
    pageCheck(started) { pageChecks = Math.max(0, pageChecks + (started ? 1 : -1)); },
    // The page's reportValidity() began (true) or returned (false).
    pageReport(started) { pageReports = Math.max(0, pageReports + (started ? 1 : -1)); },
    // The first field the browser found invalid at or after `since`, when no form was submitted
    // after that: { field, message } (the browser's own message; pageMessage when the page
    // cancelled the bubble to show a message of its own; reported when the page asked for it with
    // reportValidity(), no submission being refused), or null.
    refusedSince(since) {
      const first = seen.find(({ t }) => t >= since);
      if (!first || submitAt >= first.t) return null;
      const el = first.e.target;
      return {
        field: fieldName(el), message: String(el.validationMessage || '').slice(0, 300),
        ...(first.e.defaultPrevented ? { pageMessage: true } : {}),
        ...(first.byPage ? { reported: true } : {}),
      };
    },
  };
}
