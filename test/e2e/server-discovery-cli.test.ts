// Client commands without --url or IMGTASK_URL find the server running on their data dir (the
// registry `imgtask serve` writes), whatever its port; a long-running `webhooks listen` looks again
// on each reconnection. Each test has its own registry (XDG_RUNTIME_DIR): other tests' servers never show.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, realpath, rename, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN, runCli, startServeProcess } from '../helpers/cli.js';
import { eventually } from '../helpers/harness.js';
import { startReceiver } from '../helpers/receiver.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

test('tasks list, generate and rate reach a server on another port through the data dir; --url and IMGTASK_URL still win', async (t) => {
  const env = { XDG_RUNTIME_DIR: await tempDir(t) };
  const cwd = await realpath(await tempDir(t));
  const serve = await startServeProcess(['--data', join(cwd, 'data')], env);
  closeBeforeRemoval(cwd, async () => serve.child.kill('SIGKILL'));
  assert.doesNotMatch(serve.url, /:8080$/, 'port 0: not the default port');
  const run = (args: string[], more: Record<string, string> = {}) => runCli(args, { ...env, ...more }, { cwd });
  await run(['accounts', 'create', 'demo', '--credit', '1']);
  const key = (await run(['keys', 'create', '--account', 'demo', '--json'])).json.raw;

  // In the folder of its ./data, as a newcomer runs them: no --url.
  const generated = await run(['generate', 'a red fox', '--watch', '--json'], { IMGTASK_API_KEY: key });
  assert.equal(generated.code, 0, generated.stderr);
  assert.equal(generated.json.status, 'completed');
  const listed = await run(['tasks', 'list', '--json'], { IMGTASK_API_KEY: key });
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(
    listed.json.tasks.map((task: { id: string }) => task.id),
    [generated.json.id],
  );
  // From elsewhere, with --data naming the data dir.
  const elsewhere = await runCli(['--data', join(cwd, 'data'), 'rate', generated.json.result.images[0].id, '--json'], {
    ...env,
    IMGTASK_API_KEY: key,
  });
  assert.equal(elsewhere.code, 0, elsewhere.stderr);

  // A server named explicitly is the one asked, even when the data dir has one.
  const nobody = 'http://127.0.0.1:9';
  for (const result of [
    await run(['--url', nobody, 'tasks', 'list'], { IMGTASK_API_KEY: key }),
    await run(['tasks', 'list'], { IMGTASK_API_KEY: key, IMGTASK_URL: nobody }),
  ]) {
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^imgtask: UNREACHABLE: cannot reach http:\/\/127\.0\.0\.1:9 \(/);
  }
});

test('webhooks listen finds its server through the data dir, and again on another port after a restart', async (t) => {
  const env = { XDG_RUNTIME_DIR: await tempDir(t) };
  const data = await tempDir(t);
  // The registry as `serve` writes it, naming a stand-in for the server (this test's own pid: alive).
  const registry = join(env.XDG_RUNTIME_DIR, 'imgtask-servers');
  await mkdir(registry, { mode: 0o700 });
  const register = async (url: string) => {
    await writeFile(
      join(registry, 'entry.tmp'),
      JSON.stringify({ pid: process.pid, dataDir: await realpath(data), url }),
    );
    await rename(join(registry, 'entry.tmp'), join(registry, `${process.pid}.json`));
  };
  const asked: string[] = [];
  const standIn = (name: string, then: () => Promise<void>) =>
    createServer(async (req: IncomingMessage, res) => {
      asked.push(`${name} ${req.method} ${req.url} ${req.headers.authorization}`);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: ready\ndata: {"accountId":"acc_1"}\n\n');
      await then();
      res.end();
    });
  // The second server stays up (its stream open); the first one "restarts" onto the second's port: its registry entry
  // moves, then its stream ends.
  const second = standIn('second', () => new Promise(() => undefined));
  const secondUrl = await listen(second);
  const first = standIn('first', () => register(secondUrl));
  const firstUrl = await listen(first);
  t.after(() => {
    first.closeAllConnections();
    second.closeAllConnections();
    first.close();
    second.close();
  });
  await register(firstUrl);
  const receiver = await startReceiver(t);

  const child = spawn(
    process.execPath,
    [BIN, '--data', data, 'webhooks', 'listen', '--token', 'tok_test', '--forward-to', receiver.url()],
    { env: { ...process.env, ...env, NO_COLOR: '1' } },
  );
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stdout += chunk));
  const exited = once(child, 'exit');
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  await eventually(() => /connected again/.test(stdout) || child.exitCode !== null, 30_000).catch(() => undefined);
  assert.match(stdout, /^Ready: forwarding the events of acc_1 /m);
  assert.match(stdout, new RegExp(`\\d\\d:\\d\\d:\\d\\d  connected again to ${secondUrl}$`, 'm'), stdout);
  assert.deepEqual(asked, ['first GET /webhook/events Bearer tok_test', 'second GET /webhook/events Bearer tok_test']);
  child.kill('SIGINT');
  await exited;
});
