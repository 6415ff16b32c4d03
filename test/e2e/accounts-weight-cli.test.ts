import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runAdminOp } from '../../src/app/admin/ops.js';
import { AppError } from '../../src/domain/errors.js';
import { runCli } from '../helpers/cli.js';
import { type Harness, startService } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `imgtask …` on the harness's data dir and store (through its admin socket on the file store, the database on
 * PostgreSQL).
 */
async function cliOf(t: Parameters<typeof startService>[0], h: Harness) {
  const configFile = join(await tempDir(t), 'store.json');
  await writeFile(configFile, JSON.stringify(h.storeConfig));
  return (...args: string[]) => runCli(['--data', h.dataDir, '--config', configFile, ...args]);
}

test('imgtask accounts set --weight changes the weight; accounts show and list (and --json) show it, 1 when unset', async (t) => {
  const h = await startService(t);
  const cli = await cliOf(t, h);
  await h.server.services.accounts.create('globex', 0);

  const before = await cli('accounts', 'show', 'acme', '--json');
  assert.equal(before.code, 0, before.stderr);
  assert.equal(before.json.weight, 1, 'an account never set has weight 1');

  const set = await cli('accounts', 'set', 'acme', '--weight', '3', '--json');
  assert.equal(set.code, 0, set.stderr);
  assert.equal(set.json.id, h.accountId);
  assert.equal(set.json.weight, 3);
  assert.equal((await h.server.services.accounts.find('acme')).weight, 3, 'stored');

  const human = await cli('accounts', 'set', h.accountId, '--weight', '100');
  assert.equal(human.code, 0, human.stderr);
  assert.match(
    human.stdout,
    new RegExp(`^updated ${h.accountId}  acme  balance 100  reserved 0  available 100  weight 100\\n$`),
  );

  const shown = await cli('accounts', 'show', 'acme');
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout.split('\n')[0], /available 100 {2}weight 100$/);
  assert.match(shown.stdout, /PERIOD\s+MAX CONCURRENT\s+MAX PRIORITY/, 'its keys with their scheduling limits');
  assert.match(shown.stdout.split('\n').find((line) => line.startsWith(h.keyId))!, /\s+-\s+0$/);

  const listed = await cli('accounts', 'list');
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /AVAILABLE\s+WEIGHT/);
  assert.match(listed.stdout.split('\n').find((line) => line.includes(' acme '))!, /\s100$/);
  assert.match(listed.stdout.split('\n').find((line) => line.includes(' globex '))!, /\s1$/);
  const json = await cli('accounts', 'list', '--json');
  assert.deepEqual(
    json.json.map((a: { name: string; weight: number }) => [a.name, a.weight]),
    [
      ['acme', 100],
      ['globex', 1],
    ],
  );
});

test('accounts set refuses a weight out of 1..100 or not whole, an unknown account, and a missing --weight, with exit 2', async (t) => {
  const h = await startService(t);
  const cli = await cliOf(t, h);
  for (const [args, pattern] of [
    [['--weight', '0'], /--weight must be a whole number from 1 to 100, not "0"/],
    [['--weight', '101'], /--weight must be a whole number from 1 to 100, not "101"/],
    [['--weight', '2.5'], /--weight must be a whole number from 1 to 100/],
    [[], /--weight/],
  ] as const) {
    const res = await cli('accounts', 'set', 'acme', ...args);
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.match(res.stderr, pattern);
    assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
  }
  const unknown = await cli('accounts', 'set', 'nobody', '--weight', '2');
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr.trim(), 'imgtask: VALIDATION_ERROR: no account "nobody"');
  assert.equal((await h.server.services.accounts.find('acme')).weight, undefined, 'nothing was written');
});

test('the accounts service and the operator action refuse a bad weight with VALIDATION_ERROR', async (t) => {
  const h = await startService(t);
  const { services } = h.server;
  for (const weight of [0, 101, 1.5, Number.NaN]) {
    await assert.rejects(
      services.accounts.setWeight('acme', weight),
      (err: unknown) => err instanceof AppError && err.code === 'VALIDATION_ERROR',
      String(weight),
    );
    await assert.rejects(
      runAdminOp(services.admin, 'accounts.set', { account: 'acme', weight }),
      (err: unknown) => err instanceof AppError && err.code === 'VALIDATION_ERROR',
      String(weight),
    );
  }
  await assert.rejects(services.accounts.setWeight('acc_nope', 5), /no account "acc_nope"/);
  const set = await runAdminOp(services.admin, 'accounts.set', { account: 'acme', weight: 7 });
  assert.equal(set.weight, 7);
  assert.equal(
    (await runAdminOp(services.admin, 'accounts.show', { account: 'acme' })).weight,
    7,
    'the operator detail shows it',
  );
  assert.equal((await services.accounts.views()).find((a) => a.name === 'acme')?.weight, 7);
});
