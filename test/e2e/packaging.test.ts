// The package as `npm install -g imgtask` would get it: built from the current sources into a
// copy of the package's files (never the shared dist/), packed by npm with the `files` list of
// package.json, unpacked, and run as installed (bin/imgtask.js → dist/, no src/ beside it).
import assert from 'node:assert/strict';
import { type SpawnSyncOptions, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'node:test';
import { tempDir } from '../helpers/temp-dir.js';

const ROOT = join(import.meta.dirname, '../..');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

function run(command: string, args: string[], options: SpawnSyncOptions = {}): { stdout: string; stderr: string } {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 240_000, ...options });
  assert.equal(result.status, 0, `${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** The files `npm pack` puts in the package, from its --json report. */
const packedFiles = (json: string): string[] =>
  (JSON.parse(json) as { files: { path: string }[] }[])[0].files.map((file) => file.path);

test('npm pack of the repository takes the whitelisted files only, and npm warns of no project config', () => {
  const { stdout, stderr } = run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT });
  const files = packedFiles(stdout);
  for (const file of ['package.json', 'README.md', 'LICENSE', 'bin/imgtask.js', 'config/default.json'])
    assert.ok(files.includes(file), `packs ${file}`);
  for (const prefix of ['src/', 'test/', 'scripts/', '.scratch/', 'data/', 'node_modules/', 'deploy/']) {
    assert.deepEqual(
      files.filter((file) => file.startsWith(prefix)),
      [],
      `packs nothing under ${prefix}`,
    );
  }
  // .npmrc holds no setting npm does not know (the project's own; a user's ~/.npmrc is not ours).
  assert.doesNotMatch(stderr, /Unknown project config/);
});

test('the packed package holds the compiled CLI and its workers, and runs as installed', {
  timeout: 300_000,
}, async (t) => {
  const dir = await tempDir(t, 'imgtask-pack-');
  const pkg = join(dir, 'pkg');
  mkdirSync(pkg);
  for (const entry of ['package.json', 'README.md', 'LICENSE', 'bin', 'config', 'public', 'sql'])
    cpSync(join(ROOT, entry), join(pkg, entry), { recursive: true });
  // The build of tsconfig.build.json, into the copy; types are checked by `tsc --noEmit` in npm test.
  run(process.execPath, [
    join(ROOT, 'node_modules/typescript/bin/tsc'),
    '-p',
    join(ROOT, 'tsconfig.build.json'),
    '--outDir',
    join(pkg, 'dist'),
    '--noCheck',
  ]);
  const { stdout } = run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: pkg });
  const files = packedFiles(stdout);
  for (const file of [
    'bin/imgtask.js',
    'dist/cli/main.js',
    'dist/providers/embedded/background/background-worker.mjs',
    'dist/providers/embedded/nsfw/nsfw-worker.mjs',
    'config/default.json',
    'public/console/console.css',
    'public/console/console.js',
  ]) {
    assert.ok(files.includes(file), `the tarball holds ${file}`);
  }
  assert.deepEqual(
    files.filter((file) => file.startsWith('src/') || file.startsWith('test/')),
    [],
  );

  const unpacked = join(dir, 'unpacked');
  mkdirSync(unpacked);
  run('tar', ['-xzf', join(dir, (JSON.parse(stdout) as { filename: string }[])[0].filename), '-C', unpacked]);
  const installed = join(unpacked, 'package');
  // Every file a compiled module opens beside itself (`new URL('./x', import.meta.url)`) is in the package.
  const siblings = readdirSync(join(installed, 'dist'), { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.js'),
  );
  let references = 0;
  for (const file of siblings) {
    for (const [, target] of readFileSync(join(installed, 'dist', file), 'utf8').matchAll(
      /new URL\('(\.{1,2}\/[^']+)', import\.meta\.url\)/g,
    )) {
      references++;
      assert.ok(
        existsSync(join(installed, 'dist', file, '..', target)),
        `dist/${file} opens ${target}, which is in the package`,
      );
    }
  }
  assert.ok(references >= 3, 'the workers and config/default.json are found by their URLs');
  symlinkSync(join(ROOT, 'node_modules'), join(installed, 'node_modules'), 'dir');
  const bin = join(installed, 'bin/imgtask.js');

  assert.equal(run(process.execPath, [bin, '--version']).stdout, `${version}\n`);
  assert.match(run(process.execPath, [bin, '--help']).stdout, /completion/);
  assert.match(run(process.execPath, [bin, 'completion', 'bash']).stdout, /complete -o default -F _imgtask imgtask/);

  // A fast start: --help and --version load commander and the command definitions, not the
  // server, the store, the models, Ink or zod (each loads in the action that needs it).
  const hooks = join(dir, 'hooks.mjs');
  const loaded = join(dir, 'loaded.txt');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const result = await next(specifier, context);\n  appendFileSync(${JSON.stringify(loaded)}, result.url + '\\n');\n  return result;\n}\n`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
  for (const flag of ['--help', '--version']) {
    writeFileSync(loaded, '');
    run(process.execPath, ['--import', register, bin, flag]);
    const packages = new Set(
      readFileSync(loaded, 'utf8')
        .split('\n')
        .map((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1])
        .filter(Boolean),
    );
    assert.ok(packages.has('commander'), `the hook saw the modules of ${flag}`);
    for (const heavy of [
      'hono',
      'zod',
      'ink',
      'sharp',
      '@aws-sdk/client-s3',
      'onnxruntime-node',
      'nsfwjs',
      '@tensorflow/tfjs',
      'tesseract.js',
      'pino',
      'lowdb',
      'jose',
    ]) {
      assert.ok(!packages.has(heavy), `imgtask ${flag} loads ${heavy}`);
    }
  }

  // The installed server finds config/default.json from dist/ and answers.
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ embedded: { preload: false } }));
  const child = spawn(
    process.execPath,
    [bin, '--data', join(dir, 'data'), '--config', config, 'serve', '--host', '127.0.0.1', '--port', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /http:\/\/127\.0\.0\.1:\d+/.exec(output);
      if (match) resolve(match[0]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${output}`)));
  });
  const health = await fetch(`${url}/health`);
  assert.equal(health.status, 200);
  await health.arrayBuffer();
  // The web console's pages and assets come from the package (public/, Chart.js from node_modules).
  const signIn = await fetch(`${url}/console/sign-in`);
  assert.equal(signIn.status, 200);
  const assets = [...(await signIn.text()).matchAll(/(?:href|src)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
  assert.ok(assets.length >= 2, 'the sign-in page names its stylesheet and script');
  for (const asset of assets) {
    const res = await fetch(`${url}${asset}`);
    assert.equal(res.status, 200, asset);
    await res.arrayBuffer();
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  assert.equal(await exited, 0, output);
});
