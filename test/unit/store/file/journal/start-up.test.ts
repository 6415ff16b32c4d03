import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { JsonStore } from '../../../../../src/store/file/json-store.js';
import { tempDir } from '../../../../helpers/temp-dir.js';

/** Runs the child writer until it has acknowledged `count` writes, SIGKILLs it, and returns their ids. */
async function killAfterAcknowledged(dir: string, count: number): Promise<string[]> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'snapshot-then-writes-child.ts'), dir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const acknowledged: string[] = [];
  let buffer = '';
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`writer exited early with ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (line.startsWith('acc_')) acknowledged.push(line);
      if (acknowledged.length >= count) resolve();
    });
  });
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  return acknowledged;
}

test('snapshot, more writes, SIGKILL with the checkpoint racing the journal: no false refusal, no acknowledged write lost', async (t) => {
  const dir = await tempDir(t);
  const acknowledged = await killAfterAcknowledged(dir, 3000);
  const checkpoint = JSON.parse(await readFile(join(dir, 'journal.checkpoint'), 'utf8'));
  assert.ok(checkpoint.seq > 0, 'the checkpoint was refreshed while the child wrote');

  const store = await JsonStore.open({ dir });
  assert.ok(checkpoint.seq <= store.engine.lastSeq, 'the checkpoint never claims more than the files hold');
  const missing = [];
  for (const id of acknowledged) if (!(await store.accounts.get(id))) missing.push(id);
  assert.deepEqual(missing, []);
  await store.close();
});
