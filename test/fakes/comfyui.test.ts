import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import sharp from 'sharp';
import WebSocket from 'ws';
import type { WorkflowGraph } from '../../src/domain/comfy-workflows.js';
import { ProviderError } from '../../src/domain/task-status.js';
import { createComfyUi } from '../../src/providers/remote/comfyui/generator.js';
import {
  animatedWebpWorkflow,
  type FakeComfyUi,
  fakeImageColour,
  img2imgWorkflow,
  startFakeComfyUi,
  txt2imgWorkflow,
} from './comfyui.js';

/** A client's WebSocket: the JSON messages and binary frames it received, in order. */
async function connect(fake: FakeComfyUi, clientId: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(`${fake.baseUrl.replace('http', 'ws')}/ws?clientId=${clientId}`, { headers });
  const json: { type: string; data: any }[] = [];
  const binary: Buffer[] = [];
  ws.on('message', (raw: Buffer, isBinary) => (isBinary ? binary.push(raw) : json.push(JSON.parse(String(raw)))));
  const closed = once(ws, 'close');
  await once(ws, 'open');
  /** The first message received that `match` accepts, waiting for it up to 5 s. */
  const until = async (match: (message: { type: string; data: any }) => boolean) => {
    const signal = AbortSignal.timeout(5000);
    while (!json.some(match)) await once(ws, 'message', { signal });
    return json.find(match)!;
  };
  await until((m) => m.type === 'status');
  return { ws, json, binary, closed, until };
}

async function post(fake: FakeComfyUi, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${fake.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    json: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined,
  };
}

async function getJson(fake: FakeComfyUi, path: string): Promise<any> {
  return (await fetch(`${fake.baseUrl}${path}`)).json();
}

