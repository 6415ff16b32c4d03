import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { startService } from '../../helpers/harness.js';

const PACKAGE = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));

test("GET /openapi.json: the package's version, a description naming every kind of task, operations tagged by resource with descriptions", async (t) => {
  const h = await startService(t);
  const doc = (await h.request('GET', '/openapi.json', { auth: null })).json;
  assert.equal(doc.info.version, PACKAGE.version, 'the version the package (and imgtask --version) says');
  for (const kind of ['generation', 'rating', 'alt text', 'background removal', 'review', 'video', 'upload'])
    assert.match(doc.info.description, new RegExp(kind, 'i'), `the description names ${kind}`);

  const tagOf = (method: string, path: string): string => {
    const tags = doc.paths[path][method].tags;
    assert.equal(tags.length, 1, `${method} ${path}: one tag`);
    return tags[0];
  };
  const expected: Array<[string, string, string]> = [
    ['post', '/image/generate', 'images'],
    ['post', '/image/review', 'images'],
    ['post', '/image/upload', 'images'],
    ['get', '/images/{file}', 'images'],
    ['post', '/video/generate', 'videos'],
    ['get', '/video/models', 'videos'],
    ['get', '/videos/{file}', 'videos'],
    ['get', '/tasks/{id}/status', 'tasks'],
    ['post', '/tasks/estimate', 'tasks'],
    ['get', '/models', 'models'],
    ['post', '/api-key', 'api-keys'],
    ['post', '/api-key/{id}/rotate', 'api-keys'],
    ['post', '/webhook', 'webhooks'],
    ['get', '/webhook/{id}/deliveries', 'webhooks'],
    ['post', '/webhook/deliveries/{deliveryId}/redeliver', 'webhooks'],
    ['get', '/usage', 'usage'],
    ['get', '/destinations', 'destinations'],
    ['get', '/health', 'service'],
    ['get', '/ready', 'service'],
    ['get', '/metrics', 'service'],
    ['get', '/openapi.json', 'service'],
    ['get', '/docs', 'service'],
  ];
  for (const [method, path, tag] of expected) assert.equal(tagOf(method, path), tag, `${method.toUpperCase()} ${path}`);

  // Every tag an operation or an event carries is listed once, with a description of its own.
  const listed = doc.tags.map((tag: { name: string }) => tag.name);
  assert.deepEqual(listed, [
    'images',
    'videos',
    'tasks',
    'models',
    'api-keys',
    'webhooks',
    'usage',
    'destinations',
    'service',
    'webhook-events',
  ]);
  for (const tag of doc.tags)
    assert.ok(
      tag.description && !tag.description.startsWith('/'),
      `tag ${tag.name} has a description: ${tag.description}`,
    );
  const used = new Set<string>();
  for (const ops of [...Object.values(doc.paths), ...Object.values(doc.webhooks)] as Record<
    string,
    { tags: string[] }
  >[]) {
    for (const op of Object.values(ops)) for (const tag of op.tags) used.add(tag);
  }
  assert.deepEqual([...used].sort(), [...listed].sort(), 'every tag used is listed, and every tag listed is used');
  assert.equal(
    doc.webhooks['task.completed'].post.tags[0],
    'webhook-events',
    'the events sent apart from the routes that manage webhooks',
  );
});
