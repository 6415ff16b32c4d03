import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startService, waitForTask } from '../../helpers/harness.js';

/**
 * Free text that is drawn (the placeholder puts the prompt in an SVG) or sent to a provider may
 * not hold C0 control characters other than tab, line feed and carriage return: the schema
 * refuses them with the spec's rejection shape, naming the field, before anything is created.
 */
const CONTROLS = ['\u0000', '\u0001', '\u0007', '\u0008', '\u000b', '\u000c', '\u001b', '\u001f'];
const level = (value: string, description = 'a level of the scale') => ({ value, description });
const IMAGE = 'https://images.example/a.png';

const cases = (c: string): Array<[string, Record<string, unknown>, (string | number)[]]> => [
  ['/image/generate', { prompt: `a cat${c}` }, ['prompt']],
  ['/image/generate', { prompt: 'a cat', negative_prompt: `dogs${c}` }, ['negative_prompt']],
  [
    '/image/generate',
    { prompt: 'a cat', rating: { mode: 'custom', levels: [level('ok', `fine${c}`), level('bad')] } },
    ['rating', 'levels', 0, 'description'],
  ],
  [
    '/image/generate',
    { prompt: 'a cat', rating: { mode: 'custom', levels: [level('ok'), level(`b${c}ad`)] } },
    ['rating', 'levels', 1, 'value'],
  ],
  ['/video/generate', { prompt: `${c}a fox` }, ['prompt']],
  ['/video/generate', { prompt: 'a fox', negative_prompt: `blur${c}` }, ['negative_prompt']],
  ['/image/review', { url: IMAGE, prompt: `a sign${c}` }, ['prompt']],
  ['/image/review', { url: IMAGE, criteria: ['no text', `sharp${c}`] }, ['criteria', 1]],
  [
    '/image/rate',
    { mode: 'custom', urls: [IMAGE], levels: [level('ok', `fine${c}`), level('bad')] },
    ['levels', 0, 'description'],
  ],
];

test('a control character in a prompt, negative prompt, criterion or rating level is refused with 400 naming the field', async (t) => {
  const h = await startService(t);
  for (const c of CONTROLS) {
    for (const [path, body, field] of cases(c)) {
      const name = `${path} ${field.join('.')} U+${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
      const res = await h.request('POST', path, { auth: h.apiKey, body });
      assert.equal(res.status, 400, `${name}: ${res.text}`);
      assert.equal(res.json.success, false, name);
      assert.deepEqual(res.json.data, body, `${name}: the body is echoed`);
      assert.deepEqual(
        res.json.error.map((issue: { path: unknown }) => issue.path),
        [field],
        name,
      );
      assert.match(res.json.error[0].message, /control character/, name);
    }
  }
  assert.deepEqual((await h.request('GET', '/tasks', { auth: h.apiKey })).json.data, [], 'nothing was created');
});

test('tab, line feed and carriage return are text: such a prompt is drawn and the image made', async (t) => {
  const h = await startService(t);
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a cat\ton a mat\r\nat noon', negative_prompt: 'dogs\n' },
  });
  assert.equal(created.status, 201, created.text);
  const task = await waitForTask(h, created.json.data.taskId);
  assert.equal(task.status, 'completed', JSON.stringify(task.result));
  assert.equal(task.result.images[0].status, 'success');
});
