import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../../../src/cli/output.js';
import { paramsFromFlags } from '../../../src/cli/param-flags.js';

const MODELS = [
  { id: 'plain', default: false },
  {
    id: 'flux',
    default: true,
    parameters: {
      steps: { type: 'integer' },
      cfg: { type: 'number' },
      hires: { type: 'boolean' },
      sampler: { type: 'enum' },
      note: { type: 'string' },
    },
  },
] as const;

/** paramsFromFlags over a fixed listing, counting how often it is read. */
function typed(flags: string[] | undefined, model?: string) {
  let reads = 0;
  const answer = paramsFromFlags(flags, model, async () => {
    reads++;
    return MODELS;
  });
  return { answer, reads: () => reads };
}

test('each value is typed as its parameter is declared: integer and number as numbers, boolean from true/false/yes/no/1/0, string and enum as given', async () => {
  const flags = ['steps=30', 'cfg=-4.5', 'hires=YES', 'sampler=dpmpp_2m', 'note=a=b, c '];
  assert.deepEqual(await typed(flags).answer, {
    steps: 30,
    cfg: -4.5,
    hires: true,
    sampler: 'dpmpp_2m',
    note: 'a=b, c ',
  });
  for (const [text, value] of [
    ['true', true],
    ['no', false],
    ['1', true],
    ['0', false],
    ['False', false],
  ] as const)
    assert.deepEqual(await typed([`hires=${text}`], 'flux').answer, { hires: value });
});

test('no --param: no listing read and nothing added', async () => {
  const none = typed(undefined);
  assert.equal(await none.answer, undefined);
  assert.equal(none.reads(), 0);
  assert.equal(await typed([]).answer, undefined);
});

test('a wrong type, an unknown name, a model without parameters, a malformed or repeated flag is a UsageError saying which', async () => {
  const refused: [string[], string | undefined, RegExp][] = [
    [['steps=ten'], undefined, /--param steps must be a number, not "ten"/],
    [['steps='], undefined, /--param steps must be a number/],
    [['steps=1.5'], undefined, /--param steps must be a whole number/],
    [['cfg=1e999'], undefined, /--param cfg must be a number/],
    [['hires=maybe'], undefined, /--param hires must be true or false/],
    [['size=3'], 'auto', /model flux has no parameter "size" \(it has: steps, cfg, hires, sampler, note\)/],
    [['steps=3'], 'plain', /model plain declares no parameters/],
    [['steps=3'], 'ghost', /the server has no model ghost \(models: plain, flux\)/],
    [['steps'], undefined, /--param must be NAME=VALUE, not "steps"/],
    [['=3'], undefined, /--param must be NAME=VALUE/],
    [['steps=3', 'steps=4'], undefined, /--param steps is given twice/],
  ];
  for (const [flags, model, message] of refused)
    await assert.rejects(
      typed(flags, model).answer,
      (err: Error) => err instanceof UsageError && message.test(err.message),
      flags.join(' '),
    );
});

test('a malformed flag is refused before the listing is read', async () => {
  const malformed = typed(['steps']);
  await assert.rejects(malformed.answer, UsageError);
  assert.equal(malformed.reads(), 0);
});
