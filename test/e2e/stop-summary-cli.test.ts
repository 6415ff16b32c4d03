// `imgtask serve` stopped by SIGINT: after "SIGINT: stopping", a last line says when it stopped
// and how many items it left pending, and for whom (the next start, or the other processes).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, startServeProcess } from '../helpers/cli.js';
import { testStoreConfig } from '../helpers/harness.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

test('serve on SIGINT: says when it stopped and how many items were left pending for the next start', async (t) => {
  const data = await tempDir(t);
  const storeConfig = await testStoreConfig(t);
  const config = join(await tempDir(t), 'imgtask.json');
  await writeFile(config, JSON.stringify(storeConfig));
  const cli = (...args: string[]) => runCli(['--data', data, '--config', config, ...args]);

  const serve = await startServeProcess(['--data', data, '--config', config]);
  closeBeforeRemoval(data, async () => {
    if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL');
  });
  assert.equal((await cli('accounts', 'create', 'demo', '--credit', '10')).code, 0);
  const key = (await cli('keys', 'create', '--account', 'demo')).stdout.trim();
  // The placeholder's lane paused: the task's three images wait, pending, until the stop.
  assert.equal((await cli('queues', 'pause', 'placeholder')).code, 0);
  const created = await runCli(['generate', 'a red fox', '--count', '3', '--json'], {
    IMGTASK_URL: serve.url,
    IMGTASK_API_KEY: key,
  });
  assert.equal(created.code, 0, created.stderr);

  const exited = once(serve.child, 'exit');
  serve.child.kill('SIGINT');
  const [code] = await exited;
  assert.equal(code, 0, serve.output());
  const lines = serve
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
  const stopping = lines.findIndex((line) => line.event === 'server.stopping');
  const stopped = lines.findIndex((line) => line.event === 'server.stopped');
  assert.ok(stopping >= 0 && stopped > stopping, `a line after "SIGINT: stopping":\n${serve.output()}`);
  const last = lines[stopped];
  assert.deepEqual(last.leftPending, { tasks: 1, items: 3, fleet: storeConfig.store !== undefined });
  const forWhom = storeConfig.store
    ? 'the working processes take them, or the next start'
    : 'they run at the next start';
  assert.match(
    last.msg,
    new RegExp(
      `^stopped at \\d\\d:\\d\\d:\\d\\d, \\d+\\.\\d s after SIGINT; 3 items of 1 task left pending: ${forWhom}$`,
    ),
  );
  assert.ok(Number.isInteger(last.tookMs) && last.tookMs >= 0);
});
