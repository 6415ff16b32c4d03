// What the CLI tells a user to type next works as printed, at once: the first start's account,
// key and token (with the data dir and config it was started with), and the command that follows
// a task created without --watch. Each printed command is run as a user's shell would run it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { startService, testStore, testStoreConfig } from '../helpers/harness.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';
import { hasScript, runInTerminal } from '../helpers/terminal.js';

const ROOT = resolve(import.meta.dirname, '../..');
/**
 * The processor time a printed command may take: well above what one CLI command takes here
 * (a few seconds when the sources run through tsx), far below one that installs or builds first
 * (`npx imgtask` in the clone builds the package: a minute of tsc). Processor time, not wall
 * time, so that a loaded machine does not fail the test.
 */
const AT_ONCE_CPU_MS = 15_000;

/**
 * The environment of a user's terminal: no imgtask settings, and none of the folders npm puts on PATH while it runs a
 * script.
 */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: (process.env.PATH ?? '')
      .split(':')
      .filter((dir) => !dir.endsWith('/node_modules/.bin'))
      .join(':'),
    NO_COLOR: '1',
  };
  for (const name of Object.keys(env)) if (name.startsWith('IMGTASK_') || name.startsWith('npm_')) delete env[name];
  return env;
}

const seconds = (text: string) => {
  const [, m, s] = /^(\d+)m([\d.]+)s$/.exec(text) ?? [];
  return Number(m) * 60 + Number(s);
};

/**
 * Runs one printed command in bash in `cwd`, as typed; answers its output, exit code, wall time and
 * the processor time it and its children used (bash's `times`, on fd 3).
 */
