// The service log of a real `imgtask serve`: JSON lines on stdout (stdout is not a terminal
// here), one access line per request, task lifecycle lines, and no library chatter.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { BIN, runCli } from '../helpers/cli.js';
import { eventually, send } from '../helpers/harness.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

type Line = Record<string, any>;

test('serve logs JSON lines: access lines by route pattern with the request id and key id (never the key), task lifecycle lines, and no tfjs/nsfwjs or AWS SDK notices', async (t) => {
  const data = await tempDir(t);
  const configFile = join(data, 'imgtask.json');
  await writeFile(
    configFile,
    JSON.stringify({
      embedded: {
        nsfw: { enabled: true, timeoutMs: 60_000 },
        backgroundRemoval: { enabled: false },
        altText: { enabled: false },
      },
      destinations: { allowPrivateAddresses: true },
    }),
  );
  const child = spawn(process.execPath, [BIN, '--data', data, '--config', configFile, 'serve', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  closeBeforeRemoval(data, async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const lines = (): Line[] =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  await eventually(() => lines().some((l) => l.event === 'server.listening'), 30_000);
  const url: string = lines().find((l) => l.event === 'server.listening')!.url;
  assert.match(stdout, /^imgtask listening on http:\/\/127\.0\.0\.1:\d+/m, 'the banner is still printed for people');
  // The nsfw model takes seconds to load in its worker: /ready answers 503 meanwhile.
  const warming = await send(url, 'GET', '/ready');
  assert.equal(warming.status, 503, warming.text);

  assert.equal((await runCli(['--data', data, 'accounts', 'create', 'logs', '--credit', '5', '--json'])).code, 0);
  const key = (await runCli(['--data', data, 'keys', 'create', '--account', 'logs', '--json'])).json;
  const token = (await runCli(['--data', data, 'tokens', 'issue', '--account', 'logs', '--json'])).json.accessToken;
  const raw: string = key.raw;
  const keyId: string = key.apiKey.id;

  // A real rating through the embedded model (its worker thread is where the nsfwjs/tfjs notices would print).
  const image = await sharp({
    create: {
      width: 128,
      height: 96,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer();
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(image)]), 'noise.png');
  const uploaded = await fetch(`${url}/image/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${raw}` },
    body: form,
  });
  const upload = (await uploaded.json()) as { data: { files: { id: string }[] } };
  assert.equal(uploaded.status, 201, JSON.stringify(upload));
  const fileId = upload.data.files[0].id;
  const rated = await send(url, 'POST', '/image/rate', { auth: raw, body: { mode: 'nsfw_sfw', urls: [fileId] } });
  assert.equal(rated.status, 200, rated.text);
  const taskId: string = rated.json.data.task.id;
  const read = await send(url, 'GET', `/tasks/${taskId}`, { auth: raw });
  assert.equal(read.status, 200);
  const requestId = read.headers.get('x-request-id');
  assert.match(requestId ?? '', /^req_/);
  assert.equal(
    (await send(url, 'POST', '/image/rate', { auth: raw, body: { mode: 'nsfw_sfw', urls: 'not a list' } })).status,
    400,
  );
  assert.equal((await send(url, 'GET', `/tasks/${taskId}`, { auth: 'sk_not_a_key' })).status, 401);

  // An S3 destination test builds an AWS SDK client (where the SDK's Node.js version notice comes from); nothing
  // listens on port 9.
  const destination = await send(url, 'POST', '/destinations', {
    auth: token,
    body: {
      name: 's3',
      provider: { id: 's3' },
      config: {
        bucket: 'logs',
        region: 'us-east-1',
        endpoint: 'http://127.0.0.1:9',
        forcePathStyle: true,
        accessKeyId: 'AKIAEXAMPLE',
        secretAccessKey: 'secret-value-1234',
      },
    },
  });
  assert.equal(destination.status, 201, destination.text);
  assert.equal(
    (await send(url, 'POST', `/destinations/${destination.json.data.id}/test`, { auth: token })).status,
    502,
  );

  await eventually(
    () => lines().some((l) => l.event === 'http.request' && l.route === '/destinations/:id/test'),
    10_000,
  );
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  assert.equal(code, 0, stderr);

  const all = lines();
  for (const line of all) {
    assert.equal(typeof line.level, 'string', JSON.stringify(line));
    assert.match(line.time, /^\d{4}-\d\d-\d\dT/);
    assert.equal(typeof line.msg, 'string');
  }
  const access = all.filter((l) => l.event === 'http.request');
  const readLine = access.find((l) => l.requestId === requestId);
  assert.ok(readLine, `an access line carries the answer's x-request-id ${requestId}`);
  assert.deepEqual(
    {
      method: readLine.method,
      route: readLine.route,
      status: readLine.status,
      credential: readLine.credential,
      keyId: readLine.keyId,
    },
    { method: 'GET', route: '/tasks/:id', status: 200, credential: 'apiKey', keyId },
  );
  assert.equal(typeof readLine.ms, 'number');
  const routes = access.map((l) => `${l.method} ${l.route} ${l.status}`);
  for (const expected of [
    'POST /image/upload 201',
    'POST /image/rate 200',
    'POST /destinations 201',
    'POST /destinations/:id/test 502',
  ])
    assert.ok(routes.includes(expected), `${expected} in ${routes.join(', ')}`);
  assert.equal(access.find((l) => l.route === '/destinations')?.credential, 'accessToken');
  assert.equal(access.length, 8, 'one access line per request');
  // Levels: a server's own failure (here an upstream's, 502) is an error; a client's error is an
  // info, a refused credential a warn; /ready's 503 while the models warm up is an info.
  assert.deepEqual(
    access.map((l) => `${l.level} ${l.method} ${l.route} ${l.status}`),
    [
      'info GET /ready 503',
      'info POST /image/upload 201',
      'info POST /image/rate 200',
      'info GET /tasks/:id 200',
      'info POST /image/rate 400',
      'warn GET /tasks/:id 401',
      'info POST /destinations 201',
      'error POST /destinations/:id/test 502',
    ],
  );
  assert.deepEqual(
    all.filter((l) => l.level === 'error').map((l) => l.msg),
    ['POST /destinations/:id/test 502'],
    'no other error line: the model warm-up is not one',
  );

  const created = all.find((l) => l.event === 'http.request' && l.taskId === taskId);
  assert.deepEqual(
    { route: created?.route, type: created?.type, keyId: created?.keyId, items: created?.items },
    { route: '/image/rate', type: 'image.rate', keyId, items: 1 },
  );
  const settled = all.find((l) => l.event === 'task.settled' && l.taskId === taskId);
  assert.equal(settled?.type, 'image.rate');
  assert.equal(settled?.status, 'completed');
  assert.equal(typeof settled?.costUsd, 'number');
  assert.equal(typeof settled?.ms, 'number');
  assert.ok(
    all.some((l) => l.component === 'models' && /nsfw rating loaded/.test(l.msg)),
    'plain messages become JSON lines too',
  );

  const output = stdout + stderr;
  assert.ok(!output.includes(raw), 'the raw API key is never logged');
  assert.ok(!output.includes(token), 'nor the access token');
  assert.ok(!output.includes('secret-value-1234'), 'nor a destination secret');
  assert.doesNotMatch(output, /You're using the model/, 'no nsfwjs model notice');
  assert.doesNotMatch(output, /running TensorFlow\.js in Node\.js/, 'no tfjs notice');
  assert.doesNotMatch(output, /AWS SDK for JavaScript/, 'no AWS SDK Node.js version notice');
  assert.doesNotMatch(stderr, /Warning/, 'no process warning on stderr');
});
