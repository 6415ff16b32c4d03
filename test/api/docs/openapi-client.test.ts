import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { startService } from '../../helpers/harness.js';
import { startReceiver } from '../../helpers/receiver.js';

const ROOT = join(import.meta.dirname, '../../..');

/**
 * A client's whole flow, written against the types openapi-typescript generates from the live
 * description and run with openapi-fetch: every request and every field read is type-checked.
 */
const FLOW = `import type createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type Task = components['schemas']['Task'];
type ImageItem = components['schemas']['ImageItem'];
type Rejection = components['schemas']['ResourceSchemaRejection'];
type TestEvent = components['schemas']['WebhookTestEvent'];

export async function flow(create: typeof createClient, baseUrl: string, apiKey: string, accessToken: string, receiverUrl: string) {
  const client = create<paths>({ baseUrl, headers: { authorization: \`Bearer \${apiKey}\` } });
  const manager = create<paths>({ baseUrl, headers: { authorization: \`Bearer \${accessToken}\` } });

  // A webhook for the generation's event, created with the access token.
  const hook = await manager.POST('/webhook', { body: { url: receiverUrl, events: ['task.image.generate.completed'] } });
  if (!hook.data) throw new Error(\`POST /webhook: \${hook.response.status}\`);
  const webhookId: string = hook.data.data.id;
  const secret: string = hook.data.data.secret;

  const created = await client.POST('/image/generate', { body: { prompt: 'a fox in the snow', model: 'placeholder', count: 2, metadata: { project: 'client' } } });
  if (!created.data) throw new Error(\`POST /image/generate: \${created.response.status} \${JSON.stringify(created.error)}\`);
  const taskId: string = created.data.data.taskId;

  let task: Task | undefined;
  for (let i = 0; i < 500 && !task; i++) {
    const got = await client.GET('/tasks/{id}', { params: { path: { id: taskId } } });
    if (!got.data) throw new Error(\`GET /tasks/{id}: \${got.response.status}\`);
    if (got.data.data.status !== 'pending') task = got.data.data;
    else await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (task?.type !== 'image.generate') throw new Error('not a generation task');
  const items: ImageItem[] = task.result?.images ?? [];
  const files: string[] = [];
  for (const item of items) if (item.status === 'success') files.push(item.service_url.split('/').pop()!);

  const result = await client.GET('/tasks/{id}/result', { params: { path: { id: taskId } } });
  const resultType = result.data?.data.type;

  const image = await client.GET('/images/{file}', { params: { path: { file: files[0] } }, parseAs: 'arrayBuffer' });
  const etag = image.response.headers.get('etag') ?? '';
  const cached = await client.GET('/images/{file}', { params: { path: { file: files[0] }, header: { 'if-none-match': etag } }, parseAs: 'text' });

  const serviceUrl = items[0].status === 'success' ? items[0].service_url : '';
  const rated = await client.POST('/image/rate', { body: { mode: 'nsfw_sfw', urls: [serviceUrl] } });
  // 200 carries the results; 202 (the sync timeout passed) only the pending task.
  const answer = rated.data?.data;
  const levels = answer && 'results' in answer ? (answer.results ?? []).map((r) => (r.status === 'success' ? r.level : r.error.code)) : [];
  const queued = await client.POST('/image/alt', { body: { urls: [serviceUrl], sync: false } });

  const list = await client.GET('/tasks', {
    params: { query: { status: 'completed', type: 'image.generate', limit: 10, metadata: { 'metadata.project': 'client' } } },
    querySerializer: { object: { style: 'form', explode: true } },
  });
  const none = await client.GET('/tasks', { params: { query: { type: 'image.generate', metadata: { 'metadata.project': 'other' } } }, querySerializer: { object: { style: 'form', explode: true } } });
  const refused = await client.GET('/tasks', { params: { query: { limit: 1000 } } });
  const rejection = refused.error as Rejection | undefined;

  const sent = await manager.POST('/webhook/{id}/test', { params: { path: { id: webhookId } } });
  const testEvent: TestEvent['type'] = 'webhook.test';

  return {
    taskId,
    webhookId,
    secret,
    status: task.status,
    model: task.result?.model,
    files,
    resultType,
    image: { status: image.response.status, bytes: image.data?.byteLength ?? 0, etag },
    cachedStatus: cached.response.status,
    rate: { status: rated.response.status, levels },
    alt: { status: queued.response.status, taskStatus: queued.data?.data.task.status },
    listed: (list.data?.data ?? []).map((t) => t.id),
    nextCursor: list.data?.nextCursor,
    unmatched: none.data?.data.length,
    refused: { status: refused.response.status, success: rejection?.success, paths: rejection?.errors.map((e) => e.path.join('.')) },
    testDelivery: { status: sent.response.status, eventType: sent.data?.data.eventType, expected: testEvent },
  };
}
`;

