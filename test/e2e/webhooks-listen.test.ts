// `imgtask webhooks listen`: an account's events followed over the API (GET /webhook/events) and
// posted, signed with the secret it prints, to a local receiver, one line per event.
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { BIN, runCli } from '../helpers/cli.js';
import { eventually, type Harness, startService } from '../helpers/harness.js';
import { startReceiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp-dir.js';

interface Listener {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** Waits until stdout matches `pattern`; answers the match. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Ctrl-C; answers the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `imgtask webhooks listen …` on the harness's server (and its data dir, with the store under test
 * and `settings`: on PostgreSQL the CLI issues tokens on the database itself, under its own config), running until
 * stopped.
 */
async function listen(
  t: TestContext,
  h: Harness,
  args: string[],
  settings: Record<string, unknown> = {},
): Promise<Listener> {
  const config = join(await tempDir(t), 'store.json');
  await writeFile(config, JSON.stringify({ ...h.storeConfig, ...settings }));
  const child = spawn(
    process.execPath,
    [BIN, '--data', h.dataDir, '--config', config, '--url', h.url, 'webhooks', 'listen', ...args],
    { env: { ...process.env, NO_COLOR: '1' } },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = once(child, 'exit');
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    async waitFor(pattern, timeoutMs = 30_000) {
      await eventually(() => pattern.test(stdout) || child.exitCode !== null, timeoutMs).catch(() => undefined);
      const match = pattern.exec(stdout);
      assert.ok(match, `listen printed no ${pattern} (exit ${child.exitCode}):\n${stdout}\n${stderr}`);
      return match;
    },
    async stop() {
      child.kill('SIGINT');
      const [code] = await exited;
      return code as number | null;
    },
  };
}

/** Creates a test task and waits for it to settle. */
async function settled(h: Harness, body: Record<string, unknown>): Promise<string> {
  const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body });
  assert.equal(res.status, 201, res.text);
  const { taskId } = res.json.data;
  await eventually(async () => (await h.server.services.store.tasks.get(taskId))?.status !== 'pending');
  return taskId;
}

test("listen --account posts each settled task's event to the local URL, signed with the secret it prints, one line per event with the receiver's status", {
  timeout: 60_000,
}, async (t) => {
  const h = await startService(t);
  const receiver = await startReceiver(t, [200, 500]);
  const listener = await listen(t, h, ['--account', 'acme', '--forward-to', receiver.url()]);
  const [, secret] = await listener.waitFor(/^secret (whsec_\S+)/m);
  assert.match(
    listener.stdout(),
    new RegExp(`^Ready: forwarding the events of acme to ${receiver.url()} \\(Ctrl-C stops\\)$`, 'm'),
  );

  await settled(h, { webhook: { dashboard: false } });
  const completed = await settled(h, { metadata: { order: 'o-7' } });
  const failed = await settled(h, { failItems: [0] });
  const [first, second] = await receiver.waitFor(2);
  const payload = new Webhook(secret).verify(first.body, first.headers as Record<string, string>) as any;
  assert.deepEqual(
    [payload.type, payload.data.taskId, payload.data.metadata],
    ['task.test.echo.completed', completed, { order: 'o-7' }],
  );
  assert.equal(first.headers['webhook-id'], payload.id);
  assert.equal(
    (new Webhook(secret).verify(second.body, second.headers as Record<string, string>) as any).data.taskId,
    failed,
  );

  await listener.waitFor(new RegExp(`task\\.test\\.echo\\.failed  ${failed}  evt_\\w+  → 500 \\(\\d+ ms\\)$`, 'm'));
  assert.match(
    listener.stdout(),
    new RegExp(
      `^\\d\\d:\\d\\d:\\d\\d  task\\.test\\.echo\\.completed  ${completed}  ${payload.id}  → 200 \\(\\d+ ms\\)$`,
      'm',
    ),
  );
  assert.equal(receiver.received.length, 2, 'the task created with webhook.dashboard false was not forwarded');
  assert.equal(await listener.stop(), 0, 'Ctrl-C stops it');
});

test('listen --token (no data dir) --events --json: only the kinds named; a receiver not there is "no answer" with the reason', {
  timeout: 60_000,
}, async (t) => {
  const h = await startService(t);
  const gone = await startReceiver(t);
  await gone.close();
  const listener = await listen(t, h, [
    '--token',
    h.token,
    '--events',
    'task.failed',
    '--forward-to',
    gone.url(),
    '--secret',
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    '--json',
  ]);
  const [ready] = await listener.waitFor(/^\{"ready".*\}$/m);
  assert.deepEqual(JSON.parse(ready), {
    ready: true,
    accountId: h.accountId,
    forwardTo: gone.url(),
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  });
  await settled(h, {});
  const failed = await settled(h, { failItems: [0] });
  const [line] = await listener.waitFor(/^\{"id".*\}$/m);
  const forwarded = JSON.parse(line);
  assert.deepEqual([forwarded.type, forwarded.taskId, forwarded.status], ['task.test.echo.failed', failed, null]);
  assert.match(forwarded.error, /ECONNREFUSED|refused/);
  assert.equal(listener.stdout().trim().split('\n').length, 2, 'the completed task was left out');
  assert.equal(await listener.stop(), 0);
});

test('with --account an expired token is replaced and the stream opened again', { timeout: 120_000 }, async (t) => {
  // 3 s: long enough for the first one to be used before it expires on a loaded machine.
  const auth = { accessTokenTtl: '3s' };
  const h = await startService(t, { config: { auth, taskEvents: { heartbeatMs: 50 } } });
  const receiver = await startReceiver(t);
  const listener = await listen(t, h, ['--account', 'acme', '--forward-to', receiver.url()], { auth });
  await listener.waitFor(/^Ready/m);
  await listener.waitFor(/connected again$/m);
  assert.match(listener.stderr(), /stream lost \(the server ended the stream\); connecting again in 1 s/);
  // Its 3 s tokens keep ending the stream: a task settled while it is reconnecting is not streamed, so try until one
  // is.
  const sent: string[] = [];
  await eventually(async () => {
    sent.push(await settled(h, {}));
    await receiver.waitFor(1, 2000).catch(() => undefined);
    return receiver.received.length > 0;
  }, 45_000);
  assert.ok(sent.includes(receiver.received[0].json.data.taskId));
  await listener.stop();
});

test('listen refuses a bad token (exit 1, the reason), and bad arguments (exit 2)', async (t) => {
  const h = await startService(t);
  const refused = await runCli([
    '--url',
    h.url,
    'webhooks',
    'listen',
    '--token',
    'not-a-token',
    '--forward-to',
    'http://127.0.0.1:9/hook',
  ]);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /^imgtask: (UNAUTHORIZED|INVALID_TOKEN): /);
  for (const [args, message] of [
    [['--forward-to', 'http://127.0.0.1:9/hook'], /give --account NAME .*or --token TOKEN/],
    [['--token', h.token, '--forward-to', 'ftp://127.0.0.1/hook'], /--forward-to must be an http or https URL/],
    [
      ['--token', h.token, '--forward-to', 'http://127.0.0.1:9/hook', '--secret', 'hunter2'],
      /--secret is a Standard Webhooks secret/,
    ],
  ] as const) {
    const res = await runCli(['--url', h.url, 'webhooks', 'listen', ...args]);
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.match(res.stderr, message);
  }
});
