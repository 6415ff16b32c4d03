import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import { startServer } from '../../../src/app/server.js';
import { deepMerge, loadConfig } from '../../../src/config/load.js';
import { fakeProviders } from '../../fixtures/test-providers.js';
import { mountTestRoutes, testTaskType } from '../../fixtures/test-task-type.js';
import { runCli } from '../../helpers/cli.js';
import { eventually, type Harness, send, startService, testStore, waitForTask } from '../../helpers/harness.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { startReceiver } from '../../helpers/receiver.js';

/** Items run one at a time, so each finishes on its own and has its own event. */
const ONE_AT_A_TIME = { work: { lanes: { test: 1 } } };

interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

/** An open event stream: its events as they come, its comments, and whether it has ended. */
interface Stream {
  status: number;
  headers: Headers;
  /** The next event; rejects if the stream ends first. */
  next(timeoutMs?: number): Promise<SseEvent>;
  /** Every event until the stream ends. */
  rest(timeoutMs?: number): Promise<SseEvent[]>;
  comments: string[];
  ended: Promise<void>;
  close(): void;
}

async function openStream(
  url: string,
  path: string,
  options: { auth?: string; headers?: Record<string, string> } = {},
): Promise<Stream & { json?: any }> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  if (options.auth) headers.authorization = `Bearer ${options.auth}`;
  const res = await fetch(`${url}${path}`, { headers, signal: controller.signal });
  const isJson = res.headers.get('content-type')?.startsWith('application/json');
  const json = isJson ? await res.json() : undefined;
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let waiting: (() => void) | undefined;
  let done = false;
  let buffer = '';
  const ended = (async () => {
    if (!res.body || isJson) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event: SseEvent = { event: 'message', data: '' };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length) {
            event.data = JSON.parse(data.join('\n'));
            events.push(event);
          }
          waiting?.();
          cut = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // aborted by close()
    } finally {
      done = true;
      waiting?.();
    }
  })();
  let read = 0;
  const next = async (timeoutMs = 10_000): Promise<SseEvent> => {
    const deadline = Date.now() + timeoutMs;
    while (read >= events.length) {
      if (done) throw new Error('the stream ended');
      if (Date.now() > deadline) throw new Error('no event in time');
      await new Promise<void>((resolve) => {
        waiting = resolve;
        setTimeout(resolve, 50);
      });
    }
    return events[read++];
  };
  return {
    status: res.status,
    headers: res.headers,
    json,
    next,
    async rest(timeoutMs = 10_000) {
      await Promise.race([
        ended,
        new Promise((_, reject) => setTimeout(() => reject(new Error('the stream did not end in time')), timeoutMs)),
      ]);
      const out = events.slice(read);
      read = events.length;
      return out;
    },
    comments,
    ended,
    close: () => controller.abort(),
  };
}

const create = async (h: Harness, body: object) =>
  (await h.request('POST', '/test/tasks', { auth: h.apiKey, body })).json.data as {
    taskId: string;
    access: { publicAccessToken: string };
  };

