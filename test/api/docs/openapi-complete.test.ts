import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TASK_STATUSES } from '../../../src/domain/task-status.js';
import { EVENT_KINDS, TASK_MODULES } from '../../../src/task-types/task-modules.js';
import { startService, waitForTask } from '../../helpers/harness.js';

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const deref = (doc: any, schema: any): any =>
  schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;

/** Every `$ref` in a value. */
const refsIn = (value: unknown): string[] =>
  typeof value !== 'object' || value === null
    ? []
    : Object.entries(value).flatMap(([key, v]) => (key === '$ref' && typeof v === 'string' ? [v] : refsIn(v)));

test('GET /tasks lists its query parameters from the schema it parses them with, and its 400', async (t) => {
  const h = await startService(t);
  const doc = (await h.request('GET', '/openapi.json')).json;
  const list = doc.paths['/tasks'].get;
  const params = Object.fromEntries(list.parameters.map((p: any) => [p.name, p]));
  assert.deepEqual(Object.keys(params), [
    'status',
    'type',
    'createdAfter',
    'createdBefore',
    'limit',
    'cursor',
    'metadata',
  ]);
  for (const p of list.parameters) assert.equal(p.in, 'query');
  assert.deepEqual(params.status.schema.enum, [...TASK_STATUSES]);
  assert.deepEqual(
    [params.limit.schema.minimum, params.limit.schema.maximum, params.limit.schema.default],
    [1, 100, 20],
  );
  assert.equal(params.createdAfter.schema.format, 'date-time');
  assert.deepEqual(
    [params.metadata.style, params.metadata.explode, params.metadata.schema.type],
    ['form', true, 'object'],
  );
  assert.match(params.metadata.description, /metadata\.<key>=<value>/);

  const rejection = list.responses['400'].content['application/json'].schema;
  assert.deepEqual(rejection, ref('ResourceSchemaRejection'));
  // What the server answers to a query outside the schema is that shape.
  const res = await h.request('GET', '/tasks?limit=0&status=done', { auth: h.apiKey });
  assert.equal(res.status, 400);
  const shape = doc.components.schemas.ResourceSchemaRejection;
  assert.deepEqual(Object.keys(res.json).sort(), [...shape.required].sort());
  assert.deepEqual(res.json.errors.map((e: any) => e.path.join('.')).sort(), ['limit', 'status']);
  for (const issue of res.json.errors)
    assert.deepEqual(Object.keys(issue).sort(), [...doc.components.schemas.SchemaIssue.required].sort());
});

test('rate and alt describe their 202 answer, and images their 304', async (t) => {
  const h = await startService(t, { config: { fetch: { allowPrivateAddresses: true } } });
  const doc = (await h.request('GET', '/openapi.json')).json;
  for (const path of ['/image/rate', '/image/alt']) {
    const accepted = doc.paths[path].post.responses['202'];
    assert.match(accepted.description, /sync timeout/, path);
    assert.deepEqual(accepted.content['application/json'].schema, ref('PendingTaskAnswer'), path);
    assert.ok(doc.paths[path].post.responses['200'], path);
  }
  const pending = doc.components.schemas.PendingTaskAnswer.properties.data.properties.task;
  assert.equal(pending.properties.status.const, 'pending');

  const image = doc.paths['/images/{file}'].get;
  assert.ok(image.responses['304'], '304 described');
  assert.equal(image.responses['304'].content, undefined, 'a 304 has no body');
  assert.ok(image.responses['304'].headers.ETag);
  assert.deepEqual(
    image.parameters.map((p: any) => `${p.in} ${p.name}`),
    ['path file', 'header if-none-match'],
  );

  // The answers are those: a 202 with the pending task, and a 304 on a matching If-None-Match.
  const { taskId } = (await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'a lighthouse' } }))
    .json.data;
  const task = await waitForTask(h, taskId);
  const serviceUrl: string = task.result.images[0].service_url;
  const queued = await h.request('POST', '/image/alt', { auth: h.apiKey, body: { urls: [serviceUrl], sync: false } });
  assert.equal(queued.status, 202);
  assert.deepEqual(Object.keys(queued.json.data.task), Object.keys(pending.properties));
  const path = new URL(serviceUrl).pathname;
  const first = await h.request('GET', path, { auth: null });
  const again = await h.request('GET', path, { auth: null, headers: { 'if-none-match': first.headers.get('etag')! } });
  assert.equal(again.status, 304);
});

