import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, startServeProcess } from '../helpers/cli.js';
import { makeImage } from '../helpers/images.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';
import { hasScript, runInTerminal } from '../helpers/terminal.js';

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};
const close = (server: Server) => new Promise((resolve) => server.close(resolve));
const noStackTrace = (text: string) => assert.doesNotMatch(text, /\n\s+at /, `a stack trace: ${text}`);
const oneLine = (text: string) => assert.equal(text.trim().split('\n').length, 1, `one line: ${text}`);

test('numbers and choices are checked by the CLI: one line naming the option and what it takes, exit 2, nothing sent', async (t) => {
  // A stand-in server that counts what reaches it: a checked option must send nothing.
  let requests = 0;
  const recorder = createServer((_req, res) => {
    requests++;
    res.writeHead(500).end();
  });
  const port = await listen(recorder);
  t.after(() => close(recorder));
  const env = { IMGTASK_URL: `http://127.0.0.1:${port}`, IMGTASK_API_KEY: 'mak_test' };
  const data = join(await tempDir(t), 'never-created');

  const cases: Array<[string[], RegExp]> = [
    [['generate', 'x', '--count', 'abc'], /--count must be a whole number from 1 to 20, not "abc"/],
    [['generate', 'x', '--count', '21'], /--count must be a whole number from 1 to 20/],
    [['generate', 'x', '--count', '1.5'], /--count must be a whole number from 1 to 20/],
    [['generate', 'x', '--quality', '0'], /--quality must be a whole number from 1 to 100/],
    [
      ['generate', 'x', '--size', 'huge'],
      /--size must be one of: auto, square, portrait, landscape, .*16:9.*1:1_4k.* \(not "huge"\)/,
    ],
    [['generate', 'x', '--format', 'gif'], /--format must be one of: png, jpg, webp \(not "gif"\)/],
    [['remove-bg', 'https://example.com/a.png', '--format', 'jpg'], /--format must be one of: png, webp/],
    [['tasks', 'list', '--limit', 'lots'], /--limit must be a whole number from 1 to 100/],
    [['tasks', 'list', '--status', 'done'], /--status must be one of: pending, completed, failed/],
    [
      ['tasks', 'list', '--type', 'image.upscale'],
      /--type must be one of: image\.generate, image\.remove_background, image\.rate, image\.alt/,
    ],
    [['--data', data, 'accounts', 'create', 'a', '--credit', 'ten'], /--credit must be a USD amount/],
    [['--data', data, 'accounts', 'credit', 'a', '-5'], /<usd> must be a USD amount/],
    [
      ['--data', data, 'keys', 'create', '--account', 'a', '--spending-limit', '1', '--period', 'year'],
      /--period must be one of: day, week, month/,
    ],
    [
      ['--data', data, 'keys', 'create', '--account', 'a', '--scopes', 'image:rate,everything'],
      /--scopes must be one of: image:generate, .*tasks:read, tasks:cancel, workflow:raw \(not "everything"\)/,
    ],
    [['--data', data, 'tokens', 'issue', '--account', 'a', '--ttl', 'forever'], /--ttl must be a duration/],
    [
      ['--data', data, 'webhooks', 'deliveries', 'whk_1', '--limit', '0'],
      /--limit must be a whole number from 1 to 1000/,
    ],
    [
      [
        '--data',
        data,
        'destinations',
        'create',
        '--account',
        'a',
        '--name',
        'n',
        '--provider',
        'ftp',
        '--settings',
        '{}',
      ],
      /--provider must be one of: local, s3, http/,
    ],
    [['--data', data, 'dashboard', '--interval', '10'], /--interval must be a whole number from 200 to 60000/],
    [['--data', data, 'serve', '--port', '70000'], /--port must be a whole number from 0 to 65535/],
  ];
  for (const [args, message] of cases) {
    const result = await runCli(args, env);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    oneLine(result.stderr);
    assert.match(result.stderr, /^imgtask: VALIDATION_ERROR: /);
    assert.match(result.stderr, message);
  }
  assert.equal(requests, 0, 'no request reached the server');
  assert.equal(existsSync(data), false, 'no operator action touched the data dir');
});

