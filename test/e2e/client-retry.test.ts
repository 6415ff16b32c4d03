import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { startService } from '../helpers/harness.js';

/**
 * A TCP proxy in front of the server that lets the first `breakFirst` connections' requests
 * through, then resets them when the answer starts: the server did the work, the client saw
 * no answer. Later connections pass through.
 */
async function breakingProxy(t: { after: (fn: () => unknown) => void }, target: string, breakFirst: number) {
  const { hostname, port } = new URL(target);
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const broken = ++connections <= breakFirst;
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on('data', (chunk) => {
      if (broken) {
        client.resetAndDestroy();
        upstream.destroy();
      } else client.write(chunk);
    });
    upstream.on('end', () => client.end());
    for (const socket of [client, upstream]) socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, connections: () => connections };
}

test('a create whose answer is lost on the way is sent again with its idempotency key: one task, the first answer', async (t) => {
  const h = await startService(t);
  const proxy = await breakingProxy(t, h.url, 1);
  const created = await runCli(['generate', 'a lighthouse at dusk', '--json'], {
    IMGTASK_URL: proxy.url,
    IMGTASK_API_KEY: h.apiKey,
  });
  assert.equal(created.code, 0, created.stderr);
  assert.ok(proxy.connections() >= 2, 'the first connection was broken, the request sent again');
  const listed = await h.request('GET', '/tasks', { auth: h.apiKey });
  assert.equal(listed.status, 200);
  assert.equal(listed.json.data.length, 1, 'one task, though the server took the request twice');
  assert.equal(created.json.taskId, listed.json.data[0].id, 'the CLI got the first answer again');
});

test('a create that keeps losing its answer fails UNREACHABLE after 3 attempts, having created one task', async (t) => {
  const h = await startService(t);
  const proxy = await breakingProxy(t, h.url, 100);
  const created = await runCli(['generate', 'a harbour', '--json'], {
    IMGTASK_URL: proxy.url,
    IMGTASK_API_KEY: h.apiKey,
  });
  assert.equal(created.code, 1, created.stdout);
  assert.match(created.stderr, /cannot reach/);
  assert.equal(proxy.connections(), 3);
  assert.equal((await h.request('GET', '/tasks', { auth: h.apiKey })).json.data.length, 1);
});