test('webhooks: one entry per event sent, webhook.test included, none for `all`, each public', async (t) => {
  const h = await startService(t);
  const doc = (await h.request('GET', '/openapi.json')).json;
  const sent = [
    ...TASK_MODULES.flatMap((m) => [`task.${m.type}.completed`, `task.${m.type}.failed`]),
    'webhook.test',
    'billing.threshold_reached',
  ];
  // The `type` of every payload a webhook entry describes: exactly the event types the service sends.
  const types = new Set<string>();
  for (const [kind, item] of Object.entries<any>(doc.webhooks)) {
    assert.deepEqual(item.post.security, [], kind);
    assert.ok(item.post.operationId, kind);
    const schema = item.post.requestBody.content['application/json'].schema;
    for (const member of schema.oneOf ?? [schema]) types.add(deref(doc, member).properties.type.const);
  }
  assert.deepEqual([...types].sort(), [...sent].sort());
  assert.equal(types.has('all'), false);
  assert.deepEqual(
    deref(doc, doc.webhooks['webhook.test'].post.requestBody.content['application/json'].schema).properties.data
      .required,
    ['webhookId'],
  );
  const generateCompleted = deref(
    doc,
    doc.webhooks['task.image.generate.completed'].post.requestBody.content['application/json'].schema,
  );
  assert.deepEqual(generateCompleted.properties.data.properties.result, ref('ImageGenerateResult'));
  assert.equal(
    doc.webhooks['task.completed'].post.requestBody.content['application/json'].schema.oneOf.length,
    TASK_MODULES.length,
  );

  // `all` stays a subscription value: the webhook body and resource accept and show it.
  assert.deepEqual(doc.components.schemas.WebhookEventKind.enum, [...EVENT_KINDS]);
  assert.ok(EVENT_KINDS.includes('all'));
  assert.deepEqual(
    doc.paths['/webhook'].post.requestBody.content['application/json'].schema.properties.events.anyOf[0].items.enum,
    [...EVENT_KINDS],
  );
  const created = await h.request('POST', '/webhook', {
    auth: h.token,
    body: { url: 'https://hooks.invalid/x', events: ['all'] },
  });
  assert.equal(created.status, 201);
  assert.deepEqual(created.json.data.events, ['all']);
});

test('answers reference named component schemas, every reference resolves and every component is used', async (t) => {
  const h = await startService(t);
  const doc = (await h.request('GET', '/openapi.json')).json;
  const names = Object.keys(doc.components.schemas);
  for (const name of [
    'Task',
    'TaskResult',
    'TaskStatus',
    'ImageItem',
    'Error',
    'ImageSchemaRejection',
    'ResourceSchemaRejection',
    'SchemaIssue',
    'Webhook',
    'WebhookDelivery',
    'ApiKey',
    'Destination',
    ...TASK_MODULES.flatMap((m) => {
      const name = m.type.replace(/(^|[._])(\w)/g, (_, _s: string, c: string) => c.toUpperCase());
      return [`${name}Task`, `${name}Result`, `${name}TaskResult`];
    }),
  ])
    assert.ok(names.includes(name), name);

  const refs = refsIn({ paths: doc.paths, webhooks: doc.webhooks, components: doc.components });
  for (const target of refs)
    assert.ok(doc.components.schemas[target.replace('#/components/schemas/', '')], `${target} resolves`);
  const outside = new Set(refsIn({ paths: doc.paths, webhooks: doc.webhooks }));
  const used = new Set(outside);
  for (let grew = true; grew; ) {
    grew = false;
    for (const target of [...used])
      for (const inner of refsIn(deref(doc, { $ref: target })))
        if (!used.has(inner)) {
          used.add(inner);
          grew = true;
        }
  }
  assert.deepEqual(
    names.filter((n) => !used.has(`#/components/schemas/${n}`)),
    [],
    'no unused component',
  );
  assert.equal(JSON.stringify(doc).includes('#/$defs/'), false, 'no local $defs left');

  // The shapes: Task is discriminated by type; an error answer is the flat Error narrowed to its codes.
  assert.deepEqual(
    Object.keys(doc.components.schemas.Task.discriminator.mapping),
    TASK_MODULES.map((m) => m.type),
  );
  assert.deepEqual(doc.components.schemas.Error.required, ['code']);
  assert.deepEqual(
    doc.paths['/tasks/{id}'].get.responses['200'].content['application/json'].schema.properties.data,
    ref('Task'),
  );
  assert.deepEqual(
    doc.paths['/tasks'].get.responses['200'].content['application/json'].schema.properties.data.items,
    ref('Task'),
  );
  assert.deepEqual(doc.components.schemas.ImageGenerateResult.properties.images.items, ref('ImageItem'));
});
