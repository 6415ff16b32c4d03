import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fold, parseCriterion, quotedPhrases, readingContains } from '../../../src/task-types/review-criteria.js';
import { assembleReview, measure, planReview } from '../../../src/task-types/review-findings.js';

test('criteria fold to a built-in check when they are one of its phrasings', () => {
  assert.equal(fold('  Well-Exposed!  '), 'well exposed');
  const cases: Array<[string, unknown]> = [
    ['Sharp focus', { kind: 'sharpness' }],
    ['in focus.', { kind: 'sharpness' }],
    ['NOT BLURRY', { kind: 'sharpness' }],
    ['no blur', { kind: 'sharpness' }],
    ['well-exposed', { kind: 'exposure', side: 'both' }],
    ['good exposure', { kind: 'exposure', side: 'both' }],
    ['not overexposed', { kind: 'exposure', side: 'over' }],
    ['Not under-exposed', { kind: 'exposure', side: 'under' }],
    ['high resolution', { kind: 'resolution' }],
    ['at least 1920x1080', { kind: 'resolution', minWidth: 1920, minHeight: 1080 }],
    ['At least 800 × 600 px', { kind: 'resolution', minWidth: 800, minHeight: 600 }],
    ['SFW', { kind: 'sfw' }],
    ['safe for work', { kind: 'sfw' }],
    ['no nudity', { kind: 'sfw' }],
    ['no text', { kind: 'no-text' }],
    ['legible text', { kind: 'has-text' }],
    ['contains text', { kind: 'has-text' }],
    ['text "SALE 50%"', { kind: 'text', text: 'SALE 50%' }],
    ['contains the text “Open daily”', { kind: 'text', text: 'Open daily' }],
    ['product centred', null],
    ['sharp colours', null],
    ['no text on the left', null],
    ['text ""', null],
  ];
  for (const [criterion, expected] of cases) assert.deepEqual(parseCriterion(criterion), expected, criterion);
});

test('quoted phrases of a prompt, and a case- and punctuation-insensitive text match', () => {
  assert.deepEqual(quotedPhrases('a poster saying "Summer Sale!" and “50% off”, no "" empties'), [
    'Summer Sale!',
    '50% off',
  ]);
  assert.ok(readingContains('SUMMER  SALE\n50% OFF', 'summer sale!'));
  assert.ok(readingContains('SUMMER SALE 50% OFF', '50% off'));
  assert.ok(!readingContains('SUMMERSALE', 'summer sale'));
  assert.ok(!readingContains('SALES', 'sale'), 'whole words only');
});

test('the plan measures what it can, replaces defaults with asked wording, and sends the rest to the judge', () => {
  const all = { nsfw: true, ocr: true, judge: true };
  const plan = planReview(
    { prompt: 'a sign "OPEN"', criteria: ['no text', 'product centred', 'Crisp', 'logo top left'] },
    all,
  );
  assert.deepEqual(
    plan.measured.map((m) => m.criterion),
    ['resolution', 'Crisp', 'exposure', 'safe for work', 'no text', 'text "OPEN"'],
  );
  assert.deepEqual(plan.judged, ['product centred', 'logo top left']);
  assert.equal(plan.judgePrompt, true);
  const offline = planReview(
    { prompt: 'a sign "OPEN"', criteria: ['no text', 'sfw'] },
    { nsfw: false, ocr: false, judge: false },
  );
  assert.deepEqual(
    offline.measured.map((m) => m.criterion),
    ['resolution', 'sharp focus', 'exposure'],
    'no rater: no safe-for-work finding; no OCR: no text checks',
  );
  assert.deepEqual(
    offline.judged,
    ['no text', 'sfw'],
    'without their providers these need the judge (validate refuses them)',
  );
  assert.equal(offline.promptUnjudged, true);
});

test('findings state the figure and the threshold; the score counts the judged prompt score', () => {
  const limits = { minShortSide: 512, minSharpness: 100, maxClipped: 0.25, brightness: [40, 215] as [number, number] };
  const quality = { width: 640, height: 480, sharpness: 12.44, brightness: 230, shadows: 0, highlights: 0.3 };
  assert.deepEqual(measure({ kind: 'sharpness' }, { quality }, limits), {
    passed: false,
    note: 'variance of the Laplacian 12.4, below 100: the image looks blurred',
  });
  assert.deepEqual(measure({ kind: 'resolution' }, { quality }, limits), {
    passed: false,
    note: '640×480: the shorter side, 480 px, is below 512: too small',
  });
  assert.deepEqual(measure({ kind: 'exposure', side: 'under' }, { quality }, limits), {
    passed: true,
    note: 'mean brightness 230 (within 40–215); clipped shadows 0% (at most 25%)',
  });
  assert.equal(
    measure({ kind: 'exposure', side: 'both' }, { quality }, limits).note,
    'mean brightness 230 is above 215: overexposed; 30% of pixels are clipped to white, more than 25%',
  );
  assert.equal(
    measure({ kind: 'no-text' }, { quality, reading: { text: 'ab', confidence: 95 } }, limits).passed,
    true,
    'fewer than 3 letters is no legible text',
  );
  assert.equal(
    measure({ kind: 'no-text' }, { quality, reading: { text: 'HELLO', confidence: 60 } }, limits).passed,
    true,
    'below confidence 70 is no legible text',
  );
  assert.equal(
    measure({ kind: 'has-text' }, { quality, reading: { text: 'HELLO', confidence: 80 } }, limits).passed,
    true,
  );

  const review = assembleReview(
    [
      { criterion: 'resolution', passed: true, note: 'ok' },
      { criterion: 'sharp focus', passed: false, note: 'blurred' },
    ],
    {
      prompt: { passed: true, score: 0.7, note: 'close' },
      findings: [{ criterion: 'logo', passed: true, note: 'there' }],
      summary: 'Fine.',
    },
    { promptUnjudged: false },
  );
  assert.equal(review.score, Math.round(((1 + 0 + 0.7 + 1) / 4) * 100) / 100);
  assert.equal(review.verdict, 'fail');
  assert.deepEqual(
    review.findings.map((f) => f.criterion),
    ['resolution', 'sharp focus', 'matches the prompt', 'logo'],
  );
  assert.equal(review.summary, 'Passed 3 of 4 checks; failed: sharp focus (blurred). Fine.');
});
