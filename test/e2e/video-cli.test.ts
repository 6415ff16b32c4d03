import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { renderToString } from 'ink';
import { createElement } from 'react';
import sharp from 'sharp';
import type { TaskView } from '../../src/client/http-client.js';
import { TaskWatch } from '../../src/tui/components/TaskWatch.js';
import { plainText, taskLines } from '../../src/tui/task-lines.js';
import { startFakeOpenAiVideo } from '../fixtures/fake-openai-video.js';
import { BIN, runCli, startServeProcess } from '../helpers/cli.js';
import { makeImage } from '../helpers/images.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';
import { decodeVideo, mp4Boxes, webpAnimation } from '../helpers/video-check.js';

/** Small frames keep the real encoder fast. */
const CONFIG = {
  videoModels: {
    placeholder: {
      provider: 'placeholder',
      price: { perSecond: '0.002', perInput: '0.0005' },
      capabilities: {
        maxInputs: 1,
        negativePrompt: true,
        maxDurationS: 10,
        maxFps: 30,
        maxSize: '320x180',
        nativeSize: '160x90',
      },
    },
  },
};

async function startServer(t: TestContext, extra: Record<string, unknown> = {}) {
  const data = await tempDir(t);
  const config = join(data, 'imgtask.json');
  await writeFile(
    config,
    JSON.stringify({ ...CONFIG, ...extra, videoModels: { ...CONFIG.videoModels, ...(extra.videoModels as object) } }),
  );
  const serve = await startServeProcess(['--data', data, '--config', config]);
  closeBeforeRemoval(data, async () => serve.child.kill('SIGKILL'));
  await runCli(['--data', data, 'accounts', 'create', 'acme', '--credit', '5']);
  const key = (await runCli(['--data', data, 'keys', 'create', '--account', 'acme', '--json'])).json.raw;
  const env = { IMGTASK_URL: serve.url, IMGTASK_API_KEY: key };
  return { data, url: serve.url, key, env, cli: (...args: string[]) => runCli(args, env) };
}

test('imgtask video --watch --out saves a real MP4 and an animated WebP, naming them in the JSON report', async (t) => {
  const s = await startServer(t);
  const out = join(s.data, 'out');

  const mp4 = await s.cli(
    'video',
    'a red fox',
    '--duration',
    '1',
    '--fps',
    '8',
    '--size',
    '16:9',
    '--watch',
    '--out',
    out,
    '--json',
  );
  assert.equal(mp4.code, 0, mp4.stderr);
  assert.equal(mp4.json.type, 'video.generate');
  assert.equal(mp4.json.status, 'completed');
  const [video] = mp4.json.result.videos;
  assert.equal(video.status, 'success');
  assert.equal(video.format, 'mp4');
  assert.equal(video.fps, 8);
  assert.equal(video.duration_s, 1);
  const [width, height] = video.size.split('x').map(Number);
  assert.ok(
    width <= 320 && height <= 180 && Math.abs(width / height - 16 / 9) < 0.05,
    `16:9 scaled down to fit the model’s largest frame: ${video.size}`,
  );
  assert.equal(video.savedTo, join(out, `${video.id}.mp4`), 'the report names the saved file');
  assert.deepEqual(await readdir(out), [`${video.id}.mp4`]);
  const saved = await readFile(video.savedTo);
  const boxes = mp4Boxes(saved);
  assert.equal(boxes[0], 'ftyp');
  assert.ok(boxes.indexOf('moov') !== -1 && boxes.indexOf('moov') < boxes.indexOf('mdat'), `fast start: ${boxes}`);
  const decoded = await decodeVideo(saved);
  assert.equal(decoded.frames, 8);
  assert.deepEqual([decoded.width, decoded.height], [width, height]);
  // The saved bytes are exactly what the service serves.
  assert.deepEqual(saved, Buffer.from(await (await fetch(video.service_url)).arrayBuffer()));

  const webp = await s.cli(
    'video',
    'a red fox',
    '--duration',
    '1',
    '--fps',
    '8',
    '--size',
    'square',
    '--format',
    'webp',
    '--watch',
    '--out',
    out,
    '--json',
  );
  assert.equal(webp.code, 0, webp.stderr);
  const [animated] = webp.json.result.videos;
  assert.equal(animated.format, 'webp');
  assert.equal(animated.savedTo, join(out, `${animated.id}.webp`));
  const meta = await sharp(await readFile(animated.savedTo), { animated: true }).metadata();
  assert.equal(meta.format, 'webp');
  assert.ok((meta.pages ?? 0) > 1, `an animated WebP: ${meta.pages} pages`);
  assert.equal((await webpAnimation(await readFile(animated.savedTo))).pages, 8);
  assert.equal((await readdir(out)).length, 2);

  // tasks watch --out saves a settled video task's videos too.
  const again = join(s.data, 'again');
  const watched = await s.cli('tasks', 'watch', mp4.json.id, '--out', again, '--json');
  assert.equal(watched.code, 0, watched.stderr);
  assert.deepEqual(await readdir(again), [`${video.id}.mp4`]);
  assert.deepEqual(await readFile(join(again, `${video.id}.mp4`)), saved);
});