async function typed(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number; cpuMs: number }> {
  const started = Date.now();
  const script = `${command}\nrc=$?\ntimes >&3\nexit $rc\n`;
  const child = spawn('bash', ['--noprofile', '--norc', '-c', script], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let times = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  child.stdio[3]?.on('data', (chunk) => (times += chunk));
  const [code] = await once(child, 'close');
  // `times`: the shell's user and system time, then its children's.
  const [, children = ''] = times.trim().split('\n');
  const cpuMs = Math.round(
    children
      .trim()
      .split(/\s+/)
      .map(seconds)
      .reduce((a, b) => a + b, 0) * 1000,
  );
  return { code, stdout, stderr, ms: Date.now() - started, cpuMs };
}

test("the first start's next steps work as printed, at once, in another terminal in the same folder, with the server's --data and --config", async (t) => {
  const parent = await tempDir(t);
  const data = join(parent, 'fresh data');
  const config = join(await tempDir(t), 'imgtask.json');
  await writeFile(config, JSON.stringify(await testStoreConfig(t)));
  const env = userEnv();
  // Terminal 1, in the clone, as `npm start` runs it (bin/imgtask.js), on a data dir and config of its own.
  const serve = spawn(
    process.execPath,
    ['bin/imgtask.js', '--data', data, '--config', config, 'serve', '--port', '0'],
    { cwd: ROOT, env: { ...env, IMGTASK_PORT: '0' } },
  );
  closeBeforeRemoval(parent, async () => {
    if (serve.exitCode === null && serve.signalCode === null) serve.kill('SIGKILL');
  });
  let out = '';
  serve.stdout.on('data', (chunk) => (out += chunk));
  serve.stderr.on('data', (chunk) => (out += chunk));
  await new Promise<void>((done, fail) => {
    serve.stdout.on('data', () => /tokens issue[^\n]*\n/.test(out) && done());
    serve.on('exit', (code) => fail(new Error(`serve exited with ${code}: ${out}`)));
  });

  const lines = out.split('\n');
  const first = lines.findIndex((line) => line.startsWith('First start:'));
  assert.equal(lines[first], `First start: the data dir is new. To get going, in another terminal in ${ROOT}:`);
  const commands = lines.slice(first + 1, first + 5).map((line) => line.replace(/\s+# .*$/, '').trim());
  const prefix = `${/^imgtask /.test(commands[0]) ? 'imgtask' : 'node bin/imgtask.js'} --data '${data}' --config ${config}`;
  assert.deepEqual(commands, [
    `${prefix} accounts create demo --credit 10`,
    `export IMGTASK_API_KEY=$(${prefix} keys create --account demo)`,
    `${prefix} generate "a lighthouse at dawn" --watch`,
    `${prefix} tokens issue --account demo`,
  ]);

  // Terminal 2: each as printed, in order in one shell: what a command exports holds for the ones after it.
  const shell = { ...env };
  for (const command of commands) {
    const exported = command.startsWith('export ') ? /^export (\w+)=/.exec(command)![1] : undefined;
    const run = await typed(exported ? `${command} && printf '\\n%s' "$${exported}" >&2` : command, ROOT, shell);
    t.diagnostic(`${run.ms} ms (${run.cpuMs} ms of processor time): ${command}`);
    assert.equal(run.code, 0, `\`${command}\` (${run.ms} ms):\n${run.stderr}${run.stdout}`);
    assert.ok(run.cpuMs > 0 && run.cpuMs < AT_ONCE_CPU_MS, `\`${command}\` took ${run.cpuMs} ms of processor time`);
    if (exported) shell[exported] = run.stderr.split('\n').pop();
  }
  assert.match(shell.IMGTASK_API_KEY ?? '', /^mak_/, 'the key was exported');
  const listed = await typed(`${prefix} accounts list --json`, ROOT, env);
  assert.deepEqual(
    JSON.parse(listed.stdout).map((account: { name: string }) => account.name),
    ['demo'],
  );

  // On the file store they go to the running server through its admin socket: what opens a store
  // (the services, the engines, the log, the image library) never loads in them.
  if (testStore() === 'file') {
    const dir = await tempDir(t);
    const loaded = join(dir, 'loaded.txt');
    const hooks = join(dir, 'hooks.mjs');
    await writeFile(loaded, '');
    await writeFile(
      hooks,
      `import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const result = await next(specifier, context);\n  appendFileSync(${JSON.stringify(loaded)}, result.url + '\\n');\n  return result;\n}\n`,
    );
    const register = join(dir, 'register.mjs');
    await writeFile(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`,
    );
    const hooked = await typed(commands[0].replace('create demo', 'create demo2'), ROOT, {
      ...env,
      NODE_OPTIONS: `--import ${register}`,
    });
    assert.equal(hooked.code, 0, hooked.stderr);
    const urls = (await readFile(loaded, 'utf8')).split('\n');
    assert.ok(
      urls.some(
        (url) => url.endsWith('/client/admin-socket-client.js') || url.endsWith('/client/admin-socket-client.ts'),
      ),
      'the hook saw the socket client load',
    );
    for (const heavy of [
      '/app/services.',
      '/node_modules/sharp/',
      '/node_modules/pino/',
      '/node_modules/hono/',
      '/node_modules/@aws-sdk/',
    ]) {
      assert.ok(!urls.some((url) => url.includes(heavy)), `an action sent to the running server loads ${heavy}`);
    }
  }
});

test('generate without --watch on a terminal: the task, then "follow it with: …" that works as printed, then the named access token', {
  skip: !hasScript && 'needs script (util-linux)',
}, async (t) => {
  const h = await startService(t);
  const created = await runInTerminal(['generate', 'a lighthouse at dawn'], {
    IMGTASK_URL: h.url,
    IMGTASK_API_KEY: h.apiKey,
    NO_COLOR: '1',
  });
  assert.equal(created.code, 0, created.screen);
  const screen = created.screen.replace(/\r/g, '');
  const taskId = /^task (tsk_\w+)$/m.exec(screen)?.[1];
  assert.ok(taskId, screen);
  const follow = /^follow it with: (.+)$/m.exec(screen)?.[1];
  assert.match(follow ?? '', new RegExp(`^(imgtask|node \\S*bin/imgtask\\.js) tasks watch ${taskId}$`), screen);
  assert.match(screen, /^public access token \(this task's status, for a browser\): pat_\S+$/m);

  const watched = await typed(follow!, process.cwd(), { ...userEnv(), IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey });
  assert.equal(watched.code, 0, watched.stderr);
  assert.equal(JSON.parse(watched.stdout).status, 'completed');
});