test('a stream sends the current state, an event per finished item, then settled, and ends', async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const { taskId } = await create(h, { items: 3, delayMs: 250, failItems: [1] });
  const stream = await openStream(h.url, `/tasks/${taskId}/events`, { auth: h.apiKey });
  assert.equal(stream.status, 200);
  assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
  assert.equal(stream.headers.get('cache-control'), 'no-cache');
  const first = await stream.next();
  assert.equal(first.event, 'task');
  assert.equal(first.data.status, 'pending');
  assert.deepEqual(Object.keys(first.data), [
    'id',
    'status',
    'type',
    'cost',
    'createdAt',
    'updatedAt',
    'request',
    'result',
    'apiKeyId',
    'userId',
    'metadata',
    'priority',
    'dataRemoved',
    'progress',
  ]);
  assert.equal(first.data.id, taskId);
  assert.equal(first.data.progress.total, 3);
  const events = [first, ...(await stream.rest())];
  const last = events.at(-1)!;
  assert.equal(last.event, 'settled');
  assert.equal(last.data.status, 'completed');
  assert.equal(last.id, '4', 'three finished items, plus one for the settlement');
  assert.deepEqual(
    last.data.progress.items.map((i: { status: string }) => i.status),
    ['success', 'failed', 'success'],
  );
  assert.equal(last.data.progress.items[1].error.code, 'RESTRICTED_CONTENT');
  assert.deepEqual(last.data.progress, { ...last.data.progress, total: 3, finished: 3, succeeded: 2, failed: 1 });
  const ids = events.map((e) => Number(e.id));
  assert.deepEqual(
    ids,
    [...ids].sort((a, b) => a - b),
    'ids only grow',
  );
  assert.equal(new Set(ids).size, ids.length, 'no state is sent twice');
  // Every state from the first on: each item recorded alone, the last one with the settlement (so no id 3).
  const expected = [
    ...Array.from({ length: 3 - Number(first.id) }, (_, i) => `task#${Number(first.id) + i}`),
    'settled#4',
  ];
  assert.deepEqual(
    events.map((e) => `${e.event}#${e.id}`),
    expected,
  );
  assert.deepEqual(
    events.slice(1, -1).map((e) => e.data.progress.finished),
    events.slice(1, -1).map((e) => Number(e.id)),
  );
  const task = await waitForTask(h, taskId);
  assert.deepEqual(
    { ...last.data, progress: undefined },
    { ...task, progress: undefined },
    'the settled event is the task as GET /tasks/{id} shows it',
  );
  await stream.ended;
  await eventually(() => h.server.services.taskStreams.stats().streams === 0);
});

test('a task cancelled with both items running: the settled event, GET, result, the stored task, its event and its webhook all show both items failed TASK_CANCELLED', async (t) => {
  const hook = await startReceiver(t);
  const h = await startService(t, {
    config: { work: { lanes: { test: 2 } }, webhooks: { allowPrivateAddresses: true } },
  });
  const { taskId } = await create(h, { items: 2, delayMs: 60_000, webhook: { custom: [{ url: hook.url() }] } });
  await eventually(() => (h.server.services.lanes.stats().test?.running ?? 0) === 2);
  const stream = await openStream(h.url, `/tasks/${taskId}/events`, { auth: h.apiKey });
  const first = await stream.next();
  assert.deepEqual([first.event, first.id, first.data.progress.finished], ['task', '0', 0]);

  const cancelled = await h.request('POST', `/tasks/${taskId}/cancel`, { auth: h.apiKey });
  assert.equal(cancelled.status, 200, cancelled.text);
  const events = await stream.rest();
  assert.deepEqual(
    events.map((e) => [e.event, e.id]),
    [['settled', '3']],
    'one settled event, id total + 1: both items finished (failed) and the settlement',
  );
  const settled = events[0].data;
  const item = {
    status: 'failed',
    error: { code: 'TASK_CANCELLED', message: 'the task was cancelled before this item finished' },
  };
  assert.deepEqual(settled.progress, { total: 2, finished: 2, succeeded: 0, failed: 2, items: [item, item] });
  const errors = [{ code: 'TASK_CANCELLED', message: 'the task was cancelled; nothing was charged' }];
  assert.deepEqual([settled.status, settled.cost, settled.result, settled.errors], ['failed', '0', null, errors]);

  const task = (await h.request('GET', `/tasks/${taskId}`, { auth: h.apiKey })).json.data;
  assert.deepEqual(
    { ...settled, progress: undefined },
    { ...task, progress: undefined },
    'the settled event is the task as GET /tasks/{id} shows it',
  );
  assert.deepEqual(cancelled.json.data, task, 'and as the cancel answered it');
  const result = (await h.request('GET', `/tasks/${taskId}/result`, { auth: h.apiKey })).json.data;
  assert.deepEqual(result, { id: taskId, status: 'failed', type: 'test.echo', result: null });

  const { store } = h.server.services;
  const stored = (await store.tasks.get(taskId))!;
  assert.deepEqual(stored.items, [item, item], 'the stored task has both items failed, not pending');
  await eventually(async () => (await store.tasks.get(taskId))!.eventId !== undefined);
  const event = (await store.webhooks.getEvent((await store.tasks.get(taskId))!.eventId!)) as {
    type: string;
    payload: { data: unknown };
  };
  assert.equal(event.type, 'task.test.echo.failed');
  assert.deepEqual(event.payload.data, {
    taskId,
    taskType: 'test.echo',
    status: 'failed',
    cost: '0',
    errors,
    metadata: null,
  });
  const [delivered] = await hook.waitFor(1);
  assert.deepEqual(delivered.json, event.payload, 'the webhook carries the stored event');
});

