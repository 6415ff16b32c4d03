import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkLedger } from '../../../src/services/doctor.js';
import { assertRejectsMissingCredentials } from '../../helpers/common-auth.js';
import { accountOf, eventually, type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { heldProviders } from '../../helpers/held-providers.js';
import { makeImage } from '../../helpers/images.js';
import { startReceiver } from '../../helpers/receiver.js';

/** A string no task writes by itself: found anywhere after a delete, something kept what was to go. */
const MARK = 'zq-erase-marker-40';

/** Small clips keep the real encoder fast; webhooks reach loopback receivers. */
const CONFIG = {
  webhooks: { allowPrivateAddresses: true },
  videoModels: {
    placeholder: {
      provider: 'placeholder',
      price: { perSecond: '0.002', perInput: '0.0005' },
      capabilities: {
        maxInputs: 1,
        negativePrompt: true,
        maxDurationS: 10,
        maxFps: 30,
        maxSize: '320x180',
        nativeSize: '160x90',
      },
    },
  },
};

const del = (h: Harness, taskId: string, auth: string | null = h.apiKey) =>
  h.request('DELETE', `/tasks/${taskId}`, { auth });

async function uploadOne(h: Harness): Promise<{ id: string; service_url: string }> {
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(await makeImage({ width: 96, height: 96 }))]), 'input.png');
  const res = await fetch(`${h.url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}` },
    body: form,
  });
  assert.equal(res.status, 201);
  return ((await res.json()) as { data: { files: { id: string; service_url: string }[] } }).data.files[0];
}

/** Creates one task of each type, all with the marker in what they keep; answers their ids by type. */
async function createEveryType(
  h: Harness,
  input: { id: string; service_url: string },
  sync: boolean,
): Promise<Record<string, string>> {
  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await h.request('POST', path, { auth: h.apiKey, body });
    assert.ok([200, 201, 202].includes(res.status), `${path}: ${res.status} ${res.text}`);
    return (res.json.data.taskId ?? res.json.data.task.id) as string;
  };
  const metadata = { ref: MARK };
  return {
    'image.generate': await post('/image/generate', { prompt: `a lighthouse ${MARK}`, count: 2, metadata }),
    'image.remove_background': await post('/image/remove-background', { url: input.service_url, metadata }),
    'image.rate': await post('/image/rate', { mode: 'nsfw_sfw', urls: [`${input.service_url}?${MARK}`], sync }),
    'image.alt': await post('/image/alt', { urls: [`${input.service_url}?${MARK}`], sync }),
    'image.review': await post('/image/review', { url: input.id, metadata, sync }),
    'video.generate': await post('/video/generate', { prompt: `a fox ${MARK}`, duration_s: 1, fps: 8, metadata }),
  };
}

