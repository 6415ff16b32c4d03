import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { z } from 'zod';
import { type RouteSpec, routesOf } from '../../../src/api/route.js';
import { type Harness, startService } from '../../helpers/harness.js';
import { hostileText, type JsonSchema, nearValid, valid } from '../../helpers/schema-arbitrary.js';

/** Runs per route and kind (valid, near-valid, hostile); FUZZ_RUNS raises it for a longer hunt. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);

// Rate, alt and review answer 500 UNKNOWN_ERROR when their synchronous task failed (SPEC part 4): a
// task failure, not a fault. Every other 5xx is a defect.
const SYNC_ROUTES = new Set(['/image/rate', '/image/alt', '/image/review']);

/** A 4xx is one of the spec's shapes: a flat error with a code, a schema rejection, or the malformed-JSON text. */
function assertRequestError(res: Awaited<ReturnType<Harness['request']>>): void {
  if (res.text === 'Malformed JSON in request body') return;
  assert.ok(
    res.json && (typeof res.json.code === 'string' || res.json.success === false),
    `a ${res.status} without a spec error body: ${res.text.slice(0, 300)}`,
  );
}

async function sendBody(h: Harness, route: RouteSpec, path: string, body: string) {
  const auth = route.guard?.accept.includes('apiKey') ? h.apiKey : h.token;
  const send = () => h.request(route.method.toUpperCase(), path, { auth, body });
  const res = await send().catch((err: Error) => {
    // Generating a value can hold the event loop (client and server share it) past the server's
    // keep-alive timeout: the idle socket the client reuses is then reset before the request is
    // read. One retry on a new connection; a server that crashed fails it too (and /health below).
    if (!/ECONNRESET|other side closed/.test(String(err.cause))) throw err;
    return send().catch((again: Error) => {
      throw new Error(`${route.method.toUpperCase()} ${path} got no answer: ${again.message} (${String(again.cause)})`);
    });
  });
  const syncFailure = SYNC_ROUTES.has(route.path) && res.status === 500 && res.json?.code === 'UNKNOWN_ERROR';
  assert.ok(
    res.status < 500 || syncFailure,
    `${route.method.toUpperCase()} ${path} answered ${res.status} to ${body.slice(0, 300)}: ${res.text.slice(0, 300)}`,
  );
  if (res.status >= 400 && !syncFailure) assertRequestError(res);
}

test('generated bodies (valid, near-valid and hostile) never get a 5xx or crash the server, on every JSON route', async (t) => {
  const h = await startService(t, {
    config: { sync: { timeoutMs: 100 }, fetch: { timeoutMs: 500 }, work: { defaultConcurrency: 1 } },
  });
  // Real ids for the routes that update one, so bodies reach the service.
  const webhook = (await h.request('POST', '/webhook', { auth: h.token, body: { url: 'https://example.com/hook' } }))
    .json.data.id;
  const destination = (
    await h.request('POST', '/destinations', {
      auth: h.token,
      body: { name: 'box', provider: { id: 'http' }, config: { urlTemplate: 'https://example.com/{key}' } },
    })
  ).json.data.id;
  const ids: Record<string, string> = { '/webhook/:id': webhook, '/destinations/:id': destination };

  const routes = routesOf(h.server.api).filter((route) => route.body && !route.internal);
  assert.ok(routes.length >= 10, `the JSON routes are found (${routes.length})`);
  for (const route of routes) {
    const path = route.path.replace(':id', ids[route.path] ?? 'unknown');
    const schema = (typeof route.body === 'function' ? route.body() : route.body) as z.ZodType;
    const jsonSchema = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    await t.test(`${route.method.toUpperCase()} ${route.path}`, async () => {
      const property = (bodies: fc.Arbitrary<string>) =>
        fc.assert(
          fc.asyncProperty(bodies, (body) => sendBody(h, route, path, body)),
          { numRuns: RUNS, includeErrorInReport: true },
        );
      await property(valid(jsonSchema).map((value) => JSON.stringify(value) ?? ''));
      await property(nearValid(jsonSchema).map((value) => JSON.stringify(value) ?? ''));
      await property(hostileText());
    });
  }

  await t.test('GET /tasks with generated queries', async () => {
    const query = fc.dictionary(
      fc.oneof(
        fc.constantFrom('status', 'type', 'limit', 'cursor', 'createdAfter', 'createdBefore', 'metadata.a'),
        fc.string({ maxLength: 20 }),
      ),
      fc.string({ maxLength: 60 }),
      { maxKeys: 5 },
    );
    await fc.assert(
      fc.asyncProperty(query, async (params) => {
        const res = await h.request('GET', `/tasks?${new URLSearchParams(params)}`, { auth: h.apiKey });
        assert.ok(
          res.status < 500,
          `GET /tasks?${new URLSearchParams(params)} answered ${res.status}: ${res.text.slice(0, 300)}`,
        );
        if (res.status >= 400) assertRequestError(res);
      }),
      { numRuns: RUNS * 3, includeErrorInReport: true },
    );
  });

  assert.equal((await h.request('GET', '/health')).status, 200, 'the server still answers');
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no body reached the object prototype');
});
