import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, type Harness, startService } from '../helpers/harness.js';
import { hasScript, startInTerminal } from '../helpers/terminal.js';

const create = async (h: Harness, body: object): Promise<string> => {
  const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId;
};

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences, taken out to read the text
const plain = (screen: string) => screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

test('imgtask tasks watch on a terminal: a progress bar with the queue position while queued, then the running item’s fraction, then the report', {
  skip: !hasScript && 'needs script (util-linux)',
}, async (t) => {
  // On PostgreSQL a process takes as many tasks as twice its widest lane (or defaultConcurrency): both run here.
  const h = await startService(t, { config: { work: { lanes: { test: 1 }, defaultConcurrency: 4 } } });
  const ahead = await create(h, { items: 1, delayMs: 60_000 });
  await eventually(() => (h.server.services.lanes.stats().test?.running ?? 0) === 1);
  const taskId = await create(h, { items: 1, progressSteps: [0.5], delayMs: 60_000 });
  const watching = startInTerminal(['tasks', 'watch', taskId], { IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey });
  const shows = (pattern: RegExp) =>
    eventually(() => pattern.test(plain(watching.screen())), 30_000).catch((err: Error) => {
      throw new Error(`${err.message}: ${pattern} not on the screen:\n${plain(watching.screen())}`);
    });
  await shows(/░{20} 0% {2}next in queue/);

  // The task ahead settles: this one starts, and its item reports half way.
  assert.equal((await h.request('POST', `/tasks/${ahead}/cancel`, { auth: h.apiKey })).status, 200);
  await shows(/█{10}░{10} 50%/);
  await shows(/image 1 \S+ working 50%/);

  await h.server.services.settlement.finishItem(taskId, 0, {
    status: 'success',
    cost: 10_000,
    result: { finished: 'by the test' },
  });
  assert.equal(await watching.exited, 0, plain(watching.screen()));
  assert.match(plain(watching.screen()), new RegExp(`${taskId} \\S+ completed`));
});