/** Every file under the data dir's images/ and videos/ folders. */
async function storedFiles(h: Harness): Promise<string[]> {
  const out: string[] = [];
  for (const kind of ['images', 'videos']) {
    const entries = await readdir(join(h.dataDir, kind), { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries) if (entry.isFile()) out.push(entry.name);
  }
  return out.sort();
}

/** What a deleted task shows: its accounting, nothing a client wrote or an engine made. */
function assertScrubbed(task: Record<string, any>, type: string) {
  assert.equal(task.type, type);
  assert.equal(task.dataRemoved, true, `${type}: dataRemoved`);
  assert.match(task.dataRemovedAt, /^\d{4}-\d\d-\d\dT.*Z$/);
  assert.deepEqual(task.request, {});
  assert.equal(task.result, null);
  assert.equal(task.metadata, null);
  assert.ok(!JSON.stringify(task).includes(MARK), `${type}: the marker is gone from the view`);
}

test('settled tasks of every type: DELETE removes their outputs and text, keeps their accounting, and answers the same again', async (t) => {
  const h = await startService(t, { config: CONFIG });
  const { store } = h.server.services;
  const input = await uploadOne(h);
  const ids = await createEveryType(h, input, true);
  const settled: Record<string, any> = {};
  for (const [type, id] of Object.entries(ids)) settled[type] = await waitForTask(h, id, 30_000);
  for (const [type, task] of Object.entries(settled))
    assert.equal(task.status, 'completed', `${type}: ${JSON.stringify(task.errors)}`);

  // What the items stored is recorded on them (never shown): each image, the cut-out, the video and its poster, with
  // their sizes.
  const urls = [
    ...settled['image.generate'].result.images.map((i: { service_url: string }) => i.service_url),
    settled['image.remove_background'].result.image.service_url,
    settled['video.generate'].result.videos[0].service_url,
  ];
  const generate = (await store.tasks.get(ids['image.generate']))!;
  for (const [i, item] of generate.items.entries()) {
    const served = await fetch(urls[i]);
    assert.deepEqual(item.files, [{ name: urls[i].split('/').pop(), bytes: (await served.arrayBuffer()).byteLength }]);
  }
  const videoFiles = (await store.tasks.get(ids['video.generate']))!.items[0].files!.map((f) => f.name);
  const videoFile = urls[3].split('/').pop()!;
  assert.deepEqual(
    videoFiles,
    [videoFile, videoFile.replace(/\.mp4$/, '.poster.webp')],
    'the video and its poster frame',
  );
  assert.equal((await store.tasks.get(ids['image.rate']))!.items[0].files, undefined, 'rating stores nothing');
  assert.equal(settled['image.generate'].dataRemoved, false, 'a task holding its data says so');
  const before = await accountOf(h);

  for (const [type, id] of Object.entries(ids)) {
    const res = await del(h, id);
    assert.equal(res.status, 200, res.text);
    const task = res.json.data;
    assertScrubbed(task, type);
    for (const kept of ['id', 'status', 'cost', 'createdAt', 'updatedAt', 'apiKeyId', 'userId', 'priority'] as const)
      assert.deepEqual(task[kept], settled[type][kept], `${type}: ${kept} kept`);
    assert.deepEqual(
      (await h.request('GET', `/tasks/${id}`, { auth: h.apiKey })).json.data,
      task,
      'GET /tasks/{id} shows the deleted task',
    );
    const result = (await h.request('GET', `/tasks/${id}/result`, { auth: h.apiKey })).json.data;
    assert.deepEqual(result, { id, status: task.status, type, result: null, dataRemoved: true });
    const again = await del(h, id);
    assert.equal(again.status, 200, 'again: 200');
    assert.deepEqual(again.json.data, task, 'again: the same task');
    const record = (await store.tasks.get(id))!;
    assert.ok(!JSON.stringify(record).includes(MARK), `${type}: the stored record keeps no marker`);
    assert.ok(
      record.items.every((item) => item.files === undefined && item.result === undefined),
      'items keep their status and cost only',
    );
  }

  for (const url of urls) {
    const res = await fetch(url);
    assert.equal(res.status, 404, `${url} is gone`);
    assert.deepEqual(await res.json(), {
      code: 'NOT_FOUND',
      message: res.url.includes('/videos/') ? 'no such video' : 'no such image',
    });
  }
  assert.deepEqual(
    await storedFiles(h),
    [input.service_url.split('/').pop()],
    'only the upload the tasks read is left: outputs, cut-out, video and poster are gone',
  );
  assert.equal((await fetch(input.service_url)).status, 200, 'deleting a task leaves the upload it named');
  const listed = (await h.request('GET', '/tasks?limit=100', { auth: h.apiKey })).json.data;
  assert.equal(
    listed.filter((task: { dataRemoved: boolean }) => task.dataRemoved).length,
    6,
    'lists show deleted tasks as deleted',
  );
  assert.deepEqual(await accountOf(h), before, 'the balance is what it was: charges stay');
  assert.deepEqual((await checkLedger(store)).problems, []);
});

test('pending tasks of every type are cancelled first: nothing is charged, their running items are aborted and leave no file', async (t) => {
  const { gate, providers } = heldProviders();
  const h = await startService(t, { config: CONFIG, providers });
  const input = await uploadOne(h);
  gate.hold();
  const ids = await createEveryType(h, input, false);
  await eventually(() => gate.waiting() >= 3);
  assert.equal((await accountOf(h)).reserved !== '0', true, 'their estimates are reserved');

  for (const [type, id] of Object.entries(ids)) {
    const res = await del(h, id);
    assert.equal(res.status, 200, res.text);
    const task = res.json.data;
    assertScrubbed(task, type);
    assert.equal(task.status, 'failed');
    assert.equal(task.cost, '0');
    assert.deepEqual(task.errors, [{ code: 'TASK_CANCELLED' }], 'the code is kept, not the message');
  }
  await eventually(() => gate.waiting() === 0);
  gate.letGo();
  const account = await accountOf(h);
  assert.deepEqual([account.balance, account.reserved], ['100', '0'], 'nothing charged, every reserve released');
  assert.deepEqual(await storedFiles(h), [input.service_url.split('/').pop()]);
  assert.deepEqual((await checkLedger(h.server.services.store)).problems, []);
});

test('a pending task whose first image is made is charged for it, and that image is deleted too', async (t) => {
  const { gate, providers } = heldProviders({ from: 1 });
  const h = await startService(t, { config: CONFIG, providers });
  const { store } = h.server.services;
  gate.hold();
  const created = await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: MARK, count: 2 } });
  const taskId = created.json.data.taskId;
  await eventually(async () => (await store.tasks.get(taskId))!.items[0].status === 'success');
  const [made] = (await store.tasks.get(taskId))!.items[0].files!;
  assert.equal((await fetch(`${h.url}/images/${made.name}`)).status, 200);

  const res = await del(h, taskId);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.data.status, 'completed', 'one image was made: the task completed as a cancel leaves it');
  assert.equal(res.json.data.cost, '0.001');
  assert.equal((await fetch(`${h.url}/images/${made.name}`)).status, 404);
  gate.letGo();
  await eventually(async () => (await storedFiles(h)).length === 0);
  const account = await accountOf(h);
  assert.deepEqual([account.balance, account.reserved], ['99.999', '0']);
});