async function get(fake: FakeComfyUi, path: string) {
  const res = await fetch(`${fake.baseUrl}${path}`);
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The txt2img graph with this seed, positive text and size. */
function graph(seed: number, text: string, width = 64, height = 48) {
  const prompt = txt2imgWorkflow() as Record<string, any>;
  prompt['3'].inputs.seed = seed;
  prompt['6'].inputs.text = text;
  Object.assign(prompt['5'].inputs, { width, height });
  return prompt;
}

const finished = (fake: FakeComfyUi, promptId: string) =>
  fake.waitForMessage((m) => m.type === 'executing' && m.data.node === null && m.data.prompt_id === promptId);

async function firstPixel(image: Buffer): Promise<number[]> {
  const { data } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return [...data.subarray(0, 3)];
}

test('a prompt runs and its messages reach the socket of the client that queued it, in order', async (t) => {
  const fake = await startFakeComfyUi(t);
  const client = await connect(fake, 'client-a');
  const other = await connect(fake, 'client-b');
  const queued = await post(fake, '/prompt', { prompt: graph(42, 'a red fox'), client_id: 'client-a' });
  assert.equal(queued.status, 200);
  assert.deepEqual(Object.keys(queued.json).sort(), ['node_errors', 'number', 'prompt_id']);
  const promptId = queued.json.prompt_id;
  await client.until((m) => m.type === 'executing' && m.data.node === null);

  const steps = client.json
    .filter((m) => m.type !== 'status' && m.type !== 'progress_state')
    .map((m) =>
      m.type === 'executing'
        ? `executing ${m.data.node}`
        : m.type === 'progress'
          ? `progress ${m.data.value}/${m.data.max}`
          : m.type,
    );
  assert.deepEqual(steps, [
    'execution_start',
    'execution_cached',
    'executing 4',
    'executing 6',
    'executing 7',
    'executing 5',
    'executing 3',
    'progress 1/3',
    'progress 2/3',
    'progress 3/3',
    'executing 8',
    'executing 9',
    'executed',
    'execution_success',
    'executing null',
  ]);
  for (const message of client.json.filter((m) => m.type !== 'status'))
    assert.equal(message.data.prompt_id, promptId, message.type);
  assert.equal(client.json.find((m) => m.type === 'progress')!.data.node, '3');
  assert.deepEqual(client.json.find((m) => m.type === 'execution_cached')!.data.nodes, []);
  // Preview frames: a ">I" event type then the payload; a client that sent no feature_flags gets the older form (1)
  // only.
  assert.deepEqual([...new Set(client.binary.map((frame) => frame.readUInt32BE(0)))], [1]);
  assert.equal(client.binary.length, 3, 'one preview per step');
  // progress_state: every node that started, each finished by the end, broadcast to every socket.
  await other.until((m) => m.type === 'progress_state' && m.data.nodes['9']?.state === 'finished');
  const states = other.json.filter((m) => m.type === 'progress_state');
  assert.deepEqual(
    Object.entries(states.at(-1)!.data.nodes).map(([id, node]: [string, any]) => [
      id,
      node.state,
      node.prompt_id,
      node.value === node.max,
    ]),
    ['3', '4', '5', '6', '7', '8', '9'].map((id) => [id, 'finished', promptId, true]),
  );
  assert.deepEqual(
    states
      .map((m) => m.data.nodes['3'])
      .filter((node) => node?.state === 'running')
      .map((node) => `${node.value}/${node.max}`),
    ['0/1', '1/3', '2/3', '3/3'],
  );
  // The other client hears the broadcasts (status, progress_state) and nothing of the job itself.
  assert.deepEqual([...new Set(other.json.map((m) => m.type))].sort(), ['progress_state', 'status']);
  assert.equal(other.binary.length, 0);
});

test('history lists the saved PNG, which /view serves at the graph size and in the colour of its seed and text', async (t) => {
  const fake = await startFakeComfyUi(t);
  const { json } = await post(fake, '/prompt', { prompt: graph(7, 'a blue lake', 100, 50), client_id: 'c' });
  await finished(fake, json.prompt_id);

  const history = await getJson(fake, `/history/${json.prompt_id}`);
  const entry = history[json.prompt_id];
  assert.equal(entry.prompt[1], json.prompt_id);
  assert.equal(entry.prompt[3].client_id, 'c');
  assert.deepEqual(entry.prompt[4], ['9']);
  assert.deepEqual(entry.outputs, {
    '9': { images: [{ filename: 'ComfyUI_00001_.png', subfolder: '', type: 'output' }] },
  });
  assert.deepEqual(
    {
      status_str: entry.status.status_str,
      completed: entry.status.completed,
      messages: entry.status.messages.map(([event]: [string]) => event),
    },
    { status_str: 'success', completed: true, messages: ['execution_start', 'execution_cached', 'execution_success'] },
  );

  const image = await get(fake, '/view?filename=ComfyUI_00001_.png&subfolder=&type=output');
  assert.equal(image.status, 200);
  assert.equal(image.headers.get('content-type'), 'image/png');
  const { width, height, format } = await sharp(image.bytes).metadata();
  // The VAE works in 8-pixel blocks: 100 × 50 comes out 96 × 48.
  assert.deepEqual({ width, height, format }, { width: 96, height: 48, format: 'png' });
  assert.deepEqual(await firstPixel(image.bytes), fakeImageColour(7, 'a blue lake'));
  assert.notDeepEqual(fakeImageColour(8, 'a blue lake'), fakeImageColour(7, 'a blue lake'));
  assert.equal((await get(fake, '/view?filename=ComfyUI_00002_.png&type=output')).status, 404);
  assert.equal((await get(fake, '/view?filename=../secret.png')).status, 400);
  assert.deepEqual(await getJson(fake, `/api/history/no-such-prompt`), {});
});

test('a prompt queued again unchanged is served from the cache: no node runs, the same files', async (t) => {
  const fake = await startFakeComfyUi(t);
  const first = await post(fake, '/prompt', { prompt: graph(1, 'same'), client_id: 'c' });
  await finished(fake, first.json.prompt_id);
  const again = await post(fake, '/prompt', { prompt: graph(1, 'same'), client_id: 'c' });
  await finished(fake, again.json.prompt_id);
  const ofAgain = fake.messages.filter(
    (m) => m.data?.prompt_id === again.json.prompt_id && m.type !== 'progress_state',
  );
  assert.deepEqual(
    ofAgain.map((m) => m.type),
    ['execution_start', 'execution_cached', 'executed', 'execution_success', 'executing'],
  );
  assert.deepEqual(ofAgain[1].data.nodes, ['3', '4', '5', '6', '7', '8', '9']);
  assert.deepEqual(fake.history(again.json.prompt_id)!.outputs, fake.history(first.json.prompt_id)!.outputs);
});

test('an invalid graph is answered 400 with ComfyUI error and node_errors, and nothing is queued', async (t) => {
  const fake = await startFakeComfyUi(t);
  const missing = graph(1, 'x');
  delete missing['6'].inputs.text;
  const noText = await post(fake, '/prompt', { prompt: missing });
  assert.equal(noText.status, 400);
  assert.deepEqual(noText.json.error, {
    type: 'prompt_outputs_failed_validation',
    message: 'Prompt outputs failed validation',
    details: '',
    extra_info: {},
  });
  assert.deepEqual(noText.json.node_errors, {
    '6': {
      errors: [
        {
          type: 'required_input_missing',
          message: 'Required input is missing',
          details: 'text',
          extra_info: { input_name: 'text' },
        },
      ],
      dependent_outputs: ['9'],
      class_type: 'CLIPTextEncode',
    },
  });

  const unknown = graph(1, 'x');
  unknown['4'].class_type = 'NoSuchLoader';
  assert.deepEqual(await post(fake, '/prompt', { prompt: unknown }), {
    status: 400,
    json: {
      error: {
        type: 'invalid_prompt',
        message: 'Cannot execute because node NoSuchLoader does not exist.',
        details: "Node ID '#4'",
        extra_info: {},
      },
      node_errors: {},
    },
  });

  const notUploaded = await post(fake, '/prompt', { prompt: img2imgWorkflow() });
  assert.equal(notUploaded.status, 400);
  assert.deepEqual(notUploaded.json.node_errors['10'].errors[0], {
    type: 'custom_validation_failed',
    message: 'Custom validation failed for node',
    details: 'image - Invalid image file: example.png',
    extra_info: { input_name: 'image' },
  });

  const outOfRange = graph(1, 'x', 8);
  outOfRange['4'].inputs.ckpt_name = 'missing.safetensors';
  const { json } = await post(fake, '/prompt', { prompt: outOfRange });
  assert.deepEqual(
    Object.entries(json.node_errors).map(([id, error]: [string, any]) => [
      id,
      error.errors.map((e: any) => `${e.type}: ${e.message} (${e.details})`),
    ]),
    [
      [
        '4',
        [
          `value_not_in_list: Value not in list (ckpt_name: 'missing.safetensors' not in ['v1-5-pruned-emaonly-fp16.safetensors', 'v1-5-pruned-emaonly.safetensors', 'sd_xl_base_1.0.safetensors', 'flux1-dev-fp8.safetensors'])`,
        ],
      ],
      ['5', ['value_smaller_than_min: Value 8 smaller than min of 16 (width)']],
    ],
  );
  assert.deepEqual((await post(fake, '/prompt', { client_id: 'c' })).json.error.type, 'no_prompt');
  assert.deepEqual(await getJson(fake, `/queue`), { queue_running: [], queue_pending: [] });
});

test('an uploaded image feeds LoadImage: img2img comes out at its size; a name taken by other bytes is numbered', async (t) => {
  const fake = await startFakeComfyUi(t);
  const upload = async (bytes: Buffer) => {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'in.png');
    form.append('overwrite', 'false');
    return (await fetch(`${fake.baseUrl}/upload/image`, { method: 'POST', body: form })).json();
  };
  const picture = await sharp({ create: { width: 40, height: 24, channels: 3, background: '#102030' } })
    .png()
    .toBuffer();
  assert.deepEqual(await upload(picture), { name: 'in.png', subfolder: '', type: 'input' });
  assert.deepEqual(
    await upload(picture),
    { name: 'in.png', subfolder: '', type: 'input' },
    'the same bytes again keep their name',
  );
  const other = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();
  assert.deepEqual(await upload(other), { name: 'in (1).png', subfolder: '', type: 'input' });

  const prompt = img2imgWorkflow() as Record<string, any>;
  prompt['10'].inputs.image = 'in.png';
  prompt['3'].inputs.seed = 5;
  const { status, json } = await post(fake, '/prompt', { prompt, client_id: 'c' });
  assert.equal(status, 200);
  await finished(fake, json.prompt_id);
  const { filename } = fake.history(json.prompt_id)!.outputs['9'].images[0] as { filename: string };
  const output = fake.file('output', '', filename)!;
  assert.deepEqual(
    await sharp(output)
      .metadata()
      .then(({ width, height }) => ({ width, height })),
    { width: 40, height: 24 },
  );
  assert.deepEqual(await firstPixel(output), fakeImageColour(5, prompt['6'].inputs.text));
  assert.deepEqual(fake.requests.find((r) => r.path === '/upload/image')!.form!.files, [
    { field: 'image', filename: 'in.png', bytes: picture.length },
  ]);
});

