// Requests whose body never fully arrives: the client went away mid-body, or sent a
// Content-Length and then nothing. The client caused it: the server bounds the wait
// (server.requestTimeout), logs it without a stack below `error`, and counts it apart from its
// own faults (408 or 499, never a 5xx).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiEnv } from '../../../src/api/api-deps.js';
import { parseJsonBody } from '../../../src/api/body.js';
import { eventually, send } from '../../helpers/harness.js';
import { startLoggedServer } from '../../helpers/logged-server.js';

/** Opens a raw connection and sends a POST's head (with `headers`) and then `body`, which may stop short. */
async function sendHead(
  url: string,
  path: string,
  headers: string[],
  body: string,
): Promise<{ socket: Socket; received: () => string }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk) => (received += chunk));
  socket.on('error', () => {}); // a reset after the server's answer is expected
  socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n${body}`);
  return { socket, received: () => received };
}

/** A JSON create declaring a 100-byte body. */
const jsonHead = (apiKey: string) => [
  `Authorization: Bearer ${apiKey}`,
  'Content-Type: application/json',
  'Content-Length: 100',
];

/** The value of one series in a Prometheus text exposition; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** The request series of /metrics with a 5xx status. */
const serverFaults = (text: string) =>
  text.split('\n').filter((l) => l.startsWith('imgtask_http_requests_total{') && /status="5\d\d"/.test(l));

test('a client that sends a Content-Length and then no body is answered 408 and cut off at server.requestTimeout, counted and logged as a 408', async (t) => {
  const { server, apiKey, lines, written } = await startLoggedServer(t, {
    config: { server: { requestTimeout: 300 } },
  });
  const { socket, received } = await sendHead(server.url, '/test/tasks', jsonHead(apiKey), '');
  await once(socket, 'close'); // the server ends it: the test's own timeout would catch a wait for Node's default
  assert.match(received(), /^HTTP\/1\.1 408 Request Timeout\r\n/);

  await eventually(() => lines().some((l) => l.event === 'http.request' && l.route === '/test/tasks'));
  const access = lines().filter((l) => l.event === 'http.request' && l.route === '/test/tasks');
  assert.deepEqual(
    access.map((l) => ({ level: l.level, status: l.status, err: l.err })),
    [{ level: 'info', status: 408, err: undefined }],
  );
  assert.doesNotMatch(written(), /"level":"error"|Error: aborted|\bat \S+ \(/, 'no error line, no stack');
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  assert.equal(sample(metrics, 'imgtask_http_requests_total{method="POST",route="/test/tasks",status="408"}'), 1);
  assert.deepEqual(serverFaults(metrics), []);

  // The bound is on receiving a request, not on answering it: a live stream outlasting it (its task takes a second)
  // runs to its end.
  const created = await send(server.url, 'POST', '/test/tasks', { auth: apiKey, body: { delayMs: 1_000 } });
  assert.equal(created.status, 201, created.text);
  const stream = await fetch(`${server.url}/tasks/${created.json.data.taskId}/events`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  assert.equal(stream.status, 200);
  assert.match(await stream.text(), /^event: settled$/m);
});

const boundary = 'cut-short-boundary';
const leavers: Array<{ what: string; route: string; head(apiKey: string): string[]; body: string }> = [
  { what: 'a JSON body with a Content-Length', route: '/test/tasks', head: jsonHead, body: '{"items": 1, ' },
  {
    what: 'a chunked JSON body',
    route: '/test/tasks',
    head: (apiKey) => [
      `Authorization: Bearer ${apiKey}`,
      'Content-Type: application/json',
      'Transfer-Encoding: chunked',
    ],
    body: 'd\r\n{"items": 1, \r\n',
  },
  {
    what: 'an upload',
    route: '/image/upload',
    head: (apiKey) => [
      `Authorization: Bearer ${apiKey}`,
      `Content-Type: multipart/form-data; boundary=${boundary}`,
      'Content-Length: 100000',
    ],
    body: `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG`,
  },
  {
    what: 'an upload with an Idempotency-Key',
    route: '/image/upload',
    head: (apiKey) => [
      `Authorization: Bearer ${apiKey}`,
      `Content-Type: multipart/form-data; boundary=${boundary}`,
      'Content-Length: 100000',
      'Idempotency-Key: cut-1',
    ],
    body: `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="a.png"\r\n\r\n`,
  },
];

for (const leaver of leavers) {
  test(`a client that goes away in the middle of ${leaver.what} is counted as 499 (client closed request), logged at info without a stack, never as a 500`, async (t) => {
    const { server, apiKey, lines, written } = await startLoggedServer(t);
    const { socket } = await sendHead(server.url, leaver.route, leaver.head(apiKey), leaver.body);
    // TCP delivers the head and the partial body before the close: the server sees the request, then its end.
    socket.destroy();

    await eventually(() => lines().some((l) => l.event === 'http.request' && l.route === leaver.route));
    const access = lines().filter((l) => l.event === 'http.request' && l.route === leaver.route);
    assert.deepEqual(
      access.map((l) => ({ level: l.level, status: l.status, err: l.err })),
      [{ level: 'info', status: 499, err: undefined }],
    );
    assert.doesNotMatch(written(), /"level":"error"|Error: aborted|\bat \S+ \(/, 'no error line, no stack');
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.equal(sample(metrics, `imgtask_http_requests_total{method="POST",route="${leaver.route}",status="499"}`), 1);
    assert.deepEqual(serverFaults(metrics), []);
  });
}

/** A route that reads its JSON body with the routes' reader only once the client has gone. */
function mountLateReader(app: Hono<ApiEnv>): void {
  app.post('/test/late-read', async (c) => {
    const incoming = c.env.incoming!;
    if (!incoming.destroyed) await once(incoming, 'close');
    return c.json({ read: await parseJsonBody(c, z.looseObject({}), 'resource', 1_000_000) });
  });
}

for (const [what, head, body] of [
  ['a Content-Length', ['Content-Type: application/json', 'Content-Length: 100'], '{"items": 1, '],
  ['chunked', ['Content-Type: application/json', 'Transfer-Encoding: chunked'], 'd\r\n{"items": 1, \r\n'],
] as const) {
  test(`a JSON body (${what}) whose client left before the route read it is not taken for a whole body: 499`, async (t) => {
    const { server, lines } = await startLoggedServer(t, { extendApi: mountLateReader });
    const { socket } = await sendHead(server.url, '/test/late-read', [...head], body);
    socket.destroy();
    await eventually(() => lines().some((l) => l.event === 'http.request' && l.route === '/test/late-read'));
    const access = lines().filter((l) => l.event === 'http.request' && l.route === '/test/late-read');
    assert.deepEqual(
      access.map((l) => ({ level: l.level, status: l.status })),
      [{ level: 'info', status: 499 }],
    );
  });
}
