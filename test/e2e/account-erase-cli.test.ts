import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { BIN, runCli } from '../helpers/cli.js';
import { consoleSignIn } from '../helpers/console.js';
import { type Harness, send, startService, waitForTask } from '../helpers/harness.js';
import { startReceiver } from '../helpers/receiver.js';
import { uploadImage } from '../helpers/reload.js';
import { tempDir } from '../helpers/temp-dir.js';
import { hasScript } from '../helpers/terminal.js';

/**
 * `imgtask …` on the harness's data dir and store (through its admin socket on the file store, the database on
 * PostgreSQL).
 */
async function cliOf(t: TestContext, h: Harness) {
  const configFile = join(await tempDir(t), 'store.json');
  await writeFile(configFile, JSON.stringify(h.storeConfig));
  const args = (...rest: string[]) => ['--data', h.dataDir, '--config', configFile, ...rest];
  return { run: (...rest: string[]) => runCli(args(...rest)), args };
}

/**
 * Runs `imgtask …` on a pseudo-terminal (`script`), typing `answer` once the prompt asks for the
 * name; answers what the terminal showed and the exit code.
 */
function runTyping(args: string[], answer: string): Promise<{ code: number | null; screen: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const child = spawn(
    'script',
    ['-qec', `${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}`, '/dev/null'],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let screen = '';
  let typed = false;
  const onData = (chunk: Buffer) => {
    screen += chunk;
    if (!typed && screen.includes('to erase it: ')) {
      typed = true;
      child.stdin.write(`${answer}\r`);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen }));
  });
}

test('imgtask accounts erase --yes removes everything of the account, keeps the ledger whole (doctor clean), and the account takes nothing new', async (t) => {
  const h = await startService(t, { config: { webhooks: { allowPrivateAddresses: true } } });
  const cli = await cliOf(t, h);
  const receiver = await startReceiver(t);
  assert.equal((await h.request('POST', '/webhook', { auth: h.token, body: { url: receiver.url() } })).status, 201);
  const destination = { name: 'disk', provider: { id: 'local' }, config: { path: join(h.dataDir, 'exports', 'acme') } };
  assert.equal((await h.request('POST', '/destinations', { auth: h.token, body: destination })).status, 201);
  const generated = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a red kite over dunes', metadata: { customer: 'c-77' } },
    headers: { 'idempotency-key': 'k-1' },
  });
  assert.equal(generated.status, 201, generated.text);
  const done = await waitForTask(h, generated.json.data.taskId);
  const image = new URL(done.result.images[0].service_url).pathname;
  const pending = (
    await h.request('POST', '/test/tasks', {
      auth: h.apiKey,
      body: { delayMs: 60_000, metadata: { customer: 'c-77' } },
    })
  ).json.data.taskId;
  const upload = await uploadImage(h);
  await consoleSignIn(h);
  assert.equal((await send(h.url, 'GET', image)).status, 200);

  const erased = await cli.run('accounts', 'erase', 'acme', '--yes', '--json');
  assert.equal(erased.code, 0, erased.stderr);
  const report = erased.json;
  assert.equal(report.id, h.accountId);
  assert.equal(report.name, 'acme');
  assert.match(report.erasedAt, /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual(
    [
      report.keys,
      report.cancelled,
      report.tasks,
      report.uploads,
      report.webhooks,
      report.destinations,
      report.consoleSessions,
      report.idempotencyRecords,
    ],
    // Console: the sign-in link and the session it opened.
    [1, 1, 1, 1, 1, 1, 2, 1],
  );

  const { store } = h.server.services;
  const account = (await store.accounts.get(h.accountId))!;
  assert.equal(account.name, h.accountId, 'the name is replaced by the id');
  assert.equal(account.erasingSince, undefined);
  for (const id of [done.id, pending]) {
    const task = (await store.tasks.get(id))!;
    assert.ok(task.dataRemovedAt, `${id} scrubbed`);
    assert.deepEqual(task.request, {});
    assert.equal(task.status === 'pending', false);
  }
  assert.equal((await send(h.url, 'GET', image)).status, 404, 'the output is gone');
  assert.equal((await send(h.url, 'GET', new URL(upload.service_url).pathname)).status, 404, 'the upload is gone');
  assert.deepEqual(await store.webhooks.listByAccount(h.accountId), []);
  assert.deepEqual(await store.destinations.listByAccount(h.accountId), []);
  assert.deepEqual((await store.webhooks.deliveryCounts()).pending, 0);

  // Its key, its access token and its old name are refused; nothing new is made for it.
  assert.equal((await send(h.url, 'GET', `/tasks/${done.id}`, { auth: h.apiKey })).status, 401);
  assert.equal((await send(h.url, 'GET', '/tasks', { auth: h.token })).status, 401);
  const byName = await cli.run('accounts', 'show', 'acme');
  assert.equal(byName.code, 2);
  assert.match(byName.stderr, /no account "acme"/);
  const key = await cli.run('keys', 'create', '--account', h.accountId);
  assert.equal(key.code, 2);
  assert.match(key.stderr, new RegExp(`account ${h.accountId} is erased: it takes nothing new`));
  const shown = await cli.run('accounts', 'show', h.accountId);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, new RegExp(`^${h.accountId}  ${h.accountId}  balance `));
  assert.match(shown.stdout, /\nerased \d{4}-/);

  const doctor = await cli.run('doctor', '--json');
  assert.equal(doctor.json.ledger.ok, true, JSON.stringify(doctor.json.ledger.problems));
  const usage = await cli.run('usage', '--account', h.accountId, '--json');
  assert.equal(usage.code, 0, usage.stderr);
  assert.equal(usage.json.total.cost, done.cost, 'its charges stay on the books');
  const again = await cli.run('accounts', 'erase', h.accountId, '--yes');
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, new RegExp(`^erased ${h.accountId} at .*\\n  nothing was left to remove\\n$`));
});