test('a settled task: one settled event, then the end', async (t) => {
  const h = await startService(t);
  const { taskId } = await create(h, { items: 2 });
  await waitForTask(h, taskId);
  const stream = await openStream(h.url, `/tasks/${taskId}/events`, { auth: h.apiKey });
  const events = await stream.rest();
  assert.deepEqual(
    events.map((e) => [e.event, e.id]),
    [['settled', '3']],
  );
  assert.equal(events[0].data.status, 'completed');
});

test("the task's PAT works in the header and as ?token=, and shows the result view", async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const { taskId, access } = await create(h, { items: 2, delayMs: 100 });
  const pat = access.publicAccessToken;
  for (const stream of [
    await openStream(h.url, `/tasks/${taskId}/events`, { auth: pat }),
    await openStream(h.url, `/tasks/${taskId}/events?token=${pat}`),
  ]) {
    assert.equal(stream.status, 200);
    const events = await stream.rest();
    assert.deepEqual(Object.keys(events[0].data), ['id', 'status', 'type', 'result', 'progress']);
    assert.equal(events.at(-1)!.event, 'settled');
    assert.equal(events.at(-1)!.data.result.items.length, 2);
  }
});

test('errors before the stream are JSON: no credential 401, an API key in ?token= 401, another account or task 404', async (t) => {
  const h = await startService(t);
  const { taskId } = await create(h, { items: 1, delayMs: 2000 });
  const other = await create(h, { items: 1 });

  const anonymous = await openStream(h.url, `/tasks/${taskId}/events`);
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.json.code, 'UNAUTHORIZED');

  const keyInUrl = await openStream(h.url, `/tasks/${taskId}/events?token=${h.apiKey}`);
  assert.equal(keyInUrl.status, 401);
  assert.equal(keyInUrl.json.code, 'UNAUTHORIZED');
  assert.match(keyInUrl.json.message, /pat_/);

  const tokenInUrl = await openStream(h.url, `/tasks/${taskId}/events?token=${h.token}`);
  assert.equal(tokenInUrl.status, 401, 'an access token is refused in the URL too');

  const forged = await openStream(h.url, `/tasks/${taskId}/events?token=pat_forged`);
  assert.equal(forged.status, 401);
  assert.equal(forged.json.code, 'INVALID_TOKEN');

  const otherPat = await openStream(h.url, `/tasks/${taskId}/events?token=${other.access.publicAccessToken}`);
  assert.equal(otherPat.status, 404, "another task's PAT");
  assert.equal(otherPat.json.code, 'TASK_NOT_FOUND');

  const { services } = h.server;
  const stranger = await services.accounts.create('stranger', 1_000_000);
  const { raw } = await services.apiKeys.create({ accountId: stranger.id, name: 'k' });
  const foreign = await openStream(h.url, `/tasks/${taskId}/events`, { auth: raw });
  assert.equal(foreign.status, 404);
  assert.equal(foreign.json.code, 'TASK_NOT_FOUND');

  const missing = await openStream(h.url, '/tasks/tsk_nothere/events', { auth: h.apiKey });
  assert.equal(missing.status, 404);
  assert.equal(missing.json.code, 'TASK_NOT_FOUND');

  const { raw: noRead } = await services.apiKeys.create({
    accountId: h.accountId,
    name: 'gen-only',
    scopes: ['image:generate'],
  });
  const scopeless = await openStream(h.url, `/tasks/${taskId}/events`, { auth: noRead });
  assert.equal(scopeless.status, 403);
  assert.equal(scopeless.json.code, 'INSUFFICIENT_SCOPE');
  assert.equal(services.taskStreams.stats().streams, 0, 'a refused request leaves no watcher behind');
});

