import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { blurred, scene } from '../fixtures/review-images.js';
import { BIN, runCli } from '../helpers/cli.js';
import { startService } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

/** `script` (util-linux) gives the CLI a real pseudo-terminal, for its human output. */
const hasScript = spawnSync('script', ['--version']).status === 0;
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
function runInTerminal(args: string[], env: Record<string, string>): Promise<{ code: number | null; screen: string }> {
  const command = `stty cols 200 rows 40; ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}`;
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    TERM: 'xterm-256color',
    NO_COLOR: '1',
    ...env,
  };
  for (const name of ['CI', 'FORCE_COLOR', 'COLORTERM']) delete childEnv[name];
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: childEnv as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.on('data', (chunk) => (screen += chunk));
    child.stderr.on('data', (chunk) => (screen += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen }));
  });
}

test('imgtask review: a local file is uploaded and reviewed; exit 0 on pass, 4 on fail, 3 when the task fails', async (t) => {
  const h = await startService(t, { config: { fetch: { allowPrivateAddresses: true } } });
  const dir = await tempDir(t);
  const clean = join(dir, 'clean.png');
  const blurry = join(dir, 'blurry.png');
  await writeFile(clean, await scene());
  await writeFile(blurry, await blurred());
  const env = { IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey };

  const passed = await runCli(['review', clean, '--criteria', 'no nudity', '--json'], env);
  assert.equal(passed.code, 0, passed.stderr);
  assert.deepEqual(Object.keys(passed.json), ['task', 'result', 'access']);
  assert.equal(passed.json.task.status, 'completed');
  assert.equal(passed.json.result.verdict, 'pass');
  assert.equal(passed.json.result.findings[3].criterion, 'no nudity');
  const task = (await h.request('GET', `/tasks/${passed.json.task.id}`, { auth: h.apiKey })).json.data;
  assert.match(task.request.url, /^img_/, 'the local file went up first and the review names its id');

  const failed = await runCli(['review', blurry], env);
  assert.equal(failed.code, 4, failed.stderr);
  assert.equal(failed.json.result.verdict, 'fail', 'off a terminal: one JSON document');

  const broken = await runCli(['review', 'http://127.0.0.1:9/missing.png'], env);
  assert.equal(broken.code, 3);
  assert.match(broken.stderr, /failed: FETCH_FAILED/);

  const queued = await runCli(['review', clean, '--async', '--json'], env);
  assert.equal(queued.code, 0);
  assert.equal(queued.json.task.status, 'pending');

  if (hasScript) {
    const shown = await runInTerminal(['review', blurry, '--prompt', 'a sun'], env);
    assert.equal(shown.code, 4, shown.screen);
    assert.match(shown.screen, /^ {2}fail {2}score 0\.75/m);
    assert.match(shown.screen, /✓ resolution — 1024×1024/);
    assert.match(shown.screen, /✗ sharp focus — variance of the Laplacian [\d.]+, below 100: the image looks blurred/);
    assert.match(shown.screen, /Prompt adherence was not judged/);
    assert.match(shown.screen, /task tsk_\w+ cost 0\.001 USD/);
    assert.ok(!shown.screen.includes('\u001b[3'), 'NO_COLOR: no colour');
  }
});

test('imgtask review checks its criteria before sending anything: more than 10 is exit 2', async (t) => {
  let requests = 0;
  const recorder = createServer((_req, res) => {
    requests++;
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => recorder.close(resolve)));
  const env = { IMGTASK_URL: `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`, IMGTASK_API_KEY: 'mak_x' };
  const criteria = Array.from({ length: 11 }, (_, i) => ['--criteria', `c${i}`]).flat();
  const res = await runCli(['review', 'https://e.com/a.png', ...criteria], env);
  assert.equal(res.code, 2);
  assert.match(res.stderr, /--criteria may be given at most 10 times, not 11/);
  const empty = await runCli(['review', 'https://e.com/a.png', '--criteria', ' '], env);
  assert.equal(empty.code, 2);
  assert.equal(requests, 0, 'nothing sent');
});