test('an image stored after its task was deleted (a provider that went on regardless) is removed by the run that stored it', async (t) => {
  const { gate, providers } = heldProviders({ deaf: true });
  const h = await startService(t, { config: CONFIG, providers });
  const { store } = h.server.services;
  gate.hold();
  const created = await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: MARK } });
  const taskId = created.json.data.taskId;
  await eventually(() => gate.waiting() === 1);
  const res = await del(h, taskId);
  assert.equal(res.json.data.status, 'failed');
  const stored: string[] = [];
  const { images } = h.server.services;
  const saveEncoded = images.saveEncoded.bind(images);
  images.saveEncoded = async (...args) => {
    const saved = await saveEncoded(...args);
    stored.push(saved.fileName);
    return saved;
  };
  gate.letGo();
  await eventually(() => stored.length === 1);
  assert.ok(
    (await store.tasks.get(taskId))!.items.every((item) => item.files === undefined),
    'its record was refused',
  );
  await eventually(async () => (await fetch(`${h.url}/images/${stored[0]}`)).status === 404);
  assert.deepEqual(await storedFiles(h), [], 'no file is left that no record names');
});

test("only the owner deletes: another account's or an unknown task is 404, PATs and keys without tasks:cancel are refused, the owner's access token may", async (t) => {
  const h = await startService(t, { config: CONFIG });
  const { services } = h.server;
  const created = await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: MARK } });
  const { taskId, access } = created.json.data;
  await waitForTask(h, taskId);

  const other = await services.accounts.create('other', 10_000_000);
  const { raw: otherKey } = await services.apiKeys.create({ accountId: other.id });
  const foreign = await del(h, taskId, otherKey);
  assert.equal(foreign.status, 404);
  assert.deepEqual(foreign.json, { code: 'TASK_NOT_FOUND' });
  assert.deepEqual(await del(h, 'tsk_unknown').then((r) => [r.status, r.json]), [404, { code: 'TASK_NOT_FOUND' }]);

  const pat = await del(h, taskId, access.publicAccessToken);
  assert.equal(pat.status, 401, "a PAT, even this task's, never deletes");
  assert.equal(pat.json.code, 'UNAUTHORIZED');
  const { raw: readOnly } = await services.apiKeys.create({
    accountId: h.accountId,
    scopes: ['tasks:read', 'image:generate'],
  });
  const scoped = await del(h, taskId, readOnly);
  assert.equal(scoped.status, 403);
  assert.equal(scoped.json.code, 'INSUFFICIENT_SCOPE');
  assert.deepEqual(scoped.json.scopes.required, ['tasks:cancel']);
  const { accessToken: otherToken } = await services.tokens.issueAccessToken(other.id, ['tasks:cancel'], 60_000);
  assert.equal((await del(h, taskId, otherToken)).status, 404, "another account's access token: TASK_NOT_FOUND");
  assert.equal(
    (await h.request('GET', `/tasks/${taskId}`, { auth: h.apiKey })).json.data.dataRemoved,
    false,
    'nothing refused removed anything',
  );

  const byToken = await del(h, taskId, h.token);
  assert.equal(byToken.status, 200, byToken.text);
  assert.equal(byToken.json.data.dataRemoved, true);
  await assertRejectsMissingCredentials(t, h, { method: 'DELETE', path: `/tasks/${taskId}` });
});

