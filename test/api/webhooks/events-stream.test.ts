import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readEvents } from '../../../src/client/task-events.js';
import { eventually, type Harness, startService } from '../../helpers/harness.js';
import { startReceiver } from '../../helpers/receiver.js';

/**
 * GET /webhook/events: the account's webhook events, live, as Server-Sent Events (what `imgtask webhooks listen`
 * forwards).
 */

interface Sse {
  event: string;
  id?: string;
  data: string;
}

/** Opens the stream; answers its events one at a time (null once it ended), and the answer's headers. */
async function openStream(h: Harness, token: string, query = '') {
  const res = await fetch(`${h.url}/webhook/events${query}`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200, await (res.ok ? '' : res.text()));
  const events = readEvents(res.body!);
  return {
    headers: res.headers,
    next: async (): Promise<Sse | null> => {
      const { value, done } = await events.next();
      return done ? null : value;
    },
  };
}

/** Creates a test task and waits for it to settle (read from the store: it may be another account's). */
const task = async (h: Harness, body: Record<string, unknown>, auth = h.apiKey): Promise<string> => {
  const res = await h.request('POST', '/test/tasks', { auth, body });
  assert.equal(res.status, 201, res.text);
  const { taskId } = res.json.data;
  await eventually(async () => (await h.server.services.store.tasks.get(taskId))?.status !== 'pending');
  return taskId;
};

test("the stream sends `ready`, then each of the account's settled tasks as a dashboard webhook receives it, once; other accounts' tasks and webhook.dashboard false are left out", async (t) => {
  const h = await startService(t, { config: { webhooks: { allowPrivateAddresses: true } } });
  const receiver = await startReceiver(t);
  assert.equal((await h.request('POST', '/webhook', { auth: h.token, body: { url: receiver.url() } })).status, 201);
  const stream = await openStream(h, h.token);
  assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
  const ready = await stream.next();
  assert.equal(ready?.event, 'ready');
  assert.deepEqual(JSON.parse(ready!.data), { accountId: h.accountId, events: null });

  await task(h, { webhook: { dashboard: false } });
  const other = await h.server.services.accounts.create('other', 10_000_000);
  const otherKey = (await h.server.services.apiKeys.create({ accountId: other.id })).raw;
  await task(h, {}, otherKey);
  const mine = await task(h, { metadata: { order: 'o-7' } });

  // Events go out in settlement order: the first one being `mine` shows the two before were left out.
  const first = (await stream.next())!;
  assert.equal(first.event, 'message');
  const envelope = JSON.parse(first.data);
  assert.equal(first.id, envelope.id);
  assert.match(envelope.id, /^evt_/);
  const [delivered] = await receiver.waitFor(1);
  assert.equal(delivered.json.data.taskId, mine, 'the dashboard webhook got the same task');
  assert.deepEqual(
    { type: envelope.type, data: envelope.data },
    { type: delivered.json.type, data: delivered.json.data },
    'the very body a webhook receives, but for its own id and time',
  );
  assert.deepEqual(envelope.data.metadata, { order: 'o-7' });

  // On PostgreSQL the settlement is also announced back to this process: still one event per task.
  const failed = await task(h, { failItems: [0] });
  const second = JSON.parse((await stream.next())!.data);
  assert.deepEqual(
    [second.type, second.data.taskId, second.data.errors[0].code],
    ['task.test.echo.failed', failed, 'RESTRICTED_CONTENT'],
  );
});

test('?events= keeps the kinds named; an unknown kind is 400 VALIDATION_ERROR; an API key is refused; a bad token is 401', async (t) => {
  const h = await startService(t);
  const stream = await openStream(h, h.token, '?events=task.failed');
  assert.deepEqual(JSON.parse((await stream.next())!.data).events, ['task.failed']);
  await task(h, {});
  const failed = await task(h, { failItems: [0] });
  const only = JSON.parse((await stream.next())!.data);
  assert.deepEqual([only.type, only.data.taskId], ['task.test.echo.failed', failed], 'the completed task was left out');

  const unknown = await h.request('GET', '/webhook/events?events=task.failed,task.nope', { auth: h.token });
  assert.equal(unknown.status, 400);
  assert.deepEqual(Object.keys(unknown.json), ['code', 'message']);
  assert.equal(unknown.json.code, 'VALIDATION_ERROR');
  assert.match(unknown.json.message, /^events: unknown event kind task\.nope/);
  const key = await h.request('GET', '/webhook/events', { auth: h.apiKey });
  assert.deepEqual([key.status, key.json.code], [403, 'SCOPE_ESCALATION']);
  const bad = await h.request('GET', '/webhook/events', { auth: 'not-a-token' });
  assert.equal(bad.status, 401);
  // GET /webhook/{id} still answers for ids.
  assert.equal((await h.request('GET', '/webhook/wh_nope', { auth: h.token })).json.code, 'WEBHOOK_NOT_FOUND');
});

test('the stream ends when its access token expires (checked at each heartbeat), and when the server closes', async (t) => {
  const h = await startService(t, { config: { taskEvents: { heartbeatMs: 50 } } });
  const shortLived = (await h.server.services.tokens.issueAccessToken(h.accountId, ['manage'], 1000)).accessToken;
  const expiring = await openStream(h, shortLived);
  assert.equal((await expiring.next())?.event, 'ready');
  const lasting = await openStream(h, h.token);
  assert.equal((await lasting.next())?.event, 'ready');
  const started = Date.now();
  assert.equal(await expiring.next(), null, 'ended');
  assert.ok(Date.now() - started < 5000);

  await h.server.close();
  assert.equal(await lasting.next(), null, 'ended by the close');
});
