// keys create (and rotate) on a terminal say how the client commands get the key; captured with
// $(…), as the README does, only the key is printed on stdout and no such note.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { startService } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';
import { hasScript, runInTerminal } from '../helpers/terminal.js';

test('keys create on a terminal says to export IMGTASK_API_KEY; captured, it prints the key alone', {
  skip: !hasScript && 'needs script (util-linux)',
}, async (t) => {
  const h = await startService(t);
  // The harness's store (on PostgreSQL, its database) for the CLI too.
  const config = join(await tempDir(t), 'store.json');
  await writeFile(config, JSON.stringify(h.storeConfig));
  const store = ['--data', h.dataDir, '--config', config];
  const shown = await runInTerminal([...store, 'keys', 'create', '--account', 'acme'], { NO_COLOR: '1' });
  const screen = shown.screen.replace(/\r/g, '');
  assert.equal(shown.code, 0, screen);
  const key = /^(mak_\S+)$/m.exec(screen)?.[1];
  assert.ok(key, screen);
  assert.match(
    screen,
    new RegExp(
      `^This is the only time the key is shown\\.\\nUse it: export IMGTASK_API_KEY=${key} {3}\\(the client commands read it; or pass --key\\)$`,
      'm',
    ),
  );

  const captured = await runCli([...store, 'keys', 'create', '--account', 'acme']);
  assert.equal(captured.code, 0, captured.stderr);
  assert.match(captured.stdout, /^mak_\S+\n$/);
  assert.doesNotMatch(captured.stderr, /IMGTASK_API_KEY/, 'no note to export what is being captured');
});