test('a client that cannot connect asks whether `imgtask serve` runs at the URL', async (t) => {
  const probe = createServer();
  const port = await listen(probe);
  await close(probe);
  const url = `http://127.0.0.1:${port}`;
  const result = await runCli(['tasks', 'list'], { IMGTASK_URL: url, IMGTASK_API_KEY: 'mak_test' });
  assert.equal(result.code, 1);
  oneLine(result.stderr);
  assert.match(result.stderr, /UNREACHABLE: cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  assert.ok(result.stderr.includes(`is \`imgtask serve\` running at ${url}?`), result.stderr);
  assert.equal(result.json.error.code, 'UNREACHABLE', 'off a terminal the error is also one JSON document');
  t.diagnostic(result.stderr.trim());
});

test('serve on a port in use points at --port; a data dir that cannot be one is one sentence naming it', async (t) => {
  const taken = createServer();
  const port = await listen(taken);
  t.after(() => close(taken));
  const parent = await tempDir(t);

  const inUse = await runCli(['--data', join(parent, 'data'), 'serve', '--host', '127.0.0.1', '--port', String(port)]);
  assert.equal(inUse.code, 1);
  oneLine(inUse.stderr);
  noStackTrace(inUse.stderr);
  assert.match(inUse.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use: .*--port`));

  const file = join(parent, 'a-file');
  await writeFile(file, 'not a directory');
  const isFile = await runCli(['--data', file, 'serve', '--port', '0']);
  assert.equal(isFile.code, 1);
  oneLine(isFile.stderr);
  noStackTrace(isFile.stderr);
  assert.ok(
    isFile.stderr.includes(`cannot use the data dir ${file}: it is a file, not a directory (EEXIST)`),
    isFile.stderr,
  );
  assert.match(isFile.stderr, /--data DIR/);

  const under = await runCli(['--data', join(file, 'sub'), 'accounts', 'list']);
  assert.equal(under.code, 1);
  oneLine(under.stderr);
  assert.ok(under.stderr.includes(`cannot use the data dir ${join(file, 'sub')}: a file is in the way`), under.stderr);
  assert.match(under.stderr, /\(ENOTDIR\)/);

  // Permission: a read-only parent (root ignores modes; there /sys refuses instead).
  let denied: string | undefined;
  if (process.getuid?.() !== 0) {
    const locked = join(parent, 'locked');
    await mkdir(locked);
    await chmod(locked, 0o500);
    t.after(() => chmod(locked, 0o700));
    denied = join(locked, 'data');
  } else if (existsSync('/sys/kernel')) denied = '/sys/imgtask-cli-test';
  if (denied) {
    const refused = await runCli(['--data', denied, 'accounts', 'create', 'demo']);
    assert.equal(refused.code, 1);
    oneLine(refused.stderr);
    noStackTrace(refused.stderr);
    assert.ok(refused.stderr.includes(`cannot use the data dir ${denied}:`), refused.stderr);
    assert.match(
      refused.stderr,
      /\((EACCES|EPERM|EROFS)\); give this user write access to it, or pick a data dir it can write with --data DIR/,
    );
  }
});

test('the dashboard with no server says how to start one and exits 1 at once', async (t) => {
  const data = await tempDir(t);
  const started = Date.now();
  const result = await runCli(['--data', data, 'dashboard']);
  assert.equal(result.code, 1);
  oneLine(result.stderr);
  assert.ok(
    result.stderr.includes(
      `no server is running on the data dir ${data}: start one with \`imgtask --data ${data} serve\``,
    ),
    result.stderr,
  );
  assert.ok(Date.now() - started < 20_000, 'it does not wait for a server');
});

