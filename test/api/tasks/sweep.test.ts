import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountOf, eventually, startService } from '../../helpers/harness.js';
import { ManualClock } from '../../helpers/manual-clock.js';

test('the sweep fails tasks pending 24 h after their last update with TASK_EXPIRED and releases the reserve', async (t) => {
  const clock = new ManualClock();
  const h = await startService(t, { clock });
  const kinds: string[] = [];
  h.server.services.events.on('task:settled', (event) => kinds.push(event.kind));
  const old = (
    await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 2, price: '1', delayMs: 60_000 } })
  ).json.data.taskId;
  clock.advance(23 * 60 * 60 * 1000);
  const recent = (
    await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 1, price: '1', delayMs: 60_000 } })
  ).json.data.taskId;
  assert.equal((await accountOf(h)).reserved, '3');

  assert.deepEqual(await h.server.services.tasks.sweep(), [], 'nothing is 24 h old yet');
  clock.advance(60 * 60 * 1000);
  assert.deepEqual(await h.server.services.tasks.sweep(), [old]);

  const task = (await h.request('GET', `/tasks/${old}`, { auth: h.apiKey })).json.data;
  assert.equal(task.status, 'failed');
  assert.equal(task.errors[0].code, 'TASK_EXPIRED');
  assert.equal(task.cost, '0');
  assert.equal((await h.request('GET', `/tasks/${recent}/status`, { auth: h.apiKey })).json.data.status, 'pending');
  const account = await accountOf(h);
  assert.deepEqual([account.balance, account.reserved], ['100', '1']);
  await eventually(() => kinds.length > 0);
  assert.deepEqual(kinds, ['task.test.echo.failed']);
  assert.deepEqual(await h.server.services.tasks.sweep(), [], 'a settled task is never swept or run again');
});
