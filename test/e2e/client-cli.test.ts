import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, startServeProcess } from '../helpers/cli.js';
import { makeImage } from '../helpers/images.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

test('client commands against a running server: generate --watch --out, upload, alt, tasks list|show|watch with a PAT, exit codes', async (t) => {
  const data = await tempDir(t);
  const config = join(data, 'imgtask.json');
  await writeFile(
    config,
    JSON.stringify({
      models: {
        flaky: {
          provider: 'placeholder',
          price: { perImage: '0.01', perInput: '0' },
          capabilities: { maxInputs: 2, supports4k: false, negativePrompt: true },
          options: { fail: { code: 'RESTRICTED_CONTENT', every: 2 } },
        },
      },
      embedded: {
        altText: { enabled: true, ocr: false },
        backgroundRemoval: { enabled: false, model: 'small', threads: 1, timeoutMs: 1000 },
      },
    }),
  );
  const serve = await startServeProcess(['--data', data, '--config', config]);
  closeBeforeRemoval(data, async () => serve.child.kill('SIGKILL'));
  await runCli(['--data', data, 'accounts', 'create', 'acme', '--credit', '5']);
  const key = (await runCli(['--data', data, 'keys', 'create', '--account', 'acme', '--json'])).json.raw;
  const env = { IMGTASK_URL: serve.url, IMGTASK_API_KEY: key };
  const cli = (...args: string[]) => runCli(args, env);

  const out = join(data, 'out');
  const watched = await cli(
    'generate',
    'a quiet harbour',
    '--count',
    '2',
    '--format',
    'png',
    '--seed',
    '42',
    '--watch',
    '--out',
    out,
  );
  assert.equal(watched.code, 0, watched.stderr);
  assert.equal(watched.json.status, 'completed', 'without a terminal the output is one JSON document');
  assert.deepEqual(
    watched.json.result.images.map((i: { seed: number }) => i.seed),
    [42, 43],
    '--seed: image i gets seed + i',
  );
  const badSeed = await cli('generate', 'x', '--seed', '-1');
  assert.equal(badSeed.code, 2, 'a seed out of range is refused before anything is sent');
  assert.match(badSeed.stderr, /--seed must be a whole number from 0 to 4294967295/);
  assert.deepEqual(
    (await readdir(out)).sort(),
    watched.json.result.images.map((i: { id: string }) => `${i.id}.png`).sort(),
  );

  const partly = await cli('generate', 'x', '--model', 'flaky', '--count', '2', '--watch', '--json');
  assert.equal(partly.code, 4, 'exit 4: the task completed but an image failed');
  assert.equal(partly.json.result.images[1].error.code, 'RESTRICTED_CONTENT');

  const photo = join(data, 'photo.png');
  await writeFile(photo, await makeImage({ width: 120, height: 80 }));
  const uploaded = await cli('upload', photo, '--json');
  assert.equal(uploaded.code, 0, uploaded.stderr);
  assert.equal(uploaded.json[0].size, '120x80');
  const alt = await cli('alt', photo, '--json');
  assert.equal(alt.code, 0, alt.stderr);
  assert.match(alt.json.results[0].alt, /^A landscape /);
  const rated = await cli('rate', photo, uploaded.json[0].id, '--json');
  assert.equal(rated.code, 0, rated.stderr);
  assert.deepEqual(
    rated.json.results.map((r: { level: string }) => r.level),
    ['sfw', 'sfw'],
  );
  const noRemover = await cli('remove-bg', photo, '--json');
  assert.equal(noRemover.code, 1, 'a refused request exits 1');
  assert.equal(noRemover.json.error.code, 'VALIDATION_ERROR');
  const withInput = await cli('generate', 'from a photo', '--input', photo, '--watch', '--json');
  assert.equal(withInput.json.request.inputs.length, 1, 'the local file was uploaded and sent as an input');
  assert.match(withInput.json.request.inputs[0], /^img_/);

  const created = await cli('generate', 'later', '--json');
  const pat = created.json.access.publicAccessToken;
  const viaPat = await runCli(['tasks', 'watch', created.json.taskId, '--json'], {
    IMGTASK_URL: serve.url,
    IMGTASK_API_KEY: pat,
  });
  assert.equal(viaPat.code, 0, viaPat.stderr);
  assert.equal(viaPat.json.status, 'completed');
  assert.equal(viaPat.json.result.images.length, 1);

  const listed = await cli('tasks', 'list', '--status', 'completed', '--json');
  assert.ok(listed.json.tasks.length >= 4);
  assert.equal((await cli('tasks', 'show', created.json.taskId, '--json')).json.id, created.json.taskId);

  const noKey = await runCli(['generate', 'x'], { IMGTASK_URL: serve.url, IMGTASK_API_KEY: '' });
  assert.equal(noKey.code, 2);
  assert.match(noKey.stderr, /API key/);
  // Numbers are checked by the CLI (test/e2e/cli-polish.test.ts); a model id only the server knows.
  const refused = await cli('generate', 'x', '--model', 'nope', '--json');
  assert.equal(refused.code, 2, 'a schema rejection is a bad argument');
  assert.equal(refused.json.error.code, 'SCHEMA_REJECTED');
  assert.match(refused.json.error.message, /model: .*"placeholder"/);
  const unreachable = await runCli(['tasks', 'list', '--json'], {
    IMGTASK_URL: 'http://127.0.0.1:1',
    IMGTASK_API_KEY: key,
  });
  assert.equal(unreachable.code, 1);
  assert.equal(unreachable.json.error.code, 'UNREACHABLE');
});