test("a deleted task's stored webhook event is rebuilt from what is kept: a delivery still pending sends no prompt or metadata", async (t) => {
  const h = await startService(t, {
    config: { ...CONFIG, webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0, 3_600_000], timeoutMs: 2000 } },
  });
  const { store } = h.server.services;
  const receiver = await startReceiver(t, [500, 200]);
  const hook = await h.request('POST', '/webhook', { auth: h.token, body: { url: receiver.url() } });
  assert.equal(hook.status, 201);
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: MARK, metadata: { ref: MARK } },
  });
  const taskId = created.json.data.taskId;
  const [first] = await receiver.waitFor(1);
  assert.ok(first.body.includes(MARK), 'the first attempt (answered 500) carried the metadata');
  const { eventId } = (await store.tasks.get(taskId))!;
  const [delivery] = await store.webhooks.deliveriesOfEvent(eventId!);
  await eventually(async () => (await store.webhooks.getDelivery(delivery.id))!.attempts.length === 1);
  assert.equal((await store.webhooks.getDelivery(delivery.id))!.status, 'pending', 'due again in an hour');

  assert.equal((await del(h, taskId)).status, 200);
  const event = (await store.webhooks.getEvent(eventId!))!;
  assert.ok(!JSON.stringify(event).includes(MARK), 'the stored event keeps no marker');
  const payload = event.payload as { id: string; data: Record<string, unknown> };
  assert.equal(payload.id, eventId, 'the same event, so a receiver can tell it is a redelivery');
  assert.deepEqual(payload.data, {
    taskId,
    taskType: 'image.generate',
    status: 'completed',
    cost: '0.001',
    result: null,
    metadata: null,
    dataRemoved: true,
  });

  const redelivered = await h.request('POST', `/webhook/deliveries/${delivery.id}/redeliver`, { auth: h.token });
  assert.equal(redelivered.status, 202, redelivered.text);
  const [, second] = await receiver.waitFor(2);
  assert.ok(!second.body.includes(MARK), 'the pending delivery sends the scrubbed payload');
  assert.equal(second.json.data.dataRemoved, true);
});

test("a pending task deleted has its settlement's event written scrubbed: not even the first delivery carries its metadata", async (t) => {
  const { gate, providers } = heldProviders();
  const h = await startService(t, { config: CONFIG, providers });
  const receiver = await startReceiver(t);
  gate.hold();
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: MARK, metadata: { ref: MARK }, webhook: { custom: [{ url: receiver.url() }] } },
  });
  await eventually(() => gate.waiting() === 1);
  assert.equal((await del(h, created.json.data.taskId)).status, 200);
  const [delivery] = await receiver.waitFor(1);
  gate.letGo();
  assert.ok(!delivery.body.includes(MARK), delivery.body);
  assert.equal(delivery.json.type, 'task.image.generate.failed');
  assert.deepEqual(delivery.json.data.errors, [{ code: 'TASK_CANCELLED' }]);
  assert.equal(delivery.json.data.dataRemoved, true);
});
