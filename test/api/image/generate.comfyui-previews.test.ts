import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import sharp from 'sharp';
import { startServer } from '../../../src/app/server.js';
import { deepMerge, loadConfig } from '../../../src/config/load.js';
import { type FakeComfyUi, startFakeComfyUi, txt2imgWorkflow } from '../../fakes/comfyui.js';
import { type Harness, startService, testStore } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * Live previews of a ComfyUI model (docs/api/tasks.md "Live status"): the preview frames the
 * server sends while it samples reach GET /tasks/{id}/events as `preview` events, and nothing
 * of them is kept once the task settled.
 */
interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

/** Reads a task's event stream to its end (the server ends it after `settled`), calling `onEvent` as each arrives. */
async function readStream(
  h: Harness,
  taskId: string,
  options: { pat?: string; url?: string; onEvent?: (event: SseEvent) => void } = {},
): Promise<SseEvent[]> {
  // With a PAT as ?token=, as the console's EventSource follows a task; else the API key.
  const path = options.pat ? `/tasks/${taskId}/events?token=${options.pat}` : `/tasks/${taskId}/events`;
  const res = await fetch(`${options.url ?? h.url}${path}`, {
    headers: { ...(options.pat ? {} : { authorization: `Bearer ${h.apiKey}` }), accept: 'text/event-stream' },
  });
  assert.equal(res.status, 200);
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body!) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event: SseEvent = { event: 'message', data: undefined };
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event.event = line.slice(7);
        else if (line.startsWith('id: ')) event.id = line.slice(4);
        else if (line.startsWith('data: ')) event.data = JSON.parse(line.slice(6));
      }
      if (event.data === undefined) continue;
      events.push(event);
      options.onEvent?.(event);
    }
  }
  return events;
}

/** A service whose model `flux` runs on a fake ComfyUI that sends a preview with each of 12 steps of 100 ms. */
async function comfyService(t: TestContext): Promise<{ fake: FakeComfyUi; h: Harness }> {
  // Twelve steps of 100 ms after the job is released: longer than the relay's half second between two previews of an
  // item.
  const fake = await startFakeComfyUi(t, { stepDelayMs: 100, maxSteps: 12 });
  const dir = await tempDir(t);
  const workflow = join(dir, 'flux.json');
  await writeFile(workflow, JSON.stringify(txt2imgWorkflow()));
  const h = await startService(t, {
    config: {
      providers: { gpu: { type: 'comfyui', baseUrl: fake.baseUrl, pollIntervalMs: 50, timeoutMs: 20_000 } },
      models: {
        flux: {
          providers: ['gpu'],
          workflow,
          bindings: {
            prompt: '6.inputs.text',
            seed: '3.inputs.seed',
            width: '5.inputs.width',
            height: '5.inputs.height',
            batchSize: '5.inputs.batch_size',
          },
          price: { perImage: '0.01', perInput: '0.002' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false, nativeSize: '512x512' },
        },
      },
    },
  });
  return { fake, h };
}

test('ComfyUI previews: GET /tasks/{id}/events sends the running item its previews as `preview` events, none once settled, and none is stored', async (t) => {
  const { fake, h } = await comfyService(t);
  // The job waits at its first step until the stream is open: what follows is seen live.
  fake.holdJobs();
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse at dawn', model: 'flux', output: { format: 'png' } },
  });
  assert.equal(created.status, 201, created.text);
  const taskId = created.json.data.taskId as string;
  await fake.waitForMessage((m) => m.type === 'progress');
  const events = await readStream(h, taskId, {
    pat: created.json.data.access.publicAccessToken,
    onEvent: (event) => {
      if (event.event === 'task') fake.releaseJobs();
    },
  });

  // The provider asked for previews tagged with their prompt (feature_flags), and the server answered.
  assert.ok(
    fake.messages.some((m) => m.type === 'feature_flags' && m.sid !== null),
    'the feature_flags handshake was made',
  );
  const kinds = events.map((event) => event.event);
  const settledAt = kinds.indexOf('settled');
  assert.equal(settledAt, events.length - 1, `settled comes last: ${kinds.join(',')}`);
  const previews = events.filter((event) => event.event === 'preview');
  assert.ok(previews.length >= 1, `at least one preview while the item ran: ${kinds.join(',')}`);
  // At most two a second: 1.2 s of steps (24 frames at most were sent, 12 per socket kind) give a handful.
  assert.ok(previews.length <= 5, `previews are throttled: ${previews.length}`);
  for (const preview of previews) {
    assert.deepEqual(Object.keys(preview.data).sort(), ['data', 'index', 'mimeType']);
    assert.equal(preview.data.index, 0);
    assert.equal(preview.data.mimeType, 'image/jpeg');
    assert.equal(preview.id, '0', 'a preview carries the id of the state it refines');
    const bytes = Buffer.from(preview.data.data, 'base64');
    assert.equal((await sharp(bytes).metadata()).format, 'jpeg', 'a decodable JPEG');
  }
  const settled = events[settledAt].data;
  assert.equal(settled.status, 'completed', JSON.stringify(settled));

  // Nothing of the previews is stored: not in the task, and a stream opened now has only its settlement.
  const task = await h.request('GET', `/tasks/${taskId}`, { auth: h.apiKey });
  const body = JSON.stringify(task.json);
  assert.ok(!body.includes(previews[0].data.data), 'no preview data in GET /tasks/{id}');
  assert.ok(!/preview/i.test(body), `no preview field in GET /tasks/{id}: ${body}`);
  const after = await readStream(h, taskId);
  assert.deepEqual(
    after.map((event) => event.event),
    ['settled'],
  );
});

test('on PostgreSQL, previews reach a stream served by another process (serve --no-work) through NOTIFY', {
  skip: testStore() !== 'postgres' && 'PostgreSQL only',
}, async (t) => {
  const { fake, h } = await comfyService(t);
  const config = loadConfig({
    env: {},
    overrides: deepMerge({ server: { host: '127.0.0.1', port: 0 } }, h.storeConfig),
  });
  const apiOnly = await startServer({ dataDir: h.dataDir, config, role: 'api', log: () => undefined });
  t.after(() => apiOnly.close());
  fake.holdJobs();
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse at dawn', model: 'flux', output: { format: 'png' } },
  });
  assert.equal(created.status, 201, created.text);
  await fake.waitForMessage((m) => m.type === 'progress');
  const events = await readStream(h, created.json.data.taskId, {
    url: apiOnly.url,
    onEvent: (event) => {
      if (event.event === 'task') fake.releaseJobs();
    },
  });
  const previews = events.filter((event) => event.event === 'preview');
  assert.ok(previews.length >= 1, `previews from the working process: ${events.map((event) => event.event).join(',')}`);
  for (const preview of previews)
    assert.equal((await sharp(Buffer.from(preview.data.data, 'base64')).metadata()).format, 'jpeg');
  assert.equal(events.at(-1)!.event, 'settled');
});