/** What a type error in a client looks like: a query value outside its enum, a field that is not there. */
const WRONG = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export async function wrong(baseUrl: string) {
  const client = createClient<paths>({ baseUrl });
  await client.GET('/tasks', { params: { query: { status: 'finished' } } });
  const got = await client.GET('/tasks/{id}', { params: { path: { id: 'tsk_1' } } });
  return got.data?.data.colour;
}
`;

/** Type-checks files as a strict project would; the diagnostics, by file name. */
function typeCheck(files: string[]): Map<string, string[]> {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules/@types')],
  };
  const program = ts.createProgram(files, options);
  const byFile = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    const file = d.file?.fileName ?? files[0];
    byFile.set(file, [...(byFile.get(file) ?? []), text]);
  }
  return byFile;
}

test('a client generated by openapi-typescript and run with openapi-fetch type-checks and works a full flow', async (t) => {
  const h = await startService(t, {
    config: { fetch: { allowPrivateAddresses: true }, webhooks: { allowPrivateAddresses: true } },
  });
  const receiver = await startReceiver(t);
  const doc = (await h.request('GET', '/openapi.json', { auth: null })).json;

  const phases: Record<string, number> = {};
  let mark = Date.now();
  const lap = (name: string) => {
    phases[name] = Date.now() - mark;
    mark = Date.now();
  };
  // Inside the project (node_modules/.cache), so the flow resolves openapi-fetch's types as an installed client would.
  const cache = join(ROOT, 'node_modules/.cache');
  await mkdir(cache, { recursive: true });
  const dir = await mkdtemp(join(cache, 'imgtask-openapi-client-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n');
  await writeFile(join(dir, 'api.d.ts'), astToString(await openapiTS(doc)));
  await writeFile(join(dir, 'flow.ts'), FLOW);
  await writeFile(join(dir, 'wrong.ts'), WRONG);

  lap('generate');
  const diagnostics = typeCheck([join(dir, 'flow.ts'), join(dir, 'wrong.ts')]);
  assert.deepEqual(diagnostics.get(join(dir, 'flow.ts')), [], 'the flow type-checks against the generated client');
  const errors = diagnostics.get(join(dir, 'wrong.ts'))!.join('\n');
  assert.match(errors, /"finished"/, 'a status outside the enum is a type error');
  assert.match(errors, /colour/, 'a field the task does not have is a type error');

  lap('typecheck');
  const { flow } = (await import(pathToFileURL(join(dir, 'flow.ts')).href)) as {
    flow: (create: typeof createClient, ...args: string[]) => Promise<Record<string, any>>;
  };
  const out = await flow(createClient, h.url, h.apiKey, h.token, receiver.url('/hook'));

  lap('run');
  t.diagnostic(`ms: ${JSON.stringify(phases)}`);
  assert.equal(out.status, 'completed');
  assert.equal(out.model, 'placeholder');
  assert.equal(out.files.length, 2);
  assert.equal(out.resultType, 'image.generate');
  assert.equal(out.image.status, 200);
  assert.ok(out.image.bytes > 0);
  assert.equal(out.image.etag, `"${out.files[0]}"`);
  assert.equal(out.cachedStatus, 304, 'If-None-Match with the ETag');
  assert.equal(out.rate.status, 200);
  assert.equal(out.rate.levels.length, 1);
  assert.equal(out.alt.status, 202);
  assert.equal(out.alt.taskStatus, 'pending');
  assert.deepEqual(out.listed, [out.taskId], 'filtered by status, type and metadata');
  assert.equal(out.nextCursor, null);
  assert.equal(out.unmatched, 0);
  assert.equal(out.refused.status, 400);
  assert.equal(out.refused.success, false);
  assert.deepEqual(out.refused.paths, ['limit']);
  assert.equal(out.testDelivery.status, 202);
  assert.equal(out.testDelivery.eventType, 'webhook.test');
  assert.match(out.secret, /^whsec_/);

  // The webhook got the generation's event and the test event, each as the description says.
  const received = await receiver.waitFor(2);
  const types = received.map((r) => r.json.type).sort();
  assert.deepEqual(types, ['task.image.generate.completed', 'webhook.test']);
  const completed = received.find((r) => r.json.type === 'task.image.generate.completed')!.json;
  assert.equal(completed.data.taskId, out.taskId);
  assert.deepEqual(completed.data.metadata, { project: 'client' });
  assert.deepEqual(received.find((r) => r.json.type === 'webhook.test')!.json.data, { webhookId: out.webhookId });
});