test('an interrupt naming the running prompt stops it alone; a queued one is deleted from the queue', async (t) => {
  const fake = await startFakeComfyUi(t);
  const client = await connect(fake, 'c');
  fake.holdJobs();
  const a = (await post(fake, '/prompt', { prompt: graph(1, 'a'), client_id: 'c' })).json.prompt_id;
  const b = (await post(fake, '/prompt', { prompt: graph(2, 'b'), client_id: 'c' })).json.prompt_id;
  await client.until((m) => m.type === 'progress' && m.data.prompt_id === a);
  const queue = await getJson(fake, `/queue`);
  assert.deepEqual(
    [queue.queue_running.map((item: any[]) => item[1]), queue.queue_pending.map((item: any[]) => item[1])],
    [[a], [b]],
  );
  assert.equal(queue.queue_running[0].length, 5);
  assert.deepEqual(await getJson(fake, `/prompt`), { exec_info: { queue_remaining: 2 } });

  assert.equal((await post(fake, '/interrupt', { prompt_id: b })).status, 200);
  assert.equal((await post(fake, '/queue', { delete: [b] })).status, 200);
  assert.deepEqual(fake.queue(), { running: a, pending: [] });
  await post(fake, '/interrupt', { prompt_id: a });
  const stopped = await client.until((m) => m.type === 'execution_interrupted');
  assert.deepEqual(
    { ...stopped.data, timestamp: 0 },
    { prompt_id: a, node_id: '3', node_type: 'KSampler', executed: ['4', '6', '7', '5'], timestamp: 0 },
  );
  await client.until((m) => m.type === 'executing' && m.data.node === null);
  assert.deepEqual(fake.interrupts, [
    { promptId: b, interrupted: false },
    { promptId: a, interrupted: true },
  ]);
  const entry = fake.history(a)!;
  assert.deepEqual(
    [entry.status.status_str, entry.status.completed, entry.status.messages.at(-1)![0], entry.outputs],
    ['error', false, 'execution_interrupted', {}],
  );
  assert.equal(fake.history(b), undefined);
  assert.equal(client.json.filter((m) => m.data?.prompt_id === b).length, 0, 'the deleted prompt never ran');
});

