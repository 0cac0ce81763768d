// Unit test of extension/src/content/datetime.js: the value a date, time, month or
// datetime-local field takes from the text a person would type (the browser shows these fields
// in the user's format, and takes only ISO values from script).
//   node --test tests/integration/datetime.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const src = process.env.BB_SRCDIR || path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const { parseDate, parseTime, fieldValue } = await import(pathToFileURL(path.join(src, 'extension/src/content/datetime.js')).href);

test('dates: ISO, numeric in either order (by the language when ambiguous), and with a month name', () => {
  assert.equal(parseDate('2026-12-24'), '2026-12-24');
  assert.equal(parseDate('2026/1/5'), '2026-01-05');
  assert.equal(parseDate('12/24/2026'), '2026-12-24');
  assert.equal(parseDate('24/12/2026'), '2026-12-24');
  assert.equal(parseDate('05/06/2026', 'en-US'), '2026-05-06');
  assert.equal(parseDate('05/06/2026', 'en-GB'), '2026-06-05');
  assert.equal(parseDate('05.06.2026', 'en-US'), '2026-06-05', 'dots: the day first');
  assert.equal(parseDate('December 24, 2026'), '2026-12-24');
  assert.equal(parseDate('Dec 24th 2026'), '2026-12-24');
  assert.equal(parseDate('24 December 2026'), '2026-12-24');
});

test('dates: what is not a day is null, never a guess', () => {
  for (const s of ['2026-02-30', '13/13/2026', '2026-13-01', 'next friday', '', '12/24', '0000-01-01', 'Smarch 3 2026', '1'.repeat(5000), '2026-12-24T10:00', '<img src=x>']) {
    assert.equal(parseDate(s), null, s.slice(0, 40));
  }
});

test('times: 24-hour and 12-hour, with seconds; out of range is null', () => {
  assert.equal(parseTime('14:30'), '14:30');
  assert.equal(parseTime('2:30 PM'), '14:30');
  assert.equal(parseTime('12:05 am'), '00:05');
  assert.equal(parseTime('12pm'), '12:00');
  assert.equal(parseTime('9:05:07'), '09:05:07');
  for (const s of ['24:00', '13 PM', '7', '10:60', 'noon', '']) assert.equal(parseTime(s), null, s);
});

test('datetime-local and month', () => {
  assert.equal(fieldValue('datetime-local', '2026-12-24 14:30'), '2026-12-24T14:30');
  assert.equal(fieldValue('datetime-local', '12/24/2026, 2:30 PM'), '2026-12-24T14:30');
  assert.equal(fieldValue('datetime-local', 'December 24, 2026 at 9am'), '2026-12-24T09:00');
  assert.equal(fieldValue('datetime-local', '2026-12-24'), null, 'a date without a time');
  assert.equal(fieldValue('month', '2026-12'), '2026-12');
  assert.equal(fieldValue('month', '3/2027'), '2027-03');
  assert.equal(fieldValue('month', 'March 2027'), '2027-03');
  assert.equal(fieldValue('month', '2026-13'), null);
});
