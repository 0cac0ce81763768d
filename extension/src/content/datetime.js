// The value a date, time, month or datetime-local field takes, from the text a person would type
// or say: the browser shows these fields in the user's format (12/24/2026, 2:30 PM) and takes
// only ISO values (2026-12-24, 14:30) from script, so "12/24/2026" set as is left the field
// empty. Returns the field's value, or null when the text is not one.
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const pad = (n, w = 2) => String(n).padStart(w, '0');

function validDate(y, m, d) {
  if (!(y >= 1 && y <= 275760 && m >= 1 && m <= 12 && d >= 1 && d <= 31)) return null;
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCMonth() === m - 1 ? `${pad(y, 4)}-${pad(m)}-${pad(d)}` : null;
}

const monthOf = (s) => { const i = MONTHS.indexOf(String(s).slice(0, 3).toLowerCase()); return i < 0 ? 0 : i + 1; };

// A day: ISO (2026-12-24, 2026/12/24), numeric with the day or the month first (by `lang`
// when both are 12 or less: en-US takes the month first), or with a month's name.
export function parseDate(text, lang = 'en-US') {
  const s = String(text).trim().replace(/,/g, ' ').replace(/\s+/g, ' ');
  let m = s.match(/^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/);
  if (m) return validDate(+m[1], +m[2], +m[3]);
  m = s.match(/^(\d{1,2})([-/.])(\d{1,2})\2(\d{4})$/);
  if (m) {
    const a = +m[1], b = +m[3], y = +m[4];
    const monthFirst = a > 12 ? false : b > 12 ? true : m[2] === '.' ? false : /^en-(us|ph)|^en$/i.test(lang);
    return monthFirst ? validDate(y, a, b) : validDate(y, b, a);
  }
  m = s.match(/^([a-z]+)\.? (\d{1,2})(?:st|nd|rd|th)? (\d{4})$/i); // December 24 2026
  if (m && monthOf(m[1])) return validDate(+m[3], monthOf(m[1]), +m[2]);
  m = s.match(/^(\d{1,2})(?:st|nd|rd|th)?\.? ([a-z]+)\.? (\d{4})$/i); // 24 December 2026
  if (m && monthOf(m[2])) return validDate(+m[3], monthOf(m[2]), +m[1]);
  return null;
}

// A time of day: 14:30, 14:30:15, 2:30 PM, 2pm.
export function parseTime(text) {
  const m = String(text).trim().match(/^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap])?\.?\s*m?\.?$/i);
  if (!m || (m[2] === undefined && !m[4])) return null;
  let h = +m[1];
  const min = m[2] === undefined ? 0 : +m[2], sec = m[3] === undefined ? null : +m[3];
  if (m[4]) { if (h < 1 || h > 12) return null; h = (h % 12) + (/p/i.test(m[4]) ? 12 : 0); }
  if (h > 23 || min > 59 || (sec !== null && sec > 59)) return null;
  return `${pad(h)}:${pad(min)}${sec !== null ? ':' + pad(sec) : ''}`;
}

// The value for a field of this type (date, time, datetime-local, month), or null.
export function fieldValue(type, text, lang) {
  const s = String(text).trim();
  if (type === 'date') return parseDate(s, lang);
  if (type === 'time') return parseTime(s);
  if (type === 'datetime-local') {
    const m = s.match(/^(.+?)(?:[T ]|,\s*|\s+at\s+)(\d{1,2}(?::\d{2}){0,2}\s*(?:[ap]\.?m?\.?)?)$/i);
    const d = m && parseDate(m[1], lang), t = m && parseTime(m[2]);
    return d && t ? `${d}T${t}` : null;
  }
  if (type === 'month') {
    let m = s.match(/^(\d{4})[-/.](\d{1,2})$/) || null;
    if (m) return +m[2] >= 1 && +m[2] <= 12 ? `${m[1]}-${pad(+m[2])}` : null;
    m = s.match(/^(\d{1,2})[-/.](\d{4})$/);
    if (m) return +m[1] >= 1 && +m[1] <= 12 ? `${m[2]}-${pad(+m[1])}` : null;
    m = s.replace(/,/g, ' ').match(/^([a-z]+)\.?\s+(\d{4})$/i);
    return m && monthOf(m[1]) ? `${m[2]}-${pad(monthOf(m[1]))}` : null;
  }
  return s;
}