test('failNext makes the KSampler fail with execution_error; the next prompt reruns only what failed', async (t) => {
  const fake = await startFakeComfyUi(t);
  const client = await connect(fake, 'c');
  fake.failNext('execution_error', 'mat1 and mat2 shapes cannot be multiplied');
  const failed = (await post(fake, '/prompt', { prompt: graph(3, 'x'), client_id: 'c' })).json.prompt_id;
  const error = await client.until((m) => m.type === 'execution_error');
  assert.deepEqual(
    {
      ...error.data,
      traceback: error.data.traceback.length > 0,
      current_inputs: error.data.current_inputs.seed,
      timestamp: typeof error.data.timestamp,
    },
    {
      prompt_id: failed,
      node_id: '3',
      node_type: 'KSampler',
      executed: ['4', '6', '7', '5'],
      exception_message: 'mat1 and mat2 shapes cannot be multiplied\n',
      exception_type: 'RuntimeError',
      traceback: true,
      current_inputs: [3],
      current_outputs: [],
      timestamp: 'number',
    },
  );
  await client.until((m) => m.type === 'executing' && m.data.node === null && m.data.prompt_id === failed);
  assert.equal(
    client.json.some((m) => m.type === 'execution_success'),
    false,
  );
  assert.equal(fake.history(failed)!.status.status_str, 'error');

  const retried = (await post(fake, '/prompt', { prompt: graph(3, 'x'), client_id: 'c' })).json.prompt_id;
  await client.until((m) => m.type === 'executing' && m.data.node === null && m.data.prompt_id === retried);
  const ran = client.json
    .filter((m) => m.type === 'executing' && m.data.prompt_id === retried && m.data.node !== null)
    .map((m) => m.data.node);
  assert.deepEqual(ran, ['3', '8', '9']);
  assert.equal(fake.history(retried)!.status.status_str, 'success');
});

