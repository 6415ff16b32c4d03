// Stopping the server is prompt even with keep-alive connections left by clients.
import assert from 'node:assert/strict';
import { Agent, get } from 'node:http';
import { test } from 'node:test';
import { type Harness, startService } from '../helpers/harness.js';
import { uploadImage } from '../helpers/reload.js';

/** Well under the 5 s keep-alive timeout a lingering connection would hold close() for. */
const PROMPT_MS = 1000;

/** A GET over `agent`, body read to the end; the connection stays open for reuse. */
function getKeepAlive(agent: Agent, url: string): Promise<{ status: number; bytes: number; connection?: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, connection: res.headers.connection }));
    }).on('error', reject);
  });
}

async function timeClose(h: Harness): Promise<number> {
  const started = performance.now();
  await h.server.close();
  return performance.now() - started;
}

test('close() resolves promptly right after an image was downloaded over a keep-alive connection', async (t) => {
  const h = await startService(t);
  const image = await uploadImage(h);
  const agent = new Agent({ keepAlive: true });
  t.after(() => agent.destroy());
  const res = await getKeepAlive(agent, `${h.url}/images/${image.id}.${image.format}`);
  assert.equal(res.status, 200);
  assert.ok(res.bytes > 0);
  assert.equal(res.connection, 'keep-alive', 'the connection stays open after the answer');
  const ms = await timeClose(h);
  assert.ok(ms < PROMPT_MS, `close took ${Math.round(ms)} ms`);
});

test('close() resolves promptly after fetch() (keep-alive by default) read an image and a JSON answer', async (t) => {
  const h = await startService(t);
  const image = await uploadImage(h);
  const served = await fetch(`${h.url}/images/${image.id}.${image.format}`);
  assert.equal(served.status, 200);
  assert.ok((await served.arrayBuffer()).byteLength > 0);
  assert.equal((await h.request('GET', '/tasks', { auth: h.apiKey })).status, 200);
  const ms = await timeClose(h);
  assert.ok(ms < PROMPT_MS, `close took ${Math.round(ms)} ms`);
});
