import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { runCli } from '../helpers/cli.js';
import { startService } from '../helpers/harness.js';
import { makeImage } from '../helpers/images.js';
import { tempDir } from '../helpers/temp-dir.js';

test('imgtask remove-bg takes an uploaded image id, a service URL or a local file; the image is read from storage', async (t) => {
  // The SSRF guard stays on: the server is on loopback, so only storage can give it its own images.
  const h = await startService(t);
  const dir = await tempDir(t);
  const photo = join(dir, 'photo.png');
  await writeFile(photo, await makeImage({ width: 120, height: 80 }));
  const env = { IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey };

  const uploaded = await runCli(['upload', photo, '--json'], env);
  assert.equal(uploaded.code, 0, uploaded.stderr);
  const [{ id, service_url: serviceUrl }] = uploaded.json as { id: string; service_url: string }[];

  for (const source of [id, serviceUrl, photo]) {
    const out = join(dir, `out-${source === id ? 'id' : source === photo ? 'file' : 'url'}`);
    const cut = await runCli(['remove-bg', source, '--watch', '--out', out, '--json'], env);
    assert.equal(cut.code, 0, `${source}: ${cut.stderr}`);
    assert.equal(cut.json.status, 'completed', source);
    if (source !== photo) assert.equal(cut.json.request.url, source, 'the id or URL is sent as given');
    const saved = await readdir(out);
    assert.deepEqual(saved, [`${cut.json.result.image.id}.png`]);
    assert.equal((await sharp(join(out, saved[0])).metadata()).hasAlpha, true, source);
  }
});
