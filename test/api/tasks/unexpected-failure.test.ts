import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeProviders } from '../../fixtures/test-providers.js';
import { startService, waitForTask } from '../../helpers/harness.js';
import { makeImage, serveFiles } from '../../helpers/images.js';

test('an item that fails unexpectedly is UNKNOWN_ERROR for the client, and the log says why, with the stack', async (t) => {
  const broken = {
    ...fakeProviders(),
    nsfwRater: {
      async rate(): Promise<string> {
        throw new TypeError('rater exploded on a missing field');
      },
    },
  };
  const h = await startService(t, { config: { fetch: { allowPrivateAddresses: true } }, providers: broken });
  const url = await serveFiles(t, { '/a.png': await makeImage() });
  const created = await h.request('POST', '/image/rate', {
    auth: h.apiKey,
    body: { mode: 'nsfw_sfw', urls: [url('/a.png')], sync: false },
  });
  assert.equal(created.status, 202, created.text);
  const task = await waitForTask(h, created.json.data.task.id);
  // Every failed item says why; an unexpected one says only that, in fixed words.
  assert.deepEqual(task.result.results[0].error, { code: 'UNKNOWN_ERROR', message: 'the work failed unexpectedly' });
  assert.doesNotMatch(JSON.stringify(task), /exploded|TypeError|missing field/, 'the client is told no internals');
  const sync = await h.request('POST', '/image/rate', {
    auth: h.apiKey,
    body: { mode: 'nsfw_sfw', urls: [url('/a.png')] },
  });
  assert.equal(sync.status, 500);
  assert.match(
    sync.json.message,
    /^task tsk_\w+ failed: UNKNOWN_ERROR \(the work failed unexpectedly\)$/,
    'nor in the failed sync answer',
  );
  const line = h.logs.find((l) => l.includes(`task ${task.id} item 0: unexpected failure`));
  assert.ok(line, h.logs.join('\n'));
  assert.match(line, /TypeError: rater exploded on a missing field/);
  assert.match(line, /\n\s+at /, 'with its stack');
});