test('Last-Event-ID resumes: only newer states are sent, and after the settled event 204', async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const { taskId } = await create(h, { items: 3, delayMs: 300 });
  const path = `/tasks/${taskId}/events`;
  const first = await openStream(h.url, path, { auth: h.apiKey });
  const seen = await first.next();
  assert.equal(seen.id, '0');
  first.close();

  // Resuming from what was seen: the current state as a task event if newer, never the one already seen; if it is still
  // that one, as a progress event of the same id (the current live progress), never a second task event.
  const resumed = await openStream(h.url, path, { auth: h.apiKey, headers: { 'last-event-id': seen.id! } });
  const events = await resumed.rest();
  assert.ok(
    events.filter((e) => e.event !== 'progress').every((e) => Number(e.id) > 0),
    `no task or settled event at or before id 0 again: ${events.map((e) => `${e.event}#${e.id}`)}`,
  );
  if (events[0].event === 'progress')
    assert.equal(events[0].id, '0', 'a progress event refines the state it was resumed at');
  assert.equal(events.at(-1)!.event, 'settled');
  const settledId = events.at(-1)!.id!;
  assert.equal(settledId, '4');

  // A client that missed states gets the current one, which holds everything missed.
  const late = await openStream(h.url, path, { auth: h.apiKey, headers: { 'last-event-id': '1' } });
  assert.deepEqual(
    (await late.rest()).map((e) => [e.event, e.id]),
    [['settled', '4']],
  );

  const over = await fetch(`${h.url}${path}`, {
    headers: { authorization: `Bearer ${h.apiKey}`, 'last-event-id': settledId },
  });
  assert.equal(over.status, 204, 'after the settled event: nothing more (EventSource stops reconnecting)');
  assert.equal(await over.text(), '');

  const garbage = await openStream(h.url, path, { auth: h.apiKey, headers: { 'last-event-id': 'not-an-id' } });
  assert.deepEqual(
    (await garbage.rest()).map((e) => e.event),
    ['settled'],
    'an unknown id starts afresh',
  );
});

test('an idle stream sends heartbeats as comments', async (t) => {
  const h = await startService(t, { config: { taskEvents: { heartbeatMs: 40 } } });
  const { taskId } = await create(h, { items: 1, delayMs: 400 });
  const stream = await openStream(h.url, `/tasks/${taskId}/events`, { auth: h.apiKey });
  await stream.rest();
  assert.ok(stream.comments.filter((c) => c === 'ping').length >= 3, `pings: ${stream.comments.length}`);
});

test('a stream ends at the next heartbeat once its key is deleted; reconnecting is 401', async (t) => {
  const h = await startService(t, { config: { taskEvents: { heartbeatMs: 40 } } });
  const made = await h.request('POST', '/api-key', { auth: h.token, body: { name: 'watcher' } });
  assert.equal(made.status, 201, made.text);
  const { apiKey, raw } = made.json.data;
  const { taskId } = await create(h, { items: 1, delayMs: 60_000 });
  const path = `/tasks/${taskId}/events`;
  const stream = await openStream(h.url, path, { auth: raw });
  assert.equal((await stream.next()).event, 'task');
  await eventually(() => stream.comments.includes('ping'));
  assert.equal((await h.request('DELETE', `/api-key/${apiKey.id}`, { auth: h.token })).status, 200);
  await stream.rest(5000);
  assert.equal(
    (await h.request('GET', `/tasks/${taskId}/status`, { auth: h.apiKey })).json.data.status,
    'pending',
    'the stream ended, not the task',
  );
  const again = await openStream(h.url, path, { auth: raw });
  assert.equal(again.status, 401);
  assert.equal(again.json.code, 'UNAUTHORIZED');
});

