import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { watchConfig } from '../../../src/app/config-watch.js';
import type { Config } from '../../../src/config/schema.js';
import { eventually } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

test('a reload whose apply fails is logged, and the next edit of the file is still applied', async (t) => {
  const file = join(await tempDir(t), 'imgtask.json');
  await writeFile(file, '{}');
  const logs: string[] = [];
  const applied: number[] = [];
  const watcher = await watchConfig({
    file,
    flags: {},
    log: (message) => logs.push(message),
    apply: async (next: Config) => {
      if (applied.length === 0 && !logs.some((m) => m.includes('failed'))) throw new Error('providers could not be built');
      applied.push(next.sync.timeoutMs);
      return { deferred: [] };
    },
  });
  t.after(() => watcher.close());
  await writeFile(file, JSON.stringify({ sync: { timeoutMs: 111 } }));
  await eventually(() => logs.some((m) => m.includes('failed')));
  assert.match(logs.find((m) => m.includes('failed'))!, /^config: reload of .*imgtask\.json failed: providers could not be built$/);
  await writeFile(file, JSON.stringify({ sync: { timeoutMs: 222 } }));
  await eventually(() => applied.includes(222));
  assert.ok(logs.some((m) => m.startsWith('config: reloaded')));
});
