// A file that --out saved (named <image id>.<ext>) is sent as that stored image's id while the
// server holds the same bytes, so rate, alt, review and remove-bg act on the generated image
// itself; any other local file, an edited copy included, is uploaded as a new image.
import assert from 'node:assert/strict';
import { appendFile, copyFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { startService } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

test('rate, alt, review and remove-bg of files --out saved act on the stored images; an edited one is uploaded', async (t) => {
  const h = await startService(t);
  const env = { IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey };
  const dir = await tempDir(t);
  const out = join(dir, 'out');
  const made = await runCli(
    ['generate', 'a lighthouse', '--count', '2', '--format', 'png', '--watch', '--out', out, '--json'],
    env,
  );
  assert.equal(made.code, 0, made.stderr);
  const ids: string[] = made.json.result.images.map((image: { id: string }) => image.id);
  const files = ids.map((id) => join(out, `${id}.png`));
  assert.deepEqual((await readdir(out)).sort(), ids.map((id) => `${id}.png`).sort());

  const rated = await runCli(['rate', ...files, '--json'], env);
  assert.equal(rated.code, 0, rated.stderr);
  assert.deepEqual(
    rated.json.results.map((r: { url: string; file: string }) => [r.url, r.file]),
    ids.map((id, i) => [id, files[i]]),
    'sent by id, named as given',
  );
  const alt = await runCli(['alt', files[0], '--json'], env);
  assert.equal(alt.json.results[0].url, ids[0]);
  const reviewed = await runCli(['review', files[1], '--json'], env);
  assert.equal(reviewed.code, 0, reviewed.stderr);
  const review = (await h.request('GET', `/tasks/${reviewed.json.task.id}`, { auth: h.apiKey })).json.data;
  assert.equal(review.request.url, ids[1], 'the review names the generated image: the console shows its verdict on it');
  const cut = await runCli(['remove-bg', files[0], '--watch', '--json'], env);
  assert.equal(cut.code, 0, cut.stderr);
  assert.equal(cut.json.request.url, ids[0]);

  // The same name, other bytes: a new upload, not the stored image.
  const edited = join(dir, `${ids[0]}.png`);
  await copyFile(files[0], edited);
  await appendFile(edited, Buffer.from([0]));
  const again = await runCli(['rate', edited, '--json'], env);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.json.results[0].url, /^img_/);
  assert.notEqual(again.json.results[0].url, ids[0], 'an edited copy is uploaded as a new image');
  assert.equal(again.json.results[0].file, edited);
});