test('dropSocketsDuringNextJob cuts every WebSocket after the first progress; the job still lands in history', async (t) => {
  const fake = await startFakeComfyUi(t);
  const client = await connect(fake, 'c');
  fake.dropSocketsDuringNextJob();
  const promptId = (await post(fake, '/prompt', { prompt: graph(9, 'x'), client_id: 'c' })).json.prompt_id;
  const [code] = await client.closed;
  assert.equal(code, 1006, 'cut, not closed');
  // Nothing of the job reached the client after its first step.
  const heard = client.json.filter((m) => m.type !== 'status' && m.type !== 'progress_state');
  assert.deepEqual(heard.at(-1), { type: 'progress', data: { value: 1, max: 3, prompt_id: promptId, node: '3' } });
  await finished(fake, promptId);
  assert.equal(fake.history(promptId)!.status.status_str, 'success');
  assert.equal(fake.openSockets(), 0);
  // Reconnected, the client is listened to again.
  const again = await connect(fake, 'c');
  const next = (await post(fake, '/prompt', { prompt: graph(10, 'x'), client_id: 'c' })).json.prompt_id;
  await again.until((m) => m.type === 'execution_success' && m.data.prompt_id === next);
});

test('dieDuringNextJob kills the server mid-job: sockets cut, the port refuses, no history', async (t) => {
  const fake = await startFakeComfyUi(t);
  const client = await connect(fake, 'c');
  fake.dieDuringNextJob();
  await post(fake, '/prompt', { prompt: graph(11, 'x'), client_id: 'c' });
  await fake.died;
  await client.closed;
  assert.ok(client.json.some((m) => m.type === 'progress'));
  assert.equal(
    client.json.some((m) => m.type === 'execution_success'),
    false,
  );
  await assert.rejects(fetch(`${fake.baseUrl}/queue`), (err: any) => err.cause?.code === 'ECONNREFUSED');
});

test('refuse answers every request and WebSocket upgrade 503; off again, system_stats has its real shape', async (t) => {
  const fake = await startFakeComfyUi(t);
  fake.refuse();
  assert.equal((await get(fake, '/system_stats')).status, 503);
  assert.equal((await post(fake, '/prompt', { prompt: graph(1, 'x') })).status, 503);
  const ws = new WebSocket(`${fake.baseUrl.replace('http', 'ws')}/ws?clientId=c`);
  ws.on('error', () => {}); // closing it before it opened
  const [, response] = await once(ws, 'unexpected-response');
  assert.equal(response.statusCode, 503);
  ws.terminate();
  fake.refuse(false);
  const stats = JSON.parse(String((await get(fake, '/system_stats')).bytes));
  assert.deepEqual(Object.keys(stats.system).sort(), [
    'argv',
    'comfyui_version',
    'embedded_python',
    'os',
    'python_version',
    'pytorch_version',
    'ram_free',
    'ram_total',
    'required_frontend_version',
  ]);
  assert.deepEqual(Object.keys(stats.devices[0]).sort(), [
    'index',
    'name',
    'torch_vram_free',
    'torch_vram_total',
    'type',
    'vram_free',
    'vram_total',
  ]);
});

