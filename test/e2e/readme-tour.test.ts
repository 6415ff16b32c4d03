import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, symlink } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { type TestContext, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const hasScript = spawnSync('script', ['--version']).status === 0;

/** The text of a `## ` section of the README, up to the next one. */
function section(readme: string, title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `README.md has no section "## ${title}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** A shell line without its comment: a `#` that starts a word outside quotes, as sh reads it. */
function withoutComment(line: string): string {
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = null;
    } else if (c === '\\') i++;
    else if (quote === '"') {
      if (c === '"') quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

/**
 * The commands of the section's ```sh blocks, in order: comments and blank lines dropped, `\`-continued lines joined.
 */
function commandsOf(text: string): string[] {
  const commands: string[] = [];
  for (const [, block] of text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    let pending = '';
    for (const line of block.split('\n')) {
      const code = withoutComment(line);
      if (code.endsWith('\\')) {
        pending += `${code.slice(0, -1)} `;
        continue;
      }
      const command = (pending + code).trim();
      pending = '';
      if (command) commands.push(command);
    }
  }
  return commands;
}

interface Step {
  command: string;
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one tour command in bash in `cwd`, as a user's terminal would: the variables an earlier
 * command exported are kept in `state` (a file of `export -p`), so `export IMGTASK_API_KEY=…`
 * holds for the commands after it.
 */
function runStep(command: string, cwd: string, env: NodeJS.ProcessEnv, state: string): Promise<Step> {
  const script = `[ -f ${state} ] && . ${state}\n${command}\nrc=$?\nexport -p > ${state}\nexit $rc\n`;
  return new Promise((done, fail) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-c', script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', fail);
    child.on('close', (code) => done({ command, code, stdout, stderr }));
  });
}

/** Starts the tour's `serve` command; resolves with the URL it listens on once it does. */
function startServe(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  return new Promise((done, fail) => {
    // exec: the server is the child itself, so a signal to the child stops it.
    const child = spawn('bash', ['--noprofile', '--norc', '-c', `exec ${command}`], { cwd, env });
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk;
      const match = /listening on (http:\/\/[\w.:[\]-]+)/.exec(out);
      if (match) done({ child, url: match[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', fail);
    child.on('exit', (code) => fail(new Error(`\`${command}\` exited with ${code}: ${out}`)));
  });
}

/**
 * Runs the tour's dashboard in a pseudo-terminal (`script`), waits for its first screen, then quits it with q as the
 * tour says.
 */
function runDashboard(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  state: string,
): Promise<{ code: number | null; screen: string }> {
  const script = `[ -f ${state} ] && . ${state}; stty cols 120 rows 30; ${command}`;
  return new Promise((done, fail) => {
    const child = spawn(
      'script',
      ['-qec', `bash --noprofile --norc -c '${script.replace(/'/g, `'\\''`)}'`, '/dev/null'],
      { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let screen = '';
    let quit = false;
    const onData = (chunk: Buffer) => {
      screen += chunk;
      if (!quit && /imgtask http:\/\//.test(screen)) {
        quit = true;
        child.stdin.write('q');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', fail);
    child.on('close', (code) => done({ code, screen }));
  });
}

/**
 * What the tour's `webhooks listen` (terminal 3) printed, and what the receiver on its port got (null: the port was
 * taken).
 */
interface Listening {
  stdout: () => string;
  received: { headers: Record<string, string>; body: string }[] | null;
  stop: () => Promise<number | null>;
}

/**
 * Starts the tour's `webhooks listen` in the background, as terminal 3 (with terminal 2's
 * exported PATH), after a receiver answering 200 on the port it forwards to, when that port is
 * free; resolves once it is ready.
 */
async function startListen(
  t: TestContext,
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  state: string,
): Promise<Listening> {
  const target = new URL(/--forward-to (\S+)/.exec(command)![1]);
  const received: { headers: Record<string, string>; body: string }[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.end('ok');
    });
  });
  const bound = await new Promise<boolean>((done) => {
    receiver.once('error', () => done(false));
    receiver.listen(Number(target.port), target.hostname, () => done(true));
  });
  if (bound) t.after(() => new Promise<void>((done) => receiver.close(() => done())));
  // exec: the listener is the child itself, so a signal to the child is its Ctrl-C.
  const child = spawn('bash', ['--noprofile', '--norc', '-c', `. ${state}\nexec ${command}`], { cwd, env });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stdout += chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  t.after(() => void (child.exitCode === null && child.kill('SIGKILL')));
  await Promise.race([
    (async () => {
      while (!/^Ready: /m.test(stdout)) await new Promise((done) => setTimeout(done, 50));
    })(),
    exited.then((code) => assert.fail(`\`${command}\` exited with ${code}: ${stdout}`)),
  ]);
  return {
    stdout: () => stdout,
    received: bound ? received : null,
    stop: () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

// About a minute: each command is a fresh CLI process, and the server loads its embedded models meanwhile.
test("the README's five-minute tour: each command runs as written, in order, against a real server", {
  timeout: 300_000,
  skip: hasScript ? false : 'script (util-linux) is needed for the dashboard step',
}, async (t) => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const commands = commandsOf(section(readme, 'Five-minute tour'));
  const [install, ...rest] = commands;

  // The README's first command and the tour's are the same: install, then serve (`npm start`).
  const top = commandsOf(readme.slice(0, readme.indexOf('\n## ')));
  assert.deepEqual(
    top,
    [install, 'npm test'],
    "the top of the README: exactly two commands, the tour's first and the tests",
  );
  assert.equal(install, 'npm install && npm start', 'the tour starts by installing and serving');
  const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  assert.equal(manifest.scripts.start, 'node bin/imgtask.js serve', '`npm start` is `imgtask serve`');
  // The tour runs in a folder of its own (its ./data, ./out and ./clips), whose bin/ is the clone's:
  // `node bin/imgtask.js` and `$PWD/bin` there are the clone's own, as in the clone.
  const home = await tempDir(t, 'imgtask-tour-');
  const cwd = join(home, 'clone');
  await mkdir(cwd);
  await symlink(join(ROOT, 'bin'), join(cwd, 'bin'));
  assert.equal(manifest.bin.imgtask, 'bin/imgtask.js');

  // The server listens on a free port (IMGTASK_PORT); the client commands find it through ./data, as a user's would on
  // another port.
  // PATH as a user's terminal has it: without the folders npm adds while it runs a script (`npm test`).
  const PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => !dir.endsWith('/node_modules/.bin'))
    .join(':');
  const env: NodeJS.ProcessEnv = { ...process.env, PATH, IMGTASK_PORT: '0', NO_COLOR: '1' };
  for (const name of ['IMGTASK_URL', 'IMGTASK_API_KEY', 'IMGTASK_DATA', 'IMGTASK_CONFIG', 'IMGTASK_DATABASE_URL', 'CI'])
    delete env[name];
  const state = join(home, 'exported.sh');

  // Terminal 1's server, as `npm start` runs it in the clone.
  const serve = await startServe(manifest.scripts.start, cwd, env);
  closeBeforeRemoval(home, async () => {
    if (serve.child.exitCode !== null) return;
    const exited = new Promise((done) => serve.child.once('exit', done));
    serve.child.kill('SIGTERM');
    await exited;
  });
  assert.equal(
    rest[0],
    'export PATH="$PWD/bin:$PATH"',
    "terminal 2 puts the clone's imgtask on its PATH first, at once",
  );

  const steps: Step[] = [];
  let listening: Listening | undefined;
  for (const command of rest) {
    if (/^imgtask webhooks listen\b/.test(command)) {
      listening = await startListen(t, command, cwd, env, state);
      continue;
    }
    if (/^imgtask dashboard\b/.test(command)) {
      const dashboard = await runDashboard(command, cwd, env, state);
      assert.equal(dashboard.code, 0, `\`${command}\` exited with ${dashboard.code}: ${dashboard.screen}`);
      assert.match(dashboard.screen, /demo/, 'the dashboard shows the account');
      continue;
    }
    const step = await runStep(command, cwd, env, state);
    assert.equal(step.code, 0, `\`${command}\` exited with ${step.code}:\n${step.stderr}${step.stdout}`);
    steps.push(step);
  }

  // What the tour says each command leaves behind.
  const exported = await readFile(state, 'utf8');
  assert.match(exported, /IMGTASK_API_KEY="mak_\w+"/, 'the API key is exported');
  const images = (await readdir(join(cwd, 'out'))).filter((name) => name.endsWith('.webp'));
  assert.equal(images.length, 2, 'two images saved in ./out');
  const clips = (await readdir(join(cwd, 'clips'))).filter((name) => name.endsWith('.mp4'));
  assert.equal(clips.length, 1, 'a clip saved in ./clips');
  assert.ok(
    (await filesUnder(join(cwd, 'data', 'exports', 'disk'))).some((name) => name.endsWith('.webp')),
    'the destination wrote the image under ./data/exports/disk',
  );
  const alt = steps.find((step) => step.command.startsWith('imgtask alt '));
  assert.ok(alt && /"alt":/.test(alt.stdout), 'alt text for the images');
  const review = steps.find((step) => step.command.startsWith('imgtask review '));
  assert.ok(review && /"verdict":/.test(review.stdout), 'a review verdict');

  // alt and review acted on the generated images themselves (files --out saved go by their ids, not as new uploads),
  // so the console shows each generated image with its rating and the reviewed one with its verdict.
  const generated = JSON.parse(steps.find((step) => step.command.startsWith('imgtask generate "a lighthouse'))!.stdout);
  const ids = generated.result.images.map((image: { id: string }) => image.id);
  assert.deepEqual(
    images.sort(),
    ids.map((id: string) => `${id}.webp`).sort(),
    './out holds the generated images, named by their ids',
  );
  assert.deepEqual(
    JSON.parse(alt!.stdout)
      .results.map((r: { url: string }) => r.url)
      .sort(),
    [...ids].sort(),
    'alt text of the generated images, by id',
  );
  for (const image of generated.result.images)
    assert.equal(image.rating?.status, 'success', 'each generated image is rated');
  const link = await runStep('imgtask console --account demo --json', cwd, env, state);
  const signIn = JSON.parse(link.stdout).url;
  const signedIn = await fetch(signIn, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: new URL(signIn).origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0];
  assert.match(cookie, /=/, `signed in to the console (${signedIn.status})`);
  const inspector = await (
    await fetch(new URL(`/console/tasks/${generated.id}`, signIn), { headers: { cookie } })
  ).text();
  assert.doesNotMatch(inspector, /Not rated, no review found/);
  assert.equal(
    (inspector.match(/class="badge rating">Rating: sfw</g) ?? []).length,
    2,
    'both images show their rating',
  );
  assert.match(
    inspector,
    /class="badge (success|failed)">Review: (pass|fail)</,
    'the reviewed image shows its verdict',
  );

  // Terminal 3 forwarded the red fox's event, signed with the secret it printed, and printed the receiver's answer.
  assert.ok(listening, 'the tour listens for webhooks');
  const forwarded = /^\d\d:\d\d:\d\d {2}task\.image\.generate\.completed {2}tsk_\w+ {2}evt_\w+ {2}→ (.+)$/m;
  for (let waited = 0; !forwarded.test(listening.stdout()) && waited < 10_000; waited += 50)
    await new Promise((done) => setTimeout(done, 50));
  const [, answer] =
    forwarded.exec(listening.stdout()) ?? assert.fail(`webhooks listen printed no event line:\n${listening.stdout()}`);
  if (listening.received) {
    assert.match(answer, /^200 \(\d+ ms\)$/);
    const [, secret] = /^secret (whsec_\S+)/m.exec(listening.stdout())!;
    assert.equal(listening.received.length, 1, 'one event: the red fox');
    const event = new Webhook(secret).verify(listening.received[0].body, listening.received[0].headers) as {
      type: string;
    };
    assert.equal(event.type, 'task.image.generate.completed');
  }
  assert.equal(await listening.stop(), 0, 'Ctrl-C stops it');
});