test('against a running server: failed sync rate/alt exit 3 with the task error, local files keep their names, --watch reports once in full, NO_COLOR', async (t) => {
  const data = await tempDir(t);
  const dest = join(data, 'dest');
  await mkdir(dest);
  const config = join(data, 'imgtask.json');
  await writeFile(
    config,
    JSON.stringify({
      embedded: {
        altText: { enabled: true, ocr: false },
        backgroundRemoval: { enabled: false, model: 'small', threads: 1, timeoutMs: 1000 },
      },
      destinations: { local: { allowedRoots: [dest] } },
    }),
  );
  const serve = await startServeProcess(['--data', data, '--config', config]);
  closeBeforeRemoval(data, async () => serve.child.kill('SIGKILL'));
  await runCli(['--data', data, 'accounts', 'create', 'acme', '--credit', '5']);
  const key = (await runCli(['--data', data, 'keys', 'create', '--account', 'acme', '--json'])).json.raw;
  const created = await runCli([
    '--data',
    data,
    '--config',
    config,
    'destinations',
    'create',
    '--account',
    'acme',
    '--name',
    'media',
    '--provider',
    'local',
    '--settings',
    JSON.stringify({ path: dest }),
  ]);
  assert.equal(created.code, 0, created.stderr);
  const env = { IMGTASK_URL: serve.url, IMGTASK_API_KEY: key };
  const cli = (...args: string[]) => runCli(args, env);

  // Every URL refused (a private address): the sync task fails, as any failed task does.
  const nowhere = 'http://127.0.0.1:9/x.png';
  for (const command of ['rate', 'alt']) {
    const failed = await cli(command, nowhere);
    assert.equal(failed.code, 3, `${command}: ${failed.stderr}`);
    assert.equal(failed.json.status, 'failed');
    assert.equal(failed.json.type, `image.${command}`);
    assert.match(
      failed.stderr,
      new RegExp(`^imgtask: task ${failed.json.id} failed: FETCH_FAILED: every URL failed \\(FETCH_FAILED\\)\\n$`),
    );
  }

  const photo = join(data, 'photo.png');
  await writeFile(photo, await makeImage({ width: 120, height: 80 }));
  const alt = await cli('alt', photo, '--json');
  assert.equal(alt.code, 0, alt.stderr);
  assert.equal(alt.json.results[0].file, photo, 'the result names the file it was given');
  assert.match(alt.json.results[0].url, /^img_/);
  const rated = await cli('rate', photo, nowhere, '--json');
  assert.equal(rated.code, 4, 'one item failed');
  assert.equal(rated.json.results[0].file, photo);
  assert.equal(rated.json.results[1].file, undefined, 'a URL needs no file name');

  if (!hasScript) return t.diagnostic('script (util-linux) is not installed: terminal checks skipped');
  const ratedOnTerminal = await runInTerminal(['rate', photo], env);
  assert.equal(ratedOnTerminal.code, 0, ratedOnTerminal.screen);
  assert.match(
    ratedOnTerminal.screen,
    new RegExp(`${photo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(img_\\w+\\): sfw`),
  );

  const out = join(data, 'out');
  const watched = await runInTerminal(
    [
      'generate',
      'a quiet harbour',
      '--count',
      '2',
      '--magic',
      '--rating',
      'nsfw_sfw',
      '--destination',
      'media',
      '--watch',
      '--out',
      out,
    ],
    env,
  );
  assert.equal(watched.code, 0, watched.screen);
  const saved = (await readdir(out)).sort();
  assert.equal(saved.length, 2);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences, taken out to read the text
  const screen = watched.screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  assert.equal(screen.match(/prompt rewritten: a quiet harbour/g)?.length, 1, `the report is printed once:\n${screen}`);
  for (const file of saved)
    assert.equal(screen.split(`saved ${join(out, file)}`).length - 1, 1, `saved ${file} once:\n${screen}`);
  assert.equal(screen.match(/rating sfw/g)?.length, 2);
  assert.equal(screen.match(/destination media ✓ \S+\/img_\w+\.webp/g)?.length, 2);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes are what is looked for
  const colour = /\x1b\[[0-9;]*m/;
  assert.match(watched.screen, colour, 'a terminal gets colours');

  const plain = await runInTerminal(['generate', 'a quiet harbour', '--watch'], { ...env, NO_COLOR: '1' });
  assert.equal(plain.code, 0, plain.screen);
  assert.match(plain.screen, /completed/);
  assert.doesNotMatch(plain.screen, colour, 'NO_COLOR: no colour or style codes');
});