test("a stream opened with the task's PAT ends once the PAT expires", async (t) => {
  const clock = new ManualClock(Date.parse('2026-11-22T08:00:00.000Z'));
  const h = await startService(t, { clock, config: { taskEvents: { heartbeatMs: 40 } } });
  const { taskId, access } = await create(h, { items: 1, delayMs: 60_000 });
  const stream = await openStream(h.url, `/tasks/${taskId}/events?token=${access.publicAccessToken}`);
  assert.equal((await stream.next()).event, 'task');
  await eventually(() => stream.comments.filter((c) => c === 'ping').length >= 2);
  let ended = false;
  void stream.ended.then(() => {
    ended = true;
  });
  assert.equal(ended, false, 'a valid PAT keeps its stream');
  clock.advance(61 * 60 * 1000);
  await stream.rest(5000);
  const again = await openStream(h.url, `/tasks/${taskId}/events?token=${access.publicAccessToken}`);
  assert.equal(again.status, 401);
  assert.equal(again.json.code, 'TOKEN_EXPIRED');
});

test('a client that disconnects leaves no watcher behind', async (t) => {
  const h = await startService(t);
  const { taskId } = await create(h, { items: 1, delayMs: 60_000 });
  const { taskStreams } = h.server.services;
  const streams = await Promise.all(
    Array.from({ length: 20 }, () => openStream(h.url, `/tasks/${taskId}/events`, { auth: h.apiKey })),
  );
  await Promise.all(streams.map((s) => s.next()));
  assert.deepEqual(taskStreams.stats(), { streams: 20, tasks: 1 });
  for (const s of streams.slice(0, 15)) s.close();
  await eventually(() => taskStreams.stats().streams === 5);
  for (const s of streams.slice(15)) s.close();
  await eventually(() => taskStreams.stats().streams === 0);
  assert.deepEqual(taskStreams.stats(), { streams: 0, tasks: 0 });
});

test('closing the server ends its open streams at once', async (t) => {
  const h = await startService(t);
  const { taskId } = await create(h, { items: 1, delayMs: 60_000 });
  const open = await openStream(h.url, `/tasks/${taskId}/events`, { auth: h.apiKey });
  await open.next();
  const started = Date.now();
  await h.server.close();
  await open.ended;
  assert.ok(Date.now() - started < 2000, `the close did not wait on the stream (${Date.now() - started} ms)`);
});

test('on PostgreSQL, a stream served by another process (serve --no-work) gets the changes through NOTIFY', {
  skip: testStore() !== 'postgres' && 'PostgreSQL only',
}, async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const config = loadConfig({
    env: {},
    overrides: deepMerge({ server: { host: '127.0.0.1', port: 0 } }, h.storeConfig),
  });
  const apiOnly = await startServer({
    dataDir: h.dataDir,
    config,
    role: 'api',
    taskTypes: [testTaskType as never],
    providers: fakeProviders(),
    extendApi: mountTestRoutes,
    log: () => undefined,
  });
  t.after(() => apiOnly.close());
  const { taskId } = await create(h, { items: 3, delayMs: 200 });
  const stream = await openStream(apiOnly.url, `/tasks/${taskId}/events`, { auth: h.apiKey });
  const events = [await stream.next(), ...(await stream.rest())];
  assert.equal(events.at(-1)!.event, 'settled');
  assert.ok(
    events.filter((e) => e.event === 'task' && e.data.progress.finished > 0).length >= 1,
    `item events arrived from the other process: ${events.map((e) => `${e.event}#${e.id}`).join(' ')}`,
  );
});

/** Reads events until one satisfies `done`; answers all read. */
async function readUntil(stream: Stream, done: (event: SseEvent) => boolean): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for (;;) {
    const event = await stream.next();
    events.push(event);
    if (done(event)) return events;
  }
}
const fractionOf = (event: SseEvent, index = 0): number | undefined => event.data.progress.items[index].fraction;

