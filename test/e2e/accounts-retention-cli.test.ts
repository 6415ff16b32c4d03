import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { deepMerge, type JsonObject } from '../../src/config/load.js';
import { runCli } from '../helpers/cli.js';
import { type Harness, startService, waitForTask } from '../helpers/harness.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `imgtask …` on the harness's data dir and store (through its admin socket on the file store, the
 * database on PostgreSQL, where the command reads `config` itself as the server does).
 */
async function cliOf(t: TestContext, h: Harness, config: JsonObject = {}) {
  const configFile = join(await tempDir(t), 'store.json');
  await writeFile(configFile, JSON.stringify(deepMerge(h.storeConfig, config)));
  return (...args: string[]) => runCli(['--data', h.dataDir, '--config', configFile, ...args]);
}

test("imgtask accounts set --retain-* sets an account's own retention; default follows the config again, off keeps forever; show prints it", async (t) => {
  const config = { retention: { outputs: '30d' } };
  const h = await startService(t, { config });
  const cli = await cliOf(t, h, config);

  const set = await cli('accounts', 'set', 'acme', '--retain-outputs', '7d', '--retain-tasks', '90d', '--json');
  assert.equal(set.code, 0, set.stderr);
  assert.deepEqual(set.json.retention, { outputs: '7d', uploads: 'off', tasks: '90d' });
  assert.deepEqual(set.json.retentionOverrides, { outputs: '7d', tasks: '90d' });
  assert.equal(set.json.weight, 1, 'the weight is left as it is');
  assert.deepEqual(
    (await h.server.services.store.accounts.get(h.accountId))!.retention,
    { outputs: '7d', tasks: '90d' },
    'stored',
  );

  const human = await cli('accounts', 'set', 'acme', '--retain-uploads', '12h');
  assert.equal(human.code, 0, human.stderr);
  assert.match(
    human.stdout,
    /^updated acc_\w+ {2}acme {2}balance 100 .*\nretention: outputs 7d \(this account\), uploads 12h \(this account\), tasks 90d \(this account\)\n$/,
  );

  const reset = await cli(
    'accounts',
    'set',
    'acme',
    '--retain-outputs',
    'default',
    '--retain-uploads',
    'off',
    '--weight',
    '2',
  );
  assert.equal(reset.code, 0, reset.stderr);
  assert.match(
    reset.stdout,
    /weight 2\nretention: outputs 30d \(config\), uploads off \(this account\), tasks 90d \(this account\)\n$/,
  );

  const shown = await cli('accounts', 'show', 'acme');
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(
    shown.stdout.split('\n')[1],
    'retention: outputs 30d (config), uploads off (this account), tasks 90d (this account)',
  );
  const json = await cli('accounts', 'show', 'acme', '--json');
  assert.deepEqual(json.json.retentionOverrides, { uploads: 'off', tasks: '90d' });
});

test('accounts set refuses a retention below its floor or not a duration, and a set with nothing to change, with exit 2 and nothing written', async (t) => {
  const h = await startService(t);
  const cli = await cliOf(t, h);
  for (const [args, message] of [
    [
      ['--retain-tasks', '7d'],
      `imgtask: VALIDATION_ERROR: --retain-tasks: at least 31d (so the current month's spend and usage stay whole), not 7d; "default" follows the config`,
    ],
    [
      ['--retain-outputs', '10m'],
      'imgtask: VALIDATION_ERROR: --retain-outputs: at least 1h, not 10m; "default" follows the config',
    ],
    [
      ['--retain-uploads', 'forever'],
      'imgtask: VALIDATION_ERROR: --retain-uploads: a duration such as 30d, 12h or 90m, or "off" (kept forever), not "forever"; "default" follows the config',
    ],
    [
      [],
      'imgtask: VALIDATION_ERROR: give what to change: --weight, --retain-outputs, --retain-uploads or --retain-tasks',
    ],
  ] as const) {
    const res = await cli('accounts', 'set', 'acme', ...args);
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.equal(res.stderr.trim(), message);
  }
  assert.equal((await h.server.services.store.accounts.get(h.accountId))!.retention, undefined, 'nothing was written');
});

test('imgtask sweep removes what an account keeps for less time than the config, and prints what it removed', async (t) => {
  // Settled long ago: old by the harness's clock moved on (file store: the sweep runs in the server)
  // and by the CLI's own clock (PostgreSQL: the command opens the database itself).
  const clock = new ManualClock(Date.parse('2020-01-01T00:00:00.000Z'));
  const h = await startService(t, { clock });
  const cli = await cliOf(t, h);
  const created = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { metadata: { order: 'o-1' } } });
  const task = await waitForTask(h, created.json.data.taskId);
  clock.advance(2 * 3_600_000);

  const nothing = await cli('sweep');
  assert.equal(nothing.code, 0, nothing.stderr);
  assert.equal(nothing.stdout, 'no task to expire\n', 'the config keeps outputs');
  assert.equal((await cli('accounts', 'set', 'acme', '--retain-outputs', '1h')).code, 0);
  const swept = await cli('sweep');
  assert.equal(swept.code, 0, swept.stderr);
  assert.equal(swept.stdout, 'no task to expire\n1 task(s) lost their outputs and text (retention.outputs)\n');
  assert.ok((await h.server.services.store.tasks.get(task.id))!.dataRemovedAt);
  const json = await cli('sweep', '--json');
  assert.deepEqual(json.json.retention, { outputs: 0, uploads: 0, tasks: 0, deliveries: 0, consoleSessions: 0 });
});
