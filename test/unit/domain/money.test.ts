import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatUsd, parseUsd } from '../../../src/domain/money.js';

test('USD strings parse to exact micro-USD and format back to the shortest string', async (t) => {
  const cases: Array<[string, number, string]> = [
    ['0', 0, '0'],
    ['0.0002', 200, '0.0002'],
    ['0.0004', 400, '0.0004'],
    ['0.02', 20_000, '0.02'],
    ['10', 10_000_000, '10'],
    ['25.50', 25_500_000, '25.5'],
    ['0.000001', 1, '0.000001'],
  ];
  for (const [text, micros, formatted] of cases) {
    await t.test(text, () => {
      assert.equal(parseUsd(text), micros);
      assert.equal(formatUsd(micros), formatted);
    });
  }
});

test('amounts that are negative, too precise, not numbers or too large are refused', () => {
  for (const text of ['-1', '0.0000001', '1e3', 'abc', '', '.5', '1.', '99999999999'])
    assert.equal(parseUsd(text), null, text);
});

test('sums of micro-USD stay exact where floating point would not', () => {
  const total = Array.from({ length: 3 }, () => parseUsd('0.1')!).reduce((a, b) => a + b, 0);
  assert.equal(formatUsd(total), '0.3'); // 0.1 + 0.1 + 0.1 in floating point is 0.30000000000000004
  assert.equal(formatUsd(-1500), '-0.0015');
});