test('a running item’s progress is a progress event with the id of the state it refines, the last value delivered; resuming at that state gets it again as a progress event, never a second task event', async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const { taskId } = await create(h, {
    items: 1,
    progressSteps: [0.2, 0.4, 0.6, 0.8],
    progressStepMs: 20,
    delayMs: 60_000,
  });
  const path = `/tasks/${taskId}/events`;
  const stream = await openStream(h.url, path, { auth: h.apiKey });
  const events = await readUntil(stream, (e) => fractionOf(e) === 0.8);
  assert.equal(events[0].event, 'task');
  assert.ok(
    events.every((e) => e.id === '0'),
    `progress events carry the id of the state they refine: ${events.map((e) => `${e.event}#${e.id}`)}`,
  );
  assert.ok(
    events.slice(1).every((e) => e.event === 'progress'),
    events.map((e) => e.event).join(' '),
  );
  const fractions = events.map((e) => fractionOf(e) ?? 0);
  assert.deepEqual(
    fractions,
    [...fractions].sort((a, b) => a - b),
    'fractions only grow',
  );
  const last = events.at(-1)!.data;
  assert.deepEqual(
    Object.keys(last),
    [
      'id',
      'status',
      'type',
      'cost',
      'createdAt',
      'updatedAt',
      'request',
      'result',
      'apiKeyId',
      'userId',
      'metadata',
      'priority',
      'dataRemoved',
      'progress',
    ],
    'the whole state, as every event',
  );
  assert.deepEqual(last.progress.items, [{ status: 'pending', fraction: 0.8 }]);
  stream.close();

  const resumed = await openStream(h.url, path, { auth: h.apiKey, headers: { 'last-event-id': '0' } });
  const again = await resumed.next();
  assert.deepEqual(
    [again.event, again.id, fractionOf(again)],
    ['progress', '0', 0.8],
    'the current state, as a progress event of the same id',
  );
  await h.server.services.settlement.finishItem(taskId, 0, {
    status: 'success',
    cost: 10_000,
    result: { finished: 'by the test' },
  });
  const rest = await resumed.rest();
  assert.deepEqual(
    rest.map((e) => `${e.event}#${e.id}`),
    ['settled#2'],
  );
  assert.deepEqual(
    rest[0].data.progress.items,
    [{ status: 'success' }],
    'no fraction once finished, and no live fields once settled',
  );
  assert.equal(rest[0].data.progress.queuePosition, undefined);
});

test('a queued task’s stream hears its queue position move as the tasks ahead start', async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const first = await create(h, { items: 1, delayMs: 60_000 });
  await eventually(() => (h.server.services.lanes.stats().test?.running ?? 0) === 1);
  const second = await create(h, { items: 1, delayMs: 60_000 });
  const third = await create(h, { items: 1, delayMs: 60_000 });
  const stream = await openStream(h.url, `/tasks/${third.taskId}/events`, { auth: h.apiKey });
  const opening = await readUntil(stream, (e) => e.data.progress.queuePosition === 1);
  assert.equal(opening[0].event, 'task');
  assert.equal((await h.request('POST', `/tasks/${first.taskId}/cancel`, { auth: h.apiKey })).status, 200);
  const moved = await readUntil(stream, (e) => e.data.progress.queuePosition === 0);
  assert.deepEqual([moved.at(-1)!.event, moved.at(-1)!.id], ['progress', '0']);
  assert.equal((await h.request('POST', `/tasks/${second.taskId}/cancel`, { auth: h.apiKey })).status, 200);
  const started = await readUntil(stream, (e) => e.data.progress.queuePosition === undefined);
  assert.equal(started.at(-1)!.event, 'progress', 'started: no queue position');
  assert.equal((await h.request('POST', `/tasks/${third.taskId}/cancel`, { auth: h.apiKey })).status, 200);
  assert.equal((await stream.rest()).at(-1)!.event, 'settled');
});