test('every request is recorded with its headers and JSON body, WebSocket upgrades included', async (t) => {
  const fake = await startFakeComfyUi(t);
  const proxy = { authorization: 'Bearer proxy-secret' };
  await connect(fake, 'c', proxy);
  const { json } = await post(fake, '/prompt', { prompt: graph(4, 'x'), client_id: 'c' }, proxy);
  await finished(fake, json.prompt_id);
  await fetch(`${fake.baseUrl}/history/${json.prompt_id}`, { headers: proxy });
  assert.deepEqual(
    fake.requests.map((r) => `${r.method} ${r.path} ${r.headers.authorization}`),
    [
      'GET /ws?clientId=c Bearer proxy-secret',
      'POST /prompt Bearer proxy-secret',
      `GET /history/${json.prompt_id} Bearer proxy-secret`,
    ],
  );
  assert.equal((fake.requests[1].json as any).client_id, 'c');
});

test('an animation workflow saves one animated WebP, listed under images with animated: [true]; object_info describes the catalogue', async (t) => {
  const fake = await startFakeComfyUi(t, { previews: false });
  const prompt = animatedWebpWorkflow() as Record<string, any>;
  Object.assign(prompt['5'].inputs, { width: 32, height: 32 });
  const { json } = await post(fake, '/prompt', { prompt, client_id: 'c' });
  await finished(fake, json.prompt_id);
  const outputs = fake.history(json.prompt_id)!.outputs['9'];
  assert.deepEqual(outputs, {
    images: [{ filename: 'ComfyUI_00001_.webp', subfolder: '', type: 'output' }],
    animated: [true],
  });
  const file = await get(fake, '/view?filename=ComfyUI_00001_.webp&type=output');
  assert.equal(file.headers.get('content-type'), 'image/webp');
  assert.deepEqual(
    await sharp(file.bytes, { animated: true })
      .metadata()
      .then(({ pages, pageHeight }) => ({ pages, pageHeight })),
    { pages: 8, pageHeight: 32 },
  );

  const info = await getJson(fake, `/object_info/KSampler`);
  assert.deepEqual(info.KSampler.input_order.required, [
    'model',
    'seed',
    'steps',
    'cfg',
    'sampler_name',
    'scheduler',
    'positive',
    'negative',
    'latent_image',
    'denoise',
  ]);
  assert.deepEqual([info.KSampler.output, info.KSampler.output_node], [['LATENT'], false]);
  assert.equal((await getJson(fake, `/object_info`)).SaveAnimatedWEBP.output_node, true);
});

test('a client that sends feature_flags first gets the server flags, and previews tagged with the prompt (event 4) only, each after its progress_state and before its progress', async (t) => {
  const fake = await startFakeComfyUi(t);
  const client = await connect(fake, 'tagged');
  client.ws.send(JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } }));
  const flags = await client.until((m) => m.type === 'feature_flags');
  assert.deepEqual(flags.data, { supports_preview_metadata: true, max_upload_size: 100 * 1024 * 1024 });
  const { json } = await post(fake, '/prompt', { prompt: graph(4, 'tagged'), client_id: 'tagged' });
  await client.until((m) => m.type === 'executing' && m.data.node === null);

  assert.equal(client.binary.length, 3, 'one preview per step');
  for (const frame of client.binary) {
    assert.equal(frame.readUInt32BE(0), 4);
    const length = frame.readUInt32BE(4);
    const metadata = JSON.parse(frame.subarray(8, 8 + length).toString('utf8'));
    assert.deepEqual([metadata.prompt_id, metadata.node_id, metadata.image_type], [json.prompt_id, '3', 'image/jpeg']);
    assert.equal((await sharp(frame.subarray(8 + length)).metadata()).format, 'jpeg');
  }
  // main.py's hook: the registry's update (progress_state, then the tagged preview) comes before `progress`.
  const sent = fake.messages.map((m) => (m.type === 'binary' ? `binary ${m.data.event}` : m.type));
  const firstProgress = sent.indexOf('progress');
  assert.deepEqual(sent.slice(firstProgress - 2, firstProgress + 1), ['progress_state', 'binary 4', 'progress']);
});

