import assert from 'node:assert/strict';
import { test } from 'node:test';
import { periodKey } from '../../../src/domain/periods.js';

test('period keys are UTC calendar days, ISO weeks starting Monday, and months', async (t) => {
  const cases: Array<[string, string, string, string]> = [
    ['2026-11-22T23:59:59.999Z', 'd:2026-11-22', 'w:2026-11-16', 'm:2026-11'], // a Sunday: its week began Monday the 16th
    ['2026-11-23T00:00:00.000Z', 'd:2026-11-23', 'w:2026-11-23', 'm:2026-11'], // Monday starts a new week
    ['2026-03-01T00:00:00.000Z', 'd:2026-03-01', 'w:2026-02-23', 'm:2026-03'], // a week spanning two months
    ['2027-01-01T12:00:00.000Z', 'd:2027-01-01', 'w:2026-12-28', 'm:2027-01'], // and two years
    ['1970-01-01T00:00:00.000Z', 'd:1970-01-01', 'w:1969-12-29', 'm:1970-01'],
  ];
  for (const [at, day, week, month] of cases) {
    await t.test(at, () => {
      const millis = Date.parse(at);
      assert.equal(periodKey('day', millis), day);
      assert.equal(periodKey('week', millis), week);
      assert.equal(periodKey('month', millis), month);
    });
  }
});
