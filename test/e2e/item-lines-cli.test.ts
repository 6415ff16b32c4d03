// What `imgtask` prints on a terminal for each item of a task: why a rate or alt URL failed (the
// API's message after the code), and where --out saved an image.
import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { startService } from '../helpers/harness.js';
import { makeImage } from '../helpers/images.js';
import { tempDir } from '../helpers/temp-dir.js';
import { hasScript, runInTerminal } from '../helpers/terminal.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences, taken out to read the text
const plain = (screen: string) => screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

test('rate and alt on a terminal: a URL that could not be fetched says why, after its code', {
  skip: !hasScript && 'needs script (util-linux)',
}, async (t) => {
  // The SSRF guard is on: a loopback URL is refused, with the reason in the item's error.message.
  const h = await startService(t);
  const env = { IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey, NO_COLOR: '1' };
  for (const command of ['rate', 'alt']) {
    const run = await runInTerminal([command, 'http://127.0.0.1:9/a.png'], env);
    const screen = plain(run.screen);
    assert.match(
      screen,
      /http:\/\/127\.0\.0\.1:9\/a\.png: ✗ FETCH_FAILED: cannot fetch the image: 127\.0\.0\.1 is an address user URLs may not reach/,
      `${command}:\n${screen}`,
    );
  }
});

test('remove-bg --watch --out says where it saved the image, on a terminal and in its JSON', {
  skip: !hasScript && 'needs script (util-linux)',
}, async (t) => {
  const h = await startService(t);
  const dir = await tempDir(t);
  const photo = join(dir, 'photo.png');
  await writeFile(photo, await makeImage({ width: 120, height: 80 }));
  const env = { IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey, NO_COLOR: '1' };

  const shown = await runInTerminal(['remove-bg', photo, '--watch', '--out', join(dir, 'cut')], env);
  const screen = plain(shown.screen);
  assert.equal(shown.code, 0, screen);
  const [saved] = await readdir(join(dir, 'cut'));
  assert.match(screen, new RegExp(`\\n {4}saved ${join(dir, 'cut', saved)}\\n`), screen);

  const json = await runCli(['remove-bg', photo, '--watch', '--out', join(dir, 'cut-json'), '--json'], env);
  assert.equal(json.code, 0, json.stderr);
  assert.equal(json.json.result.image.savedTo, join(dir, 'cut-json', `${json.json.result.image.id}.png`));
});