test('status is broadcast with the queue size on every change: queued, taken to run, done', async (t) => {
  const fake = await startFakeComfyUi(t);
  const client = await connect(fake, 'c');
  assert.deepEqual(client.json[0], {
    type: 'status',
    data: { status: { exec_info: { queue_remaining: 0 } }, sid: 'c' },
  });
  const { json } = await post(fake, '/prompt', { prompt: graph(12, 'status'), client_id: 'c' });
  await client.until((m) => m.type === 'executing' && m.data.node === null);
  await client.until((m) => m.type === 'status' && m.data.status.exec_info.queue_remaining === 0 && !('sid' in m.data));
  const statuses = fake.messages
    .filter((m) => m.type === 'status' && m.sid === null)
    .map((m) => m.data.status.exec_info.queue_remaining);
  assert.deepEqual(statuses, [1, 1, 0]);
  // The last status goes out after the history is written, before the final `executing` null.
  const order = fake.messages.filter((m) => m.sid === null || m.data?.prompt_id === json.prompt_id).map((m) => m.type);
  assert.deepEqual(order.slice(-2), ['status', 'executing']);
});

test('an upload larger than --max-upload-size is answered 413 as aiohttp answers it, and not stored; /features reports the limit', async (t) => {
  const fake = await startFakeComfyUi(t, { maxUploadSizeMb: 0.01 });
  const limit = Math.round(0.01 * 1024 * 1024);
  const upload = async (bytes: number, name: string) => {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), name);
    const res = await fetch(`${fake.baseUrl}/upload/image`, { method: 'POST', body: form });
    return { status: res.status, text: await res.text() };
  };
  assert.equal((await upload(4000, 'small.png')).status, 200);
  const refused = await upload(limit + 1000, 'large.png');
  assert.equal(refused.status, 413);
  assert.match(refused.text, new RegExp(`^Maximum request body size ${limit} exceeded, actual body size \\d+$`));
  assert.equal(fake.file('input', '', 'large.png'), undefined);
  assert.ok(fake.file('input', '', 'small.png'));
  assert.deepEqual(await getJson(fake, '/features'), { supports_preview_metadata: true, max_upload_size: limit });
});

test('through the provider, an input image past the upload limit fails INVALID_INPUT, not retried, and nothing is queued', async (t) => {
  const fake = await startFakeComfyUi(t, { maxUploadSizeMb: 0.01 });
  const graphOf = img2imgWorkflow() as unknown as WorkflowGraph;
  const comfy = createComfyUi({
    name: 'gpu-1',
    baseUrl: fake.baseUrl,
    headers: {},
    timeoutMs: 10_000,
    pollIntervalMs: 20,
    maxQueued: null,
    workflowOf: () => ({
      file: '/img2img.json',
      graph: graphOf,
      bindings: { prompt: '6.inputs.text', images: ['10.inputs.image'] },
    }),
  });
  // Noise does not compress: well past 10 KB as PNG.
  const noise = await sharp(randomBytes(96 * 96 * 3), { raw: { width: 96, height: 96, channels: 3 } })
    .png()
    .toBuffer();
  const err = await comfy.image
    .generate({
      model: 'edit',
      prompt: 'p',
      width: 96,
      height: 96,
      inputs: [{ data: noise, format: 'png', width: 96, height: 96 }],
      index: 0,
      seed: 1,
      options: {},
      signal: AbortSignal.timeout(10_000),
    })
    .then(
      () => assert.fail('expected a failure'),
      (e: unknown) => e,
    );
  assert.ok(err instanceof ProviderError);
  assert.deepEqual([err.code, err.retryable], ['INVALID_INPUT', false]);
  assert.match(err.message, /too large/);
  assert.equal(fake.requests.filter((r) => r.path === '/prompt').length, 0);
});