test('on PostgreSQL, progress reported in the working process reaches a stream and GET /tasks/{id} served by another process (serve --no-work)', {
  skip: testStore() !== 'postgres' && 'PostgreSQL only',
}, async (t) => {
  const h = await startService(t, { config: ONE_AT_A_TIME });
  const config = loadConfig({
    env: {},
    overrides: deepMerge({ server: { host: '127.0.0.1', port: 0 } }, h.storeConfig),
  });
  const apiOnly = await startServer({
    dataDir: h.dataDir,
    config,
    role: 'api',
    taskTypes: [testTaskType as never],
    providers: fakeProviders(),
    extendApi: mountTestRoutes,
    log: () => undefined,
  });
  t.after(() => apiOnly.close());
  const { taskId } = await create(h, { items: 1, progressSteps: [0.3, 0.6], progressStepMs: 20, delayMs: 60_000 });
  const stream = await openStream(apiOnly.url, `/tasks/${taskId}/events`, { auth: h.apiKey });
  const events = await readUntil(stream, (e) => fractionOf(e) === 0.6);
  assert.equal(events.at(-1)!.event, 'progress');
  assert.equal(events.at(-1)!.id, '0');
  const viaOther = await send(apiOnly.url, 'GET', `/tasks/${taskId}`, { auth: h.apiKey });
  assert.deepEqual(
    viaOther.json.data.progress.items,
    [{ status: 'pending', fraction: 0.6 }],
    'GET on the other process shows the relayed fraction',
  );
  assert.equal(
    viaOther.json.data.progress.queuePosition,
    undefined,
    'where the task is queued is known only where it runs',
  );
  assert.equal((await h.request('POST', `/tasks/${taskId}/cancel`, { auth: h.apiKey })).status, 200);
  assert.equal((await stream.rest()).at(-1)!.event, 'settled');
  const after = await send(apiOnly.url, 'GET', `/tasks/${taskId}`, { auth: h.apiKey });
  assert.equal('progress' in after.json.data, false);
  await eventually(() => apiOnly.services.engine.live.elsewhereSize() === 0, 5000);
});

/**
 * A proxy in front of the server that counts the paths asked for; `breakEvents` answers the events route 404 (as a
 * server without it would) or cuts it.
 */
async function proxy(t: TestContext, target: string, breakEvents: 'no' | 'absent' | 'cut') {
  const paths: string[] = [];
  const base = new URL(target);
  const server: Server = createServer((req, res) => {
    paths.push(req.url ?? '');
    const isEvents = /\/events(\?|$)/.test(req.url ?? '');
    if (isEvents && breakEvents === 'absent') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'NOT_FOUND' }));
      return;
    }
    const upstream = httpRequest(
      { host: base.hostname, port: base.port, path: req.url, method: req.method, headers: req.headers },
      (answer: IncomingMessage) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (isEvents && breakEvents === 'cut') {
          // The first event, then the connection drops.
          answer.once('data', (chunk) => {
            res.write(chunk);
            res.destroy();
            answer.destroy();
          });
          return;
        }
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths };
}

test('imgtask tasks watch follows the stream, and falls back to polling when the route is absent or the stream breaks', async (t) => {
  const h = await startService(t);
  for (const mode of ['no', 'absent', 'cut'] as const) {
    const via = await proxy(t, h.url, mode);
    // An item that would take a minute: the test finishes it once the CLI follows the task.
    const { taskId } = await create(h, { items: 1, delayMs: 60_000 });
    const count = (suffix: string) => via.paths.filter((p) => p === `/tasks/${taskId}/${suffix}`).length;
    const watching = runCli(['tasks', 'watch', taskId, '--json'], { IMGTASK_URL: via.url, IMGTASK_API_KEY: h.apiKey });
    await eventually(() => count('events') === 1 && (mode === 'no' || count('status') >= 2), 30_000);
    await h.server.services.settlement.finishItem(taskId, 0, {
      status: 'success',
      cost: 10_000,
      result: { finished: 'by the test' },
    });
    const watched = await watching;
    assert.equal(watched.code, 0, `${mode}: ${watched.stderr}`);
    assert.equal(watched.json.id, taskId);
    assert.equal(watched.json.status, 'completed');
    assert.deepEqual(watched.json.result.items, [{ finished: 'by the test' }]);
    assert.equal(count('events'), 1, `${mode}: the events route was tried once (${via.paths.join(' ')})`);
    if (mode === 'no')
      assert.equal(
        count('status'),
        1,
        `with the stream: the one status read before following, no polling (${via.paths.join(' ')})`,
      );
    else assert.ok(count('status') > 1, `${mode}: polled after the stream failed (${via.paths.join(' ')})`);
  }
});