test('imgtask video without --watch answers the task id, reserved cost and PAT; --input uploads a local file first; tasks list --type video.generate', async (t) => {
  const s = await startServer(t);
  const json = await s.cli('video', 'a lighthouse', '--duration', '2', '--fps', '8', '--count', '2', '--json');
  assert.equal(json.code, 0, json.stderr);
  assert.match(json.json.taskId, /^tsk_/);
  assert.equal(json.json.estimatedCost, '0.008', '2 videos × 2 s × 0.002 USD');
  assert.match(json.json.access.publicAccessToken, /^pat_/);
  const viaPat = await runCli(['tasks', 'watch', json.json.taskId, '--json'], {
    IMGTASK_URL: s.url,
    IMGTASK_API_KEY: json.json.access.publicAccessToken,
  });
  assert.equal(viaPat.code, 0, viaPat.stderr);
  assert.equal(viaPat.json.result.videos.length, 2, 'the PAT reads the videos');

  await s.cli('video', 'a lighthouse', '--duration', '1', '--fps', '8', '--json');

  const photo = join(s.data, 'first-frame.png');
  await writeFile(photo, await makeImage({ width: 160, height: 90 }));
  const withInput = await s.cli(
    'video',
    'from a photo',
    '--input',
    photo,
    '--duration',
    '1',
    '--fps',
    '8',
    '--watch',
    '--json',
  );
  assert.equal(withInput.code, 0, withInput.stderr);
  assert.equal(withInput.json.request.inputs.length, 1, 'the local file was uploaded and sent as the input');
  assert.match(withInput.json.request.inputs[0], /^img_/);
  assert.equal(withInput.json.result.videos[0].status, 'success');

  const listed = await s.cli('tasks', 'list', '--type', 'video.generate', '--json');
  assert.equal(listed.code, 0, listed.stderr);
  assert.equal(listed.json.tasks.length, 3);
  assert.ok(listed.json.tasks.every((task: { type: string }) => task.type === 'video.generate'));

  const unknownModel = await s.cli('video', 'x', '--model', 'nope', '--json');
  assert.equal(unknownModel.code, 2, 'a model id only the server knows: a schema rejection is a bad argument');
});

test('imgtask video --watch exits 4 when videos failed (the task completes), 3 when the task failed', async (t) => {
  const fake = await startFakeOpenAiVideo(t, 'sk-test-video-cli-0123456789');
  fake.mode = 'policy';
  const s = await startServer(t, {
    fetch: { allowPrivateAddresses: true },
    providers: {
      sora: {
        type: 'openai-video',
        baseUrl: fake.baseUrl,
        model: 'sora-2',
        apiKey: 'sk-test-video-cli-0123456789',
        pollIntervalMs: 100,
      },
    },
    videoModels: {
      sora: {
        provider: 'sora',
        price: { perSecond: '0.1' },
        capabilities: {
          maxInputs: 1,
          negativePrompt: false,
          maxDurationS: 10,
          maxFps: 30,
          maxSize: '1280x720',
          nativeSize: '1280x720',
        },
      },
    },
  });
  const out = join(s.data, 'out');
  const refused = await s.cli(
    'video',
    'a lighthouse',
    '--model',
    'sora',
    '--count',
    '2',
    '--duration',
    '4',
    '--watch',
    '--out',
    out,
    '--json',
  );
  assert.equal(refused.code, 4, refused.stderr);
  assert.equal(refused.json.status, 'completed');
  assert.deepEqual(
    refused.json.result.videos.map((v: { status: string; error?: { code: string } }) => `${v.status} ${v.error?.code}`),
    ['failed RESTRICTED_CONTENT', 'failed RESTRICTED_CONTENT'],
  );
  assert.deepEqual(await readdir(out).catch(() => []), [], 'nothing to save');

  // An input that cannot be read fails the task before any video is made.
  const failed = await s.cli(
    'video',
    'from nothing',
    '--input',
    'http://127.0.0.1:1/missing.png',
    '--duration',
    '1',
    '--fps',
    '8',
    '--watch',
    '--json',
  );
  assert.equal(failed.code, 3, failed.stderr);
  assert.equal(failed.json.status, 'failed');
  assert.match(failed.stderr, /imgtask: task tsk_\w+ failed: INVALID_INPUT/);
});