test('the model-free fixture workflows of the real-server test run on the fake: EmptyImage, the steps node (every step, with previews), LoadImage → ImageInvert, RepeatImageBatch into SaveAnimatedWEBP, a node that raises, a bad combo value', async (t) => {
  const fake = await startFakeComfyUi(t);
  const client = await connect(fake, 'c');
  const fixture = (name: string) =>
    JSON.parse(readFileSync(new URL(`../fixtures/comfyui/workflows/${name}.json`, import.meta.url), 'utf8'));
  const run = async (prompt: unknown) => {
    const { json } = await post(fake, '/prompt', { prompt, client_id: 'c' });
    await finished(fake, json.prompt_id);
    return json.prompt_id as string;
  };

  const txt2img = fixture('txt2img');
  Object.assign(txt2img['5'].inputs, { width: 40, height: 24 });
  const first = await run(txt2img);
  const image = fake.file(
    'output',
    '',
    (fake.history(first)!.outputs['9'].images[0] as { filename: string }).filename,
  )!;
  assert.deepEqual(
    await sharp(image)
      .metadata()
      .then(({ width, height }) => [width, height]),
    [40, 24],
  );
  assert.deepEqual(await firstPixel(image), [0x33, 0x66, 0x99]);
  const steps = client.json.filter((m) => m.type === 'progress' && m.data.prompt_id === first);
  assert.deepEqual(
    steps.map((m) => `${m.data.value}/${m.data.max}`),
    ['1/4', '2/4', '3/4', '4/4'],
    'the custom node runs all its steps',
  );

  const png = await sharp({ create: { width: 16, height: 8, channels: 3, background: '#204060' } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'in.png');
  await fetch(`${fake.baseUrl}/upload/image`, { method: 'POST', body: form });
  const img2img = fixture('img2img');
  img2img['10'].inputs.image = 'in.png';
  const inverted = await run(img2img);
  assert.deepEqual(
    await firstPixel(
      fake.file('output', '', (fake.history(inverted)!.outputs['9'].images[0] as { filename: string }).filename)!,
    ),
    [0xdf, 0xbf, 0x9f],
  );

  const video = await run(fixture('video'));
  const webp = fake.file('output', '', (fake.history(video)!.outputs['9'].images[0] as { filename: string }).filename)!;
  assert.equal(
    (await sharp(webp, { animated: true }).metadata()).pages,
    8,
    'the steps node dims each frame: none merge',
  );

  const failed = await run(fixture('error'));
  const error = fake.history(failed)!.status.messages.at(-1)!;
  assert.deepEqual(
    [error[0], error[1].node_id, error[1].node_type, error[1].exception_message],
    ['execution_error', '13', 'ImgtaskTestFail', 'imgtask test failure\n'],
  );

  const invalid = await post(fake, '/prompt', { prompt: fixture('invalid'), client_id: 'c' });
  assert.equal(invalid.status, 400);
  assert.equal(invalid.json.node_errors['14'].errors[0].type, 'value_not_in_list');

  const info = await getJson(fake, '/object_info');
  assert.deepEqual(
    [
      info.ImgtaskTestSteps.python_module,
      info.PrimitiveString.python_module,
      info.PrimitiveString.input.required.value[0],
    ],
    ['custom_nodes.imgtask_test_nodes', 'comfy_extras.nodes_primitive', 'STRING'],
  );
});