test('imgtask accounts erase prints what it removed, a line each', async (t) => {
  const h = await startService(t);
  const cli = await cliOf(t, h);
  await h.server.services.accounts.create('globex', 0);
  const erased = await cli.run('accounts', 'erase', 'globex', '--yes');
  assert.equal(erased.code, 0, erased.stderr);
  assert.match(erased.stdout, /^erased acc_\w+ \(was globex\) at \S+\n {2}nothing was left to remove\n$/);
  const acme = await cli.run('accounts', 'erase', 'acme', '--yes');
  assert.match(
    acme.stdout,
    new RegExp(`^erased ${h.accountId} \\(was acme\\) at \\S+\\n  1 API key\\(s\\) revoked\\n$`),
  );
});

test('imgtask accounts erase without a terminal needs --yes (exit 2, nothing erased)', async (t) => {
  const h = await startService(t);
  const cli = await cliOf(t, h);
  const refused = await cli.run('accounts', 'erase', 'acme');
  assert.equal(refused.code, 2);
  assert.equal(
    refused.stderr.trim(),
    "imgtask: VALIDATION_ERROR: accounts erase asks for the account's name again on a terminal; give --yes to erase without asking (scripts)",
  );
  assert.equal((await h.server.services.store.accounts.get(h.accountId))!.name, 'acme');
  assert.equal((await send(h.url, 'GET', '/tasks', { auth: h.apiKey })).status, 200, 'its key still works');
});

test('on a terminal, imgtask accounts erase asks for the name again: another name erases nothing, the name erases', {
  skip: !hasScript && 'needs script (util-linux)',
}, async (t) => {
  const h = await startService(t);
  const cli = await cliOf(t, h);
  const wrong = await runTyping(cli.args('accounts', 'erase', 'acme'), 'acm');
  assert.equal(wrong.code, 1, wrong.screen);
  assert.match(wrong.screen, /This erases account acme \(acc_\w+\) for good/);
  assert.match(wrong.screen, /not erased: "acm" is not the account's name/);
  assert.equal((await h.server.services.store.accounts.get(h.accountId))!.name, 'acme', 'nothing erased');

  const right = await runTyping(cli.args('accounts', 'erase', h.accountId), 'acme');
  assert.equal(right.code, 0, right.screen);
  assert.match(right.screen, new RegExp(`erased ${h.accountId} \\(was acme\\)`));
  assert.ok((await h.server.services.store.accounts.get(h.accountId))!.erasedAt);
});