test('imgtask video checks numbers and choices locally: exit 2 naming the allowed range, nothing sent', async (t) => {
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const env = { IMGTASK_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, IMGTASK_API_KEY: 'sk_test' };
  const cases: Array<[string[], RegExp]> = [
    [['--count', '5'], /--count must be a whole number from 1 to 4, not "5"/],
    [['--count', '0'], /--count must be a whole number from 1 to 4/],
    [['--fps', '60'], /--fps must be a whole number from 8 to 30, not "60"/],
    [['--duration', '11'], /--duration must be a whole number from 1 to 10/],
    [['--duration', '1.5'], /--duration must be a whole number/],
    [['--format', 'gif'], /--format must be one of: mp4, webp/],
    [['--size', '16:9_4k'], /--size must be one of: .*16:9/],
    [['--metadata', '{nope'], /--metadata is not valid JSON/],
    [['--input', '/no/such/file.png'], /no file \/no\/such\/file\.png/],
  ];
  for (const [args, message] of cases) {
    const result = await runCli(['video', 'a red fox', ...args], env);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message, args.join(' '));
  }
  assert.equal(requests, 0, 'nothing was sent');
});

test('a video task as text: each video with size, duration, fps, format, cost and URL, or its error; a spinner line per video while pending', () => {
  const task = {
    id: 'tsk_1',
    type: 'video.generate',
    status: 'completed',
    cost: '0.004',
    result: {
      model: 'placeholder',
      videos: [
        {
          status: 'success',
          id: 'vid_A',
          url: 'https://cdn.example/a.mp4',
          service_url: 'http://127.0.0.1:8080/videos/vid_A.mp4',
          size: '320x180',
          duration_s: 2,
          fps: 8,
          format: 'mp4',
          cost: '0.004',
          destination: { name: 'disk', status: 'success', key: 'a.mp4', url: 'https://cdn.example/a.mp4' },
          savedTo: 'out/vid_A.mp4',
        },
        { status: 'failed', error: { code: 'PROVIDER_ERROR', message: 'the encoder stopped' } },
      ],
    },
  } as unknown as TaskView;
  assert.equal(
    plainText(taskLines(task)),
    [
      'tsk_1 video.generate completed  cost 0.004 USD',
      '  video 1 ✓ 320x180 2s 8fps mp4 0.004 USD https://cdn.example/a.mp4',
      '    destination disk ✓ https://cdn.example/a.mp4',
      '    saved out/vid_A.mp4',
      '  video 2 ✗ PROVIDER_ERROR: the encoder stopped',
    ].join('\n'),
  );
  const pending = renderToString(
    createElement(TaskWatch, { taskId: 'tsk_1', type: 'video.generate', expected: 2, elapsedMs: 1200, spinner: '⠋' }),
    { columns: 80 },
  );
  assert.match(pending, /tsk_1 video\.generate ⠋ pending 1\.2s/);
  assert.match(pending, /video 1 ⠋ working\n\s+video 2 ⠋ working/);
  assert.doesNotMatch(pending, /image/);
});

/** `script` (util-linux) gives the CLI a real pseudo-terminal, as a user's shell does. */
const hasScript = spawnSync('script', ['--version']).status === 0;

/** Runs `imgtask …` in a 160×40 pseudo-terminal; answers what the terminal received and the exit code. */
function runInTerminal(
  args: string[],
  envVars: Record<string, string>,
): Promise<{ code: number | null; screen: string }> {
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  const command = `stty cols 160 rows 40; ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}`;
  const env: Record<string, string | undefined> = { ...process.env, ...envVars, TERM: 'xterm-256color', NO_COLOR: '1' };
  for (const name of ['CI', 'CONTINUOUS_INTEGRATION', 'BUILD_NUMBER', 'RUN_ID', 'FORCE_COLOR', 'COLORTERM'])
    delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.stderr.on('data', (chunk) => (text += chunk));
    child.on('error', reject);
    child.on('close', (exit) => resolve({ code: exit, screen: text }));
  });
}

test('on a terminal: imgtask video prints the task, reserved cost, the command that follows it and the PAT; with --watch, the live view ending on the report', {
  skip: !hasScript && 'script (util-linux) is not installed',
}, async (t) => {
  const s = await startServer(t);
  const created = await runInTerminal(
    ['video', 'a lighthouse', '--duration', '2', '--fps', '8', '--count', '2'],
    s.env,
  );
  assert.equal(created.code, 0, created.screen);
  assert.match(
    created.screen,
    /task (tsk_\w+) \(reserved 0\.008 USD\)\r?\nfollow it with: .*tasks watch \1\r?\npublic access token \(this task's status, for a browser\): pat_[\w.-]+/,
  );
  const { code, screen } = await runInTerminal(
    ['video', 'a red fox', '--duration', '1', '--fps', '8', '--watch'],
    s.env,
  );
  assert.equal(code, 0, screen);
  assert.match(screen, /video\.generate completed/);
  assert.match(screen, /video 1 ✓ 160x90 1s 8fps mp4 0\.002 USD http:\/\/\S+\/videos\/vid_\w+\.mp4/);
});
